"""Benchmark: `transcribe-import export --all` of 1,000 pages against `cp -r` + `sha256sum`.

The corpus: 20 notebooks x 50 small JPEG pages (400 x 560), imported once through the
engine's own ingest transaction (so sources and renders are what an import makes) and kept
in bench/_work. Each timed side is its own process, on the same bytes in the same run:

- export: the whole CLI, `python -m transcribe_import --data-dir D export --all -o OUT`
  (stream + sha256 of every file against project.json, fsync of each file and folder, the
  tag files, the lock);
- reference: `cp -r D/corpus/notebooks OUT && find OUT -type f | xargs sha256sum`, the
  unavoidable work of "copy these bytes and hash them", with no fsync;
- reference+sync: the same followed by `sync`, the durability the export pays for.

Sides alternate, each with a fresh output folder on the same file system, after an untimed
`sync` (so no side pays for the previous one's writeback). The median of the per-round
ratios is reported, and the first export's bag is checked with the bagit package (when
installed). Results go to bench/RESULTS.md with --write.

    .venv/bin/python bench/bench_export.py [--notebooks 20] [--pages 50] [--repeat 5] [--write]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from PIL import Image, ImageDraw

from bench_results import replace_section  # noqa: E402 - beside this script

BENCH = Path(__file__).resolve().parent
WORK = BENCH / "_work"
HEADING = "## Export (bench/bench_export.py)"
PAGE = (400, 560)


def _page(seed: int) -> Image.Image:
    """A small page: tinted paper with grain and a few strokes, so each JPEG is distinct."""
    rnd = random.Random(seed)
    # Grain made small and scaled up, as paper looks: it compresses like a scan, not like noise.
    grain = Image.effect_noise((PAGE[0] // 8, PAGE[1] // 8), 12 + seed % 7)
    img = grain.resize(PAGE, Image.Resampling.BILINEAR).convert("RGB")
    d = ImageDraw.Draw(img)
    for y in range(40, PAGE[1] - 20, 28):
        pts = [(x, y - rnd.randint(0, 12)) for x in range(30, PAGE[0] - 30, 14)]
        d.line(pts, fill=(30, 30, 70), width=2)
    return img


def make_corpus(notebooks: int, pages: int) -> Path:
    """The data directory of a corpus with ``notebooks`` x ``pages`` imported pages (cached)."""
    from transcribe_import.engine.base.ids import new_id
    from transcribe_import.engine.ingest.transaction import (
        IngestRequest,
        PageSpec,
        SourceSpec,
        ingest,
    )
    from transcribe_import.engine.storage import fsio
    from transcribe_import.engine.storage.corpus import Corpus

    data = WORK / f"export-corpus-v2-{notebooks}x{pages}"
    done = data / "complete"
    if done.exists():
        return data
    shutil.rmtree(data, ignore_errors=True)
    scans = WORK / f"export-scans-v2-{notebooks}x{pages}"
    corpus = Corpus.open(data)
    started = time.monotonic()
    for n in range(notebooks):
        nbid = new_id()
        corpus.create_notebook(nbid, f"Notebook {n + 1}")
        sources = []
        for i in range(pages):
            path = scans / f"nb{n:03d}" / f"page {i + 1:03d}.jpg"
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                _page(n * 10_000 + i).save(path, quality=85)
            sha, _size = fsio.hash_file(path)
            spec = PageSpec(new_id(), new_id(), 0)
            sources.append(SourceSpec(new_id(), path, sha, "image/jpeg", (spec,)))
        ingest(corpus, IngestRequest(nbid, tuple(sources)), workers=2)
    done.write_text(f"built in {time.monotonic() - started:.1f} s\n")
    return data


def _timed(argv: list[str], env: dict[str, str] | None = None) -> float:
    # Untimed: the previous side's dirty pages are written back first, so no side pays for
    # another's writeback.
    subprocess.run(["sync"], check=True)
    started = time.perf_counter()
    subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def side(name: str, data: Path, out: Path) -> float:
    notebooks = data / "corpus" / "notebooks"
    if name == "export":
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRANSCRIBE_")}
        env["PYTHONPATH"] = str(BENCH.parent / "app")
        argv = [sys.executable, "-m", "transcribe_import", "--data-dir", str(data)]
        return _timed([*argv, "export", "--all", "-o", str(out)], env)
    script = f'cp -r "{notebooks}" "{out}" && find "{out}" -type f -print0 | xargs -0 sha256sum'
    if name == "reference+sync":
        script += " && sync"
    return _timed(["sh", "-c", script + " > /dev/null"])


def payload(data: Path) -> tuple[int, int]:
    files = [p for p in (data / "corpus" / "notebooks").rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


SIDES = ("export", "reference", "reference+sync")
SIDE_WORDS = {
    "export": "`transcribe-import export --all -o OUT`",
    "reference": "`cp -r` + `sha256sum` of the copies",
    "reference+sync": "`cp -r` + `sha256sum` + `sync`",
}


def measure(data: Path, runs: Path, repeat: int) -> tuple[dict[str, list[float]], str]:
    """Every side's wall times, rounds in rotating order; and what bagit said of a bag."""
    times: dict[str, list[float]] = {s: [] for s in SIDES}
    shutil.rmtree(runs, ignore_errors=True)
    runs.mkdir(parents=True)
    checked = "bagit not installed: not checked"
    for r in range(repeat):
        for name in SIDES[r % len(SIDES) :] + SIDES[: r % len(SIDES)]:
            out = runs / f"{name}-{r}"
            times[name].append(side(name, data, out))
            if name == "export" and r == 0:
                checked = check_bag(out)
            shutil.rmtree(out)
        print(f"{runs}: round {r + 1}: " + ", ".join(f"{s} {times[s][-1]:.2f} s" for s in SIDES))
    shutil.rmtree(runs, ignore_errors=True)
    return times, checked


