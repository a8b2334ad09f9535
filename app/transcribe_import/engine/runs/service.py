"""The run service: bind a plan to its run, end a run nobody executes, recover before work.

What happens around an execution (executor.py), decided once here: which run a commit
of a plan continues (the contract's idempotent equality), how a cancel of an
interrupted run counts what landed, and the recovery of journals a dead attempt left.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from transcribe_import.engine.base.clock import utc_now
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.findings import Finding
from transcribe_import.engine.ingest.recovery import recover_journal
from transcribe_import.engine.planning.dedupe import classify
from transcribe_import.engine.planning.plan import (
    DedupeScope,
    Duplicate,
    DuplicatePolicy,
    ImportPlan,
    PlanItem,
    PlanSource,
)
from transcribe_import.engine.runs.model import (
    ItemOutcome,
    ItemState,
    RunCorrupt,
    RunRecord,
    continues,
    same_plan,
    settle_unfinished,
    terminal_status,
)
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage import fsio, locks, project

if TYPE_CHECKING:
    from transcribe_import.engine.storage.corpus import Corpus


def prepare_run(
    corpus: Corpus, plan: ImportPlan, discovery: dict[str, Any] | None = None
) -> tuple[RunRecord, bool]:
    """The run this commit continues, or a new one: the contract's idempotent equality.

    Returns (record, existing). A run of the same plan_id with a different
    fingerprint, policy or item set means the plan was edited after it was
    committed: refused, since a different plan must not reuse another run's
    outcomes. A non-terminal equal run is continued; a complete one makes the
    commit a no-op; after a partial, failed or cancelled run a new run retries
    (items whose ids already landed are recognised and not imported twice).

    Decided under the corpus lock, looking and creating alike: two processes committing
    one plan at the same moment end with one run, which the second continues (and then
    finds busy while the first executes it) instead of a second run claiming every page.
    """
    with corpus.locked():
        return _prepare_locked(corpus, plan, discovery)


def _prepare_locked(
    corpus: Corpus, plan: ImportPlan, discovery: dict[str, Any] | None
) -> tuple[RunRecord, bool]:
    store = RunStore(corpus)
    same: list[RunRecord] = []
    for r in store.runs_for_plan(plan.plan_id):
        if not same_plan(r, plan):
            raise TranscribeError(
                ErrorCode.PLAN_FROZEN,
                f"Plan {plan.plan_id} was already committed as run {r.run_id} with different "
                "contents; a plan is frozen once committed. Make a new plan for the changes.",
                item=r.run_id,
            )
        same.append(r)
    for r in same:
        if continues(r):
            return r, True
    retry_of = same[0].run_id if same else None
    return store.create(plan, discovery, retry_of=retry_of), False


def recover_dead_journals(corpus: Corpus, plan: ImportPlan) -> list[Finding]:
    """Finish or undo the ingest journals a dead attempt left in the plan's notebooks."""
    return _recover_in(corpus, [it.notebook_id for it in plan.items])


def _recover_in(corpus: Corpus, notebook_ids: list[str]) -> list[Finding]:
    found: list[Finding] = []
    for nbid in dict.fromkeys(notebook_ids):
        if fsio.exists(corpus.notebook_dir(nbid)):
            found += recover_journal(corpus, nbid)
    return found


def skipped_source(s: PlanSource, why: Duplicate | None) -> dict[str, str | None]:
    """How an outcome names a source skipped as a duplicate, and why."""
    return {
        "source_id": s.source_id,
        "name": s.provenance.rel,
        "classification": None if why is None else str(why),
    }


