"""A page's look: its ink (media/ink.py) and a perceptual hash of it, turned or not.

The look is the first of the two stages that find rescans: its hash finds the few pages
near a page's (planning/look_index.py), and their inks decide (media/ink.py). The hash is
the DCT hash (pHash) made larger, of the page's ink rather than its grey levels, so that
the paper, its ruling and a lamp's uneven light play no part and a page with a date line
or a few words has a look of its own: the ink of the page (of the part its ink is in, for a
page written over a third of it each way, so that a crop of the paper round the writing
changes nothing) is reduced to 32x32, its 12x12 lowest frequencies are taken (the DC term
left out), and each bit says whether a coefficient is above their median: 143 bits. A blank
page (no ink) has no hash: its look says it is blank (``BLANK``), and it is never compared.

The threshold is loose on purpose (``THRESHOLD``): every kind of rescan of the labelled set
falls within it (bench/bench_rescans.py); pages with a line or two written may fall within
it of one another, and the verification tells them apart.

A quarter turn of the page permutes the DCT's coefficients and flips some of their signs,
so the four turns' hashes come from one transform; only the upright one is indexed, and a
new page's four are looked up. The four are kept (``look_to_hex``), not recomputed.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import io
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
from PIL import Image, ImageOps

from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.media import ink, page_measures
from transcribe_import.engine.media.decode import (
    _PDFIUM_LOCK,
    ORIENTATION_TRANSPOSE,
    _image_errors,
    _pdf_document,
    _pdf_errors,
)
from transcribe_import.engine.media.kinds import JPEG, PDF
from transcribe_import.engine.storage import fsio

SIDE = 32  # the page is reduced to SIDE x SIDE grey levels
KEEP = 12  # the KEEP x KEEP lowest frequencies make the hash
BITS = KEEP * KEEP  # bit 0 (the DC term, the page's mean grey) is always 0
HEX_DIGITS = BITS // 4

# At most this many bits differ between a page and a rescan of it (in any of the four turns):
# a page this near is a candidate, which the verification (media/ink.py) then decides.
# Set on the labelled set (bench/bench_rescans.py): every kind of rescan falls below it;
# two pages of full writing are well above, pages with a line or two may not be.
THRESHOLD = 36


class Turn(enum.IntEnum):
    """How far a page is turned clockwise from the one it looks like, in degrees."""

    NONE = 0
    RIGHT = 90
    HALF = 180
    LEFT = 270


@functools.cache
def _cosines() -> np.ndarray:
    """The DCT-II basis: row u is cos(pi (2x + 1) u / 2 SIDE), for the KEEP lowest u."""
    u = np.arange(KEEP)[:, None]
    x = np.arange(SIDE)[None, :]
    return np.cos(np.pi * (2 * x + 1) * u / (2 * SIDE))


def _reduced(found: ink.Ink) -> np.ndarray:
    """The written part of the page (``ink.written``) reduced to SIDE x SIDE, each the
    mean of its part: a crop of the paper round the writing, another dpi, a page photographed
    with the table round it, all leave it as it is."""
    part = Image.fromarray(np.ascontiguousarray(ink.written(found)), "F")
    return np.asarray(part.resize((SIDE, SIDE), Image.Resampling.BOX), dtype=np.float64)


def _coefficients(pixels: np.ndarray) -> np.ndarray:
    """The KEEP x KEEP lowest DCT-II coefficients of a page reduced to SIDE x SIDE
    (``pixels``), [v][u]."""
    cos = _cosines()
    out: np.ndarray = cos @ pixels @ cos.T
    return out


def _bits(coefficients: np.ndarray) -> int:
    """The hash of ``coefficients``: bit i set where coefficient i (row by row) is above
    the median of all but the first (the DC term: its bit is 0)."""
    flat = coefficients.ravel()
    median = np.sort(flat[1:])[(BITS - 1) // 2]
    above = flat > median
    above[0] = False
    return int.from_bytes(np.packbits(above, bitorder="little").tobytes(), "little")


# A quarter turn's signs: coefficient u of a row changes sign where u is odd.
_SIGNS = np.array([-1.0 if u % 2 else 1.0 for u in range(KEEP)])


def _quarter_turn(coefficients: np.ndarray) -> np.ndarray:
    """The coefficients of the page turned a quarter clockwise: a transpose, alternate signs."""
    turned: np.ndarray = (coefficients * _SIGNS[:, None]).T
    return turned


@dataclass(frozen=True)
class Look:
    """A page's hash in its four turns; ``upright`` is the one stored."""

    # turns[k]: the hash of the page turned k quarters anticlockwise, so that it equals the
    # stored hash of a page this one is that page turned k quarters clockwise (Turn(90 * k)).
    turns: tuple[int, int, int, int]

    @property
    def upright(self) -> int:
        return self.turns[0]


