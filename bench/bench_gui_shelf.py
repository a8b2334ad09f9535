"""The window at a shelf of 100,000 pages, one step after another, in one run (issue #38).

A shelf of ``--notebooks`` notebooks of ``--pages`` pages and one of ``--big`` pages (the
default: 190 x 500 + 5,000 = 100,000 pages) goes through the real MainWindow as a person
takes it:

1. scan: Scan pressed, to the plan on screen;
2. review: the plan's first validation, the look pass (every page's look made) and the
   validation after it;
3. grid: the big notebook chosen in the review, its pages in the grid, scrolled end to end
   and back, a screen every ``--frame-ms``;
4. validate: Validate pressed, to its report;
5. save: Save Plan As…, to the plan written (the menu's way: on a worker);
6. open: Open Plan… of that file, to the plan under review and its validation.

Each step: its wall time, the worst gap of a 10 ms heartbeat on the window's thread (time
the window could not paint or answer), and the window process's peak RSS at its end (the
look pass's worker processes on their own line). Target: no gap over 100 ms; RSS under 1 GiB.

The pages are real JPEG files, small so that a shelf of 100,000 is made in a minute: the
big notebook's pages are 96 x 136 pixels, each with its own strokes (the grid paints real
thumbnails), the others 8 x 8 (bench_scan's pages: one picture, bytes after its end make
each file its own). The look pass decodes every one; no two pages look alike enough for the
rescans' verification to run, so its cost (bench_validate_shelf.py) is not in these figures.

    PYTHONPATH=app .venv/bin/python bench/bench_gui_shelf.py [--notebooks 190 --pages 500
        --big 5000] [--frame-ms 30] [--out bench/results-NAME.md] [--stacks]
        [--background-steps N] [--tasks-at-its-level] [--keep DIR]

``--keep DIR`` copies the window's corpus (its look cache holds every page's look by then)
and the saved plan to DIR/data and DIR/plan.json at the end: bench_gui_open.py's input.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import random
import resource
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import bench_gui as bg  # noqa: E402 - beside this script (sets up Qt's platform first)
from gui_stalls import StallSampler, late_gaps_split  # noqa: E402 - beside this script

TARGET_MS = 100
GIB = 1024**3


def make_shelf(notebooks: int, pages: int, big: int) -> Path:
    """The shelf, made once and kept in bench/_work (a marker says it was written whole)."""
    root = bg.WORK / f"gui-shelf-{notebooks}x{pages}+{big}"
    done = root.with_name(root.name + ".complete")
    if done.exists():
        return root
    from PIL import Image, ImageDraw

    buf = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 190, 170)).save(buf, "JPEG", quality=75)
    tiny = buf.getvalue()
    n = 0
    for k in range(1, notebooks + 1):
        folder = root / f"notebook {k:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        for j in range(1, pages + 1):
            # Bytes after the EOI marker are ignored by decoders but change the hash.
            (folder / f"page {j:04d}.jpg").write_bytes(tiny + n.to_bytes(4, "big"))
            n += 1
    folder = root / "notebook big"
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(38)
    for j in range(1, big + 1):
        img = Image.new("L", (96, 136), 240)
        draw = ImageDraw.Draw(img)
        for _ in range(12):
            x, y = rng.randrange(96), rng.randrange(136)
            draw.line([(x, y), (x + rng.randrange(-40, 40), y + rng.randrange(-8, 8))], 40, 2)
        img.save(folder / f"page {j:05d}.jpg", quality=80)
    done.write_text(f"{notebooks * pages + big} pages\n")
    return root


def rss_peak() -> int:
    """The window process's peak resident memory so far, in bytes (Linux: VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def children_peak() -> int:
    """The largest peak RSS of the child processes ended so far (the look pass's workers)."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024


@dataclass(frozen=True)
class Step:
    name: str
    seconds: float
    worst_ms: float
    p99_ms: float
    over: int
    rss: int
    late: str  # where the gaps over the target began, from the step's start


class Steps:
    """One heartbeat across the run; each step's gaps, time and memory."""

    def __init__(self, stacks: bool, profile: bool = False) -> None:
        self.profile = profile
        bg.STACKS[0] = stacks  # the heartbeat reads the scheduler's account at each beat
        self.beat = bg.Heartbeat()
        self.sampler = StallSampler(self.beat) if stacks else None
        self.done: list[Step] = []

    def run(self, name: str, act: Callable[[], None], until: Callable[[], bool]) -> None:
        self.beat.start()
        if self.sampler is not None:
            self.sampler = StallSampler(self.beat)
            self.sampler.start()
        profiler = cProfile.Profile() if self.profile else None
        if profiler is not None:
            profiler.enable()  # the window's thread only: what its handlers spent
        t0 = time.perf_counter()
        act()
        bg.wait_until(name, until, 3600)
        t1 = time.perf_counter()
        self.beat.stop()
        if profiler is not None:
            profiler.disable()
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(45)
            print(out.getvalue(), flush=True)
        gaps = self.beat.gaps()
        late = ", ".join(
            f"{a - t0:.2f} s ({(b - a) * 1000:.0f} ms)"
            for a, b in zip(self.beat.beats, self.beat.beats[1:], strict=False)
            if (b - a) * 1000 > TARGET_MS
        )
        step = Step(
            name,
            t1 - t0,
            max(gaps, default=0.0),
            bg.p99(gaps),
            sum(g > TARGET_MS for g in gaps),
            rss_peak(),
            late,
        )
        self.done.append(step)
        print(
            f"{name}: {step.seconds:.1f} s, worst gap {step.worst_ms:.0f} ms, "
            f"{step.over} over {TARGET_MS} ms, peak RSS {step.rss / 2**20:.0f} MiB"
            + (f"; late at {late}" if late else ""),
            flush=True,
        )
        if self.sampler is not None:
            self.sampler.stop()
            # Of the gaps over the target: the window's thread on a core, waiting in the run
            # queue for one (the machine's load), asleep (Qt's poll, or the GIL).
            print(late_gaps_split(self.beat.beats, self.beat.sched, t0, t1 + 1, TARGET_MS))
            print(self.sampler.report(), flush=True)


