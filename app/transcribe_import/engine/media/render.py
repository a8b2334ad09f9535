"""Rendering: the pages of a page file as deterministic PNGs, by libvips where it can, else Pillow.

libvips (``render_vips``) renders the common pages about four times faster than Pillow:
8- and 16-bit grayscale, RGB and RGBA JPEG, PNG, TIFF and WebP, and encodes the bitmaps
pdfium rasterises from PDFs. Pillow keeps what it reads better or alone: palette and
bilevel images, CMYK, 32-bit and float pixels, a colour made transparent by a tRNS chunk,
HEIC photos (through pi-heif), and every page libvips loads otherwise than Pillow or cannot
decode. Pillow also renders again, for ``doctor``, a render it made before libvips did.
Each ``RenderedPage`` names its renderer, which project.json records.

Probing, the decoder errors' wording and the PDF documents are ``decode``'s, shared here.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import enum
import functools
import hashlib
import io
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, cast

import PIL
from PIL import Image

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.text import counted
from transcribe_import.engine.media import budget, quiet, render_vips
from transcribe_import.engine.media.decode import (
    _PDFIUM_LOCK,
    ORIENTATION_TRANSPOSE,
    _check_pixels,
    _exif_facts,
    _header_exif,
    _image_errors,
    _open_image,
    _page_size,
    _pdf_document,
    _pdf_errors,
    _safe_getexif,
)
from transcribe_import.engine.media.kinds import (
    HEIC,
    MEDIA_EXTENSIONS,
    PDF,
    TIFF,
    RenderedPage,
    RenderSettings,
    Turn,
    kind_name,
)
from transcribe_import.engine.media.sniff import SNIFF_BYTES, media_type_of
from transcribe_import.engine.storage import fsio

if TYPE_CHECKING:
    import pypdfium2 as pdfium
    from PIL import ImageCms

DEFAULT_SETTINGS = RenderSettings()

# A person's turn of a page (clockwise) as Pillow's transpose, whose ROTATE_N is anticlockwise.
TURN_TRANSPOSE: dict[Turn, Image.Transpose] = {
    Turn.QUARTER: Image.Transpose.ROTATE_270,
    Turn.HALF: Image.Transpose.ROTATE_180,
    Turn.THREE_QUARTERS: Image.Transpose.ROTATE_90,
}


class RenderEngine(enum.Enum):
    """Which library renders a page: libvips where it can (the default), or Pillow only."""

    LIBVIPS = "libvips"
    PILLOW = "Pillow"


def engine_of(renderer: str | None) -> RenderEngine:
    """The engine that made a render, from its recorded renderer.

    A render without one was made before renderers were recorded: by Pillow.
    """
    if renderer is not None and renderer.startswith(RenderEngine.LIBVIPS.value):
        return RenderEngine.LIBVIPS
    return RenderEngine.PILLOW


def pillow_version() -> str:
    return f"Pillow {PIL.__version__}"


@functools.cache
def _pdfium_version() -> str:
    import pypdfium2.version

    return f"pdfium {pypdfium2.version.PDFIUM_INFO.build}"


def render_pages(
    path: Path,
    media_type: str,
    page_indices: Sequence[int],
    settings: RenderSettings = DEFAULT_SETTINGS,
    display_path: str | None = None,
    size: int | None = None,
    *,
    engine: RenderEngine = RenderEngine.LIBVIPS,
    should_stop: Callable[[], bool] | None = None,
    thumbnails: render_vips.Thumbnails | None = None,
    turns: Mapping[int, Turn] | None = None,
) -> Iterator[RenderedPage]:
    """Render the given pages of a page file as deterministic PNGs, in the order asked.

    A generator: the file is opened, and errors raised, when iteration starts. Every index
    is checked before the first page is rendered. ``engine``: PILLOW renders every page
    with Pillow, as before libvips was used (``doctor`` rendering such a render again);
    ``settings.libvips_revision`` names an earlier revision of libvips' pipeline for doctor.
    ``should_stop``: asked while libvips renders a page; true ends it with ``RenderStopped``.
    ``thumbnails``: made of each page rendered, from its pixels in memory (by libvips, or by
    Pillow for a page Pillow renders), so the window's grid never decodes the page again.
    ``turns``: a person's turn of some pages (by page index), applied after the file's
    EXIF orientation, so the render is upright. A turned page makes no thumbnail: they are
    kept by the file's bytes, and show the file as it is (``_thumbnails_of``).
    """
    turned = dict(turns or {})
    if media_type not in MEDIA_EXTENSIONS:
        raise ValueError(f"unknown media type {media_type!r}")
    dp = display_path or str(path)
    indices = list(page_indices)
    try:
        with fsio.open_read(path, size=size) as fp:
            found = media_type_of(fp.read(SNIFF_BYTES), dp)
            if found != media_type:
                raise TranscribeError(
                    ErrorCode.MEDIA_MISMATCH,
                    f"{dp}: expected a {kind_name(media_type)} but the file holds a "
                    f"{kind_name(found)}; it does not match what was recorded. "
                    "Remove it and add it again.",
                    path=dp,
                )
            fp.seek(0)
            if media_type == PDF:
                yield from _render_pdf(fp, indices, settings, dp, engine, thumbnails, turned)
            else:
                yield from _render_image(
                    fp, media_type, indices, settings, dp, engine, should_stop, thumbnails, turned
                )
    except OSError as exc:
        raise fsio.problem_from_oserror(exc, dp, "reading") from exc


def _check_indices(indices: Sequence[int], count: int, dp: str) -> None:
    for index in indices:
        if not 0 <= index < count:
            raise TranscribeError(
                ErrorCode.MEDIA_MISMATCH,
                f"{dp}: page {index + 1} was asked for but the file has {counted(count, 'page')}; "
                "it does not match what was recorded. Remove it and add it again.",
                path=dp,
            )


def _render_image(
    fp: BinaryIO,
    media_type: str,
    indices: list[int],
    settings: RenderSettings,
    dp: str,
    engine: RenderEngine,
    should_stop: Callable[[], bool] | None,
    thumbnails: render_vips.Thumbnails | None,
    turns: Mapping[int, Turn],
) -> Iterator[RenderedPage]:
    with contextlib.ExitStack() as stack:
        with _image_errors(media_type, dp, settings):
            im = stack.enter_context(_open_image(fp, media_type))
            count = int(getattr(im, "n_frames", 1)) if media_type == TIFF else 1
        _check_indices(indices, count, dp)
        for index in indices:
            with _image_errors(media_type, dp, settings):
                if media_type == TIFF:
                    im.seek(index)
                _check_pixels(*im.size, settings, dp)
                page = None
                turn = turns.get(index, Turn.NONE)
                if engine is RenderEngine.LIBVIPS and _libvips_reads(im, media_type):
                    page = _render_by_libvips(
                        im,
                        fp,
                        index,
                        media_type,
                        settings,
                        dp,
                        should_stop,
                        _thumbnails_of(thumbnails, turn),
                        turn,
                    )
                if page is None:
                    page = _render_frame(
                        im, index, settings, dp, _thumbnails_of(thumbnails, turn), turn
                    )
            yield page


def _thumbnails_of(
    thumbnails: render_vips.Thumbnails | None, turn: Turn
) -> render_vips.Thumbnails | None:
    """Where a page's thumbnails go: nowhere for a turned page. Thumbnails are kept by the
    file's bytes and page (thumbs.py), and show the file as it is; the window turns them as
    the plan says, so a turned render's would be turned twice, and in every later plan."""
    return thumbnails if turn is Turn.NONE else None


