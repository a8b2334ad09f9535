"""Background work below the thread a person waits on: worker threads and processes made nicer.

A window asks for it once (``run_below``): from then on the engine's worker processes (the
look pass's, the rescans' verification) and each thread that calls ``lower_this_thread``
run at a niceness that many steps above the window's own, so that on a busy machine the
scheduler gives a core to the window's thread before them and it paints in time. The
command line asks for nothing: its workers are the work a person waits for.

Niceness is a POSIX process's (Linux: each thread's own, which a thread and a process it
starts inherit); an unprivileged process may raise it and never lower it again, so it is only
raised, to a level set once. Windows has neither ``os.nice`` nor per-thread niceness: there
the window lowers its threads through Qt (``QThread.Priority``), and the worker processes
run at the normal priority.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
from typing import Any

# The niceness the background runs at (None: not asked for, every worker as its starter).
_target: list[int | None] = [None]


def run_below(steps: int) -> None:
    """From now on, the background runs ``steps`` nicer than the calling thread is now."""
    if hasattr(os, "nice"):
        _target[0] = min(os.nice(0) + steps, 19)


def worker_options() -> dict[str, Any]:
    """The options of a ``ProcessPoolExecutor`` of the engine's parallel work (the look pass,
    the rescans' verification): ``ProcessPoolExecutor(workers, **worker_options())``.

    Spawned, not forked: a window's or a CLI's threads may hold locks a fork would copy. Each
    worker process starts by ``_worker_started``, at the background's niceness when one was
    asked for.
    """
    return {
        "mp_context": multiprocessing.get_context("spawn"),
        "initializer": _worker_started,
        "initargs": (_target[0],),
    }


def _worker_started(niceness: int | None) -> None:
    """A worker process's first step. It leaves Ctrl-C to the process that started it (which
    stops its work between tasks): the terminal sends it to the whole process group. It runs
    at least ``niceness`` nice, raised by the difference only: a process started by a thread
    already lowered inherits that thread's niceness (Linux), and is not lowered twice."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if niceness is not None and hasattr(os, "nice"):
        os.nice(max(0, niceness - os.nice(0)))


def lower_this_thread() -> None:
    """Lower the calling thread to the background's niceness (Linux; see the module's words).

    On Linux ``setpriority`` of a thread's own id changes that thread alone, and the threads
    and processes it starts inherit it. macOS's ``setpriority`` would change the whole
    process, the window's thread with it, so there the face lowers its threads its own way.
    """
    niceness = _target[0]
    if niceness is None or not sys.platform.startswith("linux"):
        return
    me = threading.get_native_id()
    if os.getpriority(os.PRIO_PROCESS, me) < niceness:
        os.setpriority(os.PRIO_PROCESS, me, niceness)
