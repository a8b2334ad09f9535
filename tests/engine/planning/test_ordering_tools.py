"""Dates as people write them, and the names the tools that make page files give them.

Every case is a folder in its right order. Shuffled, each comes out in that order with no
question; a folder whose numeric dates read two ways and whose order depends on it comes
out with the question naming both readings. Never a wrong order without a question: the
property test below shuffles every case.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_ordering import make_item, only, proposed, rels, src  # the same fixtures

from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.ordering import AmbiguityCode
from transcribe_import.engine.planning.ordering.names import MONTHS

# -- month names -----------------------------------------------------------------------------

# Each language's month names, January first, as its speakers write them in full.
MONTH_NAMES = {
    "English": "January February March April May June July August September October "
    "November December",
    "German": "Januar Februar März April Mai Juni Juli August September Oktober November Dezember",
    "French": "janvier février mars avril mai juin juillet août septembre octobre novembre "
    "décembre",
    "Dutch": "januari februari maart april mei juni juli augustus september oktober november "
    "december",
    "Swedish": "januari februari mars april maj juni juli augusti september oktober november "
    "december",
    "Norwegian": "januar februar mars april mai juni juli august september oktober november "
    "desember",
    "Danish": "januar februar marts april maj juni juli august september oktober november december",
    "Italian": "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre "
    "novembre dicembre",
    "Spanish": "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre "
    "diciembre",
}
# And their abbreviations, as a calendar or a scanner's menu shortens them.
MONTH_ABBREVIATIONS = {
    "English": "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec",
    "German": "Jan Feb Mär Apr Mai Jun Jul Aug Sep Okt Nov Dez",
    "French": "janv. févr. mars avr. mai juin juil. août sept. oct. nov. déc.",
    "Dutch": "jan feb mrt apr mei jun jul aug sep okt nov dec",
    "Swedish": "jan feb mar apr maj jun jul aug sep okt nov dec",
    "Norwegian": "jan feb mar apr mai jun jul aug sep okt nov des",
    "Danish": "jan feb mar apr maj jun jul aug sep okt nov dec",
    "Italian": "gen feb mar apr mag giu lug ago set ott nov dic",
    "Spanish": "ene feb mar abr may jun jul ago sep oct nov dic",
}
# How a date with a month name is written: day first, month first, year first.
NAMED_FORMS: dict[str, Callable[[int, str, int], str]] = {
    "2 May 1931": lambda d, m, y: f"{d} {m} {y}",
    "2. Mai 1931": lambda d, m, y: f"{d}. {m} {y}",
    "02-May-1931": lambda d, m, y: f"{d:02d}-{m}-{y}",
    "2 de mayo de 1931": lambda d, m, y: f"{d} de {m} de {y}",
    "May 7, 1931": lambda d, m, y: f"{m} {d}, {y}",
    "May 7 1931": lambda d, m, y: f"{m} {d} {y}",
    "1931 May 2": lambda d, m, y: f"{y} {m} {d}",
}


def test_every_month_word_means_one_month() -> None:
    for words in (MONTH_NAMES, MONTH_ABBREVIATIONS):
        for language, names in words.items():
            for month, word in enumerate(names.split(), start=1):
                assert MONTHS[word.rstrip(".").casefold()] == month, (language, word)


days_of_1931 = st.dates(dt.date(1931, 1, 1), dt.date(1931, 12, 31))


@given(
    st.sampled_from(sorted(MONTH_NAMES)),
    st.booleans(),
    st.sampled_from(sorted(NAMED_FORMS)),
    st.lists(days_of_1931, min_size=2, max_size=12, unique=True),
    st.booleans(),
    st.randoms(use_true_random=False),
)
def test_dates_with_month_names_shuffled_come_out_in_order(
    language: str,
    short: bool,
    form: str,
    days: list[dt.date],
    with_pages: bool,
    rnd: random.Random,
) -> None:
    """Alone, the dates order the pages; beside page numbers, the numbers do."""
    months = (MONTH_ABBREVIATIONS if short else MONTH_NAMES)[language].split()
    spelled = [NAMED_FORMS[form](d.day, months[d.month - 1], d.year) for d in sorted(days)]
    if with_pages:
        # The pages' dates drawn against their order: "1 July p1" before "2 May p2".
        rnd.shuffle(spelled)
        names = [f"{date} p{i}.jpg" for i, date in enumerate(spelled, start=1)]
    else:
        names = [f"{date}.jpg" for date in spelled]
    shuffled = names[:]
    rnd.shuffle(shuffled)
    item = make_item(*ordering.propose_order([src(n) for n in shuffled]))
    assert rels(item) == names
    assert ordering.find_ambiguities(item) == []


def test_what_was_found_dates_with_month_names_beside_page_numbers() -> None:
    # Ordered by the day's number, "1 July 1931 p6" came first, and validate said nothing.
    names = [
        "2 May 1931 p1.jpg",
        "3 May 1931 p2.jpg",
        "May 7, 1931 - page 3.jpg",
        "9 June 1931 p4.jpg",
        "June 20, 1931 p5.jpg",
        "1 July 1931 p6.jpg",
    ]
    item = proposed(*reversed(names))
    assert rels(item) == names
    assert ordering.find_ambiguities(item) == []


@pytest.mark.parametrize(
    ("name", "number"),
    [
        ("2 May 1931 p1.jpg", (1, "1")),
        ("May 7, 1931 - page 3.jpg", (3, "3")),
        ("7th May 1931 p2.jpg", (2, "2")),
        ("1er mai 1931 p4.jpg", (4, "4")),
        ("12. März 1931 S. 5.jpg", (5, "5")),
        ("2 de mayo de 1931 p6.jpg", (6, "6")),
        ("1931-May-02 p7.jpg", (7, "7")),
        ("März 1931 p8.jpg", (8, "8")),  # a month and its year, no day
        ("2 May 1931.jpg", None),
        # A month's word inside another word is no month: "Marks 12 1931" keeps 1931.
        ("Marks 12 1931.jpg", (1931, "1931")),
    ],
)
def test_each_named_date_is_no_page_number(name: str, number: tuple[int, str] | None) -> None:
    assert ordering.page_number(name) == number


# -- 12-hour clocks --------------------------------------------------------------------------

CLOCKS: dict[str, Callable[[dt.datetime], str]] = {
    "1.02.03 PM": lambda t: f"{(t.hour + 11) % 12 + 1}.{t:%M.%S} {'AM' if t.hour < 12 else 'PM'}",
    "1:02 p.m.": lambda t: f"{(t.hour + 11) % 12 + 1}h{t:%M} {'a.m.' if t.hour < 12 else 'p.m.'}",
    "1.02.03\u202fPM": lambda t: (
        f"{(t.hour + 11) % 12 + 1}.{t:%M.%S}\u202f{'AM' if t.hour < 12 else 'PM'}"
    ),
    "13.02.03": lambda t: f"{t:%H.%M.%S}",
}


@given(
    st.sampled_from(sorted(CLOCKS)),
    st.lists(
        st.datetimes(dt.datetime(2023, 5, 6), dt.datetime(2023, 5, 8)).map(
            lambda t: t.replace(microsecond=0)
        ),
        min_size=2,
        max_size=12,
        unique=True,
    ),
    st.randoms(use_true_random=False),
)
def test_times_on_any_clock_shuffled_come_out_in_time_order(
    clock: str, times: list[dt.datetime], rnd: random.Random
) -> None:
    if clock == "1:02 p.m.":
        times = list({t.replace(second=0): None for t in times})  # no seconds in this form
        if len(times) < 2:
            return
    names = [f"Screenshot {t:%Y-%m-%d} at {CLOCKS[clock](t)}.png" for t in sorted(times)]
    shuffled = names[:]
    rnd.shuffle(shuffled)
    item = make_item(*ordering.propose_order([src(n) for n in shuffled]))
    assert rels(item) == names
    assert ordering.find_ambiguities(item) == []


def test_what_was_found_twelve_hour_clocks() -> None:
    # "1.02.03 PM" came before "9.58.02 AM": the hour was read as 1.
    names = [
        "WhatsApp Image 2023-05-06 at 12.30.00 AM.jpeg",  # half past midnight
        "WhatsApp Image 2023-05-06 at 9.58.02 AM.jpeg",
        "WhatsApp Image 2023-05-06 at 12.01.00 PM.jpeg",  # just after noon
        "WhatsApp Image 2023-05-06 at 1.02.03 PM.jpeg",
        "WhatsApp Image 2023-05-06 at 1.02.03 PM (1).jpeg",
    ]
    item = proposed(*reversed(names))
    assert rels(item) == names
    assert ordering.find_ambiguities(item) == []


# -- a date that reads two ways --------------------------------------------------------------


def test_a_date_that_reads_two_ways_is_asked_naming_both_readings() -> None:
    item = proposed("05.04.1931.jpg", "03.04.1931.jpg", "04.05.1931.jpg")
    a = only(item, AmbiguityCode.AMBIGUOUS_DATE)
    assert a.message == (
        "The date in 03.04.1931.jpg could be 3 April 1931 (day first) or 4 March 1931 (month "
        "first), and no date in these names tells which (none has a day above 12), so the "
        "order depends on it. The dates of 2 other files read both ways too. The proposed "
        "order reads the dates day first. Accept that order or give the order."
    )
    assert set(a.files) == {"03.04.1931.jpg", "05.04.1931.jpg", "04.05.1931.jpg"}
    # Day first, as proposed: 3 April, 5 April, 4 May.
    assert rels(item) == ["03.04.1931.jpg", "05.04.1931.jpg", "04.05.1931.jpg"]
    assert ordering.find_ambiguities(ordering.accept(item)) == []


@pytest.mark.parametrize(
    ("names", "why"),
    [
        # A day above 12 says the folder writes the day first.
        (["03.04.1931.jpg", "05.04.1931.jpg", "04.05.1931.jpg", "13.05.1931.jpg"], "day"),
        # A second number above 12 says it writes the month first (US: 04-13-1931).
        (["04-03-1931.jpg", "04-05-1931.jpg", "05-04-1931.jpg", "05-13-1931.jpg"], "month"),
        # Page numbers order the pages: the dates' reading does not matter.
        (["03.04.1931 p1.jpg", "05.04.1931 p2.jpg", "04.05.1931 p3.jpg"], "pages"),
        # One day, read either way: the same order (CamScanner's pages of one scan).
        (["CamScanner 05-06-2023 10.11_1.jpg", "CamScanner 05-06-2023 10.11_2.jpg"], "one day"),
        # The same day and month: 05.05 reads one way.
        (["05.05.1931.jpg", "05.05.1931_1.jpg", "1931-05-06.jpg"], "same"),
    ],
)
def test_a_folder_that_tells_the_reading_or_does_not_depend_on_it(
    names: list[str], why: str
) -> None:
    item = proposed(*reversed(names))
    assert rels(item) == names, why
    assert ordering.find_ambiguities(item) == [], why


# -- the tools' names ------------------------------------------------------------------------

# Each tool's own names, in their right order: what its default naming makes of a few
# pages over two or three days (a per-day counter that starts again, a second shot in
# one second, a counter that gains a digit).
TOOLS: dict[str, list[str]] = {
    "iPhone camera": ["IMG_0998.JPG", "IMG_0999.JPG", "IMG_1000.JPG", "IMG_1002.JPG"],
    "Android camera": [
        "IMG_20230506_101112.jpg",
        "IMG_20230506_101112_1.jpg",
        "IMG_20230506_235959.jpg",
        "IMG_20230507_080000.jpg",
    ],
    "Pixel camera": [
        "PXL_20230506_101112345.jpg",
        "PXL_20230506_101112901.jpg",
        "PXL_20230506_101113002.MP.jpg",
        "PXL_20230507_090000000.jpg",
    ],
    "Samsung camera": [
        "20230506_101112.jpg",
        "20230506_101112(0).jpg",
        "20230506_101115.jpg",
        "20230507_000001.jpg",
    ],
    "WhatsApp on Android": [
        "IMG-20230506-WA0002.jpg",
        "IMG-20230506-WA0011.jpg",
        "IMG-20230507-WA0000.jpg",
        "IMG-20230507-WA0003.jpg",
        "IMG-20230509-WA0000.jpg",
    ],
    "WhatsApp on a desktop": [
        "WhatsApp Image 2023-05-06 at 9.58.02 AM.jpeg",
        "WhatsApp Image 2023-05-06 at 1.02.03 PM.jpeg",
        "WhatsApp Image 2023-05-06 at 1.02.03 PM (1).jpeg",
        "WhatsApp Image 2023-05-07 at 13.05.00_3f9c2a1b.jpg",
    ],
    "WhatsApp chat export (iPhone)": [
        "00000012-PHOTO-2023-05-06-10-11-12.jpg",
        "00000015-PHOTO-2023-05-06-10-12-00.jpg",
        "00000031-PHOTO-2023-05-07-08-00-00.jpg",
    ],
    "Telegram Desktop": [
        "photo_2023-05-06_10-11-12.jpg",
        "photo_2023-05-06_10-11-12 (2).jpg",
        "photo_2023-05-07_08-00-00.jpg",
    ],
    "Telegram chat export": [
        "photo_3@06-05-2023_10-11-12.jpg",
        "photo_7@06-05-2023_10-12-00.jpg",
        "photo_12@07-05-2023_08-00-00.jpg",
    ],
    "Telegram on Android": [
        "IMG_20230506_101112_123.jpg",
        "IMG_20230506_101112_456.jpg",
        "IMG_20230507_080000_001.jpg",
    ],
    "Signal": [
        "signal-2023-05-06-101112.jpg",
        "signal-2023-05-06-101112_001.jpg",
        "signal-2023-05-06-101112_002.jpg",
        "signal-2023-05-07-080000.jpg",
    ],
    "Adobe Scan": [
        "Adobe Scan 6 May 2023.jpg",
        "Adobe Scan 6 May 2023 (1).jpg",
        "Adobe Scan 6 May 2023 (2).jpg",
        "Adobe Scan 7 May 2023.jpg",
    ],
    "Adobe Scan (US)": [
        "Adobe Scan May 6, 2023.jpg",
        "Adobe Scan May 6, 2023 (1).jpg",
        "Adobe Scan May 12, 2023.jpg",
    ],
    "Microsoft Lens": [
        "Office Lens 20230506-101112.jpg",
        "Office Lens 20230506-101530.jpg",
        "Office Lens 20230507-080000.jpg",
    ],
    "Genius Scan": [
        "Scan 2023-05-06 10.11.12.jpg",
        "Scan 2023-05-06 10.11.12_1.jpg",
        "Scan 2023-05-06 10.11.12_2.jpg",
        "Scan 2023-05-07 08.00.00.jpg",
    ],
    "CamScanner": [
        "CamScanner 05-06-2023 10.11_1.jpg",
        "CamScanner 05-06-2023 10.11_2.jpg",
        "CamScanner 05-06-2023 10.11_3.jpg",
    ],
    "CamScanner (new document)": [
        "New Doc 2023-05-06 10.11.12_1.jpg",
        "New Doc 2023-05-06 10.11.12_2.jpg",
        "New Doc 2023-05-07 08.00.00_1.jpg",
    ],
    "NAPS2": [
        "2023-05-06-101112_0001.jpg",
        "2023-05-06-101112_0002.jpg",
        "2023-05-07-080000_0001.jpg",
    ],
    "VueScan": ["scan0001.jpg", "scan0002.jpg", "scan0004.jpg"],
    "VueScan with the date": ["2023-05-06-0001.jpg", "2023-05-06-0002.jpg", "2023-05-07-0001.jpg"],
    "macOS screenshot": [
        "Screenshot 2023-05-06 at 9.58.02 AM.png",
        "Screenshot 2023-05-06 at 9.58.02 AM (2).png",
        "Screenshot 2023-05-06 at 10.00.00\u202fAM.png",
        "Screenshot 2023-05-06 at 1.00.00 PM.png",
    ],
    "macOS screenshot (before 2019)": [
        "Screen Shot 2018-05-06 at 9.58.02 AM.png",
        "Screen Shot 2018-05-06 at 1.00.00 PM.png",
    ],
    "macOS screenshot (German)": [
        "Bildschirmfoto 2023-05-06 um 09.58.02.png",
        "Bildschirmfoto 2023-05-06 um 13.00.00.png",
    ],
    "macOS Image Capture": ["Scan.jpeg", "Scan 1.jpeg", "Scan 2.jpeg", "Scan 3.jpeg"],
    "Windows Scan": ["Scan_20230506.jpg", "Scan_20230506 (2).jpg", "Scan_20230506 (10).jpg"],
    "Windows Fax and Scan": ["Image.jpg", "Image (2).jpg", "Image (3).jpg"],
    "A scanner's counter that gains a digit": [f"Scan_{n}.jpg" for n in range(995, 1007)],
}


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_each_tools_names_come_out_in_order_with_no_question(tool: str) -> None:
    names = TOOLS[tool]
    item = proposed(*reversed(names))
    assert rels(item) == names
    assert ordering.find_ambiguities(item) == []


def test_what_was_found_whatsapp_and_a_counter_that_gains_a_digit() -> None:
    # The date before WhatsApp's counter was ignored: "both claim page 0", "Pages 3-10 are
    # missing"; a counter from 995 to 1006 was "2 numbering schemes at once".
    assert ordering.page_number("IMG-20230506-WA0011.jpg") == (11, "0011")
    assert ordering.find_ambiguities(proposed(*TOOLS["WhatsApp on Android"])) == []
    scans = proposed(*TOOLS["A scanner's counter that gains a digit"])
    assert ordering.find_ambiguities(scans) == []


# Every ordered case of this file and of the README's tables, as one folder each.
ORDERED_CASES = {
    **{f"tool: {tool}": names for tool, names in TOOLS.items()},
    "month names beside pages": [
        "2 May 1931 p1.jpg",
        "3 May 1931 p2.jpg",
        "May 7, 1931 - page 3.jpg",
        "1 July 1931 p4.jpg",
    ],
    "12-hour clock": [
        "WhatsApp Image 2023-05-06 at 9.58.02 AM.jpeg",
        "WhatsApp Image 2023-05-06 at 1.02.03 PM.jpeg",
    ],
    "day first told by a day above 12": ["03.04.1931.jpg", "05.04.1931.jpg", "13.05.1931.jpg"],
    "month first told by a day above 12": ["04-03-1931.jpg", "04-13-1931.jpg", "05-04-1931.jpg"],
}
# And the folders that must ask, with the files the question names.
ASKING_CASES = {
    "a date that reads two ways": (
        ["03.04.1931.jpg", "05.04.1931.jpg", "04.05.1931.jpg"],
        AmbiguityCode.AMBIGUOUS_DATE,
    ),
}


@given(st.sampled_from(sorted(ORDERED_CASES) + sorted(ASKING_CASES)), st.randoms())
def test_no_case_shuffled_comes_out_in_a_wrong_order_without_a_question(
    case: str, rnd: random.Random
) -> None:
    names, code = ORDERED_CASES.get(case, []), None
    if case in ASKING_CASES:
        names, code = ASKING_CASES[case]
    shuffled = names[:]
    rnd.shuffle(shuffled)
    item = make_item(*ordering.propose_order([src(n) for n in shuffled]))
    found = ordering.find_ambiguities(item)
    if code is None:
        assert rels(item) == names
        assert found == []
    else:
        # The order may be either reading's; the question says so, naming both.
        assert [a.code for a in found] == [code]
        assert "(day first) or" in found[0].message and "(month first)" in found[0].message


def test_the_readmes_date_forms_read_as_it_says() -> None:
    """Every example of the README's table of date forms is page 1 beside its date."""
    readme = (Path(__file__).parents[3] / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("| date form | example |") :].split("\n\n", 1)[0]
    examples = re.findall(r"`([^`]+ p1\.jpg)`", table)
    assert len(examples) >= 15, table
    for name in examples:
        assert ordering.page_number(name) == (1, "1"), name
        assert ordering.page_number(name.replace(" p1", "")) is None, name  # all of it a date


