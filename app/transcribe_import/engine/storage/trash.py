"""The trash: what a revert took out of the corpus, kept whole until a person purges it.

```text
corpus/trash/<revert_id>/
├── revert.json            the revert's journal and manifest (format transcribe.revert)
├── notebooks/<id>/        what was moved out: a whole notebook, or the files of a
│                          notebook the revert took pages out of, at their own paths
└── projects/<id>.before.json, <id>.after.json
                           such a notebook's project.json before and after the revert
```

The journal is written before anything moves; ``state`` is ``moving`` until the run
record says ``reverted``, then ``done`` (or ``abandoned`` when a revert had to be undone).
Moves are renames inside the corpus's file system: a revert never copies a page.
Purging renames the folder to ``trash/.purging-<revert_id>`` first, then removes it, so a
kill half way leaves a hidden folder, never an entry whose manifest lists files that are
gone; ``list_trash`` lists it (state ``purging``) until ``purge`` of that id again, or
``finish_purges`` (doctor), removes it. An entry's size is what its folder holds on disk.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import filelock
import orjson

from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.ids import ShortIds, is_valid_id
from transcribe_import.engine.storage import fsio, locks

if TYPE_CHECKING:
    from transcribe_import.engine.storage.corpus import Corpus

TRASH_DIR = "trash"
TRASH_FORMAT = "transcribe.revert"
TRASH_SCHEMA = 1
JOURNAL_FILE = "revert.json"
PURGING_PREFIX = ".purging-"
# Held by a purge from hiding its entry to deleting the last of it: doctor finishes only a
# purge whose process is gone, never one still deleting.
PURGE_LOCK = ".purge.lock"
MOVING, DONE, ABANDONED = "moving", "done", "abandoned"
RESTORED = "restored"  # put back by a restore (runs/restore.py): holds nothing of the run
PURGING = "purging"  # listed for a ``.purging-<id>`` folder: a purge stopped half way
RESTORING = "restoring"  # a restore (runs/restore.py) is putting it back, or stopped doing so


class Unfinished(enum.StrEnum):
    """What stopped half way on a trash entry (a process killed, a disk failing), and so
    what finishes it: the same command again, or doctor."""

    UNDO = "undo"  # the revert that made it: doctor finishes or undoes it
    RESTORE = "restore"  # putting it back: restore again (or doctor) finishes it
    PURGE = "purge"  # deleting it for good: purge again (or doctor) finishes it


# Each state of an entry something stopped half way in, and what it was doing.
_UNFINISHED = {
    MOVING: Unfinished.UNDO,
    RESTORING: Unfinished.RESTORE,
    RESTORED: Unfinished.RESTORE,  # its run is back; only the entry's removal was cut short
    PURGING: Unfinished.PURGE,
}


def trash_root(corpus: Corpus) -> Path:
    """The trash folder, refused (``corpus_link``) when it, or anything on the way, is a link."""
    return fsio.corpus_folder(corpus.root, corpus.root / TRASH_DIR)


def entry_dir(corpus: Corpus, revert_id: str) -> Path:
    if not is_valid_id(revert_id):
        raise TranscribeError(
            ErrorCode.TRASH_NOT_FOUND,
            f"{revert_id!r} is not a revert id; `transcribe-import trash` lists them.",
            item=revert_id,
        )
    return fsio.corpus_folder(corpus.root, trash_root(corpus) / revert_id)


def journal_path(corpus: Corpus, revert_id: str) -> Path:
    return entry_dir(corpus, revert_id) / JOURNAL_FILE


def write_journal(corpus: Corpus, doc: dict[str, Any]) -> None:
    """Write (or rewrite) a revert's journal atomically and durably."""
    path = journal_path(corpus, str(doc["revert_id"]))
    fsio.make_dirs_durable(path.parent)
    fsio.atomic_write(path, orjson.dumps(doc, option=orjson.OPT_INDENT_2))


def read_journal(corpus: Corpus, revert_id: str) -> dict[str, Any]:
    path = journal_path(corpus, revert_id)
    try:
        doc = orjson.loads(fsio.read_bytes(path))
    except FileNotFoundError as exc:
        raise TranscribeError(
            ErrorCode.TRASH_NOT_FOUND,
            # The id as it was asked for: it names no entry, so no shorter form of it does.
            f"No trash entry {revert_id}; `transcribe-import trash` lists them.",
            item=revert_id,
        ) from exc
    except fsio.RefusedRead as exc:  # not a plain file, or too large: damaged, not the disk
        raise TranscribeError(
            ErrorCode.CORPUS_INVALID,
            f"{path} cannot be read ({exc.strerror}); it is left as it is: run "
            "`transcribe-import doctor`.",
            path=str(path),
        ) from exc
    except OSError as exc:  # the disk's failure, coded as every command codes it
        raise fsio.problem_from_oserror(
            exc, path, "reading the trash journal", then="try again; nothing was changed"
        ) from exc
    except orjson.JSONDecodeError as exc:
        raise TranscribeError(
            ErrorCode.CORPUS_INVALID,
            f"{path} cannot be read ({exc}); it is left as it is: check the disk, then run "
            "`transcribe-import doctor`.",
            path=str(path),
        ) from exc
    if not isinstance(doc, dict) or doc.get("format") != TRASH_FORMAT:
        raise TranscribeError(
            ErrorCode.CORPUS_INVALID,
            f"{path} is not a revert journal; it is left as it is.",
            path=str(path),
        )
    return doc


