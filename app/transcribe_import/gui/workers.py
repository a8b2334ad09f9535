"""Background threads that run engine calls and hand their results to the window as signals.

A worker is given frozen engine values (a plan, paths, settings) and emits frozen
values (summaries, reports, outcome rows); it never touches a widget. Its signals
are emitted from the worker thread and, since the window lives on the GUI thread,
arrive there queued. Every decision is an engine call: the workers only move values
between threads.

One-call work (list, validate, load, cancel, check) runs as an ``EngineTask`` of one of
the functions below, each the one place its engine call is made; only the scan and the
commit, which stream progress, have workers of their own.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import inspect
import logging
import threading
import time
import weakref
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any, Generic, TypeVar

import shiboken6
from PySide6.QtCore import QObject, QThread, Signal

from transcribe_import.engine import api
from transcribe_import.engine.api import Corpus, NotebookSummary
from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.base.short_calls import free_in_slices
from transcribe_import.engine.media.kinds import RenderSettings
from transcribe_import.engine.planning.plan import ImportPlan, PlanDocumentError
from transcribe_import.engine.planning.scan_progress import ScanProgress
from transcribe_import.engine.runs.model import EventKind, RunControl, RunEvent
from transcribe_import.gui.values import (
    CommitStart,
    CorpusCheck,
    OpenedPlan,
    RunDetail,
    RunSummary,
    ScanOutcome,
    Validation,
)
from transcribe_import.gui.wording import error_text

log = logging.getLogger(__name__)

# Every worker made in this process, so quitting (and the tests) can tell whether one still runs.
_workers: weakref.WeakSet[QThread] = weakref.WeakSet()
# Every worker that was started and has not been waited for: a QThread destroyed while it runs
# aborts the process, so a running worker never depends on its page keeping a reference.
_alive: set[QThread] = set()

# The engine reports progress by time *or* by 500 files (the scan), or every file (an export);
# a fast walk would still send 150 events a second. A bar needs no more than ten.
PROGRESS_INTERVAL_S = 0.1


class ProgressThrottle:
    """The progress events the window shows: always the first of a phase (and any it is told
    to show ``anyway``), else no more than one every ``PROGRESS_INTERVAL_S``."""

    def __init__(self) -> None:
        self._shown_at = 0.0
        self._phase: object = None

    def shows(self, phase: object, *, anyway: bool = False) -> bool:
        now = time.monotonic()
        if anyway or phase != self._phase or now - self._shown_at >= PROGRESS_INTERVAL_S:
            self._shown_at, self._phase = now, phase
            return True
        return False


# A step says how long it has left once it has run this long: a shorter one ends before an
# estimate would be worth reading, and the first seconds' pace (a cold disk cache, the
# worker processes starting) says little about the rest.
ESTIMATE_AFTER_S = 3.0


def pace_clock() -> float:
    """The clock a step's pace is read on (one place, so a test can drive it)."""
    return time.monotonic()


class StepPace:
    """How long the rest of a long step takes, at the pace its progress has shown so far.

    Counted from the first progress it is shown (what was done before it, a look cache
    read, say, took no time it could measure); ``None`` until the step has run
    ``ESTIMATE_AFTER_S`` and moved on since. ``restart`` when the step begins again.
    """

    def __init__(self) -> None:
        self._first: tuple[float, int] | None = None

    def restart(self) -> None:
        self._first = None

    def seconds_left(self, done: int, total: int) -> float | None:
        now = pace_clock()
        if self._first is None:
            self._first = (now, done)
            return None
        started, done_then = self._first
        elapsed, gained = now - started, done - done_then
        if elapsed < ESTIMATE_AFTER_S or gained <= 0:
            return None
        return max(total - done, 0) * elapsed / gained


def running_workers() -> list[QThread]:
    """The workers whose thread is running now."""
    return [w for w in list(_workers) if shiboken6.isValid(w) and w.isRunning()]


def keep_from_the_collector() -> None:
    """Keep what lives now, a new plan above all, out of the cyclic garbage collector's passes.

    A plan of 100,000 sources is most of a million tracked objects: each full pass of the
    collector walked them all, holding the GIL for 0.3-0.5 s while the window waited
    (bench/bench_gui.py). A plan is immutable values with no reference cycle, freed by its
    reference counts like any object; frozen (``gc.freeze``) it is only never walked. A scan
    and a validation leave no cyclic garbage behind (none found after 100,000 files), so
    nothing that needs the collector to be freed is kept from it.
    """
    gc.freeze()


