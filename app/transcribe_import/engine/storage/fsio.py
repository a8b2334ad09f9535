"""The one module that touches the file system for the engine, so faults can be injected here.

Every operation calls ``_tick`` first. Tests install a ``FaultPlan`` that fails the
N-th operation (once, or from then on) with an errno such as ENOSPC or EIO; the
engine must leave the corpus whole whatever operation fails.

Durability rule: fsync errors fail the operation and are never retried (after a
failed fsync the kernel may have dropped the dirty pages, so a retry that
"succeeds" would lie).

About 650 lines, over the usual 500, on purpose: being the one module that touches the file
system is what lets ``_tick`` see every operation, so the fault-injection tests (ENOSPC and
EIO at each operation in turn) stay complete; a second I/O module would be a way round them.
Its parts, bounded reads of regular files, the guard of the corpus's folders (no symbolic
link on the way) and durable writes, share ``_tick`` and the refusal types; what an error
means in words is ``oserrors``.
"""

from __future__ import annotations

import contextlib
import errno as errno_mod
import hashlib
import io
import os
import shutil
import stat as stat_mod
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, TypeVar, cast

from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError

# What an OSError means to a person, re-exported: callers name them as fsio.X.
from transcribe_import.engine.storage.oserrors import CodedOSError
from transcribe_import.engine.storage.oserrors import RefusedRead as RefusedRead
from transcribe_import.engine.storage.oserrors import failed_path as failed_path
from transcribe_import.engine.storage.oserrors import (
    problem_from_oserror as problem_from_oserror,
)

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

CHUNK = 1024 * 1024
_T = TypeVar("_T")


@dataclass
class FaultPlan:
    """Fail the ``fail_at``-th file-system operation (1-based) with ``errno``."""

    fail_at: int
    errno: int = errno_mod.EIO
    persistent: bool = False
    count: int = 0
    fired: int = 0
    ops: list[str] = field(default_factory=list)


_fault_lock = threading.Lock()
_fault: FaultPlan | None = None


def install_faults(plan: FaultPlan | None) -> None:
    """Install (or with None, remove) a fault plan for this process. Test use only."""
    global _fault
    with _fault_lock:
        _fault = plan


def _tick(op: str, path: str | os.PathLike[str]) -> None:
    plan = _fault
    if plan is None:
        return
    with _fault_lock:
        plan.count += 1
        plan.ops.append(op)
        due = plan.count == plan.fail_at or (plan.persistent and plan.count > plan.fail_at)
        if due:
            plan.fired += 1
    if due:
        raise OSError(plan.errno, f"{os.strerror(plan.errno)} (injected at {op})", str(path))


# -- reading: regular files only, and never past their bound -------------------------------
#
# Every read of a user's file (a source, a plan, a bag) and of the corpus's own files opens
# it through ``open_regular``: the kind of file is judged on the opened descriptor (never a
# stat of the path and then an open, which a swapped path defeats), a named pipe is opened
# without waiting for a writer, and the bytes read never pass the file's bound. So a source
# swapped for a FIFO or a link to /dev/zero is refused at once instead of hanging the app or
# filling the corpus's disk.

# The most a document read whole into memory (a plan, project.json, a run record, a bag's
# tag file) may be: a 100,000-item plan is well under it.
MAX_DOCUMENT_BYTES = 256 * 1024 * 1024
# How often (in bytes read) a long read asks ``should_stop``.
_STOP_POLL_BYTES = CHUNK

_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)


class NotRegularFile(RefusedRead):
    """A named pipe, a device, a socket, a folder (or, not followed, a link) where a file was."""

    def __init__(self, path: str | os.PathLike[str], kind: str) -> None:
        super().__init__(path, f"{kind}, not a regular file", errno_mod.EINVAL)
        self.kind = kind


class FileChanged(RefusedRead):
    """A file whose size is not the one planned (or that grew or shrank while being read)."""

    code = ErrorCode.SOURCE_CHANGED

    def __init__(self, path: str | os.PathLike[str], planned: int, now: str) -> None:
        super().__init__(
            path, f"changed since it was planned ({planned} bytes then, {now})", errno_mod.EIO
        )
        self.planned = planned

    def message(self, where: str) -> str:
        return f"{where} {self.strerror}; plan it again to pick up the new version."


