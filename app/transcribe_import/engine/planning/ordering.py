"""Page order of a plan item: the proposed natural order, its ambiguities, and their resolutions.

The contract (import runs, "Ordering ambiguity") lets natural sort be the *proposed*
order only. Anything a person could reasonably read two ways is reported by
``find_ambiguities`` as a value with a code, the item and the sources it concerns,
and stays a validate error until a person resolves it with one of the operations
below. Each resolution is recorded in the plan (``PlanItem.ordering`` and the
sources' order and ``excluded`` flags), so it is fingerprinted and survives a
reload. Pure functions over the frozen plan dataclasses: no I/O, no Qt.

A folder's names are read as one scheme (``_scheme_of``): page numbers, camera
counters (a skip is a deleted frame), leaves and sides (``12r 12v``, ``12a 12b``,
``f. 12r``; openings ``12L 12R``), dates and times, or none; two at once is a question,
and so is none. A folder that looks like two duplex passes is told as such and
interleaved on request. Each rule is one function with its own ``AmbiguityCode`` and
its words; the module is long (about 1,100 lines) because the checks and the
resolutions share the name helpers (``page_number``, ``_name_of``, ``duplex_passes``,
``_SourceNames``), and split apart each half would import the other.
"""

from __future__ import annotations

import bisect
import datetime
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from transcribe_import.engine.base.text import NaturalKey, natural_key
from transcribe_import.engine.media.kinds import PDF
from transcribe_import.engine.planning.plan import OrderingRule, PlanItem, PlanSource
from transcribe_import.engine.planning.problems import AmbiguityCode, Resolution, files_of

# The contract's cover heuristic names exactly these; cover PDFs are out of its scope.
COVER_NAMES = frozenset({"cover.jpg", "cover.jpeg", "cover.png"})

# What settles an ambiguous order (the rest of Resolution settles the other problems).
RESOLUTIONS = frozenset(
    {
        Resolution.ACCEPT,
        Resolution.NAME,
        Resolution.CAPTURE_TIME,
        Resolution.MTIME,
        Resolution.SEQUENCE,
        Resolution.EXCLUDE,
        Resolution.INTERLEAVE,
        Resolution.INTERLEAVE_REVERSED,
        Resolution.VERSO_FIRST,
        Resolution.VERSOS_BLANK,
    }
)

# The CLI's option for "give the order", the advice most ambiguities end with (a hint).
_SEQUENCE_HINT = "--sequence"

# Missing-page messages list this many runs of numbers, then count the rest.
_MAX_RUNS_SHOWN = 10


@dataclass(frozen=True)
class Ambiguity:
    """One reason an item's order cannot be taken as proposed; a validate error.

    ``message``, ``hint`` and ``files`` are as ``PlanProblem``'s: words for any face, the
    CLI's options apart, the concerned files by item-relative path.
    """

    code: AmbiguityCode
    item_id: str
    message: str
    source_ids: tuple[str, ...]
    resolutions: tuple[Resolution, ...]
    hint: str | None = None
    files: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        code: AmbiguityCode,
        item: PlanItem,
        message: str,
        source_ids: tuple[str, ...],
        resolutions: Iterable[Resolution],
        hint: str | None = None,
    ) -> Ambiguity:
        """The ambiguity of ``item``, its files named from ``source_ids``."""
        files = files_of(item, source_ids)
        return cls(code, item.item_id, message, source_ids, tuple(resolutions), hint, files)


# -- the proposed order --------------------------------------------------------------------


def is_cover_name(name: str) -> bool:
    """Whether a file's base name is one the contract's cover heuristic recognises."""
    return unicodedata.normalize("NFC", name).casefold() in COVER_NAMES


def propose_order(sources: Sequence[PlanSource]) -> list[PlanSource]:
    """The proposed order: natural order of ``provenance.rel``, any cover image first.

    A cover (``cover.jpg``/``.jpeg``/``.png``, any case) goes first because a person who
    named a file "cover" expects it to be page 1, wherever "cover" falls in the
    alphabet. This is only the position; the contract's cover heuristic sets
    ``cover_page_id`` to it separately, in the planner. A foliated folder (``f. 9v``,
    ``fol10r``) goes by leaf and side, whatever prefix each name spells them with.
    """
    by_name = sorted(sources, key=lambda s: (not is_cover_name(s.name), _name_key(s)))
    scheme = _scheme_of([s for s in by_name if s.media_type != PDF])
    if scheme.kind not in (_LEAVES, _OPENINGS):
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


def _name_key(source: PlanSource) -> NaturalKey:
    return natural_key(source.provenance.rel)


# -- finding ambiguities -------------------------------------------------------------------


def find_ambiguities(item: PlanItem) -> list[Ambiguity]:
    """Every ambiguity in the order of the item's imported sources; [] once resolved.

    Analysed in the item's current order, over the sources commit would import. A
    source left out (excluded, or a planned duplicate skip) opens no gap: its number
    still counts as there, since the app or the person left it out on purpose.
    """
    if item.ordering.resolved:
        return []
    sources = item.imported_sources()
    images = [s for s in sources if s.media_type != PDF]
    placed = [s for s in item.sources if s.media_type != PDF]  # gaps: the left-out count
    found: list[Ambiguity] = []
    scheme = _scheme_of(images)
    # Passes are what was scanned: a back left out still counts (interleave keeps its place).
    passes = duplex_passes([s for s in placed if not is_cover_name(s.name)]) if images else None
    if passes is not None:
        found.append(_duplex(item, passes))
    else:
        if scheme.kind == _NONE:
            found += _no_order_cue(item, scheme)
        elif scheme.kind == _MIXED:
            found.append(_mixed_schemes(item, scheme))
        elif scheme.kind in (_LEAVES, _OPENINGS):
            found += _duplicate_sides(item, scheme)
            gap = _missing_sides(item, scheme, _scheme_of(placed, letters=scheme.letters))
            if gap is not None:
                found.append(gap)
        elif scheme.kind in (_PAGES, _COUNTERS):
            numbering = _Numbering.of(placed, counter=scheme.kind == _COUNTERS)
            found += _duplicate_numbers(item, numbering)
            if scheme.kind == _PAGES:  # a skip in a camera's counter is a deleted frame
                missing = _missing_numbers(item, numbering)
                if missing is not None:
                    found.append(missing)
    mixed = _mixed_media(item, sources)
    if mixed is not None:
        found.append(mixed)
    if passes is None:
        numbering = _Numbering.of(placed, counter=scheme.kind == _COUNTERS)
        cue = _capture_time_conflict(item, images) or _rollover_by_numbers(item, numbering)
        if cue is not None:
            found.append(cue)
    return found


