"""Looks already made, kept in the corpus: a page is decoded for its look once.

``cache/looks-v3.jsonl`` under the corpus folder holds a line for each page a look pass
decoded: ``[page key, look]``, the key naming the page by its file's bytes and its index
(``lookalikes.page_key``), the look as a plan keeps it (``ink1:`` and 144 hex digits, or
``ink1:blank`` for a page with no ink), or null for a page that has none (a PDF page that is
not one scan); a look made since its measures are (media/page_measures.py) has them after it.
(v1 held the looks made of grey levels before ink1, v2 looks without measures; neither is
read.)
Keyed by content, it serves every plan of the same files: a plan opened again (Open
Plan…, Continue Review), whose pages without a look were otherwise decoded again each
time, and a new scan of the same folders (Scan Again after a run that did not land
whole), whose pass then decodes only pages it has not seen.

Derived and disposable, like the thumbnails beside it: lines are appended without fsync,
a line that cannot be read (torn by a crash, damaged) is skipped and that page looked at
again, a cache that cannot be written costs time and nothing else, and once it holds
``LIMIT_BYTES`` it is written again with the latest half. Only a look made from the bytes
of the file the plan names is kept (a file gone or changed since its scan gets none here).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection, Iterator, Mapping
from pathlib import Path
from typing import BinaryIO, TypeVar

import orjson

from transcribe_import.engine.media.lookalike import is_blank, is_look
from transcribe_import.engine.storage import fsio

log = logging.getLogger(__name__)

# The version names the looks: bump it when a page's look would be made differently.
CACHE_FILE = Path("cache") / "looks-v3.jsonl"
# A cache file's size before its oldest half is let go: some 320,000 looks (about 250 bytes
# a line) or 500,000 verdicts (about 160).
LIMIT_BYTES = 80 * 2**20
# The bytes read at a time when a cache is read from its end back.
BLOCK_BYTES = 256 * 2**10

_lock = threading.Lock()  # one writer at a time in this process


def _entry(line: bytes) -> tuple[str, str | None] | None:
    """A line's page key and look; None when the line is not one (torn, damaged)."""
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str)):
        return None
    key, look = value
    if "#" not in key or not (
        look is None or (isinstance(look, str) and (is_blank(look) or is_look(look)))
    ):
        return None
    return key, look


def _key_of(line: bytes) -> str | None:
    """A line's page key, read without parsing the line (``["KEY", ...]``, keys being
    plain ASCII); None when the line does not start as one does. ``_entry`` checks the
    whole line of a key that is wanted."""
    end = line.find(b'"', 2)
    if not line.startswith(b'["') or end < 0:
        return None
    return line[2:end].decode("ascii", "replace")


def _lines(looks: Mapping[str, str | None]) -> bytes:
    """``looks`` as the cache's lines, one a page."""
    return b"".join(orjson.dumps([key, look]) + b"\n" for key, look in looks.items())


class LookCache:
    """The looks kept in one corpus (``corpus_root``)."""

    def __init__(self, corpus_root: Path) -> None:
        self.path = corpus_root / CACHE_FILE

    def read(self, wanted: Collection[str] | None = None) -> dict[str, str | None]:
        """The looks kept (page key → look or None) of the pages ``wanted`` (every page's
        when None); nothing when there is no cache. A cache of ``LIMIT_BYTES`` or more is
        written again with its latest half.

        The cache is read as an index, from its end back: a line's key is its first field,
        so only the lines of pages wanted are parsed and checked, and the reading stops
        where the last page wanted is found. A plan made again, Scan Again or a plan
        opened again wants pages whose looks were written last, so it reads as much of
        the file as it wants, however large the file (a pass of 5,000 pages reads about
        1.3 MB of an 80 MB file). Only a page the cache does not hold (a page new to this
        corpus, which will be decoded anyway) has the whole file read to find so."""
        try:
            _trim(self.path, "look cache")
            with self.path.open("rb") as f:
                if wanted is None:
                    return self._read_lines(f.read().splitlines())
                return self._read_back(f, f.seek(0, 2), wanted)
        except OSError:
            return {}

    @staticmethod
    def _read_lines(lines: list[bytes]) -> dict[str, str | None]:
        looks: dict[str, str | None] = {}
        for line in lines:  # a line at a time: the GIL is handed round between them
            entry = _entry(line)
            if entry is not None:
                looks.pop(entry[0], None)  # kept in the order last written
                looks[entry[0]] = entry[1]
        return looks

    @staticmethod
    def _read_back(f: BinaryIO, size: int, wanted: Collection[str]) -> dict[str, str | None]:
        """The looks of ``wanted`` read from the end of ``f`` back, the last line of a key
        that can be read winning, until every page wanted is found."""
        left = set(wanted)
        found: dict[str, str | None] = {}
        if not left:
            return found
        for line in _lines_back(f, size):
            if not left:
                break
            key = _key_of(line)
            if key not in left:
                continue
            entry = _entry(line)
            if entry is not None:
                found[key] = entry[1]
                left.discard(key)
        return dict(reversed(found.items()))  # in the order written, as a whole read gives

    def add(self, looks: Mapping[str, str | None]) -> None:
        """Keep ``looks`` (page key → look or None), appended; a failure is only logged."""
        if not looks:
            return
        _append_lines(self.path, _lines(looks), "looks")


