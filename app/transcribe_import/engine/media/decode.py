"""Decoding: probe page files' headers; the decoders' errors and PDF documents ``render`` shares.

With ``render`` (the pages as PNGs), the only modules that import Pillow and pypdfium2; what a
media type is lives in ``kinds``, recognising one from its bytes in ``sniff``, and keeping the
decoders' warnings off the terminal in ``quiet``.

pdfium (pypdfium2) renders PDFs, so it alone judges them: whether one opens, needs a
password, how many pages it has and their labels. pypdfium2 is imported when a PDF is first
met, so planning a shelf of images does not pay for it.
"""

from __future__ import annotations

import contextlib
import functools
import io
import math
import re
import struct
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, NoReturn

from PIL import ExifTags, Image

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.media import check, quiet
from transcribe_import.engine.media.kinds import (
    HEIC,
    KIND_BY_TYPE,
    PDF,
    TIFF,
    MediaInfo,
    RenderSettings,
    kind_name,
)
from transcribe_import.engine.media.sniff import SNIFF_BYTES, media_type_of
from transcribe_import.engine.storage import fsio

if TYPE_CHECKING:
    import pypdfium2 as pdfium

# The values probe returns and takes, importable from here with it.
__all__ = ["DEFAULT_SETTINGS", "MediaInfo", "RenderSettings", "probe"]

DEFAULT_SETTINGS = RenderSettings()

quiet.demote_library_logs()
quiet.silence_libtiff()

# pdfium is not thread-safe, so every call into it is serialised. Re-entrant because an
# abandoned render generator may be finalised by the garbage collector in a thread that
# already holds the lock, and its cleanup closes a document.
_PDFIUM_LOCK = threading.RLock()

# Decoders raise these (besides OSError without an errno) on malformed data.
_DECODE_ERRORS: tuple[type[BaseException], ...] = (
    SyntaxError,
    ValueError,
    EOFError,
    struct.error,
    IndexError,
    KeyError,
    TypeError,
    ZeroDivisionError,
    MemoryError,
)

# EXIF blocks are often damaged; Pillow raises on some (and warns on others, which
# quiet.caught records). Spelled out as tuples (not starred in the except clauses) so the
# type checker sees exception types.
_EXIF_ERRORS: tuple[type[BaseException], ...] = _DECODE_ERRORS
_EXIF_IO_ERRORS: tuple[type[BaseException], ...] = (OSError, *_EXIF_ERRORS)
_READ_ERRORS: tuple[type[BaseException], ...] = (OSError, *_DECODE_ERRORS)

_EXIF_DATETIME = re.compile(r"^(\d{4}):(\d{2}):(\d{2})[ T](\d{2}):(\d{2}):(\d{2})")


# -- probing -------------------------------------------------------------------------------


# An EXIF orientation as the turn or flip that makes the page upright (Pillow's
# exif_transpose): what a render and a page's look both apply.
ORIENTATION_TRANSPOSE: dict[int, Image.Transpose] = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}


def probe(
    path: Path,
    settings: RenderSettings = DEFAULT_SETTINGS,
    display_path: str | None = None,
    size: int | None = None,
    *,
    check_data: bool = False,
    data: bytes | None = None,
    decoded: Callable[[int, Image.Image], None] | None = None,
) -> MediaInfo:
    """Type, page count, size and capture time of a page file, from its headers alone.

    ``size``: the file's planned size; any other is a coded ``source_changed``. ``data``:
    the file's bytes, already read (``check.read_once``): probed from memory instead.

    ``check_data`` (the scan, once per file): also refuse a file whose headers are whole
    but whose data would fail at commit (an image cut short inside, a TIFF codec this build
    lacks, a broken APNG default image), as cheaply as its format allows (``check``).
    PDFs always have every page loaded by pdfium. ``decoded``: shown each page the check
    decodes whole (``check.check_data``).
    """
    dp = display_path or str(path)
    try:
        with _opened(path, size, data) as fp:
            media_type = media_type_of(fp.read(SNIFF_BYTES), dp)
            fp.seek(0)
            if media_type == PDF:
                return _probe_pdf(fp, dp)
            check.check_not_truncated(fp, media_type, dp)
            fp.seek(0)
            return _probe_image(fp, media_type, settings, dp, check_data, decoded)
    except OSError as exc:
        raise fsio.problem_from_oserror(exc, dp, "reading") from exc


def _opened(
    path: Path, size: int | None, data: bytes | None
) -> contextlib.AbstractContextManager[BinaryIO]:
    if data is None:
        return fsio.open_read(path, size=size)
    return contextlib.nullcontext(io.BytesIO(data))


