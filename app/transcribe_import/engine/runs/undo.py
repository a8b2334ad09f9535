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
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import filelock

from transcribe_import.engine.base.clock import utc_now
from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.findings import Finding, FindingCode, Severity
from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.base.text import counted
from transcribe_import.engine.ingest import journal as ingest_journal
from transcribe_import.engine.runs.model import RunRecord, RunStatus
from transcribe_import.engine.runs.revert import (
    NotebookRevert,
    RevertBlock,
    RevertPlan,
    plan_revert,
)
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage import fsio, locks, project, trash
from transcribe_import.engine.storage.corpus import Corpus


class RevertBlocked(TranscribeError):
    """The revert was refused. ``plan`` says what blocks it; ``earlier``: what was done first
    to an earlier undo of the run left half done (None: nothing was changed)."""

    def __init__(self, plan: RevertPlan, earlier: str | None = None) -> None:
        causes = "; ".join(b.message for b in plan.blockers)
        said = f"Run {plan.run_id} cannot be undone, nothing was changed: {causes}"
        if earlier is not None:
            said = f"Run {plan.run_id} cannot be undone: {causes}. Before that, {earlier}"
        super().__init__(ErrorCode.REVERT_BLOCKED, said, item=plan.run_id)
        self.plan = plan
        self.earlier = earlier


def _never() -> bool:
    return False


def _stopped(run_id: str, progress: tuple[int, int] | None) -> TranscribeError:
    """The undo stopped at a safe point because it was asked to (a signal); ``progress``:
    notebooks done of all, None when it stopped before its first change."""
    if progress is None:
        return TranscribeError(
            ErrorCode.REVERT_STOPPED,
            f"The undo of run {run_id} was stopped before it began; nothing was changed.",
            item=run_id,
        )
    return TranscribeError(
        ErrorCode.REVERT_STOPPED,
        f"The undo of run {run_id} was stopped at a safe point, {progress[0]} of "
        f"{counted(progress[1], 'notebook')} done; `transcribe-import revert {run_id}` "
        "finishes it (or `transcribe-import doctor`, which finishes it or puts back what it "
        "had moved).",
        item=run_id,
    )


@dataclass(frozen=True)
class RevertResult:
    """What a revert did: ``already`` when the run had been reverted before (a no-op)."""

    run_id: str
    revert_id: str
    plan: RevertPlan
    already: bool
    trash_dir: Path


def revert_run(
    corpus: Corpus, run_id: str, should_stop: Callable[[], bool] = _never
) -> RevertResult:
    """Undo ``run_id`` as a group, or finish its revert an earlier process left half done.

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
            return _revert_held(corpus, store, run_id, stage, should_stop)


@contextlib.contextmanager
def undoing(store: RunStore, run_id: str) -> Iterator[None]:
    """Hold the run's lock for the whole undo: two reverts of one run never interleave, and
    the one that finds it held says so instead of tripping over the other's moves."""
    lock = store.run_lock(run_id)
    if not locks.take_unless_owned(lock):
        raise TranscribeError(
            ErrorCode.RUN_BUSY,
            f"Run {run_id} is being undone by another process right now (another `revert`, "
            "or `doctor` finishing one); that one does the undo, so nothing was done here. "
            f"`transcribe-import show {run_id}` says `reverted` once it is done.",
            item=run_id,
        )
    try:
        yield
    finally:
        lock.release()


def _revert_held(
    corpus: Corpus, store: RunStore, run_id: str, stage: _Stage, should_stop: Callable[[], bool]
) -> RevertResult:
    record = store.load(run_id)  # as the revert that held the run before left it
    pending = _pending_id(record)
    if record.status is RunStatus.REVERTED or pending is not None:
        stage.started = True
        found = finish(corpus, record, should_stop)
        stage.earlier = None if found is None else _lower_first(found.message)
        record = store.load(run_id)
        if record.status is RunStatus.REVERTED:
            revert_id = str(record.doc["revert"]["revert_id"])
            plan = _journal_plan(corpus, run_id, revert_id)
            return RevertResult(
                run_id, revert_id, plan, pending is None, trash.entry_dir(corpus, revert_id)
            )
    return _revert_anew(corpus, store, record, stage, should_stop)


def _revert_anew(
    corpus: Corpus,
    store: RunStore,
    record: RunRecord,
    stage: _Stage,
    should_stop: Callable[[], bool],
) -> RevertResult:
    run_id = record.run_id
    with notebook_locks(corpus, store, record) as held:
        plan = plan_revert(corpus, run_id)
        if not plan.ok:
            raise RevertBlocked(plan, stage.earlier)
        if should_stop():
            raise _stopped(run_id, None)
        revert_id = new_id()
        stage.started = True  # from here the run record may say that an undo was asked
        store.request_revert(run_id, revert_id)
        crashpoint("revert.after_request")
        doc = _write_journal(corpus, store.load(run_id), plan, revert_id)
        crashpoint("revert.after_journal")
        _roll_forward(corpus, store, doc, held, should_stop)
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
        pending = _pending_id(record)
        moving = pending is not None and _has_journal(corpus, pending)
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


def _has_journal(corpus: Corpus, revert_id: str) -> bool:
    """Whether the undo wrote its journal: from then on it may have moved files."""
    try:
        trash.read_journal(corpus, revert_id)
    except TranscribeError as exc:
        if exc.code is ErrorCode.TRASH_NOT_FOUND:
            return False
        raise
    return True


