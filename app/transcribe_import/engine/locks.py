"""The three OS locks of notebook-corpus.md, each failing with a clear "busy" error."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import filelock

from transcribe_import.engine.errors import ErrorCode, TranscribeError

CORPUS_LOCK_TIMEOUT = 30.0  # short critical sections: only a stuck peer makes us wait this long
INGEST_LOCK_TIMEOUT = 10.0


def make_lock(path: Path) -> filelock.FileLock:
    # OS locks only (a dead process releases them); keep the file so peers never race on its inode.
    return filelock.FileLock(
        path, thread_local=True, fallback_to_soft=False, preserve_lock_file=True
    )


@contextlib.contextmanager
def hold(lock: filelock.FileLock, timeout: float, code: ErrorCode, message: str) -> Iterator[None]:
    """Hold ``lock`` for the block, or raise a coded busy error after ``timeout`` seconds."""
    try:
        lock.acquire(timeout=timeout)
    except filelock.Timeout:
        raise TranscribeError(code, message, path=str(lock.lock_file)) from None
    try:
        yield
    finally:
        lock.release()


def try_acquire(lock: filelock.FileLock) -> bool:
    """Take ``lock`` if it is free right now (a free lock means its owner is gone)."""
    try:
        lock.acquire(timeout=0)
    except filelock.Timeout:
        return False
    return True
