"""The one module that touches the file system for the engine, so faults can be injected here.

Every operation calls ``_tick`` first. Tests install a ``FaultPlan`` that fails the
N-th operation (once, or from then on) with an errno such as ENOSPC or EIO; the
engine must leave the corpus whole whatever operation fails.

Durability rule: fsync errors fail the operation and are never retried (after a
failed fsync the kernel may have dropped the dirty pages, so a retry that
"succeeds" would lie).
"""

from __future__ import annotations

import contextlib
import errno as errno_mod
import hashlib
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, TypeVar

from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError

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


def problem_from_oserror(exc: OSError, path: str | os.PathLike[str], doing: str) -> TranscribeError:
    """Turn an OSError into a coded error that names the file and says what to do."""
    where = str(path)
    if exc.errno in (errno_mod.ENOSPC, errno_mod.EDQUOT):
        return TranscribeError(
            ErrorCode.DISK_FULL,
            f"The disk is full while {doing} {where}: free some space and try again; "
            "nothing was changed.",
            path=where,
        )
    return TranscribeError(
        ErrorCode.IO_ERROR,
        f"Could not finish {doing} {where}: {exc.strerror or exc}. Check the disk and try again; "
        "nothing was changed.",
        path=where,
    )


# -- reading -------------------------------------------------------------------------------


def read_bytes(path: Path) -> bytes:
    _tick("read", path)
    with open(path, "rb") as f:
        return f.read()


@contextlib.contextmanager
def open_read(path: Path) -> Iterator[BinaryIO]:
    _tick("open_read", path)
    with open(path, "rb") as f:
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


def list_dir(path: Path) -> list[str]:
    _tick("listdir", path)
    return sorted(os.listdir(path))


def hash_file(path: Path) -> tuple[str, int]:
    """sha256 hex and size of a file, read in chunks."""
    _tick("read", path)
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            h.update(chunk)
            size += len(chunk)
    return h.hexdigest(), size


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
    path.mkdir(parents=True, exist_ok=True)


def write_new(path: Path, data: bytes) -> None:
    """Write a new file and fsync it (not atomic: for staging, where a torn file is rolled back)."""
    _write_synced(path, data)


def _write_synced(path: Path, data: bytes) -> None:
    _tick("write", path)
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        _tick("fsync", path)
        os.fsync(f.fileno())


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically and durably.

    Temp file in the same directory, write, flush, fsync, os.replace, fsync the
    directory. On any failure the temp file is removed and ``path`` is untouched.
    """
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    try:
        _write_synced(tmp, data)
        crashpoint("atomic_write.before_replace")
        _tick("replace", path)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)


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


def truncate(path: Path, size: int) -> None:
    _tick("truncate", path)
    with open(path, "r+b") as f:
        f.truncate(size)
        f.flush()
        os.fsync(f.fileno())


def copy_hashed(src: Path, dst: Path) -> tuple[str, int]:
    """Copy ``src`` to a new file ``dst`` and fsync it; return the copied bytes' sha256 and size."""
    h = hashlib.sha256()
    size = 0
    _tick("open_read", src)
    with open(src, "rb") as fin:
        _tick("write", dst)
        with open(dst, "wb") as fout:
            while chunk := fin.read(CHUNK):
                h.update(chunk)
                size += len(chunk)
                fout.write(chunk)
            fout.flush()
            _tick("fsync", dst)
            os.fsync(fout.fileno())
    return h.hexdigest(), size


def replace(src: Path, dst: Path) -> None:
    """Rename within one file system (atomic); the caller fsyncs the directories."""
    _tick("replace", dst)
    os.replace(src, dst)


def remove(path: Path, *, missing_ok: bool = True) -> None:
    _tick("unlink", path)
    try:
        path.unlink()
    except FileNotFoundError:
        if not missing_ok:
            raise


def remove_tree(path: Path) -> None:
    """Remove a directory tree; a tree that is already gone is fine."""
    _tick("rmtree", path)
    with contextlib.suppress(FileNotFoundError):
        shutil.rmtree(path)
