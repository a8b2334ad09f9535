"""What a file's name says of its page (a number, a counter, a leaf and side); the proposed order.

A folder's names are read as one scheme (``scheme_of``): page numbers, camera counters
(a skip is a deleted frame), leaves and sides (``12r 12v``, ``12a 12b``, ``f. 12r``;
openings ``12L 12R``), dates and times, or none; two at once is a question (checks.py),
and so is none, unless each photo has its own capture time (``by_capture_time``). A
counter that rolled over (9999, 0001) is read as one run (``Numbering``). Before a name
is read, what says nothing of its place is set aside: dates in every common form
(``_DATE_TIME``), a copy's suffix (``page 3 (1)`` is page 3, ``copy_of``) and tokens a
device made up (UUIDs, ``_unrandom``).
"""

from __future__ import annotations

import enum
import functools
import re
import sys
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from transcribe_import.engine.base.text import NaturalKey, natural_key
from transcribe_import.engine.media.kinds import PDF
from transcribe_import.engine.planning.plan import OrderingRule, PlanSource

# The contract's cover heuristic names exactly these; cover PDFs are out of its scope.
COVER_NAMES = frozenset({"cover.jpg", "cover.jpeg", "cover.png"})

# A name is read the same way wherever it is asked: the planner's label, the proposed order,
# the checks and the duplex passes each read every name of a notebook, five readings of
# regular expressions a page. Each reading of a name is kept for the last names read, so a
# notebook's names are read once. Bounded, not whole: a window plans shelf after shelf.
_NAMES_KEPT = 8192
_kept = functools.lru_cache(maxsize=_NAMES_KEPT)

# -- the proposed order --------------------------------------------------------------------


@_kept
def is_cover_name(name: str) -> bool:
    """Whether a file's base name is one the contract's cover heuristic recognises."""
    return unicodedata.normalize("NFC", name).casefold() in COVER_NAMES


def propose_order(sources: Sequence[PlanSource]) -> list[PlanSource]:
    """The proposed order: the names' order, any cover image first.

    A cover (``cover.jpg``/``.jpeg``/``.png``, any case) goes first because a person who
    named a file "cover" expects it to be page 1, wherever "cover" falls in the
    alphabet. This is only the position; the contract's cover heuristic sets
    ``cover_page_id`` to it separately, in the planner. The names' order is natural
    order of ``provenance.rel`` read as the folder's scheme reads it: page numbers by
    the page number (a date beside it aside, a copy right after its original), dates
    by the date and time they spell, whatever their form. A foliated folder (``f. 9v``,
    ``fol10r``) goes by leaf and side, whatever prefix each name spells them with. Names
    that carry no order go by capture time when ``by_capture_time`` says so.
    """
    images = [s for s in sources if s.media_type != PDF]
    if by_capture_time(images):
        # Sources without a capture time (a PDF) follow, in name order.
        def taken(s: PlanSource) -> tuple[bool, bool, str, NaturalKey]:
            return not is_cover_name(s.name), captured(s) is None, captured(s) or "", name_key(s)

        return sorted(sources, key=taken)
    scheme = scheme_of(images)
    month_first = date_reading([s.name for s in sources]).order is DateOrder.MONTH_FIRST
    return _by_names(sources, scheme, month_first=month_first)


def _by_names(
    sources: Sequence[PlanSource], scheme: Scheme, *, month_first: bool
) -> list[PlanSource]:
    """The names' order as ``scheme`` reads them, numeric dates day or ``month_first``."""
    kind = scheme.kind
    if kind == PAGES and any(_DATE_TIME.search(_bare_stem(s.name)) for s in sources):
        kind = _DATED_PAGES
    by_name = sorted(
        sources, key=lambda s: (not is_cover_name(s.name), *_order_key(s, kind, month_first))
    )
    if scheme.kind not in (LEAVES, OPENINGS):
        return by_name
    place = {n.source.source_id: (n.number, scheme.side_of(n)) for n in scheme.names}
    return sorted(
        by_name,
        key=lambda s: (
            not is_cover_name(s.name),
            s.source_id not in place,
            place.get(s.source_id, (0, 0)),
        ),
    )


def by_capture_time(images: Sequence[PlanSource]) -> bool:
    """Whether these images go by capture time because their names carry no order.

    The one rule, for the proposed order, the planner's ordering rule and the checks:
    every image but a cover has its own capture time (EXIF DateTimeOriginal, no two the
    same), and no name says where it goes: none claims a page number, a counter, a leaf
    and side, or a date. Digits in made-up tokens say nothing: a UUID
    (``3F2504E0-4F89-11D3-9A0C-0305E82C3301.jpg``, with or without hyphens), a hex
    digest (16 hex digits or more), a random token (10 characters or more, mixed case,
    digits in three runs or more); nor do names with no digit at all (``IMG_A.jpg``).
    One name with a number, or one photo without a capture time, and the names decide
    (then ``no_order_cue`` or ``mixed_schemes`` asks).
    """
    pages = [s for s in images if not is_cover_name(s.name)]
    times = [captured(s) for s in pages]
    # The times first: they are at hand, and most scans have none.
    if not pages or None in times or len(set(times)) < len(times):
        return False
    return all(name_of(s).kind == NONE for s in pages)


