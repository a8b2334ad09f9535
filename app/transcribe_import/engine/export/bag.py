"""Write notebooks out of the corpus as one BagIt 1.0 bag (docs/formats.md, "The export bag").

The order of the writes is the crash safety. ``EXPORT-INCOMPLETE.txt`` is written before
any payload file and removed only after ``bagit.txt``, and ``bagit.txt`` (the BagIt
declaration, without which no validator takes a folder for a bag) is written last of the
tag files. So a folder cut short at any point before the end says it is incomplete and
does not validate; ``bagit.txt`` is the commit point.

Every payload byte is hashed while it is copied and compared with the sha256 the
notebook's ``project.json`` records. A file that is missing, unreadable or different is left
out of the payload, named in ``MANIFEST.json``, and kept in ``manifest-sha256.txt`` under the
recorded hash: the export is then ``partial`` and no BagIt validator accepts the bag.

Each notebook's ``project.json`` is read once, before the destination is touched. It is
replaced atomically, so that read is one whole version, and the export carries exactly the
files it lists: an ingest running meanwhile only adds entries (and files) this export does
not know about. Only an undo removes files a committed manifest lists: a file missing because
its notebook changed since the read stops the export (``_check_unchanged``) rather than seal a
``partial`` bag that would look like damage.

The payload is streamed through this module's own copy (open, read, write, fsync) rather
than ``fsio.copy_hashed`` because a failing read (the corpus file: the export goes on,
``partial``) and a failing write (the destination: the export stops) must be told apart.

About 700 lines, over the usual 500: the order of the writes is the crash safety, so the
snapshot, the verified copy and the tag files are the steps of one ``_Writer`` and stay
together; the export's vocabulary (``model``), its destination lock (``destination``), the
bag's README (``readme``), its small tag texts (``tags``) and the check of a written bag
(``verify``) are modules of their own.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import re
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from transcribe_import import __version__
from transcribe_import.engine.base.clock import utc_now, utc_stamp
from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.ids import is_sha256, is_valid_id, new_id
from transcribe_import.engine.base.text import counted
from transcribe_import.engine.export import destination as dest_mod
from transcribe_import.engine.export.model import (
    UNKNOWN_SHA256,
    ExportPhase,
    ExportProgress,
    ExportResult,
    ExportStatus,
    FileKind,
    MissingFile,
    MissingReason,
    NotebookExport,
)
from transcribe_import.engine.export.readme import readme_text
from transcribe_import.engine.export.tags import bag_info, incomplete_note
from transcribe_import.engine.storage import fsio, project
from transcribe_import.engine.storage.bag_format import (
    BAG_INFO,
    BAGIT_DECLARATION,
    BAGIT_TXT,
    DATA,
    EXPORT_FORMAT,
    EXPORT_SCHEMA,
    INCOMPLETE,
    LOCK_FILE,
    MANIFEST_JSON,
    NOTEBOOKS,
    PAYLOAD_MANIFEST,
    README,
    TAG_MANIFEST,
    chain_hash,
    manifest_lines,
    notebook_folder,
)
from transcribe_import.engine.storage.corpus import Corpus, UnfinishedImport

_EXT = re.compile(r"[a-z0-9]{1,8}")
CHUNK = fsio.CHUNK


# -- the snapshot: what each notebook's project.json lists, read once ---------------------------


@dataclass(frozen=True)
class _Job:
    """One payload file to copy: from the corpus, to its bag path, with the hash to expect."""

    notebook_id: str
    kind: FileKind
    src: Path
    bag_path: str
    expected_sha256: str
    size: int  # for progress only: from stat, 0 when the file cannot be stat'ed


@dataclass(frozen=True)
class _Notebook:
    notebook_id: str
    project_bytes: bytes | None  # None: the manifest cannot be used (see ``invalid``)
    project_sha256: str | None
    jobs: tuple[_Job, ...]
    title: str | None
    source_count: int | None
    page_count: int | None
    invalid: MissingFile | None
    manifest: Path  # its project.json in the corpus


def _entry_problem(doc: dict[str, Any]) -> str | None:
    """Why an entry of a parsed manifest cannot be exported safely, or None."""
    seen: dict[str, str] = {}

    def check(path: Any, sha: Any, expected_path: str, what: str) -> str | None:
        if path != expected_path:
            return f"{what} has path {path!r}, expected {expected_path!r}"
        if not is_sha256(sha):
            return f"{what} has no valid sha256"
        if seen.setdefault(path, sha) != sha:
            return f"{path} is listed twice with different hashes"
        return None

    for i, s in enumerate(doc["sources"]):
        if not isinstance(s, dict) or not is_valid_id(s.get("id")):
            return f"sources[{i}] has no valid id"
        path = s.get("path")
        ext = path.rpartition(".")[2] if isinstance(path, str) else ""
        if not _EXT.fullmatch(ext):
            return f"sources[{i}] has path {path!r}, not sources/<id>.<ext>"
        problem = check(path, s.get("sha256"), f"sources/{s['id']}.{ext}", f"sources[{i}]")
        if problem:
            return problem
    # The pages, then those a rescan replaced (the history travels with the notebook).
    history = [(f"{project.REPLACED_PAGES}[{i}].page", p) for i, p in enumerate(_history(doc))]
    for what, p in [(f"pages[{i}]", p) for i, p in enumerate(doc["pages"])] + history:
        render = p.get("render") if isinstance(p, dict) else None
        if not isinstance(p, dict) or not is_valid_id(p.get("render_id")):
            return f"{what} has no valid render_id"
        if not isinstance(render, dict):
            return f"{what} has no render"
        expected = f"renders/{p['render_id']}.png"
        problem = check(render.get("path"), render.get("sha256"), expected, f"{what}.render")
        if problem:
            return problem
    return None


def _history(doc: dict[str, Any]) -> list[Any]:
    """The replaced pages' records as the manifest has them (each checked by the caller)."""
    return [
        e.get("page") if isinstance(e, dict) else e for e in doc.get(project.REPLACED_PAGES, [])
    ]