def settled(seconds: float) -> Callable[[], bool]:
    end = time.perf_counter() + seconds
    return lambda: time.perf_counter() > end


def run(
    shelf: Path, frame_ms: int, stacks: bool, profile: bool, keep: Path | None = None
) -> tuple[list[Step], dict[str, int]]:
    from transcribe_import.gui.pages.review_grid import PageView

    with tempfile.TemporaryDirectory(prefix="bench-gui-shelf-", dir=bg.WORK) as tmp:
        data = Path(tmp) / "data"
        window, settings = bg.open_window(data)
        window.resize(1366, 740)
        steps = Steps(stacks, profile)
        flow, session, review = window.flow, window.session, window.review_page

        window.intake.add_paths([shelf])
        steps.run("scan", flow.start_scan, lambda: window.current_page() is review)
        plan = session.plan
        assert plan is not None
        sizes = {
            "pages": sum(it.imported_page_count() for it in plan.items),
            "notebooks": len(plan.items),
        }
        steps.run(
            "review",
            lambda: None,
            lambda: bg.validated(window) and not session.looking,
        )

        big = max(plan.items, key=lambda it: it.imported_page_count())
        sizes["big"] = big.imported_page_count()
        review.show_view(PageView.GRID, remember=False)

        def scroll() -> None:
            review.select_item(big.item_id)
            bg.wait_until("the big notebook", lambda: review.pages_model.rowCount() == sizes["big"])
            bar = review.grid.verticalScrollBar()
            # A screen a frame (at most 200 frames each way: a fling, not a crawl).
            screen = max(1, review.grid.viewport().height(), bar.maximum() // 200)
            sizes["screen_px"] = screen
            value = 0
            for direction in (1, -1):
                while (direction > 0 and value < bar.maximum()) or (direction < 0 and value > 0):
                    value = max(0, min(bar.maximum(), value + direction * screen))
                    bar.setValue(value)
                    sizes["frames"] = sizes.get("frames", 0) + 1
                    bg.wait_until("a frame", settled(frame_ms / 1000))

        steps.run("grid", scroll, settled(0.5))
        steps.run("validate", flow.validate_plan, lambda: bg.validated(window))
        path = Path(tmp) / "plan.json"
        steps.run("save", lambda: flow.save_plan(path, wait=False), lambda: not flow.is_saving())
        sizes["plan_bytes"] = path.stat().st_size
        opened: list[bool] = []
        flow.plan_opened.connect(lambda: opened.append(True))
        # New Import first, so that Open Plan… asks nothing (the review has no edits).
        steps.run(
            "open",
            lambda: flow.open_plan(path),
            lambda: bool(opened) and bg.validated(window) and not session.looking,
        )
        sizes["children_rss"] = children_peak()
        bg.close(window, settings)
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            shutil.copytree(data, keep / "data", dirs_exist_ok=True)
            shutil.copy2(path, keep / "plan.json")
    return steps.done, sizes


NAMES = {
    "scan": "Scan, to the plan on screen",
    "review": "the plan's first validation, the look pass, the validation after it",
    "grid": "the big notebook chosen, its grid scrolled end to end and back",
    "validate": "Validate, to its report",
    "save": "Save Plan As…, to the plan written",
    "open": "Open Plan…, to the plan under review and validated",
}


def record(steps: list[Step], sizes: dict[str, int], load: tuple[float, float]) -> str:
    worst = max(s.worst_ms for s in steps)
    peak = max(s.rss for s in steps)
    lines = [
        "## The window at a shelf (bench/bench_gui_shelf.py)",
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M')} UTC on {os.cpu_count()} shared cores, Qt "
        f"platform {os.environ.get('QT_QPA_PLATFORM', 'xcb')}; `uptime` load {load[0]:.1f} at "
        f"the start, {load[1]:.1f} at the end. A shelf of {sizes['pages']:,} pages in "
        f"{sizes['notebooks']} notebooks, one of {sizes['big']:,} pages; the plan file "
        f"{sizes['plan_bytes'] / 1e6:.1f} MB; the grid scrolled {sizes['frames']} frames of "
        f"{sizes['screen_px']} px. Target: no gap over {TARGET_MS} ms, memory under 1 GiB.",
        "",
        "| step | its time | worst gap | 99th percentile | gaps > 100 ms | peak RSS after it |",
        "| --- | --- | --- | --- | --- | --- |",
        *(
            f"| {NAMES[s.name]} | {s.seconds:.1f} s | {s.worst_ms:.0f} ms | {s.p99_ms:.0f} ms "
            f"| {s.over} | {s.rss / 2**20:.0f} MiB |"
            for s in steps
        ),
        "",
        f"Worst gap {worst:.0f} ms ({'met' if worst <= TARGET_MS else 'NOT met'}); the "
        f"window's peak RSS {peak / 2**20:.0f} MiB "
        f"({'met' if peak < GIB else 'NOT met'}); the look pass's largest worker "
        f"{sizes['children_rss'] / 2**20:.0f} MiB.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notebooks", type=int, default=190)
    ap.add_argument("--pages", type=int, default=500)
    ap.add_argument("--big", type=int, default=5000)
    ap.add_argument("--frame-ms", type=int, default=30)
    ap.add_argument("--stacks", action="store_true", help="where the window's thread was late")
    ap.add_argument(
        "--profile", action="store_true", help="cProfile of the window's thread, each step"
    )
    ap.add_argument("--out", type=Path, help="append the section to this file")
    ap.add_argument("--keep", type=Path, help="copy the corpus and the plan file here")
    ap.add_argument(
        "--background-steps",
        type=int,
        help="the niceness steps of the window's workers (the app's own: BACKGROUND_STEPS; "
        "0: as the window's thread, to compare)",
    )
    ap.add_argument(
        "--tasks-at-its-level",
        action="store_true",
        help="the window's one-call tasks (EngineTask) at its thread's level, not below it "
        "(to compare in the same load)",
    )
    args = ap.parse_args()

    from transcribe_import.engine.base import background
    from transcribe_import.gui.app import BACKGROUND_STEPS, application
    from transcribe_import.gui.workers import EngineTask

    application()
    steps_below = BACKGROUND_STEPS if args.background_steps is None else args.background_steps
    background.run_below(steps_below)
    if args.tasks_at_its_level:
        EngineTask.runs_below = False
    print(
        f"the window's workers {steps_below} steps of niceness below its thread; its one-call "
        f"tasks {'below it too' if EngineTask.runs_below else 'at its level'}",
        flush=True,
    )
    bg.WORK.mkdir(exist_ok=True)
    t = time.perf_counter()
    shelf = make_shelf(args.notebooks, args.pages, args.big)
    print(f"shelf ready in {time.perf_counter() - t:.1f} s: {shelf}", flush=True)
    load = os.getloadavg()[0]
    steps, sizes = run(shelf, args.frame_ms, args.stacks, args.profile, args.keep)
    section = record(steps, sizes, (load, os.getloadavg()[0]))
    print(section)
    if args.out is not None:
        with args.out.open("a") as f:
            f.write(section + "\n")


if __name__ == "__main__":
    main()
