"""The generic engine task and the slot that runs one kind of task at a time, off the GUI thread."""

from __future__ import annotations

import gc
import logging
import os
import sys
import threading
import weakref
from collections.abc import Generator, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, Qt, Signal
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.base import background
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.app import BACKGROUND_STEPS
from transcribe_import.gui.workers import (
    CommitWorker,
    EngineTask,
    ScanWorker,
    TaskSlot,
    Worker,
    running_workers,
)

from helpers.shelves import make_png_shelf

WAIT_MS = 10_000


def add(a: int, b: int) -> int:
    return a + b


def thread_name() -> str:
    return threading.current_thread().name


def refuse() -> None:
    raise TranscribeError(ErrorCode.CORPUS_BUSY, "The corpus is busy; try again.")


def crash() -> None:
    raise ZeroDivisionError("no")


def counting(n: int) -> Generator[int, None, str]:
    yield from range(n)
    return "counted"


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    """Holds a ``held`` task until set; set at the end whatever happened, so no thread hangs."""
    event = threading.Event()
    yield event
    event.set()


def held(gate: threading.Event, value: str) -> str:
    assert gate.wait(WAIT_MS / 1000)
    return value


def test_a_task_hands_back_its_result_from_another_thread(qtbot: QtBot) -> None:
    task = EngineTask(add, 2, 3)
    with qtbot.waitSignal(task.done, timeout=WAIT_MS) as done:
        task.start()
    assert done.args == [5]
    task.wait()

    where = EngineTask(thread_name)
    with qtbot.waitSignal(where.done, timeout=WAIT_MS) as done:
        where.start()
    assert done.args != [threading.current_thread().name]
    where.wait()
    assert running_workers() == []


def thread_niceness() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def niceness_here_and_in_a_worker_process() -> tuple[int, int]:
    """The calling thread's niceness and that of a worker process it starts (the look
    pass's and the verification's pools are made so)."""
    pool = ProcessPoolExecutor(1, **background.worker_options())
    try:
        return thread_niceness(), pool.submit(os.nice, 0).result(timeout=60)
    finally:
        pool.shutdown()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread niceness: Linux")
def test_a_task_and_its_worker_processes_run_below_the_windows_thread_once_it_asked(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    # So that a busy machine gives the window's thread a core first (workers.Worker.runs_below);
    # a worker process a task starts inherits the task's niceness, and is not lowered twice.
    monkeypatch.setattr(background, "_target", [None])
    background.run_below(BACKGROUND_STEPS)  # as application() does
    window = thread_niceness()
    task = EngineTask(niceness_here_and_in_a_worker_process)
    with qtbot.waitSignal(task.done, timeout=60_000) as done:
        task.start()
    task.wait()
    below = min(window + BACKGROUND_STEPS, 19)
    assert done.args == [(below, below)]
    assert thread_niceness() == window


class _FileWorker(Worker):
    """A worker of files (a scan's, a commit's kind): it says the niceness it ran at."""

    ran_at = Signal(int)

    def work(self) -> None:
        self.ran_at.emit(thread_niceness())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread niceness: Linux")
def test_a_scan_or_commit_worker_runs_below_the_windows_thread_once_the_window_asked(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert ScanWorker.runs_below and CommitWorker.runs_below and EngineTask.runs_below
    monkeypatch.setattr(background, "_target", [None])
    background.run_below(BACKGROUND_STEPS)
    window = thread_niceness()
    worker = _FileWorker()
    with qtbot.waitSignal(worker.ran_at, timeout=WAIT_MS) as ran:
        worker.start()
    worker.wait()
    assert ran.args == [min(window + BACKGROUND_STEPS, 19)]
    assert thread_niceness() == window  # the window's thread itself is where it was


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (refuse, "The corpus is busy; try again."),
        (crash, "unexpected error: ZeroDivisionError('no')"),
    ],
)
def test_a_task_reports_an_error_as_words_and_no_result(
    qtbot: QtBot, fn: object, message: str, logged_warnings: list[logging.LogRecord]
) -> None:
    task = EngineTask(fn)  # type: ignore[arg-type]
    results: list[object] = []
    task.done.connect(results.append)
    with qtbot.waitSignal(task.failed, timeout=WAIT_MS) as failed:
        task.start()
    task.wait()

    assert failed.args == [message]
    assert results == []
    assert running_workers() == []
    # Only what the engine did not foresee is logged, with its traceback.
    logged = [r.getMessage() for r in logged_warnings]
    assert logged == (["EngineTask failed unexpectedly"] if fn is crash else [])


def test_a_generator_task_reports_progress_then_its_return_value(qtbot: QtBot) -> None:
    task = EngineTask(counting, 3)
    progress: list[object] = []
    task.progress.connect(progress.append)
    with qtbot.waitSignal(task.done, timeout=WAIT_MS) as done:
        task.start()
    task.wait()

    assert progress == [0, 1, 2]
    assert done.args == ["counted"]