def _size_of(path: Path) -> int:
    try:
        return fsio.stat(path).st_size
    except OSError:
        return 0  # it will be reported when it is copied


def _snapshot(corpus: Corpus, notebook_id: str) -> _Notebook:
    folder = corpus.notebook_dir(notebook_id)
    manifest = folder / project.PROJECT_FILE
    bag_project = f"{notebook_folder(notebook_id)}/{project.PROJECT_FILE}"

    def invalid(message: str, sha: str | None) -> _Notebook:
        missing = MissingFile(
            bag_project,
            notebook_id,
            FileKind.PROJECT,
            sha,
            MissingReason.MANIFEST_INVALID,
            f"{message} Notebook {notebook_id} was not exported: run `transcribe-import "
            "doctor`, repair or restore its project.json, then export it again.",
        )
        return _Notebook(notebook_id, None, None, (), None, None, None, missing, manifest)

    try:
        data = fsio.read_bytes(manifest)
    except FileNotFoundError:
        return invalid(f"{manifest} does not exist.", None)
    except OSError as exc:
        return invalid(f"{manifest} could not be read ({exc.strerror or exc}).", None)
    sha = hashlib.sha256(data).hexdigest()
    try:
        doc = project.parse(data, expected_id=notebook_id, where=manifest)
    except TranscribeError as exc:
        return invalid(str(exc), sha)
    problem = _entry_problem(doc)
    if problem:
        return invalid(f"{manifest}: {problem}.", sha)
    jobs: list[_Job] = []
    listed: set[str] = set()
    entries = [(FileKind.SOURCE, s) for s in doc["sources"]] + [
        (FileKind.RENDER, p["render"]) for p in [*doc["pages"], *_history(doc)]
    ]
    for kind, entry in entries:
        rel = entry["path"]
        if rel in listed:
            continue  # checked above to carry the same hash
        listed.add(rel)
        src = folder / rel
        jobs.append(
            _Job(
                notebook_id,
                kind,
                src,
                f"{notebook_folder(notebook_id)}/{rel}",
                entry["sha256"],
                _size_of(src),
            )
        )
    title = doc.get("title")
    return _Notebook(
        notebook_id,
        data,
        sha,
        tuple(jobs),
        title if isinstance(title, str) else None,
        len(doc["sources"]),
        len(doc["pages"]),
        None,
        manifest,
    )


