"""The engine's background below a window: its worker processes at the niceness it asked for."""

from __future__ import annotations

import os
import sys
import threading
from concurrent.futures import Executor, ProcessPoolExecutor

import pytest

from transcribe_import.engine.base import background
from transcribe_import.engine.planning import look_pass

pytestmark = pytest.mark.skipif(not hasattr(os, "nice"), reason="no niceness on this system")


def _nice_in_a_worker(pool: Executor) -> int:
    """The niceness a task of ``pool`` runs at (its worker process's)."""
    try:
        return pool.submit(os.nice, 0).result(timeout=60)
    finally:
        pool.shutdown()


@pytest.fixture
def unasked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing asked yet, and nothing asked left behind for the next test."""
    monkeypatch.setattr(background, "_target", [None])


@pytest.mark.usefixtures("unasked")
def test_without_a_window_asking_a_worker_process_runs_as_its_starter() -> None:
    assert _nice_in_a_worker(ProcessPoolExecutor(1, **background.worker_options())) == os.nice(0)


@pytest.mark.usefixtures("unasked")
def test_a_window_asking_puts_the_look_passes_worker_processes_below_it() -> None:
    mine = os.nice(0)
    background.run_below(3)
    pool, _pages, kept_here = look_pass._pool(2, look_pass.PROCESSES_FROM)
    assert not kept_here  # worker processes, not threads of this process
    assert _nice_in_a_worker(pool) == min(mine + 3, 19)
    assert os.nice(0) == mine  # the asking process itself stays where it was


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread niceness: Linux")
@pytest.mark.usefixtures("unasked")
def test_a_lowered_thread_is_below_the_others_and_its_worker_processes_not_twice() -> None:
    mine = os.nice(0)
    background.run_below(2)
    seen: list[int] = []

    def lowered() -> None:
        background.lower_this_thread()
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        seen.append(_nice_in_a_worker(ProcessPoolExecutor(1, **background.worker_options())))

    thread = threading.Thread(target=lowered)
    thread.start()
    thread.join()
    assert seen == [min(mine + 2, 19)] * 2
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == mine