def _libvips_reads(im: Image.Image, media_type: str) -> bool:
    """Whether libvips renders this page (judged from Pillow's header: nothing decoded)."""
    return (
        media_type != HEIC
        and im.mode in render_vips.VIPS_LAYOUTS
        and "transparency" not in im.info
        and render_vips.available()
    )


def _render_by_libvips(
    im: Image.Image,
    fp: BinaryIO,
    index: int,
    media_type: str,
    settings: RenderSettings,
    dp: str,
    should_stop: Callable[[], bool] | None,
    thumbnails: render_vips.Thumbnails | None,
    turn: Turn,
) -> RenderedPage | None:
    """The page rendered by libvips, or None when Pillow must render it (logged)."""
    orientation, _ = _exif_facts(_header_exif(im, fp))
    try:
        page = render_vips.render_image(
            fp,
            media_type,
            index,
            im.mode,
            orientation,
            settings,
            dp,
            should_stop,
            thumbnails,
            turn,
        )
    except render_vips.VipsRefused as exc:
        quiet.log.info("%s: rendered with Pillow, libvips cannot: %s", dp, exc)
        return None
    finally:
        if media_type == TIFF:
            im.seek(index)  # libvips moved the shared file: Pillow finds its frame again
    return page


def _render_frame(
    im: Image.Image,
    index: int,
    settings: RenderSettings,
    dp: str,
    thumbnails: render_vips.Thumbnails | None = None,
    turn: Turn = Turn.NONE,
) -> RenderedPage:
    width, height = im.size
    longest = max(width, height)
    if im.format in ("JPEG", "MPO") and longest > settings.max_side:
        # libjpeg can decode at 1/2, 1/4 or 1/8 scale: draft picks the smallest that is still
        # at least the target, which skips most of the decoding work for big photos.
        scale = settings.max_side / longest
        im.draft(None, (math.ceil(width * scale), math.ceil(height * scale)))
    # The decode's working memory is held from the process-wide budget (budget.py), so
    # huge pages never decode all at once, however many workers there are.
    with budget.DECODE_BUDGET.hold(budget.estimate(*im.size)):
        im.load()
        # Read after load so a PNG's eXIf chunk after the image data counts, as in probe.
        orientation, _ = _exif_facts(_safe_getexif(im))
        out = _to_display_mode(_to_srgb(im, dp))
        out = _cap_size(out, settings)
        transpose = ORIENTATION_TRANSPOSE.get(orientation)
        if transpose is not None:
            out = out.transpose(transpose)
        if turn is not Turn.NONE:  # the person's turn, once the file's own is applied
            out = out.transpose(TURN_TRANSPOSE[turn])
        if thumbnails is not None:
            _make_thumbnails(out, index, settings, thumbnails)
        return _encode(out, index, settings, pillow_version())