def proposed_rule(sources: Sequence[PlanSource]) -> OrderingRule:
    """The rule ``propose_order`` follows for these sources: capture time, or the names."""
    images = [s for s in sources if s.media_type != PDF]
    return OrderingRule.CAPTURE_TIME if by_capture_time(images) else OrderingRule.NATURAL


def name_key(source: PlanSource) -> NaturalKey:
    return natural_key(source.provenance.rel)


def _order_key(
    source: PlanSource, kind: str, month_first: bool = False
) -> tuple[NaturalKey, bool, str, str]:
    """Where a name goes in its folder's scheme ``kind``: its page, or its date, first.

    Page numbers: the name with its dates taken out ("02.05.1931 p1" is page 1 whatever
    its day), so the last number that is not a date orders it; where some names carry a
    date (``_DATED_PAGES``), that number goes first, so that what the date leaves around
    it does not order the pages ("May 7, 1931 - page 3" after "2 May 1931 p1"; a name
    without a number first, as the head of its run). Any other scheme: each
    date spelled year first (``02.05.1931`` as ``19310502000000``), so day-first and
    year-first dates sort as dates. Then a copy after its original, then by the dates
    (names alike but for them), then the name as is.
    """
    rel = source.provenance.rel
    folder, _, name = rel.rpartition("/")
    stem, dot, ext = name.rpartition(".") if "." in name else (name, "", "")
    base = _copy_base(stem)
    year_first = _DATE_TIME.sub(lambda d: _year_first(d, month_first), base or stem)
    if kind == PAGES:
        read = _DATE_TIME.sub(" ", base or stem)
    elif kind == _DATED_PAGES:
        read = _DATE_TIME.sub(" ", _unrandom(base or stem))
        number = _LAST_DIGITS.search(read)
        read = f"{number.group(1) if number else 0} {read}"
    else:
        read = year_first
    if read == stem:  # nothing to read otherwise: the name as it is
        return name_key(source), False, "", rel
    head = f"{folder}/" if folder else ""
    return natural_key(f"{head}{read}{dot}{ext}"), base is not None, year_first, rel


# Dates and times in names (IMG_20230501_120000, "Screenshot 2023-05-01 at 12.30.45",
# "02.05.1931 p1", "2 May 1931 p1", "May 7, 1931 - page 3") are not page numbers; read as
# numbers they would make every phone photo a gap, and a date would order the pages by its
# day. A date is a real one (month 1-12, day 1-31, years 1800-2099; a two-digit year only
# in the D.M.YY form with dots). A numeric date with the day and the month both 12 or
# under (03.04.1931) reads two ways: ``date_reading`` settles it for a whole folder.
_Y4 = r"(?:1[89]|20)\d{2}"
_D = r"0?[1-9]|[12]\d|3[01]"
_M = r"0?[1-9]|1[0-2]"
# The month names and their abbreviations in English, German, French, Dutch, Swedish,
# Norwegian, Danish, Italian and Spanish, each with its month (no word means two months).
_MONTH_WORDS = {
    1: "january jan januar jänner jän janvier janv januari gennaio gen enero ene",
    2: "february feb februar feber février fevrier févr fevr fév fev februari febbraio febrero",
    3: "march mar märz maerz marz mär mrz mars mrt maart marts marzo",
    4: "april apr avril avr aprile abril abr",
    5: "may mai mei maj maggio mag mayo",
    6: "june jun juni juin giugno giu junio",
    7: "july jul juli juillet juil luglio lug julio",
    8: "august aug août aout augustus augusti agosto ago",
    9: "september sep sept septembre settembre set septiembre setiembre",
    10: "october oct oktober okt octobre ottobre ott octubre",
    11: "november nov novembre noviembre",
    12: "december dec dezember dez décembre decembre déc desember des dicembre diciembre dic",
}
MONTHS = {word: month for month, words in _MONTH_WORDS.items() for word in words.split()}


def _trie(words: Sequence[str]) -> str:
    """A pattern matching exactly ``words``, shared beginnings written once ("ma(?:i|y|rs)").

    The regular expression engine tries the branches of an alternation one by one: with a
    hundred month words that is a hundred tries at every word of every name, several
    times the cost of the rest of the ordering. As a tree, each letter is tried once.
    """
    tree: dict[str, dict] = {}
    for word in words:
        node = tree
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}  # a word ends here

    def pattern(node: dict[str, dict]) -> str:
        ends = "" in node
        branches = [re.escape(ch) + pattern(child) for ch, child in node.items() if ch]
        if not branches:
            return ""
        # The longest first: "mars" before "mar", so a word is never cut short.
        body = branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"
        return f"(?:{body})?" if ends else body

    return pattern(tree)


