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

    grey = image.convert("L")
    if max(grey.size) > ink.SIDE:
        grey.thumbnail((ink.SIDE, ink.SIDE), Image.Resampling.BOX)
    levels = np.asarray(grey)
    # The grey levels' histogram gives both percentiles without sorting the pixels.
    cumulative = np.cumsum(np.bincount(levels.ravel(), minlength=256))
    paper, darkest = (int(np.searchsorted(cumulative, q * cumulative[-1])) for q in (0.95, 0.0002))
    rows, columns, lead = _lines(found)
    g = levels.astype(np.float32)
    return Measures(paper, darkest, _sharpness(g), rows, columns, lead)


def _sharpness(g: np.ndarray) -> float:
    import numpy as np

    if min(g.shape) < 8:
        return 0.0
    core = g[1:-1, 1:-1]
    lap = g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:] - 4 * core
    gx = (g[1:-1, 2:] - g[1:-1, :-2]) / 2
    gy = (g[2:, 1:-1] - g[:-2, 1:-1]) / 2
    grad = gx * gx + gy * gy
    strongest = grad >= np.quantile(grad, 1 - EDGE_SHARE)
    energy = float(grad[strongest].sum())
    if energy <= 0:
        return 0.0
    return float(np.sqrt(float((lap[strongest] ** 2).sum()) / energy))


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
