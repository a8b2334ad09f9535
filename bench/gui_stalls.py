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


class ThreadClock:
    """Every thread's time on a core and its Python stack, sampled every ``every_s``
    (``--threads``): of a gap, which threads ran while the window's thread did not, in
    which calls, and for how long (Linux: ``/proc/self/task/<id>/schedstat``).

    The sampler is a Python thread: it too waits for the GIL, so a long interval between
    two samples is itself a sign that one thread held the GIL all along; the time on a core
    between them is exact whatever the interval, and is put on the stack each thread had at
    the sample before. Threads that called ``register`` (the window's workers and renders,
    through the patched ``api.lower_this_thread``) are named by their Python stack; the
    others (Qt's, libvips's) by their kernel name.
    """

    def __init__(self, every_s: float = 0.002) -> None:
        self._every = every_s
        self.native: dict[int, int] = {threading.get_ident(): threading.get_native_id()}
        self.main_native = threading.get_native_id()
        # (when, {native id: ns on a core}, {native id: Python stack})
        self.samples: list[tuple[float, dict[int, int], dict[int, str]]] = []
        self.queued: list[dict[int, int]] = []  # each sample's ns waiting for a core, by id
        self._comm: dict[int, str] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def register(self) -> None:
        """Name the calling thread's kernel id by its Python stack (any thread may call)."""
        self.native[threading.get_ident()] = threading.get_native_id()

    def start(self) -> None:
        self.samples = []
        self.queued = []
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _comm_of(self, tid: int) -> str:
        name = self._comm.get(tid)
        if name is None:
            try:
                name = Path(f"/proc/self/task/{tid}/comm").read_text().strip()
            except OSError:
                name = "?"
            self._comm[tid] = name
        return name

    def _run(self) -> None:
        me = threading.get_native_id()
        while not self._stop.wait(self._every):
            now = time.perf_counter()
            cpu: dict[int, int] = {}
            waited: dict[int, int] = {}
            for name in os.listdir("/proc/self/task"):
                tid = int(name)
                if tid == me:
                    continue
                if tid not in self._comm:
                    self._comm_of(tid)  # now, while the thread is there
                try:
                    run, queued, _ = Path(f"/proc/self/task/{name}/schedstat").read_text().split()
                except (OSError, ValueError):
                    continue
                cpu[tid] = int(run)
                waited[tid] = int(queued)
            frames = sys._current_frames()
            try:
                stacks = {
                    self.native[i]: StallSampler._stack(f)
                    for i, f in frames.items()
                    if i in self.native
                }
            finally:
                frames.clear()
            self.samples.append((now, cpu, stacks))
            self.queued.append(waited)

    def _who(self, tid: int, stacks: dict[int, str]) -> str:
        return "window" if tid == self.main_native else stacks.get(tid) or self._comm_of(tid)

    def gap_report(self, start: float, end: float, top: int = 4) -> str:
        """Of [start, end): each thread's time on a core, by the stack it was in; and the
        sampler's longest waits (the GIL held by one thread throughout)."""
        first = next(
            (i for i, s in enumerate(self.samples) if s[0] >= start - self._every * 3), None
        )
        inside = [s for s in self.samples[first:] if s[0] <= end] if first is not None else []
        if len(inside) < 2:
            return "  (too few samples)"
        queue0, queue1 = self.queued[first], self.queued[first + len(inside) - 1]
        per: dict[int, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        waits = []
        for (t0, cpu0, st0), (t1, cpu1, st1) in zip(inside, inside[1:], strict=False):
            for tid, ns in cpu1.items():
                ran = (ns - cpu0.get(tid, ns)) / 1e6
                if ran > 0.05:
                    label = st0.get(tid) or st1.get(tid) or f"[{self._comm_of(tid)}]"
                    per[tid][label] += ran
            if t1 - t0 > self._every * 4:
                ran = sorted(
                    ((cpu1[t] - cpu0.get(t, cpu1[t])) / 1e6, t) for t in cpu1 if t in cpu0
                )[-2:]
                waits.append(
                    f"  sampler waited {(t1 - t0) * 1000:.0f} ms at +{(t0 - start) * 1000:.0f}: "
                    + "; ".join(f"{ms:.0f} ms {self._who(t, st0)[:110]}" for ms, t in reversed(ran))
                )
        lines = [f"  samples {len(inside)}, span {(inside[-1][0] - inside[0][0]) * 1000:.0f} ms"]
        order = sorted(per, key=lambda t: -sum(per[t].values()))
        for tid in order:
            total = sum(per[tid].values())
            who = "WINDOW" if tid == self.main_native else f"{tid} {self._comm_of(tid)}"
            queued = (queue1.get(tid, 0) - queue0.get(tid, 0)) / 1e6
            lines.append(f"  {total:6.1f} ms on a core, {queued:6.1f} ms waiting for one: {who}")
            for label, ms in per[tid].most_common(top):
                lines.append(f"        {ms:6.1f} ms  {label[:170]}")
        return "\n".join(lines + sorted(waits, key=lambda w: -float(w.split()[2]))[:8])