_MON = _trie(sorted(MONTHS))
_LETTER_BEFORE, _LETTER_AFTER = r"(?<![^\W\d_])", r"(?![^\W\d_])"  # a whole word
_ORD = r"(?:st|nd|rd|th|er)?\.?"  # 1st, 2nd, 1er, 2. (German)
_SEP = r"[ _-]*"
_DE = r"(?:del?[ _]+)?"  # 2 de mayo de 1931
_NUMERIC = (
    # Year first (ISO and compact): the only order a four-digit year first is written in.
    rf"(?<!\d)(?P<ymd_y>{_Y4})(?P<ymd_sep>[-_.]?)(?P<ymd_m>0[1-9]|1[0-2])(?P=ymd_sep)"
    r"(?P<ymd_d>0[1-9]|[12]\d|3[01])"
    # Day and month in either order, then the year: one of the two must be a month.
    rf"|(?<![\d.])(?=(?:{_M})[-_.]|\d{{1,2}}[-_.](?:{_M})[-_.])"
    rf"(?P<dm_a>{_D})(?P<dm_sep>[-_.])(?P<dm_b>{_D})(?P=dm_sep)(?P<dm_y>{_Y4})"
    rf"|(?<![\d.])(?=(?:{_M})\.|\d{{1,2}}\.(?:{_M})\.)"
    rf"(?P<dmyy_a>{_D})\.(?P<dmyy_b>{_D})\.(?P<dmyy_y>\d{{2}})(?!\.?\d)"
)
_NAMED = (
    rf"|(?<![\d.])(?P<nd_d>{_D}){_ORD}{_SEP}{_DE}{_LETTER_BEFORE}(?P<nd_m>{_MON}){_LETTER_AFTER}"
    rf"\.?,?{_SEP}{_DE}(?P<nd_y>{_Y4})"
    rf"|{_LETTER_BEFORE}(?P<nm_m>{_MON}){_LETTER_AFTER}\.?{_SEP}(?P<nm_d>{_D})"
    rf"(?:st|nd|rd|th)?(?!\d),?{_SEP}{_DE}(?P<nm_y>{_Y4})"
    rf"|(?<!\d)(?P<yn_y>{_Y4})[ _.-]*{_LETTER_BEFORE}(?P<yn_m>{_MON}){_LETTER_AFTER}\.?"
    rf"[ _.-]*(?P<yn_d>{_D})(?!\d)"
    rf"|{_LETTER_BEFORE}(?P<my_m>{_MON}){_LETTER_AFTER}\.?,?{_SEP}{_DE}(?P<my_y>{_Y4})"
)
# HHMMSS (a phone's milliseconds after it), HH:MM, HH.MM.SS, 12h30, 12-30-45; on a
# 12-hour clock AM/PM, a.m./p.m. (macOS puts a narrow no-break space before it).
_TIME = (
    r"(?:(?P<hh>[01]\d|2[0-3])(?P<mm>[0-5]\d)(?P<ss>[0-5]\d)(?:\d{3})?"
    r"|(?P<h>[01]?\d|2[0-3])[.:h-](?P<m>[0-5]\d)(?:[.:m-](?P<s>[0-5]\d))?)"
    rf"(?:\s?(?P<ampm>[ap])\.?\s?m\.?{_LETTER_AFTER})?"
)
# What joins a time to its date: a space, _, -, T, a comma, or a screenshot's word for
# "at" (English, German, French, Dutch, Swedish/Norwegian/Danish, Italian, Spanish).
_AT = r"(?:\s+(?:at|um|à|om|kl\.?|alle|a\s+las)\s+|,\s*|[ _T-])"
_WITH_NAMES = re.compile(rf"(?:{_NUMERIC}{_NAMED})(?:{_AT}{_TIME})?(?!\d)", re.IGNORECASE)
_IN_FIGURES = re.compile(rf"(?:{_NUMERIC})(?:{_AT}{_TIME})?(?!\d)", re.IGNORECASE)
_MONTH_WORD = re.compile(rf"{_LETTER_BEFORE}(?:{_MON}){_LETTER_AFTER}", re.IGNORECASE)