class _CollectorPause:
    """The cyclic garbage collector rests while any worker runs, and works again after.

    A scan, a validation or a draft of 100,000 sources builds a million short-lived objects
    (a plan's documents, its checks); the collector's passes over them held the GIL for up
    to 0.3 s at a time, the window waiting. They are freed by their reference counts: what
    they make has no reference cycle (none found after a scan or a validation of 100,000
    files), so the collector has nothing to do there. What the window makes meanwhile and
    drops is collected once the last worker has ended.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0

    def __enter__(self) -> None:
        with self._lock:
            self._running += 1
            if self._running == 1:
                gc.disable()

    def __exit__(self, *_exc: object) -> None:
        with self._lock:
            self._running -= 1
            if self._running == 0:
                # What the work built and still lives (a plan, a report) is kept out too:
                # left young, the collector's first pass after the rest would walk it all.
                keep_from_the_collector()
                gc.enable()


collector_paused = _CollectorPause()


# -- the engine calls of one-call work: each one call of engine.api --------------------------


def list_notebooks(corpus: Corpus) -> list[NotebookSummary]:
    return api.list_notebooks(corpus)


def check_corpus(corpus: Corpus, list_first: bool) -> Generator[object, None, CorpusCheck]:
    """Run doctor, then list the notebooks (doctor may have registered some) and the runs
    it left interrupted, which the start view offers to resume.

    With ``list_first`` it yields the notebooks before doctor too, so a window that has
    just opened can show them without waiting for the whole check.
    """
    if list_first:
        yield tuple(api.list_notebooks(corpus))
    report = api.check_corpus(corpus)
    return CorpusCheck(
        report,
        tuple(api.list_notebooks(corpus)),
        tuple(api.interrupted_runs(corpus)),
    )


def validate_plan(
    corpus: Corpus,
    plan: ImportPlan,
    settings: RenderSettings,
    workers: int,
    hints: frozenset[api.Hint] = api.ALL_HINTS,
    *,
    progress: Callable[[object], None] = lambda _done: None,
) -> Validation:
    """``api.validate_plan`` of ``plan``; ``progress`` gets (done, of how many) of each part
    of the work, as the window can show it: each part's first and last, then at most ten a
    second (100,000 files: 30 s)."""
    throttle = ProgressThrottle()

    def told(done: int, total: int) -> None:
        if throttle.shows(plan.plan_id, anyway=done in (0, total)):
            progress((done, total))

    report = api.validate_plan(
        corpus, plan, settings=settings, workers=workers, hints=hints, progress=told
    )
    # The report's walks over its problems (100,000 of them, a shelf whose disk is not there)
    # made here, not on the window's thread as it shows them (each is kept with the report).
    report.listed  # noqa: B018 - made here, kept
    return Validation(plan, report, api.item_states(plan, report))


def keep_draft(corpus: Corpus, plan: ImportPlan) -> ImportPlan:
    """Keep ``plan`` as the corpus's draft of it; the plan written, so the window knows which."""
    api.save_draft(corpus, plan)
    return plan


def write_plan_file(plan: ImportPlan, path: Path) -> tuple[ImportPlan, Path]:
    """Write ``plan`` to ``path`` (Save Plan As…); the plan and where, for the window.

    On a worker: a plan of 100,000 sources is seconds of JSON encoding and writing.
    """
    api.save_plan_file(plan, path)
    return plan, path


def read_for_review(
    corpus: Corpus,
    source: Path | str,
    *,
    progress: Callable[[object], None] = lambda _done: None,
) -> OpenedPlan:
    """The plan in a plan file (``source`` a Path) or the corpus's draft of a plan (its id).

    On a worker: a plan of 100,000 sources takes 3-16 s to read; ``progress`` gets (done,
    of how many) as the window can show it: the first, then at most ten a second.
    """
    throttle = ProgressThrottle()

    def told(done: int, total: int) -> None:
        if throttle.shows(source, anyway=done in (0, total)):
            progress((done, total))

    try:
        if isinstance(source, Path):
            return OpenedPlan(api.load_plan_file(source, told), "", from_draft=False)
        return OpenedPlan(api.load_draft(corpus, source, told), "", from_draft=True)
    except (PlanDocumentError, TranscribeError) as exc:  # not a plan, or the disk failed
        return OpenedPlan(None, str(exc), from_draft=not isinstance(source, Path))


