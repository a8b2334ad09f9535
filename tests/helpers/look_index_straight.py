"""The candidate search as it was before #38 answered many lookups in one numpy pass: one
lookup a call, each key's chain walked a step a loop. Kept verbatim (its constants, ``add``
and ``near``) as the oracle the batched search (planning/look_index.py) is held to: the same
candidates in the same order, and the same counters (tests/engine/planning/
test_look_index_same.py)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from transcribe_import.engine.media import lookalike
from transcribe_import.engine.media.lookalike import THRESHOLD, Look, Turn

CHUNK_BITS = 16
CHUNKS = lookalike.BITS // CHUNK_BITS  # 9: the 144 bits, bit 0 (always 0) included
RADIUS = 2  # a chunk's own value and its values one or two bits away
# A key shared by more pages than this is passed over (see the module's docstring).
CROWDED = 64
# The pages a turn's probes read, nearest keys first, before the farther keys are let go.
BUDGET = 256
# The pages found by the probes that are compared in full, a turn: those sharing most chunks.
CAP = 64

_MASK = (1 << CHUNK_BITS) - 1
_M64 = (1 << 64) - 1
_FLIPS = np.array(
    [
        0,
        *(1 << b for b in range(CHUNK_BITS)),
        *((1 << b) | (1 << c) for b in range(CHUNK_BITS) for c in range(b + 1, CHUNK_BITS)),
    ],
    dtype=np.int64,
)
# A probe's key is its chunk's number above the chunk's 16 bits: one sorted array holds all.
_CHUNK_OF = np.arange(CHUNKS, dtype=np.int64) << CHUNK_BITS
# The turn of each probe of a lookup (probes are made turn by turn).
_PROBE_TURN = np.repeat(np.arange(4, dtype=np.int64), CHUNKS * len(_FLIPS))


@dataclass(frozen=True)
class Near:
    """A page of the index near a looked-up page: its number in the index, how many bits
    differ, and how far the looked-up page is turned from it."""

    index: int
    distance: int
    turn: Turn


def _words(value: int) -> tuple[int, int, int]:
    """A 144-bit hash as three unsigned 64-bit words, for numpy."""
    return value & _M64, (value >> 64) & _M64, value >> 128


def _keys(value: int) -> np.ndarray:
    """The ``CHUNKS`` keys of a hash, each its chunk's number above its 16 bits."""
    chunks = [(value >> (k * CHUNK_BITS)) & _MASK for k in range(CHUNKS)]
    return np.array(chunks, dtype=np.int64) | _CHUNK_OF


class LookIndex:
    """Upright hashes added one by one (each numbered in order), looked up in four turns."""

    def __init__(self) -> None:
        self._words = np.zeros((64, 3), dtype=np.uint64)
        self._count = 0
        # The pages having each key, as a chain through numpy arrays: ``_head[key]`` is the
        # last page's slot (page * CHUNKS + chunk), ``_next[slot]`` the slot before it with
        # that key (-1: none), and ``_size[key]`` how many pages have it.
        self._head = np.full(CHUNKS << CHUNK_BITS, -1, dtype=np.int64)
        self._size = np.zeros(CHUNKS << CHUNK_BITS, dtype=np.int64)
        self._next = np.full(64 * CHUNKS, -1, dtype=np.int64)
        self.comparisons = 0  # probes, pages found and full comparisons, for tests and benches
        self.found = 0  # of which pages found and full comparisons: what grows with the shelf

    def __len__(self) -> int:
        return self._count

    def add(self, upright: int) -> int:
        """Index ``upright`` (a look's upright hash); its number."""
        number = self._count
        if number == len(self._words):
            self._words = np.concatenate([self._words, np.zeros_like(self._words)])
            self._next = np.concatenate([self._next, np.full_like(self._next, -1)])
        self._words[number] = _words(upright)
        self._count += 1
        keys = _keys(upright)  # one a chunk, so no two alike
        slots = number * CHUNKS + np.arange(CHUNKS)
        self._next[slots] = self._head[keys]
        self._head[keys] = slots
        self._size[keys] += 1
        return number

    def near(self, look: Look, threshold: int = THRESHOLD) -> list[Near]:
        """The indexed pages within ``threshold`` bits of ``look`` in some turn, nearest
        first (each once, in its nearest turn)."""
        # Probed nearest first: each turn's chunks' own values, then one bit away, then two.
        probes = np.concatenate(
            [(_keys(mine)[None, :] ^ _FLIPS[:, None]).ravel() for mine in look.turns]
        )
        self.comparisons += len(probes)
        # A crowded key is passed over, and once a turn's probes have found ``BUDGET``
        # pages the farther ones are not read; the others' chains walked all at once.
        sizes = self._size[probes]
        sizes = np.where(sizes <= CROWDED, sizes, 0).reshape(4, -1)
        before = np.cumsum(sizes, axis=1) - sizes
        open_ = ((sizes > 0) & (before < BUDGET)).ravel()
        slot = self._head[probes[open_]]
        turn = _PROBE_TURN[open_]
        slots, turns = [], []
        while len(slot):
            slots.append(slot)
            turns.append(turn)
            slot = self._next[slot]
            more = slot >= 0
            slot, turn = slot[more], turn[more]
        pages = np.concatenate(slots) // CHUNKS if slots else np.zeros(0, np.int64)
        self.comparisons += len(pages)
        self.found += len(pages)
        # One code a (page, turn) pair; how many chunks it shares ranks it.
        codes, shared = np.unique(
            pages * 4 + (np.concatenate(turns) if turns else 0), return_counts=True
        )
        if len(codes) > 4 * CAP:
            codes = codes[np.argsort(-shared, kind="stable")[: 4 * CAP]]
        pages, turn = codes // 4, codes % 4
        mine = np.array([_words(t) for t in look.turns], dtype=np.uint64)
        distance = np.bitwise_count(self._words[pages] ^ mine[turn]).sum(axis=1)
        self.comparisons += len(codes)
        self.found += len(codes)
        keep = distance <= threshold
        pages, turn, distance = pages[keep], turn[keep], distance[keep]
        # Each page once, in its nearest turn; nearest first, then by number.
        best: dict[int, Near] = {}
        for at in np.lexsort((turn, pages, distance)).tolist():
            page = int(pages[at])
            if page not in best:
                best[page] = Near(page, int(distance[at]), Turn(90 * int(turn[at])))
        return list(best.values())
