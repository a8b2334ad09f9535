"""Benchmark: scan 100,000 small page files against a bare os.scandir walk, same run.

The tree is 2,000 folders of 50 tiny valid JPEGs (one 8x8 JPEG's bytes, each copy with
a different counter after the end-of-image marker so every hash differs), generated
once under bench/_work/ and reused. Measured, each in its own process so peak memory
is its own, with the tree warm in the page cache (a first untimed walk warms it):

  reference       bare iterative os.scandir walk counting files (what any walk costs)
  reference+stat  the same, plus one stat per file (size and mtime: any importer needs them)
  walk            engine.planning.scan.walk: classify, stat, NFC names, sort
  scan            engine.planning.scan.scan, workers=2: walk + sniff + probe + hash

Results go to the "## Scan (bench/bench_scan.py)" section of bench/RESULTS.md.

    .venv/bin/python bench/bench_scan.py [--folders 2000] [--per-folder 50] [--repeat 3]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_results import replace_section  # noqa: E402 - beside this script

BENCH = Path(__file__).resolve().parent
WORK = BENCH / "_work"
HEADING = "## Scan (bench/bench_scan.py)"
SIDES = ("reference", "reference+stat", "walk", "scan")


def tree_path(folders: int, per_folder: int) -> Path:
    return WORK / f"scan-tree-{folders}x{per_folder}"


def make_tree(folders: int, per_folder: int) -> Path:
    """The tree, made once: a marker file says a previous run finished writing it."""
    root = tree_path(folders, per_folder)
    done = root.with_name(root.name + ".complete")
    if done.exists():
        return root
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 190, 170)).save(buf, "JPEG", quality=75)
    tiny = buf.getvalue()
    n = 0
    for k in range(1, folders + 1):
        folder = root / f"notebook {k:04d}"
        folder.mkdir(parents=True, exist_ok=True)
        for j in range(1, per_folder + 1):
            # Bytes after the EOI marker are ignored by decoders but change the hash.
            (folder / f"page {j:02d}.jpg").write_bytes(tiny + n.to_bytes(4, "big"))
            n += 1
    done.write_text(f"{n} files of {len(tiny) + 4} bytes\n")
    return root


# -- the sides, each run in a child process ---------------------------------------------------


def side_reference(root: Path, with_stat: bool) -> int:
    count = 0
    stack = [str(root)]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir():
                    stack.append(entry.path)
                else:
                    if with_stat:
                        entry.stat()
                    count += 1
    return count


def _drive(gen):  # type: ignore[no-untyped-def]
    events = 0
    while True:
        try:
            next(gen)
            events += 1
        except StopIteration as stop:
            return stop.value, events


def side_walk(root: Path) -> tuple[int, int]:
    from transcribe_import.engine.planning.scan import walk

    result, events = _drive(walk([root]))
    return len(result.files), events


def side_scan(root: Path) -> tuple[int, int]:
    from transcribe_import.engine.planning.scan import scan

    result, events = _drive(scan([root], workers=2))
    bad = [f for f in result.files if f.problem is not None or f.sha256 is None]
    assert not bad, bad[:3]
    return len(result.files), events


def child(side: str, root: Path) -> dict[str, float]:
    if side == "import":
        from transcribe_import.engine.planning import scan as _  # noqa: F401

        peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return {"seconds": 0.0, "files": 0, "peak_mib": peak_mib, "events": 0}
    if side in ("walk", "scan"):
        # Imported before the clock starts: the cost measured is the scan's, not Pillow's.
        from transcribe_import.engine.planning import scan as _  # noqa: F401
    events = 0
    t0 = time.perf_counter()
    if side == "reference":
        files = side_reference(root, with_stat=False)
    elif side == "reference+stat":
        files = side_reference(root, with_stat=True)
    elif side == "walk":
        files, events = side_walk(root)
    else:
        files, events = side_scan(root)
    seconds = time.perf_counter() - t0
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": seconds, "files": files, "peak_mib": peak_mib, "events": events}


def run_side(side: str, root: Path) -> dict[str, float]:
    proc = subprocess.run(
        [sys.executable, __file__, "--child", side, "--root", str(root)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--folders", type=int, default=2000)
    ap.add_argument("--per-folder", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scan-repeat", type=int, default=1)
    ap.add_argument("--child", choices=[*SIDES, "import"])
    ap.add_argument("--root", type=Path)
    ap.add_argument("--no-record", action="store_true")
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.root)))
        return
    WORK.mkdir(exist_ok=True)
    t0 = time.perf_counter()
    root = make_tree(args.folders, args.per_folder)
    print(f"tree ready in {time.perf_counter() - t0:.1f} s: {root}", file=sys.stderr)
    side_reference(root, with_stat=True)  # warm the page cache for every side alike
    runs: dict[str, list[dict[str, float]]] = {side: [] for side in SIDES}
    for i in range(max(args.repeat, args.scan_repeat)):
        for side in SIDES:
            if i < (args.scan_repeat if side == "scan" else args.repeat):
                runs[side].append(run_side(side, root))
                print(side, runs[side][-1], file=sys.stderr)
    files = args.folders * args.per_folder
    summary: dict[str, dict[str, float]] = {}
    ref = statistics.median(r["seconds"] for r in runs["reference"])
    for side in SIDES:
        seconds = statistics.median(r["seconds"] for r in runs[side])
        assert all(r["files"] == files for r in runs[side]), runs[side]
        summary[side] = {
            "seconds": round(seconds, 2),
            "files_per_s": round(files / seconds),
            "peak_mib": round(max(r["peak_mib"] for r in runs[side])),
            "ratio": round(seconds / ref, 1),
            "events": max(r["events"] for r in runs[side]),
            "runs": len(runs[side]),
        }
    import_mib = round(run_side("import", root)["peak_mib"])
    print(json.dumps(summary, indent=2), f"\nimport alone: {import_mib} MiB")
    if not args.no_record:
        record(summary, args, files, import_mib)


def record(
    s: dict[str, dict[str, float]], args: argparse.Namespace, files: int, import_mib: int
) -> None:
    rows = "\n".join(
        f"| {side} | {v['seconds']} s | {v['files_per_s']:,} | {v['peak_mib']} MiB "
        f"| {v['ratio']}x | {v['runs']} |"
        for side, v in s.items()
    )
    section = f"""{HEADING}

