"""Window responsiveness: how long the GUI thread goes unanswered while the window works.

A 10 ms heartbeat QTimer on the GUI thread records when it fires; a gap between two
beats longer than 10 ms is time the event loop could not run (painting, input).
Measured through the real MainWindow (offscreen unless a display is set):

1. Commit: a plan of ``--notebooks`` x ``--pages`` small page images, validated, then
   committed by the window's commit worker with the live outcome table; from the
   click to the end of the run. Reported with the pages per second of the run.
2. Scan: a tree of ``--scan-folders`` x ``--scan-per-folder`` tiny files (the scan
   benchmark's 100,000-file tree), from Scan to the plan on screen, then on to its
   first validation.

Target: no gap over 100 ms. Results go to the "## Window responsiveness
(bench/bench_gui.py)" section of bench/RESULTS.md.

    .venv/bin/python bench/bench_gui.py [--notebooks 40 --pages 10] [--repeat 3]
        [--scan-folders 2000 --scan-per-folder 50 | --no-scan] [--no-record]
        [--stacks [--native-stacks]] [--probe-gil] [--switch-interval-ms MS]

``--probe-gil`` times, at each beat, how long the window's thread takes to get the GIL
back after letting it go once; ``--switch-interval-ms`` replaces the window's own GIL
switch interval, to compare. ``--stacks`` (gui_stalls.py) also splits the gaps over 100 ms by
the scheduler's account of the window's thread: on a core, waiting for one, asleep (Linux).
``--native-stacks`` (with ``--stacks``) adds, once a gap,
py-spy's native dump of the process: whether the window's thread is in Qt's C++ or waiting
for the GIL, and which thread holds the GIL, where (each dump stops the process a moment).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "app"))
if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PIL import Image, ImageDraw  # noqa: E402
from PySide6.QtCore import QCoreApplication, QEventLoop, QSettings, Qt, QTimer  # noqa: E402

from bench_ingest import WORK  # noqa: E402
from bench_results import replace_section  # noqa: E402
from gui_stalls import SPY, RunQueue, StallSampler, late_gaps_split  # noqa: E402

HEADING = "## Window responsiveness (bench/bench_gui.py)"
BEAT_MS = 10
TARGET_MS = 100
# Set from the command line (--probe-gil): every Heartbeat made then probes the GIL.
PROBE_GIL = [False]
# Set from the command line (--stacks): every Heartbeat made then reads the scheduler's account.
STACKS = [False]


# -- inputs ----------------------------------------------------------------------------------


def make_pages(notebooks: int, pages: int) -> Path:
    """Small page images (400 x 560 JPEG, ~20 KiB), made once and kept in bench/_work."""
    root = WORK / f"gui-{notebooks}x{pages}"
    done = root.with_name(root.name + ".complete")
    if done.exists():
        return root
    for n in range(1, notebooks + 1):
        folder = root / f"notebook {n:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        for p in range(1, pages + 1):
            img = Image.new("RGB", (400, 560), (246, 241, 226))
            draw = ImageDraw.Draw(img)
            for y in range(40, 540, 22):
                draw.line([(24, y), (376, y)], fill=(170, 185, 215), width=1)
            for i, y in enumerate(range(58, 400, 22)):
                draw.line(
                    [(40, y - 6), (120 + (n * 37 + p * 13 + i * 7) % 220, y - 7)], (40, 50, 90)
                )
            draw.text((40, 12), f"notebook {n}, page {p}", fill=(30, 30, 70))
            img.save(folder / f"page {p:02d}.jpg", quality=80)
    done.write_text("ok\n")
    return root


# -- measuring -------------------------------------------------------------------------------


@dataclass
class Heartbeat:
    """Beats every BEAT_MS on the GUI thread; the gaps between beats are what we measure."""

    beats: list[float] = field(default_factory=list)
    marks: list[tuple[float, str]] = field(default_factory=list)
    # With ``probe_gil``: at each beat, how long the window's thread took to get the GIL back
    # after letting it go once (``time.sleep(0)`` releases it, as a Qt call through PySide
    # does): the wait every one of its Qt calls pays while workers run Python code.
    probe_gil: bool = False
    gil_waits: list[float] = field(default_factory=list)
    # With ``--stacks``: at each beat, the scheduler's account of the window's thread
    # (gui_stalls.RunQueue), to split the late gaps into running, waiting for a core, asleep.
    sched: list[tuple[int, int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.probe_gil = self.probe_gil or PROBE_GIL[0]
        self.run_queue = RunQueue() if STACKS[0] else None
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(BEAT_MS)
        self.timer.timeout.connect(self._beat)

    def _beat(self) -> None:
        now = time.perf_counter()
        self.beats.append(now)
        if self.run_queue is not None:
            self.sched.append(self.run_queue.read())
        if self.probe_gil:
            time.sleep(0)
            self.gil_waits.append((time.perf_counter() - now) * 1000)

    def gil_summary(self) -> dict[str, float]:
        """The GIL's hand-back waits probed at the beats (empty without ``probe_gil``)."""
        waits = self.gil_waits
        if not waits:
            return {}
        return {
            "gil_median_ms": statistics.median(waits),
            "gil_p99_ms": p99(waits),
            "gil_worst_ms": max(waits),
        }

    def start(self) -> None:
        self.beats = [time.perf_counter()]
        self.sched = [self.run_queue.read()] if self.run_queue is not None else []
        self.timer.start()

    def mark(self, phase: str) -> None:
        self.marks.append((time.perf_counter(), phase))

    def stop(self) -> None:
        self.timer.stop()
        self.beats.append(time.perf_counter())
        if self.run_queue is not None:
            self.sched.append(self.run_queue.read())

    def gaps(self, start: float = 0.0, end: float = float("inf")) -> list[float]:
        """Gaps in ms between beats that ended within [start, end)."""
        return [
            (b - a) * 1000
            for a, b in zip(self.beats, self.beats[1:], strict=False)
            if start <= b < end
        ]


