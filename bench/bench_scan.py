"""Benchmark: scan 100,000 small page files against a bare os.scandir walk, same run.

The tree is 2,000 folders of 50 tiny valid JPEGs (one 8x8 JPEG's bytes, each copy with
a different counter after the end-of-image marker so every hash differs), generated
once under bench/_work/ and reused. Measured, each in its own process so peak memory
is its own, with the tree warm in the page cache (a first untimed walk warms it):

  reference       bare iterative os.scandir walk counting files (what any walk costs)
  reference+stat  the same, plus one stat per file (size and mtime: any importer needs them)
  walk            engine.planning.scan.walk: classify, stat, NFC names, sort
  scan            engine.planning.scan.scan, workers=2: walk + read + hash + probe + check

Results go to the "## Scan (bench/bench_scan.py)" section of bench/RESULTS.md.

    .venv/bin/python bench/bench_scan.py [--folders 2000] [--per-folder 50] [--repeat 3]

With ``--a4``, plan against a hash walk on A4 scans instead (issue #26), at each page count
of ``--pages`` (default 60 and 600): half the pages JPEG files (2480x3508, quality 85),
half the pages of 10-page PDFs holding the same kind of scans, each side in its own
process, alternating, median of ``--repeat``:

  hash walk   os.scandir walk, read and sha256 every byte of every file, one thread
  plan        engine.api.plan_paths (scan with two workers, then the plan), fresh corpus;
              then, in the same process, the look pass of that plan (api.look_pass, two
              threads: the JPEG and PDF pages' looks, which the scan leaves to it)

and thumbnails of ``--thumb-pages`` pages (default 2,000) at 160 px through
``api.render_preview`` on two threads (as the window's pool), first with the corpus's
thumbnail cache empty, then again from it. ``--before TREE`` also runs the plan side on
another checkout's ``app`` (the tree before this change), same inputs, same run.
Results go to the "## Plan against a hash walk (bench/bench_scan.py --a4)" section.

    .venv/bin/python bench/bench_scan.py --a4 [--pages 60 600] [--thumb-pages 2000]
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
A4_HEADING = "## Plan against a hash walk (bench/bench_scan.py --a4)"
A4_SIDES = ("hashwalk", "plan", "thumbs", "before")
# Distinct scans drawn (slow: about a second each); every file is one of them with its own
# counter after the end-of-image marker, so every hash differs while decoding costs the same.
DISTINCT_SCANS = 8
PDF_PAGES = 10
THUMB_SIDE = 160


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


# -- A4 scans: plan against a hash walk, and thumbnails ------------------------------------


def _a4_jpegs() -> list[bytes]:
    from bench_ingest import _scan  # noqa: PLC0415 - the ingest benchmark's realistic page

    cache = WORK / "a4-scans"
    cache.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(DISTINCT_SCANS):
        path = cache / f"scan {i}.jpg"
        if not path.exists():
            _scan(i).save(path, quality=85, dpi=(300, 300))
        out.append(path.read_bytes())
    return out


def _pdf(pages: list[bytes], width: int = 2480, height: int = 3508) -> bytes:
    """A PDF of whole-page JPEG images (DCTDecode), as a scanner's PDF is."""
    objects: list[bytes] = []
    kids = []
    for k, jpeg in enumerate(pages):
        image, content, page = 3 + 3 * k, 4 + 3 * k, 5 + 3 * k
        kids.append(f"{page} 0 R")
        objects.append(
            f"<< /Type /XObject /Subtype /Image /Width {width} /Height {height} "
            f"/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode "
            f"/Length {len(jpeg)} >>\nstream\n".encode()
            + jpeg
            + b"\nendstream"
        )
        draw = b"q 595.2 0 0 841.9 0 0 cm /Im0 Do Q"
        objects.append(f"<< /Length {len(draw)} >>\nstream\n".encode() + draw + b"\nendstream")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595.2 841.9] /Contents {content} 0 R "
            f"/Resources << /XObject << /Im0 {image} 0 R >> >> >>".encode()
        )
    head = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(pages)} >>".encode(),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(head + objects, start=1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(offsets) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (
        f"trailer\n<< /Size {len(offsets) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)