# Dates and times in names (IMG_20230501_120000, "Screenshot 2023-05-01 at 12.30.45")
# are not page numbers; read as numbers they would make every phone photo a gap.
_DATE = r"(?:19|20)\d{2}(?P<sep>[-_.]?)(?:0[1-9]|1[0-2])(?P=sep)(?:0[1-9]|[12]\d|3[01])"
_TIME = r"(?:\d{6}(?:\d{3})?|\d{1,2}[.:h-]\d{2}(?:[.:m-]\d{2})?)"
_DATE_TIME = re.compile(rf"(?<!\d){_DATE}(?:(?:[ _T-]|\s+at\s+){_TIME})?(?!\d)", re.IGNORECASE)
_LAST_DIGITS = re.compile(r"(\d+)\D*$")


def page_number(name: str) -> tuple[int, str] | None:
    """The page number a file name claims, with its digits as written; None if none.

    The last run of digits in the stem, once dates and times are taken out: "page 3",
    "IMG_0042", "scan 2023-05-01 p7" (7). "cover.jpg" and "notes 2023-05-01" claim none.
    """
    stem = PurePosixPath(name).stem
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
# A name numbering fronts or backs of a duplex scan in two passes: front_001, back_001,
# odd-3, even-3, or a folder named so.
_PASS = re.compile(r"(?:^|[/ _.-])(fronts?|odd|backs?|even)(?=$|[/ _.\d-])", re.IGNORECASE)
# The numbers are a counter, not pages, when the lowest is this far beyond their count.
_FAR_BEYOND = 10

# The words of each scheme, for messages: one place.
_PAGES, _COUNTERS, _LEAVES, _OPENINGS = "pages", "counters", "leaves", "openings"
_TIMES, _NONE, _MIXED, _ONE = "times", "none", "mixed", "one"
_SCHEME_WORDS = {
    _PAGES: "page numbers",
    _COUNTERS: "camera counters",
    _LEAVES: "leaves and sides",
    _OPENINGS: "openings (left and right pages)",
    _TIMES: "dates and times",
    _NONE: "no number",
}
_SIDE_WORDS = {_LEAVES: ("recto", "verso"), _OPENINGS: ("left page", "right page")}
_UNIT_WORDS = {_LEAVES: "leaf", _OPENINGS: "opening"}


@dataclass(frozen=True)
class _Name:
    """What one file's name says about its place."""

    source: PlanSource
    kind: str  # _PAGES, _COUNTERS, _LEAVES (a side, its scheme settled per folder), _TIMES, _NONE
    number: int = 0  # the page, counter or leaf number
    side: str = ""  # a leaf side as written, lower case: r v a b l, or "R" for "right"


def _name_of(source: PlanSource) -> _Name:
    stem = PurePosixPath(source.name).stem
    counter = _COUNTER.fullmatch(stem)
    if counter is not None:
        return _Name(source, _COUNTERS, int(counter.group(1)))
    side = _side_in(stem)
    if side is not None:
        word = side.group(2).casefold()
        letter = {"recto": "r", "verso": "v", "left": "l", "right": "R"}.get(word, word)
        return _Name(source, _LEAVES, int(side.group(1)), letter)
    marked = _DATE_TIME.sub("\x00", stem)
    number = page_number(source.name)
    if "\x00" in marked and (number is None or _BURST.search(marked[marked.rindex("\x00") :])):
        return _Name(source, _TIMES)
    if number is None:
        return _Name(source, _NONE)
    return _Name(source, _PAGES, number[0])


def _side_in(stem: str) -> re.Match[str] | None:
    """The leaf and side a name's stem ends with (dates aside), if it is no counter."""
    if _COUNTER.fullmatch(stem):
        return None
    return _SIDE.search(_DATE_TIME.sub("\x00", stem))


def page_label(name: str) -> str | None:
    """A page's own label when its name gives leaf and side: "f. 12r.jpg" -> "12r"; else None.

    Kept on the page in project.json (``label``). Recto and verso are written r and v,
    left and right L and R; a single letter as the name has it.
    """
    side = _side_in(PurePosixPath(name).stem)
    if side is None:
        return None
    word = side.group(2)
    letter = {"recto": "r", "verso": "v", "left": "L", "right": "R"}.get(word.casefold(), word)
    return f"{int(side.group(1))}{letter}"


_LETTERS = {"rv": ("r", "v"), "ab": ("a", "b"), "LR": ("l", "rR")}


@dataclass(frozen=True)
class _Scheme:
    """How a folder's names number its pages, decided once for the whole folder."""

    kind: str
    names: tuple[_Name, ...]  # the images it concerns (no cover), in the item's order
    letters: str = ""  # for leaves and openings: "rv", "ab" or "LR"
    kinds: tuple[str, ...] = ()  # for _MIXED: the schemes seen, in the order first seen

    def side_of(self, name: _Name) -> int:
        """0 for a recto (a left page), 1 for a verso (a right page)."""
        return 0 if name.side in _LETTERS[self.letters][0] else 1

    def position(self, number: int, side: int) -> str:
        return f"{number}{self.letters[side]}"