def cancel_run(corpus: Corpus, run_id: str) -> RunRecord:
    """Ask for a run to stop. An interrupted run (no executor) is ended here and now."""
    store = RunStore(corpus)
    record = store.request_cancel(run_id)
    lock = store.run_lock(run_id)
    if not locks.try_acquire(lock):
        return record  # the executing process sees the request at its next safe point
    try:
        record = store.load(run_id)
        if record.status.terminal:
            return record
        # No executor will come back for this run: finish or undo what its dead attempt left
        # half-done, as a resume would, and count an item whose ingest landed before its
        # outcome was written (boundary 6) as committed, so `cancelled` never hides pages.
        try:
            plan = store.load_plan(run_id, record)
        except RunCorrupt as exc:
            return _cancel_without_plan(corpus, store, record, exc)
        recover_dead_journals(corpus, plan)
        outcomes = record.outcomes()
        for item in plan.items:
            if not outcomes[item.item_id].state.final:
                landed = _landed_outcome(corpus, item)
                if landed is not None:
                    record = store.record_outcome(run_id, record.attempt, landed)
        final = settle_unfinished(record.outcomes().values(), utc_now())
        return store.finish(run_id, None, terminal_status(final, cancelled=True))
    finally:
        lock.release()


def _cancel_without_plan(
    corpus: Corpus, store: RunStore, record: RunRecord, why: RunCorrupt
) -> RunRecord:
    """End a run whose frozen plan is damaged: a run must always be endable.

    The record names every item's notebook, and each source a run lands carries the run's
    and the item's ids in project.json: enough to finish its dead journals and count what
    landed, without the plan.
    """
    run_id = record.run_id
    _recover_in(corpus, [o.notebook_id for o in record.outcomes().values()])
    for o in record.outcomes().values():
        if not o.state.final:
            landed = _landed_by_ids(corpus, run_id, o)
            if landed is not None:
                record = store.record_outcome(run_id, record.attempt, landed)
    final = settle_unfinished(record.outcomes().values(), utc_now())
    note = {
        "code": str(why.code),
        "message": f"Ended without its frozen plan, which is damaged ({why.path}): items were "
        "counted from the notebooks' project.json.",
    }
    return store.finish(run_id, None, terminal_status(final, cancelled=True), errors=[note])


def _landed_by_ids(corpus: Corpus, run_id: str, o: ItemOutcome) -> ItemOutcome | None:
    """The committed outcome of an item whose sources are in its notebook, found by ids."""
    try:
        manifest = project.read(corpus.notebook_dir(o.notebook_id), o.notebook_id)
    except TranscribeError:
        return None
    landed = [
        s
        for s in manifest["sources"]
        if isinstance(s, dict) and (s.get("import_run_id"), s.get("item_id")) == (run_id, o.item_id)
    ]
    if not landed:
        return None
    return replace(
        o,
        state=ItemState.COMMITTED,
        source_ids=tuple(str(s["id"]) for s in landed),
        page_count=sum(int(s.get("page_count") or 0) for s in landed),
        updated_at=utc_now(),
    )


def _landed_outcome(corpus: Corpus, item: PlanItem) -> ItemOutcome | None:
    """The committed outcome of an item whose ingest is in its notebook, else None.

    One item is one ingest transaction, so any of its source ids in the manifest means
    the whole transaction landed; its other sources were skipped as duplicates.
    """
    try:
        manifest = project.read(corpus.notebook_dir(item.notebook_id), item.notebook_id)
    except TranscribeError:
        return None  # no loadable notebook: nothing landed (doctor reports a broken one)
    ids = project.ids_of(manifest).sources
    landed = [s for s in item.imported_sources() if s.source_id in ids]
    if not landed:
        return None
    # The rest were skipped at commit time; say why as the executor would have.
    held = {
        str(s["sha256"]): str(s["id"])
        for s in manifest["sources"]
        if isinstance(s, dict) and "sha256" in s and "id" in s
    }
    skipped = [skipped_source(s, s.duplicate) for s in item.planned_skips()]
    for s in item.imported_sources():
        if s not in landed:
            why = classify(
                s.sha256,
                policy=DuplicatePolicy.SKIP_EXISTING,
                scope=DedupeScope.NOTEBOOK,
                notebook_id=item.notebook_id,
                in_notebook=held,
                source_id=s.source_id,
            )
            skipped.append(skipped_source(s, why or Duplicate.IN_CORPUS))
    return ItemOutcome(
        item.item_id,
        ItemState.COMMITTED,
        item.notebook_id,
        tuple(s.source_id for s in landed),
        sum(len(s.pages) for s in landed),
        tuple(skipped),
        updated_at=utc_now(),
    )
