"""Where the window's thread was when bench_gui.py's heartbeat was late (``--stacks``).

``StallSampler`` samples the window's thread's Python stack in the late beats, where the other
threads were as each gap began, the full garbage collections and (``--native-stacks``)
py-spy's native dump once a gap. ``RunQueue`` reads the scheduler's account of the window's
thread (Linux ``/proc/self/task/<id>/schedstat``): of a gap, the time it ran on a core, the
time it waited in the run queue for one, and the rest asleep (the event loop's poll, waiting
for the GIL to be handed to it).
"""

from __future__ import annotations

import collections
import gc
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

# Set from the command line (--native-stacks): the py-spy the StallSampler runs in a gap.
SPY: list[str | None] = [None]


class RunQueue:
    """The scheduler's account of the calling thread: ns on a core, ns waiting for one."""

    def __init__(self) -> None:
        self._path = Path(f"/proc/self/task/{threading.get_native_id()}/schedstat")
        self.available = self._path.exists()

    def read(self) -> tuple[int, int]:
        if not self.available:
            return (0, 0)
        on_cpu, waiting, _slices = self._path.read_text().split()
        return int(on_cpu), int(waiting)


def late_gaps_split(
    beats: list[float], sched: list[tuple[int, int]], start: float, end: float, over_ms: float
) -> str:
    """Of the gaps over ``over_ms`` ending in [start, end): their sum, the window's thread's
    time on a core and in the run queue in them, the rest asleep (``RunQueue``)."""
    total = run = wait = 0.0
    n = 0
    for i in range(1, min(len(beats), len(sched))):
        gap = (beats[i] - beats[i - 1]) * 1000
        if gap > over_ms and start <= beats[i] < end:
            n += 1
            total += gap
            run += (sched[i][0] - sched[i - 1][0]) / 1e6
            wait += (sched[i][1] - sched[i - 1][1]) / 1e6
    if not n:
        return f"no gap over {over_ms:.0f} ms"
    return (
        f"{n} gaps over {over_ms:.0f} ms, {total:,.0f} ms in all: the window's thread on a core "
        f"{run:,.0f} ms, waiting in the run queue for one {wait:,.0f} ms, asleep (poll, the GIL) "
        f"{total - run - wait:,.0f} ms"
    )


class StallSampler:
    """Samples the GUI thread's Python stack whenever the heartbeat is late (``--stacks``).

    A sample whose innermost frame is the event loop means the GUI thread was in Qt's C++
    code or waiting for the GIL that a worker holds in a long C call (a sort, a JSON dump).
    For those, what the other threads were doing just before the beat went late (the last
    sample taken while it was on time) is counted too: the long call starts there.
    """

    def __init__(self, heartbeat: Any, late_s: float = 0.08) -> None:  # a bench_gui Heartbeat
        self._heartbeat = heartbeat
        self._late_s = late_s
        # With ``--native-stacks``: py-spy's native dump, once a gap (SPY[0] is its path).
        self.native: collections.Counter[str] = collections.Counter()
        self.gil: collections.Counter[str] = collections.Counter()
        self.dumps: list[tuple[float, str, str]] = []  # (when, the window's thread, GIL holder)
        self._main = threading.get_ident()
        self.samples: collections.Counter[str] = collections.Counter()
        self.before: collections.Counter[str] = collections.Counter()
        self.collections: list[float] = []  # ms each full garbage collection took
        self._gc_started = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        gc.callbacks.append(self._collected)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        gc.callbacks.remove(self._collected)

    def _collected(self, phase: str, info: dict[str, int]) -> None:
        # A full pass of the cyclic garbage collector holds the GIL all along.
        if phase == "start":
            self._gc_started = time.perf_counter()
        elif info["generation"] == 2:
            self.collections.append((time.perf_counter() - self._gc_started) * 1000)

    @staticmethod
    def _stack(frame: Any) -> str:
        """The innermost 6 frames, read at once: no frame object is kept. A frame held here
        keeps its locals alive after its function returns (a plan's whole document), and
        they are then freed by this thread in one cascade that holds the GIL, a stall the
        bench made itself (0.2-0.4 s at Save Plan As… of 100,000 pages, before this)."""
        names = []
        while frame is not None and len(names) < 6:
            code = frame.f_code
            names.append(f"{code.co_name} ({Path(code.co_filename).name}:{frame.f_lineno})")
            frame = frame.f_back
        return " < ".join(names)

    def _stacks(self, me: int) -> dict[int, str]:
        """Every other thread's stack now, as text (the frames let go before returning)."""
        frames = sys._current_frames()
        try:
            return {i: self._stack(f) for i, f in frames.items() if i != me}
        finally:
            frames.clear()

    def _run(self) -> None:
        me = threading.get_ident()
        on_time: dict[int, str] = {}
        told = False
        while not self._stop.wait(0.02):
            beats = self._heartbeat.beats
            stacks = self._stacks(me)
            if not beats or time.perf_counter() - beats[-1] < self._late_s:
                on_time, told = stacks, False
                continue
            main = stacks.get(self._main)
            if main is not None:
                self.samples[main] += 1
            if not told:  # once a gap: where the others were as it began
                told = True
                for ident, other in on_time.items():
                    if ident != self._main:
                        self.before[other] += 1
                if SPY[0]:
                    self._spy()

    def _spy(self) -> None:
        """py-spy's dump of this process with native frames: the window's thread's innermost
        frames (Qt's C++, or waiting for the GIL), and which thread holds the GIL, where.
        The dump stops the process while it reads it: the gap it is in grows by as much."""
        out = subprocess.run(
            [SPY[0], "dump", "--native", "--pid", str(os.getpid())],
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        threads = [t for t in out.split("\nThread ")[1:] if t.strip()]
        main, holder = "", "no thread holds the GIL"
        for t in threads:
            head, *frames = [line.strip() for line in t.splitlines() if line.strip()]
            frames = [f for f in frames if not f.startswith("0x")][:7]
            if '"MainThread"' in head:
                main = " < ".join(frames)
            if "+gil" in head:
                holder = head.split(" ", 1)[-1] + ": " + " < ".join(frames[:5])
        self.native[main] += 1
        self.gil[holder] += 1
        self.dumps.append((time.perf_counter(), main, holder))

    def dumps_between(self, start: float, end: float) -> str:
        """The native dumps taken in [start, end): the window's thread's innermost frame and
        the GIL's holder, counted."""
        seen = collections.Counter(
            f"{main.split(' < ')[0]}  |  {holder[:150]}"
            for t, main, holder in self.dumps
            if start <= t < end
        )
        return "\n".join(f"{n:>6}     {line}" for line, n in seen.most_common(10))

    def report(self) -> str:
        lines = [f"{n * 20:>6} ms  {stack}" for stack, n in self.samples.most_common(10)]
        lines.append("other threads as the late beats began (gaps):")
        lines += [f"{n:>6}     {stack}" for stack, n in self.before.most_common(12)]
        if self.native:
            lines.append("the window's thread, native (py-spy dump, once a gap):")
            lines += [f"{n:>6}     {stack}" for stack, n in self.native.most_common(12)]
            lines.append("the thread holding the GIL then:")
            lines += [f"{n:>6}     {stack}" for stack, n in self.gil.most_common(12)]
        full = sorted(self.collections, reverse=True)
        lines.append(
            f"full garbage collections: {len(full)}, the longest "
            + ", ".join(f"{ms:.0f} ms" for ms in full[:8])
        )
        return "\n".join(lines)
