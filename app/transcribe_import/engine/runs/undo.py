"""Undo an import run as a group: take what it wrote out of the corpus, into the trash.

What is taken out, and what blocks it, is ``plan_revert``'s answer (revert.py), asked
again under the notebooks' ingest locks so that nothing can change between the check
and the moves. The order, each step crash-safe and replayable:

1. the run record gets ``revert_requested`` (with the revert's id and who asked);
2. the journal ``trash/<revert_id>/revert.json`` (state ``moving``) lists every notebook
   and file the revert takes out, with their hashes: written before anything moves;
3. a notebook the run created is moved whole into the trash; from a notebook it added to,
   project.json is rewritten without the run's sources and pages (its old text kept in
   the trash), then their files are moved;
4. the corpus index loses the notebooks moved whole;
5. the run record becomes ``reverted`` (the one transition after a terminal status);
6. the journal's state becomes ``done``.

A revert killed anywhere is taken up by the next ``revert`` or ``doctor`` (``finish``):
it rolls forward when what is left still matches the run's pages, and otherwise moves
back what it had moved and records the revert ``abandoned``. Either way the corpus holds
all of the run or none of it, and a file is only ever renamed, never copied or deleted.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.runs.model import RunRecord, RunStatus
from transcribe_import.engine.runs.revert import (
    RevertPlan,
    plan_revert,
)
from transcribe_import.engine.runs.store import RunStore, run_short_ids
from transcribe_import.engine.runs.undo_journal import (
    has_journal,
    journal_plan,
    never_stop,
    notebook_locks,
    pending_id,
    roll_forward,
    stopped,
    write_journal,
)
from transcribe_import.engine.runs.undo_recovery import finish
from transcribe_import.engine.storage import fsio, locks, trash
from transcribe_import.engine.storage.corpus import Corpus


class RevertBlocked(TranscribeError):
    """The revert was refused. ``plan`` says what blocks it; ``earlier``: what was done first
    to an earlier undo of the run left half done (None: nothing was changed); ``run``: the run
    as the lists name it (base/ids.short_id; its whole id when not given)."""

    def __init__(
        self, plan: RevertPlan, earlier: str | None = None, *, run: str | None = None
    ) -> None:
        causes = "; ".join(b.message for b in plan.blockers)
        run = run or plan.run_id
        said = f"Run {run} cannot be undone, nothing was changed: {causes}"
        if earlier is not None:
            said = f"Run {run} cannot be undone: {causes}. Before that, {earlier}"
        super().__init__(ErrorCode.REVERT_BLOCKED, said, item=plan.run_id)
        self.plan = plan
        self.earlier = earlier


@dataclass(frozen=True)
class RevertResult:
    """What a revert did: ``already`` when the run had been reverted before (a no-op)."""

    run_id: str
    revert_id: str
    plan: RevertPlan
    already: bool
    trash_dir: Path


def revert_run(
    corpus: Corpus,
    run_id: str,
    should_stop: Callable[[], bool] = never_stop,
    *,
    leave_blocked: bool = False,
) -> RevertResult:
    """Undo ``run_id`` as a group, or finish its revert an earlier process left half done.

    ``leave_blocked``: undo the notebooks nothing blocks and leave the blocked ones in
    place (``RevertPlan.free_part``; the result's ``plan.held`` says which stay and why).

    Raises ``RevertBlocked`` (nothing changed) when later work or a change since stands
    in the way, and ``TranscribeError(NOTEBOOK_BUSY)`` while an import holds a notebook.
    ``should_stop`` is asked before each notebook is moved: when it says so, the revert
    stops there (``REVERT_STOPPED``), its journal left for ``revert`` again or ``doctor``.
    """
    stage = _Stage()
    with _disk_errors(corpus, run_id, stage):
        store = RunStore(corpus)
        store.load(run_id)  # an unknown run is said as such before a lock file is made for it
        with undoing(store, run_id):
            return _revert_held(corpus, store, run_id, stage, should_stop, leave_blocked)


@contextlib.contextmanager
def undoing(store: RunStore, run_id: str) -> Iterator[None]:
    """Hold the run's lock for the whole undo: two reverts of one run never interleave, and
    the one that finds it held says so instead of tripping over the other's moves."""
    lock = store.run_lock(run_id)
    if not locks.take_unless_owned(lock):
        run = run_short_ids(store.corpus)(run_id)  # as `runs` lists it, which `show` takes
        raise TranscribeError(
            ErrorCode.RUN_BUSY,
            f"Run {run} is being undone by another process right now (another `revert`, "
            "or `doctor` finishing one); that one does the undo, so nothing was done here. "
            f"`transcribe-import show {run}` says `reverted` once it is done.",
            item=run_id,
        )
    try:
        yield
    finally:
        lock.release()


def _revert_held(
    corpus: Corpus,
    store: RunStore,
    run_id: str,
    stage: _Stage,
    should_stop: Callable[[], bool],
    leave_blocked: bool,
) -> RevertResult:
    record = store.load(run_id)  # as the revert that held the run before left it
    pending = pending_id(record)
    partly = (record.doc.get("revert") or {}).get("partial") is True
    if record.status is RunStatus.REVERTED or pending is not None or partly:
        stage.started = pending is not None or record.status is RunStatus.REVERTED
        found = finish(corpus, record, should_stop)
        stage.earlier = None if found is None else _lower_first(found.message)
        record = store.load(run_id)
        if record.status is RunStatus.REVERTED:
            revert_id = str(record.doc["revert"]["revert_id"])
            plan = journal_plan(corpus, run_id, revert_id)
            return RevertResult(
                run_id, revert_id, plan, pending is None, trash.entry_dir(corpus, revert_id)
            )
        done = record.doc.get("revert") or {}
        if pending is not None and done.get("revert_id") == pending and done.get("partial"):
            # A partial undo a kill had cut short, finished: that was the undo asked for.
            plan = journal_plan(corpus, run_id, pending)
            still = plan_revert(corpus, run_id).blockers
            held = tuple(b for b in still if b.notebook_id is not None)
            plan = RevertPlan(run_id, record.status, plan.notebooks, (), held)
            return RevertResult(run_id, pending, plan, False, trash.entry_dir(corpus, pending))
    return _revert_anew(corpus, store, record, stage, should_stop, leave_blocked)


def _revert_anew(
    corpus: Corpus,
    store: RunStore,
    record: RunRecord,
    stage: _Stage,
    should_stop: Callable[[], bool],
    leave_blocked: bool,
) -> RevertResult:
    run_id = record.run_id
    with notebook_locks(corpus, store, record) as held:
        plan = plan_revert(corpus, run_id)
        if leave_blocked:
            plan = plan.free_part()
        if not plan.ok:
            raise RevertBlocked(plan, stage.earlier, run=run_short_ids(corpus)(run_id))
        if should_stop():
            raise stopped(corpus, run_id, None)
        revert_id = new_id()
        stage.started = True  # from here the run record may say that an undo was asked
        only = [n.notebook_id for n in plan.notebooks] if plan.partial else None
        store.request_revert(run_id, revert_id, only)
        crashpoint("revert.after_request")
        doc = write_journal(corpus, store.load(run_id), plan, revert_id, plan.partial)
        crashpoint("revert.after_journal")
        roll_forward(corpus, store, doc, held, should_stop)
    return RevertResult(run_id, revert_id, plan, False, trash.entry_dir(corpus, revert_id))


@dataclass
class _Stage:
    """How far a revert got: whether a disk error may have left it half done, and what it
    did first to an earlier undo of the run left half done (doctor's words for it)."""

    started: bool = False
    earlier: str | None = None


@contextlib.contextmanager
def _disk_errors(corpus: Corpus, run_id: str, stage: _Stage) -> Iterator[None]:
    """A disk error of the revert as one coded error saying what it left and what to do."""
    try:
        yield
    except (OSError, TranscribeError) as exc:
        # A store's or a journal's coded disk error says "nothing was changed" of its own
        # write; here the undo may have changed more before it: said again from the disk.
        cause = exc if isinstance(exc, OSError) else exc.__cause__
        if not isinstance(cause, OSError) or (exc is not cause and not stage.started):
            raise
        then = _left_by(corpus, run_id, stage)
        if stage.earlier is not None:
            then += f". Before that, {stage.earlier.rstrip('.')}"
        where = fsio.failed_path(cause, corpus.root)
        raise fsio.problem_from_oserror(
            cause, where, f"undoing run {run_id} at", then=then
        ) from cause


def _left_by(corpus: Corpus, run_id: str, stage: _Stage) -> str:
    """What a revert a disk error cut short left, read back from the disk: the end of the
    sentence "check the disk and …" (what finishes it, and what that does)."""
    if not stage.started:
        return "try again; nothing was changed"
    again = f"run `transcribe-import revert {run_id}` again (or `transcribe-import doctor`)"
    try:
        record = RunStore(corpus).load(run_id)
        pending = pending_id(record)
        moving = pending is not None and has_journal(corpus, pending)
    except (OSError, TranscribeError):  # the disk cannot say: both ways, as they may be
        return (
            f"{again}: the undo stopped before its end, and either finishes it or puts back "
            "what it had moved"
        )
    if record.status is RunStatus.REVERTED:
        return (
            f"{again}: the run was undone, and that writes the undo's last step in its trash entry"
        )
    if pending is None:
        return "try again; this undo changed nothing"
    if not moving:
        return (
            f"{again}: the undo was recorded but nothing was moved yet, and that finishes the "
            "undo (the run is undone then, unless later work stands in its way)"
        )
    return (
        f"{again}: the undo stopped half way, and that finishes it (or puts back what it had "
        "moved, if later work stands in its way)"
    )


def _lower_first(sentence: str) -> str:
    return sentence[:1].lower() + sentence[1:]
