"""Background threads that run engine calls and hand their results to the window as signals.

A worker is given frozen engine values (a plan, paths, settings) and emits frozen
values (summaries, reports, outcome rows); it never touches a widget. Its signals
are emitted from the worker thread and, since the window lives on the GUI thread,
arrive there queued. Every decision is an engine call: the workers only move values
between threads.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import shiboken6
from PySide6.QtCore import QObject, QThread, Signal

from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.doctor import doctor
from transcribe_import.engine.media.decode import RenderSettings
from transcribe_import.engine.planning.plan import ImportPlan, Op
from transcribe_import.engine.planning.planner import build_plan
from transcribe_import.engine.planning.scan import ScanCancelled, ScanPhase, ScanProgress, scan
from transcribe_import.engine.planning.validate import ValidationReport, validate
from transcribe_import.engine.runs.executor import (
    RunControl,
    RunEvent,
    RunResult,
    cancel_run,
    execute_run,
    interrupted_runs,
    prepare_run,
)
from transcribe_import.engine.runs.store import (
    ItemOutcome,
    ItemState,
    RunRecord,
    RunStatus,
    RunStore,
)
from transcribe_import.engine.storage.corpus import Corpus

log = logging.getLogger(__name__)

# Every worker made in this process, so quitting (and the tests) can tell whether one still runs.
_workers: weakref.WeakSet[QThread] = weakref.WeakSet()
# Every worker that was started and has not been waited for: a QThread destroyed while it runs
# aborts the process, so a running worker never depends on its page keeping a reference.
_alive: set[QThread] = set()

# The engine throttles scan progress by time *or* by 500 files; a fast walk would still send
# 150 events a second. The GUI needs no more than ten.
SCAN_PROGRESS_INTERVAL_S = 0.1


def running_workers() -> list[QThread]:
    """The workers whose thread is running now."""
    return [w for w in list(_workers) if shiboken6.isValid(w) and w.isRunning()]


def error_text(exc: BaseException, where: object = None) -> str:
    """One line a person can act on, for an exception a worker caught."""
    if isinstance(exc, TranscribeError):
        return str(exc)
    if isinstance(exc, OSError):
        return f"{exc.filename or where or ''}: {exc.strerror or exc}".lstrip(": ")
    return f"unexpected error: {exc!r}"


# -- frozen values the workers hand over -----------------------------------------------------


@dataclass(frozen=True)
class RunSummary:
    """One import run as the Runs view lists it (a copy: the record's dict stays behind)."""

    run_id: str
    status: RunStatus
    interrupted: bool  # not terminal and no process executes it: resumable
    created_at: str
    updated_at: str
    attempt: int
    committed: int
    skipped: int
    failed: int
    not_done: int  # pending + cancelled_pending
    pages_committed: int
    roots: tuple[str, ...]

    @classmethod
    def of(cls, record: RunRecord, interrupted: bool) -> RunSummary:
        counts = record.counts()
        roots = record.doc.get("discovery", {}).get("roots") or ()
        return cls(
            run_id=record.run_id,
            status=record.status,
            interrupted=interrupted,
            created_at=record.created_at,
            updated_at=str(record.doc.get("updated_at") or record.created_at),
            attempt=record.attempt,
            committed=counts[ItemState.COMMITTED],
            skipped=counts[ItemState.SKIPPED],
            failed=counts[ItemState.FAILED],
            not_done=counts[ItemState.PENDING] + counts[ItemState.CANCELLED_PENDING],
            pages_committed=int(record.summary()["pages_committed"]),
            roots=tuple(str(r) for r in roots if isinstance(r, str)),
        )


@dataclass(frozen=True)
class OutcomeRow:
    """One plan item with its outcome, as the outcome tables show it."""

    item_id: str
    label: str
    op: Op
    notebook_id: str
    pages_planned: int
    outcome: ItemOutcome
    started: bool = False  # being committed right now (an ITEM_STARTED event arrived)

    @property
    def state(self) -> ItemState:
        return self.outcome.state

    def with_outcome(self, outcome: ItemOutcome) -> OutcomeRow:
        return replace(self, outcome=outcome, started=False)


def outcome_rows(plan: ImportPlan, record: RunRecord) -> list[OutcomeRow]:
    outcomes = record.outcomes()
    return [
        OutcomeRow(
            it.item_id,
            it.label,
            it.op,
            it.notebook_id,
            sum(len(s.pages) for s in it.imported_sources()),
            outcomes[it.item_id],
        )
        for it in plan.items
    ]


@dataclass(frozen=True)
class RunDetail:
    summary: RunSummary
    rows: tuple[OutcomeRow, ...]


@dataclass(frozen=True)
class ScanOutcome:
    """What a scan found and the plan the chosen mode made of it."""

    plan: ImportPlan
    files: int
    ignored: int  # not page files or unreadable, junk not counted
    seconds: float


@dataclass(frozen=True)
class CommitStart:
    """The run a commit worker is about to execute, with every item's outcome so far."""

    run_id: str
    rows: tuple[OutcomeRow, ...]
    pages_done: int
    pages_total: int
    continued: bool  # the run existed before (a resume, or the same plan committed again)


# -- the workers -----------------------------------------------------------------------------


class Worker(QThread):
    """A QThread registered in ``running_workers`` that reports any error as ``failed``."""

    failed = Signal(str)  # a message a person can act on

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        _workers.add(self)
        self.finished.connect(self._release)

    def start(self, priority: QThread.Priority = QThread.Priority.InheritPriority) -> None:
        _alive.add(self)
        super().start(priority)

    def _release(self) -> None:
        # `finished` is emitted just before the thread ends: wait, then let it go.
        self.wait()
        _alive.discard(self)

    def run(self) -> None:
        try:
            self.work()
        except Exception as exc:  # noqa: BLE001 - an uncaught error would end the thread silently
            if not isinstance(exc, TranscribeError | OSError):
                log.exception("%s failed unexpectedly", type(self).__name__)
            self.failed.emit(error_text(exc))

    # Each worker class defines ``work(self) -> None``: the job, run on the worker's thread.
    work: Callable[[], None]


class DoctorWorker(Worker):
    """Runs ``doctor`` on the corpus, then lists its notebooks (doctor may have registered some).

    With ``list_first`` it lists the notebooks before doctor too, so a window that has
    just opened can show them without waiting for the whole check. After doctor it
    lists the interrupted runs, which the start view offers to resume.
    """

    notebooks_listed = Signal(object)  # list[NotebookSummary]
    report_ready = Signal(object)  # DoctorReport
    interrupted_listed = Signal(object)  # list[RunSummary]

    def __init__(
        self, corpus: Corpus, *, list_first: bool = False, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._corpus = corpus
        self._list_first = list_first

    def work(self) -> None:
        if self._list_first:
            self.notebooks_listed.emit(self._corpus.list_notebooks())
        self.report_ready.emit(doctor(self._corpus))
        self.notebooks_listed.emit(self._corpus.list_notebooks())
        self.interrupted_listed.emit(
            [RunSummary.of(r, interrupted=True) for r in interrupted_runs(self._corpus)]
        )


class NotebooksWorker(Worker):
    """Lists the corpus's notebooks (after a commit: no need for a whole check)."""

    notebooks_listed = Signal(object)  # list[NotebookSummary]

    def __init__(self, corpus: Corpus, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._corpus = corpus

    def work(self) -> None:
        self.notebooks_listed.emit(self._corpus.list_notebooks())


class ScanWorker(Worker):
    """Scans ``roots`` and plans the result with the chosen mode; cancellable at any time."""

    progress = Signal(object)  # ScanProgress, at most every SCAN_PROGRESS_INTERVAL_S
    planned = Signal(object)  # ScanOutcome
    cancelled = Signal()

    def __init__(
        self,
        corpus: Corpus,
        roots: Sequence[Path],
        *,
        mode: str,
        title: str | None,
        policy_id: str,
        settings: RenderSettings,
        workers: int,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._corpus = corpus
        self._roots = tuple(roots)
        self._mode = mode
        self._title = title
        self._policy_id = policy_id
        self._settings = settings
        self._workers = workers
        self._stop = threading.Event()

    def stop(self) -> None:
        """Ask the scan to end; it raises ScanCancelled within one file per thread."""
        self._stop.set()

    def work(self) -> None:
        started = time.monotonic()
        gen = scan(
            self._roots,
            settings=self._settings,
            workers=self._workers,
            should_stop=self._stop.is_set,
        )
        last_emit = 0.0
        last_phase: ScanPhase | None = None
        try:
            while True:
                event: ScanProgress = next(gen)
                now = time.monotonic()
                # Always the first event of a phase, else no more than ten a second.
                if event.phase != last_phase or now - last_emit >= SCAN_PROGRESS_INTERVAL_S:
                    last_emit, last_phase = now, event.phase
                    self.progress.emit(event)
        except StopIteration as done:
            result = done.value
        except ScanCancelled:
            self.cancelled.emit()
            return
        if self._stop.is_set():
            self.cancelled.emit()
            return
        self.progress.emit(event)  # the final count, which the throttle may have held back
        plan = build_plan(
            self._corpus, result, mode=self._mode, policy_id=self._policy_id, title=self._title
        )
        self.planned.emit(
            ScanOutcome(
                plan,
                len(result.files),
                sum(not i.junk for i in result.ignored),
                time.monotonic() - started,
            )
        )


class ValidateWorker(Worker):
    """Validates one frozen plan; the session keeps the report only if the plan is unchanged."""

    validated = Signal(object)  # ValidationReport

    def __init__(
        self,
        corpus: Corpus,
        plan: ImportPlan,
        *,
        settings: RenderSettings,
        workers: int,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._corpus = corpus
        self._plan = plan
        self._settings = settings
        self._workers = workers

    def work(self) -> None:
        self.validated.emit(
            validate(self._corpus, self._plan, settings=self._settings, workers=self._workers)
        )


class RunsWorker(Worker):
    """Lists every import run, newest first, telling interrupted ones from running ones."""

    listed = Signal(object)  # list[RunSummary]

    def __init__(self, corpus: Corpus, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._corpus = corpus

    def work(self) -> None:
        store = RunStore(self._corpus)
        self.listed.emit(
            [
                RunSummary.of(r, not r.status.terminal and not store.is_locked(r.run_id))
                for r in store.list_runs()
            ]
        )


class RunDetailWorker(Worker):
    """Loads one run with its frozen plan, for its per-item outcomes."""

    loaded = Signal(object)  # RunDetail

    def __init__(self, corpus: Corpus, run_id: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._corpus = corpus
        self.run_id = run_id

    def work(self) -> None:
        store = RunStore(self._corpus)
        record = store.load(self.run_id)
        plan = store.load_plan(self.run_id, record)
        interrupted = not record.status.terminal and not store.is_locked(self.run_id)
        self.loaded.emit(
            RunDetail(RunSummary.of(record, interrupted), tuple(outcome_rows(plan, record)))
        )


class CancelRunWorker(Worker):
    """Cancels a run no process executes: ``cancel_run`` ends it and says how."""

    done = Signal(object)  # RunSummary of the ended run

    def __init__(self, corpus: Corpus, run_id: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._corpus = corpus
        self.run_id = run_id

    def work(self) -> None:
        record = cancel_run(self._corpus, self.run_id)
        self.done.emit(RunSummary.of(record, interrupted=False))


class CommitWorker(Worker):
    """Commits a plan (validate, prepare_run, execute_run) or resumes a run by its id.

    The executor calls ``on_event`` from its own threads. Each event is appended to a
    queue here and ``events_ready`` is emitted only when the queue was empty, so a
    burst of outcomes costs the GUI one queued call; it then takes them all with
    ``take_events`` and applies them in time-budgeted batches.
    """

    prepared = Signal(object)  # CommitStart
    events_ready = Signal()
    invalid = Signal(object)  # ValidationReport: the world changed since the plan was validated
    run_ended = Signal(object)  # RunResult

    def __init__(
        self,
        corpus: Corpus,
        *,
        plan: ImportPlan | None = None,
        run_id: str | None = None,
        settings: RenderSettings,
        workers: int,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        if (plan is None) == (run_id is None):
            raise ValueError("give a plan to commit or the id of a run to resume")
        self._corpus = corpus
        self._plan = plan
        self.run_id = run_id
        self._settings = settings
        self._workers = workers
        self.control = RunControl()
        self._events: collections.deque[RunEvent] = collections.deque()
        self._events_lock = threading.Lock()
        self._notified = False

    # -- called from the GUI thread ------------------------------------------------------

    def cancel(self) -> None:
        self.control.cancel()

    def pause(self) -> None:
        self.control.pause()

    def take_events(self) -> list[RunEvent]:
        with self._events_lock:
            events = list(self._events)
            self._events.clear()
            self._notified = False
        return events

    # -- the worker thread ---------------------------------------------------------------

    def _on_event(self, event: RunEvent) -> None:
        # Called from the executor's lane threads: no Qt object is touched but our signal.
        with self._events_lock:
            self._events.append(event)
            notify = not self._notified
            self._notified = True
        if notify:
            self.events_ready.emit()

    def work(self) -> None:
        store = RunStore(self._corpus)
        if self._plan is not None:
            # A plan is untrusted until checked against the disk as it is now, as the CLI does.
            report: ValidationReport = validate(
                self._corpus, self._plan, settings=self._settings, workers=self._workers
            )
            if not report.ok:
                self.invalid.emit(report)
                return
            roots = self._plan.provenance.get("roots", [])
            record, continued = prepare_run(
                self._corpus,
                self._plan,
                discovery={"roots": roots, "mode": self._plan.provenance.get("mode")},
            )
            plan = self._plan
        else:
            assert self.run_id is not None
            record = store.load(self.run_id)
            plan = store.load_plan(self.run_id, record)
            continued = True
        self.run_id = record.run_id
        rows = outcome_rows(plan, record)
        outcomes = record.outcomes()
        total = sum(r.pages_planned for r in rows)
        done = sum(r.pages_planned for r in rows if outcomes[r.item_id].state.final)
        self.prepared.emit(CommitStart(record.run_id, tuple(rows), done, total, continued))
        result: RunResult = execute_run(
            self._corpus,
            record.run_id,
            workers=self._workers,
            control=self.control,
            on_event=self._on_event,
            settings=self._settings,
        )
        self.run_ended.emit(result)
