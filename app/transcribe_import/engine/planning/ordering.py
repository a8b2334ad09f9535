"""Page order of a plan item: the proposed natural order, its ambiguities, and their resolutions.

The contract (import runs, "Ordering ambiguity") lets natural sort be the *proposed*
order only. Anything a person could reasonably read two ways is reported by
``find_ambiguities`` as a value with a code, the item and the sources it concerns,
and stays a validate error until a person resolves it with one of the operations
below. Each resolution is recorded in the plan (``PlanItem.ordering`` and the
sources' order and ``excluded`` flags), so it is fingerprinted and survives a
reload. Pure functions over the frozen plan dataclasses: no I/O, no Qt. A little over
500 lines: the ambiguity checks and the resolutions share the name and number helpers
(``page_number``, ``_SourceNames``), and split apart each half would import the other.
"""

from __future__ import annotations

import enum
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from transcribe_import.engine.base.text import NaturalKey, natural_key
from transcribe_import.engine.media.kinds import PDF
from transcribe_import.engine.planning.plan import Ordering, OrderingRule, PlanItem, PlanSource

# The contract's cover heuristic names exactly these; cover PDFs are out of its scope.
COVER_NAMES = frozenset({"cover.jpg", "cover.jpeg", "cover.png"})

RESOLUTIONS = frozenset({"accept", "name", "capture_time", "mtime", "sequence", "exclude"})

# Missing-page messages list this many runs of numbers, then count the rest.
_MAX_RUNS_SHOWN = 10


class AmbiguityCode(enum.StrEnum):
    DUPLICATE_NUMBER = "duplicate_number"
    MISSING_INDEX = "missing_index"
    MIXED_MEDIA = "mixed_media"
    CONFLICTING_CUES = "conflicting_cues"


@dataclass(frozen=True)
class Ambiguity:
    """One reason an item's order cannot be taken as proposed; a validate error."""

    code: AmbiguityCode
    item_id: str
    message: str
    source_ids: tuple[str, ...]
    resolutions: tuple[str, ...]


# -- the proposed order --------------------------------------------------------------------


def is_cover_name(name: str) -> bool:
    """Whether a file's base name is one the contract's cover heuristic recognises."""
    return unicodedata.normalize("NFC", name).casefold() in COVER_NAMES


def propose_order(sources: Sequence[PlanSource]) -> list[PlanSource]:
    """The proposed order: natural order of ``provenance.rel``, any cover image first.

    A cover (``cover.jpg``/``.jpeg``/``.png``, any case) goes first because a person who
    named a file "cover" expects it to be page 1, wherever "cover" falls in the
    alphabet. This is only the position; the contract's cover heuristic sets
    ``cover_page_id`` to it separately, in the planner.
    """
    return sorted(sources, key=lambda s: (not is_cover_name(s.name), _name_key(s)))


def _name_key(source: PlanSource) -> NaturalKey:
    return natural_key(source.provenance.rel)


# -- finding ambiguities -------------------------------------------------------------------


def find_ambiguities(item: PlanItem) -> list[Ambiguity]:
    """Every ambiguity in the order of the item's imported sources; [] once resolved.

    Analysed in the item's current order, over the sources commit would import (an
    excluded source or a planned duplicate skip neither fills nor opens a gap).
    """
    if item.ordering.resolved:
        return []
    sources = item.imported_sources()
    images = [s for s in sources if s.media_type != PDF]
    numbering = _Numbering.of(images)
    found: list[Ambiguity] = []
    found += _duplicate_numbers(item, numbering)
    missing = _missing_numbers(item, numbering)
    if missing is not None:
        found.append(missing)
    mixed = _mixed_media(item, sources)
    if mixed is not None:
        found.append(mixed)
    cue = _capture_time_conflict(item, images) or _rollover_by_numbers(item, sources, numbering)
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
    def of(cls, images: Sequence[PlanSource]) -> _Numbering:
        raw = [(s, n) for s in images if (n := page_number(s.name)) is not None]
        if len(raw) < 2:  # one number is no sequence
            return cls(())
        wrap = _counter_wrap(raw)
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


