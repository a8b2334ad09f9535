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

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from transcribe_import.engine.base.text import NaturalKey, natural_key
from transcribe_import.engine.media.kinds import PDF
from transcribe_import.engine.planning.plan import OrderingRule, PlanSource

# The contract's cover heuristic names exactly these; cover PDFs are out of its scope.
COVER_NAMES = frozenset({"cover.jpg", "cover.jpeg", "cover.png"})
# -- the proposed order --------------------------------------------------------------------


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
    by_name = sorted(
        sources, key=lambda s: (not is_cover_name(s.name), *_order_key(s, scheme.kind))
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


def _order_key(source: PlanSource, kind: str) -> tuple[NaturalKey, bool, str, str]:
    """Where a name goes in its folder's scheme ``kind``: its page, or its date, first.

    Page numbers: the name with its dates taken out ("02.05.1931 p1" is page 1 whatever
    its day), so the last number that is not a date orders it. Any other scheme: each
    date spelled year first (``02.05.1931`` as ``19310502000000``), so day-first and
    year-first dates sort as dates. Then a copy after its original, then by the dates
    (names alike but for them), then the name as is.
    """
    rel = source.provenance.rel
    folder, _, name = rel.rpartition("/")
    stem, dot, ext = name.rpartition(".") if "." in name else (name, "", "")
    base = _copy_base(stem)
    year_first = _DATE_TIME.sub(_year_first, base or stem)
    read = _DATE_TIME.sub(" ", base or stem) if kind == PAGES else year_first
    if read == stem:  # nothing to read otherwise: the name as it is
        return name_key(source), False, "", rel
    head = f"{folder}/" if folder else ""
    return natural_key(f"{head}{read}{dot}{ext}"), base is not None, year_first, rel


# Dates and times in names (IMG_20230501_120000, "Screenshot 2023-05-01 at 12.30.45",
# "02.05.1931 p1", "2.5.31") are not page numbers; read as numbers they would make every
# phone photo a gap, and a day-first date would order the pages by their day. A date is
# a real one (month 1-12, day 1-31, years 1800-2099); a two-digit year only in the
# day-first form with dots (D.M.YY). Day-first dates are read day first (02.05 is 2 May).
_Y4 = r"(?:1[89]|20)\d{2}"
_D = r"0?[1-9]|[12]\d|3[01]"
_M = r"0?[1-9]|1[0-2]"
_YMD = (
    rf"(?<!\d)(?P<ymd_y>{_Y4})(?P<ymd_sep>[-_.]?)(?P<ymd_m>0[1-9]|1[0-2])(?P=ymd_sep)"
    r"(?P<ymd_d>0[1-9]|[12]\d|3[01])"
)
_DMY = rf"(?<![\d.])(?P<dmy_d>{_D})(?P<dmy_sep>[-_.])(?P<dmy_m>{_M})(?P=dmy_sep)(?P<dmy_y>{_Y4})"
_DMYY = rf"(?<![\d.])(?P<dmyy_d>{_D})\.(?P<dmyy_m>{_M})\.(?P<dmyy_y>\d{{2}})(?!\.?\d)"
# HHMMSS (a phone's milliseconds after it), HH:MM, HH.MM.SS, 12h30, 12-30-45.
_TIME = (
    r"(?:(?P<hh>[01]\d|2[0-3])(?P<mm>[0-5]\d)(?P<ss>[0-5]\d)(?:\d{3})?"
    r"|(?P<h>[01]?\d|2[0-3])[.:h-](?P<m>[0-5]\d)(?:[.:m-](?P<s>[0-5]\d))?)"
)
_DATE_TIME = re.compile(
    rf"(?:{_YMD}|{_DMY}|{_DMYY})(?:(?:[ _T-]|\s+at\s+){_TIME})?(?!\d)", re.IGNORECASE
)
_LAST_DIGITS = re.compile(r"(\d+)\D*$")


def _year_first(date: re.Match[str]) -> str:
    """A date and time as one sortable number, YYYYMMDDhhmmss (a missing time is 0)."""
    g = date.groupdict()
    year, month, day = (g["ymd_y"], g["ymd_m"], g["ymd_d"])
    if year is None:
        year, month, day = (g["dmy_y"], g["dmy_m"], g["dmy_d"])
    if year is None:
        yy = int(g["dmyy_y"])  # as strptime's %y reads it: 69-99 are 1900s, 00-68 2000s
        year, month, day = str(yy + (1900 if yy >= 69 else 2000)), g["dmyy_m"], g["dmyy_d"]
    clock = [g["hh"] or g["h"] or "0", g["mm"] or g["m"] or "0", g["ss"] or g["s"] or "0"]
    return f"{int(year):04d}{int(month):02d}{int(day):02d}" + "".join(
        f"{int(t):02d}" for t in clock
    )


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


def _stem_of(name: str) -> str:
    """A name's stem as its place is read: made-up tokens and a copy's suffix taken out."""
    stem = _unrandom(_bare_stem(name))
    return _copy_base(stem) or stem


def undated_stem(name: str) -> str:
    """A name's stem as its page number is read: made-up tokens, a copy's suffix, dates
    and times taken out ("02.05.1931 p1 (1).jpg" -> " p1")."""
    return _DATE_TIME.sub(" ", _stem_of(name))


def copy_of(name: str) -> str | None:
    """The stem a copy's name was copied from ("page 3 - Copy.jpg" -> "page 3"), or None."""
    return _copy_base(_unrandom(_bare_stem(name)))


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
# The numbers are a counter, not pages, when the lowest is this far beyond their count.
_FAR_BEYOND = 10

# The numbering schemes a folder's names can follow (``Scheme.kind``).
PAGES, COUNTERS, LEAVES, OPENINGS = "pages", "counters", "leaves", "openings"
TIMES, NONE, MIXED, ONE = "times", "none", "mixed", "one"


@dataclass(frozen=True)
class Name:
    """What one file's name says about its place."""

    source: PlanSource
    kind: str  # PAGES, COUNTERS, LEAVES (a side, its scheme settled per folder), TIMES, NONE
    number: int = 0  # the page, counter or leaf number
    side: str = ""  # a leaf side as written, lower case: r v a b l, or "R" for "right"


def name_of(source: PlanSource) -> Name:
    stem = _stem_of(source.name)
    counter = _COUNTER.fullmatch(stem)
    if counter is not None:
        return Name(source, COUNTERS, int(counter.group(1)))
    side = _side_in(stem)
    if side is not None:
        word = side.group(2).casefold()
        letter = {"recto": "r", "verso": "v", "left": "l", "right": "R"}.get(word, word)
        return Name(source, LEAVES, int(side.group(1)), letter)
    marked = _DATE_TIME.sub("\x00", stem)
    number = _number_in(stem)
    if "\x00" in marked and (number is None or _BURST.search(marked[marked.rindex("\x00") :])):
        return Name(source, TIMES)
    if number is None:
        return Name(source, NONE)
    return Name(source, PAGES, number[0])


def _side_in(stem: str) -> re.Match[str] | None:
    """The leaf and side a stem (as ``_stem_of`` reads it) ends with, dates aside; None
    for a counter."""
    if _COUNTER.fullmatch(stem):
        return None
    return _SIDE.search(_DATE_TIME.sub("\x00", stem))


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
    kinds = tuple(dict.fromkeys(n.kind for n in names))
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
