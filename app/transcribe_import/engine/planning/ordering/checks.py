"""The ambiguities of an item's page order: each check one function, with its code and words.

Each ambiguity says in words what a person can do (face-neutral: no CLI option in them);
the CLI's options for that advice are its ``hint``.
"""

from __future__ import annotations

import bisect
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from transcribe_import.engine.base.text import counted
from transcribe_import.engine.media.kinds import PDF
from transcribe_import.engine.planning.ordering.duplex import Passes, duplex_passes
from transcribe_import.engine.planning.ordering.names import (
    COUNTERS,
    LEAVES,
    MIXED,
    NONE,
    OPENINGS,
    PAGES,
    TIMES,
    Numbered,
    Numbering,
    Scheme,
    and_list,
    by_capture_time,
    captured,
    copy_of,
    counter_rolled_over,
    is_cover_name,
    page_number,
    reading_matters,
    scheme_of,
    side_letters,
    two_readings,
)
from transcribe_import.engine.planning.plan import OrderingRule, PlanItem, PlanSource
from transcribe_import.engine.planning.problems import (
    AmbiguityCode,
    ProblemSeverity,
    Resolution,
    ValidationReport,
    file_name,
    files_of,
)

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
    CLI's options apart, the concerned files named as ``problems.file_name`` names them.
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


def ambiguities_told(report: ValidationReport, item_id: str) -> list[Ambiguity]:
    """``find_ambiguities`` of an item, read back from ``report``: validate's report of the
    plan holding the item as it is, which tells each of them as an error. A face reads them
    there instead of reading every name again (0.25 s for a notebook of 5,000 pages)."""
    return [
        Ambiguity(p.code, p.item_id, p.message, p.source_ids, p.resolutions, p.hint, p.files)
        for p in report.for_item(item_id)
        if p.severity is ProblemSeverity.ERROR and isinstance(p.code, AmbiguityCode)
    ]


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
    scheme = scheme_of(images)
    numbering: Numbering | None = None  # made once, by the first check that reads it
    # Passes are what was scanned: a back left out still counts (interleave keeps its place).
    passes = duplex_passes([s for s in placed if not is_cover_name(s.name)]) if images else None
    if passes is not None:
        found.append(_duplex(item, passes))
    else:
        if scheme.kind == NONE:
            found += _no_order_cue(item, scheme)
        elif scheme.kind == MIXED:
            found.append(_mixed_schemes(item, scheme))
        elif scheme.kind in (LEAVES, OPENINGS):
            found += _duplicate_sides(item, scheme)
            gap = _missing_sides(item, scheme, scheme_of(placed, letters=scheme.letters))
            if gap is not None:
                found.append(gap)
        elif scheme.kind in (PAGES, COUNTERS):
            numbering = Numbering.of(placed, counter=scheme.kind == COUNTERS)
            found += _duplicate_numbers(item, numbering)
            if scheme.kind == PAGES:  # a skip in a camera's counter is a deleted frame
                missing = _missing_numbers(item, numbering)
                if missing is not None:
                    found.append(missing)
    dates = _ambiguous_dates(item, sources, scheme) if passes is None else None
    if dates is not None:
        found.append(dates)
    mixed = _mixed_media(item, sources)
    if mixed is not None:
        found.append(mixed)
    if passes is None:
        if numbering is None:
            numbering = Numbering.of(placed, counter=scheme.kind == COUNTERS)
        cue = _capture_time_conflict(item, images) or _rollover_by_numbers(item, numbering)
        if cue is not None:
            found.append(cue)
    return found


# The words of each scheme, for messages: one place.
_SCHEME_WORDS = {
    PAGES: "page numbers",
    COUNTERS: "camera counters",
    LEAVES: "leaves and sides",
    OPENINGS: "openings (left and right pages)",
    TIMES: "dates and times",
    NONE: "no number",
}
_SIDE_WORDS = {LEAVES: ("recto", "verso"), OPENINGS: ("left page", "right page")}
_UNIT_WORDS = {LEAVES: "leaf", OPENINGS: "opening"}


