"""The resolutions of an item's page order: pure edits of a plan item a person chooses."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import replace

from transcribe_import.engine.base.text import counted
from transcribe_import.engine.media.kinds import PDF
from transcribe_import.engine.planning.ordering.duplex import Passes, duplex_passes
from transcribe_import.engine.planning.ordering.names import (
    and_list,
    captured,
    is_cover_name,
    name_key,
    propose_order,
)
from transcribe_import.engine.planning.plan import OrderingRule, PlanItem, PlanSource
from transcribe_import.engine.planning.problems import Resolution


class NothingToOrderBy(ValueError):
    """``order_by`` refused: no page holds what ``rule`` orders by (a capture time), so the
    order would silently be another; ``instead`` are the resolutions that can order them,
    each face naming them its own way (the CLI its options, the window its menu entries)."""

    def __init__(self, rule: OrderingRule, instead: tuple[Resolution, ...]) -> None:
        self.rule = rule
        self.instead = instead
        super().__init__(
            "none of these pages has a capture time (no EXIF date), so they cannot be put "
            "in the order they were taken"
        )


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
            f"{item.label}: {counted(len(fronts), 'front')} but {counted(len(backs), 'back')} "
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
    by_name = sorted(item.sources, key=name_key)
    if rule is OrderingRule.NATURAL:
        new = propose_order(item.sources)
    elif rule is OrderingRule.NAME:
        new = by_name
    elif rule is OrderingRule.CAPTURE_TIME:
        dated = [s for s in by_name if captured(s) is not None]
        if not dated:
            # Said, not done silently: "by capture time" would only be name order here.
            raise NothingToOrderBy(rule, (Resolution.NAME, Resolution.MTIME))
        new = sorted(dated, key=lambda s: captured(s) or "")
        new += [s for s in by_name if captured(s) is None]
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
            paths = and_list([self.item.sources[i].provenance.rel for i in matches])
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