def resolve_notebooks(corpus: Corpus, notebook_ids: Sequence[str]) -> list[str]:
    """The ids, each once in the order given, every one a registered notebook; else usage.

    No id at all (``--all`` on a corpus with no notebook yet) is refused too: a bag that
    holds nothing would validate as a "complete" export of nothing, which no one asked for.
    """
    if not notebook_ids:
        raise TranscribeError(
            ErrorCode.EXPORT_NOTHING,
            f"The corpus at {corpus.root} holds no notebook yet, so there is nothing to "
            "export. Import some notebooks first. Nothing was written.",
        )
    try:
        registered = corpus.index_entries()
    except OSError as exc:
        raise fsio.problem_from_oserror(exc, corpus.index_path, "reading") from exc
    unknown = [n for n in notebook_ids if not is_valid_id(n) or n not in registered]
    if unknown:
        shown = ", ".join(repr(n) for n in unknown[:5]) + (" …" if len(unknown) > 5 else "")
        raise TranscribeError(
            ErrorCode.NOTEBOOK_NOT_FOUND,
            f"No notebook {shown} in {corpus.root}; `transcribe-import notebooks` lists the "
            "ids. Nothing was exported.",
            item=unknown[0],
        )
    return list(dict.fromkeys(notebook_ids))


# -- copying one file ----------------------------------------------------------------------


class _Cancelled(Exception):
    pass


class _DestinationFailed(Exception):
    """A write into the destination failed; the coded error is worded once the folder is left."""

    def __init__(self, cause: OSError, path: Path) -> None:
        super().__init__(str(cause))
        self.cause = cause
        self.path = path

    def coded(self, dest: Path, left: str) -> TranscribeError:
        """The one coded error, saying what the folder was left as (``left``)."""
        base = fsio.problem_from_oserror(self.cause, self.path, "writing the export")
        return TranscribeError(
            base.code,
            f"The export into {dest} stopped: writing {self.path} failed "
            f"({self.cause.strerror or self.cause}). The corpus is unchanged; {left} Free some "
            "space or fix the disk, and export again.",
            path=str(self.path),
        )


class _ChangedUnder(Exception):
    """A notebook lost files because something changed it while it was exported (an undo)."""

    def __init__(self, notebook_id: str) -> None:
        super().__init__(f"notebook {notebook_id} changed while it was being exported (an undo).")
        self.notebook_id = notebook_id

    def coded(self, dest: Path, left: str) -> TranscribeError:
        return TranscribeError(
            ErrorCode.NOTEBOOK_BUSY,
            f"Notebook {self.notebook_id} changed while it was being exported: files its "
            "project.json listed were taken out (an undo of its import ran at the same time). "
            f"The export into {dest} stopped and the corpus is unchanged; {left} Export again "
            "once the undo has ended.",
            item=self.notebook_id,
        )


def _check_unchanged(nb: _Notebook) -> None:
    """Stop the export when a file is missing because its notebook changed since the snapshot.

    An undo moves a notebook's files out while it runs; sealing the bag ``partial`` then
    would say the corpus is damaged (and advise a restore) when it is not. Checked only when
    a file is missing, so a whole export costs nothing more.
    """
    try:
        now: str | None = hashlib.sha256(fsio.read_bytes(nb.manifest)).hexdigest()
    except FileNotFoundError:
        now = None  # the whole notebook was moved out
    except OSError:
        return  # cannot tell: the missing file is reported as what it is
    if now != nb.project_sha256:
        raise _ChangedUnder(nb.notebook_id)


