"""Benchmark: hot folders (issue #40): one poll of a share of 10,000 files, and drops a minute.

1. **One poll's cost.** A share of ``--drops`` folders holding ``--files`` files in all
   (default 100 x 100 = 10,000 small files), every drop already seen and waiting (a settle
   time that never ends, so each pass reads them all and takes none): the median wall time
   of ``api.watch_pass`` over ``--passes`` interleaved rounds, against the reference measured
   in the same run on the same tree, watchdog's ``DirectorySnapshot`` (the walk its
   ``PollingObserver`` makes each interval, stat of every entry), and a bare ``os.scandir``
   walk. The ratio says what the watch's own bookkeeping (signatures, the records) adds to
   the walk any poller pays.
2. **Drops a minute.** ``--burst`` folders of 2 small pages each with a ``.done`` marker,
   dropped at once; passes until every one is imported: drops per minute, end to end
   (plan, look pass, validate, commit, move), on ``--workers`` workers.

Nothing is written outside a temporary folder, removed at the end. Prints the figures as
Markdown for bench/RESULTS.md (the date, ``uptime`` load, the sizes, the ratios).

    .venv/bin/python bench/bench_watch.py [--drops 100] [--files 10000] [--passes 7]
        [--burst 20] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from PIL import Image

from transcribe_import.engine import api
from transcribe_import.engine.storage.corpus import Corpus


def _make_share(root: Path, drops: int, files: int) -> None:
    per = files // drops
    for d in range(drops):
        folder = root / f"drop {d:04d}"
        folder.mkdir(parents=True)
        for f in range(per):
            (folder / f"page {f:04d}.txt").write_bytes(b"x" * 64)


def _scandir_walk(root: Path) -> int:
    n = 0
    stack = [str(root)]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for e in entries:
                st = e.stat(follow_symlinks=False)
                n += 1
                if e.is_dir(follow_symlinks=False):
                    stack.append(e.path)
                del st
    return n


def _poll_cost(tmp: Path, drops: int, files: int, passes: int) -> dict[str, float]:
    from watchdog.utils.dirsnapshot import DirectorySnapshot

    share = tmp / "share"
    _make_share(share, drops, files)
    corpus = Corpus.open(tmp / "poll-data")
    settings = api.WatchSettings(settle=1e9, leave_imported=True)
    api.watch_pass(corpus, [share], settings)  # the first sight: every drop recorded found
    took = api.watch_pass(corpus, [share], settings)
    assert took.records == (), took.records  # settled: nothing written, nothing taken
    walks = {
        "watch_pass": lambda: api.watch_pass(corpus, [share], settings),
        "watchdog": lambda: DirectorySnapshot(str(share), recursive=True),
        "scandir": lambda: _scandir_walk(share),
    }
    times: dict[str, list[float]] = {name: [] for name in walks}
    for _ in range(passes):  # interleaved, one of each per round: the same cache and load
        for name, walk in walks.items():
            t = time.perf_counter()
            walk()
            times[name].append(time.perf_counter() - t)
    return {name: statistics.median(ts) for name, ts in times.items()}


def _throughput(tmp: Path, burst: int, workers: int) -> tuple[float, int]:
    share = tmp / "burst"
    for d in range(burst):
        folder = share / f"box {d:03d}"
        folder.mkdir(parents=True)
        for p in range(2):
            img = Image.new("RGB", (64, 90), (d * 7 % 256, p * 90, 40))
            img.save(folder / f"page {p + 1}.jpg", quality=80)
        (folder / ".done").write_bytes(b"")
    corpus = Corpus.open(tmp / "burst-data")
    settings = api.WatchSettings(workers=workers)
    start = time.perf_counter()
    passes = 0
    while any(not p.name.startswith(".") for p in share.iterdir()):
        api.watch_pass(corpus, [share], settings)
        passes += 1
    elapsed = time.perf_counter() - start
    imported = sum(r.state is api.DropState.IMPORTED for r in api.drop_log(corpus))
    assert imported == burst, imported
    return burst / elapsed * 60, passes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--drops", type=int, default=100)
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--passes", type=int, default=7)
    ap.add_argument("--burst", type=int, default=20)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    tmp = Path(tempfile.mkdtemp(prefix="bench-watch-"))
    try:
        poll = _poll_cost(tmp, args.drops, args.files, args.passes)
        rate, passes = _throughput(tmp, args.burst, args.workers)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"## Hot folders (bench/bench_watch.py), {datetime.now(UTC):%Y-%m-%d %H:%M} UTC\n")
    print(f"`uptime`: {load}\n")
    print(f"One poll of a share of {args.files:,} files in {args.drops} waiting drops, median")
    print(f"of {args.passes} interleaved rounds:\n")
    print("| walk | seconds | ratio to watchdog |\n| --- | --- | --- |")
    for name in ("watch_pass", "watchdog", "scandir"):
        print(f"| {name} | {poll[name]:.3f} | {poll[name] / poll['watchdog']:.2f} |")
    print(
        f"\nDrops a minute: {args.burst} folders of 2 pages with `.done`, dropped at once, "
        f"{args.workers} workers: {rate:.0f} drops/min ({passes} passes)."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
