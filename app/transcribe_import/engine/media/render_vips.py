"""Page renders by libvips (pyvips): shrink-on-load, one resize, libspng; cache and threads bounded.

``render`` decides which pages come here (the common modes of JPEG, PNG, TIFF and WebP) and
keeps Pillow for the rest; this module only turns one page into the PNG the rules in
docs/formats.md ("Renders") describe. libvips is imported when the first page is rendered,
so starting the app or planning a shelf does not load it.

Bounded so that the process-wide decoding budget (``budget``) still holds: libvips' operation
cache is off (each page is decoded once; a cache would keep decoded pixels alive after the
page is written), and each page's pipeline runs on one libvips worker thread, so the import's
workers are the only parallelism, as with Pillow.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, BinaryIO, NoReturn

from transcribe_import.engine.media import budget, quiet
from transcribe_import.engine.media.kinds import (
    JPEG,
    TIFF,
    WEBP,
    RenderedPage,
    RenderSettings,
    RenderStopped,
    Turn,
)

if TYPE_CHECKING:
    import pyvips


@dataclass(frozen=True)
class Thumbnails:
    """Thumbnails to make of each render, from its pixels in memory, and who keeps them.

    ``sink`` is told (page index, longest side, PNG) on the thread that encodes the page:
    for a PDF's pages, one of ``render.PDF_ENCODERS`` threads at once, in any order."""

    sink: Callable[[int, int, bytes], None]
    sides: tuple[int, ...]


# The pHYs chunk libvips always writes says 72 dpi, whatever the source says: the bytes depend
# on the pixels only, as with Pillow's PNGs, which have no pHYs chunk.
_PIXELS_PER_MM = 72 / 25.4
# The decoding budget's estimate of a page (``estimate``): the most a pixel read takes (four
# 16-bit bands), the input rows in flight (libvips' strips and the Lanczos window), and the
# render's pixels held twice (in memory for its thumbnails, and as the PNG being written).
_BYTES_PER_INPUT_PIXEL = 8
_ROWS = 128
_BYTES_PER_RENDER_PIXEL = 8
# Pillow's ``reducing_gap`` in the renders it makes (render._cap_size).
_REDUCING_GAP = 3.0

# What Pillow would hold (its image mode), as libvips loads it: (bands, band format). A page
# libvips loads otherwise is left to Pillow (``render`` falls back), so both libraries agree
# on what the pixels are before either renders them.
# A 16-bit colour PNG is "RGB" to Pillow (it keeps the high bytes): libvips scales it instead.
VIPS_LAYOUTS: dict[str, tuple[tuple[int, str], ...]] = {
    "L": ((1, "uchar"),),
    "LA": ((2, "uchar"),),
    "RGB": ((3, "uchar"), (3, "ushort")),
    "RGBA": ((4, "uchar"), (4, "ushort")),
    "I;16": ((1, "ushort"),),
    "I;16B": ((1, "ushort"),),
    "I;16L": ((1, "ushort"),),
}

# Pillow's Image.transpose for each EXIF orientation, as libvips operations.
_ORIENT: dict[int, Callable[[pyvips.Image], pyvips.Image]] = {
    2: lambda im: im.fliphor(),
    3: lambda im: im.rot180(),
    4: lambda im: im.flipver(),
    5: lambda im: im.rot90().fliphor(),
    6: lambda im: im.rot90(),
    7: lambda im: im.rot270().fliphor(),
    8: lambda im: im.rot270(),
}
# A person's turn of a page, clockwise, as libvips' rotations (clockwise too).
_TURN: dict[Turn, Callable[[pyvips.Image], pyvips.Image]] = {
    Turn.QUARTER: lambda im: im.rot90(),
    Turn.HALF: lambda im: im.rot180(),
    Turn.THREE_QUARTERS: lambda im: im.rot270(),
}


@functools.cache
def _loaded() -> ModuleType | None:
    """pyvips, loaded and bounded once per process (see the module's docstring), or None
    when libvips cannot be loaded (a damaged install): Pillow then renders every page."""
    try:
        import pyvips as loaded
    except (ImportError, OSError) as exc:
        quiet.log.warning("libvips cannot be loaded (%s): pages are rendered with Pillow", exc)
        return None
    loaded.cache_set_max(0)
    loaded.cache_set_max_mem(0)
    loaded.cache_set_max_files(0)
    loaded.concurrency_set(1)
    module: ModuleType = loaded
    return module


