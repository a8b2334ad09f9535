"""The ImportRun model: statuses, item outcomes, the terminal-status table and the run rules.

Plain values and pure functions, no I/O: the store (store.py) persists them, the
executor (executor.py) produces them, and engine.api and the faces read them. Each
rule of the contract about a run's state is one function here.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.base.values import DocField

if TYPE_CHECKING:
    from transcribe_import.engine.planning.plan import ImportPlan

RUN_FORMAT = "transcribe.import-run"
RUN_SCHEMA = 1
RUN_INDEX_FORMAT = "transcribe.import-run-index"


class RunStatus(enum.StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    COMPLETE = "complete"
    PARTIAL = "partial"
    FAILED = "failed"
    CANCELLED = "cancelled"
    CANCELLED_WITH_COMMITS = "cancelled_with_commits"
    REVERTED = "reverted"  # undone as a group after it ended; a restore puts the end back

    @property
    def terminal(self) -> bool:
        return self not in (RunStatus.PENDING, RunStatus.RUNNING)

    @property
    def cancelled(self) -> bool:
        """Ended by a cancel, with or without commits."""
        return self in (RunStatus.CANCELLED, RunStatus.CANCELLED_WITH_COMMITS)

    @property
    def revertible(self) -> bool:
        """Whether a revert may undo a run that ended so: it committed something."""
        return self in REVERTIBLE


# The statuses of a run that may have put pages in the corpus (an unfinished item's
# checkpoints too: a cancelled or failed run is judged by what the corpus holds of it).
REVERTIBLE = frozenset(
    {
        RunStatus.COMPLETE,
        RunStatus.PARTIAL,
        RunStatus.FAILED,
        RunStatus.CANCELLED,
        RunStatus.CANCELLED_WITH_COMMITS,
    }
)


class HistoryEvent(enum.StrEnum):
    """One kind of transition in a run's audit history (the record's ``history``).

    A run that ends is written as its terminal status (``complete``, ``cancelled`` …): read
    back, that is ``ENDED`` with the status beside it. ``UNKNOWN`` is never written: it is
    how an entry reads that a newer version of the app wrote.
    """

    CREATED = "created"
    STARTED = "started"
    RESUMED = "resumed"
    PAUSED = "paused"
    CANCEL_REQUESTED = "cancel_requested"
    REVERT_REQUESTED = "revert_requested"
    REVERTED = "reverted"  # written as RunStatus.REVERTED, the one transition after an end
    # Some of the run's notebooks undone, the blocked ones left in place: the status stays.
    PARTLY_REVERTED = "partly_reverted"
    REVERT_ABANDONED = "revert_abandoned"
    RESTORE_REQUESTED = "restore_requested"  # a person asked to put an undone run back
    RESTORED = "restored"  # put back from the trash: the status it ended with is its own again
    # Written on an ended run when its plan is committed again: a new run (``retry_run_id``)
    # retries what did not land, or the retry was refused before any run began (``why``).
    RETRIED = "retried"
    RETRY_REFUSED = "retry_refused"
    ENDED = "ended"
    UNKNOWN = "unknown"


class ItemState(enum.StrEnum):
    PENDING = "pending"
    COMMITTED = "committed"
    SKIPPED = "skipped"
    FAILED = "failed"
    CANCELLED_PENDING = "cancelled_pending"

    @property
    def final(self) -> bool:
        return self is not ItemState.PENDING


class SkipReason(enum.StrEnum):
    """Why a skipped item landed nothing (docs/formats.md, ``skip_classification``)."""

    ALL_DUPLICATES = "all_duplicates"  # every file it planned is in the corpus already
    NOTHING_TO_IMPORT = "nothing_to_import"  # it planned no file at all


class RunNotFound(TranscribeError):
    pass


class AttemptSuperseded(Exception):
    """Another process took over this run (a newer attempt): stand down without writing."""


class RunCorrupt(TranscribeError):
    pass


def _skip_reason(value: object) -> SkipReason | None:
    """A record's ``skip_classification``; one written by a newer version that this one does
    not know is read as no reason (the item's state says it was skipped all the same)."""
    try:
        return SkipReason(value) if isinstance(value, str) else None
    except ValueError:
        return None


@dataclass(frozen=True)
class ItemOutcome:
    """One item's outcome in its run record.

    An item's sources land in checkpoints (engine/ingest/checkpoints.py), so an item
    that is not ``committed`` may have landed some: ``source_ids`` are then the sources
    of it its notebook holds and ``pages_landed`` their pages (a pending item's, as of
    its last checkpoint; a ``failed`` or ``cancelled_pending`` item's, for good: pages
    that landed are never rolled back). ``page_count`` is the pages of a committed item;
    ``pages_landed`` equals it then. Both count this run's pages only, as the notebook
    holds them (its sources carry the run's id): a retry does not count the pages an
    earlier run of its plan landed, which it finds in the notebook (``pages_already_in``).
    An item is ``committed`` only once all its planned sources are in (or were skipped as
    duplicates).
    """

    item_id: str
    state: ItemState
    notebook_id: str
    source_ids: tuple[str, ...] = ()
    page_count: int = 0
    skipped_sources: tuple[dict[str, Any], ...] = ()  # [{source_id, name, classification}]
    skip_classification: SkipReason | None = None
    failure_code: str | None = None
    failure_message: str | None = None
    updated_at: str = ""
    pages_landed: int = 0
    pages_already_in: int = 0  # the item's pages other runs landed, found in its notebook

    def to_json(self) -> dict[str, Any]:
        return {
            "item_id": self.item_id,
            "state": str(self.state),
            "notebook_id": self.notebook_id,
            "source_ids": list(self.source_ids),
            "page_count": self.page_count,
            "pages_landed": self.pages_landed,
            "pages_already_in": self.pages_already_in,
            "skipped_sources": list(self.skipped_sources),
            "skip_classification": None
            if self.skip_classification is None
            else str(self.skip_classification),
            "failure": None
            if self.failure_code is None
            else {"code": self.failure_code, "message": self.failure_message},
            "updated_at": self.updated_at,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ItemOutcome:
        failure = d.get("failure") or {}
        page_count = int(d.get("page_count", 0))
        # Records written before checkpoints: a committed item landed all its pages.
        landed = d.get("pages_landed", page_count if d["state"] == ItemState.COMMITTED else 0)
        return cls(
            item_id=d["item_id"],
            state=ItemState(d["state"]),
            notebook_id=d["notebook_id"],
            source_ids=tuple(d.get("source_ids", ())),
            page_count=page_count,
            skipped_sources=tuple(d.get("skipped_sources", ())),
            skip_classification=_skip_reason(d.get("skip_classification")),
            failure_code=failure.get("code"),
            failure_message=failure.get("message"),
            updated_at=d.get("updated_at", ""),
            pages_landed=int(landed),
            pages_already_in=int(d.get("pages_already_in", 0)),
        )


@dataclass(frozen=True)
class RunRecord:
    """A read-only view of one run record as loaded."""

    doc: dict[str, Any]

    run_id = DocField("import_run_id", str)
    status = DocField("status", RunStatus)
    attempt = DocField("attempt", int)
    plan_id = DocField("plan_id", str)
    plan_fingerprint = DocField("plan_fingerprint", str)
    cancel_requested = DocField("cancel_requested", bool, default=False)
    created_at = DocField("created_at", str)

    def outcomes(self) -> dict[str, ItemOutcome]:
        return {d["item_id"]: ItemOutcome.from_json(d) for d in self.doc["items"]}

    def counts(self) -> dict[str, int]:
        out = {s.value: 0 for s in ItemState}
        for d in self.doc["items"]:
            out[d["state"]] += 1
        return out

    def summary(self) -> dict[str, Any]:
        return {
            "import_run_id": self.run_id,
            "plan_id": self.plan_id,
            "status": str(self.status),
            "attempt": self.attempt,
            "created_at": self.created_at,
            "updated_at": self.doc.get("updated_at"),
            "counts": self.counts(),
            "pages_committed": sum(
                d.get("page_count", 0)
                for d in self.doc["items"]
                if d["state"] == ItemState.COMMITTED
            ),
        }


def terminal_status(outcomes: list[ItemOutcome], cancelled: bool) -> RunStatus:
    """The contract's table of terminal statuses, from the items' final states."""
    committed = sum(o.state is ItemState.COMMITTED for o in outcomes)
    failed = sum(o.state is ItemState.FAILED for o in outcomes)
    unfinished = sum(o.state in (ItemState.PENDING, ItemState.CANCELLED_PENDING) for o in outcomes)
    if cancelled:
        return RunStatus.CANCELLED_WITH_COMMITS if committed else RunStatus.CANCELLED
    if failed == 0 and unfinished == 0:
        return RunStatus.COMPLETE
    if committed:
        return RunStatus.PARTIAL
    return RunStatus.FAILED


def settle_unfinished(outcomes: Iterable[ItemOutcome], at: str) -> list[ItemOutcome]:
    """A run's outcomes as it ends: items still pending become ``cancelled_pending``."""
    return [
        o if o.state.final else replace(o, state=ItemState.CANCELLED_PENDING, updated_at=at)
        for o in outcomes
    ]


def is_interrupted(record: RunRecord, locked: bool) -> bool:
    """Interrupted (resumable): not terminal and no process holds its run lock."""
    return not record.status.terminal and not locked


def same_plan(record: RunRecord, plan: ImportPlan) -> bool:
    """The contract's idempotent equality: plan_id, fingerprint, policy and item set all equal."""
    return (
        record.plan_id == plan.plan_id
        and record.plan_fingerprint == plan.fingerprint
        and record.doc["import_policy_id"] == plan.import_policy_id
        and sorted(record.doc["item_ids"]) == sorted(it.item_id for it in plan.items)
    )


def continues(record: RunRecord) -> bool:
    """A commit of the same plan continues this run: it is live, or complete (a no-op)."""
    return not record.status.terminal or record.status is RunStatus.COMPLETE


# -- executing a run: control, events, result ----------------------------------------------


class RunControl:
    """Stop requests from the caller (window buttons, signal handlers); thread-safe.

    ``hold`` is asked while a person is asked whether to stop: no item starts and no
    notebook goes past its next checkpoint until ``release``, a cancel or a pause, so what
    the question says is left out is still left out when it is answered.
    """

    def __init__(self) -> None:
        self._cancel = threading.Event()
        self._pause = threading.Event()
        self._answered = threading.Condition()
        self._held = False

    def cancel(self) -> None:
        self._cancel.set()
        self._wake()

    def pause(self) -> None:
        self._pause.set()
        self._wake()

    def hold(self) -> None:
        with self._answered:
            self._held = True

    def release(self) -> None:
        with self._answered:
            self._held = False
            self._answered.notify_all()

    def _wake(self) -> None:
        with self._answered:
            self._answered.notify_all()

    @property
    def held(self) -> bool:
        return self._held and not self.cancelled and not self.paused

    def wait_while_held(self, timeout: float) -> bool:
        """Wait until released (or cancelled, or paused), at most ``timeout`` seconds;
        whether it is still held."""
        with self._answered:
            self._answered.wait_for(lambda: not self.held, timeout)
        return self.held

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    @property
    def paused(self) -> bool:
        return self._pause.is_set()


class EventKind(enum.StrEnum):
    RUN_STARTED = "run_started"
    ITEM_STARTED = "item_started"
    ITEM_FINISHED = "item_finished"
    # A checkpoint of the item landed: ``pages_done`` counts its pages (and ``outcome`` is
    # the item's pending outcome with what has landed so far).
    PAGES_LANDED = "pages_landed"
    # Pages of the item's checkpoint in flight were staged: ``pages_staged`` counts them (they
    # land with it, or a crash or a stop rolls them back); ``outcome`` is as it stands.
    PAGES_STAGED = "pages_staged"
    RUN_FINISHED = "run_finished"
    RUN_PAUSED = "run_paused"
    # Another commit holds the duplicates lock (planning/dedupe.py): this one waits for it
    # before it decides anything.
    WAITING_FOR_CORPUS = "waiting_for_corpus"
    # The run is held (RunControl.hold: a person is asked whether to stop): a lane waits
    # there, before its next item or its item's next checkpoint, until the answer.
    HELD = "held"


@dataclass(frozen=True)
class RunEvent:
    kind: EventKind
    run_id: str
    item_id: str | None = None
    outcome: ItemOutcome | None = None
    pages_done: int = 0
    pages_total: int = 0
    status: RunStatus | None = None
    pages_staged: int = 0  # PAGES_STAGED: the item's pages staged in its checkpoint in flight


@dataclass(frozen=True)
class RunResult:
    run_id: str
    status: RunStatus  # RUNNING when paused or stopped before the end: resumable
    record: RunRecord
    paused: bool = False
    superseded: bool = False
    already_done: bool = False  # the run was terminal before this call: nothing was executed
    # Committed items whose pages are no longer in their notebook (found on resume): reported,
    # never recreated, since the ImportRun record wins for idempotency (boundary 6).
    verification_problems: tuple[str, ...] = ()
    # A machine-wide error (a full disk, an I/O error, a busy corpus) stopped the run: what
    # it said. The run is left resumable; the item in flight was rolled back.
    stopped_by: str | None = None
