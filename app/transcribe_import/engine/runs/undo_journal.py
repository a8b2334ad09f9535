"""An undo's journal in the trash, written before anything moves, and applying it: forward
(the run's files into the trash) and back (``move_back``), under the notebooks' locks."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import filelock

from transcribe_import.engine.base.clock import utc_now
from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.text import counted
from transcribe_import.engine.ingest import journal as ingest_journal
from transcribe_import.engine.runs.model import RunRecord, RunStatus
from transcribe_import.engine.runs.revert import (
    NotebookRevert,
    RevertPlan,
)
from transcribe_import.engine.runs.store import RunStore, run_short_ids
from transcribe_import.engine.storage import fsio, locks, project, trash
from transcribe_import.engine.storage.corpus import Corpus


def never_stop() -> bool:
    return False


def stopped(corpus: Corpus, run_id: str, progress: tuple[int, int] | None) -> TranscribeError:
    """The undo stopped at a safe point because it was asked to (a signal); ``progress``:
    notebooks done of all, None when it stopped before its first change. The run is named as
    `runs` lists it, a prefix `revert` takes back."""
    run = run_short_ids(corpus)(run_id)
    if progress is None:
        return TranscribeError(
            ErrorCode.REVERT_STOPPED,
            f"The undo of run {run} was stopped before it began; nothing was changed.",
            item=run_id,
        )
    return TranscribeError(
        ErrorCode.REVERT_STOPPED,
        f"The undo of run {run} was stopped at a safe point, {progress[0]} of "
        f"{counted(progress[1], 'notebook')} done; `transcribe-import revert {run}` "
        "finishes it (or `transcribe-import doctor`, which finishes it or puts back what it "
        "had moved).",
        item=run_id,
    )


def has_journal(corpus: Corpus, revert_id: str) -> bool:
    """Whether the undo wrote its journal: from then on it may have moved files."""
    try:
        trash.read_journal(corpus, revert_id)
    except TranscribeError as exc:
        if exc.code is ErrorCode.TRASH_NOT_FOUND:
            return False
        raise
    return True


def journal_plan(corpus: Corpus, run_id: str, revert_id: str) -> RevertPlan:
    """What a finished revert took out, as its journal lists it (nothing when unreadable)."""
    try:
        doc = trash.read_journal(corpus, revert_id)
    except TranscribeError:
        return RevertPlan(run_id, RunStatus.REVERTED, (), ())
    notebooks = tuple(
        NotebookRevert(
            str(nb["notebook_id"]),
            str(nb.get("title") or nb["notebook_id"]),
            bool(nb["whole"]),
            tuple(nb.get("source_ids", ())),
            tuple(nb.get("page_ids", ())),
            tuple(str(f["path"]) for f in nb.get("files", ())),
            int(nb.get("replacing") or 0),
        )
        for nb in doc.get("notebooks", [])
    )
    return RevertPlan(run_id, RunStatus.REVERTED, notebooks, ())


def pending_id(record: RunRecord) -> str | None:
    pending = record.doc.get("revert")
    if isinstance(pending, dict) and pending.get("state") == "requested":
        return str(pending["revert_id"])
    return None


# -- the journal -----------------------------------------------------------------------------


def write_journal(
    corpus: Corpus, record: RunRecord, plan: RevertPlan, revert_id: str, partial: bool
) -> dict[str, Any]:
    """The journal of the undo ``revert_id`` of ``plan``, written before anything moves;
    ``partial``: it leaves notebooks of the run in place (the run then keeps its status)."""
    notebooks = []
    for nb in plan.notebooks:
        nb_dir = corpus.notebook_dir(nb.notebook_id)
        before = project.read(nb_dir, nb.notebook_id)
        if not nb.whole:
            saved = _before_path(corpus, revert_id, nb.notebook_id)
            fsio.make_dirs_durable(saved.parent)
            fsio.atomic_write(saved, project.encode(before))
        notebooks.append(
            {
                "notebook_id": nb.notebook_id,
                "title": nb.title,
                "whole": nb.whole,
                "source_ids": list(nb.source_ids),
                "page_ids": list(nb.page_ids),
                "replacing": nb.replacing,
                "files": _files_of(before, set(nb.source_ids), set(nb.page_ids)),
            }
        )
    revert = record.doc.get("revert") or {}
    doc = {
        "format": trash.TRASH_FORMAT,
        "schema_version": trash.TRASH_SCHEMA,
        "revert_id": revert_id,
        "import_run_id": plan.run_id,
        "run_status": plan.status.value,
        "requested_by": revert.get("requested_by"),
        "created_at": revert.get("requested_at") or utc_now(),
        "state": trash.MOVING,
        "notebooks": notebooks,
        **({"partial": True} if partial else {}),
    }
    trash.write_journal(corpus, doc)
    return doc


def _files_of(doc: dict[str, Any], source_ids: set[str], page_ids: set[str]) -> list[dict]:
    """The notebook-relative files of the run's sources and pages, with their hashes."""
    out = []
    for s in doc.get("sources", []):
        if isinstance(s, dict) and s.get("id") in source_ids and s.get("path"):
            out.append({"path": s["path"], "sha256": s.get("sha256"), "size": s.get("size")})
    for p in doc.get("pages", []):
        r = p.get("render") if isinstance(p, dict) and p.get("id") in page_ids else None
        if isinstance(r, dict) and r.get("path"):
            out.append({"path": r["path"], "sha256": r.get("sha256"), "size": r.get("size")})
    return out