def wait_until(what: str, done: Callable[[], bool], timeout_s: float = 600) -> None:
    deadline = time.monotonic() + timeout_s
    loop = QEventLoop()
    while not done():
        if time.monotonic() > deadline:
            raise SystemExit(f"gave up waiting for {what}")
        QTimer.singleShot(5, loop.quit)
        loop.exec()


def p99(values: list[float]) -> float:
    if len(values) < 2:
        return values[0] if values else 0.0
    return statistics.quantiles(values, n=100, method="inclusive")[98]


def print_late(beat: Heartbeat, phase: str, start: float, end: float) -> None:
    """Where in ``phase`` (from ``start`` to ``end``) each gap over the target began: at
    its end (the plan being shown) or in the middle of the work."""
    late = [
        f"{a - start:.2f} s ({(b - a) * 1000:.0f} ms)"
        for a, b in zip(beat.beats, beat.beats[1:], strict=False)
        if start <= b < end and (b - a) * 1000 > TARGET_MS
    ]
    if late:
        began = ", ".join(late)
        print(f"{phase} ({end - start:.2f} s): gaps over {TARGET_MS} ms began at {began}")


def summary(gaps: list[float]) -> dict[str, float]:
    return {
        "worst_ms": max(gaps, default=0.0),
        "p99_ms": p99(gaps),
        "median_ms": statistics.median(gaps) if gaps else 0.0,
        "over_target": float(sum(g > TARGET_MS for g in gaps)),
        "beats": float(len(gaps)),
    }


def open_window(data: Path):  # noqa: ANN201 - a MainWindow, imported late (after Qt is set up)
    from transcribe_import.engine.storage.corpus import Corpus
    from transcribe_import.gui.main_window import MainWindow

    settings = QSettings(str(data / "gui.ini"), QSettings.Format.IniFormat)
    window = MainWindow(Corpus.open(data), settings)
    window.resize(1100, 720)
    window.show()
    wait_until("the first health check", lambda: not window.health.is_checking())
    return window, settings


def close(window, settings: QSettings) -> None:  # noqa: ANN001
    """Close the window and write what it remembers now, while its folder is still there
    (left to the settings' own end, it would make the removed folder again)."""
    window.close()
    settings.sync()


def validated(window) -> bool:  # noqa: ANN001
    # The session keeps only a report about the plan as it is now, so no fingerprint is
    # computed here: on 100,000 sources that alone would stall the GUI thread it measures.
    return window.session.report is not None and not window.flow.is_validating()


# -- the scenarios ---------------------------------------------------------------------------


