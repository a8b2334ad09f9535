"""Identifiers: random lower-case UUIDs, the check that keeps anything else off the disk, and
what a sha256 (the id of a file's bytes in every document) looks like."""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError

_UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_SHA256_RE = re.compile(r"[0-9a-f]{64}")


# How many characters of an id every list and view shows (`runs`, `notebooks`, the window's
# notebooks, a plan's items); any unique start of MIN_ID_PREFIX or more names it back.
SHORT_ID_CHARS = 8


def short_id(full: str, among: Iterable[str] = ()) -> str:
    """An id as every list, headline and window names it: its first SHORT_ID_CHARS
    characters, and as many more as it takes for no other id of ``among`` (the ids of its
    kind: the corpus's runs, its trash's reverts, its notebooks) to begin the same way, so
    that what is shown is always a prefix the commands take back as this id alone."""
    n = SHORT_ID_CHARS
    for other in among:
        while other != full and n < len(full) and other.startswith(full[:n]):
            n += 1
    return full[:n]


@dataclass(frozen=True)
class ShortIds:
    """The ids of one kind, each shortened by ``short_id`` against the others; in sorted
    order the id sharing the longest start with an id is one of its two neighbours, so a
    list of 100,000 notebooks costs a bisection per line, not a pass over the others."""

    ids: tuple[str, ...]  # sorted

    @classmethod
    def of(cls, ids: Iterable[str]) -> ShortIds:
        return cls(tuple(sorted(set(ids))))

    @classmethod
    def listed(cls, ids: Callable[[], Iterable[str]]) -> ShortIds:
        """``of`` the ids ``ids`` lists, or of none (each id's 8 characters) when the disk
        will not list them: a line's words must not turn work done into an error (a purge
        done, then its run's id not listed on a failing disk, exited 1)."""
        try:
            return cls.of(ids())
        except (OSError, TranscribeError):
            return cls(())

    def __call__(self, full: str) -> str:
        at = bisect.bisect_left(self.ids, full)
        return short_id(full, self.ids[max(0, at - 1) : at + 2])


# The shortest prefix that names an id: 4 hex digits leave 1 chance in 65,536 of two runs
# (or items) sharing it, and an ambiguous one is refused with the candidates listed.
MIN_ID_PREFIX = 4


def ids_by_prefix(key: str, ids: Iterable[str]) -> list[str]:
    """The ids ``key`` names: the one it is, else those it begins (at least 4 characters).

    The one rule for shortening an id, a plan item's (``order``) and a run's (every command
    that takes RUN_ID) alike, so ``show 6e5b520f`` works as ``order plan.json 6e5b520f`` does.
    """
    known = list(ids)
    if key in known:
        return [key]
    if len(key) < MIN_ID_PREFIX:
        return []
    prefix = key.lower()
    return [i for i in known if i.startswith(prefix)]


@dataclass(frozen=True)
class IdKind:
    """A kind of id the commands take by its start (runs, trash entries), in the words that
    refuse a key naming none of them, or several."""

    code: ErrorCode
    noun: str  # "import run"
    nouns: str  # "import runs"
    id_name: str  # "run id"
    lister: str  # the command that lists them: "runs"
    where: str = ""  # where they were looked for, said after the key: " in <folder>"


def resolve_id(key: str, ids: Callable[[], Iterable[str]], kind: IdKind) -> str:
    """The id ``key`` is or begins among ``ids`` (``ids_by_prefix``); ``kind.code`` when
    none, or several (listed). A whole id is returned as it is, found or not and without
    listing ``ids``, so the command's own words say what became of it."""
    if is_valid_id(key):
        return key
    found = ids_by_prefix(key, ids())
    if len(found) == 1:
        return found[0]
    if not found:
        raise TranscribeError(
            kind.code,
            f"No {kind.noun} {key!r}{kind.where}: a {kind.id_name}, or its first "
            f"{MIN_ID_PREFIX} characters or more, is needed; `transcribe-import {kind.lister}` "
            "lists them.",
            item=key,
        )
    raise TranscribeError(
        kind.code,
        f"{key!r} begins {len(found)} {kind.nouns} ({', '.join(sorted(found))}); give more of "
        f"the {kind.id_name}.",
        item=key,
    )


def new_id() -> str:
    """A new random id (UUID v4, lower case)."""
    # uuid.uuid4()'s id, its 16 random bytes and the version and variant bits set alike,
    # written without the UUID object: a plan makes three ids a page (2.5 us instead of 6).
    b = bytearray(os.urandom(16))
    b[6] = b[6] & 0x0F | 0x40  # version 4
    b[8] = b[8] & 0x3F | 0x80  # the RFC 4122 variant
    h = b.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def is_valid_id(value: object) -> bool:
    return isinstance(value, str) and _UUID_RE.match(value) is not None


def is_sha256(value: object) -> bool:
    """A sha256 as the documents write it: 64 lower-case hex digits."""
    return isinstance(value, str) and _SHA256_RE.fullmatch(value) is not None


def check_id(value: object, what: str) -> str:
    """Return value if it is a lower-case UUID; ids become file names, so nothing else passes."""
    if not is_valid_id(value):
        raise TranscribeError(
            ErrorCode.INVALID_ID,
            f"{what} {value!r} is not a lower-case UUID; the document was edited or damaged",
        )
    assert isinstance(value, str)
    return value