def page_look(image: Image.Image) -> Look | None:
    """The look of a decoded page, or None when it is blank (``ink.Ink.blank``)."""
    return seen_page(image).look


@dataclass(frozen=True)
class Seen:
    """What a small decode of a page gives: its ink, its look (None: the page is blank) and
    its measures (media/page_measures.py)."""

    ink: ink.Ink
    look: Look | None
    measures: page_measures.Measures | None = None

    def kept(self) -> str:
        """The look as a plan keeps it (``look_to_hex``), its measures after it; a blank
        page's is ``BLANK`` alone (blank is all that is told of it)."""
        text = look_to_hex(self.look)
        if self.look is None or self.measures is None:
            return text
        return text + page_measures.to_text(self.measures)


def seen_page(image: Image.Image, finer: Callable[[], Image.Image] | None = None) -> Seen:
    """A decoded page's ink and look (any size, any mode: it is reduced first); ``finer``:
    the page decoded larger, for a sparse page's detail (``ink.ink_of``)."""
    found = ink.ink_of(image, finer)
    look = None if found.blank else _look(_reduced(found))
    return Seen(found, look, page_measures.measure(image, found))


def look_of(image: Image.Image) -> Look:
    """The hash of a decoded page, blank or not."""
    return _look(_reduced(ink.ink_of(image)))


def _look(pixels: np.ndarray) -> Look:
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


def to_hex(value: int) -> str:
    """One hash as 36 lower-case hex digits."""
    return f"{value:0{HEX_DIGITS}x}"


LOOK_HEX_DIGITS = 4 * HEX_DIGITS

# A look's text starts with the version of the look: a look of another version (the hash of
# the page's grey levels that came before, 144 bare hex digits) is not compared with these.
PREFIX = "ink1:"
# The look of a page with no ink: it has no hash, and it is counted, never compared.
BLANK = PREFIX + "blank"


def look_to_hex(look: Look | None) -> str:
    """The form kept in a plan and on the page in project.json (its "look"): ``PREFIX``
    then the four turns' hashes, upright first, 144 lower-case hex digits; ``BLANK`` for a
    blank page (None)."""
    if look is None:
        return BLANK
    return PREFIX + "".join(to_hex(t) for t in look.turns)


# A kept hash (``to_hex``), and a kept look's four (``look_to_hex``): what ``from_hex`` and
# ``look_from_hex`` read, checked at once.
_HASH = f"[0-9a-f]{{{HEX_DIGITS}}}"
_HASHES = re.compile(re.escape(PREFIX) + _HASH * 4)


def look_from_hex(text: str) -> Look | None:
    """A kept look, or None when ``text`` is not one (blank, damaged, of another version);
    the measures kept after it (``Seen.kept``) play no part."""
    text = page_measures.look_alone(text)
    if _HASHES.fullmatch(text) is None:
        return None
    a, b, c, d = (
        int(text[k : k + HEX_DIGITS], 16) for k in range(len(PREFIX), len(text), HEX_DIGITS)
    )
    return Look((a, b, c, d))