def list_drafts(corpus: Corpus) -> list[api.Draft]:
    """The kept reviews, newest first (each draft is read to count its pages)."""
    return api.list_drafts(corpus)


def list_runs(corpus: Corpus) -> tuple[list[RunSummary], list[str]]:
    """Every import run, newest first, telling interrupted ones from running ones; and each
    run record that cannot be read (a listing never silently drops one)."""
    return [listing.summary for listing in api.list_runs(corpus)], api.run_listing_problems(corpus)


def load_run(corpus: Corpus, run_id: str) -> RunDetail:
    """One run with its frozen plan, for its per-item outcomes."""
    return api.show_run(corpus, run_id)


def cancel_interrupted_run(corpus: Corpus, run_id: str) -> RunSummary:
    """Cancel a run no process executes: ``cancel_run`` ends it and says how."""
    return api.run_summary(corpus, api.cancel(corpus, run_id))


# -- the threads -----------------------------------------------------------------------------


class Worker(QThread):
    """A QThread registered in ``running_workers`` that reports any error as ``failed``."""

    failed = Signal(str)  # a message a person can act on
    # Scans and one-call tasks rest the garbage collector while they run (_CollectorPause);
    # a commit, which may run for hours and whose pace is set by the disk, does not.
    pauses_collector = True
    # Whether the thread runs below the window's (base/background). Every worker does, the
    # one-call tasks (EngineTask) included: their Python holds the GIL the window's thread
    # needs, and running them at the window's level instead was tried (a lowered holder can
    # sit off a core on a busy machine), but in the same hour at the same load the window's
    # worst gaps were larger that way in 4 of 6 steps of bench_gui_shelf.py, and in 2 of 4
    # alternated Open Plan… of bench_gui_open.py with 485 ms against 391 ms in all (the
    # history of bench/RESULTS.md). A subclass may say False.
    runs_below = True

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        _workers.add(self)
        self.finished.connect(self._release)

    def start(self, priority: QThread.Priority | None = None) -> None:
        # Below the window's thread (``runs_below``), so that a busy machine gives it a core
        # first: Qt's priority where the system has thread priorities (macOS, Windows), the
        # niceness of ``run`` where it has per-thread niceness instead (Linux: Qt's Low is a
        # no-op there).
        if priority is None:
            priority = (
                QThread.Priority.LowPriority
                if self.runs_below
                else QThread.Priority.InheritPriority
            )
        _alive.add(self)
        super().start(priority)

    def _release(self) -> None:
        # `finished` is emitted just before the thread ends: wait, then let it go.
        self.wait()
        _alive.discard(self)

    def run(self) -> None:
        if self.runs_below:
            api.lower_this_thread()  # and the threads and processes it starts (base/background)
        try:
            with collector_paused if self.pauses_collector else contextlib.nullcontext():
                self.work()
        except Exception as exc:  # noqa: BLE001 - an uncaught error would end the thread silently
            if not isinstance(exc, TranscribeError | OSError):
                log.exception("%s failed unexpectedly", type(self).__name__)
            self.failed.emit(error_text(exc))

    # Each worker class defines ``work(self) -> None``: the job, run on the worker's thread.
    work: Callable[[], None]


def _check_frozen(value: object) -> None:
    # The thread must never reach a widget or a list the GUI thread goes on changing.
    if isinstance(value, QObject):
        raise TypeError(f"a task is given frozen values, not the Qt object {value!r}")
    if isinstance(value, list | dict | set | bytearray):
        raise TypeError(f"a task is given frozen values, not a {type(value).__name__}")