def revert_ids(corpus: Corpus) -> list[str]:
    """The trash's entries (their folder names), oldest journal first."""
    root = trash_root(corpus)
    if not fsio.exists(root):
        return []
    names = [n for n in fsio.list_dir(root) if is_valid_id(n)]
    return sorted(names, key=lambda n: _mtime(root / n / JOURNAL_FILE))


def _mtime(path: Path) -> float:
    try:
        return fsio.stat(path).st_mtime
    except OSError:
        return 0.0


def move_into(src: Path, dst: Path) -> bool:
    """Move a file or a folder by rename (never a copy); False when it was moved already.

    Idempotent, for a journal replayed after a kill: a source that is gone while its
    destination exists was moved by the earlier attempt.
    """
    if not fsio.exists(src):
        return False
    fsio.make_dirs_durable(dst.parent)
    fsio.replace(src, dst)
    fsio.fsync_dir(dst.parent)
    fsio.fsync_dir(src.parent)
    return True


def move_all(pairs: list[tuple[Path, Path]]) -> int:
    """Move many files by rename, each folder made and fsynced once; how many moved.

    Idempotent as ``move_into``: a source already gone was moved by an earlier attempt.
    """
    made: set[Path] = set()
    touched: set[Path] = set()
    moved = 0
    for src, dst in pairs:
        if not fsio.exists(src):
            continue
        if dst.parent not in made:
            fsio.make_dirs_durable(dst.parent)
            made.add(dst.parent)
        fsio.replace(src, dst)
        touched.update((src.parent, dst.parent))
        moved += 1
    for folder in sorted(touched):
        fsio.fsync_dir(folder)
    return moved


@dataclass(frozen=True)
class TrashEntry:
    """One revert as the trash lists it."""

    revert_id: str
    run_id: str
    state: str
    requested_by: str
    created_at: str
    finished_at: str | None
    notebooks: int
    pages: int
    files: int
    bytes: int
    path: Path
    titles: tuple[str, ...] = ()  # the notebooks it took pages out of (or took whole)

    @property
    def unfinished(self) -> Unfinished | None:
        """What stopped half way on this entry (None: a finished undo, kept whole)."""
        return _UNFINISHED.get(self.state)

    def to_json(self) -> dict[str, Any]:
        return {
            "revert_id": self.revert_id,
            "import_run_id": self.run_id,
            "state": self.state,
            "requested_by": self.requested_by,
            "created_at": self.created_at,
            "finished_at": self.finished_at,
            "notebooks": self.notebooks,
            "pages": self.pages,
            "files": self.files,
            "bytes": self.bytes,
            "path": str(self.path),
            "titles": list(self.titles),
        }


def entry_of(corpus: Corpus, doc: dict[str, Any], *, path: Path | None = None) -> TrashEntry:
    """The entry a journal describes; its bytes are what its folder (``path``, by default
    its place in the trash) holds on disk now, renders and journal included."""
    notebooks = doc.get("notebooks") or []
    files = [f for n in notebooks for f in n.get("files", [])]
    folder = path if path is not None else entry_dir(corpus, str(doc["revert_id"]))
    state = str(doc.get("state")) if path is None else PURGING
    return TrashEntry(
        revert_id=str(doc["revert_id"]),
        run_id=str(doc.get("import_run_id")),
        state=state,
        requested_by=str(doc.get("requested_by")),
        created_at=str(doc.get("created_at")),
        finished_at=doc.get("finished_at"),
        notebooks=len(notebooks),
        pages=sum(len(n.get("page_ids", [])) for n in notebooks),
        files=len(files),
        bytes=fsio.tree_size(folder),
        path=folder,
        titles=tuple(str(n.get("title") or n.get("notebook_id")) for n in notebooks),
    )


def list_trash(corpus: Corpus) -> tuple[list[TrashEntry], list[TranscribeError]]:
    """Every trash entry, and the problems of those whose journal cannot be read."""
    entries: list[TrashEntry] = []
    problems: list[TranscribeError] = []
    for revert_id in revert_ids(corpus):
        try:
            entries.append(entry_of(corpus, read_journal(corpus, revert_id)))
        except TranscribeError as exc:
            problems.append(exc)
    # A purge stopped half way: out of the list above, told here until it is finished.
    for revert_id, hidden in purging(corpus):
        try:
            doc = orjson.loads(fsio.read_bytes(hidden / JOURNAL_FILE))
        except (OSError, orjson.JSONDecodeError):
            doc = {"revert_id": revert_id}  # its journal deleted already: what is left
        entries.append(entry_of(corpus, {**doc, "revert_id": revert_id}, path=hidden))
    return entries, problems


