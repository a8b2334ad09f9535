"""Page-file kinds: the one table of supported media types, and the plain values media returns.

Nothing here imports a decoder (Pillow, pypdfium2), so a plan, a journal or the
window can name and check media types without loading them. Every other table about
media types (extensions, suffixes, names, Pillow formats) is derived from ``KINDS``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

JPEG = "image/jpeg"
PNG = "image/png"
TIFF = "image/tiff"
WEBP = "image/webp"
HEIC = "image/heic"  # HEIF holding HEVC-coded images: iPhone photos
PDF = "application/pdf"


@dataclass(frozen=True)
class MediaKind:
    """One kind of page file the import accepts."""

    media_type: str
    extension: str  # of the copy kept in a notebook: sources/<id>.<extension>
    suffixes: tuple[str, ...]  # file names (lower-cased) that the walk takes for page files
    name: str  # in messages: "the file is not a JPEG image"
    # Pillow format names, so Image.open only tries the decoder the bytes were sniffed as;
    # empty for PDF, which pdfium renders.
    pil_formats: tuple[str, ...]
    multi_page: bool  # one file may hold several pages


KINDS: tuple[MediaKind, ...] = (
    MediaKind(JPEG, "jpg", (".jpg", ".jpeg", ".jpe"), "JPEG image", ("JPEG", "MPO"), False),
    MediaKind(PNG, "png", (".png",), "PNG image", ("PNG",), False),
    MediaKind(TIFF, "tif", (".tif", ".tiff"), "TIFF image", ("TIFF",), True),
    MediaKind(WEBP, "webp", (".webp",), "WebP image", ("WEBP",), False),
    # Decoded by pi-heif, registered with Pillow when the first one is met (decode.py).
    MediaKind(HEIC, "heic", (".heic", ".heif", ".hif"), "HEIC image", ("HEIF",), False),
    MediaKind(PDF, "pdf", (".pdf",), "PDF", (), True),
)

KIND_BY_TYPE: dict[str, MediaKind] = {k.media_type: k for k in KINDS}

# media type -> extension of the stored copy; its keys are the supported media types.
MEDIA_EXTENSIONS: dict[str, str] = {k.media_type: k.extension for k in KINDS}

PAGE_FILE_SUFFIXES: frozenset[str] = frozenset(s for k in KINDS for s in k.suffixes)

# What a file's name says it should hold, for the message when its bytes disagree.
SUFFIX_TYPES: dict[str, str] = {s: k.media_type for k in KINDS for s in k.suffixes}

MULTI_PAGE_TYPES: frozenset[str] = frozenset(k.media_type for k in KINDS if k.multi_page)


def kind_name(media_type: str) -> str:
    """How a message names a media type: "JPEG image", "PDF"."""
    return KIND_BY_TYPE[media_type].name


class Turn(enum.IntEnum):
    """How far a page is turned clockwise, in degrees, after its file's own EXIF orientation.

    A person's choice kept with the page (the plan, project.json's page ``turn``): the
    source file stays as it is, the render is made upright.
    """

    NONE = 0
    QUARTER = 90
    HALF = 180
    THREE_QUARTERS = 270

    @classmethod
    def of(cls, degrees: object) -> Turn:
        """The turn of ``degrees`` (0, 90, 180 or 270); ValueError in words otherwise."""
        if (
            not isinstance(degrees, int)
            or isinstance(degrees, bool)
            or degrees % 90
            or not (0 <= degrees < 360)
        ):
            raise ValueError(
                f"a page turns by 0, 90, 180 or 270 degrees clockwise, not {degrees!r}"
            )
        return cls(degrees)

    def then(self, other: Turn) -> Turn:
        """This turn followed by ``other``."""
        return Turn((self.value + other.value) % 360)

    @property
    def words(self) -> str:
        """``90° clockwise``, ``upside down``, ``90° anticlockwise``, ``not turned``."""
        return _TURN_WORDS[self]


_TURN_WORDS = {
    Turn.NONE: "not turned",
    Turn.QUARTER: "90° clockwise",
    Turn.HALF: "upside down",
    Turn.THREE_QUARTERS: "90° anticlockwise",
}


@dataclass(frozen=True)
class RenderSettings:
    max_side: int = 2400
    max_pixels: int = 89_478_485
    # zlib level 1: on a 2400 px page scan, about 4x faster than level 6 for ~10% larger
    # files (measured 0.29 s / 5.8 MiB vs 1.24 s / 5.3 MiB); rendering dominates import time.
    png_compress_level: int = 1
    # The revision of libvips' pipeline (render_vips.PNG_SETTINGS) for the pages libvips
    # renders; None: the current one. Only doctor asks for another, to remake a lost render
    # with the bytes its recorded renderer gave.
    libvips_revision: int | None = None

    def capped(self, width: int, height: int) -> tuple[int, int]:
        """A page's render size: its longest side at most ``max_side``, never upscaled."""
        longest = max(width, height)
        if longest <= self.max_side:
            return width, height
        if width >= height:
            return self.max_side, max(1, round(height * self.max_side / width))
        return max(1, round(width * self.max_side / height)), self.max_side


@dataclass(frozen=True)
class MediaInfo:
    media_type: str
    page_count: int
    width: int | None
    height: int | None
    captured_at: str | None
    orientation: int
    # A PDF's label for each page (its /PageLabels: "iv", "A-3"), None where it sets none;
    # empty for images.
    page_labels: tuple[str | None, ...] = ()
    # The resolution the file records, in dots per inch (decode._recorded_dpi), None when it
    # records none with a unit: planning/second_look.py judges "too small" by it.
    dpi: float | None = None


class RenderStopped(Exception):
    """A stop request (pause, cancel) ended a render in the middle of its page."""


@dataclass(frozen=True)
class RenderedPage:
    page_index: int
    png: bytes
    width: int
    height: int
    sha256: str
    # What made the PNG, as project.json records it ("libvips 8.18.7 (render 3)", "Pillow 13.0.0",
    # "libvips 8.18.7 (render 3), pdfium 159.0.8149.0"): another renderer may give other bytes.
    renderer: str