def _copy_verified(
    job: _Job, dst: Path, dest: Path, should_stop: Callable[[], bool]
) -> tuple[int, MissingFile | None]:
    """Stream ``job.src`` into the new file ``dst``, hashing it; keep it only if it is right.

    Returns the bytes kept and None, or 0 and what went wrong with the corpus file. A
    destination failure raises; a stop request raises ``_Cancelled`` (``dst`` removed).
    """
    h = hashlib.sha256()
    size = 0
    problem: MissingFile | None = None

    def missing(reason: MissingReason, message: str) -> MissingFile:
        return MissingFile(
            job.bag_path, job.notebook_id, job.kind, job.expected_sha256, reason, message
        )

    with contextlib.ExitStack() as stack:
        try:
            fin = stack.enter_context(fsio.open_read(job.src))
        except FileNotFoundError:
            return 0, missing(
                MissingReason.MISSING,
                f"{job.src} is missing from the corpus, though its project.json lists it; run "
                "`transcribe-import doctor`, restore the file from a backup, then export again.",
            )
        except OSError as exc:
            return 0, missing(
                MissingReason.UNREADABLE,
                f"{job.src} could not be read ({exc.strerror or exc}); check its permissions "
                "and the disk, then export again.",
            )
        try:
            # "x": the destination was empty, so a name that exists is a bug, never a file to
            # overwrite.
            fout = stack.enter_context(open(dst, "xb"))  # noqa: SIM115 - closed by the stack
        except OSError as exc:
            raise _DestinationFailed(exc, dst) from exc
        try:
            while True:
                if should_stop():
                    raise _Cancelled
                try:
                    chunk = fin.read(CHUNK)
                except OSError as exc:
                    problem = missing(
                        MissingReason.UNREADABLE,
                        f"{job.src} could not be read to its end ({exc.strerror or exc}); "
                        "check the disk, then export again.",
                    )
                    break
                if not chunk:
                    break
                h.update(chunk)
                size += len(chunk)
                try:
                    fout.write(chunk)
                except OSError as exc:
                    raise _DestinationFailed(exc, dst) from exc
            if problem is None and h.hexdigest() != job.expected_sha256:
                problem = missing(
                    MissingReason.HASH_MISMATCH,
                    f"{job.src} has sha256 {h.hexdigest()}, not the {job.expected_sha256} its "
                    "project.json records: the file was damaged or replaced. Run "
                    "`transcribe-import doctor --verify-hashes`, restore it from a backup, then "
                    "export again.",
                )
            if problem is None:
                try:
                    fout.flush()
                    os.fsync(fout.fileno())
                except OSError as exc:
                    raise _DestinationFailed(exc, dst) from exc
                return size, None
        except BaseException:
            stack.close()
            with contextlib.suppress(OSError):
                fsio.remove(dst)
            raise
    # Only verified bytes stay in a bag.
    try:
        fsio.remove(dst)
    except OSError as exc:
        raise _DestinationFailed(exc, dst) from exc
    return 0, problem


# -- the export ------------------------------------------------------------------------------


