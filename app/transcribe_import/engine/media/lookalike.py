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
kept with the page, and a new page's four are compared with another's upright one. The four
are kept (``look_to_hex``), not recomputed: a turn flips the sign of coefficients, and a bit
says where a coefficient stands against the median, not its sign.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import io
import math
import operator
import statistics
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from PIL import Image, ImageOps

from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.media.decode import (
    _PDFIUM_LOCK,
    ORIENTATION_TRANSPOSE,
    _image_errors,
    _open_image,
    _pdf_document,
    _pdf_errors,
)
from transcribe_import.engine.media.kinds import JPEG, PDF
from transcribe_import.engine.storage import fsio

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


def _reduced(image: Image.Image) -> Image.Image:
    return image.convert("L").resize((SIDE, SIDE), Image.Resampling.BOX)


def _coefficients(pixels: bytes) -> list[list[float]]:
    """The KEEP x KEEP lowest DCT-II coefficients of a page reduced to SIDE x SIDE grey
    levels (``pixels``, row by row), [v][u]."""
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


# A page with less detail than this has no look: the standard deviation of its SIDE x SIDE
# grey levels. A blank or flat page (paper and its noise only) would look like every other
# blank page, every one a "rescan" of the others; its bits are noise around one median. Any
# written page has more: 2.9 for a page of the labelled set with a single line written,
# 11-12 for a full one; a scan of blank paper, below 1.
MIN_DETAIL = 2.0


def page_look(image: Image.Image) -> Look | None:
    """The look of a decoded page, or None when it has too little detail to have one."""
    pixels = _reduced(image).tobytes()
    if statistics.pstdev(pixels) < MIN_DETAIL:
        return None
    return _look(pixels)


def look_of(image: Image.Image) -> Look:
    """The hash of a decoded page (any size, any mode: it is reduced first)."""
    return _look(_reduced(image).tobytes())


def _look(pixels: bytes) -> Look:
    coefficients = _coefficients(pixels)
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
    """One hash as 36 lower-case hex digits."""
    return f"{value:0{HEX_DIGITS}x}"


LOOK_HEX_DIGITS = 4 * HEX_DIGITS


def look_to_hex(look: Look) -> str:
    """The form kept in a plan and on the page in project.json (its "look"): the four turns'
    hashes, upright first, 144 lower-case hex digits."""
    return "".join(to_hex(t) for t in look.turns)


def look_from_hex(text: str) -> Look | None:
    """A kept look, or None when ``text`` is not one (damaged, or another tool's)."""
    if len(text) != LOOK_HEX_DIGITS:
        return None
    parts = [from_hex(text[k : k + HEX_DIGITS]) for k in range(0, LOOK_HEX_DIGITS, HEX_DIGITS)]
    if any(p is None for p in parts):
        return None
    a, b, c, d = (p or 0 for p in parts)
    return Look((a, b, c, d))


def from_hex(text: str) -> int | None:
    """A stored hash, or None when ``text`` is not one (an older or damaged document)."""
    if len(text) != HEX_DIGITS or not text.isascii() or text != text.lower():
        return None
    try:
        return int(text, 16)
    except ValueError:
        return None


# -- a page file's looks, from a small decode of its own -----------------------------------

# The longest side a page is decoded at for its hash: the hash reduces it to 32x32 anyway,
# and the threshold was set on pages of about this size (a JPEG's 1/8 decode of an A4 scan).
LOOK_SIDE = 320

# Why a page file's look may not be made: its data fails to decode after all (the scan's
# check passed, so this is rare; the decoders' own failures come as TranscribeError), or
# the file changed or went away since it was read. The hash is derived data: without it
# the page is simply not compared by its look, and nothing else depends on it.
_LOOK_ERRORS = (OSError, TranscribeError)


def page_looks(
    path: Path, media_type: str, page_count: int, *, size: int, data: bytes | None = None
) -> tuple[str | None, ...]:
    """The look (``look_to_hex``) of each page of a page file, None for a page whose look
    could not be made, or that has none (``page_look``: a blank page). ``data``: the file's
    bytes already read (the scan's); else it is read.

    Made at scan from a small decode of its own, where one is cheap: a JPEG decoded at 1/8
    by libjpeg (its draft mode), EXIF orientation applied; a PDF page that is one JPEG scan,
    likewise (``_pdf_looks``). PNG, TIFF, WebP and HEIC have no shrink-on-load: a look of
    their own would decode each page whole a second time, doubling their scan; theirs are
    made from the scan's check, which decodes them anyway (``DecodedLooks``), and here they
    have none.
    """
    if media_type not in (JPEG, PDF):
        return (None,) * page_count
    try:
        with _opened(path, size, data) as fp:
            if media_type == PDF:
                return _pdf_looks(fp, page_count, str(path))
            return (_file_look(fp, str(path)),)
    except _LOOK_ERRORS:
        return (None,) * page_count