class FileTooLarge(RefusedRead):
    """A file larger than the most its kind may be."""

    def __init__(self, path: str | os.PathLike[str], limit: int) -> None:
        mib = f"{limit / (1024 * 1024):.0f} MiB" if limit >= 1024 * 1024 else f"{limit} bytes"
        super().__init__(path, f"larger than {mib}, the most such a file may be", errno_mod.EFBIG)
        self.limit = limit


class SourceUnreadable(RefusedRead):
    """Reading the file being copied failed (a failing card or disk): that file's problem,
    not the destination's, so it fails its own item and not the whole run."""

    def __init__(self, path: str | os.PathLike[str], cause: OSError) -> None:
        why = cause.strerror or str(cause)
        super().__init__(path, f"could not be read ({why})", cause.errno or errno_mod.EIO)

    def message(self, where: str) -> str:
        return (
            f"{where} {self.strerror}: the disk or card it is on may be failing. Copy it "
            "again from the original, or leave it out, then commit the plan again."
        )


def _source_side(exc: OSError, path: Path) -> OSError:
    """A read error of a file being copied, as the source's own (``SourceUnreadable``)."""
    if isinstance(exc, RefusedRead | FileNotFoundError | PermissionError):
        return exc
    return SourceUnreadable(path, exc)


class ReadStopped(Exception):
    """``should_stop`` turned true during a read; nothing is wrong with the file."""


def _kind(mode: int) -> str:
    if stat_mod.S_ISFIFO(mode):
        return "a named pipe"
    if stat_mod.S_ISCHR(mode) or stat_mod.S_ISBLK(mode):
        return "a device"
    if stat_mod.S_ISSOCK(mode):
        return "a socket"
    if stat_mod.S_ISDIR(mode):
        return "a folder"
    if stat_mod.S_ISLNK(mode):
        return "a symbolic link"
    return "a special file"


class _BoundedRaw(io.RawIOBase):
    """The raw reader under ``open_regular``'s buffer: reads stop at the bound.

    With ``size`` the file must have exactly that many bytes: data past it, or an end
    before it, is ``FileChanged``. Without, data past ``max_bytes`` is ``FileTooLarge``.
    At the bound one byte is tried to tell "ends here" from "goes on", so no read ever
    takes more than the bound plus one byte.
    """

    def __init__(
        self,
        raw: io.FileIO,
        path: Path,
        bound: int | None,
        exact: bool,
        should_stop: Callable[[], bool] | None,
    ) -> None:
        super().__init__()
        self._raw = raw
        self._path = path
        self._bound = bound
        self._exact = exact
        self._should_stop = should_stop
        self._unpolled = _STOP_POLL_BYTES  # ask on the first read

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._raw.fileno()

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return self._raw.seek(offset, whence)

    def tell(self) -> int:
        return self._raw.tell()

    def close(self) -> None:
        if not self.closed:
            self._raw.close()
        super().close()

    def readinto(self, buffer: WriteableBuffer) -> int:
        view = memoryview(buffer).cast("B")
        if self._should_stop is not None and self._unpolled >= _STOP_POLL_BYTES:
            self._unpolled = 0
            if self._should_stop():
                raise ReadStopped(str(self._path))
        if self._bound is None:
            n = self._raw.readinto(view)
        else:
            pos = self._raw.tell()
            room = self._bound - pos
            if room <= 0:
                if self._raw.read(1):
                    raise self._past_bound()
                return 0
            n = self._raw.readinto(view[: min(len(view), room)])
            if n == 0 and self._exact and pos < self._bound:
                raise FileChanged(self._path, self._bound, f"{pos} bytes now")
        self._unpolled += n or 0
        return n or 0

    def _past_bound(self) -> RefusedRead:
        assert self._bound is not None
        if self._exact:
            return FileChanged(self._path, self._bound, "longer now")
        return FileTooLarge(self._path, self._bound)