def table(label: str, times: dict[str, list[float]]) -> tuple[str, float]:
    """The table of one place, and its ratio: the median of the per-round ratios.

    Paired by round because the sides of one round ran back to back, so a drift of the
    machine over the rounds (this VM's disk throttles after a burst) cancels out.
    """
    med = {s: statistics.median(t) for s, t in times.items()}
    paired = {
        ref: [e / r for e, r in zip(times["export"], times[ref], strict=True)]
        for ref in ("reference", "reference+sync")
    }
    rows = "\n".join(
        f"| {SIDE_WORDS[s]} | {med[s]:.2f} s | {_list(times[s])} |"
        + (f" {statistics.median(paired[s]):.2f} ({_list(paired[s])}) |" if s in paired else " |")
        for s in SIDES
    )
    ratio = statistics.median(paired["reference"])
    text = f"""**{label}**

| side | wall time (median) | runs (s) | export / this side: median of the rounds (each round) |
| --- | --- | --- | --- |
{rows}
"""
    return text, ratio


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--notebooks", type=int, default=20)
    ap.add_argument("--pages", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument(
        "--tmpfs", default="/dev/shm", help="also measure with corpus and outputs here ('' skips)"
    )
    ap.add_argument("--write", action="store_true", help="write the section of RESULTS.md")
    args = ap.parse_args()

    data = make_corpus(args.notebooks, args.pages)
    n_files, n_bytes = payload(data)
    disk_times, checked = measure(data, WORK / "export-runs", args.repeat)
    disk_text, disk_ratio = table("On the disk (bench/_work: the VM's virtio disk)", disk_times)
    mem_text, mem_ratio = "", None
    if args.tmpfs and Path(args.tmpfs).is_dir():
        # The same corpus copied into memory: no disk, so what is left is each side's own CPU.
        mem_root = Path(args.tmpfs) / "transcribe-bench-export"
        shutil.rmtree(mem_root, ignore_errors=True)
        shutil.copytree(data, mem_root / "data")
        try:
            mem_times, _ = measure(mem_root / "data", mem_root / "runs", args.repeat)
        finally:
            shutil.rmtree(mem_root, ignore_errors=True)
        mem_text, mem_ratio = table(f"In memory ({args.tmpfs}, tmpfs: fsync is free)", mem_times)
    load = os.getloadavg()[0]
    headline = f"**Ratio export / (cp -r + sha256sum): {disk_ratio:.2f} on the disk**"
    if mem_ratio is not None:
        headline += f", {mem_ratio:.2f} in memory"
    section = f"""{HEADING}

Run {datetime.now(UTC):%Y-%m-%d} on {os.cpu_count()} cores, Python {platform.python_version()},
{args.notebooks} notebooks x {args.pages} pages = {args.notebooks * args.pages} pages
(400 x 560 JPEG sources and their PNG renders, imported through the engine's ingest):
{n_files} files, {n_bytes / 1_048_576:.1f} MiB in the notebook folders. Each side its own
process, on the same bytes in the same run, in rotating order, {args.repeat} rounds, each after
an untimed `sync`; 1-minute load average {load:.2f} at the end.

{headline}.

{disk_text}
{mem_text}
- The export reads each byte once: it hashes the stream while it copies it and compares the
  hash with the one project.json records; the reference reads the copies a second time to
  hash them. The export also fsyncs every file and folder before it writes `bagit.txt` (its
  commit point), which `cp` does not; the `sync` rows are that durability's price for the
  reference. The export's wall time includes the CLI's start-up (about 0.2 s).
- On the disk every side slows down from round to round by the same factor (the VM's disk
  throttles after a burst): hence the per-round ratios. In memory the times are steadier.
- First export's bag: {checked}.
"""
    print(section)
    if args.write:
        replace_section(BENCH / "RESULTS.md", HEADING, section)
        print(f"wrote {HEADING!r} in {BENCH / 'RESULTS.md'}", file=sys.stderr)


def _list(values: list[float]) -> str:
    return ", ".join(f"{v:.2f}" for v in values)


def check_bag(out: Path) -> str:
    try:
        import bagit
    except ImportError:
        return "bagit not installed: not checked"
    started = time.perf_counter()
    bagit.Bag(str(out)).validate()
    return f"valid by `bagit.Bag(path).validate()` ({time.perf_counter() - started:.2f} s)"


if __name__ == "__main__":
    sys.path.insert(0, str(BENCH.parent / "app"))
    main()
