"""The corpus: its identity file, the append-only notebook index, its locks, notebook creation.

The index is ``corpus/index.jsonl``: one JSON object per line, appended under the
corpus lock and fsynced. Appending is O(1), which keeps registration fast in a
corpus of tens of thousands of notebooks; a torn last line (a crash mid-append)
is kept as evidence and reported by ``doctor``, never silently dropped.
"""

from __future__ import annotations

import contextlib
import enum
import os
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from transcribe_import.engine.base.clock import utc_now
from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.ids import ShortIds, check_id, is_valid_id, new_id
from transcribe_import.engine.base.values import fields_json
from transcribe_import.engine.storage import fsio, locks, project

CORPUS_FORMAT = "transcribe.corpus"
CORPUS_SCHEMA = 1
INDEX_FILE = "index.jsonl"
CORPUS_FILE = "corpus.json"  # the identity file: what makes a folder a corpus
CREATING_PREFIX = ".creating-"


class IndexEntry(NamedTuple):
    """One registration. A tuple, not a dataclass: tens of thousands are built on each open."""

    notebook_id: str
    directory: str
    title: str
    created_at: str
    import_run_id: str | None

    @classmethod
    def of_notebook(
        cls, notebook_id: str, title: str, created_at: str, import_run_id: str | None
    ) -> IndexEntry:
        """The registration of a notebook: the one place that says its folder in the index."""
        return cls(notebook_id, _entry_dir(notebook_id), title, created_at, import_run_id)

    def to_json(self) -> dict[str, Any]:
        return {
            "op": "register",
            "notebook_id": self.notebook_id,
            "dir": self.directory,
            "title": self.title,
            "created_at": self.created_at,
            "import_run_id": self.import_run_id,
        }


@dataclass(frozen=True)
class IndexDamage:
    """A line of the index that could not be read: 1-based line number and byte offset."""

    line_no: int
    offset: int
    reason: str
    text: str


@dataclass
class _IndexCache:
    offset: int = 0
    line_no: int = 0
    entries: dict[str, IndexEntry] = field(default_factory=dict)
    damage: list[IndexDamage] = field(default_factory=list)
    torn_tail: IndexDamage | None = None


class NotebookState(enum.StrEnum):
    """Whether a notebook holds the whole of the imports that put pages in it."""

    COMPLETE = "complete"
    INCOMPLETE = "incomplete"  # some, not all, of an import's pages landed in it


@dataclass(frozen=True)
class UnfinishedImport:
    """The import an incomplete notebook holds only part of.

    Judged by ``runs/incomplete.py``, the one rule; a value here, beside the notebook
    listing, so every layer that tells a notebook (the export too) can carry it.
    """

    run_id: str  # the newest run that left the item unfinished
    item_id: str
    pages_expected: int | None  # the item's planned pages; None: its frozen plan is unreadable
    pages_landed: int  # the notebook's pages of the item, from every run of it
    run_ended: bool  # ended: committing its plan again (a retry) finishes it; else a resume
    running: bool = False  # a process executes the run now (holds its lock): it is landing

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)


@dataclass(frozen=True)
class NotebookSummary:
    notebook_id: str
    title: str
    page_count: int | None
    source_count: int | None
    created_at: str
    directory: Path
    problem: str | None  # None when its manifest loads
    # Set by engine.api's listing (runs/incomplete.py); the storage layer cannot judge it.
    unfinished: UnfinishedImport | None = None

    @property
    def state(self) -> NotebookState:
        return state_of(self.unfinished)

    def to_json(self) -> dict[str, Any]:
        doc = fields_json(self)
        del doc["unfinished"]
        return {**doc, **unfinished_json(self.unfinished)}


def state_of(unfinished: UnfinishedImport | None) -> NotebookState:
    """A notebook's state: incomplete while it holds part of an unfinished import."""
    return NotebookState.COMPLETE if unfinished is None else NotebookState.INCOMPLETE


def unfinished_json(unfinished: UnfinishedImport | None) -> dict[str, Any]:
    """The keys a notebook's JSON carries about its state (``notebooks --json``, MANIFEST.json)."""
    return {
        "state": str(state_of(unfinished)),
        "unfinished_import": None if unfinished is None else unfinished.to_json(),
    }