class _Live(QObject):
    def value(self) -> int:
        return 1


@pytest.mark.parametrize("bad", [[1, 2], {"a": 1}, {1}])
def test_a_task_is_given_frozen_values_only(bad: object) -> None:
    with pytest.raises(TypeError, match="frozen values"):
        EngineTask(add, bad, 1)


def test_a_task_is_never_given_a_qt_object(qtbot: QtBot) -> None:
    live = _Live()
    with pytest.raises(TypeError, match="Qt object"):
        EngineTask(add, live, 1)
    with pytest.raises(TypeError, match="Qt object"):
        EngineTask(live.value)  # a bound method would reach the object from the thread


def test_a_slot_runs_one_task_at_a_time_and_keeps_only_the_latest_request(
    qtbot: QtBot, gate: threading.Event
) -> None:
    slot = TaskSlot()
    results: list[object] = []
    slot.done.connect(results.append)

    slot.run(held, gate, "first")
    assert not slot.superseded()
    slot.run(held, gate, "second")  # waits its turn...
    assert slot.superseded()  # what "first" hands back is out of date
    slot.run(held, gate, "third")  # ...and is replaced by this one
    assert slot.is_busy()
    assert len(running_workers()) == 1
    gate.set()
    qtbot.waitUntil(lambda: not slot.is_busy(), timeout=WAIT_MS)

    assert results == ["first", "third"]
    assert not slot.superseded()
    assert running_workers() == []


def test_a_slot_forwards_failures_and_says_when_each_thread_has_ended(qtbot: QtBot) -> None:
    slot = TaskSlot()
    failures: list[str] = []
    slot.failed.connect(failures.append)
    with qtbot.waitSignal(slot.ended, timeout=WAIT_MS):
        slot.run(refuse)

    assert failures == ["The corpus is busy; try again."]
    assert not slot.is_busy()
    assert slot.task() is None


def test_closing_a_slot_waits_for_its_task_and_starts_nothing_after(
    qtbot: QtBot, gate: threading.Event
) -> None:
    slot = TaskSlot()
    slot.run(held, gate, "running")
    slot.run(held, gate, "waiting")
    threading.Timer(0.1, gate.set).start()

    slot.close()  # blocks until the running task's thread is gone

    assert not slot.is_busy()
    assert running_workers() == []
    slot.run(held, gate, "after")
    assert not slot.is_busy()
    assert running_workers() == []


def held_once_inside(inside: threading.Event, gate: threading.Event) -> str:
    inside.set()
    return held(gate, "first")


def collector_on() -> bool:
    return gc.isenabled()


def test_the_garbage_collector_rests_while_tasks_run_and_works_again_after(
    qtbot: QtBot, gate: threading.Event
) -> None:
    """Its passes over a plan's short-lived objects held the GIL for 0.3 s, the window
    waiting; it rests while any task runs, and works again once the last has ended."""
    assert gc.isenabled()
    inside = threading.Event()
    first = EngineTask(held_once_inside, inside, gate)
    first.start()
    # Started is not yet inside its pause: the second must run while the first is.
    assert inside.wait(WAIT_MS / 1000)
    with qtbot.waitSignal((second := EngineTask(collector_on)).done, timeout=WAIT_MS) as asked:
        second.start()
    assert asked.args == [False]
    second.wait()
    assert not gc.isenabled()  # the first still runs
    with qtbot.waitSignal(first.done, timeout=WAIT_MS):
        gate.set()
    first.wait()
    assert gc.isenabled()
    # A commit, which may run for hours, leaves it be.
    assert not CommitWorker.pauses_collector and EngineTask.pauses_collector


def test_a_scan_lets_go_of_what_it_found_before_the_window_gets_the_plan(
    qtbot: QtBot, corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Freed in one cascade, 100,000 files held the GIL for 22-35 ms just as the window
    began to show their plan; the worker lets them go, a file at a time, before it hands
    the plan over (checked on the worker's thread, as the plan is handed)."""
    found: list[weakref.ref[object]] = []
    real = api.plan_paths

    def plan_paths(*args: object, **kwargs: object) -> object:
        planned = real(*args, **kwargs)  # type: ignore[arg-type]
        assert planned is not None
        found.append(weakref.ref(planned.scan))
        return planned

    monkeypatch.setattr(api, "plan_paths", plan_paths)
    shelf = make_png_shelf(tmp_path / "shelf", notebooks=2, pages=3)
    worker = ScanWorker(corpus, api.PlanRequest(roots=(shelf,), workers=1))
    alive_when_handed: list[bool] = []
    worker.planned.connect(
        lambda outcome: alive_when_handed.append(found[0]() is not None),
        Qt.ConnectionType.DirectConnection,
    )
    with qtbot.waitSignal(worker.planned, timeout=WAIT_MS) as handed:
        worker.start()
    worker.wait()
    assert handed.args[0].files == 6
    assert alive_when_handed == [False]