def available() -> bool:
    """Whether libvips is there to render (loading it on the first call)."""
    return _loaded() is not None


def vips() -> ModuleType:
    """pyvips, once ``available`` said it is there."""
    module = _loaded()
    if module is None:
        raise VipsRefused("libvips cannot be loaded")
    return module


# The revision of this module's pipeline on libvips: a change that gives other bytes for the
# same page and library takes the next one, so a render's recorded name always names a
# renderer that remakes its bytes (doctor's rule, media/rerender.py). Revision 1 resized with
# libvips' own ``resize``; its renders were named "libvips 8.18.7" alone. Revision 2: the
# resize in Pillow's passes (box by whole factor, Lanczos across rows then down columns).
# Revision 3: the same pixels, the PNG's rows filtered by Sub instead of Paeth.
PIPELINE = 3

# The PNG of each revision this app can render, the one place that says it: (zlib level, the
# filter on every row). Measured on a 2480x3508 A4 scan rendered to 1697x2400 (bench/RESULTS.md,
# "Render PNG settings", and its history's "Issue #26, session 8"): level 1 without a filter,
# libvips' default, is 48 % larger than Pillow's level-1 PNGs (the renders before libvips; the
# limit is 10 %). Level 2 with Paeth (revision 2) is 0.97 and 0.95 of Pillow's size for a
# colour and a grayscale page; with Sub (revision 3) 1.00 and 1.01, for 26 % and 17 % less CPU
# (15 % of a JPEG page's whole render).
PNG_SETTINGS: dict[int, tuple[int, str]] = {
    2: (2, "paeth"),
    3: (2, "sub"),
}
_NAME = re.compile(r"libvips (\d+\.\d+\.\d+)(?: \(render (\d+)\))?(?:,|$)")


def version(revision: int | None = None) -> str:
    """The renderer's name as project.json records it: "libvips 8.18.7 (render 3)", or the
    name of an earlier ``revision`` (one of ``PNG_SETTINGS``)."""
    v = vips().version
    return f"libvips {v(0)}.{v(1)}.{v(2)} (render {revision or PIPELINE})"


def revision_of(renderer: str) -> int | None:
    """The revision that renders again what a recorded libvips ``renderer`` made, None when
    this app has none (a later revision, or not a libvips name).

    The revision the name says (its libvips version may be another: whether that one gives
    the same bytes, the sha256 says). Revision 1 is gone, but its PNG was revision 2's:
    revision 2 remakes the pages revision 1 did not resize (a PDF's, the small ones).
    """
    named = _NAME.match(renderer)
    if named is None:
        return None
    revision = int(named.group(2) or 2)
    return revision if revision in PNG_SETTINGS else None


class VipsRefused(Exception):
    """libvips cannot render this page as Pillow would: the caller renders it with Pillow."""


class _Reader:
    """A libvips source reading ``fp`` (the bounded, fault-injectable reader of fsio).

    An exception in a callback cannot cross libvips, so it is kept and raised again by
    ``reraise`` once libvips has failed: a read error stays the OSError it was.
    """

    def __init__(self, fp: BinaryIO) -> None:
        self.fp = fp
        self.error: OSError | None = None

    def source(self) -> pyvips.SourceCustom:
        self.fp.seek(0)
        src = vips().SourceCustom()
        src.on_read(self._read)
        src.on_seek(self._seek)
        return src

    def _read(self, size: int) -> bytes | None:
        try:
            return self.fp.read(size)
        except OSError as exc:  # what the bounded reader raises (fsio.open_read)
            self.error = exc
            return None  # the end, to libvips: it fails, and reraise raises ``exc``

    def _seek(self, offset: int, whence: int) -> int:
        try:
            return self.fp.seek(offset, whence)
        except OSError as exc:  # what the bounded reader raises (fsio.open_read)
            self.error = exc
            return -1

    def reraise(self, exc: Exception) -> NoReturn:
        if self.error is not None:
            raise self.error from None
        raise VipsRefused(str(exc)) from exc