def is_look(text: str) -> bool:
    """Whether ``look_from_hex`` reads ``text`` as a look, told without reading its hashes."""
    return _HASHES.fullmatch(page_measures.look_alone(text)) is not None


def is_current(text: str | None) -> bool:
    """Whether a kept look is of this version (else the page is looked at again)."""
    return text is not None and text.startswith(PREFIX)


def is_blank(text: str | None) -> bool:
    """Whether a kept look says the page is blank (the one rule: ``ink.Ink.blank``)."""
    return text is not None and page_measures.look_alone(text) == BLANK


def from_hex(text: str) -> int | None:
    """A stored hash, or None when ``text`` is not one (an older or damaged document)."""
    return int(text, 16) if re.fullmatch(_HASH, text) else None


# -- a page file's looks, from a small decode of its own -----------------------------------

# The longest side a page is decoded at for its look and its ink: a JPEG is decoded at the
# largest of libjpeg's 1/2, 1/4, 1/8 that keeps it at least this long (a 300 dpi A4 scan:
# 1/4), so that its ink has the detail a verification needs (media/ink.py).
LOOK_SIDE = ink.SIDE

# Why a page file's look may not be made: its data fails to decode after all (the scan's
# check passed, so this is rare; the decoders' own failures come as TranscribeError), or
# the file changed or went away since it was read. The hash is derived data: without it
# the page is simply not compared by its look, and nothing else depends on it.
_LOOK_ERRORS = (OSError, TranscribeError)


def page_looks(
    path: Path, media_type: str, page_count: int, *, size: int, data: bytes | None = None
) -> tuple[str | None, ...]:
    """The look (``look_to_hex``) of each page of a page file, None for a page whose look
    could not be made. ``data``: the file's bytes already read (the scan's); else it is read.

    Made from a small decode of its own, where one is cheap: a JPEG decoded by libjpeg at a
    fraction (its draft mode), EXIF orientation applied; a PDF page that is one JPEG scan,
    likewise (``_pdf_images``). PNG, TIFF, WebP and HEIC have no shrink-on-load: a look of
    their own would decode each page whole a second time, doubling their scan; theirs are
    made from the scan's check, which decodes them anyway (``DecodedLooks``), and here they
    have none.
    """
    return tuple(
        None if s is None else s.kept()
        for s in page_seen(path, media_type, page_count, size=size, data=data, any_type=False)
    )


def page_seen(
    path: Path,
    media_type: str,
    page_count: int,
    *,
    size: int,
    data: bytes | None = None,
    any_type: bool = True,
    detail: bool = True,
) -> tuple[Seen | None, ...]:
    """The ink and look of each page of a page file, None where they could not be made.
    ``any_type``: a PNG, TIFF, WebP or HEIC page too, decoded whole (what a verification
    asks of a page whose ink is not in memory); else only JPEG and PDF pages. ``detail``:
    a sparse page's ink has its detail (``ink.ink_of``), from a second, larger decode;
    without it, the ink is the look's alone (the look is the same)."""
    try:
        with _opened(path, size, data) as fp:
            if media_type == PDF:
                images = _pdf_images(fp, page_count, str(path))
            elif media_type == JPEG:
                images = [_jpeg(fp.read(), str(path), exif=True)]
            elif any_type:
                images = [(im, None) for im in _whole_images(path, page_count, size, data)]
            else:
                return (None,) * page_count
            return tuple(_seen(im, finer if detail else None) for im, finer in images)
    except _LOOK_ERRORS:
        return (None,) * page_count


def page_ink(
    path: Path,
    media_type: str,
    page_count: int,
    page_index: int,
    *,
    size: int,
    data: bytes | None = None,
) -> ink.Ink | None:
    """The ink of one page of a page file, any type (``page_seen``'s, the same pixels), or
    None where it cannot be made: what a verification asks of a page whose ink is not kept,
    which needs neither its look nor its measures, nor a PDF's other pages decoded."""
    if not 0 <= page_index < page_count:
        return None
    try:
        with _opened(path, size, data) as fp:
            if media_type == PDF:
                image, finer = _pdf_images(fp, page_count, str(path), only=page_index)[page_index]
            elif media_type == JPEG:
                image, finer = _jpeg(fp.read(), str(path), exif=True)
            else:
                whole = _whole_images(path, page_count, size, data)
                image, finer = (whole[page_index] if page_index < len(whole) else None), None
            return None if image is None else ink.ink_of(image, finer)
    except (*_LOOK_ERRORS, ValueError):
        return None