def _probe_image(
    fp: BinaryIO,
    media_type: str,
    settings: RenderSettings,
    dp: str,
    check_data: bool,
    decoded: Callable[[int, Image.Image], None] | None = None,
) -> MediaInfo:
    errors = _image_errors(media_type, dp, settings)
    with errors, _open_image(fp, media_type) as im:
        width, height = im.size
        if im.format == "TIFF":
            # Recent Pillow reports a TIFF's size already turned upright; start from the
            # stored dimensions so the orientation is applied exactly once, as in render.
            tags = im.tag_v2  # type: ignore[attr-defined]  # TiffImageFile's, untyped
            width = tags.get(256, width)
            height = tags.get(257, height)
        _check_pixels(width, height, settings, dp)
        page_count = 1
        if media_type == TIFF:
            page_count = int(getattr(im, "n_frames", 1))
            for frame in range(1, page_count):
                im.seek(frame)
                _check_pixels(*im.size, settings, dp)
            im.seek(0)
        exif = _header_exif(im, fp)
        orientation, captured_at = _exif_facts(exif)
        dpi = _recorded_dpi(im, exif)
        if check_data:
            check.check_data(im, fp, page_count, dp, decoded)
    if orientation in (5, 6, 7, 8):
        width, height = height, width
    return MediaInfo(media_type, page_count, width, height, captured_at, orientation, dpi=dpi)


def _recorded_dpi(im: Image.Image, exif: Image.Exif | None) -> float | None:
    """The resolution ``im``'s file records, in dots per inch, when it records one with a
    unit and square pixels: a JPEG's JFIF density (per inch or per cm), else its EXIF
    XResolution; a PNG's pHYs (per metre) and a TIFF's resolution (Pillow's ``dpi``). None
    otherwise: a JFIF density without a unit is only the pixels' shape, and the 72 Pillow
    gives a JPEG, or the 1 it gives a TIFF, that records nothing is not the file's. Whether
    the value is plausible is planning/second_look.py's to judge."""
    if im.format in ("JPEG", "MPO"):
        unit = im.info.get("jfif_unit")
        if unit in (1, 2):
            x, y = im.info.get("jfif_density", (0, 0))
            scale = 1.0 if unit == 1 else 2.54
        elif exif is not None and ExifTags.Base.XResolution in exif:
            unit = exif.get(ExifTags.Base.ResolutionUnit, 2)  # EXIF's default: inches
            if unit not in (2, 3):
                return None
            x = exif[ExifTags.Base.XResolution]
            y = exif.get(ExifTags.Base.YResolution, x)
            scale = 1.0 if unit == 2 else 2.54
        else:
            return None
    elif im.format == "TIFF" and ExifTags.Base.XResolution not in im.tag_v2:  # type: ignore[attr-defined]
        return None  # Pillow reads a TIFF without its resolution tags as 1 dpi
    else:
        recorded = im.info.get("dpi")
        if not isinstance(recorded, tuple) or len(recorded) != 2:
            return None
        (x, y), scale = recorded, 1.0
    try:
        x, y = float(x) * scale, float(y) * scale
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    if not (math.isfinite(x) and math.isfinite(y) and x > 0 and abs(x - y) <= 0.02 * x):
        return None
    return round(x, 1)


def _open_image(fp: BinaryIO, media_type: str) -> Image.Image:
    """Pillow's image of ``fp``, trying only the decoder its bytes were sniffed as."""
    if media_type == HEIC:
        _register_heif()
    else:
        _register_plugins()
    # Only formats with an opener: Pillow would import every plugin to look for one for
    # "MPO", which JPEG's opener opens.
    formats = [f for f in KIND_BY_TYPE[media_type].pil_formats if f in Image.OPEN]
    return Image.open(fp, formats=formats)


@functools.cache
def _register_plugins() -> None:
    # Pillow registers a handful of formats up front and imports all of its 40-odd plugins
    # (a tenth of a second) the first time it is asked for another one (MPO, TIFF, WebP):
    # importing the ones the kinds name is enough.
    from PIL import (  # noqa: F401 - imported to register them
        JpegImagePlugin,
        MpoImagePlugin,
        PngImagePlugin,
        TiffImagePlugin,
        WebPImagePlugin,
    )


@functools.cache
def _register_heif() -> None:
    # pi-heif loads libheif and libde265 (several MB): only when a HEIC is first met, so
    # starting the app or planning a shelf of scans does not pay for it. libheif applies
    # the photo's rotation (irot/imir) and pi-heif then sets the EXIF orientation to 1, so
    # the orientation is applied once, as for a JPEG.
    import pi_heif

    pi_heif.register_heif_opener()