class _Dates:
    """The dates and times in a text, found by the pattern it needs.

    Trying a hundred month words at every place of every name would slow planning a
    100,000-file shelf several times over, and most names hold no month word: the month
    names' pattern runs only on a text with one of its words.
    """

    @staticmethod
    def pattern(text: str) -> re.Pattern[str]:
        return _WITH_NAMES if _MONTH_WORD.search(text) else _IN_FIGURES

    def sub(self, repl: str | Callable[[re.Match[str]], str], text: str) -> str:
        return self.pattern(text).sub(repl, text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.pattern(text).finditer(text)

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.pattern(text).search(text, pos, endpos)


_DATE_TIME = _Dates()
_LAST_DIGITS = re.compile(r"(\d+)\D*$")


def _year_first(date: re.Match[str], month_first: bool = False) -> str:
    """A date and time as one sortable number, YYYYMMDDhhmmss (a missing day or time is 0).

    A numeric date with the day and the month both 12 or under is read day first unless
    ``month_first``; one with a number above 12 can only be read one way.
    """
    g = date.groupdict()
    year, month, day = g["ymd_y"], g["ymd_m"], g["ymd_d"]
    if year is None and (g["dm_y"] or g["dmyy_y"]) is not None:
        a, b = (g["dm_a"], g["dm_b"]) if g["dm_y"] else (g["dmyy_a"], g["dmyy_b"])
        day, month = (b, a) if _reads_month_first(int(a), int(b), month_first) else (a, b)
        year = g["dm_y"]
        if year is None:
            yy = int(g["dmyy_y"])  # as strptime's %y reads it: 69-99 are 1900s, 00-68 2000s
            year = str(yy + (1900 if yy >= 69 else 2000))
    elif year is None:
        for p in ("nd", "nm", "yn", "my"):
            if g.get(f"{p}_y") is not None:
                year, day = g[f"{p}_y"], g.get(f"{p}_d") or "0"
                month = str(MONTHS[g[f"{p}_m"].casefold()])
                break
    hour = int(g["hh"] or g["h"] or 0)
    if g["ampm"] and 1 <= hour <= 12:  # 12 AM is midnight, 12 PM noon
        hour = hour % 12 + (12 if g["ampm"].casefold() == "p" else 0)
    clock = [hour, int(g["mm"] or g["m"] or 0), int(g["ss"] or g["s"] or 0)]
    # Every match spells a year, a month and a day (0 for a month and year alone).
    ymd = [int(x or 0) for x in (year, month, day)]
    return "".join(f"{v:04d}" if i == 0 else f"{v:02d}" for i, v in enumerate(ymd + clock))


def _reads_month_first(a: int, b: int, month_first: bool) -> bool:
    """Whether a numeric date written ``a``, ``b``, year reads month first: a day above 12
    says which, else the folder's reading (``month_first``)."""
    return b > 12 or (a <= 12 and month_first)


class DateOrder(enum.Enum):
    """How a folder's numeric dates with the day and month both 12 or under read."""

    DAY_FIRST = "day first"  # 03.04.1931 is 3 April
    MONTH_FIRST = "month first"  # 03.04.1931 is March 4


@dataclass(frozen=True)
class DateReading:
    """How a folder's numeric dates read, and the names whose dates could read both ways.

    The folder's own names tell it: a date with its first number above 12 (``13.04.1931``)
    is day first, one with its second above 12 (``04-13-1931``) month first. One of the two
    kinds alone settles every date of the folder; none, or both, and the dates that read
    both ways are ``ambiguous`` (read day first, and asked about when the order depends
    on it).
    """

    order: DateOrder
    ambiguous: tuple[str, ...] = ()  # the names, as given


def date_reading(names: Sequence[str]) -> DateReading:
    """How the numeric dates in these names read (``DateReading``)."""
    day_first = month_first = False
    either: list[str] = []
    for name in names:
        if not _MAYBE_DM.search(name):  # most names hold no day-and-month date at all
            continue
        for date in _DATE_TIME.finditer(_bare_stem(name)):
            a, b = (
                date.group("dm_a") or date.group("dmyy_a"),
                date.group("dm_b") or date.group("dmyy_b"),
            )
            if a is None or b is None:
                continue
            day_first |= int(a) > 12
            month_first |= int(b) > 12
            if int(a) <= 12 and int(b) <= 12 and int(a) != int(b):
                either.append(name)
    if month_first and not day_first:
        return DateReading(DateOrder.MONTH_FIRST)
    if day_first and not month_first:
        return DateReading(DateOrder.DAY_FIRST)
    return DateReading(DateOrder.DAY_FIRST, tuple(dict.fromkeys(either)))


# A day and a month before a year, as digits: the names worth reading for ``date_reading``.
_MAYBE_DM = re.compile(r"\d[-_.]\d{1,2}[-_.]\d")


# What a copy of a file adds to its name: "page 3 (1)" (a browser, macOS, Windows),
# "page 3 - Copy", "page 3 - Copy (2)" (Windows), "page 3 copy", "page 3 copy 2" (macOS);
# "Copy of page 3" (older Windows, Google Drive).
_COPY_SUFFIX = re.compile(
    r"(?:\s\(\d{1,3}\)|\s-\scopy(?:\s\(\d{1,3}\))?|\scopy(?:\s\d{1,3})?)$", re.IGNORECASE
)
_COPY_PREFIX = re.compile(r"^copy(?:\s\(\d{1,3}\))?\sof\s", re.IGNORECASE)


def _copy_base(stem: str) -> str | None:
    """The stem of the file this one is a copy of ("page 3 (1)" -> "page 3"); None if none.

    Only a name whose rest still claims a page number is a copy: "page (1)", "page (2)"
    (as Windows numbers a batch it renames) are pages 1 and 2, and a phone's second shot
    in one second ("IMG_20230501_120000 (2)") is a burst of that time.
    """
    base = _COPY_PREFIX.sub("", stem)
    while (shorter := _COPY_SUFFIX.sub("", base)) != base:
        base = shorter
    if base == stem or not any(c.isdigit() for c in _DATE_TIME.sub(" ", _unrandom(base))):
        return None
    return base


# Names a device or a service made up, whose digits are no order: a UUID (an iPhone's
# export, a messaging app), a hex digest, a random base-62 token (mixed case, digits in
# three runs or more, 10 characters or more: "aB3dE5fG7hJ").
_UUID = r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}"
_RANDOM = re.compile(rf"(?<![0-9a-z])(?:{_UUID}|[0-9a-z]{{10,}})(?![0-9a-z])", re.IGNORECASE)


