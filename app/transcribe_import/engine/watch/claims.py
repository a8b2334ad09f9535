"""Who takes a drop, among watchers of one folder, and where a drop goes once it is done.

Two watchers on one share (two archive machines by mistake, or a watcher started twice)
must not both take a drop. Each drop is taken under an OS lock on a file in the watched
folder's ``.transcribe-watch/`` (released by the system when its holder dies, so a killed
watcher never blocks one started again), and a claim file beside it names the corpus that
took it: a watcher of another corpus leaves that drop alone, while the same corpus's watcher,
started again after a kill, takes it up where it was. Nothing a drop holds is deleted:
it is moved, by a rename within the share, to ``.imported/`` or ``.refused/``.
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
import os
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson

from transcribe_import.engine.base.clock import utc_now
from transcribe_import.engine.storage import fsio, locks

WATCH_DIR = ".transcribe-watch"  # the claims and their locks
IMPORTED_DIR = ".imported"
REFUSED_DIR = ".refused"


class Claim(enum.Enum):
    TAKEN = "taken"  # this watcher takes the drop
    ELSEWHERE = "elsewhere"  # another corpus's watcher took these contents


@dataclass(frozen=True)
class ClaimNote:
    """What a claim file says: which corpus took which contents of a drop."""

    corpus_id: str
    signature: str


def _key(name: str) -> str:
    # A file name of fixed form whatever the drop's name (long, odd characters).
    return hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _claim_file(folder: Path, name: str) -> Path:
    return folder / WATCH_DIR / f"{_key(name)}.claim.json"


def _read_note(path: Path) -> ClaimNote | None:
    try:
        with fsio.open_read(path, max_bytes=64 * 1024) as f:
            doc = orjson.loads(f.read())
        return ClaimNote(str(doc["corpus_id"]), str(doc["signature"]))
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        return None  # gone, or cut short by a kill: no claim stands on it


@contextlib.contextmanager
def locked(folder: Path, name: str) -> Iterator[bool]:
    """Hold the drop ``name``'s lock for the block if no other watcher holds it (True), else
    False at once: everything a watcher reads and writes about a drop is done holding it."""
    fsio.make_dirs(folder / WATCH_DIR)
    lock = locks.make_lock(folder / WATCH_DIR / f"{_key(name)}.lock")
    if not locks.try_acquire(lock):
        yield False
        return
    try:
        yield True
    finally:
        lock.release()


def claim(folder: Path, name: str, corpus_id: str, signature: str) -> Claim:
    """Take the drop ``name`` for ``corpus_id`` (the caller holds its lock): its claim file
    names the corpus, unless another corpus's claim on these same contents is there."""
    path = _claim_file(folder, name)
    note = _read_note(path)
    if note is not None and note.corpus_id != corpus_id and note.signature == signature:
        return Claim.ELSEWHERE
    doc = {
        "corpus_id": corpus_id,
        "signature": signature,
        "name": name,
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "at": utc_now(),
    }
    fsio.atomic_write(path, orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    return Claim.TAKEN


def release(folder: Path, name: str) -> None:
    """Forget the claim of a drop that has moved away (its name is free for a new drop)."""
    fsio.remove(_claim_file(folder, name))


def free_place(folder: Path, where: str, name: str) -> Path:
    """A name in ``folder/where/`` that nothing holds yet: ``name``, else ``name (2)``, …"""
    target = folder / where
    stem, dot, ext = name.partition(".") if not (folder / name).is_dir() else (name, "", "")
    candidate = target / name
    n = 2
    while os.path.lexists(candidate):
        candidate = target / f"{stem} ({n}){dot}{ext}"
        n += 1
    return candidate


def move(source: Path, destination: Path) -> None:
    """Move a drop by a rename within the share (never a copy and a delete)."""
    fsio.make_dirs(destination.parent)
    os.rename(source, destination)
    fsio.fsync_dir(destination.parent)


def write_refusal_readme(destination: Path, text: str) -> Path:
    """The README beside a refused drop (``NAME.README.txt``): why, and what to do."""
    readme = destination.parent / f"{destination.name}.README.txt"
    fsio.make_dirs(destination.parent)
    fsio.atomic_write(readme, text.encode("utf-8"))
    return readme
