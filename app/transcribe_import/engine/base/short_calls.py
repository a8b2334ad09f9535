"""Big sorts and JSON reads and writes as many short C calls: other threads get the GIL between.

One ``list.sort`` of 100,000 keys or one ``orjson.loads`` of a 100 MB plan is a single C
call that holds the GIL from start to end: run on a worker, it still froze the window's
thread for 0.2-0.7 s (bench/bench_gui.py). Cut into calls of a few milliseconds, with
Python code between them, the interpreter hands the GIL to a waiting thread every
``sys.getswitchinterval()``. The results are exactly those of the one long call.

The other way round too: a worker that lets the GIL go and takes it back many times a
millisecond (``hashlib`` does for every update of 2 KiB or more) starves a thread that waits
for it. Each time the waiter's wait of a switch interval ends the GIL has changed hands
(the worker took it back before the waiter woke), so it never asks for it and waits again:
measured, the window's thread went 35-146 ms without the GIL while a plan's fingerprint was
hashed an item at a time. ``sha256_of_parts`` hashes in blocks instead.
"""

from __future__ import annotations

import bisect
import hashlib
import re
import sys
from collections.abc import Callable, Iterable
from typing import Any, BinaryIO, TypeVar

import orjson

T = TypeVar("T")

# 4,096 keys sort in about 5 ms; the merges after them are slices of as many (GIL handed round).
SORT_SLICE = 4096


def sorted_in_slices(values: Iterable[T], *, key: Callable[[T], Any]) -> list[T]:
    """``sorted(values, key=key)``, made of sorts of ``SORT_SLICE`` values and their merges.

    Each sort and each step of a merge is one call of at most two slices' worth; Python
    runs between them. Stable like ``sorted``: every value goes with its sequence number,
    so no two are ever equal and the values themselves are never compared.
    """
    keyed = [(key(v), i, v) for i, v in enumerate(values)]
    if len(keyed) <= SORT_SLICE:
        keyed.sort()
        return [v for _, _, v in keyed]
    runs = [sorted(keyed[s : s + SORT_SLICE]) for s in range(0, len(keyed), SORT_SLICE)]
    del keyed
    while len(runs) > 1:  # in pairs, each round half as many runs: n log(runs) in all
        pairs = range(0, len(runs) - 1, 2)
        runs = [_merged(runs[k], runs[k + 1]) for k in pairs] + runs[len(pairs) * 2 :]
    return [v for _, _, v in runs[0]]


def _merged(a: list[Any], b: list[Any]) -> list[Any]:
    """Two sorted lists of distinct values merged, ``SORT_SLICE`` of one of them at a time.

    Of the next slice of each, the one whose last value is smaller goes whole, with the
    values of the other's slice below that last (found by bisection): every value left is
    above all of these, so they are sorted as one piece (two runs, merged by ``list.sort``
    in one pass of C) and put after what went before. ``heapq.merge`` did the same a value
    at a time in Python, most of the time of 100,000 files' sort.
    """
    out: list[Any] = []
    i = j = 0
    while i < len(a) and j < len(b):
        a_end, b_end = min(i + SORT_SLICE, len(a)), min(j + SORT_SLICE, len(b))
        if a[a_end - 1] < b[b_end - 1]:
            below = bisect.bisect_left(b, a[a_end - 1], j, b_end)
            piece, i, j = a[i:a_end] + b[j:below], a_end, below
        else:
            below = bisect.bisect_left(a, b[b_end - 1], i, a_end)
            piece, i, j = b[j:b_end] + a[i:below], below, b_end
        out += sorted(piece)
    out += a[i:]
    out += b[j:]
    return out


# -- freeing ---------------------------------------------------------------------------------

# Lists and dicts less deep than this are taken apart; deeper ones go whole, each a short
# cascade. A plan's document (1) holds items (2) of item objects (3), each with a list of
# sources (4): each source (5) goes whole, a few dozen objects.
FREE_DEPTH = 5


def free_in_slices(values: list[Any]) -> None:
    """Empty ``values``, freeing what only it holds a little at a time.

    A JSON document of 100,000 sources freed by its reference count goes in one cascade of
    frees that holds the GIL for 0.2 s. Here the lists and dicts of its first
    ``FREE_DEPTH`` levels that nothing else refers to are emptied one by one, with Python
    code between them, so another thread gets the GIL; what anything else still holds (a
    value a plan kept from the document) is only counted down, never changed.
    """
    stack = [(v, 1) for v in values]
    values.clear()
    while stack:
        value, depth = stack.pop()
        # Two references: ``value`` and getrefcount's own argument; more, and someone else
        # holds it: left as it is.
        if depth < FREE_DEPTH and type(value) in (list, dict) and sys.getrefcount(value) <= 2:
            held = value.values() if type(value) is dict else value
            stack.extend((v, depth + 1) for v in held)
            value.clear()