def make_a4_tree(pages: int) -> Path:
    """``pages`` A4 pages: half JPEG files in folders of 50, half in PDFs of 10 pages."""
    root = WORK / f"a4-tree-{pages}"
    done = root.with_name(root.name + ".complete")
    if done.exists():
        return root
    scans = _a4_jpegs()
    n = 0

    def unique() -> bytes:
        nonlocal n
        n += 1
        return scans[n % len(scans)] + n.to_bytes(4, "big")

    jpegs = pages // 2
    for i in range(jpegs):
        folder = root / f"notebook {i // 50 + 1:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"page {i % 50 + 1:02d}.jpg").write_bytes(unique())
    pdfs = root / "pdfs"
    pdfs.mkdir(parents=True, exist_ok=True)
    for k in range((pages - jpegs) // PDF_PAGES):
        (pdfs / f"volume {k + 1:03d}.pdf").write_bytes(_pdf([unique() for _ in range(PDF_PAGES)]))
    done.write_text(f"{pages} pages\n")
    return root


def side_hashwalk(root: Path) -> int:
    import hashlib

    files = 0
    stack = [str(root)]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir():
                    stack.append(entry.path)
                    continue
                h = hashlib.sha256()
                with open(entry.path, "rb") as f:
                    while chunk := f.read(1024 * 1024):
                        h.update(chunk)
                files += 1
    return files


def a4_child(side: str, root: Path, data: Path) -> dict[str, float]:
    from concurrent.futures import ThreadPoolExecutor

    from transcribe_import.engine import api

    corpus = api.open_corpus(data)
    result: dict[str, float] = {}
    if side == "hashwalk":
        t0 = time.perf_counter()
        result["files"] = side_hashwalk(root)
        result["seconds"] = time.perf_counter() - t0
    elif side in ("plan", "before"):
        # Imported before the clock starts, as for the scan above: the decoders' one-time
        # import (reported on its own) is the process's cost, not each plan's.
        t0 = time.perf_counter()
        import pypdfium2  # noqa: F401
        from PIL import (  # noqa: F401 - the plugins decode registers on its first image
            JpegImagePlugin,
            MpoImagePlugin,
            PngImagePlugin,
            TiffImagePlugin,
            WebPImagePlugin,
        )

        from transcribe_import.engine.media import decode  # noqa: F401
        from transcribe_import.engine.planning import planner  # noqa: F401

        result["imports"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        planned = api.plan_paths(corpus, api.PlanRequest(roots=(root,)))
        result["seconds"] = time.perf_counter() - t0
        assert planned is not None
        bad = [f for f in planned.scan.files if f.problem is not None]
        assert not bad, bad[:3]
        result["pages"] = sum(f.page_count for f in planned.scan.files)
        if hasattr(api, "look_pass"):  # the tree before the look pass made looks in its scan
            # The look pass, as the window runs it once the review is shown (two threads).
            t0 = time.perf_counter()
            looks: dict[str, str | None] = {}
            for made in api.look_pass(planned.plan, workers=2):
                looks.update(made.looks)
            result["looks"] = time.perf_counter() - t0
            assert all(looks.values()), "every A4 scan has a look"
    else:
        planned = api.plan_paths(corpus, api.PlanRequest(roots=(root,)))
        assert planned is not None
        jobs = [(f, index) for f in planned.scan.files for index in range(f.page_count)]

        def thumb(job: tuple[object, int]) -> int:
            f, index = job
            png = api.render_preview(
                f.path,  # type: ignore[attr-defined]
                f.media_type,  # type: ignore[attr-defined]
                index,
                THUMB_SIDE,
                shown_as=f.rel,  # type: ignore[attr-defined]
                corpus=corpus,
                sha256=f.sha256,  # type: ignore[attr-defined]
                size=f.size,  # type: ignore[attr-defined]
            )
            return len(png)

        for name in ("cold", "warm"):
            t0 = time.perf_counter()
            with ThreadPoolExecutor(2) as pool:
                sizes = list(pool.map(thumb, jobs))
            result[name] = time.perf_counter() - t0
        result["pages"] = len(jobs)
        result["kib"] = sum(sizes) / 1024
    result["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result


def run_a4_side(side: str, root: Path, app: Path) -> dict[str, float]:
    import tempfile

    with tempfile.TemporaryDirectory(dir=WORK) as data:
        proc = subprocess.run(
            [
                sys.executable,
                __file__,
                "--a4-child",
                side,
                "--root",
                str(root),
                "--data",
                data,
                "--app",
                str(app),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
    if proc.returncode != 0:
        raise SystemExit(f"{side} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main_a4(args: argparse.Namespace) -> None:
    here = BENCH.parent / "app"
    load_before = os.getloadavg()
    table: dict[int, dict[str, float]] = {}
    for pages in args.pages:
        root = make_a4_tree(pages)
        side_hashwalk(root)  # warm the page cache for every side alike
        runs: dict[str, list[float]] = {
            "hashwalk": [],
            "plan": [],
            "looks": [],
            "before": [],
            "imports": [],
        }
        for _ in range(args.repeat):
            runs["hashwalk"].append(run_a4_side("hashwalk", root, here)["seconds"])
            plan = run_a4_side("plan", root, here)
            assert plan["pages"] == pages, plan
            runs["plan"].append(plan["seconds"])
            runs["imports"].append(plan["imports"])
            runs["looks"].append(plan["looks"])
            if args.before:
                runs["before"].append(run_a4_side("before", root, args.before / "app")["seconds"])
            print(pages, {k: v[-1] for k, v in runs.items() if v}, file=sys.stderr)
        table[pages] = {k: statistics.median(v) for k, v in runs.items() if v}
    root = make_a4_tree(args.thumb_pages)
    thumbs = run_a4_side("thumbs", root, here)
    print(json.dumps({"plan": table, "thumbs": thumbs}, indent=2))
    if not args.no_record:
        record_a4(table, thumbs, args, load_before, os.getloadavg())


def record_a4(
    table: dict[int, dict[str, float]],
    thumbs: dict[str, float],
    args: argparse.Namespace,
    load_before: tuple[float, float, float],
    load_after: tuple[float, float, float],
) -> None:
    rows = []
    for pages, t in table.items():
        before = (
            f"{t['before']:.2f} s ({t['before'] / t['hashwalk']:.1f}x)" if "before" in t else "-"
        )
        rows.append(
            f"| {pages} | {t['hashwalk']:.2f} s | {t['plan']:.2f} s "
            f"| **{t['plan'] / t['hashwalk']:.2f}x** | {t['looks']:.2f} s "
            f"| {(t['plan'] + t['looks']) / t['hashwalk']:.1f}x | {before} | {t['imports']:.2f} s |"
        )
    n = int(thumbs["pages"])
    load = "load average {:.1f} / {:.1f} / {:.1f} (1/5/15 min)".format
    command = (
        f"--pages {' '.join(map(str, args.pages))} --thumb-pages {args.thumb_pages} "
        f"--repeat {args.repeat}" + (f" --before {args.before}" if args.before else "")
    )
    cold, warm = thumbs["cold"], thumbs["warm"]
    machine = (
        "The machine was quiet"
        if load_before[0] < 2 and load_after[0] < 3
        else "**The machine is shared and busy** (other work on the same cores)"
    )
    section = f"""{A4_HEADING}

Run {time.strftime("%Y-%m-%d %H:%M")} UTC on {os.cpu_count()} cores, Python
{platform.python_version()}. {machine}: {load(*load_before)} at the start,
{load(*load_after)} at the end. Compare the sides of one row, measured in turn in the same
minutes, not rows of other runs. A4 scans at 2480x3508 (about 1.6 MB each): half the pages
JPEG files, half in 10-page PDFs of the same scans; page cache warm; each side in its own
process, median of {args.repeat} alternating runs.

| pages | hash walk (read + sha256, 1 thread) | plan (2 workers) | plan / hash walk \
| look pass after it (2 threads) | plan and looks / hash walk \
| before this change (/ hash walk) | decoders' import, once per process |
| --- | --- | --- | --- | --- | --- | --- | --- |
{chr(10).join(rows)}

Goal: plan at most 1.5x the hash walk. What the scan does per file now: one read, hashed
and kept for the probe (media/check.py `read_once`); a JPEG's data checked by
walking its markers as libjpeg reads them instead of a 1/8-scale decode; a PDF's pages
loaded by pdfium (not rendered); PNG, TIFF and WebP still decoded whole (Pillow has no
smaller decode for them, and their damage shows only when decoded), their looks made from
that decode. The JPEG and PDF pages' looks (for rescans) are the look pass's
(planning/look_pass.py): the window runs it while the review is shown (its commit waits for
it), the command line's `plan` before it writes the plan; its time is the column after the
plan's, in the same process.

Thumbnails at {THUMB_SIDE} px of {n:,} pages of the same kind (the window's pool: two
threads, `api.render_preview`): **{cold:.1f} s** with the corpus's thumbnail cache empty
({n / cold:.0f} pages/s: each JPEG decoded at 1/8 scale, each PDF page rasterised at
thumbnail scale), **{warm:.2f} s** again from the cache ({n / warm:,.0f} pages/s, no page
decoded); the cache holds {thumbs["kib"] / 1024:.0f} MiB for them. Peak memory
{thumbs["peak_mib"]:.0f} MiB.

    .venv/bin/python bench/bench_scan.py --a4 {command}
"""
    replace_section(BENCH / "RESULTS.md", A4_HEADING, section)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--folders", type=int, default=2000)
    ap.add_argument("--per-folder", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scan-repeat", type=int, default=1)
    ap.add_argument("--child", choices=[*SIDES, "import"])
    ap.add_argument("--root", type=Path)
    ap.add_argument("--no-record", action="store_true")
    ap.add_argument("--a4", action="store_true")
    ap.add_argument("--pages", type=int, nargs="+", default=[60, 600])
    ap.add_argument("--thumb-pages", type=int, default=2000)
    ap.add_argument("--before", type=Path)
    ap.add_argument("--a4-child", choices=A4_SIDES)
    ap.add_argument("--data", type=Path)
    ap.add_argument("--app", type=Path)
    args = ap.parse_args()
    if args.a4_child:
        print(json.dumps(a4_child(args.a4_child, args.root, args.data)))
        return
    if args.a4:
        WORK.mkdir(exist_ok=True)
        main_a4(args)
        return
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
- scan: `scan.scan(workers=2)`: walk, then per file one read, hashed as read
  (`media.check.read_once`), and `media.probe` of those bytes (magic-byte sniff, headers,
  and the data check: a JPEG's markers walked), in batches on a thread pool;
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
    # A child may run another checkout's engine (--before): its app folder comes first.
    _app = sys.argv[sys.argv.index("--app") + 1] if "--app" in sys.argv else None
    sys.path.insert(0, _app or str(BENCH.parent / "app"))
    main()
