"""Two passes of a duplex scan, every front then every back, told by names, counters or times."""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from dataclasses import dataclass

from transcribe_import.engine.base.text import natural_key
from transcribe_import.engine.planning.ordering.names import (
    COUNTERS,
    PAGES,
    captured,
    name_key,
    name_of,
    page_number,
    undated_stem,
)
from transcribe_import.engine.planning.plan import PlanSource

# A name numbering fronts or backs of a duplex scan in two passes: front_001, back_001,
# odd-3, even-3, or a folder named so.
_PASS = re.compile(r"(?:^|[/ _.-])(fronts?|odd|backs?|even)(?=$|[/ _.\d-])", re.IGNORECASE)
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
    return tuple(sorted(sources, key=lambda s: ((page_number(s.name) or (0, ""))[0], name_key(s))))


def _two_counters(images: Sequence[PlanSource]) -> Passes | None:
    groups: dict[str, list[tuple[int, PlanSource]]] = {}
    for s in images:
        name = name_of(s)
        number = page_number(s.name)
        if name.kind not in (PAGES, COUNTERS) or number is None:
            return None
        # Dates aside: two days of one run of pages are no two counters.
        stem = undated_stem(s.name)
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
    ta, tb = captured(first[0]), captured(second[0])
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
    value = captured(source)
    if value is None:
        return None
    try:
        when = datetime.datetime.fromisoformat(value)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    return when.timestamp()