def _unrandom(stem: str) -> str:
    """The stem with its made-up tokens (UUIDs, hex digests, random tokens) taken out."""
    return _RANDOM.sub(lambda m: " " if _is_random(m.group()) else m.group(), stem)


def _is_random(token: str) -> bool:
    digits = re.findall(r"\d+", token)
    if not digits or len(digits) == 1 and token[: -len(digits[0])].isalpha():
        return False  # letters then a number: IMG20230501, scan0001
    if re.fullmatch(_UUID, token, re.IGNORECASE):
        return True
    hexa = re.fullmatch(r"[0-9a-f]{16,}", token, re.IGNORECASE) is not None
    mixed_case = token.lower() != token and token.upper() != token
    return hexa and not token.isdigit() or (mixed_case and len(digits) >= 3)


def _bare_stem(name: str) -> str:
    """A file name's stem as PurePosixPath gives it, without building a path for each name."""
    name = name.rpartition("/")[2]
    dot = name.rfind(".")
    return name[:dot] if 0 < dot < len(name) - 1 else name


@_kept
def _stem_of(name: str) -> str:
    """A name's stem as its place is read: made-up tokens and a copy's suffix taken out."""
    stem = _untag(_unrandom(_bare_stem(name)))
    return _copy_base(stem) or stem


# A tag of 8 hex digits after a time (WhatsApp on a desktop since 2024: "WhatsApp Image
# 2023-05-07 at 13.05.00_3f9c2a1b"): made up to tell files apart, no number.
_TAG = re.compile(r"(?<=\d)_(?=[0-9a-f]*[a-f])[0-9a-f]{8}$", re.IGNORECASE)


def _untag(stem: str) -> str:
    tag = _TAG.search(stem)
    if tag is None or _DATE_TIME.search(stem, 0, tag.start()) is None:
        return stem
    return stem[: tag.start()]


@_kept
def undated_stem(name: str) -> str:
    """A name's stem as its page number is read: made-up tokens, a copy's suffix, dates
    and times taken out ("02.05.1931 p1 (1).jpg" -> " p1")."""
    return _DATE_TIME.sub(" ", _stem_of(name))


def copy_of(name: str) -> str | None:
    """The stem a copy's name was copied from ("page 3 - Copy.jpg" -> "page 3"), or None."""
    return _copy_base(_unrandom(_bare_stem(name)))


@_kept
def page_number(name: str) -> tuple[int, str] | None:
    """The page number a file name claims, with its digits as written; None if none.

    The last run of digits in the stem, once dates and times, a copy's suffix and
    made-up tokens (UUIDs) are taken out: "page 3", "IMG_0042", "scan 2023-05-01 p7"
    (7), "02.05.1931 p1" (1), "page 3 (1)" (3). "cover.jpg", "notes 2023-05-01" and
    "3F2504E0-4F89-11D3-9A0C-0305E82C3301.jpg" claim none.
    """
    return _number_in(_stem_of(name))


def _number_in(stem: str) -> tuple[int, str] | None:
    """``page_number`` of a stem as ``_stem_of`` reads it."""
    match = _LAST_DIGITS.search(_DATE_TIME.sub(" ", stem))
    if match is None:
        return None
    digits = match.group(1)
    return int(digits), digits


# -- what the names say: schemes -----------------------------------------------------------

# A camera's or scanner's frame counter, not a page number: IMG_0042, DSC_1234, DSCN0007,
# P1010001 (capital P and four digits or more), scan_0003. A skip in it is a deleted
# frame, not a missing page.
_COUNTER = re.compile(r"(?:(?i:IMG|DSCN|DSCF|DSC|PICT|SCAN)[ _-]?|P)(\d{4,})")
# A leaf and one of its sides: 12r 12v, 12a 12b, 12 recto, f. 12r, fol12v, folio 12 verso;
# an opening's left or right page: 12L 12R, 12 left.
_SIDE = re.compile(r"(?<!\d)(\d+)[ _.-]?(recto|verso|left|right|[rvabl])$", re.IGNORECASE)
# What a phone adds after a date and time for a second shot in the same second: _1, (2).
_BURST = re.compile(r"\x00[ _~-]*\(?\d{1,3}\)?")
# A messaging app's counter of the day, after the date (WhatsApp on Android:
# IMG-20230506-WA0011): the order within that day, never a page number.
_DAY_COUNTER = re.compile(r"\x00-WA\d{4}", re.IGNORECASE)
# A chat export's running counter beside the date (Telegram: photo_12@06-05-2023_10-11-12;
# WhatsApp on iOS: 00000012-PHOTO-2023-05-06-10-11-12): the order of the export, in which
# a skip is a message that was no photo.
_EXPORT_COUNTER = re.compile(r"(?:photo|image)_(\d+)@\x00|(\d{8})-photo-\x00", re.IGNORECASE)
# The numbers are a counter, not pages, when the lowest is this far beyond their count.
_FAR_BEYOND = 10