class EngineTask(Worker):
    """Runs ``fn(*args)`` once on its own thread: ``done(result)`` or ``failed(message)``.

    ``args`` are frozen values (a corpus, a plan, ids, settings); mutable containers and
    Qt objects are refused. When ``fn`` is a generator function, each value it yields is
    emitted as ``progress`` (a partial result) and what it returns as ``done``; when it
    takes a ``progress`` keyword, each value it hands that is emitted as ``progress``.
    """

    done = Signal(object)
    progress = Signal(object)

    def __init__(self, fn: Callable[..., Any], *args: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        for value in (getattr(fn, "__self__", None), *args):
            _check_frozen(value)
        self.fn = fn
        self.args = args

    def work(self) -> None:
        if "progress" in inspect.signature(self.fn).parameters:
            # A function that tells its progress through a callback (a long engine call).
            result = self.fn(*self.args, progress=self.progress.emit)
        else:
            result = self.fn(*self.args)
        if isinstance(result, Generator):
            result = api.drive(result, self.progress.emit)
        self.done.emit(result)


W = TypeVar("W", bound=Worker)


class WorkerSlot(QObject, Generic[W]):
    """Holds one worker while its thread runs; ``ended`` once it has ended and been waited for.

    The slot, not whoever started the worker, waits for its thread, so the one place that
    lets a worker go is here: the task slots and the scan and commit pages all use it.
    """

    ended = Signal()  # the worker's thread has ended and been waited for

    def __init__(self, parent: QObject | None = None, **connections: Any) -> None:
        super().__init__(parent, **connections)
        self._worker: W | None = None

    def worker(self) -> W | None:
        return self._worker

    def is_busy(self) -> bool:
        return self._worker is not None

    def start(self, worker: W) -> None:
        """Hold ``worker`` and start it; connect its own signals first."""
        assert self._worker is None, "one worker at a time"
        worker.finished.connect(self._finished)
        self._worker = worker
        worker.start()

    def wait(self) -> None:
        """Block until the worker has ended (closing, tests); it must have been told to stop."""
        if self._worker is not None:
            self._worker.wait()
            self._finished()

    def _finished(self) -> None:
        worker, self._worker = self._worker, None
        if worker is None:
            return  # wait() has seen to it already
        worker.wait()  # `finished` comes just before the thread ends
        self._worker_ended()
        self.ended.emit()

    def _worker_ended(self) -> None:
        """What a kind of slot does once its worker is gone, before ``ended``."""


class TaskSlot(WorkerSlot[EngineTask]):
    """One kind of task for a page: at most one runs; a request while it runs waits its turn.

    Only the latest waiting request is kept: a newer listing makes an older one moot.
    The running task's ``done``, ``progress`` and ``failed`` come out of the slot's own
    signals, so a page connects once (``TaskSlot(self, done=..., failed=...)``, Qt's
    signal keywords); ``ended`` says its thread is gone. After ``close`` (the window is
    closing) nothing starts again.
    """

    done = Signal(object)
    progress = Signal(object)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None, **connections: Any) -> None:
        super().__init__(parent, **connections)
        self._waiting: tuple[Callable[..., Any], tuple[Any, ...]] | None = None
        self._closed = False

    def run(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` as an EngineTask now, or once the running one has ended."""
        if self._closed:
            return
        if self.is_busy():
            self._waiting = (fn, args)
            return
        task = EngineTask(fn, *args)
        task.done.connect(self.done)
        task.progress.connect(self.progress)
        task.failed.connect(self.failed)
        self.start(task)

    def task(self) -> EngineTask | None:
        return self.worker()

    def superseded(self) -> bool:
        """A newer request waits: what the running task hands back is already out of date."""
        return self._waiting is not None

    def close(self) -> None:
        """Drop what waits and wait for the running task (short, or asked to stop)."""
        self._closed = True
        self._waiting = None
        self.wait()

    def _worker_ended(self) -> None:
        waiting, self._waiting = self._waiting, None
        if waiting is not None:
            self.run(waiting[0], *waiting[1])


class ScanWorker(Worker):
    """Scans the request's roots and plans what it found in its mode; cancellable at any time."""

    progress = Signal(object)  # ScanProgress, as a ProgressThrottle lets it through
    planned = Signal(object)  # ScanOutcome
    cancelled = Signal()

    def __init__(
        self, corpus: Corpus, request: api.PlanRequest, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._corpus = corpus
        self._request = request
        self._stop = threading.Event()

    def stop(self) -> None:
        """Ask the scan to end; it stops within one file per thread."""
        self._stop.set()

    def work(self) -> None:
        started = time.monotonic()
        throttle = ProgressThrottle()
        last: list[ScanProgress] = []

        def on_progress(event: ScanProgress) -> None:
            last[:] = [event]
            if throttle.shows(event.phase):
                self.progress.emit(event)

        planned = api.plan_paths(
            self._corpus, self._request, should_stop=self._stop.is_set, on_progress=on_progress
        )
        if planned is None or self._stop.is_set():
            self.cancelled.emit()
            return
        if last:
            self.progress.emit(last[0])  # the final count, which the throttle may have held back
        outcome = ScanOutcome(
            planned.plan,
            planned.files,
            planned.ignored,
            time.monotonic() - started,
            # Counted here, not on the GUI thread: 100,000 sources take it 40 ms.
            planned.plan.imported_page_count(),
        )
        # What the scan found, once planned, is let go here a file at a time, before the
        # window is handed the plan: 100,000 files freed in one cascade held the GIL for
        # 22-35 ms just as the window began to show the plan (bench/bench_gui.py).
        found = [*planned.scan.files, *planned.scan.ignored]
        del planned
        free_in_slices(found)
        self.planned.emit(outcome)


class CommitWorker(Worker):
    """Commits a plan (validate, prepare_run, execute_run), resumes a run, or retries one.

    The executor calls ``on_event`` from its own threads. Each event is appended to a
    queue here and ``events_ready`` is emitted only when the queue was empty, so a
    burst of outcomes costs the GUI one queued call; it then takes them all with
    ``take_events`` and applies them in time-budgeted batches.
    """

    pauses_collector = False
    prepared = Signal(object)  # CommitStart
    events_ready = Signal()
    invalid = Signal(object)  # ValidationReport: the world changed since the plan was validated
    run_ended = Signal(object, object)  # RunResult, and the RunSummary of the run as it ended

    def __init__(
        self,
        corpus: Corpus,
        *,
        plan: ImportPlan | None = None,
        run_id: str | None = None,
        retry_of: str | None = None,
        settings: RenderSettings,
        workers: int,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        if sum(x is not None for x in (plan, run_id, retry_of)) != 1:
            raise ValueError("give a plan to commit, a run to resume, or an ended run to retry")
        self._corpus = corpus
        self._plan = plan
        self.run_id = run_id
        self.retry_of = retry_of
        self._settings = settings
        self._workers = workers
        self.control = RunControl()
        self._events: collections.deque[RunEvent] = collections.deque()
        self._events_lock = threading.Lock()
        self._notified = False
        # When the last checkpoint landed (time.monotonic), as the run said it: events reach
        # the window later, in batches, and the stop question's wait starts from here.
        self.landed_at = 0.0

    # -- called from the GUI thread ------------------------------------------------------

    def cancel(self) -> None:
        self.control.cancel()

    def pause(self) -> None:
        self.control.pause()

    def hold(self) -> None:
        """No notebook starts, nor goes past its next checkpoint, until ``release``."""
        self.control.hold()

    def release(self) -> None:
        self.control.release()

    def take_events(self) -> list[RunEvent]:
        with self._events_lock:
            events = list(self._events)
            self._events.clear()
            self._notified = False
        return events

    # -- the worker thread ---------------------------------------------------------------

    def _on_event(self, event: RunEvent) -> None:
        # Called from the executor's lane threads: no Qt object is touched but our signal.
        if event.kind in (EventKind.PAGES_LANDED, EventKind.ITEM_FINISHED):
            self.landed_at = time.monotonic()
        with self._events_lock:
            self._events.append(event)
            notify = not self._notified
            self._notified = True
        if notify:
            self.events_ready.emit()

    def _prepare(self) -> api.PreparedRun:
        """The run to execute: a plan committed, an ended run's plan committed again (each
        checked against the disk as it is now, as the CLI does), or a run resumed."""
        if self._plan is not None:
            return api.prepare_commit(
                self._corpus, self._plan, settings=self._settings, workers=self._workers
            )
        if self.retry_of is not None:
            return api.prepare_retry(
                self._corpus, self.retry_of, settings=self._settings, workers=self._workers
            )
        assert self.run_id is not None
        return api.prepare_resume(self._corpus, self.run_id)

    def work(self) -> None:
        try:
            prepared = self._prepare()
        except api.PlanInvalid as invalid:
            self.invalid.emit(invalid.report)
            return
        record = prepared.record
        self.run_id = record.run_id
        rows = api.outcome_rows(prepared.plan, record)
        total = sum(r.pages_planned for r in rows)
        done = sum(r.pages_planned for r in rows if r.state.final)
        pace = api.pace_start(self._corpus, prepared.plan, record)
        self.prepared.emit(
            CommitStart(record.run_id, tuple(rows), done, total, prepared.continued, pace)
        )
        result = api.execute(
            self._corpus,
            record.run_id,
            workers=self._workers,
            control=self.control,
            on_event=self._on_event,
            settings=self._settings,
        )
        self.run_ended.emit(result, api.result_summary(self._corpus, result))