def bench_commit(tree: Path, workers: int, stacks: bool = False) -> dict[str, float]:
    from dataclasses import replace

    from transcribe_import.engine.planning.planner import build_plan
    from transcribe_import.engine.planning.scan import run_scan
    from transcribe_import.engine.runs.model import RunStatus
    from transcribe_import.engine.storage.corpus import Corpus

    with tempfile.TemporaryDirectory(prefix="bench-gui-", dir=WORK) as tmp:
        data = Path(tmp) / "data"
        plan = build_plan(Corpus.open(data), run_scan([tree]))
        window, settings = open_window(data)
        window.import_settings = replace(window.import_settings, workers=workers)
        window.session.set_plan(plan)
        window.flow.validate_plan()
        wait_until("the validation", lambda: validated(window))
        # The look pass starts once the first validation has ended; the commit waits for it.
        wait_until("the look pass", lambda: not window.session.looking and validated(window))
        assert window.review_page.can_commit(), window.session.report
        page = window.commit_page

        beat = Heartbeat()
        sampler = StallSampler(beat)
        beat.start()
        if stacks:
            sampler.start()
        t0 = time.perf_counter()
        window.flow.commit_plan()
        wait_until("the commit", lambda: not page.is_running())
        t1 = time.perf_counter()
        beat.stop()
        if stacks:
            sampler.stop()
            print("GUI thread while late (commit):\n" + sampler.report())
        result = page.result
        assert result is not None and result.status is RunStatus.COMPLETE, result
        pages, seconds = page.last_run_pages()
        close(window, settings)
        return {
            **summary(beat.gaps()),
            "wall_s": t1 - t0,
            "pages": float(pages),
            "pages_per_s": pages / seconds if seconds else 0.0,
            "items": float(len(plan.items)),
            "batches": float(page.batches_applied),
        }


def bench_scan(tree: Path, workers: int, stacks: bool = False) -> dict[str, float]:
    from dataclasses import replace

    with tempfile.TemporaryDirectory(prefix="bench-gui-", dir=WORK) as tmp:
        data = Path(tmp) / "data"
        window, settings = open_window(data)
        window.import_settings = replace(window.import_settings, workers=workers)
        window.intake.add_paths([tree])
        beat = Heartbeat()
        sampler = StallSampler(beat)
        beat.start()
        if stacks:
            sampler.start()
        t0 = time.perf_counter()
        window.flow.start_scan()
        wait_until("the plan on screen", lambda: window.current_page() is window.review_page)
        t1 = time.perf_counter()
        wait_until("the first validation", lambda: validated(window))
        t2 = time.perf_counter()
        # The look pass (the JPEG pages' looks, made while the review is shown), and the
        # validation of the plan it stamped them on.
        wait_until("the look pass", lambda: not window.session.looking and validated(window), 1800)
        t3 = time.perf_counter()
        beat.stop()
        if stacks:
            sampler.stop()
            print("GUI thread while late (scan, review):\n" + sampler.report())
            for name, a, b in (("scan", t0, t1), ("review", t1, t3 + 1)):
                split = late_gaps_split(beat.beats, beat.sched, a, b, TARGET_MS)
                print(f"the late gaps, {name}: {split}")
            if sampler.dumps:
                for name, a, b in (
                    ("scan", t0, t1),
                    ("first validation", t1, t2),
                    ("look pass, validation after", t2, t3 + 1),
                ):
                    print(f"native dumps, {name}:\n" + sampler.dumps_between(a, b))
        plan = window.session.plan
        assert plan is not None
        files = sum(len(it.sources) for it in plan.items)
        scan_gaps = summary(beat.gaps(end=t1))
        print_late(beat, "scan", t0, t1)
        print_late(beat, "review", t1, t3 + 1)
        review_gaps = summary(beat.gaps(start=t1))
        # The review phase in two: to the first validation's report, then the rest of the
        # look pass and the validation after it (printed, not recorded).
        first_gaps = summary(beat.gaps(start=t1, end=t2))
        rest_gaps = summary(beat.gaps(start=t2))
        gil = beat.gil_summary()
        opened = bench_open_plan(window, plan, Path(tmp) / "plan.json", stacks)
        close(window, settings)
        return {
            **opened,
            **{f"scan_{k}": v for k, v in scan_gaps.items()},
            **{f"review_{k}": v for k, v in review_gaps.items()},
            **{f"firstval_{k}": v for k, v in first_gaps.items()},
            **{f"lookrest_{k}": v for k, v in rest_gaps.items()},
            **gil,
            "scan_s": t1 - t0,
            "validate_s": t2 - t1,
            "looks_s": t3 - t1,
            "files": float(files),
            "updates": float(window.scan_page.updates),
        }


