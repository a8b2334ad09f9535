"""The one natural order (scan, adapters and ordering agree on it), display names, JSON text."""

from __future__ import annotations

import os
import random
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from transcribe_import.engine.base.text import (
    display_name,
    folder_parts,
    joined_key,
    json_safe,
    json_safe_deep,
    name_parts,
    natural_key,
)
from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.adapters import adapter_for
from transcribe_import.engine.planning.plan import AdapterMode, OrderingRule
from transcribe_import.engine.planning.planner import build_plan
from transcribe_import.engine.planning.scan import run_scan, walk

from media_factory import make_image

# Real-looking page names, including the ones the old two keys sorted differently.
NAMES = [
    "ñ1.jpg",
    "n2.jpg",
    "o1.jpg",
    "Page 2.jpg",
    "page 2.jpg",
    "page01.jpg",
    "page1.jpg",
    "page 10.jpg",
    "page 9.jpg",
    "IMG_0042.jpg",
    "IMG_0042 (1).jpg",
    "scan.v2.jpg",
    "Ärmel 3.jpg",
    "ß 1.jpg",
    "p1 back.jpg",
    "p1.jpg",
    "2.jpg",
    "10.jpg",
    "cafe\u0301 1.jpg",  # NFD, as macOS writes it; scan's rel is NFC
]


def drive(gen):  # type: ignore[no-untyped-def]
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            return stop.value


@pytest.fixture
def book(tmp_path: Path) -> Path:
    folder = tmp_path / "book"
    folder.mkdir()
    made = set()
    for k, name in enumerate(NAMES):
        make_image(folder / name, f"page {k}", size=(40, 50))
        made.add(name)
    if len(os.listdir(folder)) != len(made):
        pytest.skip("the file system folds case or normalisation: names collide")
    return folder


def test_scan_adapters_and_ordering_agree_on_one_order(book: Path, data_dir: Path) -> None:
    expected = sorted((f"book/{unicodedata.normalize('NFC', n)}" for n in NAMES), key=natural_key)

    walked = drive(walk([book]))
    assert [f.rel for f in walked.files] == expected
    scanned = run_scan([book])
    assert [f.rel for f in scanned.files] == expected

    for mode in ("folders", "single"):
        adapter, _ = adapter_for(AdapterMode.parse(mode))
        [group] = adapter.group(scanned).groups
        assert [f.rel for f in group.files] == expected

    [item] = build_plan(None, scanned).items
    assert [s.provenance.rel for s in item.sources] == expected
    shuffled = list(item.sources)
    random.Random(7).shuffle(shuffled)
    assert [s.provenance.rel for s in ordering.propose_order(shuffled)] == expected
    by_name = ordering.order_by(item, OrderingRule.NAME)
    assert [s.provenance.rel for s in by_name.sources] == expected


def test_the_order_of_the_names_that_used_to_disagree() -> None:
    assert sorted(["o1.jpg", "ñ1.jpg", "n1.jpg"], key=natural_key) == ["n1.jpg", "ñ1.jpg", "o1.jpg"]
    # Equal but for case or padding: always the same order, whatever the input order.
    for pair in (["page 2.jpg", "Page 2.jpg"], ["page1.jpg", "page01.jpg"]):
        assert sorted(pair, key=natural_key) == sorted(reversed(pair), key=natural_key)
    assert sorted(["page 2.jpg", "Page 2.jpg"], key=natural_key) == ["Page 2.jpg", "page 2.jpg"]
    assert sorted(["page1.jpg", "page01.jpg"], key=natural_key) == ["page01.jpg", "page1.jpg"]
    assert sorted(["page 10.jpg", "page 9.jpg"], key=natural_key) == ["page 9.jpg", "page 10.jpg"]
    # Path-aware: a folder before its longer-named siblings; the extension on its own.
    assert sorted(["a 1/1.jpg", "a/2.jpg"], key=natural_key) == ["a/2.jpg", "a 1/1.jpg"]
    assert sorted(["p1 back.jpg", "p1.jpg"], key=natural_key) == ["p1.jpg", "p1 back.jpg"]


# Names as a walk may meet them: digits, case, accents in both normal forms, dots, spaces.
_CHARS = st.sampled_from(list("aAbBzZ0129 ._-()ñÑéÉßİ²٣") + ["e\u0301", "\u00e9"])
_TEXT = st.lists(_CHARS, max_size=12).map("".join)
_NAME = _TEXT.filter(lambda n: n not in ("", ".", ".."))
_REL = st.lists(_NAME, min_size=1, max_size=4).map("/".join)


@given(st.lists(_REL, max_size=25), st.randoms(use_true_random=False))
def test_sorting_is_total_and_deterministic(rels: list[str], rnd: random.Random) -> None:
    once = sorted(rels, key=natural_key)
    shuffled = list(rels)
    rnd.shuffle(shuffled)
    assert sorted(shuffled, key=natural_key) == once
    # Total: only equal texts have equal keys.
    for a, b in zip(once, once[1:], strict=False):
        assert natural_key(a) < natural_key(b) or a == b


@given(st.lists(_NAME, max_size=3).map("/".join), _NAME)
def test_scan_s_cached_parts_make_the_same_key(head: str, name: str) -> None:
    rel = f"{head}/{name}" if head else name
    assert joined_key(folder_parts(head), name_parts(name), rel) == natural_key(rel)


@given(_REL | st.sampled_from(["a/", "a/.", "a/..", "/a/b.jpg", "a//b.jpg", "a/./b.jpg"]))
def test_a_natural_key_is_natsorts_path_key(rel: str) -> None:
    from natsort import natsort_keygen, ns

    assert natural_key(rel)[0] == natsort_keygen(alg=ns.PATH | ns.IGNORECASE)(rel)


@given(_NAME)
def test_name_parts_split_as_natsort_does(name: str) -> None:
    from natsort import natsort_keygen, ns

    assert name_parts(name) == natsort_keygen(alg=ns.PATH | ns.IGNORECASE)(name)


def test_display_name_is_nfc_and_shows_undecodable_bytes_as_replacement() -> None:
    assert display_name("page 1.jpg") == "page 1.jpg"
    assert display_name(unicodedata.normalize("NFD", "café.jpg")) == "café.jpg"
    latin1 = os.fsdecode(b"caf\xe9.jpg")
    assert display_name(latin1) == "caf\ufffd.jpg"


def test_json_safe_keeps_text_and_replaces_lone_surrogates() -> None:
    latin1 = os.fsdecode(b"caf\xe9.jpg")
    assert json_safe("café.jpg") == "café.jpg"
    assert json_safe(latin1) == "caf\ufffd.jpg"
    assert json_safe_deep({latin1: [latin1, 3, None], "t": (latin1,)}) == {
        "caf\ufffd.jpg": ["caf\ufffd.jpg", 3, None],
        "t": ["caf\ufffd.jpg"],
    }