def render_image(
    fp: BinaryIO,
    media_type: str,
    index: int,
    mode: str,
    orientation: int,
    settings: RenderSettings,
    dp: str,
    should_stop: Callable[[], bool] | None = None,
    thumbnails: Thumbnails | None = None,
    turn: Turn = Turn.NONE,
) -> RenderedPage:
    """Page ``index`` of the image in ``fp`` (Pillow's ``mode`` for it) as a deterministic PNG.

    Raises ``VipsRefused`` when libvips loads the page otherwise than Pillow (its bands or
    depth) or cannot decode it: Pillow then renders it, and says what is wrong if it can't.
    ``should_stop`` is asked as libvips computes the page (every few strips); when it turns
    true the render ends at once with ``RenderStopped``, so a huge page does not hold up a
    pause or a cancel. ``thumbnails``: made of the render and handed to their sink.
    """
    pv = vips()
    reader = _Reader(fp)
    page = {"page": index} if media_type == TIFF else {}
    try:
        im = pv.Image.new_from_source(
            reader.source(), "", access="sequential", fail_on="error", **page
        )
        if (im.bands, im.format) not in VIPS_LAYOUTS.get(mode, ()):
            raise VipsRefused(f"libvips loads a {mode} page as {im.bands} {im.format} bands")
        target = settings.capped(im.width, im.height)
        shrink = _jpeg_shrink(im.width, im.height, target) if media_type == JPEG else 1
        if shrink > 1:
            # libjpeg decodes at 1/2, 1/4 or 1/8 scale: most of the work skipped.
            im = pv.Image.new_from_source(
                reader.source(), "", access="sequential", fail_on="error", shrink=shrink
            )
        held = estimate(
            im.width, im.height, target, streamed=media_type != TIFF and media_type != WEBP
        )
        with budget.DECODE_BUDGET.hold(held):
            out = _display(im, dp)
            out = _reduce(out, target)
            upright = _ORIENT.get(orientation)
            if thumbnails is not None or turn is not Turn.NONE:
                # Computed into memory before it is turned: a turn reads a page read
                # sequentially out of order, which only its PNG's writer may do, and slowly
                # (an A4 scan turned by a person: 5 times faster so; bench/RESULTS.md, "A turned
                # page at render").
                _stop_when(out, should_stop)
                out = out.copy_memory()
            if upright is not None:
                out = upright(out)
            if turn is not Turn.NONE:  # the person's turn, once the file's own is applied
                out = _TURN[turn](out)
            if thumbnails is not None:
                _make_thumbnails(out, index, thumbnails)
            return encode(out, index, should_stop, settings.libvips_revision)
    except pv.Error as exc:
        if should_stop is not None and should_stop():
            raise RenderStopped() from None
        reader.reraise(exc)


def estimate(width: int, height: int, target: tuple[int, int], *, streamed: bool) -> int:
    """The working memory, in bytes, of rendering a page of this size by libvips.

    libvips reads a JPEG or PNG a strip at a time through the resize, so Pillow's estimate
    (``budget.estimate``, 1.3 GiB for a 16-bit 88-megapixel PNG) is many times what it
    takes (bench/bench_memory.py). Counted: the rows in flight, at most 8 bytes a pixel,
    and the render held twice (in memory, as its thumbnails' source, and as its PNG). A
    TIFF or WebP page may be decoded whole first (tiles, libwebp): counted whole.
    """
    rows = width * _BYTES_PER_INPUT_PIXEL * (height if not streamed else min(height, _ROWS))
    return rows + target[0] * target[1] * _BYTES_PER_RENDER_PIXEL