def _no_order_cue(item: PlanItem, scheme: Scheme) -> list[Ambiguity]:
    """Names that carry no number: their name order would be a guess."""
    sources = [n.source for n in scheme.names]
    if by_capture_time(sources):
        return []  # the capture times give the order; _capture_time_conflict checks it
    times = [captured(s) for s in sources]
    resolutions = [Resolution.SEQUENCE, Resolution.MTIME, Resolution.ACCEPT]
    if any(t is not None for t in times):
        resolutions.insert(0, Resolution.CAPTURE_TIME)
    return [
        Ambiguity.of(
            AmbiguityCode.NO_ORDER_CUE,
            item,
            f"No page numbers in the names of these {len(sources)} files "
            f"({_some([file_name(s) for s in sources])}), so their order would be a "
            "guess. Order them by capture time or modification time, give the order, or "
            "accept the name order.",
            tuple(s.source_id for s in sources),
            resolutions,
            _SEQUENCE_HINT,
        )
    ]


def _mixed_schemes(item: PlanItem, scheme: Scheme) -> Ambiguity:
    """Names numbered two ways at once (1, 2, 3, a, b; 1r 1v 2 3): no one order follows."""
    groups: dict[str, list[str]] = {}
    for n in scheme.names:
        key = n.kind if n.kind != LEAVES else "leaves and sides"
        groups.setdefault(key, []).append(file_name(n.source))
    parts = [f"{_SCHEME_WORDS.get(k, k)} ({_some(v)})" for k, v in groups.items()]
    resolutions = [Resolution.EXCLUDE, Resolution.SEQUENCE, Resolution.MTIME, Resolution.ACCEPT]
    if any(captured(n.source) for n in scheme.names):
        resolutions.insert(1, Resolution.CAPTURE_TIME)
    return Ambiguity.of(
        AmbiguityCode.MIXED_SCHEMES,
        item,
        f"The names follow {len(parts)} numbering schemes at once: {and_list(parts)}, so no "
        "one order follows from them. Exclude the files that do not belong, give the order, "
        "or accept the name order.",
        tuple(n.source.source_id for n in scheme.names),
        resolutions,
        _SEQUENCE_HINT,
    )


def _ambiguous_dates(
    item: PlanItem, sources: Sequence[PlanSource], scheme: Scheme
) -> Ambiguity | None:
    """Numeric dates that read two ways (03.04.1931), in a folder whose order depends on it."""
    reading = reading_matters(sources, scheme)
    if reading is None:
        return None
    first = reading.ambiguous[0]
    day_first, month_first = two_readings(first) or ("", "")
    by_name = {s.name: s for s in sources}
    concerned = [by_name[n] for n in reading.ambiguous if n in by_name]
    others = len(concerned) - 1
    also = f" The dates of {counted(others, 'other file')} read both ways too." if others else ""
    return Ambiguity.of(
        AmbiguityCode.AMBIGUOUS_DATE,
        item,
        f"The date in {file_name(concerned[0])} could be {day_first} (day first) or "
        f"{month_first} (month first), and no date in these names tells which (none has a "
        f"day above 12), so the order depends on it.{also} The proposed order reads the "
        "dates day first. Accept that order or give the order.",
        tuple(s.source_id for s in concerned),
        (Resolution.ACCEPT, Resolution.SEQUENCE, Resolution.MTIME),
        _SEQUENCE_HINT,
    )


def _some(names: Sequence[str], shown: int = 3) -> str:
    if len(names) <= shown:
        return and_list(list(names))
    return f"{', '.join(names[:shown])} and {len(names) - shown} more"


# -- leaves and sides ----------------------------------------------------------------------