def _scheme_of(images: Sequence[PlanSource], *, letters: str = "") -> _Scheme:
    """The one numbering scheme of these image names, or _NONE, _MIXED, _ONE.

    A cover is left aside (its name is its place). ``letters`` imposes the side letters
    (so that the files left out are read as the imported ones are).
    """
    names = tuple(_name_of(s) for s in images if not is_cover_name(s.name))
    if len(names) < 2:
        return _Scheme(_ONE, names)
    kinds = tuple(dict.fromkeys(n.kind for n in names))
    if kinds == (_LEAVES,):
        found = letters or _side_letters({n.side for n in names})
        if found:
            return _Scheme(_OPENINGS if found == "LR" else _LEAVES, names, found)
        # r v and a b at once, or l with v: two side schemes.
        by_letters = tuple(dict.fromkeys(f"sides {n.side}" for n in names))
        return _Scheme(_MIXED, names, kinds=by_letters)
    if kinds == (_PAGES,):
        low = min(n.number for n in names)
        if low > max(999, _FAR_BEYOND * len(names)):
            return _Scheme(_COUNTERS, names)
        return _Scheme(_PAGES, names)
    if len(kinds) == 1:
        return _Scheme(kinds[0], names)
    return _Scheme(_MIXED, names, kinds=kinds)


def _side_letters(sides: set[str]) -> str:
    if "l" in sides or "R" in sides:
        return "LR" if sides <= {"l", "r", "R"} else ""
    if sides <= {"r", "v"}:
        return "rv"
    if sides <= {"a", "b"}:
        return "ab"
    return ""


def _no_order_cue(item: PlanItem, scheme: _Scheme) -> list[Ambiguity]:
    """Names that carry no number: their name order would be a guess."""
    sources = [n.source for n in scheme.names]
    times = [_captured(s) for s in sources]
    if None not in times and len(set(times)) == len(times):
        return []  # the capture times give the order; _capture_time_conflict checks it
    resolutions = [Resolution.SEQUENCE, Resolution.MTIME, Resolution.ACCEPT]
    if any(t is not None for t in times):
        resolutions.insert(0, Resolution.CAPTURE_TIME)
    return [
        Ambiguity.of(
            AmbiguityCode.NO_ORDER_CUE,
            item,
            f"No page numbers in the names of these {len(sources)} files "
            f"({_some([s.provenance.rel for s in sources])}), so their order would be a "
            "guess. Order them by capture time or modification time, give the order, or "
            "accept the name order.",
            tuple(s.source_id for s in sources),
            resolutions,
            _SEQUENCE_HINT,
        )
    ]


def _mixed_schemes(item: PlanItem, scheme: _Scheme) -> Ambiguity:
    """Names numbered two ways at once (1, 2, 3, a, b; 1r 1v 2 3): no one order follows."""
    groups: dict[str, list[str]] = {}
    for n in scheme.names:
        key = n.kind if n.kind != _LEAVES else "leaves and sides"
        groups.setdefault(key, []).append(n.source.provenance.rel)
    parts = [f"{_SCHEME_WORDS.get(k, k)} ({_some(v)})" for k, v in groups.items()]
    resolutions = [Resolution.EXCLUDE, Resolution.SEQUENCE, Resolution.MTIME, Resolution.ACCEPT]
    if any(_captured(n.source) for n in scheme.names):
        resolutions.insert(1, Resolution.CAPTURE_TIME)
    return Ambiguity.of(
        AmbiguityCode.MIXED_SCHEMES,
        item,
        f"The names follow {len(parts)} numbering schemes at once: {_and(parts)}, so no "
        "one order follows from them. Exclude the files that do not belong, give the order, "
        "or accept the name order.",
        tuple(n.source.source_id for n in scheme.names),
        resolutions,
        _SEQUENCE_HINT,
    )


def _some(names: Sequence[str], shown: int = 3) -> str:
    if len(names) <= shown:
        return _and(list(names))
    return f"{', '.join(names[:shown])} and {len(names) - shown} more"


# -- leaves and sides ----------------------------------------------------------------------


def _duplicate_sides(item: PlanItem, scheme: _Scheme) -> list[Ambiguity]:
    """Two files claiming one side of one leaf (12r.jpg and f. 12r.jpg)."""
    by_place: dict[tuple[int, int], list[PlanSource]] = {}
    for n in scheme.names:
        by_place.setdefault((n.number, scheme.side_of(n)), []).append(n.source)
    found = []
    for (number, side), sources in by_place.items():
        if len(sources) < 2:
            continue
        claim = "both claim" if len(sources) == 2 else "all claim"
        found.append(
            Ambiguity.of(
                AmbiguityCode.DUPLICATE_NUMBER,
                item,
                f"{_and([s.provenance.rel for s in sources])} {claim} "
                f"{_side_phrase(scheme, number, side)}. Exclude the extra one, give the order, "
                f"or accept the proposed order ({sources[0].provenance.rel} first).",
                tuple(s.source_id for s in sources),
                (Resolution.EXCLUDE, Resolution.SEQUENCE, Resolution.ACCEPT),
                _SEQUENCE_HINT,
            )
        )
    return found


def _side_phrase(scheme: _Scheme, number: int, side: int) -> str:
    unit, words = _UNIT_WORDS[scheme.kind], _SIDE_WORDS[scheme.kind]
    return f"the {words[side]} of {unit} {number} ({scheme.position(number, side)})"


