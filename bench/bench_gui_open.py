"""Open Plan… of a big plan file in the real window, again and again, each gap explained.

The last step of bench_gui_shelf.py alone, to look into its gaps quickly: a copy of
``--data`` (a corpus whose look cache holds the plan's pages, as the shelf bench's has by
then) opens a window; Open Plan… of ``--plan`` is pressed ``--repeat`` times, each to the
plan under review, validated and its look pass ended. Each gap of the 10 ms heartbeat over
``--over`` ms is told with every thread's time on a core in it and the Python calls it was
in (gui_stalls.ThreadClock), the window's own first.

``--big``: after each open, the plan's largest notebook is chosen and its pages shown in
the grid, as bench_gui_shelf.py leaves the review before its Open Plan…: the next open
shows that notebook's grid again (its first paint, its hints on a worker). The first open
shows the plan's first notebook.

    PYTHONPATH=app .venv/bin/python bench/bench_gui_open.py --data DIR --plan PLAN.json
        [--repeat 3] [--over 60] [--switch-interval-ms MS] [--tasks-at-its-level] [--big]

bench_gui_shelf.py --keep DIR leaves such a DIR/data and DIR/plan.json. The app measured is
the one beside this script's folder (bench_gui.py puts ``../app`` first on sys.path, over
PYTHONPATH): to measure a base, run a copy of bench/ put beside the base's app.
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_gui as bg  # noqa: E402 - beside this script (sets up Qt's platform first)
from gui_stalls import ThreadClock, late_gaps_split  # noqa: E402 - beside this script

# Run in a child process on the copied data folder: its kept drafts listed (and so counted).
_LIST_DRAFTS = (
    "import sys; from pathlib import Path; from transcribe_import.engine import api; "
    "from transcribe_import.engine.storage.corpus import Corpus; "
    "api.list_drafts(Corpus.open(Path(sys.argv[1])))"
)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--plan", type=Path, required=True)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--over", type=float, default=60.0)
    ap.add_argument("--switch-interval-ms", type=float)
    ap.add_argument("--big", action="store_true", help="the largest notebook's grid shown")
    ap.add_argument(
        "--tasks-at-its-level",
        action="store_true",
        help="the window's one-call tasks at its thread's level, not below it (to compare)",
    )
    args = ap.parse_args()

    from transcribe_import.engine import api
    from transcribe_import.gui.app import application
    from transcribe_import.gui.workers import EngineTask

    application()
    EngineTask.runs_below = not args.tasks_at_its_level
    print(f"one-call tasks {'below the window' if EngineTask.runs_below else 'at its level'}")
    if args.switch_interval_ms is not None:
        sys.setswitchinterval(args.switch_interval_ms / 1000)
    print(f"switch interval {sys.getswitchinterval() * 1000:g} ms", flush=True)
    clock = ThreadClock()
    lower = api.lower_this_thread

    def lower_and_register() -> None:
        clock.register()
        lower()

    api.lower_this_thread = lower_and_register  # type: ignore[assignment]
    bg.STACKS[0] = True
    with tempfile.TemporaryDirectory(prefix="i38o-open-") as tmp:
        data = Path(tmp) / "data"
        shutil.copytree(args.data, data)
        # The kept drafts counted, as the window that kept them left them: a copy's files
        # are new inodes, whose counts (api/drafts.py) would not be taken.
        subprocess.run(
            [sys.executable, "-c", _LIST_DRAFTS, str(data)],
            check=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
        window, settings = bg.open_window(data)
        window.resize(1366, 740)
        flow, session = window.flow, window.session
        opened: list[bool] = []
        flow.plan_opened.connect(lambda: opened.append(True))
        # Every call Qt makes into Python on the window's thread (a slot, a paint, a model's
        # data): each one takes the GIL again, behind whatever worker holds it.
        entries: list[tuple[float, str]] = []

        def entered(frame, event, _arg):  # noqa: ANN001, ANN202
            back = frame.f_back
            if event == "call" and back is not None and back.f_code.co_name == "wait_until":
                entries.append((time.perf_counter(), frame.f_code.co_name))

        shown: list[float] = []
        flow.plan_opened.connect(lambda: shown.append(time.perf_counter()))
        for n in range(args.repeat):
            opened.clear()
            entries.clear()
            shown.clear()
            sys.setprofile(entered)
            beat = bg.Heartbeat()
            beat.start()
            clock.start()
            t0 = time.perf_counter()
            flow.open_plan(args.plan)
            bg.wait_until(
                "the plan opened",
                lambda: bool(opened) and bg.validated(window) and not session.looking,
                3600,
            )
            t1 = time.perf_counter()
            sys.setprofile(None)
            beat.stop()
            clock.stop()
            gaps = beat.gaps()
            print(
                f"open {n + 1}: {t1 - t0:.1f} s, worst gap {max(gaps):.0f} ms, "
                f"{sum(g > 100 for g in gaps)} over 100 ms, {sum(g > args.over for g in gaps)} "
                f"over {args.over:.0f} ms",
                flush=True,
            )
            print(late_gaps_split(beat.beats, beat.sched, t0, t1 + 1, args.over))
            if shown:
                near = [
                    (b - a) * 1000
                    for a, b in zip(beat.beats, beat.beats[1:], strict=False)
                    if shown[0] - 0.5 <= b <= shown[0] + 2
                ]
                print(
                    f" plan shown at {shown[0] - t0:.2f} s; its worst gap (-0.5 s..+2 s) "
                    f"{max(near):.0f} ms"
                )
            for i, (a, b) in enumerate(zip(beat.beats, beat.beats[1:], strict=False)):
                if (b - a) * 1000 > args.over:
                    on = (beat.sched[i + 1][0] - beat.sched[i][0]) / 1e6
                    queue = (beat.sched[i + 1][1] - beat.sched[i][1]) / 1e6
                    calls = collections.Counter(name for t, name in entries if a <= t < b)
                    most = ", ".join(f"{k} {v}" for k, v in calls.most_common(6))
                    print(
                        f" gap {(b - a) * 1000:.0f} ms at {a - t0:.2f} s: window on a core "
                        f"{on:.0f} ms, in the run queue {queue:.0f} ms, asleep "
                        f"{(b - a) * 1000 - on - queue:.0f} ms; {calls.total()} calls from Qt "
                        f"({most})"
                    )
                    print(clock.gap_report(a, b), flush=True)
            if args.big:
                big_grid(window)
        bg.close(window, settings)


def big_grid(window) -> None:  # noqa: ANN001 - a MainWindow, imported late
    """The plan's largest notebook chosen, its pages in the grid, and a second to settle."""
    from transcribe_import.gui.pages.review_grid import PageView

    review, plan = window.review_page, window.session.plan
    big = max(plan.items, key=lambda it: it.imported_page_count())
    review.show_view(PageView.GRID, remember=False)
    review.select_item(big.item_id)
    end = time.perf_counter() + 1
    bg.wait_until("the grid settled", lambda: time.perf_counter() > end)
    bg.wait_until("validated", lambda: not window.session.looking and bg.validated(window))


if __name__ == "__main__":
    main()
