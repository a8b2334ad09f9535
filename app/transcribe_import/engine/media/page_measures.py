"""What a page's small decode says of how it was taken: its paper's light, its darkest
strokes, its sharpness and which way its lines of writing run (planning/second_look.py
turns them into the hints of a page worth a second look).

Measured on the small decode the look pass makes anyway (media/lookalike.py: at most
``ink.SIDE`` pixels long, grey) and on the page's ink (media/ink.py), with numpy: no
decode of its own. Kept with the page's look, after it (``to_text``), so a plan and the
look cache carry them wherever the look goes.

- ``paper``: the grey level (0-255) of the page's brightest part, its 95th percentile: a
  page photographed in the dark is dark there too.
- ``darkest``: the grey level of its darkest strokes, the 0.02th percentile (some 50 pixels:
  a date line holds more): an overexposed page's writing is washed out to a light grey.
- ``sharpness``: how sharp its strongest edges are, the root of the Laplacian's variance over
  the gradient's on the 2 % of pixels with the strongest gradient, in 1/pixels. The
  Laplacian's variance alone grows with how much is written (a page of a few words has
  little of it, sharp or not); divided by the gradient's it is about the edges' width, the
  same for a full and a sparse page of one camera, and lower the more a page is blurred.
- ``rows`` and ``columns``: how much the ink varies from row to row and from column to
  column across its written part (the coefficient of variation of its profiles). Lines of
  writing make the rows vary (line, gap, line) far more than the columns; a page whose
  columns vary more has its lines running down the page: it came in sideways.
- ``lead``: of the ink of the written part, the share in its top half. Lines of writing
  start at one margin and end ragged, so a page turned a quarter clockwise has its starts,
  and more of its ink, at the top (0.5 and more), one turned anticlockwise at the bottom.
  That holds for several lines only (planning/second_look.likely_turn).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # reading kept measures (from_look) must not load numpy and Pillow
    import numpy as np
    from PIL import Image

    from transcribe_import.engine.media import ink

# The share of a page's pixels, those of its strongest gradient, its sharpness is taken on.
EDGE_SHARE = 0.02
# How the measures are kept after a look: ";m1:" and the values in ``_FIELDS``' order.
PREFIX = ";m1:"
_FIELDS = ("paper", "darkest", "sharpness", "rows", "columns", "lead")
_TEXT = re.compile(r";m1:(\d{1,3}),(\d{1,3}),(\d+\.\d{3}),(\d+\.\d{3}),(\d+\.\d{3}),(\d\.\d{3})")


@dataclass(frozen=True)
class Measures:
    """A page's measures (see the module's docstring); ``rows`` and ``columns`` are 0, and
    ``lead`` 0.5, for a page with no ink."""

    paper: int
    darkest: int
    sharpness: float
    rows: float
    columns: float
    lead: float


def measure(image: Image.Image, found: ink.Ink) -> Measures:
    """The measures of a page's small decode (``image``, any mode, upright as it is) and its
    ink (``found``, made of that decode)."""
    import numpy as np
    from PIL import Image

    from transcribe_import.engine.media import ink

    grey = image if image.mode == "L" else image.convert("L")  # read here, never written
    if max(grey.size) > ink.SIDE:
        grey = grey.copy()
        grey.thumbnail((ink.SIDE, ink.SIDE), Image.Resampling.BOX)
    levels = np.asarray(grey)
    # The grey levels' histogram (Pillow's, of the bytes as they are) gives both percentiles
    # without sorting the pixels.
    cumulative = np.cumsum(np.array(grey.histogram(), dtype=np.int64))
    paper, darkest = (int(np.searchsorted(cumulative, q * cumulative[-1])) for q in (0.95, 0.0002))
    rows, columns, lead = _lines(found)
    return Measures(paper, darkest, _sharpness(levels), rows, columns, lead)


def _sharpness(levels: np.ndarray) -> float:
    """The sharpness of the grey ``levels`` (uint8), as the module's docstring says: the
    same number, to the last bit, as the same arithmetic on them as float32 (where a pixel's
    Laplacian and gradient are whole numbers and quarters), made in whole numbers instead,
    the gradient's quantile found among the strongest few per cent (``_quantile_floor``),
    the Laplacian made only where the gradient is strongest (tests/engine/media/
    test_look_exact.py holds it to the float32 arithmetic)."""
    import numpy as np

    if min(levels.shape) < 8:
        return 0.0
    g = levels.astype(np.int32)
    dx = g[1:-1, 2:] - g[1:-1, :-2]
    dy = g[2:, 1:-1] - g[:-2, 1:-1]
    np.multiply(dx, dx, out=dx)
    np.multiply(dy, dy, out=dy)
    quarters = np.add(dx, dy, out=dx)  # 4 x the gradient's square: a whole number
    least = _quantile_floor(quarters, 1 - EDGE_SHARE)
    strongest = quarters >= least
    picked = quarters[strongest].astype(np.float32)
    picked *= np.float32(0.25)  # the gradient's squares, as float32 holds them: exact
    energy = float(picked.sum())
    if energy <= 0:
        return 0.0
    # The Laplacian at those pixels alone, read from the flat levels (in the order a mask
    # reads them, so the float32 sum below adds the same numbers in the same order).
    width = levels.shape[1]
    row, col = np.divmod(np.flatnonzero(strongest), width - 2)
    at = (row + 1) * width + (col + 1)
    flat = g.ravel()
    lap = flat[at - width] + flat[at + width] + flat[at - 1] + flat[at + 1] - 4 * flat[at]
    lap *= lap  # at most 1020 squared: exact in float32
    return float(np.sqrt(float(lap.astype(np.float32).sum()) / energy))


def _quantile_floor(values: np.ndarray, q: float) -> int:
    """The least whole number ``t`` with ``values >= t`` the same pixels as ``values / 4 >=
    numpy.quantile(values / 4, q)`` (``values``: whole numbers from 0, as float32 holds
    them). numpy's quantile (its "linear" method) lies between two neighbouring values of
    the sorted pixels, none between them, so only whether it is the lower one decides: that
    is numpy's arithmetic in float32, done here on the two. The two are found among the
    pixels above a bound a sample of every 16th sets (checked to hold them both), so the
    partition is of a few per cent of the pixels, not all of them."""
    import math

    import numpy as np

    flat = values.ravel()
    n = flat.size
    at = (n - 1) * q
    below = math.floor(at)
    wanted = min(2, n - below)  # the sorted pixels at ``below`` and after it
    top = n - below  # the pixels from ``below`` to the end: the bound must keep them all
    sample = flat[::16]
    bound = 0
    if sample.size > 64:
        k = max(0, sample.size - 1 - 2 * (top // 16 + 1) - 16)
        bound = int(np.partition(sample, k)[k])
    above = flat[flat >= bound] if bound > 0 else flat
    if above.size < top:
        above = flat
    first = below - (n - above.size)
    kth = [first, first + 1] if wanted == 2 else [first]
    ordered = np.partition(above, kth)
    lo = int(ordered[first])
    if wanted < 2:
        return lo
    hi = int(ordered[first + 1])
    gamma = at - below
    a, b = np.float32(lo / 4), np.float32(hi / 4)
    diff = b - a
    quantile = b - diff * (1 - gamma) if gamma >= 0.5 else a + diff * gamma
    return lo if quantile <= a else hi


def _lines(found: ink.Ink) -> tuple[float, float, float]:
    from transcribe_import.engine.media import ink

    part = ink.written(found)
    total = float(part.sum())
    if total <= 0:
        return 0.0, 0.0, 0.5

    def variation(profile: np.ndarray) -> float:
        mean = float(profile.mean())
        return float(profile.std()) / mean if mean > 0 else 0.0

    rows = variation(part.sum(axis=1))
    columns = variation(part.sum(axis=0))
    lead = float(part[: part.shape[0] // 2].sum()) / total
    return rows, columns, lead


def to_text(measures: Measures) -> str:
    """The measures as kept after the page's look (``PREFIX`` and six numbers)."""
    m = measures
    return (
        f"{PREFIX}{min(255, m.paper)},{min(255, m.darkest)},{m.sharpness:.3f},"
        f"{m.rows:.3f},{m.columns:.3f},{min(1.0, m.lead):.3f}"
    )


def from_look(look: str | None) -> Measures | None:
    """The measures kept after a page's look, or None when it has none (a look made before
    measures were, a page whose look could not be made)."""
    if look is None:
        return None
    at = look.find(PREFIX)
    found = _TEXT.fullmatch(look[at:]) if at >= 0 else None
    if found is None:
        return None
    paper, darkest, sharpness, rows, columns, lead = found.groups()
    return Measures(
        int(paper), int(darkest), float(sharpness), float(rows), float(columns), float(lead)
    )


def look_alone(look: str) -> str:
    """A kept look without the measures after it."""
    at = look.find(PREFIX)
    return look if at < 0 else look[:at]