# The numbering schemes a folder's names can follow (``Scheme.kind``).
PAGES, COUNTERS, LEAVES, OPENINGS = "pages", "counters", "leaves", "openings"
TIMES, NONE, MIXED, ONE = "times", "none", "mixed", "one"
# Page numbers where some names carry a date too: how ``_order_key`` reads them.
_DATED_PAGES = "dated pages"


@dataclass(frozen=True)
class Name:
    """What one file's name says about its place."""

    source: PlanSource
    kind: str  # PAGES, COUNTERS, LEAVES (a side, its scheme settled per folder), TIMES, NONE
    number: int = 0  # the page, counter or leaf number
    side: str = ""  # a leaf side as written, lower case: r v a b l, or "R" for "right"


def name_of(source: PlanSource) -> Name:
    return Name(source, *_reading(source.name))


@_kept
def _reading(name: str) -> tuple[str, int, str]:
    """What ``name`` says of its place: the kind, number and side of its ``Name``."""
    stem = _stem_of(name)
    counter = _COUNTER.fullmatch(stem)
    if counter is not None and _DATE_TIME.search(stem) is None:  # Scan_20230506: a date
        return COUNTERS, int(counter.group(1)), ""
    side = _side_in(stem)
    if side is not None:
        word = side.group(2).casefold()
        letter = {"recto": "r", "verso": "v", "left": "l", "right": "R"}.get(word, word)
        return LEAVES, int(side.group(1)), letter
    marked = _DATE_TIME.sub("\x00", stem)
    number = _number_in(stem)
    if "\x00" in marked:
        export = _EXPORT_COUNTER.fullmatch(marked)
        if export is not None:
            return COUNTERS, int(export.group(1) or export.group(2)), ""
        last = marked[marked.rindex("\x00") :]
        if number is None or _BURST.search(last) or _DAY_COUNTER.fullmatch(last):
            return TIMES, 0, ""
    if number is None:
        return NONE, 0, ""
    return PAGES, number[0], ""


def _side_in(stem: str) -> re.Match[str] | None:
    """The leaf and side a stem (as ``_stem_of`` reads it) ends with, dates aside; None
    for a counter."""
    if _COUNTER.fullmatch(stem):
        return None
    return _SIDE.search(_DATE_TIME.sub("\x00", stem))


@_kept
def page_label(name: str) -> str | None:
    """A page's own label when its name gives leaf and side: "f. 12r.jpg" -> "12r"; else None.

    Kept on the page in project.json (``label``). Recto and verso are written r and v,
    left and right L and R; a single letter as the name has it.
    """
    side = _side_in(_stem_of(name))
    if side is None:
        return None
    word = side.group(2)
    letter = {"recto": "r", "verso": "v", "left": "L", "right": "R"}.get(word.casefold(), word)
    return f"{int(side.group(1))}{letter}"


_LETTERS = {"rv": ("r", "v"), "ab": ("a", "b"), "LR": ("l", "rR")}


@dataclass(frozen=True)
class Scheme:
    """How a folder's names number its pages, decided once for the whole folder."""

    kind: str
    names: tuple[Name, ...]  # the images it concerns (no cover), in the item's order
    letters: str = ""  # for leaves and openings: "rv", "ab" or "LR"
    kinds: tuple[str, ...] = ()  # for MIXED: the schemes seen, in the order first seen

    def side_of(self, name: Name) -> int:
        """0 for a recto (a left page), 1 for a verso (a right page)."""
        return 0 if name.side in _LETTERS[self.letters][0] else 1

    def position(self, number: int, side: int) -> str:
        return f"{number}{self.letters[side]}"


def scheme_of(images: Sequence[PlanSource], *, letters: str = "") -> Scheme:
    """The one numbering scheme of these image names, or NONE, MIXED, ONE.

    A cover is left aside (its name is its place). ``letters`` imposes the side letters
    (so that the files left out are read as the imported ones are).
    """
    names = tuple(name_of(s) for s in images if not is_cover_name(s.name))
    if len(names) < 2:
        return Scheme(ONE, names)
    heads = _run_heads(names)
    kinds = tuple(dict.fromkeys(n.kind for n in names if n.source.source_id not in heads))
    if set(kinds) == {PAGES, COUNTERS} and _one_counter(names):
        return Scheme(COUNTERS, names)  # a counter that gained a digit: Scan_999, Scan_1000
    if kinds == (PAGES,) and _counters_of_the_day(names):
        return Scheme(TIMES, names)
    if kinds == (LEAVES,):
        found = letters or side_letters({n.side for n in names})
        if found:
            return Scheme(OPENINGS if found == "LR" else LEAVES, names, found)
        # r v and a b at once, or l with v: two side schemes.
        by_letters = tuple(dict.fromkeys(f"sides {n.side}" for n in names))
        return Scheme(MIXED, names, kinds=by_letters)
    if kinds == (PAGES,):
        low = min(n.number for n in names)
        if low > max(999, _FAR_BEYOND * len(names)):
            return Scheme(COUNTERS, names)
        return Scheme(PAGES, names)
    if len(kinds) == 1:
        return Scheme(kinds[0], names)
    return Scheme(MIXED, names, kinds=kinds)