def _seen(image: Image.Image | None, finer: Callable[[], Image.Image] | None = None) -> Seen | None:
    if image is None:
        return None
    try:
        return seen_page(image, finer)
    except (ValueError, OSError):  # derived data: a page whose pixels will not hash has none
        return None


def _whole_images(
    path: Path, page_count: int, size: int, data: bytes | None
) -> list[Image.Image | None]:
    """The pages of a PNG, TIFF, WebP or HEIC file, each shrunk as ``DecodedLooks`` does,
    from the same decode the scan's check makes."""
    from transcribe_import.engine.media import decode

    small = DecodedLooks()
    info = decode.probe(path, size=size, check_data=True, data=data, decoded=small.seen)
    return small.upright(page_count, info.orientation)


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

    def upright(self, page_count: int, orientation: int) -> list[Image.Image | None]:
        """Each page shrunk and turned upright (None: not decoded, or not shrunk)."""
        turn = ORIENTATION_TRANSPOSE.get(orientation)
        out: list[Image.Image | None] = []
        for frame in range(page_count):
            small = self._small.get(frame)
            try:
                out.append(small if small is None or turn is None else small.transpose(turn))
            except (ValueError, OSError):
                out.append(None)
        return out

    def looks(self, page_count: int, orientation: int) -> tuple[str | None, ...] | None:
        """Each page's look (None: it could not be made), or None when the check decoded
        no page."""
        if not self._small:
            return None
        seen = [_seen(im) for im in self.upright(page_count, orientation)]
        return tuple(None if s is None else s.kept() for s in seen)


@contextlib.contextmanager
def _opened(path: Path, size: int, data: bytes | None) -> Iterator[BinaryIO]:
    if data is not None:
        yield io.BytesIO(data)
        return
    with fsio.open_read(path, size=size) as fp:
        yield fp


# A page decoded and the same page decoded larger, when asked (``ink.ink_of``'s ``finer``).
_Decoded = tuple[Image.Image | None, Callable[[], Image.Image] | None]


def _jpeg(data: bytes, dp: str, *, exif: bool) -> _Decoded:
    """A JPEG's bytes decoded at ``LOOK_SIDE``, and how to decode them at ``ink.DETAIL_SIDE``.
    A JPEG shorter than twice ``LOOK_SIDE`` (a phone's or a scanner's small export) is
    decoded once: libjpeg's fraction is 1 for either side, so the larger decode would be the
    same pixels again (``_jpeg_whole``)."""

    def at(side: int) -> Image.Image:
        return _jpeg_image(io.BytesIO(data), dp, exif=exif, side=side)

    whole = _jpeg_whole(data, dp, exif=exif)
    if whole is None:
        return at(LOOK_SIDE), lambda: _jpeg_finer(data, dp, exif=exif)
    small, finer = whole
    return small, lambda: finer


