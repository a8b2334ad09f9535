"""A page's ink: its dark strokes with the paper and the light taken away, and how much two
pages' inks are one page (the verification of a rescan).

The paper is taken away by dividing the page by a blurred copy of its brightest parts (the
paper's own light: a lamp's uneven light, a darker scan, a yellowed sheet all divide out),
and only what is much darker than the paper around it is ink: the ruling of a notebook
(light blue or grey, some 20 % darker than the paper) is not, the strokes of a pen (60-90 %
darker) are. A scanner lid's white corners showing round a tilted page are lighter than the
paper, so they are no ink either, and a band round the edge (``EDGE``) is left out: the
shadow of a page's edge, the table round a phone's photo. A page with no ink is blank.

Two inks are aligned by phase correlation (numpy's FFT): the whole page at a few scales
(a crop of a few per cent makes the page larger), then each of a grid of tiles, whose own
shifts are fitted to one affine motion (a tilt of up to 2°, a phone's slight perspective).
Their ``score`` is then the least of: how much of each one's ink lies within ``TOLERANCE``
pixels of the other's, their correlation, and the same shares in their worst blocks (a
page number's other digit, another day in a date line, is a small part that does not
match). A sparse page (a page number, a date line, a few words) is decided by its written
part at four times the size (``DETAIL_SIDE``): at ``SIDE`` a page number's digits are some
ten pixels tall. There a pair is the same page only if no small square holds a written part
of one that the other lacks (``_missing``): a page number's other digit, another day, which
the shares of the whole dilute. Two different pages of one notebook share paper, ruling and
hand, but not where their strokes lie.
"""

from __future__ import annotations

import functools
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
from PIL import Image, ImageFilter

# The longest side of an ink image: strokes of handwriting (1-2 mm) are 1-2 pixels, a page
# number's digits 6-8 pixels tall. A 300 dpi A4 JPEG decoded at 1/8 is about 440 pixels.
SIDE = 512

# Darkness (1 - pixel / paper) above which a pixel is ink; the ruling stays below.
INK_FROM = 0.25
INK_FULL = 0.55  # darkness counted as whole ink (between the two, in part)
EDGE = 0.03  # the band round the page left out, of its width and height

# How far two aligned inks may still be apart, in pixels (at SIDE).
TOLERANCE = 1
# The tiles the second alignment moves on their own, across and down, each at least
# ``TILE_LEAST`` pixels: a tile must hold more than a stroke, or moving it on its own lays
# one digit on another (a page number alone is aligned as a whole).
TILES = 4
TILE_LEAST = 64
# How far a tile may move from the whole page's alignment, in pixels.
TILE_SLACK = 8
# The scales the whole page is tried at (a page cropped by a few per cent is larger).
SCALES = (0.96, 0.98, 1.0, 1.02, 1.04)

# The blocks a page is also compared by, in pixels, and the ink (pixels' worth) a block
# must hold to count.
BLOCK = 24
DETAIL_BLOCK = 24  # in a sparse page's written part at DETAIL_SIDE
BLOCK_INK = 12.0

# Ink enough to cover another page's stroke (a faint scan's strokes are fainter).
SOME_INK = 0.1

# A page whose ink covers less than this share of it is blank (the paper's grain, a speck).
BLANK_BELOW = 0.00002

# The score from which two inks are the same page (bench/bench_rescans.py: rescans of every
# kind score above it, distinct pages of one notebook below).
SAME_PAGE = 0.65


@dataclass(frozen=True, eq=False)
class Ink:
    """A page's ink, 0 (paper) to 1, at most ``SIDE`` pixels on its longest side; a page
    with little written (``SPARSE``) has its written part at ``DETAIL_SIDE`` too."""

    pixels: np.ndarray = field(repr=False)  # float32, rows x columns
    detail: np.ndarray | None = field(default=None, repr=False)
    # Where the ink of ``pixels`` is (``_ink_extent``), when ``ink_of`` found it already:
    # the look and the measures ask again (``written``), and it is the same numbers.
    extent: tuple[int, int, int, int] | None = field(default=None, repr=False)

    @functools.cached_property
    def share(self) -> float:
        """How much of the page is ink (asked by the look, the measures and the score:
        made once)."""
        return float(self.pixels.mean())

    @property
    def blank(self) -> bool:
        return self.share < BLANK_BELOW


# A page whose ink lies within this share of its area is sparse (a page number, a date
# line, a few words): at ``SIDE`` a page number's digits are some 10 pixels tall, and a
# 7 and a 2 of one hand cover each other; at ``DETAIL_SIDE`` they do not.
SPARSE = 0.1
# Twice the ink's side: at 1024 pixels (a page at 100 dpi made a little smaller) a 5 and a
# 6 of one hand, ten pixels tall, lie within a pixel of each other nearly everywhere; at
# 2048 their strokes part by more than the tolerance where they differ, while a rescan's
# strokes, aligned, stay on each other (bench/RESULTS.md).
DETAIL_SIDE = 2048
DETAIL_MARGIN = 32  # pixels of paper kept round the written part, at DETAIL_SIDE


def ink_of(image: Image.Image, finer: Callable[[], Image.Image] | None = None) -> Ink:
    """The ink of a decoded page (any size, any mode, upright as it is). ``finer``: the
    same page decoded larger, asked for when the page is sparse and ``image`` is smaller
    than ``DETAIL_SIDE``."""
    base = _ink_pixels(image, SIDE)
    extent = None if float(base.mean()) < BLANK_BELOW else _ink_extent(base)
    box = None if extent is None else _sparse_box(base, extent)
    if box is None:
        return Ink(base, extent=extent)
    if max(image.size) < DETAIL_SIDE and finer is not None:
        image = finer()
    if max(image.size) < 1.5 * SIDE:
        return Ink(base, extent=extent)  # no finer detail to be had
    # Only the band of the page at DETAIL_SIDE the written part lies across is made (a
    # tenth of the page for a date line, where the whole page's ink at 2048 pixels was most
    # of a sparse page's look), the same pixels as the whole page's there: enlarged to it,
    # or shrunk to it as ``_ink_pixels`` shrinks a page (the shrink of a whole 300 dpi A4
    # page cost more than its decode).
    if max(image.size) > DETAIL_SIDE:
        cols, rows = thumbnail_size(image.size, DETAIL_SIDE)
        shape, resample = (rows, cols), Image.Resampling.BOX
    else:
        k = DETAIL_SIDE / max(image.size)
        shape = (max(1, round(image.height * k)), max(1, round(image.width * k)))
        resample = Image.Resampling.BICUBIC
    y0, y1, x0, x1 = _detail_box(box, base.shape, shape)
    if min(shape) < 32:  # a sliver of a page: its paper not taken in quarters
        fine = _ink_pixels(image, DETAIL_SIDE, exactly=True)
        return Ink(base, np.ascontiguousarray(fine[y0:y1, x0:x1]), extent)
    if shape[0] >= shape[1]:
        part = _band_ink(image, shape, (y0, y1), resample)[:, x0:x1]
    else:
        part = _band_ink(image, shape, (x0, x1), resample)[y0:y1, :]
    return Ink(base, np.ascontiguousarray(part), extent)