def _numbered_prefix(name: Name) -> str:
    """What a numbered name says besides its number: "scan_" for "Scan_0995"."""
    stem = _DATE_TIME.sub("\x00", _stem_of(name.source.name))
    match = _LAST_DIGITS.search(stem)
    return (stem[: match.start(1)] if match else stem).casefold()


def _one_counter(names: Sequence[Name]) -> bool:
    """Whether page numbers and counters are one counter that gained a digit.

    A scanner's counter written without zeros (Scan_995 … Scan_1006) reads as page
    numbers below 1000 and as a counter from there: one run when every name but its
    number is the same and the counter goes on from the numbers (``p1``…``p10`` beside
    ``P1010001`` are two schemes).
    """
    if len({_numbered_prefix(n) for n in names if n.kind in (PAGES, COUNTERS)}) != 1:
        return False
    pages = max(n.number for n in names if n.kind == PAGES)
    return pages < min(n.number for n in names if n.kind == COUNTERS) < 10 * pages


def _run_heads(names: Sequence[Name]) -> set[str]:
    """The source ids of unnumbered names that head a run of their numbered copies: "Scan"
    before "Scan 1", "Scan 2" (macOS Image Capture), "Image" before "Image (2)" (Windows
    Fax and Scan).

    Such a name is the first of the run, where name order puts it: it claims no number and
    opens no gap, so it is no second scheme.
    """
    unnumbered = [n for n in names if n.kind == NONE]
    if not unnumbered:
        return set()
    prefixes = {_numbered_prefix(n).rstrip(" _-(") for n in names if n.kind == PAGES}
    if len(prefixes) != 1:
        return set()
    head = prefixes.pop()
    return {n.source.source_id for n in unnumbered if _stem_of(n.source.name).casefold() == head}


def _counters_of_the_day(names: Sequence[Name]) -> bool:
    """Whether the numbers after the names' dates count within each date, not the pages.

    Every name ends in a date and a machine's counter right after it, three digits or
    more (a scanner's counter that starts again each day: 2023-05-06-0001,
    2023-05-07-0001; NAPS2's 2023-05-06-101112_0001); the numbers repeat, and no date has
    one number twice: then they order the files within their date, and the dates order
    the rest. A person's page number beside a date ("1931-05-02 p1", "1931-05-03 p1") is
    not one: two files claiming one page are a question.
    """
    if len({n.number for n in names}) == len(names):
        return False  # no number repeats: page numbers
    seen: set[tuple[str, int]] = set()
    for n in names:
        stem = _stem_of(n.source.name)
        marked = _DATE_TIME.sub("\x00", stem)
        counter = _DATE_COUNTER.search(marked)
        if counter is None:
            return False
        dates = "\x00".join(d.group().casefold() for d in _DATE_TIME.finditer(stem))
        if (dates, n.number) in seen:
            return False
        seen.add((dates, n.number))
    return True


# A machine's counter right after a date (marked \x00): "-0001", "_0001", " 001".
_DATE_COUNTER = re.compile(r"\x00[ _-]?\d{3,}$")


def side_letters(sides: set[str]) -> str:
    if "l" in sides or "R" in sides:
        return "LR" if sides <= {"l", "r", "R"} else ""
    if sides <= {"r", "v"}:
        return "rv"
    if sides <= {"a", "b"}:
        return "ab"
    return ""


# -- numbers in a run: a camera counter that rolled over -----------------------------------


@dataclass(frozen=True)
class Numbered:
    source: PlanSource
    shown: int  # as the name has it
    value: int  # in page order: past a counter rollover, 0001 counts after 9999


@dataclass(frozen=True)
class _Wrap:
    threshold: int  # numbers below it were written after the counter wrapped
    offset: int  # added to those, they count on from the top of the counter
    span: int  # 10**width: the counter's range


@dataclass(frozen=True)
class Numbering:
    numbered: tuple[Numbered, ...]  # in the item's current order
    wrap: _Wrap | None = None

    @classmethod
    def of(cls, images: Sequence[PlanSource], *, counter: bool = False) -> Numbering:
        raw = [(s, n) for s in images if (n := page_number(s.name)) is not None]
        if len(raw) < 2:  # one number is no sequence
            return cls(())
        wrap = _counter_wrap(raw, counter)
        threshold, offset = (wrap.threshold, wrap.offset) if wrap is not None else (0, 0)
        return cls(
            tuple(Numbered(s, v, v + offset if v < threshold else v) for s, (v, _) in raw),
            wrap,
        )

    @property
    def rollover(self) -> tuple[Numbered, Numbered] | None:
        """(the last number before the counter wrapped, the first after it)."""
        if self.wrap is None:
            return None
        threshold = self.wrap.threshold
        last = max((n for n in self.numbered if n.shown >= threshold), key=lambda n: n.value)
        first = min((n for n in self.numbered if n.shown < threshold), key=lambda n: n.value)
        return last, first

    def value_of(self, shown: int) -> int:
        """A number as a name shows it, in page order (past a rollover, 0001 after 9999)."""
        if self.wrap is not None and shown < self.wrap.threshold:
            return shown + self.wrap.offset
        return shown

    def shown(self, value: int) -> int:
        """A page number as a name would show it (after 9999 comes 1 again)."""
        if self.wrap is not None and value >= self.wrap.span:
            return value - self.wrap.offset
        return value