def _missing_sides(item: PlanItem, scheme: _Scheme, placed: _Scheme) -> Ambiguity | None:
    """A leaf, or a side of one, that is not there: told as leaves and sides.

    Every leaf from the first to the last has both sides (an opening its left and right
    page), unless the person said that the first page is a verso (the first leaf starts
    at its second side) or that the versos are blank and were not scanned. ``placed`` is
    read from every image, left-out ones too: a file left out on purpose opens no gap.
    """
    at: dict[tuple[int, int], PlanSource] = {}
    for n in placed.names:
        if n.kind == _LEAVES and _side_letters({n.side}) in ("", scheme.letters):
            at.setdefault((n.number, scheme.side_of(n)), n.source)
        elif n.kind == _LEAVES and scheme.letters == "LR" and n.side == "r":
            at.setdefault((n.number, 1), n.source)
    first = min(number for number, _ in at)
    last = max(number for number, _ in at)
    rectos_only = item.ordering.versos_blank and scheme.kind == _LEAVES
    sides = (0,) if rectos_only else (0, 1)
    expected = [
        (number, side)
        for number in range(first, last + 1)
        for side in sides
        if not (number == first and side == 0 and item.ordering.verso_first)
    ]
    missing = [p for p in expected if p not in at]
    if not missing:
        return None
    gone_at = set(missing)
    phrases: list[str] = []
    whole: list[int] = []  # a run of whole leaves missing, told as one
    leaves_missing = {number for number, _ in missing}
    for number in sorted(leaves_missing):
        gone = [side for side in sides if (number, side) in gone_at]
        whole_leaf = len(gone) == len(sides) == 2
        if whole_leaf and not (number == first and item.ordering.verso_first):
            if whole and whole[-1] == number - 1:
                whole.append(number)
                continue
            _flush(scheme, whole, phrases)
            whole = [number]
            continue
        _flush(scheme, whole, phrases)
        whole = []
        phrases += [_side_phrase(scheme, number, side) for side in gone]
    _flush(scheme, whole, phrases)
    order = sorted(at)
    runs = _runs_of(missing, expected)
    where = ""
    if len(runs) == 1:
        before, after = _next_to(order, runs[0][0], -1), _next_to(order, runs[0][-1], 1)
        b = at[before].provenance.rel if before else None
        a = at[after].provenance.rel if after else None
        where = f" between {b} and {a}" if b and a else f" after {b}" if b else f" before {a}"
    shown = phrases[:_MAX_RUNS_SHOWN]
    more = len(phrases) - len(shown)
    text = _and(shown) if not more else f"{', '.join(shown)} and {more} more"
    plural = len(phrases) > 1 or phrases[0].startswith(("leaves", "openings"))
    verb = "are" if plural else "is"
    resolutions = [Resolution.ACCEPT, Resolution.SEQUENCE]
    words, options = "", []
    if (first, 0) in gone_at and (first, 1) in at:
        resolutions.append(Resolution.VERSO_FIRST)
        side = _SIDE_WORDS[scheme.kind][1]
        words += f" If the first page is a {side}, say so."
        options.append("--verso-first")
    if scheme.kind == _LEAVES and all(side == 1 for _, side in missing):
        resolutions.append(Resolution.VERSOS_BLANK)
        words += " If the versos are blank and were not scanned, say so."
        options.append("--versos-blank")
    neighbours = [
        at[p]
        for run in runs
        for p in (_next_to(order, run[0], -1), _next_to(order, run[-1], 1))
        if p is not None
    ]
    return Ambiguity.of(
        AmbiguityCode.MISSING_LEAF,
        item,
        f"{text[0].upper()}{text[1:]} {verb} missing{where}.{words} Add the missing pages and "
        "plan again, give the order, or accept the order as it is.",
        _imported(item, neighbours),
        resolutions,
        ", ".join([*options, _SEQUENCE_HINT]),
    )


def _flush(scheme: _Scheme, whole: list[int], phrases: list[str]) -> None:
    if not whole:
        return
    unit = _UNIT_WORDS[scheme.kind]
    if len(whole) == 1:
        n = whole[0]
        phrases.append(f"{unit} {n} ({scheme.position(n, 0)} and {scheme.position(n, 1)})")
    else:
        units = "leaves" if unit == "leaf" else "openings"
        phrases.append(f"{units} {whole[0]}-{whole[-1]}")


def _runs_of(
    missing: list[tuple[int, int]], expected: list[tuple[int, int]]
) -> list[list[tuple[int, int]]]:
    """The missing places in runs of consecutive expected places."""
    index = {p: i for i, p in enumerate(expected)}
    runs: list[list[tuple[int, int]]] = []
    for p in missing:
        if runs and index[runs[-1][-1]] == index[p] - 1:
            runs[-1].append(p)
        else:
            runs.append([p])
    return runs


def _next_to(
    order: list[tuple[int, int]], place: tuple[int, int], step: int
) -> tuple[int, int] | None:
    """The place in ``order`` (sorted) just before (``step`` -1) or after ``place``."""
    if step < 0:
        k = bisect.bisect_left(order, place)
        return order[k - 1] if k > 0 else None
    k = bisect.bisect_right(order, place)
    return order[k] if k < len(order) else None


# -- duplex passes -------------------------------------------------------------------------


@dataclass(frozen=True)
class Passes:
    """A folder scanned as two passes: every front, then every back."""

    fronts: tuple[PlanSource, ...]  # in the order the first pass scanned them
    backs: tuple[PlanSource, ...]  # in the order the second pass scanned them
    how: str  # what tells it, in words: "their names", "two counters", "their capture times"


# Two runs of capture times: the pause between them this many times the longest pause
# inside a run, and at least this many seconds.
_PASS_PAUSE_RATIO = 5
_PASS_PAUSE_SECONDS = 60


def duplex_passes(images: Sequence[PlanSource]) -> Passes | None:
    """The two passes of a duplex scan these images look like, or None.

    By name (``front_001`` ... ``back_001`` ..., ``odd``/``even``, or folders so named:
    every file is one or the other, at least two of each); by two counters (two name
    prefixes, each numbering the same run, as many of each: ``A_001..A_005``,
    ``B_001..B_005``); or by capture times in two runs of equal length with a long pause
    between them. Each pass is in its own order (by number, else by name).
    """
    if len(images) < 4:
        return None
    return _passes_by_name(images) or _two_counters(images) or _two_time_runs(images)


