"""Put an undone run back from the trash: its revert's moves made the other way round.

The order, each step crash-safe and replayable:

1. the checks, under the run's lock and the ingest locks of the notebooks it touched: the
   entry is the run's last undo and it finished; nothing it would put back collides with
   later work (the place of a notebook taken whole, a notebook it added to that is gone, a
   file of the run missing from the entry, a page of the run imported again since), each
   refused by name with nothing changed;
2. the run record: ``revert.state`` ``restoring`` (``restore_requested`` in its History);
3. the journal ``trash/<revert_id>/revert.json``: state ``restoring``;
4. each notebook moved back by rename (``undo.move_back``, the same step that undoes a
   revert killed half way);
5. the notebooks taken whole registered in the index again;
6. the journal: state ``restored`` (the entry is off the trash's list from here);
7. the run record: the status it ended with is its own again, ``revert.state``
   ``restored`` (``restored`` in its History);
8. the entry, holding nothing of the run any more, purged (or by the next ``doctor``).

A restore killed after step 2 is finished by the next ``trash --restore`` of that entry or
by ``doctor`` (``finish_restores``): every move is a rename that is skipped once done.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from transcribe_import.engine.base.clock import utc_now
from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.findings import Finding, FindingCode, Severity
from transcribe_import.engine.base.ids import ShortIds
from transcribe_import.engine.base.text import quoted_title
from transcribe_import.engine.runs.model import HistoryEvent, RunRecord, RunStatus
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.runs.undo import undoing
from transcribe_import.engine.runs.undo_journal import move_back, notebook_locks
from transcribe_import.engine.runs.undo_recovery import named
from transcribe_import.engine.storage import fsio, project, trash
from transcribe_import.engine.storage.corpus import Corpus, IndexEntry

RESTORING = trash.RESTORING


@dataclass(frozen=True)
class RestoreResult:
    """What a restore put back; ``status``: the run's own status again."""

    run_id: str
    revert_id: str
    status: RunStatus
    notebooks: int
    pages: int
    files: int
    titles: tuple[str, ...]
    entry_removed: bool = True  # False: the emptied entry could not be deleted (disk error)

    def to_json(self) -> dict[str, Any]:
        return {
            "entry_removed": self.entry_removed,
            "import_run_id": self.run_id,
            "revert_id": self.revert_id,
            "status": self.status.value,
            "notebooks": self.notebooks,
            "pages": self.pages,
            "files": self.files,
            "titles": list(self.titles),
        }


@dataclass(frozen=True)
class LeftTrash:
    """A trash entry that is no longer there, as the run it undid tells: the run was put back
    from it (``put_back``), or it was deleted for good. Asked again, restore and purge say so
    and change nothing (exit 0), as ``revert`` of a run undone already does."""

    revert_id: str
    run_id: str
    put_back: bool

    def words(self, runs: Callable[[str], str], reverts: Callable[[str], str]) -> str:
        """Said so; the run and the entry named as the face's lists name them."""
        revert, run = reverts(self.revert_id), runs(self.run_id)
        if self.put_back:
            return (
                f"Trash entry {revert} has left the trash already: run {run} "
                "was put back from it. Nothing to do."
            )
        return (
            f"Trash entry {revert} (the undo of run {run}) was deleted for good already. "
            "Nothing to do."
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "revert_id": self.revert_id,
            "import_run_id": self.run_id,
            "put_back": self.put_back,
        }


def left_the_trash(corpus: Corpus, revert_id: str) -> LeftTrash | None:
    """What became of an entry that is not in the trash, from the history of the run it
    undid; None when no run names it."""
    for record in RunStore(corpus).read_all()[0]:
        events = {
            str(h.get("event"))
            for h in record.doc.get("history", [])
            if isinstance(h, dict) and h.get("revert_id") == revert_id
        }
        if events:
            return LeftTrash(revert_id, record.run_id, HistoryEvent.RESTORED.value in events)
    return None


def purge_entry(corpus: Corpus, revert_id: str) -> trash.TrashEntry | LeftTrash:
    """``trash.purge``; an entry gone already (purged, or its run put back) is said so."""
    try:
        return trash.purge(corpus, revert_id)
    except TranscribeError as exc:
        gone = _gone(corpus, revert_id, exc)
        if gone is None:
            raise
        return gone


def _gone(corpus: Corpus, revert_id: str, exc: TranscribeError) -> LeftTrash | None:
    if exc.code is not ErrorCode.TRASH_NOT_FOUND or exc.problem.item != revert_id:
        return None
    return left_the_trash(corpus, revert_id)