def test_the_docs_list_each_tool_with_an_example_that_reads_in_order() -> None:
    """docs/names.md's table of tools: every row's examples, in their order, are clear."""
    doc = (Path(__file__).parents[3] / "docs" / "names.md").read_text(encoding="utf-8")
    for tool in TOOLS:
        row = next((line for line in doc.splitlines() if line.startswith(f"| {tool} |")), None)
        assert row is not None, f"docs/names.md lists no {tool!r}"
        examples = re.findall(r"`([^`]+\.(?:jpe?g|JPG|HEIC|png))`", row)
        assert len(examples) >= 2, row
        item = proposed(*reversed(examples))
        assert rels(item) == examples, row
        assert ordering.find_ambiguities(item) == [], row


def test_a_rescan_on_a_later_day_is_still_a_question() -> None:
    # Pages numbered by a person beside the scan's date, page 3 scanned again the next day:
    # read as counters of the day it would land last, silently. It is asked instead.
    names = [f"2023-05-01 p{n}.jpg" for n in range(1, 6)] + ["2023-05-02 p3.jpg"]
    item = proposed(*names)
    a = only(item, AmbiguityCode.DUPLICATE_NUMBER)
    assert set(a.files) == {"2023-05-01 p3.jpg", "2023-05-02 p3.jpg"}
    # A machine's counter that starts again each day is no question (VueScan, NAPS2).
    assert ordering.find_ambiguities(proposed(*TOOLS["VueScan with the date"])) == []


def test_page_numbers_beside_a_counter_far_beyond_them_are_two_schemes() -> None:
    item = proposed("p1.jpg", "p2.jpg", "p3.jpg", "P1010001.jpg", "P1010002.jpg")
    only(item, AmbiguityCode.MIXED_SCHEMES)