# Modes Pillow's ``reduce`` takes; any other page is made grey first.
_REDUCIBLE = frozenset({"L", "LA", "RGB", "RGBA", "RGBX", "CMYK", "I", "F"})


class DecodedLooks:
    """The looks of the pages the scan's check decodes whole (PNG, TIFF, WebP, HEIC: formats
    with no smaller decode), made from that decode rather than a second one of their own.

    ``seen`` is ``decode.probe``'s ``decoded``: it keeps each page shrunk to about
    ``LOOK_SIDE`` (the full page is not kept); ``looks`` then hashes them, upright.
    """

    def __init__(self) -> None:
        self._small: dict[int, Image.Image | None] = {}

    def seen(self, frame: int, image: Image.Image) -> None:
        try:
            base = image if image.mode in _REDUCIBLE else image.convert("L")
            factor = max(1, max(base.size) // LOOK_SIDE)
            small = base.reduce(factor) if factor > 1 else base.copy()
            small.thumbnail((LOOK_SIDE, LOOK_SIDE), Image.Resampling.BOX)
        except (ValueError, OSError):  # a mode or depth it cannot shrink: no look
            small = None
        self._small[frame] = small

    def looks(self, page_count: int, orientation: int) -> tuple[str | None, ...] | None:
        """Each page's look (None: it has none), or None when the check decoded no page."""
        if not self._small:
            return None
        turn = ORIENTATION_TRANSPOSE.get(orientation)
        out: list[str | None] = []
        for frame in range(page_count):
            out.append(_upright_look(self._small.get(frame), turn))
        return tuple(out)


def _upright_look(small: Image.Image | None, turn: Image.Transpose | None) -> str | None:
    if small is None:
        return None
    try:
        return _hex(page_look(small if turn is None else small.transpose(turn)))
    except (ValueError, OSError):  # derived data: a page whose pixels will not hash has none
        return None


@contextlib.contextmanager
def _opened(path: Path, size: int, data: bytes | None) -> Iterator[BinaryIO]:
    if data is not None:
        yield io.BytesIO(data)
        return
    with fsio.open_read(path, size=size) as fp:
        yield fp


def _file_look(fp: BinaryIO, dp: str) -> str | None:
    """A JPEG file's look: decoded at 1/8, turned upright as its EXIF says."""
    with _image_errors(JPEG, dp), _open_image(fp, JPEG) as im:
        # Grey: libjpeg skips the colour planes, and the hash is of grey levels anyway.
        im.draft("L", (max(1, im.width // 8), max(1, im.height // 8)))
        im.thumbnail((LOOK_SIDE, LOOK_SIDE), Image.Resampling.BOX)
        return _hex(page_look(ImageOps.exif_transpose(im)))


def _hex(look: Look | None) -> str | None:
    return None if look is None else look_to_hex(look)


def _pdf_looks(fp: BinaryIO, page_count: int, dp: str) -> tuple[str | None, ...]:
    """Each page's look from the scan it holds: a scanner's PDF page is one JPEG image
    covering the page, decoded at 1/8 as a JPEG file is. A page that is anything else
    (text, drawings, several images, another codec) has no look: rasterising it costs
    pdfium the whole image's decode, 200 ms an A4 page (bench/RESULTS.md), in the scan."""
    import pypdfium2.raw as pdfium_c

    looks: list[str | None] = []
    with _pdf_document(fp, dp) as doc:
        for index in range(page_count):
            with _PDFIUM_LOCK, _pdf_errors(dp):
                page = doc[index]
                try:
                    width, height = page.get_size()
                    images = list(page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE]))
                    scan = images[0] if len(images) == 1 else None
                    data = None
                    if scan is not None and scan.get_filters() == ["DCTDecode"]:
                        left, bottom, right, top = scan.get_bounds()
                        if (right - left) * (top - bottom) >= _PAGE_COVERED * width * height:
                            data = bytes(scan.get_data(decode_simple=True))
                finally:
                    page.close()
            looks.append(None if data is None else _jpeg_look(data, dp))
    return tuple(looks)


# How much of a PDF page its one image must cover for the page to be a scan.
_PAGE_COVERED = 0.8


def _jpeg_look(data: bytes, dp: str) -> str | None:
    """The look of a PDF page's JPEG image (None when it has none)."""
    with _image_errors(JPEG, dp), Image.open(io.BytesIO(data), formats=["JPEG"]) as im:
        im.draft("L", (max(1, im.width // 8), max(1, im.height // 8)))
        im.thumbnail((LOOK_SIDE, LOOK_SIDE), Image.Resampling.BOX)
        return _hex(page_look(im))
