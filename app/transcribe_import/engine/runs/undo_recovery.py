"""Taking up an undo a killed process left: forward when what is left still matches the
run's pages, back when it changed meanwhile (``finish``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from transcribe_import.engine.base.clock import utc_now
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.findings import Finding, FindingCode, Severity
from transcribe_import.engine.base.ids import ShortIds
from transcribe_import.engine.runs.model import RunRecord, RunStatus
from transcribe_import.engine.runs.revert import (
    RevertBlock,
    plan_revert,
)
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.runs.undo_journal import (
    never_stop,
    notebook_locks,
    roll_back,
    roll_forward,
    write_journal,
)
from transcribe_import.engine.storage import trash
from transcribe_import.engine.storage.corpus import Corpus

# -- taking up a revert a killed process left ------------------------------------------------


def finish(
    corpus: Corpus, record: RunRecord, should_stop: Callable[[], bool] = never_stop
) -> Finding | None:
    """Finish or undo the revert of ``record`` an earlier process left; what was done.

    ``should_stop``: as ``revert_run``'s, asked before each notebook is moved forward."""
    store = RunStore(corpus)
    revert = record.doc.get("revert")
    if not isinstance(revert, dict):
        return None
    revert_id = str(revert["revert_id"])
    run_id = record.run_id
    try:
        doc: dict[str, Any] | None = trash.read_journal(corpus, revert_id)
    except TranscribeError as exc:
        if exc.code is not ErrorCode.TRASH_NOT_FOUND:
            raise
        doc = None
    # Undone (a partial undo leaves the status as it was, its ``revert`` done): a kill
    # before the journal's last step leaves only that step.
    if record.status is RunStatus.REVERTED or revert.get("state") == "done":
        if doc is not None and doc.get("state") == trash.MOVING:
            trash.write_journal(corpus, {**doc, "state": trash.DONE, "finished_at": utc_now()})
            return _found(
                corpus, run_id, revert_id, "its last step, the trash entry's state, was done"
            )
        return None
    if revert.get("state") != "requested":
        return None
    with notebook_locks(corpus, store, record) as held:
        plan = plan_revert(corpus, run_id)
        only = revert.get("notebook_ids")
        if isinstance(only, list):  # a partial undo: the notebooks it left are not its own
            plan = plan.only(frozenset(str(n) for n in only))
        blockers = [b for b in plan.blockers if b.code is not RevertBlock.NOTHING_LANDED]
        if doc is None:  # killed before the journal: nothing had moved
            if blockers or not plan.notebooks:
                why = "; ".join(b.message for b in blockers) or "nothing of the run is left"
                store.abandon_revert(run_id, revert_id, why)
                return _found(
                    corpus, run_id, revert_id, f"it had not started and was abandoned: {why}"
                )
            doc = write_journal(corpus, record, plan, revert_id, isinstance(only, list))
            roll_forward(corpus, store, doc, held, should_stop)
            return _found(corpus, run_id, revert_id, "it was finished")
        if blockers:
            why = "; ".join(b.message for b in blockers)
            roll_back(corpus, store, doc, why)
            return _found(corpus, run_id, revert_id, f"it was undone, the run is as it was: {why}")
        roll_forward(corpus, store, doc, held, should_stop)
        return _found(corpus, run_id, revert_id, "it was finished")


def named(corpus: Corpus) -> tuple[ShortIds, ShortIds]:
    """How lines name the runs and the trash entries of ``corpus`` (base/ids.short_id)."""
    return RunStore(corpus).short_ids(), trash.short_ids(corpus)


def _found(corpus: Corpus, run_id: str, revert_id: str, what: str) -> Finding:
    runs, reverts = named(corpus)
    return Finding(
        FindingCode.REVERT_FINISHED,
        Severity.REPAIRED,
        f"The undo of run {runs(run_id)} was interrupted (trash entry {reverts(revert_id)}); "
        f"{what}.",
    )