def _make_thumbnails(
    out: Image.Image, index: int, settings: RenderSettings, thumbnails: render_vips.Thumbnails
) -> None:
    """Each thumbnail of a page Pillow rendered, from the render's pixels in memory (as
    render_vips makes those of the pages libvips renders): the largest first, each smaller
    one from the one before, so the grid never decodes the page again."""
    made = out
    for side in sorted(thumbnails.sides, reverse=True):
        made = _resized(made, RenderSettings(max_side=side).capped(*out.size))
        thumbnails.sink(index, side, _encode(made, index, settings, pillow_version()).png)


# The colour spaces of the ICC profiles converted, by the image modes they describe.
_ICC_MODES: dict[str, tuple[str, str]] = {
    # mode: (the profile's colour space as LittleCMS names it, the mode converted to)
    "RGB": ("RGB ", "RGB"),
    "RGBA": ("RGB ", "RGBA"),
    "CMYK": ("CMYK", "RGB"),
}


def _to_srgb(im: Image.Image, dp: str) -> Image.Image:
    """Colour pixels in sRGB, converted from the image's embedded ICC profile (if any).

    A render carries no profile, so a viewer shows it as sRGB: an Adobe RGB or CMYK scan
    copied as is would look flat or wrong. A grayscale profile is left alone (the page
    stays grayscale), and so is a profile LittleCMS cannot use (logged; the pixels are
    shown as they are, as before). LittleCMS is deterministic, so the bytes still depend
    on the input, the settings and the library versions only.
    """
    icc = im.info.get("icc_profile")
    wanted = _ICC_MODES.get(im.mode)
    if not icc or wanted is None:
        return im
    from PIL import ImageCms

    space, out_mode = wanted
    try:
        source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
        if source.profile.xcolor_space != space:
            quiet.log.info("%s: ICC profile ignored: it is not for %s pixels", dp, im.mode)
            return im
        converted = ImageCms.profileToProfile(im, source, _srgb_profile(), outputMode=out_mode)
    except (ImageCms.PyCMSError, OSError, ValueError, TypeError) as exc:
        quiet.log.info("%s: ICC profile ignored, LittleCMS cannot use it: %s", dp, exc)
        return im
    assert converted is not None  # inPlace=False always returns the new image
    return converted


@functools.cache
def _srgb_profile() -> ImageCms.ImageCmsProfile:
    from PIL import ImageCms

    return ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))


def _to_display_mode(im: Image.Image) -> Image.Image:
    """8-bit RGB or L, alpha composited on white; grayscale sources stay grayscale."""
    mode = im.mode
    if mode == "P":
        if "transparency" in im.info:
            return _on_white(im.convert("RGBA"))
        palette = im.getpalette() or []
        triples = zip(palette[0::3], palette[1::3], palette[2::3], strict=False)
        gray = all(r == g == b for r, g, b in triples)
        return im.convert("L" if gray else "RGB")
    if mode in ("L", "RGB") and "transparency" in im.info:
        return _on_white(im.convert("LA" if mode == "L" else "RGBA"))
    if mode in ("L", "RGB"):
        return im
    if mode == "1":
        return im.convert("L")
    if mode in ("LA", "La", "PA", "RGBA", "RGBa"):
        return _on_white(im.convert("LA" if mode in ("LA", "La") else "RGBA"))
    if mode.startswith("I;16") or mode == "I":
        # Pillow's convert clips 16-bit values at 255 instead of scaling them.
        return im.convert("I").point(lambda v: v * (1 / 257)).convert("L")
    if mode == "F":
        low, high = cast(tuple[float, float], im.getextrema())  # one band: (min, max)
        span = (high - low) or 1.0
        return im.point(lambda v: (v - low) * (255.0 / span)).convert("L")
    return im.convert("RGB")


