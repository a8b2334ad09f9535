"""The candidate search for rescans: an index of looks that finds the pages near a page's.

A look's hash (media/lookalike.py) is 144 bits; a rescan is within ``THRESHOLD`` bits of
its page in one of four turns. Comparing every page with every earlier one is quadratic
(20,000 pages: 200 million comparisons in four turns). This is multi-index hashing: the
144 bits are cut into ``CHUNKS`` chunks of 16, and each chunk's value is a key. Two hashes
within ``CHUNKS * (RADIUS + 1) - 1`` bits of each other have, by the pigeonhole principle,
a chunk within ``RADIUS`` bits of each other, so probing each chunk's value and its 136
neighbours one or two bits away finds every such pair; pairs further apart, up to
``THRESHOLD``, are found when any of their chunks is that near (most are).

What a lookup costs is bounded whatever the shelf, so that validate grows linearly:

- each key's pages are a run of one array sorted by key, then by page (``_pages``, from
  ``_start[key]``): a page is looked up among the pages numbered below its limit (those
  before it), which are the first of its keys' runs, so one index built once answers every
  page of a plan, each among the pages before it;
- a key shared by more than ``CROWDED`` of those pages (near-blank or ruled looks alike in a
  chunk) is passed over: it tells those pages from nothing, and reading it for every lookup
  is what made a shelf of look-alikes quadratic. A page is still found by its other chunks;
  a page all of whose chunks are crowded (one among hundreds of pages with the same look)
  is found by none, and its rescan is not asked about: its look could not name the right
  one among hundreds anyway;
- a turn's probes (four turns, nine chunks, 137 values: 4,932 a lookup) are read nearest
  first (the chunks' own values, then one bit away, then two) until they have found
  ``BUDGET`` pages: a crowd of look-alikes a bit or two away in every chunk is not read
  whole for every lookup either;
- of the pages the probes find, the ``4 * CAP`` (page, turn) pairs sharing the most chunks
  are compared in full (a page near shares most of its chunks; a page found by chance,
  one);
- ``BATCH`` lookups are answered together, each step one numpy pass over all their probes
  and finds: a lookup's own Python and numpy calls, not its arithmetic, were most of its
  cost, and the number of steps of a chain walk grew with the shelf.

``comparisons`` counts the probes, the pages they found and the full comparisons;
``found``, the last two: what grows with the shelf (tests count both as it doubles). They
are the counts a lookup at a time made (tests/helpers/look_index_straight.py, the oracle
the search is held to).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
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
# Lookups answered in one numpy pass: their probes (4,932 each, 8 bytes) held at once.
BATCH = 32
# A pass's lookups are among at most this many more pages one than another (the pages added
# between them are counted for each lookup apart, the others once for the pass).
SPAN = 4096

_KEYS = CHUNKS << CHUNK_BITS
_FLIPS = np.array(
    [
        0,
        *(1 << b for b in range(CHUNK_BITS)),
        *((1 << b) | (1 << c) for b in range(CHUNK_BITS) for c in range(b + 1, CHUNK_BITS)),
    ],
    dtype=np.int64,
)
# A probe's key is its chunk's number above the chunk's 16 bits: one array counts all.
_CHUNK_OF = np.arange(CHUNKS, dtype=np.int64) << CHUNK_BITS
# A turn's probes in their order, flip by flip, chunk by chunk: the flip of each.
_FLIP_ROW = np.repeat(_FLIPS, CHUNKS)
_TURN_PROBES = len(_FLIP_ROW)
_TURNS = tuple(Turn(90 * k) for k in range(4))
_WORD_BYTES = 24  # a hash as three 64-bit words


@dataclass(frozen=True)
class Near:
    """A page of the index near a looked-up page: its number in the index, how many bits
    differ, and how far the looked-up page is turned from it."""

    index: int
    distance: int
    turn: Turn


@dataclass(frozen=True, eq=False)
class Nearest:
    """The pages of the index near one looked-up page, nearest first (each once, in its
    nearest turn), kept as arrays: a caller that reads the first few makes only those."""

    pages: np.ndarray
    distances: np.ndarray
    turns: np.ndarray  # quarter turns

    def __len__(self) -> int:
        return len(self.pages)

    def __iter__(self) -> Iterator[Near]:
        for page, distance, turn in zip(
            self.pages.tolist(), self.distances.tolist(), self.turns.tolist(), strict=True
        ):
            yield Near(page, distance, _TURNS[turn])


def _hashes(values: Sequence[int]) -> np.ndarray:
    """144-bit hashes as rows of three 64-bit words, least significant first."""
    raw = b"".join(v.to_bytes(_WORD_BYTES, "little") for v in values)
    return np.frombuffer(raw, dtype="<u8").astype(np.uint64).reshape(-1, 3)


def _keys(words: np.ndarray) -> np.ndarray:
    """The ``CHUNKS`` keys of hashes (rows of words, any leading shape), each its chunk's
    number above its 16 bits."""
    shifts = np.arange(4, dtype=np.uint64) * np.uint64(CHUNK_BITS)
    chunks = (words[..., :, None] >> shifts) & np.uint64((1 << CHUNK_BITS) - 1)
    flat = chunks.reshape(*words.shape[:-1], 12)[..., :CHUNKS]  # 3 words of 4 chunks
    keys: np.ndarray = flat.astype(np.int64) | _CHUNK_OF
    return keys


class LookIndex:
    """Upright hashes added one by one (each numbered in order), looked up in four turns:
    each lookup among all of them (``near``) or among those numbered below its limit
    (``near_many``: many lookups at once)."""

    def __init__(self) -> None:
        self._uprights: list[int] = []
        self._words = np.zeros((3, 0), dtype=np.uint64)  # the uprights' words, word by word
        self._chunk_keys = np.zeros((0, CHUNKS), dtype=np.int64)
        # The pages having each key, by number, from ``_pages[_start[key]]`` on: made again
        # for a lookup when pages were added since (``_arrays``).
        self._pages = np.zeros(0, dtype=np.int32)
        self._start = np.zeros(_KEYS, dtype=np.int64)
        self._occupied = np.zeros(_KEYS, dtype=bool)  # the keys some page has
        self._mark = np.zeros(_KEYS, dtype=bool)  # a lookup's keys of pages added lately
        self._made = 0
        self.comparisons = 0  # probes, pages found and full comparisons, for tests and benches
        self.found = 0  # of which pages found and full comparisons: what grows with the shelf

    def __len__(self) -> int:
        return len(self._uprights)

    def add(self, upright: int) -> int:
        """Index ``upright`` (a look's upright hash); its number."""
        self._uprights.append(upright)
        return len(self._uprights) - 1

    def near(self, look: Look, threshold: int = THRESHOLD) -> list[Near]:
        """The indexed pages within ``threshold`` bits of ``look`` in some turn, nearest
        first (each once, in its nearest turn). A lookup after pages were added sorts the
        index again: each page of a shelf among the ones before it is ``near_many``'s."""
        [nearest] = self.near_many([look], threshold=threshold)
        return list(nearest)

    def near_many(
        self,
        looks: Sequence[Look],
        limits: Sequence[int] | None = None,
        threshold: int = THRESHOLD,
    ) -> list[Nearest]:
        """For each of ``looks``, what ``near`` finds for it among the pages numbered below
        its limit in ``limits`` (all pages when None): the pages a lookup made when only
        those were added would find."""
        count = len(self._uprights)
        want = np.full(len(looks), count, np.int64) if limits is None else np.array(limits)
        if len(want) and (want.min() < 0 or want.max() > count):
            raise ValueError(f"a limit outside 0..{count}")
        self._arrays()
        mine = _hashes([t for look in looks for t in look.turns]).reshape(-1, 4, 3)
        keys = _keys(mine)
        out: list[Nearest | None] = [None] * len(looks)
        order = np.argsort(want, kind="stable")
        below = np.zeros(_KEYS, dtype=np.int32)  # each key's pages below ``counted``
        counted = 0
        at = 0
        while at < len(order):
            block = order[at : at + BATCH]
            least = int(want[block[0]])
            block = block[want[block] <= least + SPAN]
            if least > counted:
                np.add.at(below, self._chunk_keys[counted:least].ravel(), 1)
                counted = least
            found = self._search(keys[block], mine[block], want[block], least, below, threshold)
            for k, nearest in zip(block.tolist(), found, strict=True):
                out[k] = nearest
            at += len(block)
        return [n for n in out if n is not None]

    def _arrays(self) -> None:
        """Make the pages added since the last lookup into the index's arrays."""
        count = len(self._uprights)
        if self._made == count:
            return
        words = _hashes(self._uprights[self._made :])
        self._words = np.concatenate([self._words, words.T], axis=1)
        self._chunk_keys = np.concatenate([self._chunk_keys, _keys(words)])
        flat = self._chunk_keys.ravel()
        # By key, then by number; in 32 bits, half the reading of a lookup's pages.
        self._pages = (np.argsort(flat, kind="stable") // CHUNKS).astype(np.int32)
        sizes = np.bincount(flat, minlength=_KEYS)
        self._start = np.cumsum(sizes) - sizes
        self._occupied = sizes > 0
        self._made = count

    def _search(
        self,
        keys: np.ndarray,
        mine: np.ndarray,
        limits: np.ndarray,
        least: int,
        below: np.ndarray,
        threshold: int,
    ) -> list[Nearest]:
        """``near_many`` for a few lookups at once (``keys`` and ``mine``: their turns' keys
        and words), each among the pages below its limit (no limit below ``least``);
        ``below`` counts each key's pages numbered below ``least``."""
        lookups = len(limits)
        # Probed nearest first: each turn's chunks' own values, then one bit away, then two;
        # only the probes of keys some page has are read on.
        probes = (np.tile(keys, (1, 1, len(_FLIPS))) ^ _FLIP_ROW).ravel()
        self.comparisons += len(probes)
        at = np.flatnonzero(self._occupied[probes])
        probes, row = probes[at], at // _TURN_PROBES  # row: lookup * 4 + turn
        sizes = below[probes]
        # The pages from ``least`` up to each lookup's own limit, counted for it alone.
        most = int(limits.max())
        if most > least:
            new = self._chunk_keys[least:most].ravel()
            self._mark[new] = True
            hit = np.flatnonzero(self._mark[probes])
            self._mark[new] = False
            if len(hit):
                # Each new page's keys as key and page in one number, in order.
                runs = np.sort((new << 32) + (least + np.arange(len(new)) // CHUNKS))
                probe = probes[hit] << 32
                upto = probe + limits[row[hit] >> 2]
                sizes[hit] += np.searchsorted(runs, upto) - np.searchsorted(runs, probe)
        # A crowded key is passed over, and once a turn's probes have found ``BUDGET``
        # pages the farther ones are not read: the pages found before each probe, its turn's.
        sizes[sizes > CROWDED] = 0
        before = np.cumsum(sizes) - sizes
        if len(row):
            starts = np.flatnonzero(np.concatenate([[True], row[1:] != row[:-1]]))
            before -= np.repeat(before[starts], np.diff(np.append(starts, len(row))))
        open_ = (sizes > 0) & (before < BUDGET)
        row, probes, sizes = row[open_], probes[open_], sizes[open_]
        # A key's pages below a limit are the first of its run: the runs read all at once.
        runs = self._start[probes]
        total = int(sizes.sum())
        pages = self._pages[np.repeat(runs - (np.cumsum(sizes) - sizes), sizes) + np.arange(total)]
        self.comparisons += total
        self.found += total
        # One code a (lookup, page, turn); how many chunks it shares ranks it in its lookup.
        # In 32 bits where they fit (always, but for a shelf of millions): half the sorting.
        wide = 4 * max(len(self._uprights), 1)
        small = np.int32 if lookups * wide < 2**31 else np.int64
        code = ((row >> 2) * wide + (row & 3)).astype(small)
        found = np.repeat(code, sizes) + pages.astype(small) * 4
        codes, shared = np.unique(found, return_counts=True)
        who = (codes // wide).astype(np.int64)
        many = np.bincount(who, minlength=lookups)
        if (many > 4 * CAP).any():
            # A lookup's ``4 * CAP`` sharing most, the first by code among equals, without a
            # sort: every pair sharing more than ``cut`` chunks, and of those sharing ``cut``
            # the first ``room``.
            per = np.bincount(who * (CHUNKS + 2) + shared, minlength=lookups * (CHUNKS + 2))
            more = np.cumsum(per.reshape(lookups, CHUNKS + 2)[:, ::-1], axis=1)[:, ::-1]
            cut = np.maximum((more >= 4 * CAP).sum(axis=1) - 1, 0)
            room = 4 * CAP - more[np.arange(lookups), cut + 1]
            level = cut[who]
            equal = (shared == level).astype(np.int64)
            rank = np.cumsum(equal) - equal
            rank -= rank[(np.cumsum(many) - many)[who]]
            keep = (shared > level) | ((equal == 1) & (rank < room[who]))
            codes, who = codes[keep], who[keep]
        self.comparisons += len(codes)
        self.found += len(codes)
        pages, turn = (codes % wide) // 4, codes % 4
        theirs, mine = self._words[:, pages], mine.reshape(-1, 3).T[:, who * 4 + turn]
        distance = np.bitwise_count(theirs ^ mine).astype(np.int64).sum(axis=0)
        keep = distance <= threshold
        who, pages, turn = who[keep], pages[keep], turn[keep]
        # Each page once, in its nearest turn (the codes are by lookup, page and turn).
        rank = distance[keep] * 4 + turn
        if len(rank):
            starts = np.flatnonzero(
                np.concatenate([[True], (who[1:] != who[:-1]) | (pages[1:] != pages[:-1])])
            )
            who, pages, rank = who[starts], pages[starts], np.minimum.reduceat(rank, starts)
        # Nearest first, then by number.
        nearest = np.argsort((who * (lookalike.BITS + 1) + rank // 4) * wide + pages)
        who, pages, rank = who[nearest], pages[nearest], rank[nearest]
        bounds = np.searchsorted(who, np.arange(lookups + 1)).tolist()
        distance, turn = rank // 4, rank % 4
        return [
            Nearest(pages[a:b], distance[a:b], turn[a:b])
            for a, b in zip(bounds, bounds[1:], strict=False)
        ]