class _Writer:
    """One export's state while it writes its bag: what is copied, expected and missing."""

    def __init__(
        self,
        dest: Path,
        snapshot: list[_Notebook],
        corpus_id: str,
        agent: str,
        started: datetime,
    ) -> None:
        self.dest = dest
        self.snapshot = snapshot
        self.corpus_id = corpus_id
        self.agent = agent
        self.unfinished: dict[str, UnfinishedImport] = {}  # incomplete notebooks: marked so
        self.export_id = new_id()
        self.started_dt = started  # the date in the default folder's name and Bagging-Date
        self.started = utc_stamp(started)
        self.files: dict[str, str] = {}  # carried: bag path -> sha256
        self.expected: dict[str, str] = {}  # manifest-sha256.txt: carried or not
        self.missing: list[MissingFile] = []
        self.payload_bytes = 0
        self.done = 0
        self.total = sum(len(nb.jobs) + 1 for nb in snapshot)
        self.bytes_total = sum(
            len(nb.project_bytes or b"") + sum(j.size for j in nb.jobs) for nb in snapshot
        )
        self.made_dirs: list[Path] = [dest / DATA, dest / NOTEBOOKS]
        self.marked = False  # EXPORT-INCOMPLETE.txt is in the folder
        self.warnings: list[str] = []

    def progress(self, phase: ExportPhase, **kw: Any) -> ExportProgress:
        return ExportProgress(
            phase, self.done, self.total, self.payload_bytes, self.bytes_total, **kw
        )

    def note(self, state: str) -> bytes:
        return incomplete_note(self.export_id, self.started, state)

    def mark(self, state: str) -> None:
        fsio.atomic_write(self.dest / INCOMPLETE, self.note(state))
        self.marked = True

    def payload(self, stop: Callable[[], bool]) -> Generator[ExportProgress, None, None]:
        fsio.make_dirs(self.dest / NOTEBOOKS)  # a bag has data/, even an empty one
        for nb in self.snapshot:
            folder = self.dest / notebook_folder(nb.notebook_id)
            bag_project = f"{notebook_folder(nb.notebook_id)}/{project.PROJECT_FILE}"
            if nb.invalid is not None or nb.project_bytes is None or nb.project_sha256 is None:
                assert nb.invalid is not None
                self.missing.append(nb.invalid)
                self.expected[bag_project] = nb.invalid.expected_sha256 or UNKNOWN_SHA256
                self.done += 1
                yield self.progress(
                    ExportPhase.COPYING,
                    notebook_id=nb.notebook_id,
                    current=bag_project,
                    missing=nb.invalid,
                )
                continue
            if stop():
                raise _Cancelled
            for sub in ("sources", "renders"):
                fsio.make_dirs(folder / sub)
            self.made_dirs += [folder, folder / "sources", folder / "renders"]
            # The bytes as read: every key kept, unknown ones too, in their own layout.
            fsio.write_new(folder / project.PROJECT_FILE, nb.project_bytes)
            self.files[bag_project] = self.expected[bag_project] = nb.project_sha256
            self.payload_bytes += len(nb.project_bytes)
            self.done += 1
            crashpoint("export.after_file")
            yield self.progress(
                ExportPhase.COPYING, notebook_id=nb.notebook_id, current=bag_project
            )
            for job in nb.jobs:
                if stop():
                    raise _Cancelled
                size, problem = _copy_verified(job, self.dest / job.bag_path, self.dest, stop)
                self.expected[job.bag_path] = job.expected_sha256
                if problem is None:
                    self.files[job.bag_path] = job.expected_sha256
                    self.payload_bytes += size
                else:
                    _check_unchanged(nb)
                    self.missing.append(problem)
                self.done += 1
                crashpoint("export.after_file")
                yield self.progress(
                    ExportPhase.COPYING,
                    notebook_id=nb.notebook_id,
                    current=job.bag_path,
                    missing=problem,
                )

    def result(self, status: ExportStatus, chain: str | None) -> ExportResult:
        notebooks = tuple(
            NotebookExport.of(nb, status, self.missing, self.unfinished) for nb in self.snapshot
        )
        return ExportResult(
            self.dest,
            self.export_id,
            self.corpus_id,
            status,
            notebooks,
            dict(self.files),
            tuple(self.missing),
            self.payload_bytes,
            chain,
        )

    def finish(self) -> ExportResult:
        """Write the tag files, ``bagit.txt`` last, then remove the incomplete marker."""
        # Each payload file was fsynced as it was written; now their folders' entries, before
        # any tag file declares the payload whole.
        for d in reversed(self.made_dirs):
            if fsio.exists(d):
                fsio.fsync_dir(d)
        status = ExportStatus.PARTIAL if self.missing else ExportStatus.COMPLETE
        result = self.result(status, chain_hash(self.files.items()))
        manifest_doc = {
            "format": EXPORT_FORMAT,
            "schema_version": EXPORT_SCHEMA,
            "export_id": self.export_id,
            "corpus_id": self.corpus_id,
            "exported_at": self.started,
            "software": self.agent,
            "status": str(status),
            "notebooks": [n.to_json() for n in result.notebooks],
            "files": {k: self.files[k] for k in sorted(self.files, key=lambda s: s.encode())},
            "missing": [m.to_json() for m in self.missing],
            "chain_hash": result.chain_hash,
        }
        tags = {
            PAYLOAD_MANIFEST: manifest_lines(self.expected),
            BAG_INFO: bag_info(
                software=self.agent,
                started=self.started_dt,
                exported_at=self.started,
                payload_bytes=self.payload_bytes,
                payload_files=len(self.files),
                corpus_id=self.corpus_id,
                export_id=self.export_id,
                status=status,
                notebooks=len(self.snapshot),
            ),
            README: readme_text(result, self.agent, self.started).encode("utf-8"),
            MANIFEST_JSON: orjson.dumps(manifest_doc, option=orjson.OPT_INDENT_2) + b"\n",
        }
        tag_hashes = {name: hashlib.sha256(data).hexdigest() for name, data in tags.items()}
        tag_hashes[BAGIT_TXT] = hashlib.sha256(BAGIT_DECLARATION).hexdigest()
        tags[TAG_MANIFEST] = manifest_lines(tag_hashes)
        for name, data in tags.items():
            fsio.atomic_write(self.dest / name, data)
        crashpoint("export.before_bagit")
        fsio.atomic_write(self.dest / BAGIT_TXT, BAGIT_DECLARATION)  # the commit point
        crashpoint("export.after_bagit")
        try:
            fsio.remove(self.dest / INCOMPLETE)
            fsio.fsync_dir(self.dest)
        except OSError as exc:
            # The bag is whole and validates from bagit.txt on: a note that cannot be removed
            # is a leftover to delete, not an incomplete export.
            self.warnings.append(
                f"{self.dest / INCOMPLETE} could not be removed ({exc.strerror or exc}); the "
                "bag is complete and validates: delete that file (the import refuses the bag "
                "while it is there)."
            )
        return dataclasses.replace(result, warnings=tuple(self.warnings))