def _duplicate_sides(item: PlanItem, scheme: Scheme) -> list[Ambiguity]:
    """Two files claiming one side of one leaf (12r.jpg and f. 12r.jpg)."""
    by_place: dict[tuple[int, int], list[PlanSource]] = {}
    for n in scheme.names:
        by_place.setdefault((n.number, scheme.side_of(n)), []).append(n.source)
    found = []
    for (number, side), sources in by_place.items():
        if len(sources) < 2:
            continue
        found.append(
            Ambiguity.of(
                AmbiguityCode.DUPLICATE_NUMBER,
                item,
                f"{_claims(sources, _side_phrase(scheme, number, side))}. Exclude the extra "
                "one, give the order, "
                f"or accept the proposed order ({file_name(sources[0])} first).",
                tuple(s.source_id for s in sources),
                (Resolution.EXCLUDE, Resolution.SEQUENCE, Resolution.ACCEPT),
                _SEQUENCE_HINT,
            )
        )
    return found


def _claims(sources: Sequence[PlanSource], place: str) -> str:
    """Files claiming one place, in words; a copy named as a copy of its original.

    "page 3.jpg and p3.jpg both claim page 3"; "page 3 (1).jpg looks like a copy of
    page 3.jpg: both claim page 3" (``copy_of``: a copy's name is its original's and
    " (1)", " - Copy", " copy 2", in the same folder); with a file that is no copy among
    them, every file is named in the claim too.
    """
    by_stem = {_stem_key(s, PurePosixPath(s.name).stem): s for s in sources}
    copies: dict[str, list[PlanSource]] = {}  # by the original's source id
    for s in sources:
        base = copy_of(s.name)
        original = by_stem.get(_stem_key(s, base)) if base is not None else None
        if original is not None and original is not s:
            copies.setdefault(original.source_id, []).append(s)
    claim = "both claim" if len(sources) == 2 else "all claim"
    if not copies:
        return f"{and_list([file_name(s) for s in sources])} {claim} {place}"
    by_id = {s.source_id: s for s in sources}
    phrases = [
        f"{and_list([file_name(c) for c in cs])} "
        f"{'looks like a copy' if len(cs) == 1 else 'look like copies'} of "
        f"{file_name(by_id[original])}"
        for original, cs in copies.items()
    ]
    named = set(copies) | {c.source_id for cs in copies.values() for c in cs}
    if len(named) == len(sources):
        return f"{'; '.join(phrases)}: {claim} {place}"
    # Some files are no copy of another: every one named in the claim.
    return f"{'; '.join(phrases)}; {and_list([file_name(s) for s in sources])} {claim} {place}"


def _stem_key(source: PlanSource, stem: str) -> tuple[str, str]:
    """A stem in the source's folder, as two names are told the same (case, NFC aside)."""
    folder = source.provenance.rel.rpartition("/")[0]
    return folder, unicodedata.normalize("NFC", stem).casefold()


def _side_phrase(scheme: Scheme, number: int, side: int) -> str:
    unit, words = _UNIT_WORDS[scheme.kind], _SIDE_WORDS[scheme.kind]
    return f"the {words[side]} of {unit} {number} ({scheme.position(number, side)})"