# A MiB is hashed in about a millisecond with the GIL let go: a thousand times fewer hand-overs
# than an update an item, each long enough for a waiting thread to wake and take the GIL.
HASH_BLOCK = 1024 * 1024


def sha256_of_parts(parts: Iterable[bytes]) -> str:
    """The sha256 (hex) of ``parts`` joined, fed to hashlib in blocks of ``HASH_BLOCK``: never
    the whole joined (one copy of it all) and never a hand-over of the GIL a part."""
    digest = hashlib.sha256()
    block = bytearray()
    for part in parts:
        block += part
        if len(block) >= HASH_BLOCK:
            digest.update(block)
            block.clear()
    digest.update(block)
    return digest.hexdigest()


# -- reading and JSON ------------------------------------------------------------------------

READ_SLICE = 1024 * 1024


def read_in_slices(f: BinaryIO) -> bytearray:
    """The rest of ``f``, read a MiB at a time into one buffer.

    ``f.read()`` of a 100 MB file ends by joining what it read: one copy of it all, holding
    the GIL (80 ms). A bytearray grows in place and serves ``loads_in_slices`` as it is.
    """
    data = bytearray()
    while chunk := f.read(READ_SLICE):
        data += chunk
    return data


# A value of at most this many bytes is parsed in one call (about 5-10 ms).
JSON_SLICE = 512 * 1024
_SPACE = b" \t\n\r"  # JSON's whitespace


class _NotLaidOut(Exception):
    """The text is not in the indented layout that ``loads_in_slices`` cuts up."""


# Stands for the list encoded apart in ``dumps_in_slices`` (a string no plan holds).
_SLICED = "\u0000encoded in slices\u0000"


def dumps_in_slices(doc: dict[str, Any], key: str) -> bytes:
    """``orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\\n"`` (a plan file's bytes),
    made of ``dumps_parts``."""
    return b"".join(dumps_parts(doc, key))


# An element of the list ``dumps_parts`` slices that holds more than this many values in its
# own list ``inner`` (a notebook of 5,000 pages) is itself encoded a value of that at a time:
# in one call, the big notebook of a 100,000-page shelf held the GIL 15 ms, and a window
# that takes the GIL again for each call Qt makes into Python waited that long each time.
INNER_SLICE = 256


def dumps_parts(doc: dict[str, Any], key: str, inner: str | None = None) -> list[bytes]:
    """The bytes of ``orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\\n"`` in parts, the
    list ``doc[key]`` encoded an element at a time, for a writer to write one after the
    other: one call for a plan of 100,000 sources held the GIL 0.4 s while a window
    waited, and every copy of its 100 MB joined was another (bench/bench_gui_shelf.py).
    ``inner``: an element's own list of that name, when it holds more than
    ``INNER_SLICE`` values, is encoded a value at a time too.

    An element alone is laid out as at the top; in the list, two levels in, each of its
    lines is four spaces further in (a JSON string holds no raw newline), so the bytes are
    those of the one call."""
    return [*_laid_out(doc, key, inner), b"\n"]


def _laid_out(doc: dict[str, Any], key: str, inner: str | None) -> list[bytes]:
    """``dumps_parts`` without its last line break: the parts of
    ``orjson.dumps(doc, option=orjson.OPT_INDENT_2)``."""
    values = doc[key]
    if not values:
        return [orjson.dumps(doc, option=orjson.OPT_INDENT_2)]
    head = orjson.dumps({**doc, key: _SLICED}, option=orjson.OPT_INDENT_2)
    before, _marker, after = head.partition(orjson.dumps(_SLICED))
    parts = [before, b"[\n"]
    for k, v in enumerate(values):
        if k:
            parts.append(b",\n")
        own = v.get(inner) if inner is not None and isinstance(v, dict) else None
        if isinstance(own, list) and len(own) > INNER_SLICE:
            assert inner is not None
            inside = _laid_out(v, inner, None)
        else:
            inside = [orjson.dumps(v, option=orjson.OPT_INDENT_2)]
        parts.append(b"    " + inside[0].replace(b"\n", b"\n    "))
        parts.extend(part.replace(b"\n", b"\n    ") for part in inside[1:])
    parts += [b"\n  ]", after]
    return parts


