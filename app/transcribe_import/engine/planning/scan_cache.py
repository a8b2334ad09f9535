"""Files already scanned, kept in the corpus: a file unchanged since its scan is not read again.

``cache/scans-v1.jsonl`` under the corpus folder holds a line for each page file a scan
read and found usable: its identity as the file system told it (device, inode, size,
modification and change times, in ns), when the line was recorded, and what the read found
(its sha256, and what its probe and check found: media type, pages, size, EXIF time,
resolution, the looks the check's decode made). A later scan (a plan made again, Scan
Again) that stats a file with the same identity takes it from here instead of reading,
hashing and probing its bytes, as git's index does; validation takes the probe from
here on the same terms (``Trusted``).

The rule (``Trusted.of``): every field of the identity equal, the render settings the
probe used equal, and the line not "racy": a file modified within ``RACY_NS`` of when its
line was recorded (or later) may have been written again within the file system's time
resolution without its times moving, so it is read again, as git reads a racily clean file
again. A file whose bytes changed while its stat did not is not caught here; commit's
staging hashes every source as it copies it and refuses one whose sha256 is not the
planned one (docs/architecture.md, "What a scan trusts").

Derived and disposable, like the look cache beside it (and kept by the same means): lines
are appended without fsync as the scan goes, a line that cannot be read is skipped (that
file read again), a cache that cannot be written costs time and nothing else, and at
``look_cache.LIMIT_BYTES`` it is written again with its latest half. A file with a
problem keeps no line: it is read again each time, so its words are of the file as it is.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

import orjson

from transcribe_import.engine.media.kinds import RenderSettings
from transcribe_import.engine.planning.look_cache import (
    _append_lines,
    _key_of,
    _lines_back,
    _trim,
)
from transcribe_import.engine.storage import fsio

# The version names what a line holds and how the probe judged the file: bump it when a
# scan would find a file otherwise (a new check in media/check.py, a new field).
CACHE_FILE = Path("cache") / "scans-v1.jsonl"
# git's racy-clean margin, widened to the 2 s a FAT or exFAT drive keeps times in.
RACY_NS = 2_000_000_000

_FIELDS = 17  # the length of a line's list


def key_of(fspath: str) -> str:
    """A file's key in the cache: a digest of its path (plain ASCII, so the line's first
    field can be found without parsing it, whatever the path holds)."""
    return hashlib.blake2b(os.fsencode(fspath), digest_size=12).hexdigest()


def settings_token(settings: RenderSettings) -> str:
    """What of the render settings the probe's verdict depends on (a page over the pixel
    limit is a problem under one setting, not another)."""
    return f"{settings.max_side}x{settings.max_pixels}"


@dataclass(frozen=True, slots=True)
class Identity:
    """A file as a stat tells it; equal identities are taken for equal bytes (but for racy
    lines). Windows reports no inode through a folder listing and its change time is the
    creation time: there the identity is size and times, compared alike each time."""

    dev: int
    ino: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> Identity:
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


@dataclass(frozen=True, slots=True)
class Scanned:
    """What a read of a usable page file found: a ScannedFile's fields of its bytes."""

    sha256: str
    media_type: str
    page_count: int
    captured_at: str | None
    width: int | None
    height: int | None
    dpi: float | None
    looks: tuple[str | None, ...]


@dataclass(frozen=True, slots=True)
class Trusted:
    """A line of the cache: a file's identity when read, and what the read found."""

    fspath: str
    identity: Identity
    recorded_ns: int
    settings: str
    found: Scanned

    def holds(self, identity: Identity, settings: str, now_ns: int) -> bool:
        """Whether the file, stat now as ``identity``, may be taken as this line says
        without a read: the one rule of what a scan trusts."""
        mtime = self.identity.mtime_ns
        return (
            identity == self.identity
            and settings == self.settings
            and mtime < self.recorded_ns - RACY_NS  # not racy when recorded
            and mtime <= now_ns  # nor a time in the future
        )


def _line(t: Trusted) -> bytes:
    i, f = t.identity, t.found
    return orjson.dumps(
        [
            key_of(t.fspath),
            t.fspath,
            i.dev,
            i.ino,
            i.size,
            i.mtime_ns,
            i.ctime_ns,
            t.recorded_ns,
            t.settings,
            f.sha256,
            f.media_type,
            f.page_count,
            f.captured_at,
            f.width,
            f.height,
            f.dpi,
            list(f.looks),
        ]
    )