def _missing_sides(item: PlanItem, scheme: Scheme, placed: Scheme) -> Ambiguity | None:
    """A leaf, or a side of one, that is not there: told as leaves and sides.

    Every leaf from the first to the last has both sides (an opening its left and right
    page), unless the person said that the first page is a verso (the first leaf starts
    at its second side) or that the versos are blank and were not scanned. ``placed`` is
    read from every image, left-out ones too: a file left out on purpose opens no gap.
    """
    at: dict[tuple[int, int], PlanSource] = {}
    for n in placed.names:
        if n.kind == LEAVES and side_letters({n.side}) in ("", scheme.letters):
            at.setdefault((n.number, scheme.side_of(n)), n.source)
        elif n.kind == LEAVES and scheme.letters == "LR" and n.side == "r":
            at.setdefault((n.number, 1), n.source)
    first = min(number for number, _ in at)
    last = max(number for number, _ in at)
    rectos_only = item.ordering.versos_blank and scheme.kind == LEAVES
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
        b = file_name(at[before]) if before else None
        a = file_name(at[after]) if after else None
        where = f" between {b} and {a}" if b and a else f" after {b}" if b else f" before {a}"
    shown = phrases[:_MAX_RUNS_SHOWN]
    more = len(phrases) - len(shown)
    text = and_list(shown) if not more else f"{', '.join(shown)} and {more} more"
    plural = len(phrases) > 1 or phrases[0].startswith(("leaves", "openings"))
    verb = "are" if plural else "is"
    resolutions = [Resolution.ACCEPT, Resolution.SEQUENCE]
    words, options = "", []
    if (first, 0) in gone_at and (first, 1) in at:
        resolutions.append(Resolution.VERSO_FIRST)
        side = _SIDE_WORDS[scheme.kind][1]
        words += f" If the first page is a {side}, say so."
        options.append("--verso-first")
    if scheme.kind == LEAVES and all(side == 1 for _, side in missing):
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


def _flush(scheme: Scheme, whole: list[int], phrases: list[str]) -> None:
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


def _duplex(item: PlanItem, passes: Passes) -> Ambiguity:
    """Fronts, then backs: interleave them (the backs reversed, if the pass ran backwards)."""
    f, b = passes.fronts, passes.backs
    counts = f"{counted(len(f), 'front')} ({file_name(f[0])} first) and "
    counts += f"{counted(len(b), 'back')} ({file_name(b[0])} first)"
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


# -- page numbers and counters ------------------------------------------------------------


def _duplicate_numbers(item: PlanItem, numbering: Numbering) -> list[Ambiguity]:
    by_value: dict[int, list[Numbered]] = {}
    for n in numbering.numbered:
        if n.source.imported:  # a file left out claims nothing
            by_value.setdefault(n.value, []).append(n)
    found = []
    for group in by_value.values():
        if len(group) < 2:
            continue
        sources = [n.source for n in group]
        resolutions = [Resolution.EXCLUDE, Resolution.SEQUENCE, Resolution.ACCEPT]
        times = [captured(s) for s in sources]
        if None not in times and len(set(times)) == len(times):
            resolutions.insert(2, Resolution.CAPTURE_TIME)
        found.append(
            Ambiguity.of(
                AmbiguityCode.DUPLICATE_NUMBER,
                item,
                f"{_claims(sources, f'page {group[0].shown}')}. Exclude the extra one, give "
                f"the order, or accept the proposed order ({file_name(sources[0])} first).",
                tuple(s.source_id for s in sources),
                resolutions,
                _SEQUENCE_HINT,
            )
        )
    return found


def _missing_numbers(item: PlanItem, numbering: Numbering) -> Ambiguity | None:
    first_with: dict[int, Numbered] = {}
    for n in numbering.numbered:
        first_with.setdefault(n.value, n)

    # A file found with the number is not a missing page: one that cannot be imported
    # (encrypted, too large, broken) has its own problem saying what to do, and a PDF
    # named for a place among the pages (002.pdf between 001.jpg and 003.jpg) fills it, its
    # pages placed by the mixed-media question. A PDF's number elsewhere ("part 7.pdf"
    # after two pages) is no page number: it makes no gap.
    def values_of(names: Iterable[str]) -> set[int]:
        return {numbering.value_of(n[0]) for name in names if (n := page_number(name))}

    found = values_of(PurePosixPath(str(u.get("rel", ""))).name for u in item.unusable)
    if first_with:
        low, high = min(first_with), max(first_with)
        pdfs = values_of(s.name for s in item.sources if s.media_type == PDF)
        found |= {v for v in pdfs if low < v < high}
    values = sorted(set(first_with) | found)
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
        pages = f"Page {texts[0]}" if count == 1 else f"Pages {and_list(texts)}"
    verb = "is" if count == 1 else "are"
    if len(gaps) == 1 and gaps[0][0] in first_with and gaps[0][1] in first_with:
        a, b = gaps[0]
        where = f" between {file_name(first_with[a].source)} and "
        where += file_name(first_with[b].source)
    else:
        where = ""
    neighbours = _imported(
        item, (first_with[v].source for a, b in gaps for v in (a, b) if v in first_with)
    )
    return Ambiguity.of(
        AmbiguityCode.MISSING_INDEX,
        item,
        f"{pages} {verb} missing{where}. Add the missing pages and plan again, give the "
        "order, or accept the order as it is.",
        neighbours,
        (Resolution.ACCEPT, Resolution.SEQUENCE),
        "--accept",  # the order as it is, its gap said: what a person with no page to add does
    )


