"""Big sorts and JSON reads in short calls: the same results as the one long call, cut up."""

from __future__ import annotations

import hashlib
import io
import math
import random
from typing import Any

import orjson
import pytest

from transcribe_import.engine.base import short_calls
from transcribe_import.engine.base.short_calls import (
    dumps_in_slices,
    dumps_parts,
    loads_in_slices,
    read_in_slices,
    sorted_in_slices,
)

# Nested the way a plan is (items of sources of pages), with the characters a cut must
# not be fooled by: brackets, commas, quotes and escaped line breaks inside strings.
_LOADS = orjson.loads  # the real one: the fixture puts a counting one in its place
_SHA256 = hashlib.sha256  # the same
_TRICKY = ['a "}," b', "x\n  ]\ny", "[{", "  }", "é ☃ 𝄞", ""]


def _document(items: int, sources: int) -> dict[str, Any]:
    rng = random.Random(items * 1000 + sources)
    return {
        "format": "x",
        "empty_list": [],
        "empty_object": {},
        "items": [
            {
                "id": i,
                "title": rng.choice(_TRICKY),
                "sources": [
                    {
                        "n": s,
                        "name": rng.choice(_TRICKY),
                        "size": rng.randrange(1 << 40),
                        "ratio": rng.random(),
                        "flags": [True, False, None],
                        "pages": [{"page": p, "extra": {}} for p in range(rng.randrange(1, 4))],
                    }
                    for s in range(sources)
                ],
            }
            for i in range(items)
        ],
        "provenance": {"roots": ["/a", "/b"], "ignored": [{"rel": t} for t in _TRICKY]},
    }


class _Calls:
    """orjson.loads as short_calls calls it, counting the calls and the size of each input."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def __call__(self, text: bytes | bytearray) -> Any:
        self.sizes.append(len(text))
        return _LOADS(text)


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> _Calls:
    counted = _Calls()
    monkeypatch.setattr(short_calls.orjson, "loads", counted)
    monkeypatch.setattr(short_calls, "JSON_SLICE", 2048)
    return counted


@pytest.mark.parametrize(("items", "sources"), [(1, 200), (40, 3), (5, 40)])
def test_an_indented_document_is_read_in_slices_to_the_same_value(
    calls: _Calls, items: int, sources: int
) -> None:
    data = orjson.dumps(_document(items, sources), option=orjson.OPT_INDENT_2) + b"\n"
    assert len(data) > 20 * 2048

    whole = _LOADS(data)

    value = loads_in_slices(bytearray(data))

    assert value == whole
    assert list(value) == list(whole)  # and its keys in the same order
    # Cut up: many calls, none over the slice (a single source, an item of few sources).
    assert len(calls.sizes) > len(data) // 2048
    assert max(calls.sizes) <= 2048 + 2


def test_a_document_in_another_layout_is_read_in_one_call(calls: _Calls) -> None:
    doc = _document(5, 40)
    for data in (
        orjson.dumps(doc),  # compact
        orjson.dumps(doc, option=orjson.OPT_INDENT_2).replace(b"\n  ", b"\n   "),
        orjson.dumps(doc, option=orjson.OPT_INDENT_2).replace(b"\n", b"\r\n"),
    ):
        calls.sizes.clear()
        assert loads_in_slices(data) == doc
        assert calls.sizes[-1] == len(data)  # the last word is orjson's, on the whole


@pytest.mark.parametrize(
    "fault",
    [
        lambda t: t.replace(b'"n": 7,', b'"n": 7,,', 1),  # a stray comma inside a source
        lambda t: t.replace(b"\n    },\n", b"\n    }\n", 1),  # a missing comma between two
        lambda t: t.replace(b"\n    },\n", b"\n    },\n    ,\n", 1),  # an empty element
        lambda t: t.replace(b"\n  ]", b"\n  ],", 1),  # a doubled comma after a big value
        lambda t: t.replace(b'"format"', b'"format', 1),  # a broken key
        lambda t: t + b"{}",  # text after the value
        lambda t: t.replace(b"\n    {\n", b"\n    NaN,\n    {\n", 1),  # not JSON's number
    ],
)
def test_a_fault_anywhere_is_orjsons_own_error(calls: _Calls, fault: Any) -> None:
    data = fault(orjson.dumps(_document(5, 40), option=orjson.OPT_INDENT_2))
    with pytest.raises(orjson.JSONDecodeError) as whole:
        orjson.loads(data)
    with pytest.raises(orjson.JSONDecodeError) as sliced:
        loads_in_slices(data)
    assert str(sliced.value) == str(whole.value)


_DUMPS = orjson.dumps  # the real one, whatever a test puts in its place


def _encoded(value: Any) -> bytes:
    return _DUMPS(value, option=orjson.OPT_INDENT_2)


@pytest.fixture
def dumps_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of what each ``orjson.dumps`` call of ``short_calls`` makes from now on."""
    sizes: list[int] = []

    def counted(value: Any, **kw: Any) -> bytes:
        out = _DUMPS(value, **kw)
        sizes.append(len(out))
        return out

    monkeypatch.setattr(short_calls.orjson, "dumps", counted)
    return sizes


@pytest.mark.parametrize(("items", "sources"), [(0, 0), (1, 200), (40, 3), (5, 40)])
def test_a_document_is_written_an_item_at_a_time_to_the_bytes_of_one_call(
    dumps_sizes: list[int], items: int, sources: int
) -> None:
    doc = _document(items, sources)
    whole = _encoded(doc) + b"\n"
    assert dumps_in_slices(doc, "items") == whole
    dumps_sizes.clear()
    parts = dumps_parts(doc, "items")
    # Never joined: the head's two halves, the brackets, each item and its separator, the end.
    assert b"".join(parts) == whole and len(parts) == (2 * items + 4 if items else 2)
    if items:  # the head, each item on its own, the marker: never a call of them all
        largest = max(len(_encoded(v)) for v in doc["items"])
        assert len(dumps_sizes) == items + 2 and max(dumps_sizes) == largest


