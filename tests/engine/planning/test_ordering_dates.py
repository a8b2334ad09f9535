"""Dates in names are no page numbers; names that carry no order go by capture time; copies.

Property tests: every common date form (year first, day first, two-digit years, with or
without a time) beside page numbers, shuffled, comes out in page order with nothing
flagged; photos with made-up names (UUIDs, hex digests, no digits) and a capture time
each, shuffled, come out in capture order with nothing flagged. Then each finding of
issue #24 on its own, and a copy of a page named as a copy.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import re
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_ordering import make_item, only, proposed, rels, src  # the same fixtures

from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.ordering import AmbiguityCode
from transcribe_import.engine.planning.plan import OrderingRule, PlanSource

from helpers.shelves import DAY_FIRST

# -- the forms -----------------------------------------------------------------------------

# Each date form the README's table lists, as a scanning station or a person writes it.
DATE_FORMS: dict[str, Callable[[dt.datetime], str]] = {
    "YYYY-MM-DD": lambda d: d.strftime("%Y-%m-%d"),
    "YYYY_MM_DD": lambda d: d.strftime("%Y_%m_%d"),
    "YYYY.MM.DD": lambda d: d.strftime("%Y.%m.%d"),
    "YYYYMMDD": lambda d: d.strftime("%Y%m%d"),
    "DD.MM.YYYY": lambda d: d.strftime("%d.%m.%Y"),
    "D.M.YYYY": lambda d: f"{d.day}.{d.month}.{d.year}",
    "D.M.YY": lambda d: f"{d.day}.{d.month}.{d.year % 100:02d}",
    "DD-MM-YYYY": lambda d: d.strftime("%d-%m-%Y"),
}
# And the times that can follow a date.
TIME_FORMS: dict[str, Callable[[dt.datetime], str]] = {
    "none": lambda d: "",
    " HH:MM": lambda d: d.strftime(" %H:%M"),
    " HH.MM.SS": lambda d: d.strftime(" %H.%M.%S"),
    "_HHMMSS": lambda d: d.strftime("_%H%M%S"),
    "THHMMSS": lambda d: d.strftime("T%H%M%S"),
    " at HH.MM.SS": lambda d: d.strftime(" at %H.%M.%S"),
}
# A page number beside the date, before or after it.
PAGE_FORMS: dict[str, Callable[[str, int], str]] = {
    "date pN": lambda date, n: f"{date} p{n}",
    "date page N": lambda date, n: f"{date} page {n}",
    "pN date": lambda date, n: f"p{n} {date}",
    "scan date S. N": lambda date, n: f"scan {date} S. {n:02d}",
}

days = st.datetimes(dt.datetime(1900, 1, 1), dt.datetime(2068, 12, 31))


@given(
    st.sampled_from(sorted(DATE_FORMS)),
    st.sampled_from(sorted(TIME_FORMS)),
    st.sampled_from(sorted(PAGE_FORMS)),
    st.integers(1, 60),
    st.lists(days, min_size=2, max_size=20),
    st.randoms(use_true_random=False),
)
def test_dates_beside_page_numbers_shuffled_come_out_in_page_order(
    date_form: str,
    time_form: str,
    page_form: str,
    start: int,
    when: list[dt.datetime],
    rnd: random.Random,
) -> None:
    # Each page's date is drawn on its own: the dates' order is not the pages'.
    names = [
        PAGE_FORMS[page_form](DATE_FORMS[date_form](d) + TIME_FORMS[time_form](d), start + i)
        + ".jpg"
        for i, d in enumerate(when)
    ]
    assert [(ordering.page_number(n) or (0, ""))[0] for n in names] == [
        start + i for i in range(len(names))
    ]
    shuffled = names[:]
    rnd.shuffle(shuffled)
    item = make_item(*ordering.propose_order([src(n) for n in shuffled]))
    assert rels(item) == names
    assert ordering.find_ambiguities(item) == []


NO_ORDER_NAMES: dict[str, Callable[[uuid.UUID], str]] = {
    "UUID": lambda u: str(u).upper(),
    "uuid": lambda u: str(u),
    "uuid without hyphens": lambda u: u.hex,
    "sha1 digest": lambda u: hashlib.sha1(u.bytes).hexdigest(),
    "no digits": lambda u: "photo " + "".join(chr(ord("a") + b % 26) for b in u.bytes[:6]),
}


@given(
    st.sampled_from(sorted(NO_ORDER_NAMES)),
    st.lists(st.uuids(), min_size=2, max_size=40, unique=True),
    # Pauses of 20 to 90 seconds: never one five times the others, which would make two
    # runs of photos, the cue of a duplex scan's passes (a question of its own, tested in
    # test_ordering_schemes.py).
    st.lists(st.integers(20, 90), min_size=40, max_size=40),
    st.randoms(use_true_random=False),
)
def test_photos_with_made_up_names_shuffled_come_out_in_capture_order(
    form: str, ids: list[uuid.UUID], steps: list[int], rnd: random.Random
) -> None:
    names = [NO_ORDER_NAMES[form](u) + ".jpg" for u in ids]
    if len(set(names)) < len(names):
        return  # two made-up names that agree: one file, not two
    start = dt.datetime(2024, 5, 1, 9, 0, 0)
    # Strictly later each time, in the order drawn: that is the order to come out.
    times = [start + dt.timedelta(seconds=sum(steps[: i + 1])) for i in range(len(names))]
    photos = [src(n, captured_at=t.isoformat()) for n, t in zip(names, times, strict=True)]
    shuffled = photos[:]
    rnd.shuffle(shuffled)
    item = make_item(*ordering.propose_order(shuffled))
    assert rels(item) == names
    assert ordering.find_ambiguities(item) == []
    assert ordering.proposed_rule(shuffled) is OrderingRule.CAPTURE_TIME


# -- dates: what was found -----------------------------------------------------------------


def test_day_first_dates_beside_page_numbers_go_by_page() -> None:
    # Name order put the 1st of June first (p5, p1, p2, p3, p6, p4), and validate said nothing.
    item = proposed(*reversed(DAY_FIRST))
    assert rels(item) == DAY_FIRST
    assert ordering.find_ambiguities(item) == []
    assert [ordering.page_number(n) for n in DAY_FIRST] == [(n, str(n)) for n in range(1, 7)]


def test_the_page_number_orders_pages_whatever_their_dates() -> None:
    # The README promises "the last number that is not a date"; the dates were the order.
    item = proposed(
        "1931-05-06 p3.jpg", "1931-05-04 p4.jpg", "1931-05-07 p2.jpg", "1931-05-08 p1.jpg"
    )
    assert rels(item) == [
        "1931-05-08 p1.jpg",
        "1931-05-07 p2.jpg",
        "1931-05-06 p3.jpg",
        "1931-05-04 p4.jpg",
    ]
    assert ordering.find_ambiguities(item) == []


@pytest.mark.parametrize(
    ("name", "number"),
    [
        ("02.05.1931 p1.jpg", (1, "1")),
        ("12.06.1931 p6.jpg", (6, "6")),
        ("2.5.1931 p7.jpg", (7, "7")),
        ("2.5.31 p8.jpg", (8, "8")),
        ("02-05-1931 page 9.jpg", (9, "9")),
        ("1931_05_06 p3.jpg", (3, "3")),
        ("1931.05.06 p3.jpg", (3, "3")),
        ("19310506 p3.jpg", (3, "3")),
        ("p4 02.05.1931.jpg", (4, "4")),
        ("02.05.1931 10:15 p5.jpg", (5, "5")),
        ("02.05.1931 at 10.15.30 p5.jpg", (5, "5")),
        ("02.05.1931.jpg", None),
        ("2.5.31.jpg", None),
        ("19310506T101500.jpg", None),
        # Not real dates, so numbers: month 13, day 32, a two-digit year but dashes.
        ("1931-13-01.jpg", (1, "01")),
        ("32.05.1931.jpg", (1931, "1931")),
        ("2-5-31.jpg", (31, "31")),
    ],
)
def test_each_date_form_is_no_page_number(name: str, number: tuple[int, str] | None) -> None:
    assert ordering.page_number(name) == number


def test_names_that_are_only_dates_go_by_date_then_counter() -> None:
    # A two-digit year is read as strptime's %y reads it: 31 is 2031, so it comes last.
    # 20.06.1931 says the folder writes its day first (no month 20).
    names = ["02.05.1931.jpg", "02.05.1931_1.jpg", "20.06.1931.jpg", "1931-07-01.jpg", "2.8.31.jpg"]
    item = proposed(*reversed(names))
    assert rels(item) == names
    assert ordering.find_ambiguities(item) == []
    # Without it, 02.05.1931 could be 5 February: the order depends on it, so it is asked.
    unsure = proposed(*(n.replace("20.06", "12.06") for n in reversed(names)))
    assert "3 other files" in only(unsure, AmbiguityCode.AMBIGUOUS_DATE).message
    # A camera's dated names keep their order: by time, a second shot after the first.
    phone = ["IMG_20240501_101500.jpg", "IMG_20240501_101500_1.jpg", "IMG_20240501_111500.jpg"]
    assert rels(proposed(*reversed(phone))) == phone


# -- capture time: what was found ---------------------------------------------------------


def photos(*names: str, at_minutes: list[int]) -> list[PlanSource]:
    return [
        src(n, captured_at=f"2024-05-01T10:{m:02d}:00")
        for n, m in zip(names, at_minutes, strict=True)
    ]


def test_phone_photos_named_by_uuid_go_by_capture_time() -> None:
    # Read as page numbers, a UUID's last digits made "Pages 2-69, 71-183, … are missing".
    ids = [
        "3F2504E0-4F89-11D3-9A0C-0305E82C3301.jpg",
        "0E984725-C51C-4BF4-9960-E1C80E27ABA0.jpg",
        "A1B2C3D4-0001-4000-8000-000000000070.jpg",
        "7C9E6679-7425-40DE-944B-E07FC1F90AE7.jpg",
    ]
    item = make_item(*ordering.propose_order(photos(*ids, at_minutes=[30, 10, 40, 20])))
    assert rels(item) == [ids[1], ids[3], ids[0], ids[2]]
    assert ordering.find_ambiguities(item) == []
    assert [ordering.page_number(n) for n in ids] == [None] * 4


def test_photos_without_digits_go_by_capture_time_with_the_cover_first() -> None:
    # Name order against capture times was conflicting_cues, though the times give it.
    shot = photos("zebra.jpg", "apple.jpg", "cover.jpg", "mango.jpg", at_minutes=[1, 2, 59, 3])
    item = make_item(*ordering.propose_order(shot))
    assert rels(item) == ["cover.jpg", "zebra.jpg", "apple.jpg", "mango.jpg"]
    assert ordering.find_ambiguities(item) == []
    assert ordering.proposed_rule(shot) is OrderingRule.CAPTURE_TIME


def test_names_decide_when_one_carries_a_number_or_a_time_is_missing() -> None:
    numbered = photos("zebra.jpg", "apple 2.jpg", "mango.jpg", at_minutes=[1, 2, 3])
    assert ordering.proposed_rule(numbered) is OrderingRule.NATURAL
    item = make_item(*ordering.propose_order(numbered))
    assert AmbiguityCode.MIXED_SCHEMES in [a.code for a in ordering.find_ambiguities(item)]

    untimed = [*photos("zebra.jpg", "apple.jpg", at_minutes=[2, 1]), src("mango.jpg")]
    assert ordering.proposed_rule(untimed) is OrderingRule.NATURAL
    item = make_item(*ordering.propose_order(untimed))
    assert rels(item) == ["apple.jpg", "mango.jpg", "zebra.jpg"]
    only(item, AmbiguityCode.NO_ORDER_CUE)

    same_time = photos("zebra.jpg", "apple.jpg", at_minutes=[1, 1])
    assert ordering.proposed_rule(same_time) is OrderingRule.NATURAL


@pytest.mark.parametrize(
    ("name", "number"),
    [
        ("aB3dE5fG7hJ.jpg", None),  # a random token: mixed case, digits in three runs
        ("da39a3ee5e6b4b0d3255bfef95601890afd80709.jpg", None),  # a sha1 digest
        ("IMG20230501.jpg", None),  # a date, not a token
        ("scan0012.jpg", (12, "0012")),  # letters then a number: a number
        ("vol2p3v1.jpg", (1, "1")),  # too short to be made up
    ],
)
def test_made_up_tokens_claim_no_number(name: str, number: tuple[int, str] | None) -> None:
    assert ordering.page_number(name) == number


# -- copies ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "original"),
    [
        ("page 3 (1).jpg", "page 3"),
        ("page 3 (2).jpg", "page 3"),
        ("page 3 - Copy.jpg", "page 3"),
        ("page 3 - Copy (2).jpg", "page 3"),
        ("page 3 copy.jpg", "page 3"),
        ("page 3 copy 2.jpg", "page 3"),
        ("Copy of page 3.jpg", "page 3"),
        ("IMG_0042 (1).JPG", "IMG_0042"),
        # No copies: what is left claims no page, so the number is the page's own.
        ("page (1).jpg", None),
        ("IMG_20240501_101500 (2).jpg", None),
        ("page 3.jpg", None),
    ],
)
def test_a_copy_claims_its_originals_page(name: str, original: str | None) -> None:
    assert ordering.copy_of(name) == original
    if original is not None:
        assert ordering.page_number(name) == ordering.page_number(f"{original}.jpg")


def test_a_copy_is_a_duplicate_named_as_a_copy() -> None:
    item = proposed("page 3 (1).jpg", "page 4.jpg", "page 2.jpg", "page 3.jpg", "page 1.jpg")
    assert rels(item) == ["page 1.jpg", "page 2.jpg", "page 3.jpg", "page 3 (1).jpg", "page 4.jpg"]
    a = only(item, AmbiguityCode.DUPLICATE_NUMBER)
    assert a.message.startswith(
        "page 3 (1).jpg looks like a copy of page 3.jpg: both claim page 3. Exclude the extra "
        "one, give the order, or accept the proposed order (page 3.jpg first)."
    )
    assert set(a.files) == {"page 3 (1).jpg", "page 3.jpg"}
    assert "page 1" not in a.message

    two = proposed("p2.jpg", "p3 - Copy.jpg", "p3.jpg", "p3 copy.jpg", "p1.jpg")
    assert rels(two) == ["p1.jpg", "p2.jpg", "p3.jpg", "p3 - Copy.jpg", "p3 copy.jpg"]
    a = only(two, AmbiguityCode.DUPLICATE_NUMBER)
    assert a.message.startswith(
        "p3 - Copy.jpg and p3 copy.jpg look like copies of p3.jpg: all claim page 3."
    )


def test_a_copy_of_a_leaf_side_and_files_that_only_share_a_number() -> None:
    leaf = proposed("12r (1).jpg", "12v.jpg", "12r.jpg")
    assert rels(leaf) == ["12r.jpg", "12r (1).jpg", "12v.jpg"]
    assert only(leaf, AmbiguityCode.DUPLICATE_NUMBER).message.startswith(
        "12r (1).jpg looks like a copy of 12r.jpg: both claim the recto of leaf 12 (12r)."
    )
    # Not a copy of anything here: the same number, said as before.
    plain = proposed("p1.jpg", "page 2 (1).jpg", "p2.jpg")
    assert only(plain, AmbiguityCode.DUPLICATE_NUMBER).message.startswith(
        "p2.jpg and page 2 (1).jpg both claim page 2."
    )
    # A copy among files that only share its number: each named in the claim.
    three = proposed("page 2 (1).jpg", "p2.jpg", "page 2.jpg", "page 1.jpg")
    assert only(three, AmbiguityCode.DUPLICATE_NUMBER).message.startswith(
        "page 2 (1).jpg looks like a copy of page 2.jpg; p2.jpg, page 2.jpg and "
        "page 2 (1).jpg all claim page 2."
    )
    # A batch Windows renamed ("page (1)", "page (2)") is numbered, not copied.
    batch = proposed("page (2).jpg", "page (1).jpg", "page (3).jpg")
    assert rels(batch) == ["page (1).jpg", "page (2).jpg", "page (3).jpg"]
    assert ordering.find_ambiguities(batch) == []


def test_the_readme_lists_each_date_form_with_an_example_that_reads_so() -> None:
    readme = (Path(__file__).parents[3] / "README.md").read_text(encoding="utf-8")
    for form in DATE_FORMS:
        row = next((line for line in readme.splitlines() if f"| `{form}` | `" in line), None)
        assert row is not None, f"README's table of date forms has no row for {form}"
        examples = re.findall(r"`([^`]+\.(?:jpg|png))`", row)
        assert examples, row
        for name in examples:
            # Each example is page 1 beside its date, or a date (and time) alone.
            assert ordering.page_number(name) in ((1, "1"), None), name