def thumbnail_size(size: tuple[int, int], side: int) -> tuple[int, int]:
    """The size (width, height) Pillow's ``thumbnail((side, side))`` makes an image of
    ``size`` (larger than ``side``): the aspect kept as nearly as whole pixels allow."""
    width, height = size
    aspect = width / height

    def nearest(number: float, key: Callable[[int], float]) -> int:
        return max(min(math.floor(number), math.ceil(number), key=key), 1)

    if aspect <= 1.0:  # Pillow compares the box asked for (side / side) with the aspect
        return nearest(side * aspect, lambda n: abs(aspect - n / side)), side
    return side, nearest(side / aspect, lambda n: 0 if n == 0 else abs(aspect - side / n))


def _detail_box(
    box: tuple[int, int, int, int], base: tuple[int, ...], fine: tuple[int, ...]
) -> tuple[int, int, int, int]:
    """The written part ``box`` (top, bottom, left, right in the ink at ``SIDE``, of shape
    ``base``) in the ink at ``DETAIL_SIDE`` (of shape ``fine``), ``DETAIL_MARGIN`` of
    paper round it: (top, bottom, left, right)."""
    sy, sx = fine[0] / base[0], fine[1] / base[1]
    top, bottom, left, right = box
    m = DETAIL_MARGIN
    return (
        max(0, int(top * sy) - m),
        min(fine[0], int(bottom * sy) + m),
        max(0, int(left * sx) - m),
        min(fine[1], int(right * sx) + m),
    )


# Rows (at DETAIL_SIDE) of the page made beyond each end of a band (``_band_ink``): the
# paper's light at a row depends on the page within 7 rows of the quarter-size copy
# (the maximum's 2, the blur's 3, the enlarging's 2), so a band this much longer has, in
# its middle, the paper of the whole page.
BAND_MARGIN = 48