# The types of a line's fields ``fspath`` to ``page_count`` (``_line``), exactly: what
# orjson reads is of these classes and no subclass of them, and a bool is not a count.
_HEAD_TYPES = (str, int, int, int, int, int, int, str, str, str, int)
_NONE = type(None)
_WIDTH_TYPES = frozenset({_NONE, int})
_DPI_TYPES = frozenset({_NONE, float, int})
_LOOK_TYPES = frozenset({_NONE, str})


def _entry(line: bytes) -> Trusted | str | None:
    """A line's entry, or the path a ``forget`` line names; None when the line is neither
    (torn, damaged, another shape)."""
    try:
        v = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    if type(v) is not list:
        return None
    if len(v) == 2 and type(v[1]) is str:
        return v[1]
    if len(v) != _FIELDS:
        return None
    # Checked by their types' tuple and sets, not a test a field: reading 20,000 lines was
    # most of a plan's scan made again.
    if tuple(map(type, v[1:12])) != _HEAD_TYPES:
        return None
    _key, fspath, dev, ino, size, mtime, ctime, recorded, settings, sha = v[:10]
    media_type, pages, captured, width, height, dpi, looks = v[10:]
    if not (
        len(sha) == 64
        and pages > 0
        and (captured is None or type(captured) is str)
        and type(width) in _WIDTH_TYPES
        and type(height) in _WIDTH_TYPES
        and type(dpi) in _DPI_TYPES
        and type(looks) is list
        and _LOOK_TYPES.issuperset(map(type, looks))
    ):
        return None
    found = Scanned(
        sha,
        media_type,
        pages,
        captured,
        width,
        height,
        None if dpi is None else float(dpi),
        tuple(looks),
    )
    return Trusted(fspath, Identity(dev, ino, size, mtime, ctime), recorded, settings, found)


class ScanCache:
    """The scans kept in one corpus (``corpus_root``)."""

    def __init__(self, corpus_root: Path) -> None:
        self.path = corpus_root / CACHE_FILE

    def read(self, wanted: Collection[str]) -> dict[str, Trusted]:
        """The lines kept of the files ``wanted`` (their paths, as the walk spells them), read
        from the end of the file back until each is found: the last line of a file that
        can be read wins. A scan of the same shelf wants the lines its last scan wrote;
        only a file never scanned in this corpus has the whole file read to find so (it is
        then read anyway). Nothing when there is no cache or it cannot be read."""
        left = {key_of(p): p for p in wanted}
        found: dict[str, Trusted] = {}
        if not left:
            return found
        try:
            if fsio.is_link(self.path):
                # Lines kept outside the corpus are not the corpus's: never trusted (doctor
                # names the link), as nothing is ever appended through it.
                return found
            _trim(self.path, "scan cache")
            with self.path.open("rb") as f:
                for line in _lines_back(f, f.seek(0, 2)):
                    if not left:
                        break
                    key = _key_of(line)
                    if key is None or key not in left:
                        continue
                    entry = _entry(line)
                    if entry == left[key]:
                        del left[key]  # forgotten: read again, whatever an older line says
                    elif isinstance(entry, Trusted) and entry.fspath == left[key]:
                        found[entry.fspath] = entry
                        del left[key]
        except OSError:
            return found
        return found

    def forget(self, fspath: str) -> None:
        """Trust no line of ``fspath`` kept so far: commit found its bytes are not the ones
        its scan hashed (changed with its stat as it was, say on a file system whose
        times do not tell), so the next scan reads it again. A line of its own, appended
        (``[key, path]``); a failure is only logged."""
        _append_lines(self.path, orjson.dumps([key_of(fspath), fspath]) + b"\n", "scans")

    def add(self, entries: Iterable[Trusted]) -> None:
        """Keep ``entries``, appended; a failure is only logged (a cache)."""
        text = b"".join(_line(t) + b"\n" for t in entries)
        if text:
            _append_lines(self.path, text, "scans")


def now_ns() -> int:
    """The wall clock a line's ``recorded_ns`` and the future check are read from (file
    times are wall-clock times)."""
    return time.time_ns()