def loads_in_slices(data: bytes | bytearray) -> Any:
    """``orjson.loads(data)``, in calls of at most about ``JSON_SLICE`` bytes each.

    Cut where the layout ``orjson.OPT_INDENT_2`` writes (the app's plan files and drafts)
    puts a line break: a JSON string holds no raw line break, so every one is whitespace
    between values, and an element of a container that opens at the end of a line starts
    on a line of its own, two spaces in. Every cut piece is parsed by orjson itself and the
    text between pieces is checked to be the brackets, commas and keys that join them, so
    the value is the one ``orjson.loads`` gives. Any other layout, or a fault anywhere, is
    read by ``orjson.loads(data)`` in one call: the same value, or the same error.
    """
    if len(data) <= JSON_SLICE:
        return orjson.loads(data)
    try:
        return _Slicer(data).document()
    except (_NotLaidOut, orjson.JSONDecodeError, RecursionError):
        return orjson.loads(data)


class _Slicer:
    def __init__(self, data: bytes | bytearray) -> None:
        self._data = data
        self._ends: dict[int, re.Pattern[bytes]] = {}

    def document(self) -> Any:
        data = self._data
        if data[:2] not in (b"{\n", b"[\n"):
            raise _NotLaidOut
        value, end = self._container(0, 0)
        if data[end:].strip(_SPACE):
            raise _NotLaidOut  # text after the value: orjson says what is wrong
        return value

    def _end_of_element(self, indent: int) -> re.Pattern[bytes]:
        """Where an element written ``indent`` in ends: a line break followed by at most
        ``indent`` spaces (its next sibling, or its container's closing line), but not by
        the element's own closing bracket."""
        pattern = self._ends.get(indent)
        if pattern is None:
            pattern = self._ends[indent] = re.compile(
                b"\n(?! {%d})(?! {%d}[\\]}])" % (indent + 1, indent)
            )
        return pattern

    def _container(self, at: int, indent: int) -> tuple[Any, int]:
        """The array or object whose opening bracket, last on its line, is at ``at``, and
        where its closing bracket's line ends; its elements are ``indent + 2`` in."""
        data = self._data
        is_object = data[at] == ord("{")
        close = b"\n" + b" " * indent + (b"}" if is_object else b"]")
        inner = indent + 2
        lead = b"\n" + b" " * inner
        ends = self._end_of_element(inner)
        items: list[Any] = []
        members: dict[str, Any] = {}
        pos = at + 1  # at the line break after the bracket
        while True:
            if data.startswith(close, pos):
                pos += len(close)
                break
            start = pos + len(lead)
            if not data.startswith(lead, pos) or data[start : start + 1] in (b"", b" "):
                raise _NotLaidOut
            # Searched a little past the slice, so that the look-ahead for the next line's
            # indent is never cut short by the end of the search.
            found = ends.search(data, start, start + JSON_SLICE + inner + 2)
            if found is not None and found.start() < start + JSON_SLICE:  # small: one call
                pos = found.start()
                last = data.startswith(close, pos)
                text = self._element_text(start, pos, last)
                if is_object:
                    members.update(orjson.loads(b"{" + text + b"}"))
                else:
                    items.append(orjson.loads(text))
                continue
            # Big: it must open a container at the end of its first line, cut up in turn.
            line_end = data.find(b"\n", start, start + JSON_SLICE)
            if line_end < 0 or data[line_end - 1] not in b"[{":
                raise _NotLaidOut
            opening = line_end - 1
            if is_object:
                key_text = data[start:opening]
                if not key_text.endswith(b": "):
                    raise _NotLaidOut
                key = orjson.loads(key_text[:-2])
                if not isinstance(key, str):
                    raise _NotLaidOut
            elif opening != start:
                raise _NotLaidOut
            value, pos = self._container(opening, inner)
            last = data.startswith(close, pos)
            if not last:
                if not data.startswith(b",", pos):
                    raise _NotLaidOut
                pos += 1
            if is_object:
                members[key] = value
            else:
                items.append(value)
        return (members if is_object else items), pos

    def _element_text(self, start: int, end: int, last: bool) -> bytes | bytearray:
        """An element's text, its comma taken off: each but the last has one."""
        text = self._data[start:end]
        if not last:
            if not text.endswith(b","):
                raise _NotLaidOut
            text = text[:-1]
        if not text:  # "{" + "" + "}" would parse, where the document has a stray comma
            raise _NotLaidOut
        return text