# What the note says while the export writes.
RUNNING = "it is running."


def _leave_incomplete(
    writer: _Writer, reservation: dest_mod.Reservation, exc: BaseException, *, remove_folder: bool
) -> str:
    """Leave a stopped export's folder saying so, or leave nothing; what was left, in words.

    Best effort, the disk may be failing: the note is rewritten with why the export
    stopped; a folder that never got the note loses what the export put in it.
    """
    dest = writer.dest
    why = (
        str(exc)
        if isinstance(exc, TranscribeError | _ChangedUnder)
        else f"it was stopped before its end ({type(exc).__name__})."
    )
    with contextlib.suppress(OSError):
        # A failure after bagit.txt was renamed into place (its folder's fsync) must not
        # leave a folder that validates while the export reported an error.
        fsio.remove(dest / BAGIT_TXT)
    with contextlib.suppress(OSError):
        writer.mark(f"{why} (at {utc_now()})")
    if writer.marked:
        try:
            declared = fsio.exists(dest / BAGIT_TXT)
        except OSError:
            declared = True  # cannot tell: say the worst
        if declared:
            return (
                f"{INCOMPLETE} in that folder says the export is incomplete, though bagit.txt "
                "could not be removed: delete the folder."
            )
        return f"{INCOMPLETE} in that folder says the export is incomplete: delete the folder."
    reservation.release()
    try:
        if remove_folder:
            fsio.remove_dir(dest)
        if not fsio.exists(dest):
            return "nothing of the export was left (its folder was removed)."
        if not fsio.list_dir(dest):
            return f"nothing of the export was left in {dest}."
    except OSError:
        pass  # the disk is failing: say what the folder may hold
    return (
        f"{dest} could not be marked incomplete and may still hold the export's lock file "
        f"({LOCK_FILE}): delete the folder."
    )