def _passes_by_name(images: Sequence[PlanSource]) -> Passes | None:
    fronts, backs = [], []
    for s in images:
        words = {m.group(1).casefold().rstrip("s") for m in _PASS.finditer(_stem_path(s))}
        if words in ({"front"}, {"odd"}):
            fronts.append(s)
        elif words in ({"back"}, {"even"}):
            backs.append(s)
        else:
            return None
    if len(fronts) < 2 or len(backs) < 2:
        return None
    return Passes(_in_pass_order(fronts), _in_pass_order(backs), "their names")


def _stem_path(s: PlanSource) -> str:
    rel = s.provenance.rel
    return rel.rsplit(".", 1)[0] if "." in rel.rsplit("/", 1)[-1] else rel


def _in_pass_order(sources: Sequence[PlanSource]) -> tuple[PlanSource, ...]:
    return tuple(sorted(sources, key=lambda s: ((page_number(s.name) or (0, ""))[0], _name_key(s))))


def _two_counters(images: Sequence[PlanSource]) -> Passes | None:
    groups: dict[str, list[tuple[int, PlanSource]]] = {}
    for s in images:
        name = _name_of(s)
        number = page_number(s.name)
        if name.kind not in (_PAGES, _COUNTERS) or number is None:
            return None
        stem = PurePosixPath(s.name).stem
        prefix = stem[: stem.rindex(number[1])].strip(" _.-").casefold()
        groups.setdefault(prefix, []).append((number[0], s))
    if len(groups) != 2:
        return None
    (pa, a), (pb, b) = sorted(groups.items(), key=lambda kv: natural_key(kv[0]))
    if len(a) != len(b) or len(a) < 2:
        return None
    ra, rb = {n for n, _ in a}, {n for n, _ in b}
    if max(ra) < min(rb) or max(rb) < min(ra):
        return None  # one run that changes its prefix half way, not two counters
    first, second = (
        [s for _, s in sorted(a, key=lambda x: x[0])],
        [s for _, s in sorted(b, key=lambda x: x[0])],
    )
    ta, tb = _captured(first[0]), _captured(second[0])
    if ta is not None and tb is not None and tb < ta:
        first, second = second, first
    return Passes(tuple(first), tuple(second), "two counters")


def _two_time_runs(images: Sequence[PlanSource]) -> Passes | None:
    if len(images) % 2:
        return None
    times = []
    for s in images:
        t = _seconds(s)
        if t is None:
            return None
        times.append((t, s))
    times.sort(key=lambda x: x[0])
    pauses = [b[0] - a[0] for a, b in zip(times, times[1:], strict=False)]
    half = len(times) // 2
    middle = pauses[half - 1]
    others = pauses[: half - 1] + pauses[half:]
    if middle < _PASS_PAUSE_SECONDS or middle < _PASS_PAUSE_RATIO * max(others, default=0):
        return None
    return Passes(
        tuple(s for _, s in times[:half]), tuple(s for _, s in times[half:]), "their capture times"
    )


def _seconds(source: PlanSource) -> float | None:
    value = _captured(source)
    if value is None:
        return None
    try:
        when = datetime.datetime.fromisoformat(value)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    return when.timestamp()


def _duplex(item: PlanItem, passes: Passes) -> Ambiguity:
    """Fronts, then backs: interleave them (the backs reversed, if the pass ran backwards)."""
    f, b = passes.fronts, passes.backs
    counts = f"{_count(len(f), 'front')} ({f[0].provenance.rel} first) and "
    counts += f"{_count(len(b), 'back')} ({b[0].provenance.rel} first)"
    resolutions: tuple[Resolution, ...]
    if len(f) == len(b):
        resolutions = (
            Resolution.INTERLEAVE,
            Resolution.INTERLEAVE_REVERSED,
            Resolution.SEQUENCE,
            Resolution.ACCEPT,
        )

        # A preview of the first pairs each way, so the right one can be told at a glance.
        def pairs(backs: Sequence[PlanSource]) -> str:
            shown = [f"{x.name} + {y.name}" for x, y in zip(f[:2], backs[:2], strict=False)]
            return ", ".join(shown) + (", …" if len(f) > 2 else "")

        also = f" Interleaved: {pairs(b)}; with the backs reversed: {pairs(list(reversed(b)))}."
    else:
        resolutions = (Resolution.SEQUENCE, Resolution.ACCEPT)
        also = " The counts differ, so a page is missing from one pass; add it and plan again."
    return Ambiguity.of(
        AmbiguityCode.DUPLEX_PASSES,
        item,
        f"By {passes.how}, these pages look like two passes of a duplex scan: {counts}.{also} "
        "Interleave them front, back, front…, interleave them with the backs in reverse, "
        "give the order, or accept the order as it is.",
        _imported(item, (*f, *b)),
        resolutions,
        f"--by interleave, --by interleave-reversed, {_SEQUENCE_HINT}",
    )


@dataclass(frozen=True)
class _Numbered:
    source: PlanSource
    shown: int  # as the name has it
    value: int  # in page order: past a counter rollover, 0001 counts after 9999


@dataclass(frozen=True)
class _Wrap:
    threshold: int  # numbers below it were written after the counter wrapped
    offset: int  # added to those, they count on from the top of the counter
    span: int  # 10**width: the counter's range


