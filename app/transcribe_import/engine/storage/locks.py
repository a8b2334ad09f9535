"""The OS locks of the corpus (docs/formats.md), each failing with a clear "busy" error."""

from __future__ import annotations

import contextlib
import errno
import math
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import filelock

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.storage.fsio import problem_from_oserror, refuse_link

ENV_LOCK_TIMEOUT = "TRANSCRIBE_LOCK_TIMEOUT"


def _timeout_setting() -> float | None:
    """TRANSCRIBE_LOCK_TIMEOUT in seconds; None when unset. ValueError when not a number."""
    raw = os.environ.get(ENV_LOCK_TIMEOUT, "").strip()
    if not raw:
        return None
    value = float(raw)
    if not math.isfinite(value) or value < 0:
        raise ValueError(raw)
    return value


def check_environment() -> None:
    """Refuse a TRANSCRIBE_LOCK_TIMEOUT that is not a number of seconds, in those words."""
    try:
        _timeout_setting()
    except ValueError:
        raise TranscribeError(
            ErrorCode.BAD_SETTING,
            f"{ENV_LOCK_TIMEOUT}={os.environ.get(ENV_LOCK_TIMEOUT)!r} is not a number of "
            f"seconds; set it to one (e.g. {ENV_LOCK_TIMEOUT}=5) or unset it.",
        ) from None


def _timeout_or(default: float) -> float:
    try:
        value = _timeout_setting()
    except ValueError:
        return default  # check_environment tells the person; nothing else breaks on it
    return default if value is None else value


# Critical sections are short, so only a stuck peer makes anyone wait this long.
# TRANSCRIBE_LOCK_TIMEOUT (seconds) overrides both, e.g. for scripts that must not wait.
CORPUS_LOCK_TIMEOUT = _timeout_or(30.0)
INGEST_LOCK_TIMEOUT = _timeout_or(10.0)


def make_lock(path: Path) -> filelock.FileLock:
    # OS locks only (a dead process releases them); keep the file so peers never race on its inode.
    return filelock.FileLock(
        path, thread_local=True, fallback_to_soft=False, preserve_lock_file=True
    )


def _take(lock: filelock.FileLock, timeout: float) -> None:
    """``lock.acquire``, its file refused through a link inside the corpus first: filelock
    creates the file with its own open(), past fsio's guard."""
    refuse_link(Path(lock.lock_file))
    lock.acquire(timeout=timeout)


def _lock_problem(exc: OSError, lock: filelock.FileLock) -> TranscribeError:
    """Why a lock file could not be made or opened, coded (a full or read-only disk)."""
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return TranscribeError(
            ErrorCode.READ_ONLY,
            f"Cannot write the lock file {lock.lock_file}: {exc.strerror or exc} (the corpus is "
            "on a read-only disk or in a folder you may not write). Make it writable, or choose "
            "another data folder with --data-dir; nothing was changed.",
            path=str(lock.lock_file),
        )
    return problem_from_oserror(exc, lock.lock_file, "creating the lock file")


@contextlib.contextmanager
def hold(
    lock: filelock.FileLock, timeout: float, code: ErrorCode, message: str | Callable[[], str]
) -> Iterator[None]:
    """Hold ``lock`` for the block, or raise a coded busy error after ``timeout`` seconds."""
    acquire(lock, timeout, code, message)
    try:
        yield
    finally:
        lock.release()


def acquire(
    lock: filelock.FileLock, timeout: float, code: ErrorCode, message: str | Callable[[], str]
) -> None:
    """Take ``lock`` (the caller releases it), or raise a coded busy error after ``timeout``.

    ``message`` may be a function: words that read the disk (an id named as the lists name
    it) are then made only when the lock is refused, not on every taking.
    """
    try:
        _take(lock, timeout)
    except filelock.Timeout:
        said = message if isinstance(message, str) else message()
        raise TranscribeError(code, said, path=str(lock.lock_file)) from None
    except OSError as exc:  # no lock file can be made: a read-only or full disk
        raise _lock_problem(exc, lock) from exc


def wait_for(
    lock: filelock.FileLock, should_stop: Callable[[], bool], on_wait: Callable[[], None]
) -> bool:
    """Take ``lock`` however long its holder keeps it, unless ``should_stop`` says to give up.

    For a lock held for a whole long operation (the duplicates lock, a whole run): no
    timeout would be right, so the wait lasts while the caller lets it. ``on_wait`` is
    called once, when the lock is found held. True: taken (the caller releases it).
    """
    if try_acquire(lock):
        return True
    on_wait()
    while not should_stop():
        try:
            _take(lock, 0.25)  # the slice between two looks at should_stop
        except filelock.Timeout:
            continue
        except OSError as exc:
            raise _lock_problem(exc, lock) from exc
        return True
    return False


# ``held_elsewhere`` answers "is anyone holding this?" by taking the lock for an instant. A
# process that takes a run's lock to work on it waits this long before it calls the lock
# held, so a listing's look (in this process or another) never passes for an owner.
PROBE_GRACE_SECONDS = 1.0


def take_unless_owned(lock: filelock.FileLock) -> bool:
    """Take ``lock`` unless an owner keeps it (one that holds it past a probe's instant).

    True: taken (the caller releases it). False: owned by a live process, which a lock held
    longer than ``PROBE_GRACE_SECONDS`` means (a free lock means its owner is gone).
    """
    return try_acquire(lock, wait=PROBE_GRACE_SECONDS)


def try_acquire(lock: filelock.FileLock, *, wait: float = 0.0) -> bool:
    """Take ``lock`` if it is free right now, or within ``wait`` seconds."""
    try:
        _take(lock, wait)
    except filelock.Timeout:
        return False
    except OSError as exc:  # no lock file can be made: a read-only or full disk
        raise _lock_problem(exc, lock) from exc
    return True


def held_elsewhere(lock: filelock.FileLock) -> bool:
    """Whether another process holds ``lock`` right now; asked without writing anything when
    the lock file cannot be written (a read-only corpus is still listed, never refused)."""
    try:
        # Two looks at once see each other for an instant: a short wait tells them apart.
        if try_acquire(lock, wait=PROBE_GRACE_SECONDS / 10):
            lock.release()
            return False
        return True
    except TranscribeError as exc:
        if exc.code is not ErrorCode.READ_ONLY:
            raise
    return _held_read_only(Path(lock.lock_file))


def _held_read_only(path: Path) -> bool:
    """The same question through a read-only descriptor (flock needs no write access)."""
    try:
        import fcntl
    except ImportError:  # Windows: no way to ask without writing
        return False  # and no process can be changing a corpus nobody may write
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return False  # a holder makes the file first: nobody holds it
    except OSError as exc:
        raise problem_from_oserror(exc, path, "reading the lock file") from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing the descriptor releases a lock taken through it
    return False
