"""A page's look as a number: a perceptual hash that finds rescans of a page, turned or not.

Two files of the same page that are not the same bytes (scanned again, at another JPEG
quality, a little turned, lighter, cropped, or a quarter turn round) should be told apart
from two different pages of one notebook, which look much alike: the same paper, the same
ruling, the same hand. The hash is the DCT hash (pHash) made larger: the page is reduced to
32x32 grey levels, its 12x12 lowest frequencies are taken (the DC term left out), and each
bit says whether a coefficient is above their median: 143 bits.

Why this one (bench/bench_lookalike.py measures it on a labelled set of generated notebook
pages, recorded in bench/RESULTS.md): the usual 64-bit pHash (8x8) cannot separate rescans
from the other pages of a ruled notebook: where it finds 97% of rescans it flags 0.9% of
pairs of distinct pages, where it finds 99% it flags 2.2%, and the closest two distinct pages
differ by 2 bits; 12x12 finds 98.8% and flags 0.17% at THRESHOLD. Pillow reduces the page in
C and the DCT of one 32x32 image is a few thousand multiplications in Python (a few
milliseconds a page, about a tenth of the scan's own 1/8 decode of an A4 JPEG), so no numpy
is needed: imagehash would bring numpy and scipy (some 60 MB) for the same arithmetic.

A quarter turn of the page permutes the DCT's coefficients and flips some of their signs,
so the four turns' hashes come from one transform (``turns``); only the upright one is
stored, and a new page is compared to it in its four turns.
"""

from __future__ import annotations

import enum
import functools
import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image

SIDE = 32  # the page is reduced to SIDE x SIDE grey levels
KEEP = 12  # the KEEP x KEEP lowest frequencies make the hash
BITS = KEEP * KEEP  # bit 0 (the DC term, the page's mean grey) is always 0
HEX_DIGITS = BITS // 4

# At most this many bits differ between a page and a rescan of it (in any of the four turns).
# Set on the labelled set (bench_lookalike): every kind of rescan falls below it and the
# closest two distinct pages of one notebook are well above.
THRESHOLD = 22


class Turn(enum.IntEnum):
    """How far a page is turned clockwise from the one it looks like, in degrees."""

    NONE = 0
    RIGHT = 90
    HALF = 180
    LEFT = 270


@functools.cache
def _cosines() -> tuple[tuple[float, ...], ...]:
    return tuple(
        tuple(math.cos(math.pi * (2 * x + 1) * u / (2 * SIDE)) for x in range(SIDE))
        for u in range(KEEP)
    )


def _coefficients(image: Image.Image) -> list[list[float]]:
    """The KEEP x KEEP lowest DCT-II coefficients of the page reduced to SIDE x SIDE, [v][u]."""
    grey = image.convert("L").resize((SIDE, SIDE), Image.Resampling.BOX)
    pixels = grey.tobytes()
    cos = _cosines()
    mul = operator.mul
    rows = [[sum(map(mul, c, pixels[y * SIDE : (y + 1) * SIDE])) for c in cos] for y in range(SIDE)]
    columns = list(zip(*rows, strict=True))  # columns[u]: the row coefficient u, for every y
    return [[sum(map(mul, cos[v], columns[u])) for u in range(KEEP)] for v in range(KEEP)]


def _bits(coefficients: list[list[float]]) -> int:
    flat = [c for row in coefficients for c in row]
    median = sorted(flat[1:])[(BITS - 1) // 2]
    value = 0
    for i in range(1, BITS):
        if flat[i] > median:
            value |= 1 << i
    return value


def _quarter_turn(coefficients: list[list[float]]) -> list[list[float]]:
    """The coefficients of the page turned a quarter clockwise: a transpose, alternate signs."""
    return [[coefficients[u][v] * (-1 if u % 2 else 1) for u in range(KEEP)] for v in range(KEEP)]


@dataclass(frozen=True)
class Look:
    """A page's hash in its four turns; ``upright`` is the one stored."""

    # turns[k]: the hash of the page turned k quarters anticlockwise, so that it equals the
    # stored hash of a page this one is that page turned k quarters clockwise (Turn(90 * k)).
    turns: tuple[int, int, int, int]

    @property
    def upright(self) -> int:
        return self.turns[0]


def look_of(image: Image.Image) -> Look:
    """The hash of a decoded page (any size, any mode: it is reduced first)."""
    coefficients = _coefficients(image)
    hashes = []
    for _ in range(4):
        hashes.append(_bits(coefficients))
        coefficients = _quarter_turn(coefficients)
    # hashes[k]: turned k quarters clockwise, which is 4 - k quarters anticlockwise.
    return Look((hashes[0], hashes[3], hashes[2], hashes[1]))


def distance(a: int, b: int) -> int:
    """How many bits of two hashes differ."""
    return (a ^ b).bit_count()


@dataclass(frozen=True)
class Match:
    """A stored page a new one looks like: how many bits differ, and how far it is turned."""

    index: int  # in the sequence of stored hashes asked about
    distance: int
    turn: Turn


def closest(look: Look, stored: Sequence[int]) -> Match | None:
    """The stored hash the page looks most like, within THRESHOLD in any turn, or None."""
    best: Match | None = None
    for index, other in enumerate(stored):
        for turn, mine in zip(Turn, look.turns, strict=True):
            d = distance(mine, other)
            if d <= THRESHOLD and (best is None or d < best.distance):
                best = Match(index, d, turn)
    return best


def to_hex(value: int) -> str:
    """The form kept in a plan and in project.json: 36 lower-case hex digits."""
    return f"{value:0{HEX_DIGITS}x}"


def from_hex(text: str) -> int | None:
    """A stored hash, or None when ``text`` is not one (an older or damaged document)."""
    if len(text) != HEX_DIGITS:
        return None
    try:
        return int(text, 16)
    except ValueError:
        return None