def restore_run(corpus: Corpus, revert_id: str) -> RestoreResult | LeftTrash:
    """Put back what the undo ``revert_id`` took out; refused by name (nothing changed) when
    the entry is not a finished undo or later work collides with what it holds. Asked again
    once done, it says so (``LeftTrash``)."""
    try:
        doc = trash.read_journal(corpus, revert_id)  # TRASH_NOT_FOUND, said before any lock
    except OSError as exc:  # the trash's folders could not even be looked at
        where = fsio.failed_path(exc, corpus.root)
        raise fsio.problem_from_oserror(exc, where, "reading the trash entry at") from exc
    except TranscribeError as exc:
        gone = _gone(corpus, revert_id, exc)
        if gone is None:
            raise
        if gone.put_back:
            return gone
        runs, reverts = named(corpus)
        raise TranscribeError(
            ErrorCode.TRASH_NOT_FOUND,
            f"Trash entry {reverts(revert_id)} was deleted for good, so run "
            f"{runs(gone.run_id)} cannot be put back from it; nothing was changed.",
            item=revert_id,
        ) from None
    run_id = str(doc["import_run_id"])
    with _disk_errors(corpus, revert_id, run_id):
        store = RunStore(corpus)
        with undoing(store, run_id):
            record = store.load(run_id)
            doc = trash.read_journal(corpus, revert_id)  # as the holder before us left it
            if _restoring(record, revert_id):
                return _roll_forward(corpus, store, record, doc)
            if _left_behind(corpus, record) == revert_id:  # back; only its removal was cut
                return _purged(corpus, record, doc)
            _refuse_state(doc, record, revert_id, named(corpus))
            with notebook_locks(corpus, store, record):
                _refuse_collisions(corpus, doc)
                store.request_restore(run_id, revert_id)
                crashpoint("restore.after_request")
                return _roll_forward(corpus, store, store.load(run_id), doc)


def finish_restores(corpus: Corpus) -> list[Finding]:
    """Every restore a killed process left half done, finished (doctor's step)."""
    found = []
    store = RunStore(corpus)
    for record in store.read_all()[0]:
        revert = record.doc.get("revert")
        left = _left_behind(corpus, record)
        if left is not None:
            _purge(corpus, left)
            found.append(_finished(corpus, record.run_id, left))
        if not (isinstance(revert, dict) and revert.get("state") == RESTORING):
            continue
        revert_id = str(revert["revert_id"])
        try:
            with undoing(store, record.run_id):
                record = store.load(record.run_id)
                if _restoring(record, revert_id):
                    _roll_forward(corpus, store, record, trash.read_journal(corpus, revert_id))
        except TranscribeError as exc:
            if exc.code is not ErrorCode.RUN_BUSY:
                raise
            continue  # a restore is putting it back right now, and finishes it itself
        found.append(_finished(corpus, record.run_id, revert_id))
    return found


def _finished(corpus: Corpus, run_id: str, revert_id: str) -> Finding:
    runs, reverts = named(corpus)
    return Finding(
        FindingCode.RESTORE_FINISHED,
        Severity.REPAIRED,
        f"Putting run {runs(run_id)} back from the trash (entry {reverts(revert_id)}) was "
        "interrupted; it was finished: the run's pages are in the corpus again.",
    )


def _restoring(record: RunRecord, revert_id: str) -> bool:
    revert = record.doc.get("revert")
    return (
        isinstance(revert, dict)
        and revert.get("state") == RESTORING
        and revert.get("revert_id") == revert_id
    )


def _refuse_state(
    doc: dict[str, Any], record: RunRecord, revert_id: str, shown: tuple[ShortIds, ShortIds]
) -> None:
    """Only the finished undo that the run's record names can be put back; ``shown``: how
    lines name the runs and the trash entries."""
    run, entry = shown[0](record.run_id), shown[1](revert_id)
    state = doc.get("state")
    if state == trash.MOVING:
        raise TranscribeError(
            ErrorCode.REVERT_UNFINISHED,
            f"The undo {entry} of run {run} did not finish; run `transcribe-import "
            "doctor` (it finishes or undoes it) first. Nothing was changed.",
            item=revert_id,
        )
    revert = record.doc.get("revert")
    ours = isinstance(revert, dict) and revert.get("revert_id") == revert_id
    # A partial undo leaves the run's status as it was; its ``revert`` says it was done.
    partial = isinstance(revert, dict) and ours and revert.get("partial") is True
    undone = record.status is RunStatus.REVERTED or partial
    if state != trash.DONE or not undone or not ours:
        raise _blocked(
            revert_id,
            entry,
            f"trash entry {entry} holds nothing to put back: run {run} is "
            f"{record.status.value}, and this entry is not its last undo",
        )