def _lower_first(sentence: str) -> str:
    return sentence[:1].lower() + sentence[1:]


def _journal_plan(corpus: Corpus, run_id: str, revert_id: str) -> RevertPlan:
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
        )
        for nb in doc.get("notebooks", [])
    )
    return RevertPlan(run_id, RunStatus.REVERTED, notebooks, ())


def _pending_id(record: RunRecord) -> str | None:
    pending = record.doc.get("revert")
    if isinstance(pending, dict) and pending.get("state") == "requested":
        return str(pending["revert_id"])
    return None


# -- the journal -----------------------------------------------------------------------------


def _write_journal(
    corpus: Corpus, record: RunRecord, plan: RevertPlan, revert_id: str
) -> dict[str, Any]:
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


def _roll_forward(
    corpus: Corpus,
    store: RunStore,
    doc: dict[str, Any],
    held: dict[str, filelock.FileLock],
    should_stop: Callable[[], bool] = _never,
) -> None:
    revert_id = str(doc["revert_id"])
    whole = []
    for done, nb in enumerate(doc["notebooks"]):
        if should_stop():  # between two moves: the journal says what is left to do
            raise _stopped(str(doc["import_run_id"]), (done, len(doc["notebooks"])))
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


def _roll_back(corpus: Corpus, store: RunStore, doc: dict[str, Any], why: str) -> None:
    """Move back what a revert had moved; the run keeps its status."""
    move_back(corpus, doc)
    store.abandon_revert(str(doc["import_run_id"]), str(doc["revert_id"]), why)
    trash.write_journal(corpus, {**doc, "state": trash.ABANDONED, "finished_at": utc_now()})


def move_back(
    corpus: Corpus, doc: dict[str, Any], after_each: Callable[[], object] = _never
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


# -- taking up a revert a killed process left ------------------------------------------------


def finish(
    corpus: Corpus, record: RunRecord, should_stop: Callable[[], bool] = _never
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
    if record.status is RunStatus.REVERTED:
        if doc is not None and doc.get("state") == trash.MOVING:
            trash.write_journal(corpus, {**doc, "state": trash.DONE, "finished_at": utc_now()})
            return _found(run_id, revert_id, "its last step, the trash entry's state, was done")
        return None
    if revert.get("state") != "requested":
        return None
    with notebook_locks(corpus, store, record) as held:
        plan = plan_revert(corpus, run_id)
        blockers = [b for b in plan.blockers if b.code is not RevertBlock.NOTHING_LANDED]
        if doc is None:  # killed before the journal: nothing had moved
            if blockers or not plan.notebooks:
                why = "; ".join(b.message for b in blockers) or "nothing of the run is left"
                store.abandon_revert(run_id, revert_id, why)
                return _found(run_id, revert_id, f"it had not started and was abandoned: {why}")
            doc = _write_journal(corpus, record, plan, revert_id)
            _roll_forward(corpus, store, doc, held, should_stop)
            return _found(run_id, revert_id, "it was finished")
        if blockers:
            why = "; ".join(b.message for b in blockers)
            _roll_back(corpus, store, doc, why)
            return _found(run_id, revert_id, f"it was undone, the run is as it was: {why}")
        _roll_forward(corpus, store, doc, held, should_stop)
        return _found(run_id, revert_id, "it was finished")


@dataclass(frozen=True)
class HalfDone:
    """An undo that is half done: ``live`` when another process is doing it right now."""

    run_id: str
    revert_id: str
    live: bool
    notebook_ids: frozenset[str] | None  # the notebooks of the run's plan (None: unknown)

    def words(self) -> str:
        if self.live:
            return (
                f"run {self.run_id} is being undone right now by another process (trash entry "
                f"{self.revert_id}); its notebooks are half moved until it ends"
            )
        return (
            f"the undo of run {self.run_id} stopped half way (trash entry {self.revert_id}); "
            f"`transcribe-import revert {self.run_id}` or `transcribe-import doctor` finishes it"
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
        revert_id = _pending_id(record)
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
            raise TranscribeError(
                ErrorCode.NOTEBOOK_BUSY if undo.live else ErrorCode.REVERT_UNFINISHED,
                f"Cannot {doing} now: {undo.words()}. Nothing was done; {doing} again after it.",
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
    for record in records:
        if not isinstance(record.doc.get("revert"), dict):
            continue
        lock = store.run_lock(record.run_id)
        if not locks.take_unless_owned(lock):
            # Another process holds the run: an undo of it is running, and finishes itself.
            revert_id = _pending_id(record)
            if revert_id is not None:
                found.append(_live(record.run_id, revert_id))
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
                f"The purge of trash entry {revert_id} was interrupted; it was finished.",
            )
        )
    for revert_id in running:
        found.append(
            Finding(
                FindingCode.PURGE_LIVE,
                Severity.INFO,
                f"Trash entry {revert_id} is being purged right now by another process; "
                "left alone.",
            )
        )
    return found


def _live(run_id: str, revert_id: str) -> Finding:
    return Finding(
        FindingCode.REVERT_LIVE,
        Severity.INFO,
        f"Run {run_id} is being undone right now by another process (trash entry "
        f"{revert_id}); left alone: it finishes by itself.",
    )


def _found(run_id: str, revert_id: str, what: str) -> Finding:
    return Finding(
        FindingCode.REVERT_FINISHED,
        Severity.REPAIRED,
        f"The undo of run {run_id} was interrupted (trash entry {revert_id}); {what}.",
    )


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