# A verification's verdicts (planning/inks.py: a pair of pages' score), kept beside the looks
# so that ``validate`` after ``plan``, a plan opened again and a Scan Again verify no pair a
# second time (a verification is some 25 ms a pair, the largest part of a validation that
# has any). The version names how a pair is scored (media/ink.py ``score``): bump it when
# a pair would score otherwise.
VERDICTS_FILE = Path("cache") / "verdicts-v1.jsonl"

# A verdict: (page key, the other page's key, quarter turns) → the score.
Verdicts = dict[tuple[str, str, int], float]


def _verdict(line: bytes) -> tuple[tuple[str, str, int], float] | None:
    """A verdict line's pair and score; None when the line is not one (torn, damaged)."""
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    if not (isinstance(value, list) and len(value) == 4):
        return None
    key, other, turn, score = value
    if not (
        isinstance(key, str)
        and isinstance(other, str)
        and type(turn) is int
        and isinstance(score, float | int)
        and 0 <= score <= 1
    ):
        return None
    return (key, other, turn), float(score)


class VerdictCache:
    """The verdicts kept in one corpus (``corpus_root``), like the looks: appended without
    fsync, a line that cannot be read skipped (that pair verified again), read from the end
    back as far as the pairs wanted, written again with its latest half at ``LIMIT_BYTES``."""

    def __init__(self, corpus_root: Path) -> None:
        self.path = corpus_root / VERDICTS_FILE

    def read(self, wanted: Collection[tuple[str, str, int]]) -> Verdicts:
        """The verdicts kept of the pairs ``wanted``, read from the end of the file back
        until each is found (a plan made again wants the pairs its first validation
        verified, written last): the last line of a pair that can be read wins. A pair
        never verified has the whole file read to find so (it is then verified, some
        25 ms, which the reading is small beside)."""
        left = set(wanted)
        firsts = {key for key, _other, _turn in left}
        return _latest(self.path, "verdict cache", left, firsts, _verdict)

    def add(self, verdicts: Verdicts) -> None:
        """Keep ``verdicts``, appended; a failure is only logged."""
        if not verdicts:
            return
        text = b"".join(orjson.dumps([*pair, s]) + b"\n" for pair, s in verdicts.items())
        _append_lines(self.path, text, "verdicts")


# The rescans' candidate search (planning/lookalikes.py ``find``), kept a plan's item at a
# time: which stored pages each of its pages is verified against, and the verdicts of those
# pairs, keyed by a digest of exactly what the search depends on (the looks and pages before
# the item and its own, what was answered, the search's parameters), so that a plan made
# again and its ``validate`` do not search again. The version names the lines' form and
# the search: bump it when the same inputs would give other pairs (look_index.py, ``_chosen``).
PAIRS_FILE = Path("cache") / "pairs-v1.jsonl"

# An item's kept search: its pairs, three numbers each (the page's number among the item's
# pages with a look, the stored page's reference, the quarter turns), and each pair's
# verdict, None when none was made from both pages' inks.
Pairs = tuple[list[int], list[float | None]]

_DIGEST_DIGITS = 64


def _pairs(line: bytes) -> tuple[str, Pairs] | None:
    """A line's digest and pairs; None when the line is not one (torn, damaged, foreign)."""
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    if not (isinstance(value, list) and len(value) == 3):
        return None
    digest, numbers, verdicts = value
    if not (
        isinstance(digest, str)
        and len(digest) == _DIGEST_DIGITS
        and isinstance(numbers, list)
        and isinstance(verdicts, list)
        and len(numbers) == 3 * len(verdicts)
        and set(map(type, numbers)) <= {int}
    ):
        return None
    scores = [v for v in verdicts if v is not None]
    if not set(map(type, scores)) <= {float, int} or (
        scores and not 0 <= min(scores) <= max(scores) <= 1
    ):
        return None
    return digest, (numbers, [None if v is None else float(v) for v in verdicts])