def bench_open_plan(window, plan, path: Path, stacks: bool = False) -> dict[str, float]:  # noqa: ANN001
    """File › Open Plan… of the same plan, saved as a file: from the call to the plan under
    review. The reference, in the same run: reading that file on the calling thread, which is
    what the window's thread spent before plans were read on a worker."""
    from transcribe_import.engine import api

    api.save_plan_file(plan, path)
    t = time.perf_counter()
    api.load_plan_file(path)
    read_s = time.perf_counter() - t
    window.flow.new_import()
    wait_until("the review closed", lambda: window.session.plan is None)
    beat = Heartbeat()
    sampler = StallSampler(beat)
    beat.start()
    if stacks:
        sampler.start()
    t0 = time.perf_counter()
    window.flow.open_plan(path)
    wait_until(
        "the opened plan under review",
        lambda: window.session.plan is not None and window.current_page() is window.review_page,
    )
    t1 = time.perf_counter()
    beat.stop()
    if stacks:
        sampler.stop()
        print("GUI thread while late (Open Plan…):\n" + sampler.report())
        split = late_gaps_split(beat.beats, beat.sched, t0, t1 + 0.001, TARGET_MS)
        print(f"the late gaps, Open Plan…: {split}")
    gaps = summary(beat.gaps(start=t0, end=t1 + 0.001))
    print_late(beat, "Open Plan…", t0, t1 + 0.001)
    return {**{f"open_{k}": v for k, v in gaps.items()}, "open_s": t1 - t0, "read_s": read_s}


# -- reporting -------------------------------------------------------------------------------


def _ms(v: float) -> str:
    return f"{v:,.0f} ms" if v >= 10 else f"{v:.1f} ms"