def _entry_dir(notebook_id: str) -> str:
    # Relative to the corpus root; the reader refuses any other folder for a notebook id.
    return f"notebooks/{notebook_id}"


def _parse_entry(raw: Any) -> IndexEntry:
    if not isinstance(raw, dict) or raw.get("op") != "register":
        raise ValueError("not a registration record")
    nbid = raw.get("notebook_id")
    if not is_valid_id(nbid) or raw.get("dir") != _entry_dir(str(nbid)):
        raise ValueError("bad notebook id or directory")
    title, created = raw.get("title"), raw.get("created_at")
    run = raw.get("import_run_id")
    if not isinstance(title, str) or not isinstance(created, str):
        raise ValueError("title or created_at missing")
    if run is not None and not is_valid_id(run):
        raise ValueError("bad import_run_id")
    if not isinstance(nbid, str) or not isinstance(raw.get("dir"), str):
        raise ValueError("id or dir missing")
    return IndexEntry(nbid, raw["dir"], title, created, run)


class Corpus:
    """One corpus on disk. Opening is cheap and writes nothing but a missing skeleton."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.root = data_dir / "corpus"
        self.notebooks_dir = self.root / "notebooks"
        self.runs_dir = self.root / "import-runs"
        self.quarantine_dir = self.root / "quarantine"
        self.index_path = self.root / INDEX_FILE
        fsio.guard_corpus(self.root)  # nothing written, moved or removed through a link
        self._lock = locks.make_lock(self.root / ".lock")
        self._index = _IndexCache()
        self._index_mutex = threading.Lock()
        self.corpus_id: str | None = None

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def open(cls, data_dir: Path, *, create: bool = True) -> Corpus:
        corpus = cls(Path(data_dir))
        ident = corpus.root / CORPUS_FILE
        if not ident.exists():
            if not create:
                raise TranscribeError(
                    ErrorCode.CORPUS_INVALID,
                    f"No corpus at {corpus.root}; check --data-dir or TRANSCRIBE_DATA_DIR.",
                    path=str(corpus.root),
                )
            corpus._initialise()
        corpus.corpus_id = corpus._read_identity()
        return corpus

    def _initialise(self) -> None:
        try:
            fsio.make_dirs(self.root)
            with self.locked():
                for d in (self.notebooks_dir, self.runs_dir, self.quarantine_dir):
                    fsio.make_dirs(d)
                ident = self.root / CORPUS_FILE
                if not fsio.exists(ident):
                    doc = {
                        "format": CORPUS_FORMAT,
                        "schema_version": CORPUS_SCHEMA,
                        "corpus_id": new_id(),
                        "created_at": utc_now(),
                    }
                    fsio.atomic_write(ident, orjson.dumps(doc, option=orjson.OPT_INDENT_2))
        except OSError as exc:
            raise fsio.problem_from_oserror(exc, self.root, "creating the corpus at") from exc

    def _read_identity(self) -> str:
        path = self.root / CORPUS_FILE
        try:
            doc = orjson.loads(fsio.read_bytes(path))
        except (OSError, orjson.JSONDecodeError) as exc:
            raise TranscribeError(
                ErrorCode.CORPUS_INVALID,
                f"{path} cannot be read ({exc}); restore it from a backup.",
                path=str(path),
            ) from None
        if (
            not isinstance(doc, dict)
            or doc.get("format") != CORPUS_FORMAT
            or doc.get("schema_version") != CORPUS_SCHEMA
            or not is_valid_id(doc.get("corpus_id"))
        ):
            raise TranscribeError(
                ErrorCode.CORPUS_INVALID,
                f"{path} is not a Transcribe corpus of schema version 1.",
                path=str(path),
            )
        return str(doc["corpus_id"])

    # -- locks -----------------------------------------------------------------------------

    @contextlib.contextmanager
    def locked(self, timeout: float = locks.CORPUS_LOCK_TIMEOUT) -> Iterator[None]:
        """The corpus lock, for short critical sections only."""
        with locks.hold(
            self._lock,
            timeout,
            ErrorCode.CORPUS_BUSY,
            f"The corpus at {self.root} is busy (another process holds its lock); "
            "wait for it to finish and try again.",
        ):
            yield

    def notebook_dir(self, notebook_id: str) -> Path:
        return self.notebooks_dir / check_id(notebook_id, "notebook_id")

    def outside_problem(self, notebook_id: str) -> str | None:
        """Why a notebook's folder is not inside the corpus (a link elsewhere), or None.

        Everything the app writes stays under ``corpus/``: a notebook folder replaced by a
        symbolic link (or under a linked folder) would have sources, renders and
        project.json written wherever it points. Writers refuse such a notebook, doctor
        reports it; neither follows it.
        """
        nb_dir = self.notebook_dir(notebook_id)
        link = fsio.first_link(self.root, nb_dir)
        if link is not None:
            return f"{link} is a symbolic link (to {os.readlink(link)}), not a folder"
        if not fsio.exists(nb_dir):
            return None
        inside = fsio.resolve(self.notebooks_dir)
        real = fsio.resolve(nb_dir)
        if real.parent != inside:
            return f"{nb_dir} resolves to {real}, outside {self.notebooks_dir}"
        return None

    # -- the index -------------------------------------------------------------------------

    def _refresh_index(self) -> _IndexCache:
        """Read what was appended since the last look; re-read all if the file was rewritten."""
        with self._index_mutex:
            cache = self._index
            try:
                size = fsio.stat(self.index_path).st_size
            except FileNotFoundError:
                self._index = _IndexCache()
                return self._index
            if size < cache.offset:
                cache = self._index = _IndexCache()
            if size == cache.offset:
                return cache
            with fsio.open_read(self.index_path) as f:
                f.seek(cache.offset)
                data = f.read(size - cache.offset)
            cache.torn_tail = None
            complete = data.rfind(b"\n") + 1  # what follows the last newline is a torn line
            if complete < len(data):
                cache.torn_tail = IndexDamage(
                    cache.line_no + data.count(b"\n", 0, complete) + 1,
                    cache.offset + complete,
                    "torn last line (no newline)",
                    data[complete:].decode("utf-8", "replace")[:200],
                )
            lines = data[:complete].split(b"\n")[:-1]
            numbered = [(k, ln) for k, ln in enumerate(lines) if ln.strip()]
            try:
                # Fast path: all lines at once (registering in a corpus of 10,000 notebooks
                # reads the whole index in a fresh process; one parse keeps that cheap).
                docs = orjson.loads(b"[" + b",".join(ln for _, ln in numbered) + b"]")
            except orjson.JSONDecodeError:
                docs = None
            offsets = None
            for pos, (k, line) in enumerate(numbered):
                try:
                    raw = docs[pos] if docs is not None else orjson.loads(line)
                    entry = _parse_entry(raw)
                except (orjson.JSONDecodeError, ValueError) as exc:
                    if offsets is None:
                        offsets = [0]
                        for ln in lines:
                            offsets.append(offsets[-1] + len(ln) + 1)
                    text = line.decode("utf-8", "replace")[:200]
                    cache.damage.append(
                        IndexDamage(
                            cache.line_no + k + 1, cache.offset + offsets[k], str(exc), text
                        )
                    )
                    continue
                cache.entries.setdefault(entry.notebook_id, entry)
            cache.line_no += len(lines)
            cache.offset += complete
            return cache

    def index_entries(self) -> dict[str, IndexEntry]:
        return dict(self._refresh_index().entries)

    def notebook_short_ids(self) -> ShortIds:
        """How every line names a notebook of this corpus: as runs are named
        (base/ids.short_id), so that what a line shows every command takes back."""
        return ShortIds.listed(self.index_entries)

    def index_damage(self) -> list[IndexDamage]:
        cache = self._refresh_index()
        return cache.damage + ([cache.torn_tail] if cache.torn_tail else [])

    def is_registered(self, notebook_id: str) -> bool:
        return notebook_id in self._refresh_index().entries

    def register(self, entry: IndexEntry, *, new_folder: bool = False) -> bool:
        """Append ``entry`` to the index unless it is there; the caller holds the corpus lock.

        ``new_folder``: the caller has just created the notebook's folder under the lock, so
        no registration of it can exist and the index need not be read: O(1) even in a fresh
        process. (A registration whose folder is missing is an integrity error doctor keeps
        reporting; a second line for it would be harmless, as the first line wins.)
        """
        if new_folder:
            torn = self._index_ends_torn()
        else:
            cache = self._refresh_index()
            if entry.notebook_id in cache.entries:
                return False
            torn = cache.torn_tail is not None
        line = orjson.dumps(entry.to_json()) + b"\n"
        if torn:
            # Keep the torn fragment as its own (damaged) line for doctor to report.
            line = b"\n" + line
        try:
            fsio.append_durable(self.index_path, line)
        except OSError as exc:
            raise fsio.problem_from_oserror(
                exc, self.index_path, "registering a notebook in"
            ) from exc
        crashpoint("register.after_append")
        return True

    def _index_ends_torn(self) -> bool:
        """Whether the index's last byte is not a newline (a crash cut an append short)."""
        return fsio.ends_torn(self.index_path)

    def rewrite_index(self, entries: list[IndexEntry]) -> None:
        """Replace the whole index (doctor's repair); the caller holds the corpus lock."""
        data = b"".join(orjson.dumps(e.to_json()) + b"\n" for e in entries)
        fsio.atomic_write(self.index_path, data)
        with self._index_mutex:
            self._index = _IndexCache()

    # -- notebooks -------------------------------------------------------------------------

    def create_notebook(
        self,
        notebook_id: str,
        title: str,
        *,
        import_run_id: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> Path:
        """Create and register an empty notebook with a preallocated id (idempotent).

        The manifest is written in a hidden folder and renamed into place, so
        ``notebooks/<id>/`` never exists without a valid ``project.json``; both steps
        and the registration happen under the corpus lock, so ``doctor`` (which
        takes the lock too) never mistakes a creation in progress for a leftover.
        """
        final = fsio.corpus_folder(self.root, self.notebook_dir(notebook_id))
        if import_run_id is not None:
            check_id(import_run_id, "import_run_id")
        try:
            with self.locked():
                if not fsio.exists(final):
                    staging = self.notebooks_dir / f"{CREATING_PREFIX}{notebook_id}"
                    if fsio.exists(staging):
                        fsio.remove_tree(staging)
                    fsio.make_dirs(staging)
                    doc = project.new_project(notebook_id, title)
                    if import_run_id is not None:
                        doc["import_run_id"] = import_run_id
                    if extra:
                        doc.update(extra)
                    project.write(staging, doc)
                    crashpoint("create.before_rename")
                    fsio.replace(staging, final)
                    fsio.fsync_dir(self.notebooks_dir)
                    crashpoint("create.before_register")
                    created_at = doc["created_at"]
                    new_folder = True
                else:
                    created_at = project.read(final, notebook_id)["created_at"]
                    new_folder = False
                self.register(
                    IndexEntry.of_notebook(notebook_id, title, created_at, import_run_id),
                    new_folder=new_folder,
                )
        except OSError as exc:
            raise fsio.problem_from_oserror(exc, final, "creating the notebook") from exc
        crashpoint("create.after_register")
        return final

    def notebook_title(self, notebook_id: str) -> str | None:
        """The title ``notebooks`` lists for a registered notebook; None for an unknown id."""
        entry = self.index_entries().get(notebook_id)
        if entry is None:
            return None
        try:
            doc = project.read(self.root / entry.directory, notebook_id)
        except TranscribeError:
            return entry.title  # a damaged manifest: the title it was registered under
        return _title(doc, entry)

    def list_notebooks(self) -> list[NotebookSummary]:
        """Every registered notebook, oldest first, with its page count from its manifest."""
        out: list[NotebookSummary] = []
        for entry in self.index_entries().values():
            directory = self.root / entry.directory
            try:
                doc = project.read(directory, entry.notebook_id)
            except TranscribeError as exc:
                out.append(
                    NotebookSummary(
                        entry.notebook_id,
                        entry.title,
                        None,
                        None,
                        entry.created_at,
                        directory,
                        str(exc),
                    )
                )
                continue
            title = _title(doc, entry)
            out.append(
                NotebookSummary(
                    entry.notebook_id,
                    title,
                    len(doc["pages"]),
                    len(doc["sources"]),
                    doc.get("created_at", entry.created_at),
                    directory,
                    None,
                )
            )
        out.sort(key=lambda s: (s.created_at, s.notebook_id))
        return out


def _title(doc: Mapping[str, Any], entry: IndexEntry) -> str:
    """A notebook's title: its manifest's (renames write it there), else its registration's."""
    title = doc.get("title")
    return title if isinstance(title, str) else entry.title