def purging(corpus: Corpus) -> list[tuple[str, Path]]:
    """The entries a purge hid and did not finish deleting: (revert id, their folder)."""
    root = trash_root(corpus)
    names = fsio.list_dir(root, missing_ok=True)
    return [
        (name[len(PURGING_PREFIX) :], root / name)
        for name in names
        if name.startswith(PURGING_PREFIX) and is_valid_id(name[len(PURGING_PREFIX) :])
    ]


def short_ids(corpus: Corpus) -> ShortIds:
    """How every line names a trash entry (a revert), those being purged included: as runs
    are named (base/ids.short_id), so that what a line shows `trash` takes back."""

    def listed() -> list[str]:
        names = fsio.list_dir(trash_root(corpus), missing_ok=True)
        ids = (n.removeprefix(PURGING_PREFIX) for n in names)
        return [i for i in ids if is_valid_id(i)]

    return ShortIds.listed(listed)


def purge(corpus: Corpus, revert_id: str) -> TrashEntry:
    """Delete one trash entry for good; refused while its revert is unfinished.

    A disk error is a coded error that says what it left: the entry as it was, or (once it
    was renamed to ``.purging-<id>``) a purge that ``doctor`` finishes.
    """
    then = "try again; nothing was changed"
    shown = short_ids(corpus)(revert_id)  # as `trash` lists it, which `--purge` takes back
    try:
        root = trash_root(corpus)  # its guard reads the disk too: inside the coded block
        hidden = root / f"{PURGING_PREFIX}{revert_id}"
        if is_valid_id(revert_id) and not fsio.exists(root / revert_id) and fsio.exists(hidden):
            return _finish_purge(corpus, revert_id, hidden)
        with corpus.locked():
            entry = entry_of(corpus, read_journal(corpus, revert_id))
            if entry.state == MOVING:
                raise TranscribeError(
                    ErrorCode.REVERT_UNFINISHED,
                    f"Trash entry {shown}: its revert did not finish; run "
                    "`transcribe-import doctor` (it finishes or undoes it), then purge.",
                    item=revert_id,
                )
            lock = _purge_lock(corpus)
            if not locks.try_acquire(lock):
                raise TranscribeError(
                    ErrorCode.CORPUS_BUSY,
                    "The trash is being purged right now (by another purge, or by doctor or the "
                    "window's check of the corpus finishing one); wait for it, then purge "
                    f"{shown}. Nothing was changed.",
                    item=revert_id,
                )
            # From the rename on, the entry is out of the trash's list, whatever fails next.
            then = (
                f"run `transcribe-import trash --purge {shown}` again (or doctor): the "
                "entry is listed as being deleted, and either deletes what is left of it"
            )
            try:
                fsio.replace(entry.path, hidden)
                fsio.fsync_dir(root)
                crashpoint("trash.after_hide")
            except BaseException:
                lock.release()
                raise
        try:
            crashpoint("trash.before_delete")  # out of the corpus lock, in the purge's
            fsio.remove_tree(hidden)
        finally:
            lock.release()
    except OSError as exc:
        where = fsio.failed_path(exc, corpus.root / TRASH_DIR)
        raise fsio.problem_from_oserror(exc, where, "purging the trash at", then=then) from exc
    return entry


def _finish_purge(corpus: Corpus, revert_id: str, hidden: Path) -> TrashEntry:
    """Delete what a purge stopped half way left of an entry; the entry as it was listed."""
    [entry] = [e for e in list_trash(corpus)[0] if e.revert_id == revert_id and e.path == hidden]
    lock = _purge_lock(corpus)
    if not locks.try_acquire(lock):
        raise TranscribeError(
            ErrorCode.CORPUS_BUSY,
            f"Trash entry {short_ids(corpus)(revert_id)} is being deleted right now (by another "
            "purge, or by doctor or the window's check of the corpus finishing one); wait for "
            "it: the entry is gone once that ends.",
            item=revert_id,
        )
    try:
        fsio.remove_tree(hidden)
    finally:
        lock.release()
    return entry


def _purge_lock(corpus: Corpus) -> filelock.FileLock:
    # Beside the corpus lock, not in the trash, which holds its entries and nothing else.
    return locks.make_lock(corpus.root / PURGE_LOCK)


def finish_purges(corpus: Corpus) -> tuple[list[str], list[str]]:
    """Remove what a killed purge left (``.purging-<id>`` folders): the ids removed, and the
    ids a purge is deleting right now in another process (left alone)."""
    root = trash_root(corpus)
    if not fsio.exists(root):
        return [], []
    left = [n[len(PURGING_PREFIX) :] for n in fsio.list_dir(root) if n.startswith(PURGING_PREFIX)]
    if not left:
        return [], []
    lock = _purge_lock(corpus)
    if not locks.try_acquire(lock):
        return [], left
    try:
        for revert_id in left:
            fsio.remove_tree(root / f"{PURGING_PREFIX}{revert_id}")
    finally:
        lock.release()
    return left, []
