"""The candidate search for rescans: an index of looks that finds the pages near a page's.

A look's hash (media/lookalike.py) is 144 bits; a rescan is within ``THRESHOLD`` bits of
its page in one of four turns. Comparing every page with every earlier one is quadratic
(20,000 pages: 200 million comparisons in four turns). This is multi-index hashing: the
144 bits are cut into ``CHUNKS`` chunks of 16, and each chunk's value is a key of its own
table. Two hashes within ``CHUNKS * (RADIUS + 1) - 1`` bits of each other have, by the
pigeonhole principle, a chunk within ``RADIUS`` bits of each other, so looking up each
chunk's value and its 136 neighbours one or two bits away finds every such pair; pairs
further apart, up to ``THRESHOLD``, are found when any of their chunks is that near (most
are). Each page costs ``4 * CHUNKS * 137`` lookups and a full comparison with each page
found there, whatever the shelf: a table of 16-bit keys spreads 65,536 ways, so that up to
shelves of tens of thousands of pages a lookup finds next to nothing but the pages near.
``comparisons`` counts the lookups and the full comparisons (a test counts them as the
shelf doubles).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from transcribe_import.engine.media import lookalike
from transcribe_import.engine.media.lookalike import THRESHOLD, Look, Turn

CHUNK_BITS = 16
CHUNKS = lookalike.BITS // CHUNK_BITS  # 9: the 144 bits, bit 0 (always 0) included
RADIUS = 2  # a chunk's own value and its values one or two bits away
_MASK = (1 << CHUNK_BITS) - 1
_FLIPS = (
    0,
    *(1 << b for b in range(CHUNK_BITS)),
    *((1 << b) | (1 << c) for b in range(CHUNK_BITS) for c in range(b + 1, CHUNK_BITS)),
)


@dataclass(frozen=True)
class Near:
    """A page of the index near a looked-up page: its number in the index, how many bits
    differ, and how far the looked-up page is turned from it."""

    index: int
    distance: int
    turn: Turn


def _chunks(value: int) -> Iterator[int]:
    for k in range(CHUNKS):
        yield (value >> (k * CHUNK_BITS)) & _MASK


class LookIndex:
    """Upright hashes added one by one (each numbered in order), looked up in four turns."""

    def __init__(self) -> None:
        self._values: list[int] = []
        self._tables: list[dict[int, list[int]]] = [{} for _ in range(CHUNKS)]
        self.comparisons = 0  # lookups and full comparisons made, for tests and benches

    def __len__(self) -> int:
        return len(self._values)

    def add(self, upright: int) -> int:
        """Index ``upright`` (a look's upright hash); its number."""
        number = len(self._values)
        self._values.append(upright)
        for table, key in zip(self._tables, _chunks(upright), strict=True):
            table.setdefault(key, []).append(number)
        return number

    def near(self, look: Look, threshold: int = THRESHOLD) -> list[Near]:
        """The indexed pages within ``threshold`` bits of ``look`` in some turn, nearest
        first (each once, in its nearest turn)."""
        best: dict[int, Near] = {}
        for turn, mine in zip(Turn, look.turns, strict=True):
            seen: set[int] = set()
            for table, key in zip(self._tables, _chunks(mine), strict=True):
                for flip in _FLIPS:
                    self.comparisons += 1
                    found = table.get(key ^ flip)
                    if found:
                        seen.update(found)
            for number in seen:
                self.comparisons += 1
                d = (mine ^ self._values[number]).bit_count()
                if d <= threshold and (number not in best or d < best[number].distance):
                    best[number] = Near(number, d, turn)
        return sorted(best.values(), key=lambda n: (n.distance, n.index))
