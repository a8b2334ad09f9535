"""The three OS locks of the corpus (docs/formats.md), each failing with a clear "busy" error."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import filelock

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError

# Critical sections are short, so only a stuck peer makes anyone wait this long.
# TRANSCRIBE_LOCK_TIMEOUT (seconds) overrides both, e.g. for scripts that must not wait.
_override = os.environ.get("TRANSCRIBE_LOCK_TIMEOUT")
CORPUS_LOCK_TIMEOUT = float(_override) if _override else 30.0
INGEST_LOCK_TIMEOUT = float(_override) if _override else 10.0


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
