"""Runs as a person reads them: the list, one run with its outcomes, the interrupted ones."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from transcribe_import.engine.api.plans import NotImported, found_not_imported
from transcribe_import.engine.api.run_state import (
    LandedPages,
    RunCounts,
    RunState,
    paused_last,
    run_counts,
    run_state,
)
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.ids import MIN_ID_PREFIX, ShortIds, ids_by_prefix, is_valid_id
from transcribe_import.engine.planning import placement
from transcribe_import.engine.planning.corpus_turns import MODE as TURN_MODE
from transcribe_import.engine.planning.corpus_turns import item_turns
from transcribe_import.engine.planning.plan import ImportPlan, Op
from transcribe_import.engine.runs.model import (
    HistoryEvent,
    ItemOutcome,
    ItemState,
    RunRecord,
    RunResult,
    RunStatus,
)
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage.corpus import Corpus


def run_short_ids(corpus: Corpus) -> ShortIds:
    """How every line names a run of this corpus: the 8 characters, more where two runs
    share them (base/ids.short_id)."""
    return RunStore(corpus).short_ids()


def resolve_run_id(corpus: Corpus, key: str) -> str:
    """The run id ``key`` is or begins; ``run_not_found`` when none, or several (listed).

    A whole id is returned as it is, found or not, so the command's own words say that it
    is not there.
    """
    if is_valid_id(key):
        return key
    store = RunStore(corpus)
    found = ids_by_prefix(key, store.run_ids())
    if len(found) == 1:
        return found[0]
    if not found:
        raise TranscribeError(
            ErrorCode.RUN_NOT_FOUND,
            f"No import run {key!r} in {store.dir}: a run id, or its first "
            f"{MIN_ID_PREFIX} characters or more, is needed; `transcribe-import runs` lists them.",
            item=key,
        )
    raise TranscribeError(
        ErrorCode.RUN_NOT_FOUND,
        f"{key!r} begins {len(found)} import runs ({', '.join(sorted(found))}); give more of "
        "the run id.",
        item=key,
    )


@dataclass(frozen=True)
class RunSummary:
    """One import run as a list shows it (a copy: the record's dict stays behind)."""

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
    # Its last transition was a person's Pause, not a crash (the record's history says so).
    paused: bool = False
    # What the corpus holds of it (run_state.run_counts): the one count every face says.
    counts: RunCounts = RunCounts()
    # Some of its notebooks were undone, the blocked ones left (revert --leave-blocked).
    partly_undone: bool = False
    # A turn of pages in the corpus (``turn``, the library's Turn), not an import.
    turn: bool = False

    @property
    def state(self) -> RunState:
        """Live, paused, interrupted or ended: the one rule, run_state.run_state."""
        return run_state(self.status, locked=not self.interrupted, paused=self.paused)

    @property
    def pages_landed(self) -> int:
        """Pages of the run in the corpus, unfinished items' included (checkpoints)."""
        return self.counts.pages_landed

    @classmethod
    def of(cls, record: RunRecord, interrupted: bool, counts: RunCounts) -> RunSummary:
        counted = record.counts()
        roots = record.doc.get("discovery", {}).get("roots") or ()
        return cls(
            run_id=record.run_id,
            status=record.status,
            interrupted=interrupted,
            created_at=record.created_at,
            updated_at=str(record.doc.get("updated_at") or record.created_at),
            attempt=record.attempt,
            committed=counted[ItemState.COMMITTED],
            skipped=counted[ItemState.SKIPPED],
            failed=counted[ItemState.FAILED],
            not_done=counted[ItemState.PENDING] + counted[ItemState.CANCELLED_PENDING],
            pages_committed=int(record.summary()["pages_committed"]),
            roots=tuple(str(r) for r in roots if isinstance(r, str)),
            paused=paused_last(record),
            counts=counts,
            partly_undone=_partly_undone(record),
            turn=_is_turn(record),
        )

    def to_json(self, record: RunRecord) -> dict[str, Any]:
        return {**record.summary(), **self.state_json()}

    def state_json(self) -> dict[str, Any]:
        """The keys every run's JSON carries: its state and the corpus's counts of it."""
        return {
            "pages_landed": self.pages_landed,  # the corpus's count, not the outcomes log's
            "interrupted": self.interrupted,
            "state": str(self.state),
            "run_counts": self.counts.to_json(),
            # What the text's "complete, partly undone" says: undone but its blocked notebooks.
            "partly_undone": self.partly_undone,
        }


def _is_turn(record: RunRecord) -> bool:
    """Whether the run turned pages in the corpus (``turn``, the library's Turn)."""
    return bool(record.doc.get("discovery", {}).get("mode") == TURN_MODE)


def is_turn(corpus: Corpus, run_id: str) -> bool:
    """Whether run ``run_id`` is a turn of pages in the corpus, not an import (its undo
    brings the pages back as they were)."""
    return _is_turn(RunStore(corpus).load(run_id))


def run_summary(corpus: Corpus, record: RunRecord) -> RunSummary:
    """One run's summary as it stands now: its lock tried, its notebooks read."""
    record, interrupted = RunStore(corpus).as_it_stands(record)
    return RunSummary.of(record, interrupted, run_counts(corpus, record))


def result_summary(corpus: Corpus, result: RunResult) -> RunSummary:
    """The summary of a run this process has just executed, as it stopped.

    Its lock is not tried: this process has let it go (and a full disk may leave no room
    for the lock file); another process holds it only if that one took the run over.
    """
    record = result.record
    interrupted = not record.status.terminal and not result.superseded
    return RunSummary.of(record, interrupted, run_counts(corpus, record))


@dataclass(frozen=True)
class OutcomeRow:
    """One plan item with its outcome so far, as outcome tables show it."""

    item_id: str
    label: str
    op: Op
    notebook_id: str
    pages_planned: int
    outcome: ItemOutcome
    started: bool = False  # being committed right now (an item_started event arrived)
    pages_staged: int = 0  # of its checkpoint in flight: staged, not landed yet (while started)
    # Of its pages, the rescans that replace a page of the notebook (the rest are added).
    pages_replacing: int = 0
    # A turn of pages in the corpus (``turn``, the library's Turn): each page's turn,
    # degrees clockwise; its pages replace the pages they turn. () for any other item.
    turns: tuple[int, ...] = ()

    @property
    def state(self) -> ItemState:
        return self.outcome.state

    def with_outcome(self, outcome: ItemOutcome) -> OutcomeRow:
        return replace(self, outcome=outcome, started=False, pages_staged=0)


def outcome_rows(plan: ImportPlan, record: RunRecord) -> list[OutcomeRow]:
    outcomes = record.outcomes()
    return [
        OutcomeRow(
            it.item_id,
            it.label,
            it.op,
            it.notebook_id,
            it.imported_page_count(),
            outcomes[it.item_id],
            pages_replacing=it.imported_page_count() - placement.added_pages(it),
            turns=tuple(int(t) for t in item_turns(it)),
        )
        for it in plan.items
    ]


def _partly_undone(record: RunRecord) -> bool:
    revert = record.doc.get("revert")
    return (
        isinstance(revert, dict) and revert.get("state") == "done" and bool(revert.get("partial"))
    )


@dataclass(frozen=True)
class RunListing:
    summary: RunSummary
    record: RunRecord


def list_runs(corpus: Corpus) -> list[RunListing]:
    """Every readable run, newest first, each told interrupted or not."""
    store = RunStore(corpus)
    landed = LandedPages(corpus)  # a notebook two runs share is read once
    listed = [store.as_it_stands(r) for r in store.list_runs()]
    return [
        RunListing(RunSummary.of(r, interrupted, run_counts(corpus, r, landed)), r)
        for r, interrupted in listed
    ]


def run_listing_problems(corpus: Corpus) -> list[str]:
    """Why a run listing is incomplete: each run record that cannot be read, and what to do."""
    _records, damaged = RunStore(corpus).read_all()
    return [str(exc).rstrip(".") for exc in damaged]  # each names the file and says: doctor


def interrupted_runs(corpus: Corpus) -> list[RunSummary]:
    """Runs no process executes that have not ended: the ones to resume or cancel."""
    store = RunStore(corpus)
    landed = LandedPages(corpus)
    listed = [store.as_it_stands(r) for r in store.list_runs()]
    return [
        RunSummary.of(r, True, run_counts(corpus, r, landed))
        for r, interrupted in listed
        if interrupted
    ]


@dataclass(frozen=True)
class RunDetail:
    summary: RunSummary
    record: RunRecord
    plan: ImportPlan
    rows: tuple[OutcomeRow, ...]
    # What its scan found and its plan did not import, each with why (plans.found_not_imported).
    not_imported: tuple[NotImported, ...] = ()


def show_run(corpus: Corpus, run_id: str) -> RunDetail:
    """One run with its frozen plan and every item's outcome."""
    store = RunStore(corpus)
    record, interrupted = store.as_it_stands(store.load(run_id))
    plan = store.load_plan(run_id, record)
    landed = LandedPages(corpus)
    summary = RunSummary.of(record, interrupted, run_counts(corpus, record, landed))
    rows = tuple(_as_on_disk(outcome_rows(plan, record), record.run_id, landed))
    return RunDetail(summary, record, plan, rows, tuple(found_not_imported(plan)))


def _as_on_disk(rows: list[OutcomeRow], run_id: str, landed: LandedPages) -> list[OutcomeRow]:
    """Each unfinished item's pages landed as its notebook holds them (the one count, as the
    run's counts say them): a checkpoint a kill left and doctor finished from its journal is
    in the notebook, though the record's outcome, written before the kill, does not say so."""
    out = []
    for row in rows:
        o = row.outcome
        here = landed.of_item(run_id, o.item_id, o.notebook_id)
        gone = landed.replaced_of_item(run_id, o.item_id, o.notebook_id)
        if o.state is ItemState.COMMITTED or here is None or gone is None:
            out.append(row)  # committed: its page_count; unreadable: the record's own count
        else:
            out.append(replace(row, outcome=replace(o, pages_landed=here + gone)))
    return out


@dataclass(frozen=True)
class HistoryEntry:
    """One transition of a run, as its record's audit history keeps it."""

    event: HistoryEvent
    status: RunStatus | None  # the status a run ended with (event ENDED)
    recorded: str  # the event as the record spells it (what an UNKNOWN one said)
    at: str
    attempt: int
    actor: str  # the app that made the transition (older records: the OS user)
    requested_by: str | None  # the person who asked: created, cancel and revert requests
    detail: dict[str, Any]  # retry_of, retry_run_id, revert_id, why


def history_event(value: object) -> tuple[HistoryEvent, RunStatus | None, str]:
    """An audit entry's ``event`` as recorded, read: its kind, and the status a run ended with.

    ``reverted`` is both a status and its own kind: the kind wins (the one later transition).
    """
    recorded = str(value)
    try:
        event = HistoryEvent(recorded)
    except ValueError:
        event = HistoryEvent.UNKNOWN
    if event in (HistoryEvent.ENDED, HistoryEvent.UNKNOWN):  # never written as such
        try:
            return HistoryEvent.ENDED, RunStatus(recorded), recorded
        except ValueError:
            return HistoryEvent.UNKNOWN, None, recorded
    return event, None, recorded


def run_history(record: RunRecord) -> list[HistoryEntry]:
    """The run's audit history, oldest first (records from before ``actor`` read too)."""
    out = []
    for h in record.doc.get("history") or []:
        if not isinstance(h, dict):
            continue
        actor = h.get("actor")
        event, status, recorded = history_event(h.get("event"))
        out.append(
            HistoryEntry(
                event=event,
                status=status,
                recorded=recorded,
                at=str(h.get("at")),
                attempt=int(h.get("attempt") or 0),
                actor=f"{actor} {h.get('app_version', '')}".strip() if actor else "",
                requested_by=h.get("requested_by") or h.get("by"),
                detail={
                    k: h[k] for k in ("retry_of", "retry_run_id", "revert_id", "why") if h.get(k)
                },
            )
        )
    return out