@dataclass(frozen=True)
class _Numbering:
    numbered: tuple[_Numbered, ...]  # in the item's current order
    wrap: _Wrap | None = None

    @classmethod
    def of(cls, images: Sequence[PlanSource], *, counter: bool = False) -> _Numbering:
        raw = [(s, n) for s in images if (n := page_number(s.name)) is not None]
        if len(raw) < 2:  # one number is no sequence
            return cls(())
        wrap = _counter_wrap(raw, counter)
        threshold, offset = (wrap.threshold, wrap.offset) if wrap is not None else (0, 0)
        return cls(
            tuple(_Numbered(s, v, v + offset if v < threshold else v) for s, (v, _) in raw),
            wrap,
        )

    @property
    def rollover(self) -> tuple[_Numbered, _Numbered] | None:
        """(the last number before the counter wrapped, the first after it)."""
        if self.wrap is None:
            return None
        threshold = self.wrap.threshold
        last = max((n for n in self.numbered if n.shown >= threshold), key=lambda n: n.value)
        first = min((n for n in self.numbered if n.shown < threshold), key=lambda n: n.value)
        return last, first

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
    low = [t for s, (v, _) in raw if v < threshold and (t := _captured(s)) is not None]
    high = [t for s, (v, _) in raw if v >= threshold and (t := _captured(s)) is not None]
    if low and high and max(low) < min(high):
        return None
    # Capture times that put every low number after every high one settle it even for a
    # run so long that its gap is narrower than half the counter.
    if gap <= span // 2 and not counter and not (low and high and min(low) > max(high)):
        return None
    # Cameras count 0001..9999 then 0001 again (DCF); one that writes 0000 goes on from it.
    return _Wrap(threshold, span - 1 if values[0] >= 1 else span, span)