# -- media and capture times ---------------------------------------------------------------


def _mixed_media(item: PlanItem, sources: Sequence[PlanSource]) -> Ambiguity | None:
    pdfs = [s for s in sources if s.media_type == PDF]
    n_images = len(sources) - len(pdfs)
    if not pdfs or not n_images:
        return None
    which = f" ({and_list([file_name(s) for s in pdfs])})" if len(pdfs) <= 3 else ""
    return Ambiguity.of(
        AmbiguityCode.MIXED_MEDIA,
        item,
        f"This notebook mixes {counted(len(pdfs), 'PDF')}{which} and "
        f"{counted(n_images, 'image')}: say where the PDF pages go or accept the proposed "
        "order.",
        tuple(s.source_id for s in pdfs),
        (Resolution.SEQUENCE, Resolution.EXCLUDE, Resolution.ACCEPT),
        _SEQUENCE_HINT,
    )


def _capture_time_conflict(item: PlanItem, images: Sequence[PlanSource]) -> Ambiguity | None:
    # A cover's place comes from its name, a person's word; when it was photographed
    # (often last, after the pages) says nothing about where it belongs.
    dated = [s for s in images if captured(s) is not None and not is_cover_name(s.name)]
    by_time = sorted(dated, key=lambda s: captured(s) or "")  # stable: ties keep their order
    if [s.source_id for s in by_time] == [s.source_id for s in dated]:
        return None
    position = {s.source_id: i for i, s in enumerate(dated)}
    earlier, later = next(
        (x, y)
        for x, y in zip(by_time, by_time[1:], strict=False)
        if position[y.source_id] < position[x.source_id]
    )
    x, y = file_name(earlier), file_name(later)
    order = _order_words(item)
    displaced = [a.source_id for a, b in zip(dated, by_time, strict=True) if a is not b]
    if counter_rolled_over(earlier, later):
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


def _rollover_by_numbers(item: PlanItem, numbering: Numbering) -> Ambiguity | None:
    """A counter rollover seen in the names alone (no capture times to tell it)."""
    if numbering.rollover is None:
        return None
    last, first = numbering.rollover
    position = {s.source_id: i for i, s in enumerate(item.sources)}
    if position[first.source.source_id] > position[last.source.source_id]:
        return None  # already in counter order
    x, y = file_name(last.source), file_name(first.source)
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


def _order_words(item: PlanItem) -> str:
    if item.ordering.rule in (OrderingRule.NATURAL, OrderingRule.NAME):
        return "the name order"
    return "the current order"


def _unique(ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(ids))


def _imported(item: PlanItem, sources: Iterable[PlanSource]) -> tuple[str, ...]:
    """The ids of ``sources`` commit imports; a left-out neighbour is named in words only.

    Never empty while the item imports an image: an ambiguity concerns some source."""
    ids = _unique(s.source_id for s in sources if s.imported)
    return ids or _unique(s.source_id for s in item.imported_sources() if s.media_type != PDF)[:1]