Run {time.strftime("%Y-%m-%d")} on {os.cpu_count()} cores, Python {platform.python_version()},
{files:,} tiny valid JPEGs ({args.folders:,} folders of {args.per_folder}), page cache warm.
Each side in its own process; median wall time of the runs; ratio to the bare walk.

| side | wall time | files/s | peak memory (RSS) | / bare walk | runs |
| --- | --- | --- | --- | --- | --- |
{rows}

- reference: iterative `os.scandir`, counting files; reference+stat: plus one stat per file.
- walk: `scan.walk` (classify names, stat page files, NFC rel, loop guard, natural sort).
- scan: `scan.scan(workers=2)`: walk, then per file `media.probe` (magic-byte sniff and
  headers, no decode) and `fsio.hash_file`, in batches on a thread pool;
  {s["scan"]["events"]} progress events in all.
- Peak memory of walk and scan includes the interpreter with Pillow, pypdf and pypdfium2
  imported ({import_mib} MiB before any work); the reference sides import nothing.
- Where the time goes (profiled when this benchmark was written): the walk's extra cost
  over reference+stat is classifying names, building rel and the natural sort; the scan
  spends about 180 us of CPU per tiny file (single-threaded), most of it in Pillow's
  JPEG header parser (pure Python, so it holds the GIL and workers=2 gains little on
  tiny files). On real scans (megabytes per file) hashing dominates, and it releases
  the GIL.
"""
    replace_section(BENCH / "RESULTS.md", HEADING, section)


if __name__ == "__main__":
    sys.path.insert(0, str(BENCH.parent / "app"))
    main()