@pytest.mark.parametrize(("items", "sources"), [(1, 200), (3, 40), (2, 700)])
def test_an_items_many_sources_are_written_a_source_at_a_time_to_the_same_bytes(
    monkeypatch: pytest.MonkeyPatch, dumps_sizes: list[int], items: int, sources: int
) -> None:
    # The big notebook of a shelf: its sources a call each, never the item in one call.
    monkeypatch.setattr(short_calls, "INNER_SLICE", 100)
    doc = _document(items, sources)
    doc["items"].append({"id": "last", "sources": []})  # an item with none, laid out alike
    parts = dumps_parts(doc, "items", inner="sources")
    assert b"".join(parts) == _encoded(doc) + b"\n"
    largest_source = max(len(_encoded(src)) for it in doc["items"] for src in it["sources"])
    largest_item = max(len(_encoded(v)) for v in doc["items"])
    if sources > short_calls.INNER_SLICE:
        assert max(dumps_sizes) < largest_source + 200  # a source and its item's head
    else:  # a small item is one call, as without ``inner``
        assert max(dumps_sizes) == largest_item


def test_read_in_slices_reads_the_whole_file() -> None:
    data = random.Random(1).randbytes(3 * short_calls.READ_SLICE + 5)
    assert read_in_slices(io.BytesIO(data)) == data


@pytest.mark.parametrize("n", [0, 1, 9, 100, 1000])
def test_sorted_in_slices_is_sorted_and_stable(monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    monkeypatch.setattr(short_calls, "SORT_SLICE", 16)
    rng = random.Random(n)
    # Few distinct keys, so equal keys meet across slices; the values are never compared.
    values = [(rng.randrange(7), object()) for _ in range(n)]
    assert sorted_in_slices(values, key=lambda v: v[0]) == sorted(values, key=lambda v: v[0])


@pytest.fixture
def sorts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of each list ``short_calls`` sorts from now on, in order."""
    lengths: list[int] = []

    def counted(values: list[Any]) -> list[Any]:
        lengths.append(len(values))
        return sorted(values)

    monkeypatch.setattr(short_calls, "sorted", counted, raising=False)
    return lengths


def test_sorted_in_slices_sorts_each_slice_on_its_own(
    monkeypatch: pytest.MonkeyPatch, sorts: list[int]
) -> None:
    monkeypatch.setattr(short_calls, "SORT_SLICE", 16)
    assert sorted_in_slices(range(100, 0, -1), key=lambda v: v) == list(range(1, 101))
    assert sorts[:7] == [16] * 6 + [4]


@pytest.mark.parametrize("n", [17, 100, 1000, 5000])
def test_sorted_in_slices_merges_in_short_calls(
    monkeypatch: pytest.MonkeyPatch, sorts: list[int], n: int
) -> None:
    """Every sort is of at most two slices' worth, and each round of merges sorts each value
    once: n values in r slices are sorted n * (1 + ceil(log2 r)) times at most, not the
    n * n of a merge that took them one at a time from the whole."""
    monkeypatch.setattr(short_calls, "SORT_SLICE", 16)
    rng = random.Random(n)
    values = [rng.randrange(n // 3) for _ in range(n)]
    assert sorted_in_slices(values, key=lambda v: v) == sorted(values)
    slices = math.ceil(n / 16)
    assert max(sorts) <= 2 * 16
    assert sum(sorts) <= n * (1 + math.ceil(math.log2(slices)))
    assert len(sorts) >= slices


def test_free_in_slices_takes_apart_only_what_nothing_else_holds() -> None:
    kept = {"path": "a/b.jpg", "pages": [{"id": "p1"}]}
    doc = {"items": [{"sources": [kept, {"path": "c.jpg"}]}, {"sources": list(range(200))}]}
    items = doc["items"]
    box = [doc]
    del doc
    short_calls.free_in_slices(box)
    assert box == []
    # Held elsewhere, so left as they were: the source a plan kept, and the items list.
    assert kept == {"path": "a/b.jpg", "pages": [{"id": "p1"}]}
    assert items == [{"sources": [kept, {"path": "c.jpg"}]}, {"sources": list(range(200))}]


class _Digest:
    """hashlib.sha256 as short_calls makes it, counting the size of each update."""

    def __init__(self) -> None:
        self.real = _SHA256()
        self.updates: list[int] = []

    def update(self, data: bytes | bytearray) -> None:
        self.updates.append(len(data))
        self.real.update(data)

    def hexdigest(self) -> str:
        return self.real.hexdigest()


def test_parts_are_hashed_in_blocks_to_the_digest_of_them_joined(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[_Digest] = []
    monkeypatch.setattr(short_calls.hashlib, "sha256", lambda: made.append(_Digest()) or made[-1])
    monkeypatch.setattr(short_calls, "HASH_BLOCK", 4096)
    rng = random.Random(7)
    parts = [rng.randbytes(rng.randrange(0, 700)) for _ in range(200)]

    assert short_calls.sha256_of_parts(iter(parts)) == _SHA256(b"".join(parts)).hexdigest()
    [digest] = made
    # Each update but the last is a block of at least HASH_BLOCK bytes (and less than one
    # more part): never an update a part, each a hand-over of the GIL.
    *blocks, last = digest.updates
    assert blocks and all(4096 <= n < 4096 + 700 for n in blocks)
    assert last < 4096
    assert sum(digest.updates) == sum(map(len, parts))
    assert short_calls.sha256_of_parts([]) == _SHA256(b"").hexdigest()