def _header_exif(im: Image.Image, fp: BinaryIO) -> Image.Exif | None:
    # Pillow's PngImageFile.getexif() decodes every pixel to look for an eXIf chunk after the
    # image data; walking the chunk headers finds it without decoding.
    if im.format == "PNG" and "exif" not in im.info:
        data = _png_late_exif(fp)
        if data is None:
            return None
        exif = Image.Exif()
        try:
            exif.load(data)
        except _EXIF_ERRORS:
            return None
        return exif
    return _safe_getexif(im)


def _png_late_exif(fp: BinaryIO) -> bytes | None:
    fp.seek(8)
    while True:
        header = fp.read(8)
        if len(header) < 8:
            return None
        length, kind = struct.unpack(">I4s", header)
        if kind == b"eXIf":
            data = fp.read(length)
            return data if len(data) == length else None
        if kind == b"IEND":
            return None
        fp.seek(length + 4, io.SEEK_CUR)


def _safe_getexif(im: Image.Image) -> Image.Exif | None:
    # Broken EXIF must not cost the page: it only loses its orientation and date.
    try:
        return im.getexif()
    except OSError as exc:
        if exc.errno is not None:
            raise
        return None
    except _EXIF_ERRORS:
        return None


def _exif_facts(exif: Image.Exif | None) -> tuple[int, str | None]:
    if exif is None:
        return 1, None
    orientation = exif.get(ExifTags.Base.Orientation, 1)
    if not isinstance(orientation, int) or not 1 <= orientation <= 8:
        orientation = 1
    captured_at = None
    try:
        sub = exif.get_ifd(ExifTags.IFD.Exif)
    except _EXIF_IO_ERRORS:
        sub = {}
    for value in (sub.get(ExifTags.Base.DateTimeOriginal), exif.get(ExifTags.Base.DateTime)):
        captured_at = _iso_datetime(value)
        if captured_at is not None:
            break
    return orientation, captured_at


def _iso_datetime(value: object) -> str | None:
    if isinstance(value, bytes):
        value = value.decode("ascii", errors="replace")
    if not isinstance(value, str):
        return None
    match = _EXIF_DATETIME.match(value.strip("\x00 "))
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(g) for g in match.groups())
    # Cameras without a clock write zeros; those are not dates.
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 61):
        return None
    if year < 1800:
        return None
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{min(second, 59):02d}"


def _check_pixels(width: int, height: int, settings: RenderSettings, dp: str) -> None:
    if width * height > settings.max_pixels:
        _raise_bomb(dp, f"{width}x{height} pixels", settings.max_pixels)


def _raise_bomb(dp: str, size: str, limit: int) -> NoReturn:
    raise TranscribeError(
        ErrorCode.DECOMPRESSION_BOMB,
        f"{dp}: the image is {size}, more than the {limit / 1_000_000:.0f} megapixels allowed. "
        "Scale it down (e.g. to 600 dpi) and add it again.",
        path=dp,
    )


@contextlib.contextmanager
def _library_warnings(dp: str) -> Iterator[None]:
    """Keep the decoders' warnings about ``dp`` off the terminal: logged at INFO instead.

    None of them refuses a file by itself: Pillow's DecompressionBombWarning is matched by
    our own pixel limit (``_check_pixels``), and the rest (damaged EXIF, a broken APNG
    animation, a PDF form pdfium cannot load) describe damage the decoder worked around.
    """
    with quiet.caught() as found:
        try:
            yield
        finally:
            quiet.log_caught(found, dp)


@contextlib.contextmanager
def _image_errors(
    media_type: str, dp: str, settings: RenderSettings | None = None
) -> Iterator[None]:
    """Turn decoder failures into CORRUPT_IMAGE / DECOMPRESSION_BOMB naming the user's file."""
    try:
        with _library_warnings(dp):
            yield
    except TranscribeError:
        raise
    # Pillow's own hard limit (twice the one it only warns about).
    except Image.DecompressionBombError as exc:
        match = re.search(r"\((\d+) pixels\)", str(exc))
        size = f"{int(match[1]) / 1_000_000:.0f} megapixels" if match else "too large to open"
        pillow_limit = 2 * (Image.MAX_IMAGE_PIXELS or 0)
        _raise_bomb(dp, size, min((settings or RenderSettings()).max_pixels, pillow_limit))
    except _READ_ERRORS as exc:
        if isinstance(exc, OSError) and exc.errno is not None:
            raise fsio.problem_from_oserror(exc, dp, "reading") from exc
        detail = _one_line(str(exc)) or type(exc).__name__
        if isinstance(exc, Image.UnidentifiedImageError):
            detail = "its data cannot be decoded"  # Pillow's text names a Python object
        raise TranscribeError(
            ErrorCode.CORRUPT_IMAGE,
            f"{dp}: the {kind_name(media_type)} is damaged or incomplete ({detail}). "
            "Scan or export it again, or remove it from the import.",
            path=dp,
        ) from exc