def _before_path(corpus: Corpus, revert_id: str, notebook_id: str) -> Path:
    return trash.entry_dir(corpus, revert_id) / "projects" / f"{notebook_id}.before.json"


def _moved_to(corpus: Corpus, revert_id: str, notebook_id: str) -> Path:
    return trash.entry_dir(corpus, revert_id) / "notebooks" / notebook_id


# -- applying it -----------------------------------------------------------------------------


def roll_forward(
    corpus: Corpus,
    store: RunStore,
    doc: dict[str, Any],
    held: dict[str, filelock.FileLock],
    should_stop: Callable[[], bool] = never_stop,
) -> None:
    revert_id = str(doc["revert_id"])
    whole = []
    for done, nb in enumerate(doc["notebooks"]):
        if should_stop():  # between two moves: the journal says what is left to do
            raise stopped(corpus, str(doc["import_run_id"]), (done, len(doc["notebooks"])))
        nbid = str(nb["notebook_id"])
        src = corpus.notebook_dir(nbid)
        dst = _moved_to(corpus, revert_id, nbid)
        if nb["whole"]:
            if os.name == "nt":  # Windows cannot rename a folder with an open lock file in it
                lock = held.pop(nbid, None)
                if lock is not None:
                    lock.release()
            trash.move_into(src, dst)
            whole.append(nbid)
        else:
            run_id = str(doc["import_run_id"])
            _take_out(src, nbid, run_id, set(nb["source_ids"]), set(nb["page_ids"]))
            crashpoint("revert.after_project")
            trash.move_all([(src / f["path"], dst / f["path"]) for f in nb["files"]])
        crashpoint("revert.after_move")
    with corpus.locked():
        entries = corpus.index_entries()
        if any(n in entries for n in whole):
            corpus.rewrite_index([e for n, e in entries.items() if n not in set(whole)])
    crashpoint("revert.after_index")
    if doc.get("partial"):
        titles = [str(nb.get("title") or nb["notebook_id"]) for nb in doc["notebooks"]]
        store.mark_partly_reverted(str(doc["import_run_id"]), revert_id, titles)
    else:
        store.mark_reverted(str(doc["import_run_id"]), revert_id)
    crashpoint("revert.after_record")
    trash.write_journal(corpus, {**doc, "state": trash.DONE, "finished_at": utc_now()})


def taken_out(
    doc: dict[str, Any], run_id: str, source_ids: set[str], page_ids: set[str]
) -> dict[str, Any]:
    """``doc`` without the run's sources and pages: a page a rescan of the run replaced is
    put back in the rescan's place (and is the cover again if the rescan was), and leaves
    ``replaced_pages``. Pure: the same answer for the same document (``updated_at`` aside)."""
    entries = project.replaced_entries(doc)
    restored = {
        str(e["replaced_by"]): e
        for e in entries
        if e.get("replaced_by") in page_ids and e.get("import_run_id") == run_id
    }
    pages = []
    for p in doc["pages"]:
        pid = p.get("id") if isinstance(p, dict) else None
        if pid in restored:
            pages.append(restored[str(pid)]["page"])
        elif pid not in page_ids:
            pages.append(p)
    out = {**doc, "pages": pages}
    out["sources"] = [
        s for s in doc["sources"] if not (isinstance(s, dict) and s.get("id") in source_ids)
    ]
    if restored:
        gone = {id(e) for e in restored.values()}
        history = [e for e in doc.get(project.REPLACED_PAGES, []) if id(e) not in gone]
        if history:
            out[project.REPLACED_PAGES] = history
        else:
            out.pop(project.REPLACED_PAGES, None)
        cover = doc.get("cover_page_id")
        if cover in restored:
            out["cover_page_id"] = restored[str(cover)]["page"].get("id")
    return out