def _draft_scale(size: tuple[int, int], side: int) -> int:
    """The fraction (1/1, 1/2, 1/4, 1/8) libjpeg decodes a JPEG of ``size`` at for a page at
    least ``side`` long."""
    scale = max(1, max(size) // side)
    return 8 if scale >= 8 else 4 if scale >= 4 else 2 if scale >= 2 else 1


def _jpeg_image(fp: BinaryIO, dp: str, *, exif: bool, side: int) -> Image.Image:
    """A JPEG decoded grey at the largest fraction libjpeg offers that keeps it at least
    ``side`` long, then shrunk to it; turned upright as its EXIF says (``exif``)."""
    with _image_errors(JPEG, dp), Image.open(fp, formats=["JPEG"]) as im:
        # Grey: libjpeg skips the colour planes, and the ink is of grey levels anyway.
        scale = _draft_scale(im.size, side)
        im.draft("L", (max(1, im.width // scale), max(1, im.height // scale)))
        im.thumbnail((side, side), Image.Resampling.BOX)
        return ImageOps.exif_transpose(im) if exif else im.copy()


def _jpeg_whole(data: bytes, dp: str, *, exif: bool) -> tuple[Image.Image, Image.Image] | None:
    """``_jpeg_image`` at ``LOOK_SIDE`` and at ``ink.DETAIL_SIDE``, the same pixels, from one
    decode, for a JPEG decoded whole for both (else None): shorter than ``DETAIL_SIDE``, the
    larger is that decode as it is, and the look's is shrunk from it as ``_jpeg_image``
    shrinks it (then each turned upright)."""
    with _image_errors(JPEG, dp), Image.open(io.BytesIO(data), formats=["JPEG"]) as im:
        if _draft_scale(im.size, LOOK_SIDE) != 1 or _draft_scale(im.size, ink.DETAIL_SIDE) != 1:
            return None
        im.draft("L", im.size)
        im.load()
        turn = ORIENTATION_TRANSPOSE.get(im.getexif().get(_ORIENTATION, 1)) if exif else None
    whole: Image.Image = im  # its pixels are loaded: closing the file leaves them
    small = whole
    if max(whole.size) > LOOK_SIDE:  # what ``thumbnail`` does, without a copy first
        size = ink.thumbnail_size(whole.size, LOOK_SIDE)
        small = whole.resize(size, Image.Resampling.BOX)
    if turn is None:
        return small, whole
    return small.transpose(turn), whole.transpose(turn)


def _jpeg_finer(data: bytes, dp: str, *, exif: bool) -> Image.Image:
    """A JPEG decoded for a sparse page's detail: at the fraction ``_jpeg_image`` decodes it
    at for ``ink.DETAIL_SIDE``, and not shrunk to it when it is longer: ``ink.ink_of``
    shrinks the band of it it needs alone, the same pixels as the whole page shrunk. A JPEG
    its EXIF turns or flips is shrunk whole first, as ``_jpeg_image`` does (a shrink and a
    turn do not make the same bytes in either order)."""
    with _image_errors(JPEG, dp):
        im = Image.open(io.BytesIO(data), formats=["JPEG"])
        turn = ORIENTATION_TRANSPOSE.get(im.getexif().get(_ORIENTATION, 1)) if exif else None
        if turn is not None:
            return _jpeg_image(io.BytesIO(data), dp, exif=exif, side=ink.DETAIL_SIDE)
        scale = _draft_scale(im.size, ink.DETAIL_SIDE)
        im.draft("L", (max(1, im.width // scale), max(1, im.height // scale)))
        im.load()
        return im


# The EXIF tag of a photo's orientation (what ``ImageOps.exif_transpose`` reads).
_ORIENTATION = 0x0112


def _pdf_images(
    fp: BinaryIO, page_count: int, dp: str, *, only: int | None = None
) -> list[_Decoded]:
    """Each page's scan: a scanner's PDF page is one JPEG image covering the page, decoded
    as a JPEG file is. A page that is anything else (text, drawings, several images,
    another codec) has none: rasterising it costs pdfium the whole image's decode, 200 ms
    an A4 page (bench/RESULTS.md). ``only``: that page's alone (the others have none)."""
    import pypdfium2.raw as pdfium_c

    out: list[_Decoded] = []
    with _pdf_document(fp, dp) as doc:
        for index in range(page_count):
            if only is not None and index != only:
                out.append((None, None))
                continue
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
            out.append((None, None) if data is None else _jpeg(data, dp, exif=False))
    return out


# How much of a PDF page its one image must cover for the page to be a scan.
_PAGE_COVERED = 0.8