def _counter_wrap(raw: list[tuple[PlanSource, tuple[int, str]]], counter: bool) -> _Wrap | None:
    """How the numbers wrap, if the numbers look like a camera counter that rolled over.

    A camera counts 0001..9999 and starts again at 0001, so a shelf of photos can hold
    9998, 9999, 0001, 0002. Read as page numbers that is "pages 3-9997 are missing";
    it is really one run. The pattern: zero-padded numbers of one width (at least 3),
    the highest near the top of the range and the lowest near its bottom, the widest gap
    wider than half the range (or capture times saying the low numbers were taken last),
    and no capture times saying they were taken first. Numbers below the threshold (the
    top of the widest gap) then count after the high ones. Names that are a camera's
    counter (``counter``: ``IMG_9998``) need no wide gap: a skip in them is a deleted
    frame, so a run near the top and one near the bottom can only be a wrap.
    """
    widths = {len(digits) for _, (_, digits) in raw}
    if len(widths) != 1 or (width := widths.pop()) < 3:
        return None
    span = 10**width
    values = sorted({v for _, (v, _) in raw})
    if len(values) < 2 or values[-1] < span - span // 10 or values[0] >= span // 10:
        return None
    gap, threshold = max((b - a, b) for a, b in zip(values, values[1:], strict=False))
    low = [t for s, (v, _) in raw if v < threshold and (t := captured(s)) is not None]
    high = [t for s, (v, _) in raw if v >= threshold and (t := captured(s)) is not None]
    if low and high and max(low) < min(high):
        return None
    # Capture times that put every low number after every high one settle it even for a
    # run so long that its gap is narrower than half the counter.
    if gap <= span // 2 and not counter and not (low and high and min(low) > max(high)):
        return None
    # Cameras count 0001..9999 then 0001 again (DCF); one that writes 0000 goes on from it.
    return _Wrap(threshold, span - 1 if values[0] >= 1 else span, span)


def counter_rolled_over(earlier: PlanSource, later: PlanSource) -> bool:
    """Whether ``later`` (taken after ``earlier``) carries a counter that wrapped around."""
    a, b = page_number(earlier.name), page_number(later.name)
    if a is None or b is None or len(a[1]) != len(b[1]) or len(a[1]) < 3:
        return False
    span = 10 ** len(a[1])
    return bool(a[0] >= span - span // 10 and b[0] < span // 10)


# -- shared by the checks and the resolutions --------------------------------------------


def captured(source: PlanSource) -> str | None:
    # A hand-edited plan can hold anything here; only an ISO string is a time.
    value = source.provenance.captured_at
    return value if isinstance(value, str) and value else None


def and_list(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


# -- a date that reads two ways ---------------------------------------------------------------

_MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def two_readings(name: str) -> tuple[str, str] | None:
    """The first date in ``name`` that reads both ways, in words: (day first, month first).

    "03.04.1931 p1.jpg" -> ("3 April 1931", "4 March 1931"); None when every date in it
    reads one way.
    """
    for date in _DATE_TIME.finditer(_bare_stem(name)):
        a, b = (
            date.group("dm_a") or date.group("dmyy_a"),
            date.group("dm_b") or date.group("dmyy_b"),
        )
        if a is None or b is None or int(a) > 12 or int(b) > 12 or int(a) == int(b):
            continue
        year = _year_first(date)[:4]
        return (
            f"{int(a)} {_MONTH_NAMES[int(b) - 1]} {year}",
            f"{int(b)} {_MONTH_NAMES[int(a) - 1]} {year}",
        )
    return None


def reading_matters(sources: Sequence[PlanSource], scheme: Scheme) -> DateReading | None:
    """The folder's date reading when its numeric dates read both ways and the order of
    ``sources`` by their names (read as ``scheme``) differs between the two readings; else
    None.

    Where a page number orders the pages, or every reading gives one order (the dates of
    one day: CamScanner 05-06-2023 10.11_1, _2), the reading is no question.
    """
    if scheme.kind in (PAGES, LEAVES, OPENINGS):
        return None  # the page, the leaf or the opening orders them, not the dates
    reading = date_reading([s.name for s in sources])
    images = [s for s in sources if s.media_type != PDF]
    if not reading.ambiguous or by_capture_time(images):
        return None
    day_first = _by_names(sources, scheme, month_first=False)
    month_first = _by_names(sources, scheme, month_first=True)
    if [s.source_id for s in day_first] == [s.source_id for s in month_first]:
        return None
    return reading
