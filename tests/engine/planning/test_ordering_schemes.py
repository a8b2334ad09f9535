"""Page order the way archives number pages: leaves and sides, counters, duplex passes.

Property tests over generated naming schemes: a clear folder of any supported scheme gets
its intended order and nothing is flagged; taking any one page out of it is always a gap
that names its neighbours. Then each scheme, each new ambiguity and each resolution.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_ordering import at, make_item, only, proposed, rels, src  # the same fixtures

from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.ordering import AmbiguityCode
from transcribe_import.engine.planning.plan import (
    DEFAULT_POLICY_ID,
    Duplicate,
    ImportPlan,
    Ordering,
    OrderingRule,
    PlanDocumentError,
    plan_from_document,
)

# -- the schemes ---------------------------------------------------------------------------

# Page numbers: one name per page n.
PAGE_SCHEMES: dict[str, Callable[[int], str]] = {
    "page n": lambda n: f"page {n}.jpg",
    "padded": lambda n: f"{n:03d}.jpg",
    "pN": lambda n: f"p{n}.png",
    "dated scan": lambda n: f"scan 2023-05-01 p{n}.jpg",
}
# Leaves and sides: one name per (leaf n, side 0 or 1).
SIDE_SCHEMES: dict[str, Callable[[int, int], str]] = {
    "12r/12v": lambda n, s: f"{n}{'rv'[s]}.jpg",
    "12a/12b": lambda n, s: f"{n}{'ab'[s]}.jpg",
    "recto/verso": lambda n, s: f"{n} {('recto', 'verso')[s]}.jpg",
    "f. 12r": lambda n, s: f"f. {n}{'rv'[s]}.jpg",
    "fol12v": lambda n, s: f"fol{n}{'rv'[s]}.png",
    "folio padded": lambda n, s: f"folio_{n:03d}{'rv'[s]}.jpg",
    "openings L/R": lambda n, s: f"{n}{'LR'[s]}.jpg",
    "openings left/right": lambda n, s: f"opening {n} {('left', 'right')[s]}.jpg",
}
GAP_CODES = {AmbiguityCode.MISSING_INDEX, AmbiguityCode.MISSING_LEAF}


def page_folder(scheme: str, start: int, count: int) -> list[str]:
    return [PAGE_SCHEMES[scheme](n) for n in range(start, start + count)]


def side_folder(scheme: str, start: int, leaves: int) -> list[str]:
    return [SIDE_SCHEMES[scheme](n, s) for n in range(start, start + leaves) for s in (0, 1)]


folders = st.one_of(
    st.builds(
        page_folder, st.sampled_from(sorted(PAGE_SCHEMES)), st.integers(1, 60), st.integers(3, 25)
    ),
    st.builds(
        side_folder, st.sampled_from(sorted(SIDE_SCHEMES)), st.integers(1, 60), st.integers(2, 12)
    ),
)


@given(folders, st.randoms(use_true_random=False))
def test_a_clear_folder_gets_its_order_and_nothing_is_flagged(
    names: list[str], rnd: random.Random
) -> None:
    shuffled = names[:]
    rnd.shuffle(shuffled)
    item = make_item(*ordering.propose_order([src(n) for n in shuffled]))
    assert rels(item) == names
    assert ordering.find_ambiguities(item) == []


@given(folders, st.data())
def test_taking_one_page_out_is_a_gap_naming_its_neighbours(
    names: list[str], data: st.DataObject
) -> None:
    is_pages = ordering.page_label(names[0]) is None
    # A page number's first and last page cannot be missed (nothing says where a run ends);
    # a leaf's can, since every leaf has two sides.
    lo, hi = (1, len(names) - 2) if is_pages else (0, len(names) - 1)
    k = data.draw(st.integers(lo, hi))
    kept = names[:k] + names[k + 1 :]
    item = make_item(*ordering.propose_order([src(n) for n in kept]))
    found = ordering.find_ambiguities(item)
    assert [a.code for a in found] in ([AmbiguityCode.MISSING_INDEX], [AmbiguityCode.MISSING_LEAF])
    a = found[0]
    neighbours = [names[i] for i in (k - 1, k + 1) if 0 <= i < len(names)]
    for n in neighbours:
        assert n in a.message, (names[k], a.message)
    assert {s.provenance.rel for s in item.sources if s.source_id in a.source_ids} == set(
        neighbours
    )
    # Left out on purpose instead, the same page opens no gap.
    left_out = make_item(*ordering.propose_order([src(n, excluded=n == names[k]) for n in names]))
    assert ordering.find_ambiguities(left_out) == []


_COUNTER_PREFIXES = ["IMG_", "DSC", "DSCN", "DSC_", "P", "scan_"]


@given(
    st.sampled_from(_COUNTER_PREFIXES),
    st.integers(1000, 8000),
    st.lists(st.integers(0, 60), min_size=2, max_size=25, unique=True),
    st.randoms(use_true_random=False),
)
def test_a_counter_with_any_frames_deleted_is_clear_and_in_order(
    prefix: str, start: int, kept: list[int], rnd: random.Random
) -> None:
    names = [f"{prefix}{start + k:04d}.JPG" for k in sorted(kept)]
    shuffled = names[:]
    rnd.shuffle(shuffled)
    item = make_item(*ordering.propose_order([src(n) for n in shuffled]))
    assert rels(item) == names
    assert ordering.find_ambiguities(item) == []


# -- leaves and sides ----------------------------------------------------------------------


def test_a_complete_leaf_is_no_duplicate_and_order_goes_by_leaf() -> None:
    item = proposed(
        "2v.jpg",
        "10r.jpg",
        "1r.jpg",
        "2r.jpg",
        "1v.jpg",
        "10v.jpg",
        *[f"{n}{s}.jpg" for n in range(3, 10) for s in "rv"],
    )
    assert rels(item)[:5] == ["1r.jpg", "1v.jpg", "2r.jpg", "2v.jpg", "3r.jpg"]
    assert ordering.find_ambiguities(item) == []
    # Spelled two ways in one folder, still one order by leaf and side.
    mixed = proposed("f. 2r.jpg", "fol1v.jpg", "f. 1r.jpg", "fol2v.jpg")
    assert rels(mixed) == ["f. 1r.jpg", "fol1v.jpg", "f. 2r.jpg", "fol2v.jpg"]
    assert ordering.find_ambiguities(mixed) == []


def test_a_missing_verso_is_told_in_those_words() -> None:
    item = proposed("1r.jpg", "1v.jpg", "2r.jpg", "3r.jpg", "3v.jpg")
    a = only(item, AmbiguityCode.MISSING_LEAF)
    assert a.message.startswith("The verso of leaf 2 (2v) is missing between 2r.jpg and 3r.jpg."), (
        a.message
    )
    assert {"accept", "sequence"} <= set(a.resolutions)
    assert "versos_blank" in a.resolutions  # every missing side is a verso


def test_a_missing_leaf_and_a_run_of_leaves() -> None:
    a = only(proposed("1r.jpg", "1v.jpg", "3r.jpg", "3v.jpg"), AmbiguityCode.MISSING_LEAF)
    assert a.message.startswith("Leaf 2 (2r and 2v) is missing between 1v.jpg and 3r.jpg.")
    many = proposed("1a.jpg", "1b.jpg", "5a.jpg", "5b.jpg", "6a.jpg")
    a = only(many, AmbiguityCode.MISSING_LEAF)
    assert a.message.startswith("Leaves 2-4 and the verso of leaf 6 (6b) are missing."), a.message
    openings = only(proposed("1L.jpg", "1R.jpg", "2R.jpg"), AmbiguityCode.MISSING_LEAF)
    assert openings.message.startswith(
        "The left page of opening 2 (2L) is missing between 1R.jpg and 2R.jpg."
    )


def test_first_page_a_verso() -> None:
    item = proposed("1v.jpg", "2r.jpg", "2v.jpg")
    a = only(item, AmbiguityCode.MISSING_LEAF)
    assert a.message.startswith("The recto of leaf 1 (1r) is missing before 1v.jpg.")
    assert "--verso-first" in (a.hint or "") and "verso_first" in a.resolutions
    said = ordering.verso_first(item)
    assert said.ordering == Ordering(verso_first=True) and said.sources == item.sources
    assert ordering.find_ambiguities(said) == []
    # Said, every other gap is still told.
    gap = ordering.verso_first(proposed("1v.jpg", "2r.jpg", "3r.jpg", "3v.jpg"))
    assert only(gap, AmbiguityCode.MISSING_LEAF).message.startswith("The verso of leaf 2 (2v)")


def test_versos_blank_and_not_scanned() -> None:
    item = proposed(*(f"f. {n}r.jpg" for n in range(1, 6)))
    a = only(item, AmbiguityCode.MISSING_LEAF)
    assert a.message.startswith(
        "The verso of leaf 1 (1v), the verso of leaf 2 (2v), the verso of leaf 3 (3v)"
    )
    assert "versos_blank" in a.resolutions and "--versos-blank" in (a.hint or "")
    said = ordering.versos_blank(item)
    assert ordering.find_ambiguities(said) == []
    # A missing recto is still a missing leaf.
    holed = ordering.versos_blank(proposed("1r.jpg", "2r.jpg", "4r.jpg"))
    a = only(holed, AmbiguityCode.MISSING_LEAF)
    assert a.message.startswith("The recto of leaf 3 (3r) is missing between 2r.jpg and 4r.jpg")


def test_one_side_claimed_twice() -> None:
    item = proposed("12r.jpg", "f. 12r.jpg", "12v.jpg")
    a = only(item, AmbiguityCode.DUPLICATE_NUMBER)
    assert "12r.jpg and f. 12r.jpg both claim the recto of leaf 12 (12r)" in a.message


def test_page_labels_from_names() -> None:
    assert ordering.page_label("f. 12r.jpg") == "12r"
    assert ordering.page_label("fol012v.png") == "12v"
    assert ordering.page_label("12 recto.jpg") == "12r"
    assert ordering.page_label("folio 3 verso.jpg") == "3v"
    assert ordering.page_label("7b.jpg") == "7b"
    assert ordering.page_label("opening 4 left.jpg") == "4L"
    assert ordering.page_label("4R.jpg") == "4R"
    for plain in ("page 3.jpg", "IMG_0042.JPG", "cover.jpg", "scan 2023-05-01.jpg"):
        assert ordering.page_label(plain) is None, plain


# -- no cue, no guess ----------------------------------------------------------------------


def test_names_without_numbers_are_no_cue() -> None:
    item = proposed("cover.jpg", "first.jpg", "second.jpg", "last.jpg")
    a = only(item, AmbiguityCode.NO_ORDER_CUE)
    assert a.message.startswith(
        "No page numbers in the names of these 3 files (first.jpg, last.jpg and second.jpg), "
        "so their order would be a guess."
    ), a.message
    assert {"accept", "mtime", "sequence"} <= set(a.resolutions)
    assert ordering.find_ambiguities(ordering.order_by(item, OrderingRule.MTIME)) == []
    dated = make_item(src("first.jpg", captured_at=at(9)), src("last.jpg"), src("x.jpg"))
    assert "capture_time" in only(dated, AmbiguityCode.NO_ORDER_CUE).resolutions


def test_two_schemes_at_once() -> None:
    item = proposed("1.jpg", "2.jpg", "3.jpg", "a.jpg", "b.jpg")
    a = only(item, AmbiguityCode.MIXED_SCHEMES)
    assert a.message.startswith(
        "The names follow 2 numbering schemes at once: page numbers (1.jpg, 2.jpg and 3.jpg) "
        "and no number (a.jpg and b.jpg)"
    ), a.message
    assert "exclude" in a.resolutions
    fixed = ordering.exclude(item, ["a.jpg", "b.jpg"])
    assert ordering.find_ambiguities(fixed) == []
    sides = only(proposed("1r.jpg", "1v.jpg", "2.jpg", "3.jpg"), AmbiguityCode.MIXED_SCHEMES)
    assert "leaves and sides (1r.jpg and 1v.jpg) and page numbers (2.jpg and 3.jpg)" in (
        sides.message
    )


# -- counters ------------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["IMG_", "DSC", "DSCN", "P", "scan_", "DSC_"])
def test_a_counter_with_deleted_frames_is_no_missing_page(prefix: str) -> None:
    item = proposed(*(f"{prefix}{n:04d}.JPG" for n in (1001, 1002, 1004, 1007, 1008)))
    assert ordering.find_ambiguities(item) == []
    # Two files with one counter value are still told.
    twice = make_item(src(f"a/{prefix}1001.JPG"), src(f"b/{prefix}1001.JPG"))
    assert only(twice, AmbiguityCode.DUPLICATE_NUMBER)


def test_numbers_far_beyond_the_page_count_are_a_counter() -> None:
    assert ordering.find_ambiguities(proposed("4711.jpg", "4712.jpg", "4715.jpg")) == []
    # Page numbers of a later volume are still pages.
    assert only(proposed("page 101.jpg", "page 103.jpg"), AmbiguityCode.MISSING_INDEX)


def test_a_counter_that_rolls_over_or_disagrees_is_still_flagged() -> None:
    rolled = proposed("IMG_9998.JPG", "IMG_9999.JPG", "IMG_0001.JPG", "IMG_0003.JPG")
    assert "rolled over" in only(rolled, AmbiguityCode.CONFLICTING_CUES).message
    disagree = make_item(
        src("IMG_1001.JPG", captured_at=at(10)),
        src("IMG_1002.JPG", captured_at=at(9)),
        src("IMG_1005.JPG", captured_at=at(11)),
    )
    assert only(disagree, AmbiguityCode.CONFLICTING_CUES)


# -- duplex passes -------------------------------------------------------------------------


def duplex_names(n: int) -> list[str]:
    return [f"front_{i:03d}.jpg" for i in range(1, n + 1)] + [
        f"back_{i:03d}.jpg" for i in range(1, n + 1)
    ]


def test_fronts_and_backs_by_name_interleave_both_ways() -> None:
    item = proposed(*duplex_names(3))
    a = only(item, AmbiguityCode.DUPLEX_PASSES)
    assert a.message.startswith(
        "By their names, these pages look like two passes of a duplex scan: 3 fronts "
        "(front_001.jpg first) and 3 backs (back_001.jpg first)."
    ), a.message
    assert a.resolutions[:2] == ("interleave", "interleave_reversed")
    woven = ordering.order_by(item, OrderingRule.INTERLEAVE)
    assert rels(woven) == [
        "front_001.jpg",
        "back_001.jpg",
        "front_002.jpg",
        "back_002.jpg",
        "front_003.jpg",
        "back_003.jpg",
    ]
    assert woven.ordering == Ordering(OrderingRule.INTERLEAVE, True)
    reversed_ = ordering.interleave(item, backs_reversed=True)
    assert rels(reversed_) == [
        "front_001.jpg",
        "back_003.jpg",
        "front_002.jpg",
        "back_002.jpg",
        "front_003.jpg",
        "back_001.jpg",
    ]
    assert reversed_.ordering.rule is OrderingRule.INTERLEAVE_REVERSED


def test_odd_and_even_folders_and_a_cover() -> None:
    names = ["cover.jpg", *(f"odd/{i}.jpg" for i in (1, 2)), *(f"even/{i}.jpg" for i in (1, 2))]
    item = proposed(*names)
    only(item, AmbiguityCode.DUPLEX_PASSES)
    woven = ordering.interleave(item)
    assert rels(woven) == ["cover.jpg", "odd/1.jpg", "even/1.jpg", "odd/2.jpg", "even/2.jpg"]


def test_two_counters_and_two_runs_of_capture_times() -> None:
    item = proposed(
        *(f"A_{i:04d}.jpg" for i in range(1, 4)), *(f"B_{i:04d}.jpg" for i in range(1, 4))
    )
    assert "By two counters" in only(item, AmbiguityCode.DUPLEX_PASSES).message
    assert rels(ordering.interleave(item))[:4] == [
        "A_0001.jpg",
        "B_0001.jpg",
        "A_0002.jpg",
        "B_0002.jpg",
    ]
    # One counter, two runs of capture times: 10:00:0x, then 10:05:0x.
    runs = [
        src(f"scan_{i:04d}.jpg", captured_at=f"2024-05-01T10:0{5 * (i > 3)}:0{i}")
        for i in range(1, 7)
    ]
    item = make_item(*runs)
    a = only(item, AmbiguityCode.DUPLEX_PASSES)
    assert a.message.startswith("By their capture times")
    assert rels(ordering.interleave(item, backs_reversed=True)) == [
        "scan_0001.jpg",
        "scan_0006.jpg",
        "scan_0002.jpg",
        "scan_0005.jpg",
        "scan_0003.jpg",
        "scan_0004.jpg",
    ]


def test_fronts_and_backs_must_agree_in_number() -> None:
    item = proposed(*duplex_names(3)[:-1])  # back_003 never scanned
    a = only(item, AmbiguityCode.DUPLEX_PASSES)
    assert "3 fronts" in a.message and "2 backs" in a.message and "counts differ" in a.message
    assert "interleave" not in a.resolutions
    with pytest.raises(ValueError, match="3 fronts but 2 backs"):
        ordering.interleave(item)
    # A left-out back keeps its place in the pairs: the counts are of what was scanned.
    blank = ordering.exclude(proposed(*duplex_names(2)), ["back_002.jpg"])
    assert "interleave" in only(blank, AmbiguityCode.DUPLEX_PASSES).resolutions
    assert rels(ordering.interleave(blank))[-1] == "back_002.jpg"


def test_interleave_without_named_passes_cuts_the_order_in_half() -> None:
    item = proposed(*(f"page {i}.jpg" for i in range(1, 7)))
    assert rels(ordering.interleave(item)) == [f"page {i}.jpg" for i in (1, 4, 2, 5, 3, 6)]
    with pytest.raises(ValueError, match="3 fronts but 2 backs"):
        ordering.interleave(proposed(*(f"page {i}.jpg" for i in range(1, 6))))


@given(st.integers(2, 30), st.booleans())
def test_interleave_is_a_permutation_pairing_every_front(n: int, backs_reversed: bool) -> None:
    item = proposed(*duplex_names(n))
    woven = ordering.interleave(item, backs_reversed=backs_reversed)
    assert sorted(s.source_id for s in woven.sources) == sorted(s.source_id for s in item.sources)
    names = rels(woven)
    assert names[0::2] == [f"front_{i:03d}.jpg" for i in range(1, n + 1)]
    backs = [f"back_{i:03d}.jpg" for i in range(1, n + 1)]
    assert names[1::2] == (backs[::-1] if backs_reversed else backs)
    assert woven.ordering.resolved and ordering.find_ambiguities(woven) == []
    # The passes are found whatever the order: unresolved, the woven folder is still told.
    assert only(replace(woven, ordering=Ordering()), AmbiguityCode.DUPLEX_PASSES)


# -- what the plan leaves out never opens a gap ----------------------------------------------


def test_a_planned_skip_or_an_exclusion_raises_no_missing_page() -> None:
    excluded = ordering.exclude(proposed(*(f"page {i}.jpg" for i in range(1, 6))), ["page 3.jpg"])
    assert ordering.find_ambiguities(excluded) == []
    skipped = make_item(
        *(
            src(f"page {i}.jpg", duplicate=Duplicate.IN_PLAN if i == 3 else None)
            for i in range(1, 6)
        )
    )
    assert ordering.find_ambiguities(skipped) == []
    leaf = ordering.exclude(proposed("1r.jpg", "1v.jpg", "2r.jpg", "2v.jpg"), ["1v.jpg"])
    assert ordering.find_ambiguities(leaf) == []


# -- the plan document carries labels and what a person said -------------------------------


def test_labels_and_leaf_facts_round_trip_fingerprinted() -> None:
    plain = make_item(src("page 1.jpg"), src("page 2.jpg"))
    doc = ImportPlan(new_id(), DEFAULT_POLICY_ID, (plain,)).to_document()
    # Nothing said, nothing written: every plan made before keeps its fingerprint.
    assert set(doc["items"][0]["ordering"]) == {"rule", "resolved"}
    assert all("label" not in p for s in doc["items"][0]["sources"] for p in s["pages"])

    one = src("f. 1v.jpg")
    labelled = replace(one, pages=(replace(one.pages[0], label="1v"),))
    item = ordering.verso_first(make_item(labelled, src("f. 2r.jpg")))
    plan = ImportPlan(new_id(), DEFAULT_POLICY_ID, (item,))
    doc = plan.to_document()
    assert doc["items"][0]["ordering"]["verso_first"] is True
    back = plan_from_document(orjson.loads(orjson.dumps(doc)), "plan.json")
    assert back.items[0].ordering == Ordering(verso_first=True)
    assert back.items[0].sources[0].pages[0].label == "1v"
    assert (
        back.fingerprint
        == plan.fingerprint
        != ImportPlan(
            plan.plan_id, DEFAULT_POLICY_ID, (replace(item, ordering=Ordering()),)
        ).fingerprint
    )
    doc["items"][0]["sources"][0]["pages"][0]["label"] = "2r"  # edited outside the app
    with pytest.raises(PlanDocumentError, match="plan_fingerprint does not match"):
        plan_from_document(doc, "plan.json")