def _band_ink(
    image: Image.Image,
    shape: tuple[int, int],
    span: tuple[int, int],
    resample: Image.Resampling = Image.Resampling.BICUBIC,
) -> np.ndarray:
    """``_ink_pixels(image, DETAIL_SIDE, exactly=True)`` (of ``shape``: its longest side
    DETAIL_SIDE long, ``image`` resized to it with ``resample``: BICUBIC enlarges, BOX
    shrinks, as ``_ink_pixels`` does) from ``span[0]`` to ``span[1]`` along its longest
    side only, the whole of the other side: the same pixels, made of the band
    ``BAND_MARGIN`` longer at each end, in quarters aligned as the whole page's are."""
    rows, cols = shape
    along_rows = rows >= cols
    length = rows if along_rows else cols
    lo = max(0, (span[0] - BAND_MARGIN) // 4 * 4)
    hi = min(length, -(-(span[1] + BAND_MARGIN) // 4) * 4)
    grey = image if image.mode == "L" else image.convert("L")  # read, never written
    if grey.size == (cols, rows):  # as long as DETAIL_SIDE already: not resized
        part = grey.crop((0, lo, cols, hi) if along_rows else (lo, 0, hi, rows))
    else:
        source = grey.height if along_rows else grey.width
        part = _resized_span(grey, 0, source, shape, (lo, hi), along_rows, resample)
    small = _paper_small(part)
    paper = _resized_span(
        small, lo // 4, -(-length // 4), shape, span, along_rows, Image.Resampling.BILINEAR
    )
    a, b = span[0] - lo, span[1] - lo
    band = part.crop((0, a, cols, b) if along_rows else (a, 0, b, rows))
    out = _darkness(band, paper)
    _edge_left_out(out, shape, span[0], along_rows)
    return out


def _resized_span(
    image: Image.Image,
    start: int,
    whole: int,
    shape: tuple[int, int],
    span: tuple[int, int],
    along_rows: bool,
    resample: Image.Resampling,
) -> Image.Image:
    """Of a page ``whole`` pixels long along its rows (``along_rows``) or its columns, of
    which ``image`` holds the part from ``start`` (the whole of the other side): the page
    resized to ``shape`` (rows, columns), from ``span[0]`` to ``span[1]`` along that side
    only, the same pixels as Pillow's ``resize`` of the whole page. Pillow resizes across
    first, then down, each pass rounded to bytes; each pass is made here alone on the part
    it needs (4 pixels more at each end than its filter reads), the part's place given to
    Pillow as a ``box`` so each pixel is made from the same place: the scale along that
    side is exact in binary (a length over ``DETAIL_SIDE`` or over 4 times a length)."""
    rows, cols = shape
    out = rows if along_rows else cols
    scale = whole / out
    have = image.height if along_rows else image.width
    first = max(start, int(span[0] * scale) - 4)
    last = min(start + have, -int(-span[1] * scale // 1) + 4)
    lo, hi = span[0] * scale - first, span[1] * scale - first
    if along_rows:
        piece = image.crop((0, first - start, image.width, last - start))
        across = piece if piece.width == cols else piece.resize((cols, piece.height), resample)
        return across.resize((cols, span[1] - span[0]), resample, box=(0, lo, cols, hi))
    piece = image.crop((first - start, 0, last - start, image.height))
    across = piece.resize(
        (span[1] - span[0], piece.height), resample, box=(lo, 0, hi, piece.height)
    )
    return across if across.height == rows else across.resize((across.width, rows), resample)


def _ink_extent(pixels: np.ndarray) -> tuple[int, int, int, int]:
    """Where the ink of a page with some is (top, bottom, left, right): the rows and columns
    holding all but OUTSIDE of it at each end, so a speck far from the writing is left out."""
    total = float(pixels.sum())

    def span(profile: np.ndarray) -> tuple[int, int]:
        cumulative = np.cumsum(profile) / total
        first = int(np.searchsorted(cumulative, OUTSIDE))
        last = int(np.searchsorted(cumulative, 1 - OUTSIDE)) + 1
        return first, max(first + 1, min(last, len(profile)))

    top, bottom = span(pixels.sum(axis=1))
    left, right = span(pixels.sum(axis=0))
    return top, bottom, left, right


def _sparse_box(
    pixels: np.ndarray, extent: tuple[int, int, int, int] | None = None
) -> tuple[int, int, int, int] | None:
    """Where a sparse page's ink is (top, bottom, left, right); None when the page is blank
    or not sparse. ``extent``: ``_ink_extent(pixels)`` of a page found not blank already."""
    if extent is None:
        if float(pixels.mean()) < BLANK_BELOW:
            return None
        extent = _ink_extent(pixels)
    top, bottom, left, right = extent
    if (bottom - top) * (right - left) > SPARSE * pixels.size:
        return None
    return top, bottom, left, right


def _ink_pixels(image: Image.Image, side: int, *, exactly: bool = False) -> np.ndarray:
    """The ink of ``image`` at most ``side`` pixels long (``exactly``: enlarged to it too,
    so that two pages' details, from scans of other dpi, are at one scale)."""
    grey = image.convert("L")
    if max(grey.size) > side:
        grey.thumbnail((side, side), Image.Resampling.BOX)
    elif exactly and max(grey.size) < side:
        k = side / max(grey.size)
        size = (max(1, round(grey.width * k)), max(1, round(grey.height * k)))
        grey = grey.resize(size, Image.Resampling.BICUBIC)
    paper = _paper_small(grey).resize(grey.size, Image.Resampling.BILINEAR)
    ink = _darkness(grey, paper)
    _edge_left_out(ink, (ink.shape[0], ink.shape[1]), 0, True)
    return ink


def _paper_small(grey: Image.Image) -> Image.Image:
    """The paper's light, at a quarter of ``grey``'s size: the brightest pixels near each
    place (a pen's strokes are thin, so a maximum over 5 pixels of an eighth-size copy is
    paper), blurred smooth."""
    small = grey.reduce(4) if min(grey.size) >= 32 else grey
    brightest = Image.fromarray(_max_filter(np.asarray(small), PAPER_WINDOW), "L")
    return brightest.filter(ImageFilter.BoxBlur(3))


def _darkness(grey: Image.Image, paper: Image.Image) -> np.ndarray:
    """The ink of ``grey`` under its ``paper`` (each the same size): 0 up to ``INK_FROM``
    darker than the paper, 1 from ``INK_FULL``."""
    # In place, in float32, in the order of 1 - min(g / p, 1), then scaled and clipped:
    # a page's look is these pixels' hash, so they must not change by a rounding.
    ink = np.asarray(grey, dtype=np.float32)  # a copy: Pillow's buffer is not written
    p = np.maximum(np.asarray(paper, dtype=np.float32), 1.0)
    np.divide(ink, p, out=ink)
    np.minimum(ink, 1.0, out=ink)
    np.subtract(1.0, ink, out=ink)
    np.subtract(ink, INK_FROM, out=ink)
    np.divide(ink, INK_FULL - INK_FROM, out=ink)
    np.clip(ink, 0.0, 1.0, out=ink)
    return ink


def _edge_left_out(ink: np.ndarray, shape: tuple[int, int], start: int, along_rows: bool) -> None:
    """The band ``EDGE`` round a page of ``shape`` made paper in ``ink``: the whole page, or
    the part of it from ``start`` along its rows (``along_rows``) or its columns."""
    rows, cols = shape
    dy, dx = max(1, round(rows * EDGE)), max(1, round(cols * EDGE))
    if along_rows:
        ink[:, :dx] = 0
        ink[:, cols - dx :] = 0
        ink[: max(0, dy - start), :] = 0
        ink[max(0, rows - dy - start) :, :] = 0
    else:
        ink[:dy, :] = 0
        ink[rows - dy :, :] = 0
        ink[:, : max(0, dx - start)] = 0
        ink[:, max(0, cols - dx - start) :] = 0


# The square the paper's light is the brightest pixel of (at an eighth of SIDE).
PAPER_WINDOW = 5


def _max_filter(pixels: np.ndarray, size: int) -> np.ndarray:
    """The brightest pixel within the ``size`` x ``size`` square round each, the edge
    repeated outside: Pillow's ``MaxFilter(size)``, pixel for pixel, in a tenth of its time
    (two passes of maxima of shifted views, where Pillow ranks every square)."""
    r = size // 2
    rows, cols = pixels.shape
    padded = np.pad(pixels, r, mode="edge")
    across = padded[:, :cols].copy()
    for d in range(1, size):
        np.maximum(across, padded[:, d : d + cols], out=across)
    out = across[:rows].copy()
    for d in range(1, size):
        np.maximum(out, across[d : d + rows], out=out)
    return out


# The share of a page's ink left outside its written part at each side (``written``): a
# speck far from the writing does not move it.
OUTSIDE = 0.01
# The least share of the page's height and width the written part must cover to be taken
# as the page's frame: a date line, a few words, a page number are too little to set it
# (a speck would move it), and their pages are taken whole.
LEAST_PART = 0.35


def written(found: Ink) -> np.ndarray:
    """The part of the page its ink is in, leaving ``OUTSIDE`` of the ink out on each
    side: a crop of the paper round the writing, or the table round a photo, leaves it as
    it is. The whole page when that part is smaller than ``LEAST_PART`` either way."""
    pixels = found.pixels
    rows, cols = pixels.shape
    if found.extent is not None:  # found with the ink: the page has some
        top, bottom, left, right = found.extent
    elif float(pixels.sum()) <= 0:
        return pixels
    else:
        top, bottom, left, right = _ink_extent(pixels)
    if bottom - top < LEAST_PART * rows or right - left < LEAST_PART * cols:
        return pixels
    return pixels[top:bottom, left:right]


def turned(ink: Ink, quarters: int) -> Ink:
    """``ink`` turned ``quarters`` quarter turns anticlockwise."""
    if quarters % 4 == 0:
        return ink
    detail = ink.detail

    def made() -> tuple[np.ndarray | None, Ink]:
        return detail, Ink(
            np.ascontiguousarray(np.rot90(ink.pixels, quarters)),
            None if detail is None else np.ascontiguousarray(np.rot90(detail, quarters)),
        )

    # Made once while kept: the same arrays for each of the page's pairs (``_kept``), when
    # the pixels come with the same detail.
    kept_detail, found = _kept(ink.pixels, ("turned", quarters % 4), made)
    return found if kept_detail is detail else made()[1]


def _framed(pixels: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """``pixels`` cut or padded with paper, about their middle, to ``shape``: two pages'
    written parts at one scale brought to one frame."""
    out = np.zeros(shape, dtype=np.float32)
    rows, cols = min(shape[0], pixels.shape[0]), min(shape[1], pixels.shape[1])
    sy, sx = (pixels.shape[0] - rows) // 2, (pixels.shape[1] - cols) // 2
    dy, dx = (shape[0] - rows) // 2, (shape[1] - cols) // 2
    out[dy : dy + rows, dx : dx + cols] = pixels[sy : sy + rows, sx : sx + cols]
    return out


def _fitted(pixels: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """``pixels`` resized to ``shape`` (rows, columns): two scans of one page at other dpi,
    or cropped a little, are brought to one frame."""
    if pixels.shape == shape:
        return pixels
    im = Image.fromarray(pixels, "F").resize((shape[1], shape[0]), Image.Resampling.BILINEAR)
    return np.asarray(im, dtype=np.float32)


def _shifts(fa: np.ndarray, b: np.ndarray, limit: int) -> list[tuple[int, int]]:
    """How far each of the tiles ``b`` (a stack of tiles of one shape) is to be moved
    (rows, columns) to lie on the tile of ``a`` whose spectrum (``np.fft.rfft2``) is the
    same place of ``fa``: phase correlation, the peak looked for within ``limit`` pixels.
    numpy transforms a stack tile by tile, the same values as one at a time in a third of
    the time."""
    fb = np.fft.rfft2(b)
    cross = fa * np.conj(fb)
    cross /= np.maximum(np.abs(cross), 1e-9)
    shape = (b.shape[1], b.shape[2])
    corr = np.fft.irfft2(cross, s=shape)
    corr = np.where(_near_origin(shape, limit), corr, -np.inf)
    rows, cols = shape
    out = []
    for at in np.argmax(corr.reshape(len(corr), -1), axis=1):
        r, c = divmod(int(at), cols)
        out.append(((r - rows if r > rows // 2 else r), (c - cols if c > cols // 2 else c)))
    return out


@functools.lru_cache(maxsize=64)
def _near_origin(shape: tuple[int, int], limit: int) -> np.ndarray:
    """Where a shift of at most ``limit`` pixels either way lies in a correlation of
    ``shape`` (its corners, the shifts wrapping round)."""
    rows, cols = shape
    keep = np.zeros(shape, dtype=bool)
    keep[: limit + 1, : limit + 1] = True
    keep[: limit + 1, cols - limit :] = True
    keep[rows - limit :, : limit + 1] = True
    keep[rows - limit :, cols - limit :] = True
    keep.flags.writeable = False
    return keep


def _moved(b: np.ndarray, dy: int, dx: int) -> np.ndarray:
    """``b`` moved by (dy, dx), what comes in from outside being paper."""
    out = np.zeros_like(b)
    rows, cols = b.shape
    (ys, yd), (xs, xd) = _overlap(rows, dy), _overlap(cols, dx)
    out[yd, xd] = b[ys, xs]
    return out


def _overlap(length: int, d: int) -> tuple[slice, slice]:
    """Along one axis of ``length`` pixels moved by ``d``: the part read and where it lands."""
    if d >= 0:
        return slice(0, length - d), slice(d, length)
    return slice(-d, length), slice(0, length + d)


def _near_ink(pixels: np.ndarray, tolerance: int = TOLERANCE) -> np.ndarray:
    """Where there is some ink within ``tolerance`` pixels (a maximum over a square)."""
    mask = pixels > SOME_INK
    out = mask.copy()
    rows, cols = mask.shape
    for dy in range(-tolerance, tolerance + 1):
        for dx in range(-tolerance, tolerance + 1):
            if dy or dx:
                (ys, yd), (xs, xd) = _overlap(rows, dy), _overlap(cols, dx)
                out[yd, xd] |= mask[ys, xs]
    return out


def _zoomed(pixels: np.ndarray, scale: float) -> np.ndarray:
    """``pixels`` enlarged ``scale`` times about their centre, in the same frame."""
    if scale == 1.0:
        return pixels
    rows, cols = pixels.shape
    k = 1 / scale
    cx, cy = cols / 2, rows / 2
    out = Image.fromarray(pixels, "F").transform(
        (cols, rows),
        Image.Transform.AFFINE,
        (k, 0, cx * (1 - k), 0, k, cy * (1 - k)),
        Image.Resampling.BILINEAR,
    )
    return np.asarray(out, dtype=np.float32)


def _peak(fa: np.ndarray, fb: np.ndarray, shape: tuple[int, ...]) -> tuple[float, int, int]:
    """Phase correlation of ``b`` on ``a`` (of ``shape``) from their spectra
    (``_spectrum``): its peak's height and where it is."""
    cross = fa * np.conj(fb)
    cross /= np.maximum(np.abs(cross), 1e-9)
    corr = np.fft.irfft2(cross, s=shape)
    at = int(np.argmax(corr))
    r, c = divmod(at, corr.shape[1])
    rows, cols = corr.shape
    return (
        float(corr.flat[at]),
        (r - rows if r > rows // 2 else r),
        (c - cols if c > cols // 2 else c),
    )


def _halved(pixels: np.ndarray) -> np.ndarray:
    rows, cols = (pixels.shape[0] // 2) * 2, (pixels.shape[1] // 2) * 2
    p = pixels[:rows, :cols]
    out: np.ndarray = (p[0::2, 0::2] + p[1::2, 0::2] + p[0::2, 1::2] + p[1::2, 1::2]) / 4
    return out


def _soft(pixels: np.ndarray, tolerance: int = TOLERANCE) -> np.ndarray:
    """``pixels`` blurred by about ``tolerance`` pixels (a [1 2 1] kernel, so many times)."""
    out = pixels
    for _ in range(tolerance):
        p = np.pad(out, 1, mode="edge")
        out = (p[:-2, 1:-1] + 2 * p[1:-1, 1:-1] + p[2:, 1:-1]) / 4
        p = np.pad(out, 1, mode="edge")
        out = (p[1:-1, :-2] + 2 * p[1:-1, 1:-1] + p[1:-1, 2:]) / 4
    return out


def _centred(pixels: np.ndarray) -> tuple[np.ndarray, Any]:
    """``pixels`` less their mean, and the sum of their squares (numpy's own scalar, so
    that ``_ncc`` multiplies in the same precision as when it was made there)."""
    c = pixels - pixels.mean()
    return c, (c * c).sum()


def _ncc(a: tuple[np.ndarray, Any], b: tuple[np.ndarray, Any]) -> float:
    """The normalised correlation of two ``_centred`` arrays."""
    (ca, aa), (cb, bb) = a, b
    den = float(np.sqrt(aa * bb))
    return 0.0 if den == 0 else float((ca * cb).sum()) / den


def _warped(pixels: np.ndarray, m: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``pixels`` moved so that what is at ``x - (m @ x + t)`` comes to ``x``."""
    rows, cols = pixels.shape
    data = (1 - m[1, 1], -m[1, 0], -t[1], -m[0, 1], 1 - m[0, 0], -t[0])
    out = Image.fromarray(pixels, "F").transform(
        (cols, rows), Image.Transform.AFFINE, data, Image.Resampling.BILINEAR
    )
    return np.asarray(out, dtype=np.float32)


def _fit(
    centres: np.ndarray, moves: np.ndarray, weights: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The affine motion (m, t), ``move = m @ centre + t`` in (row, column), that the tiles'
    own moves fit best (weighted least squares, the tiles that disagree by more than two
    pixels dropped once); a turn and a scale when the tiles lie in one row (a line of
    words: its tilt is all they can tell), a plain shift when too few tiles tell."""
    keep = np.ones(len(centres), dtype=bool)
    for _ in range(2):
        c, mv, w = centres[keep], moves[keep], weights[keep]
        rank = np.linalg.matrix_rank(c - c.mean(axis=0)) if len(c) >= 2 else 0
        if rank == 1:
            m, t = _similar(c, mv, w)
        elif len(c) < 3 or rank < 2:
            mean = (mv * w[:, None]).sum(axis=0) / max(float(w.sum()), 1e-9)
            return np.zeros((2, 2)), mean
        else:
            design = np.hstack([c, np.ones((len(c), 1))]) * np.sqrt(w)[:, None]
            solved, *_ = np.linalg.lstsq(design, mv * np.sqrt(w)[:, None], rcond=None)
            m, t = solved[:2].T, solved[2]
        residual = np.abs(centres @ m.T + t - moves).max(axis=1)
        keep = residual <= 2.0
        if keep.sum() < 3:
            return m, t
    return m, t


def _similar(
    centres: np.ndarray, moves: np.ndarray, weights: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The turn, scale and shift (m = [[a, -b], [b, a]], t) the moves of tiles in one row
    fit best: two unknowns fewer than an affine motion, so a row of tiles determines it."""
    n = len(centres)
    design = np.zeros((2 * n, 4))
    design[:n, 0], design[:n, 1], design[:n, 2] = centres[:, 0], -centres[:, 1], 1
    design[n:, 0], design[n:, 1], design[n:, 3] = centres[:, 1], centres[:, 0], 1
    root = np.sqrt(np.concatenate([weights, weights]))
    target = np.concatenate([moves[:, 0], moves[:, 1]])
    (a, b, tr, tc), *_ = np.linalg.lstsq(design * root[:, None], target * root, rcond=None)
    return np.array([[a, -b], [b, a]]), np.array([tr, tc])


def aligned(pa: np.ndarray, pb: np.ndarray, slack: int = TILE_SLACK) -> np.ndarray:
    """``pb`` (an ink brought to ``pa``'s frame, upright as ``pa`` is) brought onto ``pa``:
    scaled and shifted as the whole page says, then moved as its tiles say (an affine
    motion: a tilt, a crop, a photo's slight perspective)."""
    # The whole page: the scale (a crop makes the page a little larger) and the shift that
    # line the two up best, at half size.
    # The scales are tried on the quarter-size page, zoomed there (zooming the whole page
    # five times cost more than the rest of a verification).
    # A small written part (a page number) is searched at its own size: a quarter of it
    # is a few pixels.
    # What depends on one page alone (its quarter, its spectra, its zooms, its tiles') is
    # made once for all the pairs it is in (``_kept``).
    small = max(pa.shape) < 4 * TILE_LEAST
    part = "whole" if small else "quarter"
    fqa, shape = _spectrum(pa, part), _part(pa, part).shape
    scale = max(SCALES, key=lambda s: _peak(fqa, _zoomed_spectrum(pb, part, s), shape)[0])
    pb = _kept(pb, ("zoomed", scale), lambda: _zoomed(pb, scale))
    if small:
        _h, dy, dx = _peak(_spectrum(pa, "whole"), _spectrum(pb, "whole"), pa.shape)
        pb = _moved(pb, dy, dx)
    else:
        half = _part(pa, "half").shape
        _h, dy, dx = _peak(_spectrum(pa, "half"), _spectrum(pb, "half"), half)
        pb = _moved(pb, 2 * dy, 2 * dx)
    rows, cols = pa.shape
    down = max(1, min(TILES, rows // TILE_LEAST))
    across = max(1, min(TILES, cols // TILE_LEAST))
    if down * across == 1:
        return pb
    tiles = _tiles(pa, down, across)
    centres, weights, moving = [], [], []
    for k, ((ys, xs), ink_a) in enumerate(zip(tiles.places, tiles.ink, strict=True)):
        w = min(ink_a, float(pb[ys, xs].sum()))
        if w <= 0:
            continue
        centres.append(((ys.start + ys.stop) / 2, (xs.start + xs.stop) / 2))
        weights.append(w)
        moving.append(k)
    if not centres:
        return pb
    moves = tiles.shifts(pb, moving, slack)
    m, t = _fit(np.array(centres, float), np.array(moves, float), np.array(weights, float))
    return _warped(pb, m, t)


# What is made from one page's ink alone for its verifications (its quarter and half, their
# spectra and zooms, its tiles' spectra, its dilated ink, its blurred copy, its block sums) is
# kept for the next pairs it is in: a shelf's page is in some six (bench/RESULTS.md),
# and ``inks.score_many`` hands a worker a page's pairs together. Kept by the array's
# identity (the entry holds the array, so its id is not reused while kept), the most recently
# used up to ``DERIVED_BYTES`` in each process (the main one and each worker): some 6 MiB a
# page of 512 pixels, 5-20 MiB a sparse page's written part at 2048. 96 MiB saved a tenth
# more of the verification's CPU than 32 on the 500-page shelf, and doubled a worker's peak.
DERIVED_BYTES = 32 * 2**20

_T = TypeVar("_T")


@dataclass(eq=False)
class _Derived:
    """What was made from one array (``source``), by what it is."""

    source: np.ndarray
    made: dict[Hashable, Any] = field(default_factory=dict)
    size: int = 0


_derived_lock = threading.Lock()
_derived: OrderedDict[int, _Derived] = OrderedDict()
_derived_size = 0


def _kept(pixels: np.ndarray, what: Hashable, make: Callable[[], _T]) -> _T:
    """``make()``, made from ``pixels`` alone: made once while it is kept. What is kept
    is never written to."""
    global _derived_size
    key = id(pixels)
    with _derived_lock:
        entry = _derived.get(key)
        if entry is not None and entry.source is pixels and what in entry.made:
            _derived.move_to_end(key)
            found: _T = entry.made[what]
            return found
    value = make()  # outside the lock: another thread's pairs go on
    with _derived_lock:
        entry = _derived.get(key)
        if entry is None or entry.source is not pixels:
            if entry is not None:
                _derived_size -= entry.size
            entry = _Derived(pixels, size=pixels.nbytes)
            _derived[key] = entry
            _derived_size += entry.size
        if what not in entry.made:
            entry.made[what] = value
            grown = 0 if value is pixels else _nbytes(value)
            entry.size += grown
            _derived_size += grown
        _derived.move_to_end(key)
        while _derived_size > DERIVED_BYTES and len(_derived) > 1:
            _derived_size -= _derived.popitem(last=False)[1].size
        found = entry.made[what]
    return found


def _nbytes(value: object) -> int:
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, Ink):
        return value.pixels.nbytes + (0 if value.detail is None else value.detail.nbytes)
    if isinstance(value, _Tiles):
        return sum(_nbytes(spectra) for _numbers, spectra in value.spectra.values())
    if isinstance(value, (tuple, list)):
        return 64 + sum(_nbytes(v) for v in value)
    return 64


def forget_derived() -> None:
    """Let go of everything ``_kept`` holds."""
    global _derived_size
    with _derived_lock:
        _derived.clear()
        _derived_size = 0


def _ink_sum(pixels: np.ndarray) -> float:
    return _kept(pixels, "sum", lambda: float(pixels.sum()))


def _fitted_kept(pixels: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """``_fitted``, made once."""
    if pixels.shape == shape:
        return pixels
    return _kept(pixels, ("fitted", shape), lambda: _fitted(pixels, shape))


def _framed_kept(pixels: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """``_framed``, made once."""
    return _kept(pixels, ("framed", shape), lambda: _framed(pixels, shape))


def _part(pixels: np.ndarray, part: str) -> np.ndarray:
    """``pixels`` ``whole``, or at ``half`` or a ``quarter`` of their size, made once."""
    if part == "whole":
        return pixels
    if part == "half":
        return _kept(pixels, "half", lambda: _halved(pixels))
    return _kept(pixels, "quarter", lambda: _halved(_part(pixels, "half")))


def _spectrum(pixels: np.ndarray, part: str) -> np.ndarray:
    """The spectrum (``np.fft.rfft2``) of ``_part(pixels, part)``, made once."""
    return _kept(pixels, ("spectrum", part), lambda: np.fft.rfft2(_part(pixels, part)))


def _zoomed_spectrum(pixels: np.ndarray, part: str, scale: float) -> np.ndarray:
    """The spectrum of ``_part(pixels, part)`` enlarged ``scale`` times, made once."""
    if scale == 1.0:
        return _spectrum(pixels, part)
    return _kept(
        pixels,
        ("zoomed spectrum", part, scale),
        lambda: np.fft.rfft2(_zoomed(_part(pixels, part), scale)),
    )


@dataclass(frozen=True, eq=False)
class _Tiles:
    """A page's tiles: where each is, its ink, and the spectra of the tiles of each shape
    (stacked, with the tiles' numbers)."""

    places: list[tuple[slice, slice]]
    ink: list[float]
    spectra: dict[tuple[int, int], tuple[list[int], np.ndarray]]

    def shifts(self, pb: np.ndarray, which: list[int], limit: int) -> list[tuple[int, int]]:
        """How far each of the tiles ``which`` of ``pb`` is to be moved to lie on this
        page's (``_shifts``), in that order."""
        found: dict[int, tuple[int, int]] = {}
        for numbers, spectra in self.spectra.values():
            at = [i for i, k in enumerate(numbers) if k in which]
            if not at:
                continue
            b = np.stack([pb[self.places[numbers[i]]] for i in at])
            for i, move in zip(at, _shifts(spectra[at], b, limit), strict=True):
                found[numbers[i]] = move
        return [found[k] for k in which]


def _tiles(pixels: np.ndarray, down: int, across: int) -> _Tiles:
    """The ``down`` x ``across`` tiles of ``pixels``, made once."""

    def made() -> _Tiles:
        rows, cols = pixels.shape
        places = [
            (
                slice(i * rows // down, (i + 1) * rows // down),
                slice(j * cols // across, (j + 1) * cols // across),
            )
            for i in range(down)
            for j in range(across)
        ]
        shapes: dict[tuple[int, int], list[int]] = {}
        for k, (ys, xs) in enumerate(places):
            shapes.setdefault((ys.stop - ys.start, xs.stop - xs.start), []).append(k)
        spectra = {
            shape: (numbers, np.fft.rfft2(np.stack([pixels[places[k]] for k in numbers])))
            for shape, numbers in shapes.items()
        }
        ink = [float(pixels[place].sum()) for place in places]
        return _Tiles(places, ink, spectra)

    return _kept(pixels, ("tiles", down, across), made)


def score(a: Ink, b: Ink) -> float:
    """How much the two inks are one page, 0 to 1 (``b`` upright as ``a`` is): once
    aligned, the least of the share of ``a``'s ink lying on ``b``'s, of ``b``'s on
    ``a``'s (each within ``TOLERANCE`` pixels), of their correlation, and of the same
    shares in the worst parts of the page (``_block_scores``). Two sparse pages are told
    apart by their written parts at ``DETAIL_SIDE``: scored likewise, and 0 when a part of
    one's writing is missing from the other (``_missing``); their whole pages then only
    have to agree as wholes (at ``SIDE`` a tilted line of a few words no longer lies within
    a pixel of itself block by block), and two sparse pages whose whole pages score below
    ``EXACT_FROM``, or whose whole pages' correlation has no peak standing out
    (``STANDS_OUT``), score 0 (``_sparse_score``). Blank inks score 0: nothing to tell them
    by."""
    if a.blank or b.blank:
        return 0.0
    if a.detail is None or b.detail is None:
        return _score(a.pixels, _fitted_kept(b.pixels, a.pixels.shape), BLOCK)
    return _sparse_score(a, b, a.detail, b.detail)


# The score from which every score is exact (``_sparse_score``): two sparse pages scoring
# below it are not one page, whatever their exact score, with a margin of 0.15 below
# ``SAME_PAGE``; the verdicts kept in the corpus hold 0 for such a pair
# (docs/formats.md).
EXACT_FROM = SAME_PAGE - 0.15


def _sparse_score(a: Ink, b: Ink, detail_a: np.ndarray, detail_b: np.ndarray) -> float:
    """``score`` of two sparse pages: 0 when a part of one's writing is missing from the
    other (``_is_missing``), when their whole pages' correlation has no peak standing out
    (``_standing_out`` below ``STANDS_OUT``: checked before the whole pages are aligned, a
    fraction of its cost) or when their whole pages score below ``EXACT_FROM`` as wholes,
    else the least of the whole pages' score and their written parts'.

    The score is never above the whole pages' (it is the least of the two, or 0), so a pair
    whose whole pages score below ``EXACT_FROM`` is not one page, and any score from
    ``EXACT_FROM`` up is the one the written parts and the whole pages make together:
    whichever of the two is found first, the score is the same. The cheaper goes first:
    a written part that covers more pixels at ``DETAIL_SIDE`` than the whole page at
    ``SIDE`` (a few lines of writing) costs more to align than the whole page (2.5 times on
    the 500-page shelf, bench/RESULTS.md), so its whole page is scored first, and most
    such pairs that are not one page are turned down there without their written parts
    being aligned; a small written part (a page number, a date line) is aligned first, and
    a part missing turns the pair down without the whole pages being aligned."""
    shape = (
        max(detail_a.shape[0], detail_b.shape[0]),
        max(detail_a.shape[1], detail_b.shape[1]),
    )

    def whole() -> float:
        fitted = _fitted_kept(b.pixels, a.pixels.shape)
        return _score(a.pixels, fitted, BLOCK, by_blocks=False)

    def parts() -> tuple[np.ndarray, np.ndarray]:
        pa = _framed_kept(detail_a, shape)
        return pa, aligned(pa, _framed_kept(detail_b, shape), DETAIL_SLACK)

    def no_peak() -> bool:
        return _standing_out(a.pixels, _fitted_kept(b.pixels, a.pixels.shape)) < STANDS_OUT

    if _whole_first(shape, a.pixels):
        if no_peak():
            return 0.0
        value = whole()
        if value < EXACT_FROM:
            return 0.0
        pa, pb = parts()
        if _is_missing(pa, pb):
            return 0.0
    else:
        pa, pb = parts()
        if _is_missing(pa, pb) or no_peak():
            return 0.0
        value = whole()
        if value < EXACT_FROM:
            return 0.0
    return min(value, _measures(pa, pb, DETAIL_BLOCK, tolerance=DETAIL_TOLERANCE))


# How far the peak of two sparse pages' phase correlation (their whole pages at a quarter
# of their size, at the scale ``aligned`` takes) must stand above the rest of the
# correlation, in its standard deviations, for the pair to be aligned and measured at all
# (``_standing_out``). Two scans of one page with a little written correlate in one sharp
# peak whatever their tilt, crop or light (the least of the 227 true sparse rescans of
# tests/engine/planning/test_rescans_proof.py's labelled sets: 35.8); two different pages
# of one notebook only by chance (the 500-page shelf's sparse pairs: median 22.3, and
# 280 of 407 below 25). A threshold, not a bound, with the nearest true rescan 43 % above
# it; every recorded pair below it scored 0, and of the 10,853 pairs of a cold plan of
# 5,000 shelf pages, one it turns down scored 0.283 (bench/RESULTS.md, "A rescan's
# verification a pair"). Rescans cropped 6 or 8 %, beyond the scale search, keep their
# verdicts with it too: what loses most of them at 8 % is ``SCALES``, not this stage
# (tests/engine/media/test_ink_turned_down.py).
STANDS_OUT = 25.0


def _standing_out(pa: np.ndarray, pb: np.ndarray) -> float:
    """How far the highest peak of the phase correlation of ``pb`` on ``pa`` (the scale
    search of ``aligned``: at a quarter of their size, each of ``SCALES``) stands above
    the correlation's mean, in its standard deviations. Made of the spectra ``aligned``
    makes and keeps, so a pair that goes on to be aligned pays for it only once."""
    part = "whole" if max(pa.shape) < 4 * TILE_LEAST else "quarter"
    fqa, shape = _spectrum(pa, part), _part(pa, part).shape
    best: np.ndarray | None = None
    for s in SCALES:
        cross = fqa * np.conj(_zoomed_spectrum(pb, part, s))
        cross /= np.maximum(np.abs(cross), 1e-9)
        corr = np.fft.irfft2(cross, s=shape)
        if best is None or corr.max() > best.max():
            best = corr
    assert best is not None
    spread = float(best.std())
    return 0.0 if spread == 0 else (float(best.max()) - float(best.mean())) / spread


def _whole_first(shape: tuple[int, int], pixels: np.ndarray) -> bool:
    """Whether two written parts framed to ``shape`` cost more to align than the whole
    page ``pixels``: they hold more pixels (``_sparse_score``)."""
    return shape[0] * shape[1] > pixels.size


# The tolerance at DETAIL_SIDE: the same share of the page as ``TOLERANCE`` at ``SIDE``
# (the written part's strokes are twice as many pixels wide there).
DETAIL_TOLERANCE = 2 * TOLERANCE

# How far a tile of a written part at DETAIL_SIDE may move (a 2° tilt moves the ends of a
# line of words across the page some 15 pixels there).
DETAIL_SLACK = 2 * TILE_SLACK

# The window a written part missing from the other page is looked for in (``_missing``),
# in pixels at DETAIL_SIDE (about a digit's stroke), and the share of the less written
# page's ink it may hold before the two are not one page: a rescan's strokes, aligned,
# leave under 1 % there; another page number's digit, another day, some 10 %.
MISSING_WINDOW = 16
MISSING = 0.02


def _missing(pa: np.ndarray, pb: np.ndarray) -> float:
    """The most ink of one that lies off the other's (more than ``TOLERANCE`` pixels from
    any as dark) in one ``MISSING_WINDOW`` square, as a share of the less inked one's ink:
    the written part one page has and the other has not, where the global shares dilute
    it."""
    least = min(_ink_sum(pa), float(pb.sum()))
    if least <= 0:
        return 1.0
    off_a, off_b = _off(pa, pb)
    return max(_window_most(off_a), _window_most(off_b)) / least


def _off(pa: np.ndarray, pb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each one's ink that lies off the other's (``_missing``)."""
    size = 2 * TOLERANCE + 1
    off_a = np.clip(pa - _max_filter(pb, size), 0.0, None)
    off_b = np.clip(pb - _kept(pa, ("max", size), lambda: _max_filter(pa, size)), 0.0, None)
    return off_a, off_b


def _is_missing(pa: np.ndarray, pb: np.ndarray) -> bool:
    """``_missing(pa, pb) > MISSING``, the same answer: told from the sums of the squares of
    a grid (``_window_bounds``) when they settle it either way, which is most pairs (one
    page's digit missing from the other, or a rescan's strokes all on each other), and from
    ``_missing``'s own sums, which cost more, when they do not."""
    least = min(_ink_sum(pa), float(pb.sum()))
    if least <= 0:
        return True
    line = MISSING * least
    bounds = [_window_bounds(off) for off in _off(pa, pb)]
    if any(low > line * (1 + 1e-6) for low, _high in bounds):
        return True
    if all(high < line * (1 - 1e-6) for _low, high in bounds):
        return False
    return _missing(pa, pb) > MISSING


def _window_bounds(pixels: np.ndarray) -> tuple[float, float]:
    """Below and above ``_window_most(pixels)`` (``pixels`` 0 or more): the largest sum of
    a square of a grid of ``MISSING_WINDOW`` squares (itself a window's sum), and of two by
    two of them (every window lies within one such), each widened by the most
    ``_window_most``'s own sums may be off by (float32 sums down a column, four of them)."""
    w = min(MISSING_WINDOW, *pixels.shape)
    rows, cols = pixels.shape
    grid = np.zeros((-(-rows // w) * w + w, -(-cols // w) * w + w), dtype=np.float32)
    grid[:rows, :cols] = pixels
    squares = grid.reshape(grid.shape[0] // w, w, grid.shape[1] // w, w).sum(
        axis=(1, 3), dtype=np.float64
    )
    fours = squares[:-1, :-1] + squares[1:, :-1] + squares[:-1, 1:] + squares[1:, 1:]
    slack = 4 * rows * float(np.finfo(np.float32).eps) * float(squares.sum())
    return float(squares.max()) - slack, float(fours.max()) + slack


def _window_most(pixels: np.ndarray) -> float:
    """The largest sum of a ``MISSING_WINDOW`` square of ``pixels`` (any place)."""
    w = min(MISSING_WINDOW, *pixels.shape)
    table = np.zeros((pixels.shape[0] + 1, pixels.shape[1] + 1), dtype=np.float64)
    np.cumsum(np.cumsum(pixels, axis=0), axis=1, out=table[1:, 1:])
    sums = table[w:, w:] - table[:-w, w:] - table[w:, :-w] + table[:-w, :-w]
    return float(sums.max())


def _score(pa: np.ndarray, pb: np.ndarray, block: int, *, by_blocks: bool = True) -> float:
    return _measures(pa, aligned(pa, pb), block, by_blocks=by_blocks)


def _measures(
    pa: np.ndarray,
    pb: np.ndarray,
    block: int,
    *,
    by_blocks: bool = True,
    tolerance: int = TOLERANCE,
) -> float:
    """The score of ``pb`` aligned on ``pa``; ``by_blocks``: the worst blocks' too."""
    ink_a, ink_b = _ink_sum(pa), float(pb.sum())
    if ink_a == 0 or ink_b == 0:
        return 0.0
    near_a = _kept(pa, ("near", tolerance), lambda: _near_ink(pa, tolerance))
    near_b = _near_ink(pb, tolerance)
    worst = 1.0
    if by_blocks:
        blocks = _block_scores(pa, pb, near_a, near_b, block)
        # The worst part of the page, one in twenty of them let go: a digit of another page
        # number, another day in a date line, is a part of its own that does not match.
        worst = float(np.sort(blocks)[len(blocks) // 20]) if len(blocks) else 1.0
        # Every measure is 0 or more, so a worst part with none of its ink on the other's
        # is the score, whatever the others (the most common verdict of two pages of one
        # notebook that are not one page: bench/RESULTS.md), and they are not made.
        if worst <= 0:
            return 0.0
    covered_a = float(pa[near_b].sum()) / ink_a
    covered_b = float(pb[near_a].sum()) / ink_b
    centred_a = _kept(pa, ("centred", tolerance), lambda: _centred(_soft(pa, tolerance)))
    correlation = max(0.0, _ncc(centred_a, _centred(_soft(pb, tolerance))))
    return min(correlation, covered_a, covered_b, worst)


def _sums(pixels: np.ndarray, block: int) -> np.ndarray:
    """The sum of each ``block`` x ``block`` block (the ragged edge left out)."""
    rows, cols = (pixels.shape[0] // block) * block, (pixels.shape[1] // block) * block
    p = pixels[:rows, :cols]
    out: np.ndarray = p.reshape(rows // block, block, cols // block, block).sum(axis=(1, 3))
    return out


def _block_scores(
    pa: np.ndarray, pb: np.ndarray, near_a: np.ndarray, near_b: np.ndarray, block: int
) -> np.ndarray:
    """For each block with some ink (``BLOCK_INK`` in the two together), how much its
    ink on each side lies on the other's (the less of the two)."""
    ink_a, ink_b = _kept(pa, ("sums", block), lambda: _sums(pa, block)), _sums(pb, block)
    on_b, on_a = _sums(pa * near_b, block), _sums(pb * near_a, block)
    inked = (ink_a + ink_b) >= BLOCK_INK
    cov_a = np.where(ink_a > 0, on_b / np.maximum(ink_a, 1e-9), 1.0)
    cov_b = np.where(ink_b > 0, on_a / np.maximum(ink_b, 1e-9), 1.0)
    out: np.ndarray = np.minimum(cov_a, cov_b)[inked]
    return out