def _jpeg_shrink(width: int, height: int, target: tuple[int, int]) -> int:
    # The largest libjpeg scale whose image is still at least the target, as Pillow's draft.
    for shrink in (8, 4, 2):
        if -(-width // shrink) >= target[0] and -(-height // shrink) >= target[1]:
            return shrink
    return 1


def _reduce(im: pyvips.Image, target: tuple[int, int]) -> pyvips.Image:
    """``im`` made ``target`` as Pillow's ``resize(LANCZOS, reducing_gap=3.0)`` makes it.

    The same steps in the same order, so the rounding falls alike: a box average by the
    whole factor that leaves at least 3 (Pillow's ``reduce``; only for pages six times the
    target), then Lanczos across each row and then down each column, each pass rounded to
    8 bits. libvips' ``resize`` reduces the columns first: its pixels differed from Pillow's
    by 0.22/255 on average on an A4 JPEG scan, these by 0.15 (bench/bench_pixels.py), for
    about 10 % more CPU per colour page and 35 % per grayscale one (libvips reduces a single
    band across the rows without its vector code).
    """
    h_factor, v_factor = im.width / target[0], im.height / target[1]
    box_h, box_v = max(1, int(h_factor / _REDUCING_GAP)), max(1, int(v_factor / _REDUCING_GAP))
    if box_h > 1 or box_v > 1:
        im = im.shrink(box_h, box_v, ceil=True)
        h_factor, v_factor = im.width / target[0], im.height / target[1]
    if im.width != target[0]:
        im = im.reduceh(h_factor, kernel="lanczos3")
    if im.height != target[1]:
        im = im.reducev(v_factor, kernel="lanczos3")
    return im


def _display(im: pyvips.Image, dp: str) -> pyvips.Image:
    """8-bit sRGB or grayscale, alpha composited on white (the rules of docs/formats.md)."""
    if im.bands >= 3 and "icc-profile-data" in im.get_fields():
        try:
            im = im.icc_transform("srgb", embedded=True, intent="perceptual")
        except vips().Error as exc:
            quiet.log.info("%s: ICC profile ignored, libvips cannot use it: %s", dp, exc)
    if im.hasalpha():
        white = 65535 if im.format == "ushort" else 255
        im = im.flatten(background=[white] * (im.bands - 1))
    if im.format == "ushort":
        im = im / 257
    if im.format != "uchar":
        im = im.cast("uchar")
    return im


def encode(
    im: pyvips.Image,
    index: int,
    should_stop: Callable[[], bool] | None = None,
    revision: int | None = None,
) -> RenderedPage:
    """The PNG of an 8-bit image, with nothing from the source in it, by the PNG settings of
    ``revision`` (``PNG_SETTINGS``; None: the current one)."""
    clean = im.copy(
        interpretation="b-w" if im.bands == 1 else "srgb",
        xres=_PIXELS_PER_MM,
        yres=_PIXELS_PER_MM,
    )
    _stop_when(clean, should_stop)
    level, png_filter = PNG_SETTINGS[revision or PIPELINE]
    png: bytes = clean.pngsave_buffer(compression=level, filter=png_filter, keep="none")
    return RenderedPage(
        index, png, clean.width, clean.height, hashlib.sha256(png).hexdigest(), version(revision)
    )


def _make_thumbnails(im: pyvips.Image, index: int, thumbnails: Thumbnails) -> None:
    """Each thumbnail reduced from the render's pixels in memory (12 MB for an A4 page at
    2400 px), the largest first and each smaller one from the one before: about 20 ms for
    the two an A4 page gets, where a decode of their own took three times that."""
    made = im
    for side in sorted(thumbnails.sides, reverse=True):
        width, height = RenderSettings(max_side=side).capped(im.width, im.height)
        made = made.resize(width / made.width, vscale=height / made.height).copy_memory()
        thumbnails.sink(index, side, encode(made, index).png)


def _stop_when(im: pyvips.Image, should_stop: Callable[[], bool] | None) -> None:
    if should_stop is not None:
        im.set_progress(True)
        im.signal_connect("eval", lambda image, _progress: _kill_if(image, should_stop))


def _kill_if(image: pyvips.Image, should_stop: Callable[[], bool]) -> None:
    if should_stop():
        image.set_kill(True)  # libvips stops computing; pngsave fails with "killed"


def encode_rgbx(
    data: memoryview,
    width: int,
    height: int,
    index: int,
    thumbnails: Thumbnails | None = None,
    revision: int | None = None,
) -> RenderedPage:
    """The PNG of pdfium's RGBX bitmap (four bytes a pixel, the fourth unused), by ``revision``'s
    PNG settings (None: the current one)."""
    im = vips().Image.new_from_memory(data, width, height, 4, "uchar").extract_band(0, n=3)
    if thumbnails is not None:
        _make_thumbnails(im, index, thumbnails)
    return encode(im, index, revision=revision)