class PairCache:
    """The candidate searches kept in one corpus (``corpus_root``), like the looks: appended
    without fsync, a line that cannot be read skipped (that item searched again), read from
    the end back as far as the digests wanted, written again with its latest half at
    ``LIMIT_BYTES``. What a line's numbers refer to is checked by its reader against the plan
    (``lookalikes.find``): a line is never trusted for more than its digest."""

    def __init__(self, corpus_root: Path) -> None:
        self.path = corpus_root / PAIRS_FILE

    def read(self, wanted: Collection[str]) -> dict[str, Pairs]:
        """The searches kept of the digests ``wanted``, read from the end of the file back
        until each is found, the last line of a digest that can be read winning."""
        left = set(wanted)
        return _latest(self.path, "pair cache", left, left, _pairs)

    def add(self, searches: Mapping[str, Pairs]) -> None:
        """Keep ``searches`` (digest → pairs), appended; a failure is only logged."""
        if not searches:
            return
        text = b"".join(
            orjson.dumps([digest, numbers, verdicts]) + b"\n"
            for digest, (numbers, verdicts) in searches.items()
        )
        _append_lines(self.path, text, "candidate pairs")


_K = TypeVar("_K")
_V = TypeVar("_V")


def _latest(
    path: Path,
    what: str,
    left: set[_K],
    firsts: Collection[str],
    entry_of: Callable[[bytes], tuple[_K, _V] | None],
) -> dict[_K, _V]:
    """The entries of the keys ``left`` kept in ``path``, read from the end of the file back
    until each is found (taken out of ``left``), the last line of a key that can be read
    (``entry_of``) winning; a line whose first field is not in ``firsts`` is skipped without
    being read further. What was found before a read failed, on a failure."""
    found: dict[_K, _V] = {}
    if not left:
        return found
    try:
        _trim(path, what)
        with path.open("rb") as f:
            for line in _lines_back(f, f.seek(0, 2)):
                if not left:
                    break
                if _key_of(line) not in firsts:
                    continue
                entry = entry_of(line)
                if entry is not None and entry[0] in left:
                    found[entry[0]] = entry[1]
                    left.discard(entry[0])
    except OSError:
        return found
    return found


def _trim(path: Path, what: str) -> None:
    """Write ``path`` again with its latest lines, of at most half ``LIMIT_BYTES``, once it
    holds ``LIMIT_BYTES`` or more (its first whole line the first kept); a failure is
    only logged (a cache)."""
    try:
        if fsio.stat(path).st_size < LIMIT_BYTES:
            return
        lines = path.read_bytes().splitlines()
    except OSError:
        return
    kept, size = 0, 0
    for line in reversed(lines):
        size += len(line) + 1
        if size > LIMIT_BYTES // 2:
            break
        kept += 1
    text = b"".join(line + b"\n" for line in lines[len(lines) - kept :])
    with _lock:
        try:
            fsio.write_disposable(path, text)
        except OSError as exc:
            log.info("%s %s not written again: %s", what, path, exc)


def _lines_back(f: BinaryIO, size: int) -> Iterator[bytes]:
    """The lines of ``f`` (``size`` bytes) from the last back to the first, read a block at
    a time from the end; a last line with no end (torn) comes first, as it is."""
    rest = b""
    end = size
    while end > 0:
        start = max(0, end - BLOCK_BYTES)
        f.seek(start)
        lines = (f.read(end - start) + rest).split(b"\n")
        end = start
        rest = lines[0] if start > 0 else b""  # the start of a line the next block ends
        for line in reversed(lines if start == 0 else lines[1:]):
            if line:
                yield line


def _append_lines(path: Path, text: bytes, what: str) -> None:
    """Append whole ``text`` lines to a cache file; a failure is only logged (a cache)."""
    with _lock:
        try:
            fsio.make_dirs(path.parent)
            if not _ends_a_line(path):  # a line torn by a crash: not this one too
                text = b"\n" + text
            fsio.append_disposable(path, text)
        except OSError as exc:  # a link on the way (refused by fsio's guard) included
            log.info("%s not kept in %s: %s", what, path, exc)


def _ends_a_line(path: Path) -> bool:
    """Whether ``path`` is empty, missing or ends with a whole line."""
    try:
        with path.open("rb") as f:
            if f.seek(0, 2) == 0:
                return True
            f.seek(-1, 2)
            return f.read(1) == b"\n"
    except OSError:
        return True