def _on_white(im: Image.Image) -> Image.Image:
    base = im.mode[:-1]
    background = Image.new(base, im.size, 255 if base == "L" else (255, 255, 255))
    background.paste(im.convert(base), mask=im.getchannel("A"))
    return background


def _cap_size(im: Image.Image, settings: RenderSettings) -> Image.Image:
    size = settings.capped(*im.size)
    if size == im.size:
        return im
    return _resized(im, size)


def _resized(im: Image.Image, size: tuple[int, int]) -> Image.Image:
    """A render's (or a thumbnail's) reduction: Lanczos, after a box reduction to within 3x."""
    return im.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)


def _encode(im: Image.Image, index: int, settings: RenderSettings, renderer: str) -> RenderedPage:
    # A copy with empty info, so nothing from the source (ICC profile, transparency, text,
    # dpi) reaches the PNG: the bytes depend on the pixels and the settings only.
    clean = im.copy()
    clean.info = {}
    buf = io.BytesIO()
    clean.save(buf, "PNG", compress_level=settings.png_compress_level, optimize=False)
    png = buf.getvalue()
    width, height = clean.size
    return RenderedPage(index, png, width, height, hashlib.sha256(png).hexdigest(), renderer)


def _render_pdf(
    fp: BinaryIO,
    indices: list[int],
    settings: RenderSettings,
    dp: str,
    engine: RenderEngine,
    thumbnails: render_vips.Thumbnails | None = None,
    turns: Mapping[int, Turn] | None = None,
) -> Iterator[RenderedPage]:
    turned = dict(turns or {})
    with _pdf_document(fp, dp) as doc:
        with _PDFIUM_LOCK:
            count = len(doc)
        _check_indices(indices, count, dp)
        if engine is RenderEngine.LIBVIPS and render_vips.available():
            yield from _pdf_pages_by_libvips(doc, indices, settings, dp, thumbnails, turned)
            return
        for index in indices:
            with _PDFIUM_LOCK, _pdf_errors(dp):
                image = _rasterise(doc, index, settings.max_side, dp, turned.get(index, Turn.NONE))
            renderer = f"{pillow_version()}, {_pdfium_version()}"
            yield _encode(image, index, settings, renderer)


# The threads that encode a PDF's pages while the next ones rasterise (``_pdf_pages_by_libvips``).
# pdfium rasterises one page at a time in the process (_PDFIUM_LOCK), in about half the time
# libvips takes to encode it (bench/RESULTS.md's history, "Issue #26, session 7"): two encoders
# keep a long PDF, alone in its checkpoint, on both cores of a 2-core machine instead of one; a
# third would wait for the rasterising, however many cores there are.
PDF_ENCODERS = 2
# A PDF page's memory from its rasterising to its PNG, held from the decoding budget: pdfium's
# RGBX bitmap and the copy made of it (4 bytes a pixel each), then the copy and its PNG.
_PDF_BYTES_PER_PIXEL = 8


def _pdf_pages_by_libvips(
    doc: pdfium.PdfDocument,
    indices: list[int],
    settings: RenderSettings,
    dp: str,
    thumbnails: render_vips.Thumbnails | None,
    turns: Mapping[int, Turn],
) -> Iterator[RenderedPage]:
    """The pages rasterised in order on this thread, each encoded by libvips on one of
    ``PDF_ENCODERS`` threads while the next ones rasterise; yielded in order, with the bytes
    each had when every page waited for the one before. At most ``PDF_ENCODERS + 1`` pages
    are held at once, each holding its memory from the decoding budget until it is encoded.
    A page pdfium cannot rasterise raises once the pages before it have been yielded; when
    the caller stops iterating, the pages being encoded are finished and the rest are not
    encoded."""
    if len(indices) == 1:  # one page (a thumbnail, doctor's page): nothing to overlap
        turn = turns.get(indices[0], Turn.NONE)
        yield _pdf_encoded(
            *_pdf_page(doc, indices[0], settings, dp, turn),
            _thumbnails_of(thumbnails, turn),
            settings.libvips_revision,
        )
        return
    pending: collections.deque[tuple[concurrent.futures.Future[RenderedPage], int]] = (
        collections.deque()
    )
    pool = concurrent.futures.ThreadPoolExecutor(PDF_ENCODERS, thread_name_prefix="pdf-encode")
    try:
        for index in indices:
            try:
                turn = turns.get(index, Turn.NONE)
                page = _pdf_page(doc, index, settings, dp, turn)
            except Exception:
                while pending:
                    yield pending.popleft()[0].result()
                raise
            encoding = pool.submit(
                _pdf_encoded, *page, _thumbnails_of(thumbnails, turn), settings.libvips_revision
            )
            pending.append((encoding, page[-1]))
            if len(pending) > PDF_ENCODERS:
                yield pending.popleft()[0].result()
        while pending:
            yield pending.popleft()[0].result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        for future, held in pending:
            if future.cancelled():  # never encoded: its memory is given back here
                budget.DECODE_BUDGET.give(held)


