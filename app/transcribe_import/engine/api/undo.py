"""Undoing a run as a group, its preview, and the trash it fills: the use cases of *revert*."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.ids import MIN_ID_PREFIX, ShortIds, ids_by_prefix, is_valid_id
from transcribe_import.engine.runs import undo_recovery
from transcribe_import.engine.runs.model import RunStatus
from transcribe_import.engine.runs.restore import LeftTrash, RestoreResult, purge_entry, restore_run
from transcribe_import.engine.runs.revert import RevertPlan, plan_revert
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.runs.undo import RevertResult, revert_run
from transcribe_import.engine.runs.undo_findings import half_done
from transcribe_import.engine.storage import trash
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.engine.storage.trash import TrashEntry


@dataclass(frozen=True)
class RevertPreview:
    """What undoing a run would take out, and what blocks it (nothing is changed)."""

    plan: RevertPlan
    already_reverted: bool  # the run was undone before: a revert now is a no-op
    revert_id: str | None  # the earlier revert's, when already reverted
    unfinished: str | None  # the revert id of an undo a killed process left half done


def preview_revert(corpus: Corpus, run_id: str, leave_blocked: bool = False) -> RevertPreview:
    """``revert --dry-run`` and the window's preview: read only. ``leave_blocked``: the undo
    of the notebooks nothing blocks, the blocked ones kept (its plan's ``held``)."""
    record = RunStore(corpus).load(run_id)
    if record.status is RunStatus.REVERTED:
        done = record.doc.get("revert") or {}
        plan = RevertPlan(run_id, record.status, (), ())
        return RevertPreview(plan, True, done.get("revert_id"), None)
    pending = record.doc.get("revert") or {}
    unfinished = pending.get("revert_id") if pending.get("state") == "requested" else None
    plan = plan_revert(corpus, run_id)
    return RevertPreview(plan.free_part() if leave_blocked else plan, False, None, unfinished)


def revert(
    corpus: Corpus,
    run_id: str,
    should_stop: Callable[[], bool] | None = None,
    *,
    leave_blocked: bool = False,
) -> RevertResult:
    """Undo ``run_id`` as a group (``RevertBlocked`` when refused: nothing was changed, or
    its ``earlier`` says what was done first to an earlier undo of the run left half done).

    ``should_stop`` (a signal asked to stop) ends it between two moves, ``REVERT_STOPPED``.
    ``leave_blocked``: undo the notebooks nothing blocks, the blocked ones left in place
    (the result's ``plan.held`` says which and why; the run keeps its status)."""
    if should_stop is None:
        return revert_run(corpus, run_id, leave_blocked=leave_blocked)
    return revert_run(corpus, run_id, should_stop, leave_blocked=leave_blocked)


def free_to_undo(plan: RevertPlan) -> RevertPlan | None:
    """The undo of the notebooks of a refused ``plan`` that nothing blocks, when there are
    such notebooks and others are blocked (None: all or nothing, as the plan says)."""
    free = plan.free_part()
    return free if free.partial else None


def unfinished_undos(corpus: Corpus, run_id: str | None = None) -> list[str]:
    """Each undo half done (being done right now, or stopped), in words: a listing of the
    corpus's notebooks or runs says them, for they are half moved until it ends."""
    named = undo_recovery.named(corpus)
    return [u.words(*named) for u in half_done(corpus) if run_id is None or u.run_id == run_id]


def list_trash(corpus: Corpus) -> tuple[list[TrashEntry], list[TranscribeError]]:
    """What reverts put in the trash, newest last, and the entries that cannot be read."""
    return trash.list_trash(corpus)


def revert_short_ids(corpus: Corpus) -> ShortIds:
    """How every line names a trash entry (a revert): as ``run_short_ids`` names runs."""
    return trash.short_ids(corpus)


def _revert_ids(corpus: Corpus) -> list[str]:
    """Every trash entry's revert id, those being purged included, each once."""
    return sorted({*trash.revert_ids(corpus), *(rid for rid, _folder in trash.purging(corpus))})


def resolve_revert_id(corpus: Corpus, key: str) -> str:
    """The revert id ``key`` is or begins, among the trash's entries (as a RUN_ID is
    shortened: base/ids.ids_by_prefix); ``trash_not_found`` when none, or several (listed).
    A whole id is returned as it is, so the command's own words say what became of it."""
    if is_valid_id(key):
        return key
    found = ids_by_prefix(key, _revert_ids(corpus))
    if len(found) == 1:
        return found[0]
    if not found:
        raise TranscribeError(
            ErrorCode.TRASH_NOT_FOUND,
            f"No trash entry {key!r}: a revert id, or its first {MIN_ID_PREFIX} characters or "
            "more, is needed; `transcribe-import trash` lists them.",
            item=key,
        )
    raise TranscribeError(
        ErrorCode.TRASH_NOT_FOUND,
        f"{key!r} begins {len(found)} trash entries ({', '.join(sorted(found))}); give more of "
        "the revert id.",
        item=key,
    )


def restore_from_trash(corpus: Corpus, revert_id: str) -> RestoreResult | LeftTrash:
    """Put back the run a trash entry undid (refused by name where later work collides); an
    entry put back already says so (``LeftTrash``). ``revert_id`` may be shortened."""
    return restore_run(corpus, resolve_revert_id(corpus, revert_id))


def purge_trash(corpus: Corpus, revert_id: str) -> TrashEntry | LeftTrash:
    """Delete one trash entry for good (a person's explicit, confirmed request); one gone
    already (deleted, or its run put back) says so (``LeftTrash``). ``revert_id`` may be
    shortened."""
    return purge_entry(corpus, resolve_revert_id(corpus, revert_id))
