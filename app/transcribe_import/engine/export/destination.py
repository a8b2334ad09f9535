"""The export's destination: a fresh default folder, and its exclusive, non-blocking reservation.

Two exports racing one explicit ``--output`` could both see it empty and then interleave
their files into a folder that matches neither manifest. So the export takes an exclusive,
non-blocking ``flock`` on ``.export.lock`` inside the destination for its whole write, and a
second one is refused at once, before it writes anything. Before even the lock, the export
writes ``EXPORT-INCOMPLETE.txt``: no instant of an export leaves a folder that looks empty.
The lock is an OS lock, so a killed export releases it; the folder it leaves is not empty,
so it is never reused.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import unicodedata
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.text import counted
from transcribe_import.engine.export.model import EXPORTS_DIR
from transcribe_import.engine.storage import fsio
from transcribe_import.engine.storage.bag_format import INCOMPLETE, LOCK_FILE

# Characters some file system refuses in a name (Windows and exFAT the most), and the names
# Windows keeps for devices: a folder exported here may be copied to any disk.
_UNSAFE = re.compile(r'[\x00-\x1f\x7f<>:"/\\|?*]+')
_DEVICES = frozenset(
    ["CON", "PRN", "AUX", "NUL"] + [f"{kind}{n}" for kind in ("COM", "LPT") for n in range(1, 10)]
)
_TITLE_BYTES = 96  # of UTF-8 in the titles' part: the whole name stays far under 255 bytes
_MAX_SUFFIX = 10_000  # " (2)" … : beyond this the exports folder is not one a person reads


def _safe(text: str) -> str:
    """``text`` as a name every file system takes: NFC, unsafe runs as "-", no edge dots."""
    text = " ".join(unicodedata.normalize("NFC", text).split())  # tabs, new lines: one space
    text = _UNSAFE.sub("-", text).strip(" .-")  # a leading dot hides it; Windows drops a last one
    if text.split(".", 1)[0].strip().upper() in _DEVICES:
        text = f"{text} notebook"
    return text


def _shortened(text: str) -> str:
    """At most ``_TITLE_BYTES`` of UTF-8, cut at a word where one is near, marked with "…"."""
    if len(text.encode("utf-8")) <= _TITLE_BYTES:
        return text
    cut = text
    while len((cut + "…").encode("utf-8")) > _TITLE_BYTES:
        cut = cut[:-1]
    word = cut.rsplit(" ", 1)[0]
    return (word if len(word) >= len(cut) // 2 else cut).rstrip(" .-") + "…"


def folder_name(titles: Sequence[str | None], day: date) -> str:
    """The default export folder's name, for a person: the notebooks' titles and the date.

    "Diary 1931 – 2026-12-06"; two notebooks "Diary 1931 and Letters – …"; more "Diary 1931
    and 7 more – …". A notebook whose manifest cannot be read has no title and is counted.
    The export's id is in its MANIFEST.json and bag-info.txt, never in the name.
    """
    named = [_safe(t) for t in titles if t]
    first = next((t for t in named if t), "Notebook")
    if len(titles) == 1:
        words = first
    elif len(titles) == 2 and len(named) == 2 and named[1]:
        words = f"{first} and {named[1]}"
    else:
        words = f"{first} and {len(titles) - 1} more"
    return f"{_shortened(words)} – {day.isoformat()}"


def default_destination(data_dir: Path, titles: Sequence[str | None], day: date) -> Path:
    """Make and return a new ``DATA_DIR/exports/<folder_name>``, with " (2)", " (3)"… after
    a name already there. Made here (an exclusive mkdir), so two exports in one instant
    never share a folder."""
    parent = data_dir / EXPORTS_DIR
    base = folder_name(titles, day)
    try:
        fsio.make_dirs(parent)
        for n in range(1, _MAX_SUFFIX):
            dest = parent / (base if n == 1 else f"{base} ({n})")
            try:
                fsio.make_dir_new(dest)
            except FileExistsError:
                continue
            fsio.fsync_dir(parent)
            return dest
    except OSError as exc:
        raise fsio.problem_from_oserror(exc, parent, "making the export folder") from exc
    raise TranscribeError(
        ErrorCode.EXPORT_DESTINATION_INVALID,
        f"{parent} already holds {_MAX_SUFFIX - 1} exports named {base!r}; move some of them "
        "away, or choose a folder for the export.",
        path=str(parent),
    )


def check_destination(destination: Path, corpus_root: Path) -> Path:
    """The absolute destination, refused when it is a file or lies inside the corpus."""
    dest = destination.expanduser().absolute()
    try:
        inside = dest.resolve().is_relative_to(corpus_root.resolve())
    except OSError:
        inside = False
    if inside:
        raise TranscribeError(
            ErrorCode.EXPORT_DESTINATION_INVALID,
            f"{dest} is inside the corpus ({corpus_root}); choose a folder outside it.",
            path=str(dest),
        )
    if fsio.exists(dest) and not fsio.is_dir(dest):
        raise TranscribeError(
            ErrorCode.EXPORT_DESTINATION_INVALID,
            f"{dest} is a file, not a folder; choose a new or empty folder for the export.",
            path=str(dest),
        )
    return dest


class Reservation:
    """The held ``.export.lock`` of one destination; ``release`` removes the file and unlocks."""

    def __init__(self, destination: Path, fd: int) -> None:
        self.destination = destination
        self.lock_path = destination / LOCK_FILE
        self._fd: int | None = fd

    def release(self, *, remove: bool = True) -> None:
        """Remove the lock file (while still holding it), then unlock. Idempotent."""
        if self._fd is None:
            return
        try:
            if remove:
                # Unlinked under the lock: a peer that opened the old inode and gets it after
                # us sees that the path no longer names it, and refuses (see ``reserve``).
                # Best effort: a lock file left behind is free, and only makes the folder
                # non-empty, which it is anyway after an export.
                with contextlib.suppress(OSError):
                    fsio.remove(self.lock_path)
                    fsio.fsync_dir(self.destination)
        finally:
            fd, self._fd = self._fd, None
            os.close(fd)  # closing the last descriptor releases the flock


def _busy(dest: Path) -> TranscribeError:
    return TranscribeError(
        ErrorCode.EXPORT_LOCKED,
        f"Another export is writing into {dest} right now; wait for it to end, or choose "
        "another folder.",
        path=str(dest / LOCK_FILE),
    )


def _held(lock_path: Path) -> bool:
    """Whether a live export holds this lock file now (asked without waiting, nothing written)."""
    try:
        fd = os.open(lock_path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return True
        raise
    finally:
        os.close(fd)  # releases the lock if we took it
    return False


def _not_empty(dest: Path, others: list[str]) -> TranscribeError:
    # The folder of an export that did not finish is named by its note, not by a temp file.
    shown = INCOMPLETE if INCOMPLETE in others else others[0]
    what = f"it holds {counted(len(others), 'item')}, e.g. {shown!r}"
    if shown == INCOMPLETE:
        what += f": an export that did not finish, as its {INCOMPLETE} says; delete the folder"
    return TranscribeError(
        ErrorCode.EXPORT_DESTINATION_NOT_EMPTY,
        f"{dest} is not empty ({what}); an export only writes into a new or empty folder: "
        "choose another, or leave out --output for a fresh one.",
        path=str(dest),
    )


def reserve(destination: Path, note: bytes) -> Reservation:
    """Create ``destination`` if needed, write ``note`` (``EXPORT-INCOMPLETE.txt``) into it
    and lock it for one export, or refuse at once.

    The note is the first thing written, under its own name (never a temp name), before the
    lock: a kill at any later instant leaves a folder that says it is incomplete. Refused
    with ``export_locked`` when another export holds it, and with
    ``export_destination_not_empty`` when it holds anything but a (free) lock file. Nothing
    is written into a refused destination, and what this call wrote is removed.
    """
    dest = destination
    try:
        fsio.make_dirs(dest)
        names = fsio.list_dir(dest)
        if LOCK_FILE in names and _held(dest / LOCK_FILE):
            raise _busy(dest)
        early = [name for name in names if name != LOCK_FILE]
        if early:
            raise _not_empty(dest, early)
        try:
            fsio.write_new(dest / INCOMPLETE, note, exclusive=True)
        except FileExistsError:
            raise _busy(dest) from None  # another export began here this very instant
        fsio.fsync_dir(dest)
        crashpoint("export.after_note")
    except OSError as exc:
        raise fsio.problem_from_oserror(exc, dest, "reserving the export folder") from exc
    try:
        return _lock(dest)
    except BaseException:
        with contextlib.suppress(OSError):
            fsio.remove(dest / INCOMPLETE)
        raise


def _lock(dest: Path) -> Reservation:
    """The lock of a destination that holds our note, or a refusal (see ``reserve``)."""
    try:
        lock_path = dest / LOCK_FILE
        created = True
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        except FileExistsError:
            created = False
            fd = os.open(lock_path, os.O_RDWR | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            raise _busy(dest) from None  # the lock file vanished between two calls: a peer
        raise fsio.problem_from_oserror(exc, dest, "reserving the export folder") from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise _busy(dest) from None
        raise fsio.problem_from_oserror(exc, lock_path, "locking") from exc
    reservation = Reservation(dest, fd)
    try:
        # The path must still name the inode we locked: a finishing export unlinks its lock
        # file under the lock, and whoever opened that inode before must not take it for free.
        held, now = os.fstat(fd), os.stat(lock_path)
        if (held.st_dev, held.st_ino) != (now.st_dev, now.st_ino):
            raise _busy(dest)
    except FileNotFoundError:
        reservation.release(remove=False)
        raise _busy(dest) from None
    except TranscribeError:
        reservation.release(remove=False)
        raise
    except OSError as exc:
        reservation.release(remove=False)
        raise fsio.problem_from_oserror(exc, lock_path, "checking the lock file") from exc
    try:
        others = [name for name in fsio.list_dir(dest) if name not in (LOCK_FILE, INCOMPLETE)]
    except OSError as exc:
        reservation.release(remove=created)
        raise fsio.problem_from_oserror(exc, dest, "reading the export folder") from exc
    if others:
        reservation.release(remove=created)  # leave nothing of ours in someone's folder
        raise _not_empty(dest, others)
    return reservation