def _take_out(
    nb_dir: Path, notebook_id: str, run_id: str, source_ids: set[str], page_ids: set[str]
) -> None:
    """Rewrite project.json without the run's sources and pages (a no-op once done)."""
    doc = project.read(nb_dir, notebook_id)
    after = taken_out(doc, run_id, source_ids, page_ids)
    if after == doc:
        return
    after["updated_at"] = utc_now()
    project.write(nb_dir, after)


def roll_back(corpus: Corpus, store: RunStore, doc: dict[str, Any], why: str) -> None:
    """Move back what a revert had moved; the run keeps its status."""
    move_back(corpus, doc)
    store.abandon_revert(str(doc["import_run_id"]), str(doc["revert_id"]), why)
    trash.write_journal(corpus, {**doc, "state": trash.ABANDONED, "finished_at": utc_now()})


def move_back(
    corpus: Corpus, doc: dict[str, Any], after_each: Callable[[], object] = never_stop
) -> None:
    """Put back what the revert of journal ``doc`` moved into the trash (a no-op once done).

    A notebook taken whole goes back to its place; into a notebook the run had added to, its
    files go back and its project.json becomes the one from before the revert, or, when the
    notebook changed since, the run's sources and pages are put back among the later ones.
    ``after_each``: called after each notebook (a restore's crash point).
    """
    revert_id = str(doc["revert_id"])
    for nb in doc["notebooks"]:
        nbid = str(nb["notebook_id"])
        home = corpus.notebook_dir(nbid)
        moved = _moved_to(corpus, revert_id, nbid)
        if nb["whole"]:
            if not fsio.exists(home):
                trash.move_into(moved, home)
            after_each()
            continue
        back = [(moved / f["path"], home / f["path"]) for f in nb["files"]]
        trash.move_all([(m, h) for m, h in back if not fsio.exists(h)])
        before = _parse(_before_path(corpus, revert_id, nbid), nbid)
        current = project.read(home, nbid)
        ours = set(nb["source_ids"]), set(nb["page_ids"])
        if _same(current, taken_out(before, str(doc["import_run_id"]), *ours)):
            project.write(home, before)  # nothing changed since the take-out: exactly as it was
        elif not {p.get("id") for p in current["pages"] if isinstance(p, dict)} & ours[1]:
            _put_back(before, current, *ours)  # changed since: the run's back, the change kept
            project.write(home, current)
        after_each()


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return {**a, "updated_at": None} == {**b, "updated_at": None}


def _put_back(
    before: dict[str, Any], current: dict[str, Any], source_ids: set[str], page_ids: set[str]
) -> None:
    """Insert the run's sources and pages back where they were, keeping later changes."""
    for key, ours in (("sources", source_ids), ("pages", page_ids)):
        have = {e.get("id") for e in current[key] if isinstance(e, dict)}
        for k, entry in enumerate(before[key]):
            if isinstance(entry, dict) and entry.get("id") in ours and entry["id"] not in have:
                current[key].insert(min(k, len(current[key])), entry)
    current["updated_at"] = utc_now()


def _parse(path: Path, notebook_id: str) -> dict[str, Any]:
    return project.parse(fsio.read_bytes(path), expected_id=notebook_id, where=path)


@contextlib.contextmanager
def notebook_locks(
    corpus: Corpus, store: RunStore, record: RunRecord
) -> Iterator[dict[str, filelock.FileLock]]:
    """The ingest locks of every notebook the run's plan touched that is still there."""
    plan = store.load_plan(record.run_id, record)
    held: dict[str, filelock.FileLock] = {}
    try:
        for nbid in sorted({it.notebook_id for it in plan.items}):
            nb_dir = corpus.notebook_dir(nbid)
            if not fsio.exists(nb_dir):
                continue
            lock = locks.make_lock(nb_dir / ingest_journal.LOCK_FILE)
            locks.acquire(
                lock,
                locks.INGEST_LOCK_TIMEOUT,
                ErrorCode.NOTEBOOK_BUSY,
                f"Notebook {nbid} is being imported into by another process; wait for it "
                "to finish, then undo the run.",
            )
            held[nbid] = lock
        yield held
    finally:
        for lock in held.values():
            lock.release()