def record(
    commit: list[dict[str, float]],
    scan: list[dict[str, float]],
    args: argparse.Namespace,
    load: tuple[float, float],
) -> str:
    lines = [
        HEADING,
        "",
        f"Run {time.strftime('%Y-%m-%d')} on {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, Qt platform {QCoreApplication.instance().platformName()}"
        " (the tests' offscreen plugin unless a display is set); the machine's load average "
        f"(1 min) {load[0]:.1f} at the start and {load[1]:.1f} at the end.",
        f"A {BEAT_MS} ms heartbeat QTimer on the GUI thread; a gap is the time between two "
        f"beats (ideal {BEAT_MS} ms). Target: no gap over {TARGET_MS} ms.",
    ]
    if commit:
        worst = max(commit, key=lambda r: r["worst_ms"])
        lines += [
            "",
            f"**Commit** of {int(worst['items'])} notebooks x {args.pages} pages "
            f"({int(worst['pages'])} pages of 400 x 560 JPEG) through the window "
            f"(commit worker, live outcome table), workers={args.workers}:",
            "",
            "| run | worst gap | 99th percentile | median | gaps > 100 ms | pages/s | wall time "
            "| batches applied |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
    for i, r in enumerate(commit, 1):
        lines.append(
            f"| {i} | {_ms(r['worst_ms'])} | {_ms(r['p99_ms'])} | {_ms(r['median_ms'])} | "
            f"{int(r['over_target'])} | {r['pages_per_s']:.1f} | {r['wall_s']:.1f} s | "
            f"{int(r['batches'])} |"
        )
    if scan:
        s = scan[0]
        lines += [
            "",
            f"**Scan** of {int(s['files']):,} tiny files (bench_scan's tree) from Scan to the "
            f"plan on screen ({s['scan_s']:.1f} s, {int(s['updates'])} progress updates shown), "
            f"then its first validation ({s['validate_s']:.1f} s), its look pass and the "
            f"validation after it ({s['looks_s']:.1f} s from the plan on screen):",
            "",
            "| phase | worst gap | 99th percentile | median | gaps > 100 ms |",
            "| --- | --- | --- | --- | --- |",
        ]
        names = {
            "scan": "scan and plan",
            "review": "plan shown, validated, looked at for rescans, validated again",
            "open": f"Open Plan… of it ({s['open_s']:.1f} s to the review)",
        }
        for phase in ("scan", "review", "open"):
            lines.append(
                f"| {names[phase]} | "
                f"{_ms(s[f'{phase}_worst_ms'])} | {_ms(s[f'{phase}_p99_ms'])} | "
                f"{_ms(s[f'{phase}_median_ms'])} | {int(s[f'{phase}_over_target'])} |"
            )
    if scan and "gil_median_ms" in scan[0]:
        s = scan[0]
        lines += [
            "",
            f"The GIL handed back to the window's thread (`--probe-gil`: a `time.sleep(0)` at "
            f"each beat, the switch interval {sys.getswitchinterval() * 1000:g} ms) in the scan "
            f"and validation: median {_ms(s['gil_median_ms'])}, 99th percentile "
            f"{_ms(s['gil_p99_ms'])}, worst {_ms(s['gil_worst_ms'])}.",
        ]
    if scan:
        s = scan[0]
        lines += [
            "",
            f"Open Plan… reads the plan file on a worker: its worst gap was "
            f"{_ms(s['open_worst_ms'])}, where reading the same file on the window's thread (as "
            f"Open Plan… and Continue Review did before) takes {_ms(s['read_s'] * 1000)} in the "
            f"same run: a ratio of {s['open_worst_ms'] / (s['read_s'] * 1000):.2f}.",
        ]
    lines += ["", *NOTES, ""]
    return "\n".join(lines)


NOTES = [
    "- The commit view applies the executor's events in batches of at most 50 ms a turn of",
    "  the event loop; progress of a scan reaches the window at most every 100 ms; the GIL's",
    "  switch interval is 0.1 ms (gui/app.GIL_SWITCH_S). How each late beat was found and",
    "  removed is in the history of bench/RESULTS.md (`git log -p`).",
    "- On a machine whose two cores are busy with other processes the window's thread waits",
    "  for a core, and gaps over 100 ms come back whatever the app does: compare runs at",
    "  like loads.",
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notebooks", type=int, default=40)
    ap.add_argument("--pages", type=int, default=10)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scan-folders", type=int, default=2000)
    ap.add_argument("--scan-per-folder", type=int, default=50)
    ap.add_argument("--no-scan", action="store_true")
    ap.add_argument("--no-record", action="store_true")
    ap.add_argument(
        "--stacks", action="store_true", help="print where the GUI thread was when late"
    )
    ap.add_argument(
        "--native-stacks",
        action="store_true",
        help="with --stacks: once a gap, py-spy's native dump of the GUI thread and the "
        "thread holding the GIL (py-spy on the PATH or beside the Python)",
    )
    ap.add_argument(
        "--probe-gil",
        action="store_true",
        help="at each beat, time how long the GUI thread waits to get the GIL back",
    )
    ap.add_argument(
        "--switch-interval-ms",
        type=float,
        help="the interpreter's GIL switch interval, set after the window's own (to compare)",
    )
    args = ap.parse_args()
    PROBE_GIL[0] = args.probe_gil
    STACKS[0] = args.stacks
    if args.native_stacks:
        SPY[0] = shutil.which("py-spy") or shutil.which(
            "py-spy", path=str(Path(sys.executable).parent)
        )
        if not SPY[0] or not args.stacks:
            raise SystemExit("--native-stacks needs --stacks and py-spy (pip install py-spy)")

    from transcribe_import.gui.app import application

    application()
    if args.switch_interval_ms is not None:
        sys.setswitchinterval(args.switch_interval_ms / 1000)
    WORK.mkdir(exist_ok=True)
    load_start = os.getloadavg()[0]
    tree = make_pages(args.notebooks, args.pages)
    commit = []
    for i in range(args.repeat):
        r = bench_commit(tree, args.workers, args.stacks)
        commit.append(r)
        print(f"commit {i + 1}: " + ", ".join(f"{k}={v:.1f}" for k, v in r.items()), flush=True)
    scan = []
    if not args.no_scan:
        from bench_scan import make_tree

        r = bench_scan(
            make_tree(args.scan_folders, args.scan_per_folder), args.workers, args.stacks
        )
        scan.append(r)
        print(f"switch interval {sys.getswitchinterval() * 1000:.2f} ms", flush=True)
        print("scan: " + ", ".join(f"{k}={v:.1f}" for k, v in r.items()), flush=True)
    section = record(commit, scan, args, (load_start, os.getloadavg()[0]))
    print(section)
    if not args.no_record:
        replace_section(BENCH / "RESULTS.md", HEADING, section)


if __name__ == "__main__":
    main()
