"""Window responsiveness as a plan is shown and replaced: the review's own handlers.

bench_gui.py measures whole scans and Open Plan…; this measures the two steps the window's
thread does itself once a plan is ready, on the same 100,000-file tree (bench_scan's): the
plan handed to the window (``ImportSession.set_plan``: every view's first look at it) with
the review page on screen, and that plan replaced by another (a new scan, Open Plan…,
New Import), which lets the first one go. A 10 ms heartbeat on the window's thread; each
step's own call time and the worst gap in the 3 s after it. Results go to bench/RESULTS.md.

    .venv/bin/python bench/bench_plan_shown.py [--repeat 3] [--no-record]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import bench_gui as bg  # noqa: E402 - beside this script (sets up Qt's platform first)
from bench_results import replace_section  # noqa: E402 - beside this script

HEADING = "## A plan shown and replaced (bench/bench_plan_shown.py)"
SETTLE_S = 3.0


def measure(step: Callable[[], None]) -> tuple[float, float]:
    """The call's own time and the worst gap of the heartbeat until it settles, in ms."""
    beat = bg.Heartbeat()
    beat.start()
    t0 = time.perf_counter()
    step()
    call = (time.perf_counter() - t0) * 1000
    end = time.perf_counter() + SETTLE_S
    bg.wait_until("the window to settle", lambda: time.perf_counter() > end)
    beat.stop()
    return call, max(beat.gaps(), default=0.0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-record", action="store_true")
    args = ap.parse_args()

    from transcribe_import.gui.app import application

    application()
    from bench_scan import make_tree
    from transcribe_import.engine.planning.planner import build_plan
    from transcribe_import.engine.planning.scan import run_scan
    from transcribe_import.engine.storage.corpus import Corpus

    load = [os.getloadavg()[0]]
    rows: list[tuple[str, float, float, float]] = []
    with tempfile.TemporaryDirectory(prefix="bench-plan-shown-", dir=bg.WORK) as tmp:
        data = Path(tmp) / "data"
        scanned = run_scan([make_tree(2000, 50)])
        window, settings = bg.open_window(data)
        window.show_import_page(window.review_page)
        for _ in range(args.repeat):
            # Two plans of the same files, nothing shared: the first is let go by the second.
            first = build_plan(Corpus.open(data), scanned)
            second = build_plan(Corpus.open(data), scanned)
            sources = sum(len(it.sources) for it in first.items)
            call, gap = measure(lambda first=first: window.session.set_plan(first))  # type: ignore[misc]
            rows.append(("shown", call, gap, os.getloadavg()[0]))
            del first
            call, gap = measure(lambda second=second: window.session.set_plan(second))  # type: ignore[misc]
            rows.append(("replaced, the first let go", call, gap, os.getloadavg()[0]))
            del second
            call, gap = measure(lambda: window.session.set_plan(None))
            rows.append(("none (New Import), the second let go", call, gap, os.getloadavg()[0]))
            print(rows[-3:], file=sys.stderr, flush=True)
        bg.close(window, settings)
    load.append(os.getloadavg()[0])
    lines = [
        HEADING,
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M')} UTC on {os.cpu_count()} shared cores, Qt platform "
        f"{os.environ.get('QT_QPA_PLATFORM', 'xcb')}; load average {load[0]:.1f} at the start, "
        f"{load[1]:.1f} at the end. A plan of {sources:,} sources in 2,000 notebooks "
        "(bench_scan's tree), handed to the window with the review on screen, replaced by "
        "another plan of the same files, then by none. Target: no gap over 100 ms.",
        "",
        "| step | its call | worst gap in the 3 s after | load |",
        "| --- | --- | --- | --- |",
        *(f"| {s} | {c:.0f} ms | {g:.0f} ms | {ld:.1f} |" for s, c, g, ld in rows),
        "",
    ]
    print("\n".join(lines))
    if not args.no_record:
        replace_section(bg.BENCH / "RESULTS.md", HEADING, "\n".join(lines))


if __name__ == "__main__":
    main()