def _refuse_collisions(corpus: Corpus, doc: dict[str, Any]) -> None:
    """Everything that stands in the way of putting the entry back, all said at once."""
    revert_id = str(doc["revert_id"])
    entries = corpus.index_entries()
    notebooks = corpus.notebook_short_ids()  # as `notebooks` and the trash list them
    causes: list[str] = []
    ours: dict[str, str] = {}  # sha256 of each source the entry puts back -> its notebook
    for nb in doc["notebooks"]:
        nbid = str(nb["notebook_id"])
        name = f"“{nb.get('title') or nbid}” ({notebooks(nbid)})"
        home = fsio.corpus_folder(corpus.root, corpus.notebook_dir(nbid))  # a link: refused
        moved = trash.entry_dir(corpus, revert_id) / "notebooks" / nbid
        if nb["whole"] and (fsio.exists(home) or nbid in entries):
            causes.append(f"notebook {name} is in the corpus again")
        if not nb["whole"] and (not fsio.exists(home) or nbid not in entries):
            causes.append(f"notebook {name}, which the run added pages to, is no longer there")
        lost = [
            f["path"]
            for f in nb["files"]
            if not fsio.exists(moved / f["path"]) and not fsio.exists(home / f["path"])
        ]
        if lost:
            causes.append(f"{len(lost)} of its files are gone from the trash ({lost[0]}, …)")
        for f in nb["files"]:
            if str(f["path"]).startswith("sources/") and f.get("sha256"):
                ours[str(f["sha256"])] = name
    for nbid, entry in entries.items():
        try:
            held = project.read(corpus.notebook_dir(nbid), nbid)
        except TranscribeError:
            continue  # doctor reports it; it holds nothing this restore can double
        again = {s.get("sha256") for s in held["sources"] if isinstance(s, dict)} & set(ours)
        if again:
            causes.append(
                f"{len(again)} of the run's page files were imported again since, into "
                f"{quoted_title(entry.title)} ({notebooks(nbid)}): putting them back would "
                "double them"
            )
    if causes:
        raise _blocked(revert_id, trash.short_ids(corpus)(revert_id), "; ".join(causes))


def _blocked(revert_id: str, shown: str, why: str) -> TranscribeError:
    return TranscribeError(
        ErrorCode.RESTORE_BLOCKED,
        f"Trash entry {shown} cannot be put back, nothing was changed: {why}.",
        item=revert_id,
    )


def _roll_forward(
    corpus: Corpus, store: RunStore, record: RunRecord, doc: dict[str, Any]
) -> RestoreResult:
    """Steps 3 to 7, each skipped once done."""
    revert_id = str(doc["revert_id"])
    if doc.get("state") != RESTORING:
        doc = {**doc, "state": RESTORING, "restore_started_at": utc_now()}
        trash.write_journal(corpus, doc)
    crashpoint("restore.after_journal")
    move_back(corpus, doc, lambda: crashpoint("restore.after_move"))
    with corpus.locked():
        entries = corpus.index_entries()
        for nb in doc["notebooks"]:
            nbid = str(nb["notebook_id"])
            if nb["whole"] and nbid not in entries:
                corpus.register(_entry(corpus, nbid, record.run_id))
    crashpoint("restore.after_index")
    trash.write_journal(corpus, {**doc, "state": trash.RESTORED, "restored_at": utc_now()})
    crashpoint("restore.after_journal_restored")
    status = RunStatus(str(doc["run_status"]))
    store.mark_restored(record.run_id, revert_id, status)
    crashpoint("restore.after_record")
    return _purged(corpus, store.load(record.run_id), doc)


def _purged(corpus: Corpus, record: RunRecord, doc: dict[str, Any]) -> RestoreResult:
    """Step 8, and what the restore put back (from the entry's journal)."""
    entry = trash.entry_of(corpus, doc)
    removed = _purge(corpus, entry.revert_id)
    return RestoreResult(
        record.run_id,
        entry.revert_id,
        record.status,
        entry.notebooks,
        entry.pages,
        entry.files,
        entry.titles,
        removed,
    )


def _purge(corpus: Corpus, revert_id: str) -> bool:
    """Remove the entry, which holds nothing of the run any more (its journal, the
    project.json copies); whether it is gone. Another purge running, or a disk error: it
    stays (listed as put back), and ``trash --purge`` or the next doctor removes it."""
    try:
        trash.purge(corpus, revert_id)
    except TranscribeError:
        return False
    return True


def _left_behind(corpus: Corpus, record: RunRecord) -> str | None:
    """The id of the entry a restored run's restore did not get to remove, if any."""
    revert = record.doc.get("revert")
    if not (isinstance(revert, dict) and revert.get("state") == trash.RESTORED):
        return None
    revert_id = str(revert["revert_id"])
    try:
        trash.read_journal(corpus, revert_id)
    except TranscribeError:
        return None  # removed, as it should be
    return revert_id


def _entry(corpus: Corpus, notebook_id: str, run_id: str) -> IndexEntry:
    doc = project.read(corpus.notebook_dir(notebook_id), notebook_id)
    title = doc["title"] if isinstance(doc.get("title"), str) else notebook_id
    return IndexEntry.of_notebook(notebook_id, title, str(doc.get("created_at", "")), run_id)


@contextlib.contextmanager
def _disk_errors(corpus: Corpus, revert_id: str, run_id: str) -> Iterator[None]:
    """A disk error as one coded error saying what it left and what finishes it."""
    try:
        yield
    except OSError as exc:
        runs, reverts = named(corpus)  # each an 8 characters' fallback on a failing disk
        then = (
            f"run `transcribe-import trash --restore {reverts(revert_id)}` again (or "
            "`transcribe-import doctor`): what was put back stays, and the rest follows"
        )
        where = fsio.failed_path(exc, corpus.root)
        raise fsio.problem_from_oserror(
            exc, where, f"putting run {runs(run_id)} back from the trash at", then=then
        ) from exc
