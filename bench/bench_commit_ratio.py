"""Benchmark: a commit against the libvips reference of issue #26, in alternating rounds.

bench_ingest.py's 60 pages by default (50 A4 300-dpi JPEG scans in notebooks of 50 and a
10-page scanned PDF, two workers), each side in its own child process (``run_side``),
their order reversed every round so neither always runs first. Each round prints the wall
time and the process CPU time of every side, CPU per page, the ratios to the reference
and the load average (1 min) before and after. ``--before-app`` adds the commit of another
tree (a ``git archive`` of its ``app/``) to the same rounds. Hand-run: the rows are for
bench/RESULTS.md, recorded by hand with what the machine was doing.

    .venv/bin/python bench/bench_commit_ratio.py [--rounds 6] [--before-app DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from bench_ingest import make_inputs, run_side  # noqa: E402 - beside this script

REFERENCE = "vips-reference"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--pages", type=int, default=50)
    ap.add_argument("--pdf-pages", type=int, default=10)
    ap.add_argument("--before-app", type=Path, help="another tree's app/, run in the same rounds")
    args = ap.parse_args()
    make_inputs(args.pages, args.pdf_pages)
    pages = args.pages + args.pdf_pages
    sides: list[tuple[str, str, Path | None]] = [
        ("reference", REFERENCE, None),
        ("commit", "ingest", None),
    ]
    if args.before_app is not None:
        sides.append(("commit, tree before", "ingest", args.before_app))
    names = [name for name, _, _ in sides]
    print(
        "| round | time (UTC) | load | "
        + " | ".join(f"{n}: wall s, CPU s" for n in names)
        + " | "
        + " | ".join(f"{n} / reference" for n in names[1:])
        + " |"
    )
    results: dict[str, list[dict[str, float]]] = {n: [] for n in names}
    for k in range(args.rounds):
        order = sides if k % 2 == 0 else sides[::-1]
        start, load0 = time.strftime("%H:%M", time.gmtime()), os.getloadavg()[0]
        got = {name: run_side(side, args.pages, args.pdf_pages, app) for name, side, app in order}
        load1 = os.getloadavg()[0]
        for n in names:
            results[n].append(got[n])
        ref = got["reference"]["seconds"]
        print(
            f"| {k + 1} | {start} | {load0:.1f}-{load1:.1f} | "
            + " | ".join(f"{got[n]['seconds']:.2f}, {got[n]['cpu_s']:.2f}" for n in names)
            + " | "
            + " | ".join(f"{got[n]['seconds'] / ref:.2f}" for n in names[1:])
            + " |",
            flush=True,
        )
    print()
    for n in names:
        wall = statistics.median(r["seconds"] for r in results[n])
        cpu = statistics.median(r["cpu_s"] for r in results[n])
        peak = max(r["peak_mib"] for r in results[n])
        ratios = [
            r["seconds"] / ref["seconds"]
            for r, ref in zip(results[n], results["reference"], strict=True)
        ]
        print(
            f"{n}: median {wall:.2f} s wall, {cpu:.2f} s CPU ({cpu / pages * 1000:.0f} ms a page), "
            f"peak RSS {peak:.0f} MiB"
            + (
                f"; / reference: median {statistics.median(ratios):.2f} "
                f"({min(ratios):.2f}-{max(ratios):.2f})"
                if n != "reference"
                else ""
            )
        )


if __name__ == "__main__":
    sys.exit(main())