def _counter_rolled_over(earlier: PlanSource, later: PlanSource) -> bool:
    """Whether ``later`` (taken after ``earlier``) carries a counter that wrapped around."""
    a, b = page_number(earlier.name), page_number(later.name)
    if a is None or b is None or len(a[1]) != len(b[1]) or len(a[1]) < 3:
        return False
    span = 10 ** len(a[1])
    return bool(a[0] >= span - span // 10 and b[0] < span // 10)


def _duplicate_numbers(item: PlanItem, numbering: _Numbering) -> list[Ambiguity]:
    by_value: dict[int, list[_Numbered]] = {}
    for n in numbering.numbered:
        if n.source.imported:  # a file left out claims nothing
            by_value.setdefault(n.value, []).append(n)
    found = []
    for group in by_value.values():
        if len(group) < 2:
            continue
        sources = [n.source for n in group]
        names = _and([s.provenance.rel for s in sources])
        claim = "both claim" if len(group) == 2 else "all claim"
        resolutions = [Resolution.EXCLUDE, Resolution.SEQUENCE, Resolution.ACCEPT]
        times = [_captured(s) for s in sources]
        if None not in times and len(set(times)) == len(times):
            resolutions.insert(2, Resolution.CAPTURE_TIME)
        found.append(
            Ambiguity.of(
                AmbiguityCode.DUPLICATE_NUMBER,
                item,
                f"{names} {claim} page {group[0].shown}. Exclude the extra one, give the order, "
                f"or accept the proposed order ({sources[0].provenance.rel} first).",
                tuple(s.source_id for s in sources),
                resolutions,
                _SEQUENCE_HINT,
            )
        )
    return found


def _missing_numbers(item: PlanItem, numbering: _Numbering) -> Ambiguity | None:
    first_with: dict[int, _Numbered] = {}
    for n in numbering.numbered:
        first_with.setdefault(n.value, n)
    values = sorted(first_with)
    gaps = [(a, b) for a, b in zip(values, values[1:], strict=False) if b - a > 1]
    if not gaps:
        return None
    runs: list[tuple[int, int]] = []
    for a, b in gaps:
        lo, hi = a + 1, b - 1
        # Counted, never listed one by one: a gap can be millions wide.
        span = numbering.wrap.span if numbering.wrap is not None else hi + 1
        pieces = [(lo, span - 1), (span, hi)] if lo < span <= hi else [(lo, hi)]
        runs += [(numbering.shown(x), numbering.shown(y)) for x, y in pieces]
    count = sum(hi - lo + 1 for lo, hi in runs)
    texts = [str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in runs]
    if len(texts) > _MAX_RUNS_SHOWN:
        listed = sum(hi - lo + 1 for lo, hi in runs[:_MAX_RUNS_SHOWN])
        pages = f"Pages {', '.join(texts[:_MAX_RUNS_SHOWN])} and {count - listed} more"
    else:
        pages = f"Page {texts[0]}" if count == 1 else f"Pages {_and(texts)}"
    verb = "is" if count == 1 else "are"
    if len(gaps) == 1:
        a, b = gaps[0]
        where = f" between {first_with[a].source.provenance.rel} and "
        where += first_with[b].source.provenance.rel
    else:
        where = ""
    neighbours = _imported(
        item, (s for a, b in gaps for s in (first_with[a].source, first_with[b].source))
    )
    return Ambiguity.of(
        AmbiguityCode.MISSING_INDEX,
        item,
        f"{pages} {verb} missing{where}. Add the missing pages and plan again, give the "
        "order, or accept the order as it is.",
        neighbours,
        (Resolution.ACCEPT, Resolution.SEQUENCE),
        _SEQUENCE_HINT,
    )


def _mixed_media(item: PlanItem, sources: Sequence[PlanSource]) -> Ambiguity | None:
    pdfs = [s for s in sources if s.media_type == PDF]
    n_images = len(sources) - len(pdfs)
    if not pdfs or not n_images:
        return None
    which = f" ({_and([s.provenance.rel for s in pdfs])})" if len(pdfs) <= 3 else ""
    return Ambiguity.of(
        AmbiguityCode.MIXED_MEDIA,
        item,
        f"This notebook mixes {_count(len(pdfs), 'PDF')}{which} and "
        f"{_count(n_images, 'image')}: say where the PDF pages go or accept the proposed "
        "order.",
        tuple(s.source_id for s in pdfs),
        (Resolution.SEQUENCE, Resolution.EXCLUDE, Resolution.ACCEPT),
        _SEQUENCE_HINT,
    )


def _capture_time_conflict(item: PlanItem, images: Sequence[PlanSource]) -> Ambiguity | None:
    # A cover's place comes from its name, a person's word; when it was photographed
    # (often last, after the pages) says nothing about where it belongs.
    dated = [s for s in images if _captured(s) is not None and not is_cover_name(s.name)]
    by_time = sorted(dated, key=lambda s: _captured(s) or "")  # stable: ties keep their order
    if [s.source_id for s in by_time] == [s.source_id for s in dated]:
        return None
    position = {s.source_id: i for i, s in enumerate(dated)}
    earlier, later = next(
        (x, y)
        for x, y in zip(by_time, by_time[1:], strict=False)
        if position[y.source_id] < position[x.source_id]
    )
    x, y = earlier.provenance.rel, later.provenance.rel
    order = _order_words(item)
    displaced = [a.source_id for a, b in zip(dated, by_time, strict=True) if a is not b]
    if _counter_rolled_over(earlier, later):
        why = f"{y} was taken after {x}: the camera counter rolled over."
    else:
        why = f"{y} was taken after {x}, but {order} puts it first."
        if len(displaced) > 2:
            why += f" {len(displaced)} photos are out of capture-time order."
    return Ambiguity.of(
        AmbiguityCode.CONFLICTING_CUES,
        item,
        f"{why} Choose capture-time order, or accept {order}.",
        _unique([earlier.source_id, later.source_id, *displaced]),
        (Resolution.CAPTURE_TIME, Resolution.SEQUENCE, Resolution.ACCEPT),
    )


def _rollover_by_numbers(item: PlanItem, numbering: _Numbering) -> Ambiguity | None:
    """A counter rollover seen in the names alone (no capture times to tell it)."""
    if numbering.rollover is None:
        return None
    last, first = numbering.rollover
    position = {s.source_id: i for i, s in enumerate(item.sources)}
    if position[first.source.source_id] > position[last.source.source_id]:
        return None  # already in counter order
    x, y = last.source.provenance.rel, first.source.provenance.rel
    order = _order_words(item)
    return Ambiguity.of(
        AmbiguityCode.CONFLICTING_CUES,
        item,
        f"{y} probably comes after {x}: the camera counter rolled over, but {order} puts "
        f"it first. Give the order, order by modification time, or accept {order}.",
        _imported(item, (first.source, last.source)),
        (Resolution.SEQUENCE, Resolution.MTIME, Resolution.ACCEPT),
        _SEQUENCE_HINT,
    )


def _captured(source: PlanSource) -> str | None:
    # A hand-edited plan can hold anything here; only an ISO string is a time.
    value = source.provenance.captured_at
    return value if isinstance(value, str) and value else None


def _order_words(item: PlanItem) -> str:
    if item.ordering.rule in (OrderingRule.NATURAL, OrderingRule.NAME):
        return "the name order"
    return "the current order"


def _and(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _unique(ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(ids))


def _imported(item: PlanItem, sources: Iterable[PlanSource]) -> tuple[str, ...]:
    """The ids of ``sources`` commit imports; a left-out neighbour is named in words only.

    Never empty while the item imports an image: an ambiguity concerns some source."""
    ids = _unique(s.source_id for s in sources if s.imported)
    return ids or _unique(s.source_id for s in item.imported_sources() if s.media_type != PDF)[:1]


# -- resolutions ---------------------------------------------------------------------------


def accept(item: PlanItem) -> PlanItem:
    """Take the current order as it is: a person looked and agreed."""
    return replace(item, ordering=replace(item.ordering, resolved=True))


def verso_first(item: PlanItem) -> PlanItem:
    """A person's word: the first page is a verso (a right-hand page), its recto not lost.

    Not a resolution of the whole order: every other gap is still told."""
    return replace(item, ordering=replace(item.ordering, verso_first=True))


def versos_blank(item: PlanItem) -> PlanItem:
    """A person's word: the versos are blank and were not scanned, so none is missing."""
    return replace(item, ordering=replace(item.ordering, versos_blank=True))


def interleave(item: PlanItem, *, backs_reversed: bool = False) -> PlanItem:
    """Put two duplex passes together: front 1, back 1, front 2, back 2...

    The passes are as ``duplex_passes`` finds them over every image (left-out ones keep
    their place in the pairs); a folder that does not look like two passes is taken as
    its current order cut in half. ``backs_reversed``: the second pass ran from the last
    sheet to the first, so the first front goes with the last back. A cover image stays
    first and a PDF goes after the pages. ValueError if fronts and backs differ in number.
    """
    images = [s for s in item.sources if s.media_type != PDF and not is_cover_name(s.name)]
    passes = duplex_passes(images)
    if passes is None:
        half = (len(images) + 1) // 2
        passes = Passes(tuple(images[:half]), tuple(images[half:]), "the order cut in half")
    fronts, backs = list(passes.fronts), list(passes.backs)
    if len(fronts) != len(backs) or not fronts:
        raise ValueError(
            f"{item.label}: {_count(len(fronts), 'front')} but {_count(len(backs), 'back')} "
            f"(by {passes.how}): fronts and backs must pair up. Add the missing page and plan "
            "again, or give the order (--sequence)."
        )
    if backs_reversed:
        backs.reverse()
    pairs = [s for pair in zip(fronts, backs, strict=True) for s in pair]
    paired = {s.source_id for s in pairs}
    covers = [s for s in item.sources if s.source_id not in paired and s.media_type != PDF]
    rest = [s for s in item.sources if s.source_id not in paired and s.media_type == PDF]
    rule = OrderingRule.INTERLEAVE_REVERSED if backs_reversed else OrderingRule.INTERLEAVE
    return replace(
        item,
        sources=tuple(covers + pairs + rest),
        ordering=replace(item.ordering, rule=rule, resolved=True),
    )


def order_by(item: PlanItem, rule: OrderingRule | str) -> PlanItem:
    """Reorder every source (excluded ones too) by ``rule`` and record it as resolved.

    NAME is strictly the natural order of the names (a cover is not lifted: the person
    asked for name order); NATURAL is the proposed order. CAPTURE_TIME puts sources
    without a capture time after the others, in name order; MTIME breaks ties by name.
    """
    rule = OrderingRule(rule)
    by_name = sorted(item.sources, key=_name_key)
    if rule is OrderingRule.NATURAL:
        new = propose_order(item.sources)
    elif rule is OrderingRule.NAME:
        new = by_name
    elif rule is OrderingRule.CAPTURE_TIME:
        dated = [s for s in by_name if _captured(s) is not None]
        if not dated:
            # Said, not done silently: "by capture time" would only be name order here.
            raise ValueError(
                "none of these pages has a capture time (no EXIF date), so they cannot be "
                "put in the order they were taken; order them by name or by modification "
                "time instead"
            )
        new = sorted(dated, key=lambda s: _captured(s) or "")
        new += [s for s in by_name if _captured(s) is None]
    elif rule is OrderingRule.MTIME:
        new = sorted(by_name, key=lambda s: s.provenance.mtime_ns)
    elif rule in (OrderingRule.INTERLEAVE, OrderingRule.INTERLEAVE_REVERSED):
        return interleave(item, backs_reversed=rule is OrderingRule.INTERLEAVE_REVERSED)
    else:
        raise ValueError("a sequence is given source by source: use sequence()")
    return replace(
        item, sources=tuple(new), ordering=replace(item.ordering, rule=rule, resolved=True)
    )


def sequence(item: PlanItem, names: Sequence[str]) -> PlanItem:
    """The whole order as a person gives it; sources it leaves out are excluded.

    Left-out sources stay listed after the given ones, in their current order, so
    ``include`` can bring them back. A multi-page source is one name: its pages stay
    together in their own order.
    """
    if not names:
        raise ValueError(
            f"{item.label}: a sequence needs at least one source; to leave them all out, "
            "exclude them."
        )
    chosen = _indices(item, names)
    listed = [replace(item.sources[i], excluded=False) for i in chosen]
    given = set(chosen)
    left = [replace(s, excluded=True) for i, s in enumerate(item.sources) if i not in given]
    return replace(
        item,
        sources=tuple(listed + left),
        ordering=replace(item.ordering, rule=OrderingRule.SEQUENCE, resolved=True),
    )


def exclude(item: PlanItem, names: Sequence[str]) -> PlanItem:
    """Leave those sources out of the commit, in place; the ordering is not resolved by it."""
    return _set_excluded(item, names, True)


def include(item: PlanItem, names: Sequence[str]) -> PlanItem:
    """Undo ``exclude``: those sources are imported again, where they stand."""
    return _set_excluded(item, names, False)


def _set_excluded(item: PlanItem, names: Sequence[str], excluded: bool) -> PlanItem:
    chosen = set(_indices(item, names))
    return replace(
        item,
        sources=tuple(
            replace(s, excluded=excluded) if i in chosen else s for i, s in enumerate(item.sources)
        ),
    )


def move(item: PlanItem, rows: Sequence[int], to_row: int) -> PlanItem:
    """Move the sources at ``rows`` so they land before ``to_row``, keeping their order.

    Rows index ``item.sources`` before the move, as Qt's dropMimeData gives them
    (``to_row == len(sources)`` drops at the end); the rows need not be contiguous.
    A move that changes nothing returns the item unchanged: a drop in place is not a
    decision about the order.
    """
    n = len(item.sources)
    picked = sorted(set(rows))
    if any(not 0 <= r < n for r in picked) or not 0 <= to_row <= n:
        raise ValueError(f"{item.label}: cannot move rows {list(rows)} to row {to_row} of {n}")
    moving = [item.sources[r] for r in picked]
    moved = set(picked)
    rest = [s for i, s in enumerate(item.sources) if i not in moved]
    at = to_row - sum(1 for r in picked if r < to_row)
    new = tuple(rest[:at] + moving + rest[at:])
    if all(a is b for a, b in zip(new, item.sources, strict=True)):
        return item
    return replace(
        item,
        sources=new,
        ordering=replace(item.ordering, rule=OrderingRule.SEQUENCE, resolved=True),
    )


def source_by_name(item: PlanItem, name: str) -> PlanSource:
    """The source a person means: its path as validate shows it, or its base name if unique."""
    return item.sources[_SourceNames(item).index(name)]


class _SourceNames:
    """Looks names up in one item; built once per call, so a long sequence stays linear."""

    def __init__(self, item: PlanItem) -> None:
        self.item = item
        self.by_rel: dict[str, list[int]] = {}
        self.by_base: dict[str, list[int]] = {}
        for i, s in enumerate(item.sources):
            self.by_rel.setdefault(unicodedata.normalize("NFC", s.provenance.rel), []).append(i)
            self.by_base.setdefault(unicodedata.normalize("NFC", s.name), []).append(i)

    def index(self, name: str) -> int:
        # A person may type NFC where macOS stored NFD; both mean the same name.
        wanted = unicodedata.normalize("NFC", name)
        matches = self.by_rel.get(wanted) or self.by_base.get(wanted) or []
        label = self.item.label
        if not matches:
            raise ValueError(f"{label}: no source named {name!r}; use a name as validate shows it.")
        if len(matches) > 1:
            paths = _and([self.item.sources[i].provenance.rel for i in matches])
            raise ValueError(
                f"{label}: {name!r} could be {paths}; give the path as validate shows it."
            )
        return matches[0]


def _indices(item: PlanItem, names: Sequence[str]) -> list[int]:
    if isinstance(names, str):  # a lone name would otherwise be read letter by letter
        raise TypeError("names must be a sequence of names, not one string")
    lookup = _SourceNames(item)
    seen: dict[int, str] = {}
    for name in names:
        i = lookup.index(name)
        if i in seen:
            same = "twice" if seen[i] == name else f"twice (as {seen[i]!r} and {name!r})"
            raise ValueError(f"{item.label}: {item.sources[i].provenance.rel} is given {same}.")
        seen[i] = name
    return list(seen)