def export_bag(
    corpus: Corpus,
    notebook_ids: Sequence[str],
    destination: Path | None = None,
    *,
    should_stop: Callable[[], bool] | None = None,
    software: str | None = None,
    unfinished: dict[str, UnfinishedImport] | None = None,
) -> Generator[ExportProgress, None, ExportResult]:
    """Export the notebooks into ``destination`` (default: a fresh ``DATA_DIR/exports/`` folder).

    A generator of ``ExportProgress``; its return value is the ``ExportResult`` (status
    ``complete``, ``partial`` or ``cancelled``). Refuses, before writing anything, unknown
    notebook ids (``notebook_not_found``), a destination that is a file or inside the corpus
    (``export_destination_invalid``), one another export holds (``export_locked``) and a
    non-empty one (``export_destination_not_empty``). A destination write failure raises
    (``disk_full``, ``io_error``), leaving the folder marked incomplete. ``unfinished``: the
    incomplete notebooks (runs/incomplete.py), each marked so in MANIFEST.json and README.md.
    """
    stop = should_stop or (lambda: False)
    ids = resolve_notebooks(corpus, notebook_ids)
    snapshot = [_snapshot(corpus, n) for n in ids]
    started = datetime.now(UTC)
    if destination is None:
        # Made new here, so it is ours: a failed export removes it like a folder it created.
        dest = dest_mod.default_destination(
            corpus.data_dir, [nb.title for nb in snapshot], started.date()
        )
        existed = False
    else:
        try:
            dest = dest_mod.check_destination(destination, corpus.root)
            existed = fsio.exists(dest)
        except OSError as exc:
            raise fsio.problem_from_oserror(exc, destination, "checking the export folder") from exc
    writer = _Writer(
        dest,
        snapshot,
        corpus.corpus_id or "",
        software or f"transcribe-import {__version__}",
        started,
    )
    writer.unfinished = unfinished or {}
    reservation = dest_mod.reserve(dest, writer.note(RUNNING))  # the note first, then the lock
    writer.marked = True
    ended = False
    try:
        try:
            yield writer.progress(ExportPhase.RESERVED)
            yield from writer.payload(stop)
            yield writer.progress(ExportPhase.FINISHING)
            result = writer.finish()
        except OSError as exc:
            # Reads of the corpus are judged in _copy_verified; what reaches here is the
            # destination failing.
            raise _DestinationFailed(exc, fsio.failed_path(exc, dest)) from exc
        ended = True
        reservation.release()  # before DONE: a caller seeing DONE may reuse the folder's name
        yield writer.progress(ExportPhase.DONE)
        return result
    except _Cancelled:
        with contextlib.suppress(OSError):
            writer.mark(
                f"it was cancelled at {utc_now()} after {writer.done} of "
                f"{counted(writer.total, 'file')}."
            )
        return writer.result(ExportStatus.CANCELLED, None)
    except BaseException as exc:
        if ended:
            raise
        left = _leave_incomplete(writer, reservation, exc, remove_folder=not existed)
        if isinstance(exc, _DestinationFailed):
            raise exc.coded(dest, left) from exc.cause
        if isinstance(exc, _ChangedUnder):
            raise exc.coded(dest, left) from None
        raise
    finally:
        reservation.release()