def _one_line(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- PDF structure -------------------------------------------------------------------------
#
# pdfium renders the pages, so pdfium alone says whether a PDF can be read, how many pages
# it has, whether it needs a password, and what each page is labelled (/PageLabels).


def _probe_pdf(fp: BinaryIO, dp: str) -> MediaInfo:
    """Page count and page labels, refusing a PDF that pdfium cannot open or lay out.

    Every page is loaded (not rendered): a page pdfium cannot load, or one without a size,
    would fail at commit, so it is refused here, at planning.
    """
    labels: list[str | None] = []
    with _pdf_document(fp, dp) as doc:
        for index in range(len(doc)):
            with _PDFIUM_LOCK, _pdf_errors(dp):
                page = doc[index]
                try:
                    _page_size(page, index, dp)
                finally:
                    page.close()
                labels.append(doc.get_page_label(index) or None)
    return MediaInfo(PDF, len(labels), None, None, None, 1, tuple(labels))


@contextlib.contextmanager
def _pdf_document(fp: BinaryIO, dp: str) -> Iterator[pdfium.PdfDocument]:
    """The open document, closed on leaving; a coded error if it cannot be opened or is empty."""
    import pypdfium2 as pdfium

    fp.seek(0)
    # Bytes already read (the scan's) are handed to pdfium whole: reading them back through
    # Python callbacks costs more than the pages' load.
    source = fp.getvalue() if isinstance(fp, io.BytesIO) else fp
    with _PDFIUM_LOCK, _library_warnings(dp):
        try:
            doc = pdfium.PdfDocument(source)
        except pdfium.PdfiumError as exc:
            # Read right after the failed load, the code is this load's (pdfium does not
            # reset it on success, so it says nothing after one).
            for name, what_to_do in _ENCRYPTED.items():
                if exc.err_code == getattr(pdfium.raw, name):
                    raise TranscribeError(
                        ErrorCode.ENCRYPTED_PDF, f"{dp}: {what_to_do}", path=dp
                    ) from None
            _raise_corrupt_pdf(dp, exc)
    try:
        with _PDFIUM_LOCK:
            count = len(doc)
        if count == 0:
            _raise_empty_pdf(dp)
        yield doc
    finally:
        with _PDFIUM_LOCK, _library_warnings(dp):
            doc.close()


@contextlib.contextmanager
def _pdf_errors(dp: str) -> Iterator[None]:
    """pdfium's failures on a page as CORRUPT_PDF naming the file; its warnings logged."""
    import pypdfium2 as pdfium

    try:
        with _library_warnings(dp):
            yield
    except pdfium.PdfiumError as exc:
        _raise_corrupt_pdf(dp, exc)


def _page_size(page: pdfium.PdfPage, index: int, dp: str) -> tuple[float, float]:
    # In points, already accounting for the page's /Rotate.
    width, height = page.get_size()
    if not (math.isfinite(width) and math.isfinite(height) and min(width, height) > 0):
        _raise_corrupt_pdf(dp, ValueError(f"page {index + 1} has no size"))
    return width, height


# pdfium's load errors for an encrypted PDF (by their names in pypdfium2.raw), and what to do.
_ENCRYPTED = {
    "FPDF_ERR_PASSWORD": "the PDF needs a password to open. Open it with its password, save a "
    "copy without one (e.g. print to PDF), and add that copy instead.",
    "FPDF_ERR_SECURITY": "the PDF is encrypted in a way this app cannot open. Open it in the "
    "program that made it, save a copy without encryption (e.g. print to PDF), and add that copy.",
}


def _raise_corrupt_pdf(dp: str, exc: BaseException | None) -> NoReturn:
    detail = f" ({_one_line(str(exc)) or type(exc).__name__})" if exc is not None else ""
    raise TranscribeError(
        ErrorCode.CORRUPT_PDF,
        f"{dp}: the PDF is damaged and cannot be read{detail}. "
        "Export or download it again, or remove it from the import.",
        path=dp,
    ) from exc


def _raise_empty_pdf(dp: str) -> NoReturn:
    raise TranscribeError(
        ErrorCode.EMPTY_PDF,
        f"{dp}: the PDF has no pages. Remove it from the import or export it again.",
        path=dp,
    )
