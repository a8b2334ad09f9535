"""The undos left half done, as a listing, an export and doctor must see them: which are
running now, which stopped, and doctor's step that finishes them (``finish_all``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.findings import Finding, FindingCode, Severity
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.runs.undo_journal import (
    pending_id,
)
from transcribe_import.engine.runs.undo_recovery import finish, named
from transcribe_import.engine.storage import fsio, locks, trash
from transcribe_import.engine.storage.corpus import Corpus


@dataclass(frozen=True)
class HalfDone:
    """An undo that is half done: ``live`` when another process is doing it right now."""

    run_id: str
    revert_id: str
    live: bool
    notebook_ids: frozenset[str] | None  # the notebooks of the run's plan (None: unknown)

    def words(self, runs: Callable[[str], str], reverts: Callable[[str], str]) -> str:
        """In words, each id as ``runs`` and ``reverts`` name it (as the lists show them)."""
        run, revert = runs(self.run_id), reverts(self.revert_id)
        if self.live:
            return (
                f"run {run} is being undone right now by another process (trash entry "
                f"{revert}); its notebooks are half moved until it ends"
            )
        return (
            f"the undo of run {run} stopped half way (trash entry {revert}); "
            f"`transcribe-import revert {run}` or `transcribe-import doctor` finishes it"
        )


def half_done(corpus: Corpus) -> list[HalfDone]:
    """Every undo that is half done, being done right now or left by a process that stopped.

    Only reads: a disk that fails here is one coded error, and nothing was changed.
    """
    try:
        return _half_done(RunStore(corpus))
    except OSError as exc:  # the run records (or the guard of their folder) cannot be read
        where = fsio.failed_path(exc, corpus.runs_dir)
        raise fsio.problem_from_oserror(exc, where, "reading the import runs at") from exc


def _half_done(store: RunStore) -> list[HalfDone]:
    out = []
    for record in store.read_all()[0]:
        revert_id = pending_id(record)
        if revert_id is not None:
            try:
                items = store.load_plan(record.run_id, record).items
                notebooks: frozenset[str] | None = frozenset(it.notebook_id for it in items)
            except TranscribeError:
                notebooks = None  # its plan cannot be read: it may have any notebook half moved
            live = store.is_locked(record.run_id)
            out.append(HalfDone(record.run_id, revert_id, live, notebooks))
    return out


def refuse_while_half_done(corpus: Corpus, notebook_ids: list[str], doing: str) -> None:
    """Refuse to ``doing`` these notebooks while an undo has them half moved (nothing done)."""
    for undo in half_done(corpus):
        if undo.notebook_ids is None or undo.notebook_ids & set(notebook_ids):
            said = undo.words(*named(corpus))
            raise TranscribeError(
                ErrorCode.NOTEBOOK_BUSY if undo.live else ErrorCode.REVERT_UNFINISHED,
                f"Cannot {doing} now: {said}. Nothing was done; {doing} again after it.",
                item=undo.run_id,
            )


def moving_now(corpus: Corpus) -> frozenset[str] | None:
    """The notebooks an undo running in another process is moving now (None: any of them)."""
    out: set[str] = set()
    for undo in half_done(corpus):
        if undo.live:
            if undo.notebook_ids is None:
                return None
            out |= undo.notebook_ids
    return frozenset(out)


def finish_all(corpus: Corpus) -> list[Finding]:
    """Every revert an earlier process left half done, finished or undone (doctor's step)."""
    found = []
    store = RunStore(corpus)
    records, _damaged = store.read_all()
    runs, reverts = named(corpus)
    for record in records:
        if not isinstance(record.doc.get("revert"), dict):
            continue
        lock = store.run_lock(record.run_id)
        if not locks.take_unless_owned(lock):
            # Another process holds the run: an undo of it is running, and finishes itself.
            revert_id = pending_id(record)
            if revert_id is not None:
                found.append(_live(runs(record.run_id), reverts(revert_id)))
            continue
        try:
            f = finish(corpus, store.load(record.run_id))
        finally:
            lock.release()
        if f is not None:
            found.append(f)
    finished, running = trash.finish_purges(corpus)
    for revert_id in finished:
        found.append(
            Finding(
                FindingCode.REVERT_FINISHED,
                Severity.REPAIRED,
                f"The purge of trash entry {reverts(revert_id)} was interrupted; it was finished.",
            )
        )
    for revert_id in running:
        found.append(
            Finding(
                FindingCode.PURGE_LIVE,
                Severity.INFO,
                f"Trash entry {reverts(revert_id)} is being purged right now by another "
                "process; left alone.",
            )
        )
    return found


def _live(run: str, revert: str) -> Finding:
    """Doctor's note on an undo running in another process; ``run`` and ``revert`` as shown."""
    return Finding(
        FindingCode.REVERT_LIVE,
        Severity.INFO,
        f"Run {run} is being undone right now by another process (trash entry "
        f"{revert}); left alone: it finishes by itself.",
    )