def _counter_wrap(raw: list[tuple[PlanSource, tuple[int, str]]]) -> _Wrap | None:
    """How the numbers wrap, if the numbers look like a camera counter that rolled over.

    A camera counts 0001..9999 and starts again at 0001, so a shelf of photos can hold
    9998, 9999, 0001, 0002. Read as page numbers that is "pages 3-9997 are missing";
    it is really one run. The pattern: zero-padded numbers of one width (at least 3),
    the highest near the top of the range and the lowest near its bottom, the widest gap
    wider than half the range (or capture times saying the low numbers were taken last),
    and no capture times saying they were taken first. Numbers below the threshold (the
    top of the widest gap) then count after the high ones.
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
    if gap <= span // 2 and not (low and high and min(low) > max(high)):
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
        by_value.setdefault(n.value, []).append(n)
    found = []
    for group in by_value.values():
        if len(group) < 2:
            continue
        sources = [n.source for n in group]
        names = _and([s.provenance.rel for s in sources])
        claim = "both claim" if len(group) == 2 else "all claim"
        resolutions = ["exclude", "sequence", "accept"]
        times = [_captured(s) for s in sources]
        if None not in times and len(set(times)) == len(times):
            resolutions.insert(2, "capture_time")
        found.append(
            Ambiguity(
                AmbiguityCode.DUPLICATE_NUMBER,
                item.item_id,
                f"{names} {claim} page {group[0].shown}. Exclude the extra one, give the order "
                f"(--sequence), or accept the proposed order ({sources[0].provenance.rel} first).",
                tuple(s.source_id for s in sources),
                tuple(resolutions),
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
    neighbours = _unique(
        s.source_id for a, b in gaps for s in (first_with[a].source, first_with[b].source)
    )
    return Ambiguity(
        AmbiguityCode.MISSING_INDEX,
        item.item_id,
        f"{pages} {verb} missing{where}. Add the missing pages and plan again, give the "
        "order (--sequence), or accept the order as it is.",
        neighbours,
        ("accept", "sequence"),
    )


def _mixed_media(item: PlanItem, sources: Sequence[PlanSource]) -> Ambiguity | None:
    pdfs = [s for s in sources if s.media_type == PDF]
    n_images = len(sources) - len(pdfs)
    if not pdfs or not n_images:
        return None
    which = f" ({_and([s.provenance.rel for s in pdfs])})" if len(pdfs) <= 3 else ""
    return Ambiguity(
        AmbiguityCode.MIXED_MEDIA,
        item.item_id,
        f"This notebook mixes {_count(len(pdfs), 'PDF')}{which} and "
        f"{_count(n_images, 'image')}: say where the PDF pages go (--sequence) or accept "
        "the proposed order.",
        tuple(s.source_id for s in pdfs),
        ("sequence", "exclude", "accept"),
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
    return Ambiguity(
        AmbiguityCode.CONFLICTING_CUES,
        item.item_id,
        f"{why} Choose capture-time order, or accept {order}.",
        _unique([earlier.source_id, later.source_id, *displaced]),
        ("capture_time", "sequence", "accept"),
    )


def _rollover_by_numbers(
    item: PlanItem, sources: Sequence[PlanSource], numbering: _Numbering
) -> Ambiguity | None:
    """A counter rollover seen in the names alone (no capture times to tell it)."""
    if numbering.rollover is None:
        return None
    last, first = numbering.rollover
    position = {s.source_id: i for i, s in enumerate(sources)}
    if position[first.source.source_id] > position[last.source.source_id]:
        return None  # already in counter order
    x, y = last.source.provenance.rel, first.source.provenance.rel
    order = _order_words(item)
    return Ambiguity(
        AmbiguityCode.CONFLICTING_CUES,
        item.item_id,
        f"{y} probably comes after {x}: the camera counter rolled over, but {order} puts "
        f"it first. Give the order (--sequence), order by modification time, or accept "
        f"{order}.",
        (first.source.source_id, last.source.source_id),
        ("sequence", "mtime", "accept"),
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


# -- resolutions ---------------------------------------------------------------------------


def accept(item: PlanItem) -> PlanItem:
    """Take the current order as it is: a person looked and agreed."""
    return replace(item, ordering=Ordering(item.ordering.rule, True))


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
        new = sorted(dated, key=lambda s: _captured(s) or "")
        new += [s for s in by_name if _captured(s) is None]
    elif rule is OrderingRule.MTIME:
        new = sorted(by_name, key=lambda s: s.provenance.mtime_ns)
    else:
        raise ValueError("a sequence is given source by source: use sequence()")
    return replace(item, sources=tuple(new), ordering=Ordering(rule, True))


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
        ordering=Ordering(OrderingRule.SEQUENCE, True),
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
    return replace(item, sources=new, ordering=Ordering(OrderingRule.SEQUENCE, True))


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