@contextlib.contextmanager
def open_regular(
    path: Path,
    *,
    max_bytes: int | None,
    size: int | None = None,
    follow_links: bool = True,
    should_stop: Callable[[], bool] | None = None,
) -> Iterator[BinaryIO]:
    """Open ``path`` for reading if, and only if, the opened file is a regular file.

    The one rule for every read (the module comment above says why): the file is opened
    without waiting (``O_NONBLOCK``, so a named pipe cannot block), judged with ``fstat``
    on the descriptor, and read through a bound: exactly ``size`` bytes when given (the
    planned size: any other size is ``FileChanged``), else at most ``max_bytes`` (None:
    the file's own size is the only bound, for streaming a file of any size).
    ``follow_links=False`` refuses a symbolic link in the last component (``O_NOFOLLOW``),
    for files that must not be links (a bag's). ``should_stop`` is asked about every MiB
    read; when it turns true the read raises ``ReadStopped``.

    Raises ``NotRegularFile``, ``FileChanged`` or ``FileTooLarge`` (all ``OSError``), or the
    ``OSError`` of the open itself.
    """
    _tick("open_read", path)
    flags = _O_FLAGS | _O_NONBLOCK | (0 if follow_links else _O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if not follow_links and exc.errno == errno_mod.ELOOP:
            raise NotRegularFile(path, "a symbolic link") from None
        raise
    raw: io.FileIO | None = None
    try:
        st = os.fstat(fd)
        if not stat_mod.S_ISREG(st.st_mode):
            raise NotRegularFile(path, _kind(st.st_mode))
        if _O_NONBLOCK and hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        exact = size is not None and size >= 0
        bound = size if exact else max_bytes
        if exact and st.st_size != size:
            assert size is not None
            raise FileChanged(path, size, f"{st.st_size} bytes now")
        if bound is not None and st.st_size > bound:
            raise FileTooLarge(path, bound)
        raw = io.FileIO(fd, "rb", closefd=True)
    except BaseException:
        if raw is None:
            os.close(fd)
        raise
    with io.BufferedReader(_BoundedRaw(raw, path, bound, exact, should_stop)) as f:
        yield cast(BinaryIO, f)


def read_bytes(
    path: Path,
    *,
    max_bytes: int = MAX_DOCUMENT_BYTES,
    size: int | None = None,
    follow_links: bool = True,
) -> bytes:
    """The whole of a regular file, at most ``max_bytes`` (or exactly ``size``) of it."""
    with open_regular(path, max_bytes=max_bytes, size=size, follow_links=follow_links) as f:
        return f.read()


def read_document(path: Path, missing: Callable[[], TranscribeError]) -> bytes:
    """The whole of a file the corpus keeps (project.json, a run record), as ``read_bytes``.

    A file that does not exist raises ``missing()``, the caller's words for it; any other
    failure (no permission, an I/O error, a FIFO or an oversized file in its place) is coded
    by ``problem_from_oserror`` and names the file.
    """
    try:
        return read_bytes(path)
    except FileNotFoundError:
        raise missing() from None
    except OSError as exc:
        raise problem_from_oserror(exc, path, "reading") from exc


@contextlib.contextmanager
def open_read(
    path: Path,
    *,
    size: int | None = None,
    max_bytes: int | None = None,
    follow_links: bool = True,
    should_stop: Callable[[], bool] | None = None,
) -> Iterator[BinaryIO]:
    """``open_regular`` for a file read in parts (a decoder's, a chunked copy's)."""
    with open_regular(
        path, max_bytes=max_bytes, size=size, follow_links=follow_links, should_stop=should_stop
    ) as f:
        yield f


def _stat_query(query: Callable[[Path], _T]) -> Callable[[Path], _T]:
    """``query`` (a stat of ``path``) as one counted, fault-injectable file-system call."""

    def run(path: Path) -> _T:
        _tick("stat", path)
        return query(path)

    run.__name__ = run.__qualname__ = query.__name__
    run.__doc__ = query.__doc__
    return run


exists = _stat_query(Path.exists)
is_file = _stat_query(Path.is_file)
is_dir = _stat_query(Path.is_dir)
is_link = _stat_query(Path.is_symlink)
resolve = _stat_query(Path.resolve)
stat = _stat_query(Path.stat)


# -- the corpus's own folders: real folders inside it, or refused --------------------------


def first_link(root: Path, path: Path) -> Path | None:
    """The first symbolic link on the way from ``root`` (itself not judged) down to ``path``.

    None when every component below ``root`` that exists is a real folder or file. ``root``
    is the corpus folder: the data folder may be reached through a link a person made, but
    nothing the app made inside it may be one.
    """
    _tick("stat", path)
    return _first_link(root, path)


def _first_link(root: Path, path: Path) -> Path | None:
    here = root
    for part in path.relative_to(root).parts:
        here = here / part
        try:
            mode = os.lstat(here).st_mode
        except FileNotFoundError:
            return None  # made later, by the app, as a real folder
        if stat_mod.S_ISLNK(mode):
            return here
    return None


def corpus_folder(root: Path, path: Path) -> Path:
    """``path``, a folder (or file) of the corpus at ``root``, once no link is on the way to it.

    The one guard of every corpus folder: trash, quarantine, import-runs, cache and notebooks
    are each asked for through it before anything is written there, so a folder replaced by
    a link to another place (or another disk) is refused by name instead of being written
    through. Raises ``TranscribeError(CORPUS_LINK)``.
    """
    link = first_link(root, path)
    if link is not None:
        raise TranscribeError(ErrorCode.CORPUS_LINK, link_words(link), path=str(link))
    return path


def link_words(link: Path) -> str:
    """What a link among the corpus's folders is, and what to do: refusal and doctor alike."""
    try:
        target = os.readlink(link)
    except OSError:
        target = "somewhere unknown"
    return (
        f"{link} is a symbolic link (to {target}), not a folder of the corpus; nothing is "
        "written through it. Put the real folder back in its place (move what it points to "
        "there), then run `transcribe-import doctor`."
    )


class LinkInCorpus(CodedOSError):
    """A write, rename or removal refused: a symbolic link is on its way inside the corpus."""

    code = ErrorCode.CORPUS_LINK

    def __init__(self, link: Path) -> None:
        super().__init__(errno_mod.ELOOP, link_words(link), str(link))
        self.link = link

    def message(self, where: str) -> str:
        del where  # the words name the link, which is what to put right
        return str(self.strerror)


# The corpus folders opened in this process (``Corpus`` registers its own): every write,
# rename and removal below one of them goes through ``_guard`` first.
_corpus_roots: set[str] = set()


def guard_corpus(root: Path) -> None:
    """Have every write, rename and removal below ``root`` refused through a link."""
    _corpus_roots.add(os.fspath(root))


def _guard(path: str | os.PathLike[str]) -> None:
    """Refuse (``LinkInCorpus``) to write, move or remove ``path`` when it is inside a corpus
    and a symbolic link is on the way to it, ``path`` itself included.

    The one guard of the corpus's folders, called by every writing call of this module
    before the disk is touched, so no caller can forget it (``corpus_folder`` is the same
    rule, asked for up front by a caller that wants to refuse before it starts).
    """
    if not _corpus_roots:
        return
    here = os.fspath(path)
    above = os.path.dirname(here)
    while above != here:
        if above in _corpus_roots:
            link = _first_link(Path(above), Path(path))
            if link is not None:
                raise LinkInCorpus(link)
            return
        here, above = above, os.path.dirname(above)


def refuse_link(path: Path) -> None:
    """``_guard`` for a file another library creates (a lock file: filelock opens it itself):
    refused through a link inside a corpus, as every write of this module is."""
    _guard(path)


def links_under(root: Path) -> list[Path]:
    """Every symbolic link anywhere below ``root``, sorted; links are listed, never followed."""
    found: list[Path] = []
    folders = [root]
    while folders:
        folder = folders.pop()
        _tick("listdir", folder)
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_symlink():  # d_type: no stat on most file systems
                    found.append(Path(entry.path))
                elif entry.is_dir(follow_symlinks=False):
                    folders.append(Path(entry.path))
    return sorted(found)


def tree_size(root: Path) -> int:
    """The bytes of every file below ``root`` (links not followed): what it takes on disk."""
    total = 0
    folders = [root]
    while folders:
        folder = folders.pop()
        _tick("listdir", folder)
        try:
            entries = list(os.scandir(folder))
        except FileNotFoundError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                folders.append(Path(entry.path))
            else:
                with contextlib.suppress(FileNotFoundError):
                    total += entry.stat(follow_symlinks=False).st_size
    return total


def list_dir(path: Path, *, missing_ok: bool = False) -> list[str]:
    """The names in a folder, sorted; with ``missing_ok``, none for a folder not made yet."""
    _tick("listdir", path)
    try:
        return sorted(os.listdir(path))
    except FileNotFoundError:
        if missing_ok:
            return []
        raise


def hash_file(
    path: Path,
    *,
    size: int | None = None,
    follow_links: bool = True,
    should_stop: Callable[[], bool] | None = None,
) -> tuple[str, int]:
    """sha256 hex and size of a regular file, read in chunks (exactly ``size`` bytes if given)."""
    h = hashlib.sha256()
    total = 0
    with open_regular(
        path, max_bytes=None, size=size, follow_links=follow_links, should_stop=should_stop
    ) as f:
        while chunk := f.read(CHUNK):
            h.update(chunk)
            total += len(chunk)
    return h.hexdigest(), total


# -- writing -------------------------------------------------------------------------------


def fsync_dir(path: Path) -> None:
    _tick("fsync_dir", path)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def make_dirs(path: Path) -> None:
    _tick("mkdir", path)
    _guard(path)
    path.mkdir(parents=True, exist_ok=True)


def make_dir_new(path: Path) -> None:
    """Create one folder whose parent exists; ``FileExistsError`` when the name is taken."""
    _tick("mkdir", path)
    _guard(path)
    path.mkdir()


def make_dirs_durable(path: Path) -> None:
    """``make_dirs``, each folder it creates made durable (its parent fsynced) at once.

    Top down, so when this returns every new folder's name is on the disk: a rename into
    it, or a record that names it, never outlives a crash that forgets the folder itself.
    """
    _guard(path)
    missing: list[Path] = []
    here = path
    while not os.path.lexists(here):
        missing.append(here)
        here = here.parent
    for folder in reversed(missing):
        _tick("mkdir", folder)
        with contextlib.suppress(FileExistsError):  # made meanwhile: durable by its maker
            folder.mkdir()
        fsync_dir(folder.parent)


def write_new(path: Path, data: bytes, *, exclusive: bool = False) -> None:
    """Write a new file and fsync it (not atomic: for staging, where a torn file is rolled back).
    ``exclusive``: refused (``FileExistsError``) when ``path`` exists already."""
    _write_synced(path, data, exclusive=exclusive)


def _write_synced(path: Path, data: bytes | Sequence[bytes], *, exclusive: bool = False) -> None:
    _tick("write", path)
    _guard(path)
    with open(path, "xb" if exclusive else "wb") as f:
        for part in (data,) if isinstance(data, bytes) else data:
            f.write(part)
        f.flush()
        _tick("fsync", path)
        os.fsync(f.fileno())


def atomic_write(path: Path, data: bytes | Sequence[bytes]) -> None:
    """Replace ``path`` with ``data`` (bytes, or parts written one after the other: a big
    document is never joined in memory) atomically and durably.

    Temp file in the same directory, write, flush, fsync, os.replace, fsync the
    directory. On any failure the temp file is removed and ``path`` is untouched.
    """

    def written(tmp: Path) -> None:
        _write_synced(tmp, data)
        crashpoint("atomic_write.before_replace")

    _replaced(path, written)
    fsync_dir(path.parent)


def _replaced(path: Path, write: Callable[[Path], None]) -> None:
    """``path`` replaced by the temp file ``write`` makes beside it (named as
    ``is_atomic_temp`` knows it); on any failure the temp file goes and ``path`` is as it was."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    try:
        write(tmp)
        _tick("replace", path)
        _guard(path)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def is_atomic_temp(name: str) -> bool:
    """Whether ``name`` is a temp file of ``atomic_write`` (left only by a killed process)."""
    return name.startswith(".") and ".tmp-" in name


def remove_stale_temps(directory: Path) -> list[str]:
    """Remove atomic_write temps in ``directory``; the caller holds their writers' lock."""
    removed = []
    for name in list_dir(directory):
        if is_atomic_temp(name):
            remove(directory / name)
            removed.append(name)
    return removed


def append_durable(path: Path, data: bytes) -> int:
    """Append ``data`` to ``path`` (created if absent) and fsync; return where it started."""
    _tick("append", path)
    _guard(path)
    created = not path.exists()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        start = os.lseek(fd, 0, os.SEEK_END)
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        _tick("fsync", path)
        os.fsync(fd)
    finally:
        os.close(fd)
    if created:
        fsync_dir(path.parent)
    return start


def write_disposable(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` by a rename, without fsync: for a derived cache's
    entries (a thumbnail, the looks), where a crash may cost the entry, never tear it."""

    def written(tmp: Path) -> None:
        _tick("write", tmp)
        _guard(tmp)
        with open(tmp, "wb") as f:
            f.write(data)

    _replaced(path, written)


def append_disposable(path: Path, data: bytes) -> None:
    """Append ``data`` to ``path`` (created if absent), without fsync: a derived cache's."""
    _tick("append", path)
    _guard(path)
    with open(path, "ab") as f:
        f.write(data)


def scratch_file(directory: Path) -> BinaryIO:
    """A file with no name in ``directory`` for this process's scratch data, read and
    written through its position (``seek``): gone when it is closed or the process ends, a
    crash included (Linux makes it unnamed, other POSIX systems unlink it at once; Windows
    deletes it on close), so it never lingers in a corpus's folders."""
    _tick("scratch", directory)
    _guard(directory / "scratch")
    return cast(BinaryIO, tempfile.TemporaryFile(dir=directory, prefix="scratch-"))


def truncate(path: Path, size: int) -> None:
    _tick("truncate", path)
    _guard(path)
    with open(path, "r+b") as f:
        f.truncate(size)
        f.flush()
        os.fsync(f.fileno())


def copy_hashed(
    src: Path,
    dst: Path,
    *,
    size: int | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> tuple[str, int]:
    """Copy regular file ``src`` to a new file ``dst`` and fsync it; return the copied bytes'
    sha256 and size. With ``size`` (the planned size) no more than that is ever read.

    An error reading ``src`` is ``SourceUnreadable`` (its own, coded ``source_unreadable``);
    an error writing ``dst`` stays what it is (a full disk is the destination's).
    """
    h = hashlib.sha256()
    total = 0
    with contextlib.ExitStack() as stack:
        try:
            fin = stack.enter_context(
                open_regular(src, max_bytes=None, size=size, should_stop=should_stop)
            )
        except OSError as exc:
            raise _source_side(exc, src) from exc
        _tick("write", dst)
        _guard(dst)
        with open(dst, "wb") as fout:
            while True:
                try:
                    chunk = fin.read(CHUNK)
                except OSError as exc:
                    raise _source_side(exc, src) from exc
                if not chunk:
                    break
                h.update(chunk)
                total += len(chunk)
                fout.write(chunk)
            fout.flush()
            _tick("fsync", dst)
            os.fsync(fout.fileno())
    return h.hexdigest(), total


def replace(src: Path, dst: Path) -> None:
    """Rename within one file system (atomic); the caller fsyncs the directories."""
    _tick("replace", dst)
    _guard(src)
    _guard(dst)
    os.replace(src, dst)


def remove(path: Path, *, missing_ok: bool = True) -> None:
    _tick("unlink", path)
    _guard(path)
    try:
        path.unlink()
    except FileNotFoundError:
        if not missing_ok:
            raise


def remove_dir(path: Path) -> None:
    """Remove an empty directory (an error when it is not empty)."""
    _tick("rmdir", path)
    _guard(path)
    path.rmdir()


def remove_tree(path: Path) -> None:
    """Remove a directory tree; a tree that is already gone is fine."""
    _tick("rmtree", path)
    _guard(path)
    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=_named_in_tree)
    else:
        shutil.rmtree(path, onerror=_named_in_tree)


def _named_in_tree(call: object, where: str, failure: object) -> None:
    """Raise what stopped ``remove_tree``, naming the whole path: shutil's walk removes each
    entry by its name in its folder, so its error names only ``page.png``, not where it is.
    An entry already gone is what removing wanted."""
    del call
    exc = failure[1] if isinstance(failure, tuple) else failure
    if isinstance(exc, FileNotFoundError):
        return
    if isinstance(exc, OSError):
        exc.filename = where
    raise cast(BaseException, exc)


def ends_torn(path: Path) -> bool:
    """Whether an append-only file's last byte is not a newline (a kill cut an append short).

    False for a missing or empty file. The one rule the corpus index and a run's outcomes
    log are both read by: a torn last line is ignored, never an error.
    """
    try:
        with open_read(path) as f:
            if f.seek(0, 2) == 0:
                return False
            f.seek(-1, 2)
            return f.read(1) != b"\n"
    except FileNotFoundError:
        return False