def _pdf_page(
    doc: pdfium.PdfDocument, index: int, settings: RenderSettings, dp: str, turn: Turn
) -> tuple[bytes, int, int, int, int]:
    """Page ``index`` rasterised: (RGBX bytes, width, height, index, the budget it holds).

    The budget is held for the largest page the settings give (a square of ``max_side``),
    before pdfium's lock is taken, and given back by ``_pdf_encoded``."""
    held = budget.DECODE_BUDGET.take(settings.max_side**2 * _PDF_BYTES_PER_PIXEL)
    try:
        with _PDFIUM_LOCK, _pdf_errors(dp):
            rgbx, width, height = _rasterise_rgbx(doc, index, settings.max_side, dp, turn)
    except BaseException:
        budget.DECODE_BUDGET.give(held)
        raise
    return rgbx, width, height, index, held


def _pdf_encoded(
    rgbx: bytes,
    width: int,
    height: int,
    index: int,
    held: int,
    thumbnails: render_vips.Thumbnails | None,
    revision: int | None,
) -> RenderedPage:
    """A rasterised PDF page encoded by libvips (outside pdfium's lock: other pages rasterise
    meanwhile) by ``revision``'s PNG settings, named for both libraries; the budget its page
    held given back."""
    try:
        page = render_vips.encode_rgbx(
            memoryview(rgbx), width, height, index, thumbnails, revision=revision
        )
    finally:
        budget.DECODE_BUDGET.give(held)
    renderer = f"{page.renderer}, {_pdfium_version()}"
    return RenderedPage(index, page.png, width, height, page.sha256, renderer)


def _pdf_scale(page: pdfium.PdfPage, index: int, max_side: int, dp: str) -> float:
    """The scale that gives page ``index`` exactly ``max_side`` on its longest side."""
    width, height = _page_size(page, index, dp)
    longest = max(width, height)
    scale = max_side / longest
    # pypdfium2 rounds the bitmap size up, so float error could give max_side + 1.
    while math.ceil(longest * scale) > max_side:
        scale = math.nextafter(scale, 0.0)
    return scale


def _rasterise(
    doc: pdfium.PdfDocument, index: int, max_side: int, dp: str, turn: Turn
) -> Image.Image:
    """Page ``index`` as Pillow's RGB, as before libvips, ``turn`` clockwise (pdfium turns
    it as it rasterises); the caller holds the lock."""
    page = doc[index]
    try:
        scale = _pdf_scale(page, index, max_side, dp)
        bitmap = page.render(scale=scale, rotation=turn.value, fill_color=(255, 255, 255, 255))
        try:
            # to_pil may share the bitmap's memory; copy before the bitmap is freed.
            image: Image.Image = bitmap.to_pil().convert("RGB").copy()
            return image
        finally:
            bitmap.close()
    finally:
        page.close()


def _rasterise_rgbx(
    doc: pdfium.PdfDocument, index: int, max_side: int, dp: str, turn: Turn
) -> tuple[bytes, int, int]:
    """Page ``index`` as RGBX bytes (four a pixel, no row padding) and its size, ``turn``
    clockwise; locked."""
    page = doc[index]
    try:
        scale = _pdf_scale(page, index, max_side, dp)
        bitmap = page.render(
            scale=scale,
            rotation=turn.value,
            fill_color=(255, 255, 255, 255),
            prefer_bgrx=True,
            rev_byteorder=True,
        )
        try:
            assert bitmap.n_channels == 4 and bitmap.stride == 4 * bitmap.width
            return bytes(bitmap.buffer), bitmap.width, bitmap.height
        finally:
            bitmap.close()
    finally:
        page.close()
