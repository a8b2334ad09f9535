"""Page order: the proposed natural order, every ambiguity by code, and every resolution."""

from __future__ import annotations

import time
import unicodedata
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.ordering import Ambiguity, AmbiguityCode
from transcribe_import.engine.planning.plan import (
    Duplicate,
    Op,
    Ordering,
    OrderingRule,
    PlanItem,
    PlanPage,
    PlanSource,
    SourceProvenance,
)
from transcribe_import.engine.planning.problems import Resolution

MEDIA = {"jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "pdf": "application/pdf"}
UNRESOLVED = Ordering()


def src(
    rel: str,
    *,
    captured_at: str | None = None,
    mtime_ns: int = 0,
    pages: int = 1,
    excluded: bool = False,
    duplicate: Duplicate | None = None,
) -> PlanSource:
    media_type = MEDIA[rel.rsplit(".", 1)[-1].lower()]
    return PlanSource(
        source_id=new_id(),
        sha256="0" * 64,
        media_type=media_type,
        pages=tuple(PlanPage(new_id(), new_id(), i) for i in range(pages)),
        provenance=SourceProvenance(
            path=f"/scans/book/{rel}",
            rel=rel,
            size=1000,
            mtime="2024-01-01T00:00:00Z",
            mtime_ns=mtime_ns,
            captured_at=captured_at,
        ),
        excluded=excluded,
        duplicate=duplicate,
    )


def make_item(*sources: PlanSource, rule: Ordering = UNRESOLVED) -> PlanItem:
    return PlanItem(new_id(), Op.CREATE_NOTEBOOK, new_id(), "book", tuple(sources), rule)


def proposed(*rels: str, **kw) -> PlanItem:
    """An unresolved item of those files in the proposed order, as the planner makes it."""
    return make_item(*ordering.propose_order([src(r, **kw) for r in rels]))


def rels(item: PlanItem) -> list[str]:
    return [s.provenance.rel for s in item.sources]


def excluded(item: PlanItem) -> list[str]:
    return [s.provenance.rel for s in item.sources if s.excluded]


def ids_of(item: PlanItem, *names: str) -> set[str]:
    return {ordering.source_by_name(item, n).source_id for n in names}


def only(item: PlanItem, code: AmbiguityCode) -> Ambiguity:
    found = ordering.find_ambiguities(item)
    assert [a.code for a in found] == [code], [a.message for a in found]
    a = found[0]
    assert a.item_id == item.item_id
    assert set(a.resolutions) <= ordering.RESOLUTIONS and a.resolutions
    assert "\n" not in a.message
    return a


def at(hour: int, minute: int = 0) -> str:
    return f"2024-05-01T{hour:02d}:{minute:02d}:00"


# -- the proposed order --------------------------------------------------------------------


def test_natural_key_orders_numbers_as_numbers_ignoring_case() -> None:
    names = ["page10.jpg", "Page9.jpg", "page2.jpg", "PAGE1.jpg", "page11.jpg"]
    assert sorted(names, key=ordering.natural_key) == [
        "PAGE1.jpg",
        "page2.jpg",
        "Page9.jpg",
        "page10.jpg",
        "page11.jpg",
    ]


def test_natural_key_is_path_aware_and_unicode_normalised() -> None:
    # Plain string order would put "a 1/" first (" " < "/").
    assert sorted(["a 1/1.jpg", "a/2.jpg"], key=ordering.natural_key) == ["a/2.jpg", "a 1/1.jpg"]
    nfd = unicodedata.normalize("NFD", "café 2.jpg")
    # Either normal form sorts in the same place; only the exact text breaks their tie.
    assert ordering.natural_key(nfd)[:2] == ordering.natural_key("café 2.jpg")[:2]
    assert sorted(["café 10.jpg", nfd, "café 1.jpg"], key=ordering.natural_key) == [
        "café 1.jpg",
        nfd,
        "café 10.jpg",
    ]
    # Names equal but for case or padding still sort the same way whatever the input order.
    assert sorted(["page01.jpg", "page1.jpg"], key=ordering.natural_key) == sorted(
        ["page1.jpg", "page01.jpg"], key=ordering.natural_key
    )


def test_propose_order_puts_a_cover_image_first() -> None:
    sources = [src(r) for r in ["b 2.jpg", "b 10.jpg", "Cover.JPG", "a.jpg"]]
    assert [s.provenance.rel for s in ordering.propose_order(sources)] == [
        "Cover.JPG",
        "a.jpg",
        "b 2.jpg",
        "b 10.jpg",
    ]
    # The contract's heuristic leaves cover PDFs out; so does the order.
    pdf = [src("a.jpg"), src("cover.pdf")]
    assert [s.provenance.rel for s in ordering.propose_order(pdf)] == ["a.jpg", "cover.pdf"]


@pytest.mark.parametrize(
    ("name", "number"),
    [
        ("page 3.jpg", (3, "3")),
        ("IMG_0042.JPG", (42, "0042")),
        ("scan 2023-05-01 p7.png", (7, "7")),
        ("vol2 page 14.jpg", (14, "14")),
        ("cover.jpg", None),
        ("notes 2023-05-01.jpg", None),
        ("IMG_20230501_120000.jpg", None),
        ("PXL_20230501_120000123.jpg", None),
        ("Screenshot 2023-05-01 at 12.30.45.png", None),
        ("IMG-20230501-WA0003.jpg", (3, "0003")),
    ],
)
def test_page_number_is_the_last_digits_that_are_not_a_date(name, number) -> None:
    assert ordering.page_number(name) == number


# -- ambiguities ---------------------------------------------------------------------------


def test_duplicate_number_names_both_files() -> None:
    item = proposed("page1.jpg", "page01.jpg", "page2.jpg")
    a = only(item, AmbiguityCode.DUPLICATE_NUMBER)
    assert "page01.jpg and page1.jpg both claim page 1" in a.message
    assert set(a.source_ids) == ids_of(item, "page1.jpg", "page01.jpg")
    assert {"exclude", "sequence"} <= set(a.resolutions)


def test_three_files_claiming_one_page() -> None:
    item = proposed("p1.jpg", "p01.jpg", "p001.jpg", "p2.jpg")
    a = only(item, AmbiguityCode.DUPLICATE_NUMBER)
    assert "all claim page 1" in a.message and len(a.source_ids) == 3


def test_missing_page_between_its_neighbours() -> None:
    item = proposed("page 1.jpg", "page 2.jpg", "page 4.jpg")
    a = only(item, AmbiguityCode.MISSING_INDEX)
    assert a.message.startswith("Page 3 is missing between page 2.jpg and page 4.jpg.")
    assert set(a.source_ids) == ids_of(item, "page 2.jpg", "page 4.jpg")


def test_a_page_found_but_unusable_is_not_missing() -> None:
    """002.pdf (encrypted) and 003.png (too large) were found: their own problems tell them;
    the order is not asked about pages 2-3 as missing. A page not found at all still is."""
    item = proposed("001.jpg", "004.jpg", "006.jpg")
    unusable = [{"rel": f"Box/{name}", "message": "x"} for name in ("002.pdf", "003.png")]
    item = replace(item, provenance={**item.provenance, "unusable": unusable})
    a = only(item, AmbiguityCode.MISSING_INDEX)
    assert a.message.startswith("Page 5 is missing between 004.jpg and 006.jpg.")
    found_all = replace(
        item, provenance={**item.provenance, "unusable": [*unusable, {"rel": "Box/005.jpg"}]}
    )
    assert ordering.find_ambiguities(found_all) == []


def test_a_pdf_named_for_its_place_is_not_a_missing_page() -> None:
    """001.jpg, 002.pdf, 003.jpg: the PDF is where page 2 goes (the mixed-media question
    asks where its pages go), not a missing page."""
    item = proposed("001.jpg", "002.pdf", "003.jpg")
    codes = [a.code for a in ordering.find_ambiguities(item)]
    assert codes == [AmbiguityCode.MIXED_MEDIA]


def test_many_gaps_are_reported_compactly() -> None:
    numbers = [1, 2, 4, 5, 6, 8, 9, 10, 11, 16]
    a = only(proposed(*(f"p{n}.jpg" for n in numbers)), AmbiguityCode.MISSING_INDEX)
    assert a.message.startswith("Pages 3, 7 and 12-15 are missing.")


def test_very_many_gaps_are_counted_not_listed() -> None:
    item = proposed(*(f"p{n}.jpg" for n in range(1, 60, 2)))  # every even page missing
    a = only(item, AmbiguityCode.MISSING_INDEX)
    assert a.message.startswith("Pages 2, 4, 6, 8, 10, 12, 14, 16, 18, 20 and 19 more are")


def test_a_huge_gap_is_counted_quickly() -> None:
    start = time.perf_counter()
    a = only(proposed("p 1.jpg", "p 100000000.jpg"), AmbiguityCode.MISSING_INDEX)
    assert time.perf_counter() - start < 1
    assert a.message.startswith("Pages 2-99999999 are missing between p 1.jpg and p 100000000")


def test_numbering_ignores_pdfs_and_single_numbers() -> None:
    # A PDF's pages are one source; its name's number is not a page number.
    item = proposed("page 1.jpg", "page 2.jpg", "part 7.pdf")
    assert [a.code for a in ordering.find_ambiguities(item)] == [AmbiguityCode.MIXED_MEDIA]
    assert ordering.find_ambiguities(proposed("cover.jpg", "page 4.jpg", "page 5.jpg")) == []


def test_mixed_media_counts_and_names_the_pdfs() -> None:
    item = proposed("a.pdf", "b.pdf", *(f"photo {n}.jpg" for n in range(1, 15)))
    a = only(item, AmbiguityCode.MIXED_MEDIA)
    assert a.message == (
        "This notebook mixes 2 PDFs (a.pdf and b.pdf) and 14 images: say where the PDF pages "
        "go or accept the proposed order."
    )
    assert a.hint == "--sequence" and a.files == ("a.pdf", "b.pdf")
    assert set(a.source_ids) == ids_of(item, "a.pdf", "b.pdf")
    one = only(proposed("scan.pdf", "cover.jpg"), AmbiguityCode.MIXED_MEDIA)
    assert "1 PDF (scan.pdf) and 1 image:" in one.message


def test_camera_counter_rollover_by_capture_time() -> None:
    taken = {"IMG_9998.JPG": at(10), "IMG_9999.JPG": at(11), "IMG_0001.JPG": at(12)}
    taken["IMG_0002.JPG"] = at(13)
    item = make_item(*ordering.propose_order([src(r, captured_at=t) for r, t in taken.items()]))
    assert rels(item) == ["IMG_0001.JPG", "IMG_0002.JPG", "IMG_9998.JPG", "IMG_9999.JPG"]
    # One ambiguity, not also "pages 3-9997 are missing".
    a = only(item, AmbiguityCode.CONFLICTING_CUES)
    assert a.message.startswith(
        "IMG_0001.JPG was taken after IMG_9999.JPG: the camera counter rolled over."
    )
    assert a.source_ids[:2] == tuple(
        ordering.source_by_name(item, n).source_id for n in ("IMG_9999.JPG", "IMG_0001.JPG")
    )
    assert a.resolutions[0] == "capture_time"

    fixed = ordering.order_by(item, OrderingRule.CAPTURE_TIME)
    assert rels(fixed) == list(taken)
    assert fixed.ordering == Ordering(OrderingRule.CAPTURE_TIME, True)
    # Put in capture order, nothing is left to report even before it is marked resolved.
    assert ordering.find_ambiguities(replace(fixed, ordering=UNRESOLVED)) == []


def test_a_gap_across_the_rollover_is_shown_in_counter_numbers() -> None:
    taken = {"page 9997.JPG": at(9), "page 0002.JPG": at(10)}
    item = make_item(*(src(r, captured_at=t) for r, t in taken.items()))
    a = only(item, AmbiguityCode.MISSING_INDEX)
    assert a.message.startswith("Pages 9998-9999 and 1 are missing between page 9997.JPG and")


def test_camera_counter_rollover_without_capture_times() -> None:
    item = proposed("DSC_998.JPG", "DSC_999.JPG", "DSC_001.JPG")
    a = only(item, AmbiguityCode.CONFLICTING_CUES)
    assert "DSC_001.JPG probably comes after DSC_999.JPG: the camera counter rolled over" in (
        a.message
    )
    assert "mtime" in a.resolutions
    # In counter order there is nothing to say.
    in_order = ordering.sequence(item, ["DSC_998.JPG", "DSC_999.JPG", "DSC_001.JPG"])
    assert ordering.find_ambiguities(replace(in_order, ordering=UNRESOLVED)) == []


def test_low_numbers_taken_first_are_no_rollover() -> None:
    # The photos say 0001 came first: the numbers really do jump, and that is a gap.
    item = make_item(
        src("page 0001.JPG", captured_at=at(9)), src("page 9999.JPG", captured_at=at(10))
    )
    a = only(item, AmbiguityCode.MISSING_INDEX)
    assert a.message.startswith("Pages 2-9998 are missing")
    # A camera's counter skipping is a deleted frame, not a missing page.
    camera = make_item(
        src("IMG_0001.JPG", captured_at=at(9)), src("IMG_9999.JPG", captured_at=at(10))
    )
    assert ordering.find_ambiguities(camera) == []


def test_capture_time_disagreeing_with_names() -> None:
    item = make_item(
        src("a.jpg", captured_at=at(10)),
        src("b.jpg", captured_at=at(12)),
        src("c.jpg", captured_at=at(11)),
    )
    a = only(item, AmbiguityCode.CONFLICTING_CUES)
    assert a.message == (
        "b.jpg was taken after c.jpg, but the name order puts it first. "
        "Choose capture-time order, or accept the name order."
    )
    assert set(a.source_ids) == ids_of(item, "b.jpg", "c.jpg")


def test_no_false_alarms() -> None:
    camera = [src(f"IMG_{n:04d}.JPG", captured_at=at(9, n)) for n in range(1, 21)]
    assert ordering.find_ambiguities(make_item(*camera)) == []
    taken = make_item(
        src("front.jpg", captured_at=at(9)),
        src("inside.jpg", captured_at=at(10)),
        src("back.jpg", captured_at=at(11)),
    )
    assert ordering.find_ambiguities(taken) == []  # no numbers, but the photos' times agree
    same_time = make_item(src("p2.jpg", captured_at=at(9)), src("p1.jpg", captured_at=at(9)))
    assert ordering.find_ambiguities(same_time) == []
    phone = proposed("IMG_20230501_120000.jpg", "IMG_20230501_120512.jpg", "IMG_20230502_0.jpg")
    assert ordering.find_ambiguities(phone) == []
    # A cover photographed after the pages keeps its place without an alarm.
    cover_last = make_item(
        src("cover.jpg", captured_at=at(12)),
        src("page 1.jpg", captured_at=at(10)),
        src("page 2.jpg", captured_at=at(11)),
    )
    assert ordering.find_ambiguities(cover_last) == []
    assert ordering.find_ambiguities(make_item()) == []
    assert ordering.find_ambiguities(proposed("only 7.jpg")) == []


def test_resolved_items_report_nothing() -> None:
    item = proposed("page1.jpg", "page01.jpg", "page4.jpg", "x.pdf")
    assert len(ordering.find_ambiguities(item)) == 3
    assert ordering.find_ambiguities(ordering.accept(item)) == []


def test_sources_not_imported_take_no_part() -> None:
    item = make_item(src("page1.jpg"), src("page01.jpg", excluded=True), src("page2.jpg"))
    assert ordering.find_ambiguities(item) == []
    # A page left out on purpose, or skipped as a duplicate, is no missing page.
    skip = make_item(
        src("page1.jpg"), src("page2.jpg", duplicate=Duplicate.IN_NOTEBOOK), src("page3.jpg")
    )
    assert ordering.find_ambiguities(skip) == []
    left_out = make_item(*(src(f"page{n}.jpg", excluded=n == 3) for n in range(1, 6)))
    assert ordering.find_ambiguities(left_out) == []
    # A real gap beside it is still told, between the neighbours that are there.
    gap = make_item(*(src(f"page{n}.jpg", excluded=n == 3) for n in (1, 2, 3, 5)))
    assert only(gap, AmbiguityCode.MISSING_INDEX).message.startswith(
        "Page 4 is missing between page3.jpg and page5.jpg."
    )
    assert ordering.find_ambiguities(make_item(src("a.jpg"), src("b.pdf", excluded=True))) == []


def test_a_hand_edited_capture_time_is_not_compared() -> None:
    odd = replace(src("p2.jpg"), provenance=replace(src("p2.jpg").provenance, captured_at=5))
    item = make_item(src("p1.jpg", captured_at=at(9)), odd)
    assert ordering.find_ambiguities(item) == []


# -- resolutions ---------------------------------------------------------------------------


def test_accept_keeps_the_order_and_rule() -> None:
    item = proposed("page1.jpg", "page01.jpg")
    done = ordering.accept(item)
    assert done.sources == item.sources
    assert done.ordering == Ordering(OrderingRule.NATURAL, True)


def test_order_by_each_rule() -> None:
    item = make_item(
        src("cover.jpg", captured_at=at(12), mtime_ns=1),
        src("p10.jpg", captured_at=at(9), mtime_ns=3),
        src("p2.jpg", mtime_ns=2),
        src("p1.jpg", captured_at=at(10), mtime_ns=3),
        src("a.pdf", mtime_ns=0, pages=3, excluded=True),
    )
    by_name = ordering.order_by(item, OrderingRule.NAME)
    assert rels(by_name) == ["a.pdf", "cover.jpg", "p1.jpg", "p2.jpg", "p10.jpg"]
    assert by_name.ordering == Ordering(OrderingRule.NAME, True)
    assert excluded(by_name) == ["a.pdf"]
    by_time = ordering.order_by(item, OrderingRule.CAPTURE_TIME)
    assert rels(by_time) == ["p10.jpg", "p1.jpg", "cover.jpg", "a.pdf", "p2.jpg"]
    by_mtime = ordering.order_by(item, "mtime")
    assert rels(by_mtime) == ["a.pdf", "cover.jpg", "p2.jpg", "p1.jpg", "p10.jpg"]
    assert by_mtime.ordering == Ordering(OrderingRule.MTIME, True)
    natural = ordering.order_by(item, OrderingRule.NATURAL)
    assert rels(natural) == ["cover.jpg", "a.pdf", "p1.jpg", "p2.jpg", "p10.jpg"]
    with pytest.raises(ValueError, match="sequence"):
        ordering.order_by(item, OrderingRule.SEQUENCE)


def test_sequence_gives_the_whole_order_and_excludes_the_rest() -> None:
    item = make_item(
        src("scans/p1.jpg"), src("scans/p2.jpg"), src("book.pdf", pages=4), src("scans/p3.jpg")
    )
    pages_before = ordering.source_by_name(item, "book.pdf").pages
    done = ordering.sequence(item, ["p2.jpg", "book.pdf", "scans/p1.jpg"])
    assert rels(done) == ["scans/p2.jpg", "book.pdf", "scans/p1.jpg", "scans/p3.jpg"]
    assert excluded(done) == ["scans/p3.jpg"]
    assert done.ordering == Ordering(OrderingRule.SEQUENCE, True)
    assert ordering.source_by_name(done, "book.pdf").pages == pages_before
    # Listing an excluded source brings it back.
    again = ordering.sequence(done, ["p3.jpg", "p1.jpg", "p2.jpg", "book.pdf"])
    assert excluded(again) == []
    assert rels(again) == ["scans/p3.jpg", "scans/p1.jpg", "scans/p2.jpg", "book.pdf"]


@pytest.mark.parametrize(
    ("names", "match"),
    [
        (["a/x.jpg", "nope.jpg"], "no source named 'nope.jpg'"),
        (["x.jpg"], "'x.jpg' could be a/x.jpg and b/x.jpg"),
        (["a/x.jpg", "a/x.jpg"], "a/x.jpg is given twice"),
        (["y.jpg", "b/y.jpg"], r"b/y.jpg is given twice \(as 'y.jpg' and 'b/y.jpg'\)"),
        ([], "at least one"),
    ],
)
def test_sequence_refuses_unclear_names(names, match) -> None:
    item = make_item(src("a/x.jpg"), src("b/x.jpg"), src("b/y.jpg"))
    with pytest.raises(ValueError, match=match):
        ordering.sequence(item, names)


def test_names_match_whatever_the_unicode_form() -> None:
    item = make_item(src(unicodedata.normalize("NFD", "Seite ä.jpg")), src("b.jpg"))
    assert ordering.source_by_name(item, "Seite ä.jpg") is item.sources[0]
    # A path wins over a base name that would also match.
    nested = make_item(src("sub/x.jpg"), src("x.jpg"))
    assert ordering.source_by_name(nested, "x.jpg") is nested.sources[1]
    with pytest.raises(TypeError):
        ordering.exclude(nested, "x.jpg")  # type: ignore[arg-type]


def test_exclude_and_include_keep_place_and_ordering() -> None:
    item = proposed("page1.jpg", "page01.jpg", "page2.jpg")
    out = ordering.exclude(item, ["page01.jpg"])
    assert rels(out) == rels(item) and excluded(out) == ["page01.jpg"]
    assert out.ordering == item.ordering
    # Ambiguities are recomputed on what remains: the duplicate is gone.
    assert ordering.find_ambiguities(out) == []
    back = ordering.include(out, ["page01.jpg"])
    assert back == item
    with pytest.raises(ValueError, match="missing.jpg"):
        ordering.exclude(item, ["missing.jpg"])


@pytest.mark.parametrize(
    ("rows", "to_row", "expected"),
    [
        ([0], 2, "bacd"),  # move down one: Qt drops before row 2
        ([2], 0, "cabd"),
        ([3], 4, "abcd"),  # dropped where it was: unchanged
        ([0, 2], 4, "bdac"),
        ([3, 1], 0, "bdac"),
        ([1, 2], 1, "abcd"),
        ([0, 1, 2, 3], 2, "abcd"),
    ],
)
def test_move_like_a_qt_drop(rows, to_row, expected) -> None:
    item = make_item(*(src(f"{c}.jpg") for c in "abcd"))
    moved = ordering.move(item, rows, to_row)
    assert "".join(r[0] for r in rels(moved)) == expected
    if expected == "abcd":
        assert moved is item  # a drop in place decides nothing
    else:
        assert moved.ordering == Ordering(OrderingRule.SEQUENCE, True)


@pytest.mark.parametrize(("rows", "to_row"), [([4], 0), ([-1], 0), ([0], 5), ([0], -1)])
def test_move_refuses_rows_outside_the_item(rows, to_row) -> None:
    item = make_item(*(src(f"{c}.jpg") for c in "abcd"))
    with pytest.raises(ValueError, match="cannot move"):
        ordering.move(item, rows, to_row)


# -- properties ----------------------------------------------------------------------------

_stems = st.text(alphabet="abAB01 9_-.é/", min_size=1, max_size=8).filter(
    lambda s: not s.startswith("/") and not s.endswith("/") and "//" not in s
)
_times = st.none() | st.integers(0, 23).map(at)


@st.composite
def items(draw: st.DrawFn) -> PlanItem:
    stems = draw(st.lists(_stems, min_size=0, max_size=12, unique_by=str.casefold))
    sources = [
        src(
            f"{stem}.{draw(st.sampled_from(['jpg', 'png', 'pdf']))}",
            captured_at=draw(_times),
            mtime_ns=draw(st.integers(0, 5)),
            pages=draw(st.integers(1, 3)),
            excluded=draw(st.booleans()),
        )
        for stem in stems
    ]
    return make_item(*sources)


def assert_permutation(before: PlanItem, after: PlanItem) -> None:
    assert sorted(s.source_id for s in after.sources) == sorted(s.source_id for s in before.sources)
    by_id = {s.source_id: s for s in before.sources}
    for s in after.sources:
        assert replace(s, excluded=by_id[s.source_id].excluded) == by_id[s.source_id]


_SORTS = [OrderingRule.NATURAL, OrderingRule.NAME, OrderingRule.CAPTURE_TIME, OrderingRule.MTIME]


@given(items(), st.sampled_from(_SORTS))
def test_order_by_is_a_permutation(item: PlanItem, rule: OrderingRule) -> None:
    if rule is OrderingRule.CAPTURE_TIME and not any(
        isinstance(s.provenance.captured_at, str) and s.provenance.captured_at for s in item.sources
    ):
        # Nothing to order by: refused in words, the plan unchanged (never a silent no-op).
        with pytest.raises(ValueError, match="none of these pages has a capture time"):
            ordering.order_by(item, rule)
        return
    done = ordering.order_by(item, rule)
    assert_permutation(item, done)
    assert [s.excluded for s in done.sources].count(True) == excluded(item).__len__()
    assert done.ordering == Ordering(rule, True)
    assert ordering.order_by(done, rule).sources == done.sources  # stable


@given(items(), st.data())
def test_sequence_is_a_permutation(item: PlanItem, data: st.DataObject) -> None:
    names = rels(item)
    if not names:
        return
    chosen = data.draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
    done = ordering.sequence(item, chosen)
    assert_permutation(item, done)
    assert rels(done)[: len(chosen)] == chosen
    assert sorted(excluded(done)) == sorted(set(names) - set(chosen))


@given(items())
def test_sequence_of_the_current_names_is_identity(item: PlanItem) -> None:
    if not item.sources:
        return
    item = ordering.include(item, rels(item))
    done = ordering.sequence(item, rels(item))
    assert done.sources == item.sources
    assert done.ordering == Ordering(OrderingRule.SEQUENCE, True)


@given(items(), st.data())
def test_move_is_a_permutation(item: PlanItem, data: st.DataObject) -> None:
    n = len(item.sources)
    if not n:
        return
    rows = data.draw(st.lists(st.integers(0, n - 1), max_size=n))
    to_row = data.draw(st.integers(0, n))
    moved = ordering.move(item, rows, to_row)
    assert_permutation(item, moved)
    assert [s.excluded for s in moved.sources].count(True) == len(excluded(item))


@given(items(), st.data())
def test_move_then_inverse_move_restores_the_order(item: PlanItem, data: st.DataObject) -> None:
    n = len(item.sources)
    if not n:
        return
    start = data.draw(st.integers(0, n - 1))
    count = data.draw(st.integers(1, n - start))
    to_row = data.draw(st.integers(0, n))
    moved = ordering.move(item, range(start, start + count), to_row)
    # Where the block landed, and the drop row that puts it back where it was.
    landed = to_row - sum(1 for r in range(start, start + count) if r < to_row)
    back_to = start if start <= landed else start + count
    assert rels(moved)[landed : landed + count] == rels(item)[start : start + count]
    restored = ordering.move(moved, range(landed, landed + count), back_to)
    assert restored.sources == item.sources


@given(items())
def test_ambiguities_concern_the_items_imported_sources(item: PlanItem) -> None:
    imported = {s.source_id for s in item.imported_sources()}
    for a in ordering.find_ambiguities(item):
        assert a.item_id == item.item_id
        assert a.source_ids and set(a.source_ids) <= imported
        assert set(a.resolutions) <= ordering.RESOLUTIONS
        assert all(type(r) is Resolution for r in a.resolutions)
        rel = {s.source_id: s.provenance.rel for s in item.sources}
        assert a.files == tuple(rel[sid] for sid in a.source_ids)
        named = {
            AmbiguityCode.DUPLICATE_NUMBER: a.source_ids,
            AmbiguityCode.CONFLICTING_CUES: a.source_ids[:2],
        }.get(a.code, ())
        for s in item.sources:
            if s.source_id in named:
                assert s.provenance.rel in a.message
    assert ordering.find_ambiguities(ordering.accept(item)) == []


@given(st.integers(1, 9999), st.integers(2, 40), st.booleans())
def test_an_unbroken_camera_run_is_clean_in_capture_order(
    start: int, count: int, dated: bool
) -> None:
    # DCF counters run 0001..9999, then 0001 again.
    numbers = [(start - 1 + i) % 9999 + 1 for i in range(count)]
    shots = [
        src(f"IMG_{n:04d}.JPG", captured_at=at(i // 60, i % 60) if dated else None, mtime_ns=i)
        for i, n in enumerate(numbers)
    ]
    item = make_item(*ordering.propose_order(shots))
    found = ordering.find_ambiguities(item)
    wrapped = numbers != sorted(numbers)
    assert [a.code for a in found] == ([AmbiguityCode.CONFLICTING_CUES] if wrapped else [])
    if wrapped:
        assert "rolled over" in found[0].message
    fixed = ordering.order_by(item, OrderingRule.CAPTURE_TIME if dated else OrderingRule.MTIME)
    assert [s.source_id for s in fixed.sources] == [s.source_id for s in shots]
    assert ordering.find_ambiguities(replace(fixed, ordering=UNRESOLVED)) == []


def test_a_long_run_across_the_rollover_is_told_by_its_capture_times() -> None:
    # 5000 shots from 9001: the gap (4002-9000) is narrower than half the counter, so
    # only the capture times tell a rollover from missing pages.
    numbers = [(9000 + i) % 9999 + 1 for i in range(5000)]
    shots = [
        src(
            f"IMG_{n:04d}.JPG",
            captured_at=f"2024-05-01T{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}",
        )
        for i, n in enumerate(numbers)
    ]
    item = make_item(*ordering.propose_order(shots))
    a = only(item, AmbiguityCode.CONFLICTING_CUES)
    assert "IMG_0001.JPG was taken after IMG_9999.JPG: the camera counter rolled over" in a.message
    undated = make_item(
        *ordering.propose_order(
            [replace(s, provenance=replace(s.provenance, captured_at=None)) for s in shots]
        )
    )
    # Without them the names alone tell it: a camera counter near its top and its bottom.
    a = only(undated, AmbiguityCode.CONFLICTING_CUES)
    assert "IMG_0001.JPG probably comes after IMG_9999.JPG" in a.message


# One item for each way an order can be ambiguous.
EVERY_AMBIGUITY = {
    AmbiguityCode.DUPLICATE_NUMBER: lambda: proposed("a 1.jpg", "b 1.jpg", "c 2.jpg"),
    AmbiguityCode.MISSING_INDEX: lambda: proposed("page 1.jpg", "page 3.jpg"),
    AmbiguityCode.MIXED_MEDIA: lambda: proposed("a.pdf", "page 1.jpg", "page 2.jpg"),
    AmbiguityCode.CONFLICTING_CUES: lambda: make_item(
        src("page 1.jpg", captured_at=at(11)), src("page 2.jpg", captured_at=at(10))
    ),
    AmbiguityCode.MISSING_LEAF: lambda: proposed("1v.jpg", "2r.jpg", "2v.jpg", "4r.jpg"),
    AmbiguityCode.NO_ORDER_CUE: lambda: proposed("apple.jpg", "banana.jpg"),
    AmbiguityCode.MIXED_SCHEMES: lambda: proposed("1.jpg", "2.jpg", "3.jpg", "a.jpg", "b.jpg"),
    AmbiguityCode.DUPLEX_PASSES: lambda: proposed(
        "front_001.jpg", "front_002.jpg", "back_001.jpg", "back_002.jpg"
    ),
    AmbiguityCode.AMBIGUOUS_DATE: lambda: proposed(
        "03.04.1931.jpg", "05.04.1931.jpg", "04.05.1931.jpg"
    ),
}


def test_every_ambiguity_is_told_in_words_for_any_face() -> None:
    """No CLI option or command in a message: the CLI's advice is the hint, apart."""
    assert set(EVERY_AMBIGUITY) == set(AmbiguityCode)
    for code, make in EVERY_AMBIGUITY.items():
        item = make()
        found = [a for a in ordering.find_ambiguities(item) if a.code is code]
        assert found, code
        for a in found:
            assert "--" not in a.message and "`" not in a.message, a.message
            assert a.hint is None or a.hint.startswith("--"), a.hint
            assert a.resolutions and all(type(r) is Resolution for r in a.resolutions)
            assert a.files and set(a.files) <= set(rels(item))
