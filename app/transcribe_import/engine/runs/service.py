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
from transcribe_import.engine.ingest.held import source_hashes
from transcribe_import.engine.ingest.recovery import recover_journal
from transcribe_import.engine.ingest.transaction import NewNotebook, recover_creation
from transcribe_import.engine.planning.dedupe import CorpusHashIndex, classify, corpus_index_for
from transcribe_import.engine.planning.plan import (
    Duplicate,
    ImportPlan,
    Op,
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
from transcribe_import.engine.runs.store import RunStore, run_short_ids
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
                f"Plan {plan.plan_id} was already committed as run "
                f"{run_short_ids(corpus)(r.run_id)} with different "
                "contents; a plan is frozen once committed. Make a new plan for the changes.",
                item=r.run_id,
            )
        same.append(r)
    for r in same:
        if continues(r):
            return r, True
    retry_of = same[0].run_id if same else None
    return store.create(plan, discovery, retry_of=retry_of), False


def recover_dead_journals(corpus: Corpus, plan: ImportPlan, run_id: str) -> list[Finding]:
    """Finish or undo what a dead attempt left in the plan's notebooks; what was done.

    Ingest journals by their state; a new notebook's creation by boundaries 1 and 2 (a
    folder renamed in but not registered is registered, a hidden creation folder is
    removed: its checkpoint in flight is imported again).
    """
    for it in plan.items:
        if it.op is Op.CREATE_NOTEBOOK:
            recover_creation(corpus, it.notebook_id, new_notebook_for(it, run_id))
    return _recover_in(corpus, [it.notebook_id for it in plan.items])


def _recover_in(corpus: Corpus, notebook_ids: list[str]) -> list[Finding]:
    found: list[Finding] = []
    for nbid in dict.fromkeys(notebook_ids):
        if fsio.exists(corpus.notebook_dir(nbid)):
            found += recover_journal(corpus, nbid)
    return found


def new_notebook_for(item: PlanItem, run_id: str) -> NewNotebook:
    """The notebook a ``create_notebook`` item's first checkpoint creates (a bag's with its
    project.json keys, restore.manifest)."""
    extra = dict(item.restore.manifest) if item.restore else None
    if extra is None and "notebook" in item.provenance:
        # A bag another tool made: its bag-info.txt (adapters/foreign_bag.py).
        extra = {"provenance": item.provenance["notebook"]}
    return NewNotebook(item.title or "Untitled", import_run_id=run_id, extra=extra)


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
    if not locks.take_unless_owned(lock):
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
        recover_dead_journals(corpus, plan, run_id)
        outcomes = record.outcomes()
        corpus_index: list[CorpusHashIndex] = []
        for item in plan.items:
            if not outcomes[item.item_id].state.final:
                landed = _landed_outcome(corpus, plan, item, outcomes[item.item_id], corpus_index)
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
    """What of an unfinished item is in its notebook, found by ids, without its plan.

    Items land in checkpoints, and without the plan nothing says whether all of an item's
    sources are in: what landed is kept and counted (``pages_landed``), and the item stays
    unfinished, so the cancel settles it as ``cancelled_pending``, never ``committed``.
    """
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
    ids = {str(s["id"]) for s in landed}
    pages = sum(1 for p in manifest["pages"] if isinstance(p, dict) and p.get("source_id") in ids)
    return replace(
        o,
        source_ids=tuple(str(s["id"]) for s in landed),
        pages_landed=pages,
        updated_at=utc_now(),
    )


def _landed_outcome(
    corpus: Corpus,
    plan: ImportPlan,
    item: PlanItem,
    recorded: ItemOutcome,
    corpus_index: list[CorpusHashIndex],
) -> ItemOutcome | None:
    """What of an unfinished item is in its notebook, as its outcome; None if nothing is.

    An item lands in checkpoints, so its notebook may hold some of its sources: each
    planned source is either there, or a duplicate skipped at commit time (judged as
    the executor judges it: the notebook holds its bytes as another source, the
    record's pending outcome says so, or, for a corpus-wide check, another notebook
    holds them), or not landed. All there or skipped: ``committed`` (boundary 6: its
    ingest landed before its outcome was written). Some there: ``pending`` with what
    landed, which the cancel settles as ``cancelled_pending`` with its pages counted.
    """
    try:
        manifest = project.read(corpus.notebook_dir(item.notebook_id), item.notebook_id)
    except TranscribeError:
        return None  # no loadable notebook: nothing landed (doctor reports a broken one)
    have = project.ids_of(manifest).landed
    # A source with any page in landed (a long one may have landed only some of its pages).
    landed = [s for s in item.imported_sources() if any(p.page_id in have for p in s.pages)]
    if not landed:
        return None
    held = source_hashes(manifest)
    recorded_skips = {str(d.get("source_id")): d for d in recorded.skipped_sources}
    if not corpus_index:  # read once for all the items a cancel counts, when one needs it
        index = corpus_index_for(corpus, plan.policy, [item.dedupe_scope])
        if index is not None:
            corpus_index.append(index)
    skipped = [skipped_source(s, s.duplicate) for s in item.planned_skips()]
    missing = []
    for s in item.imported_sources():
        if s in landed:
            if not all(p.page_id in have for p in s.pages):
                missing.append(s)  # its later checkpoints did not land
            continue
        if s.source_id in recorded_skips:
            skipped.append(recorded_skips[s.source_id])
            continue
        why = classify(
            s.sha256,
            policy=plan.policy,
            scope=item.dedupe_scope,
            notebook_id=item.notebook_id,
            in_notebook=held,
            corpus_index=corpus_index[0] if corpus_index else None,
            source_id=s.source_id,
        )
        if why is None:
            missing.append(s)
        else:
            skipped.append(skipped_source(s, why))
    pages = sum(1 for s in landed for p in s.pages if p.page_id in have)
    return ItemOutcome(
        item.item_id,
        ItemState.PENDING if missing else ItemState.COMMITTED,
        item.notebook_id,
        tuple(s.source_id for s in landed),
        0 if missing else pages,
        tuple(skipped),
        updated_at=utc_now(),
        pages_landed=pages,
    )
