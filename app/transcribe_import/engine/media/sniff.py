"""Sniffing: the media type of a page file from its first bytes, and what a refused file looks like.

No decoder is imported here: ingest re-checks a staged copy's type with this alone.
"""

from __future__ import annotations

from pathlib import Path

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.media.kinds import (
    HEIC,
    JPEG,
    KINDS,
    PDF,
    PNG,
    SUFFIX_TYPES,
    TIFF,
    WEBP,
    kind_name,
)
from transcribe_import.engine.storage import fsio

# Enough to see every signature below, and the "%PDF-" that some generators put after a
# short preamble (PDF readers accept it within the first 1024 bytes).
SNIFF_BYTES = 1024

# "JPEG, PNG, TIFF, WebP, HEIC or PDF", from the table so a new kind is named too.
_SHORT_NAMES = [k.name.removesuffix(" image") for k in KINDS]
_ACCEPTED = f"{', '.join(_SHORT_NAMES[:-1])} or {_SHORT_NAMES[-1]}"


def sniff_media_type(path: Path, display_path: str | None = None) -> str:
    """The media type of ``path`` from its first bytes (never its name)."""
    dp = display_path or str(path)
    try:
        with fsio.open_read(path) as fp:
            head = fp.read(SNIFF_BYTES)
    except OSError as exc:
        raise fsio.problem_from_oserror(exc, dp, "reading") from exc
    return media_type_of(head, dp)


def media_type_of(head: bytes, dp: str) -> str:
    """The media type the first ``SNIFF_BYTES`` of a file show; a coded error naming ``dp``."""
    found = _match_signature(head)
    if found is not None:
        return found
    if not head:
        raise TranscribeError(
            ErrorCode.EMPTY_FILE,
            f"{dp}: the file is empty (0 bytes). Remove it from the import or copy the scan again.",
            path=dp,
        )
    looks = _looks_like(head)
    expected = SUFFIX_TYPES.get(Path(dp).suffix.lower())
    if expected is not None:
        message = (
            f"{dp}: the file is not a {kind_name(expected)} (it looks like {looks}). "
            "Remove it from the import or replace it with the real scan."
        )
    else:
        message = (
            f"{dp}: this kind of file cannot be imported (it looks like {looks}); pages must be "
            f"{_ACCEPTED}. Convert it or remove it from the import."
        )
    raise TranscribeError(ErrorCode.UNSUPPORTED_MEDIA, message, path=dp)


def _match_signature(head: bytes) -> str | None:
    if head.startswith(b"\xff\xd8\xff"):
        return JPEG
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return PNG
    # Classic TIFF and BigTIFF, both byte orders.
    if head[:4] in (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+"):
        return TIFF
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return WEBP
    if b"%PDF-" in head[:SNIFF_BYTES]:
        return PDF
    if _is_heic(head):
        return HEIC
    return None


# ISO BMFF brands that promise HEVC-coded HEIF images (ISO/IEC 23008-12, Annex B): an
# iPhone writes major brand "heic" with "mif1" compatible; other tools write "mif1" major
# with "heic" compatible. AVIF ("avif", AV1-coded) is HEIF too, and is not decoded.
_HEIC_BRANDS = frozenset({b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx"})


def _is_heic(head: bytes) -> bool:
    """Whether ``head`` opens with an ``ftyp`` box whose brands promise HEVC-coded HEIF."""
    if head[4:8] != b"ftyp":
        return False
    box = min(int.from_bytes(head[:4], "big"), len(head))
    # major brand (8:12), minor version (12:16), then compatible brands, 4 bytes each.
    brands = [head[8:12], *(head[i : i + 4] for i in range(16, box - 3, 4))]
    return bool(_HEIC_BRANDS.intersection(brands))


def _looks_like(head: bytes) -> str:
    """A cheap guess at what a file is, for the message when it is not a page we can read."""
    signatures: list[tuple[bytes, str]] = [
        (b"GIF87a", "a GIF image"),
        (b"GIF89a", "a GIF image"),
        (b"PK\x03\x04", "a ZIP archive or an Office document"),
        (b"\x1f\x8b", "a gzip archive"),
        (b"Rar!", "a RAR archive"),
        (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
        (b"\xd0\xcf\x11\xe0", "an old Microsoft Office document"),
        (b"8BPS", "a Photoshop document"),
        (b"\xff\x4f\xff\x51", "a JPEG 2000 image"),
        (b"\x00\x00\x00\x0cjP  ", "a JPEG 2000 image"),
        (b"{\\rtf", "an RTF document"),
        (b"BM", "a BMP image"),
    ]
    for magic, what in signatures:
        if head.startswith(magic):
            return what
    if head[4:8] == b"ftyp":
        brand = head[8:12]
        if brand in (b"mif1", b"msf1"):
            return "a HEIF image not coded in HEVC (so not a HEIC photo); export it as JPEG first"
        if brand in (b"avif", b"avis"):
            return "an AVIF image; export it as JPEG first"
        return "a video or other media file"
    text = _as_text(head)
    if text is not None:
        lowered = text.lstrip().lower()
        if lowered.startswith(("<!doctype html", "<html", "<head", "<body")):
            return "an HTML web page"
        if lowered.startswith("<svg") or (lowered.startswith("<?xml") and "<svg" in lowered):
            return "an SVG drawing"
        if lowered.startswith("<?xml"):
            return "an XML document"
        if lowered.startswith(("{", "[")):
            return "JSON or other text"
        return "text"
    return "unrecognised data"


def _as_text(head: bytes) -> str | None:
    for bom, codec in (
        (b"\xef\xbb\xbf", "utf-8"),
        (b"\xff\xfe", "utf-16-le"),
        (b"\xfe\xff", "utf-16-be"),
    ):
        if head.startswith(bom):
            return head[len(bom) :].decode(codec, errors="replace")
    # The sample may end mid-character, so allow a few undecodable bytes at the very end.
    for cut in range(4):
        try:
            text = head[: len(head) - cut].decode("utf-8")
            break
        except UnicodeDecodeError:
            continue
    else:
        return None
    printable = sum(ch.isprintable() or ch in "\r\n\t\f" for ch in text)
    return text if text and printable >= 0.95 * len(text) else None
