"""Page files made on the fly for tests and benchmarks: good scans of every kind, and bad ones.

Every ``make_*`` function writes one file at ``path`` (creating its folder) and returns
``path``. Content is deterministic: the same arguments give the same pixels. Images have
a red marker square in the top-left corner of the stored pixels, so a test can tell how
a render was oriented.
"""

from __future__ import annotations

import io
import random
import re
import struct
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pypdf
from PIL import Image, ImageDraw

MARKER_RGB = (220, 20, 20)


def page_pixels(size: tuple[int, int], mode: str = "RGB", label: str = "") -> Image.Image:
    """A page-like image: paper tone, ruled lines, a gradient and a marker in the top-left."""
    width, height = size
    img = Image.new("RGB", size, (245, 240, 225))
    draw = ImageDraw.Draw(img)
    step = max(4, height // 20)
    for y in range(step, height, step):
        draw.line([(0, y), (width, y)], fill=(150, 170, 200), width=1)
    shade = Image.linear_gradient("L").resize(size)
    img = Image.composite(
        img, Image.new("RGB", size, (60, 60, 90)), shade.point(lambda v: 128 + v // 2)
    )
    marker = max(2, min(width, height) // 8)
    ImageDraw.Draw(img).rectangle([0, 0, marker - 1, marker - 1], fill=MARKER_RGB)
    if label:
        draw = ImageDraw.Draw(img)
        draw.text((marker + 4, 4), label, fill=(20, 20, 60))
        _writing(draw, size, marker, label)
    return _to_mode(img, mode)


def _writing(draw: ImageDraw.ImageDraw, size: tuple[int, int], marker: int, label: str) -> None:
    """Lines of "writing" below the marker, their lengths and gaps drawn from ``label``: two
    pages of different labels look like two different pages (not like a rescan of one
    another, to the look-alike hash), as two pages of a notebook do."""
    width, height = size
    rnd = random.Random(zlib.crc32(label.encode("utf-8")))
    step = max(4, height // 20)
    y = marker + step
    while y < height - step:
        if rnd.random() < 0.3:
            y += step * rnd.randrange(1, 3)  # a blank line or two: a paragraph ends
            continue
        start = rnd.randrange(marker, max(marker + 1, width // 3))
        end = rnd.randrange(min(width - 1, start + width // 5), width)
        draw.rectangle([start, y - step // 2, end, y - 1], fill=(40, 40, 70))
        y += step


def _to_mode(img: Image.Image, mode: str) -> Image.Image:
    if mode == "RGB":
        return img
    if mode.startswith("I;16"):
        # Spread 8-bit gray over the 16-bit range, as a 16-bit scanner would.
        return img.convert("L").point(lambda v: v * 257, "I").convert(mode)
    if mode in ("RGBA", "LA"):
        out = img.convert(mode)
        alpha = Image.new("L", img.size, 255)
        ImageDraw.Draw(alpha).rectangle([0, img.height // 2, img.width, img.height], fill=0)
        out.putalpha(alpha)
        return out
    return img.convert(mode)


def _exif(
    orientation: int | None, datetime_original: str | None, datetime: str | None
) -> Image.Exif:
    exif = Image.Exif()
    if orientation is not None:
        exif[0x0112] = orientation
    if datetime is not None:
        exif[0x0132] = datetime
    if datetime_original is not None:
        exif.get_ifd(0x8769)[0x9003] = datetime_original
    return exif


def _ready(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def make_jpeg(
    path: Path,
    size: tuple[int, int] = (320, 440),
    exif_orientation: int | None = None,
    datetime_original: str | None = None,
    *,
    datetime: str | None = None,
    mode: str = "RGB",
    quality: int = 85,
    label: str = "",
) -> Path:
    """A JPEG (mode RGB, L or CMYK); EXIF dates use the EXIF form "YYYY:MM:DD HH:MM:SS"."""
    img = page_pixels(size, mode, label)
    exif = _exif(exif_orientation, datetime_original, datetime)
    img.save(_ready(path), "JPEG", quality=quality, exif=exif.tobytes())
    return path


def make_heic(
    path: Path,
    size: tuple[int, int] = (320, 440),
    exif_orientation: int | None = None,
    datetime_original: str | None = None,
    *,
    label: str = "",
) -> Path:
    """A HEIC photo as an iPhone writes one (HEVC in HEIF, brand ``heic``), written by
    pillow-heif (a test dependency: its encoder is GPL, the app only decodes). The EXIF
    orientation becomes the HEIF rotation (``irot``), as on a phone."""
    import pillow_heif

    exif = _exif(exif_orientation, datetime_original, None)
    heif = pillow_heif.from_pillow(page_pixels(size, "RGB", label))
    heif.save(_ready(path), quality=60, exif=exif.tobytes())
    return path


def make_png(
    path: Path,
    size: tuple[int, int] = (320, 440),
    mode: str = "RGB",
    exif_orientation: int | None = None,
    *,
    label: str = "",
    transparency: int | None = None,
) -> Path:
    """A PNG in any mode Pillow writes (RGB, L, 1, P, RGBA, LA, I;16...).

    ``transparency`` marks one palette index (mode P) or gray level (mode L) as transparent.
    """
    img = page_pixels(size, mode, label)
    kwargs: dict[str, object] = {}
    if exif_orientation is not None:
        kwargs["exif"] = _exif(exif_orientation, None, None).tobytes()
    if transparency is not None:
        kwargs["transparency"] = transparency
    img.save(_ready(path), "PNG", **kwargs)
    return path


def make_image(path: Path, label: str = "", size: tuple[int, int] = (320, 440), **kw: Any) -> Path:
    """A page image in the format its suffix names (.jpg/.jpeg, .png, .tif/.tiff, .webp).

    The one builder for "some page file": ``label`` is drawn on the page, so different
    labels give different bytes; ``kw`` goes to the format's own ``make_*`` function.
    """
    suffix = path.suffix.lower()
    if suffix in (".jpg", ".jpeg"):
        return make_jpeg(path, size, label=label, **kw)
    if suffix == ".png":
        return make_png(path, size, label=label, **kw)
    if suffix in (".tif", ".tiff"):
        return make_tiff(path, size, label=label, **kw)
    if suffix == ".webp":
        return make_webp(path, size, label=label, **kw)
    raise ValueError(f"make_image: no page format for {path.name!r}")


def make_png_with_late_exif(
    path: Path, size: tuple[int, int] = (320, 440), exif_orientation: int = 6
) -> Path:
    """A PNG whose eXIf chunk comes after the image data (allowed by the PNG extension)."""
    make_png(path, size, exif_orientation=exif_orientation)
    chunks = _png_chunks(path.read_bytes())
    exif = [c for c in chunks if c[0] == b"eXIf"]
    rest = [c for c in chunks if c[0] not in (b"eXIf", b"IEND")]
    path.write_bytes(_png_bytes([*rest, *exif, (b"IEND", b"")]))
    return path


def make_tiff(
    path: Path,
    size: tuple[int, int] = (320, 440),
    mode: str = "RGB",
    exif_orientation: int | None = None,
    *,
    label: str = "",
) -> Path:
    """A single-page TIFF (deflate-compressed)."""
    img = page_pixels(size, mode, label)
    kwargs: dict[str, object] = {"compression": "tiff_deflate"}
    if exif_orientation is not None:
        kwargs["tiffinfo"] = {0x0112: exif_orientation}
    img.save(_ready(path), "TIFF", **kwargs)
    return path


def make_multiframe_tiff(
    path: Path, frames: int | Sequence[tuple[int, int]] = 3, modes: Sequence[str] | None = None
) -> Path:
    """A TIFF with one frame per page: ``frames`` is a count or the size of each frame."""
    sizes = [(200 + 20 * i, 280) for i in range(frames)] if isinstance(frames, int) else frames
    modes = modes or ["RGB"] * len(sizes)
    imgs = [
        page_pixels(s, m, f"frame {i}") for i, (s, m) in enumerate(zip(sizes, modes, strict=True))
    ]
    imgs[0].save(
        _ready(path), "TIFF", save_all=True, append_images=imgs[1:], compression="tiff_deflate"
    )
    return path


def make_webp(
    path: Path,
    size: tuple[int, int] = (320, 440),
    exif_orientation: int | None = None,
    *,
    lossless: bool = True,
    mode: str = "RGB",
    label: str = "",
) -> Path:
    """A WebP image (lossless by default, so pixels are exact)."""
    img = page_pixels(size, mode, label)
    kwargs: dict[str, object] = {"lossless": lossless}
    if exif_orientation is not None:
        kwargs["exif"] = _exif(exif_orientation, None, None).tobytes()
    img.save(_ready(path), "WEBP", **kwargs)
    return path


def make_pdf(
    path: Path,
    pages: int | Sequence[tuple[int, int]] = 2,
    *,
    rotate: int = 0,
) -> Path:
    """A PDF with one scanned image per page; page sizes in points (default 300x400).

    ``rotate`` sets /Rotate on every page (a multiple of 90).
    """
    sizes = [(300, 400)] * pages if isinstance(pages, int) else list(pages)
    imgs = [page_pixels(s, "RGB", f"page {i + 1}") for i, s in enumerate(sizes)]
    buf = io.BytesIO()
    # 72 dpi, so one image pixel is one point and sizes mean points.
    imgs[0].save(buf, "PDF", save_all=True, append_images=imgs[1:], resolution=72.0)
    data = buf.getvalue()
    if rotate:
        writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(data)))
        for page in writer.pages:
            page.rotate(rotate)
        out = io.BytesIO()
        writer.write(out)
        data = out.getvalue()
    _ready(path).write_bytes(data)
    return path


def make_encrypted_pdf(
    path: Path, pages: int = 1, user_password: str = "secret", owner_password: str = "owner"
) -> Path:
    """An RC4-encrypted PDF; with ``user_password=""`` it opens without a password."""
    source = io.BytesIO(make_pdf(_ready(path), pages).read_bytes())
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(source))
    # RC4 needs no optional crypto package in pypdf; the open-time behaviour is the same.
    writer.encrypt(user_password, owner_password, algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    path.write_bytes(out.getvalue())
    return path


def make_zero_page_pdf(path: Path) -> Path:
    """A well-formed PDF with an empty page tree."""
    out = io.BytesIO()
    pypdf.PdfWriter().write(out)
    _ready(path).write_bytes(out.getvalue())
    return path


def make_corrupt_pdf(path: Path) -> Path:
    """Starts like a PDF, then is garbage: no objects, no cross-reference table."""
    _ready(path).write_bytes(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + b"this is not a pdf body\n" * 20)
    return path


def make_truncated_pdf(path: Path, keep: float = 0.5) -> Path:
    """A real PDF cut short, as an interrupted download leaves it."""
    data = make_pdf(path, 2).read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    return path


def make_truncated_jpeg(path: Path, size: tuple[int, int] = (320, 440), keep: float = 0.5) -> Path:
    """A JPEG whose headers are whole but whose image data stops part way."""
    data = make_jpeg(path, size).read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    return path


def make_bomb_png(path: Path, width: int = 20_000, height: int = 20_000) -> Path:
    """A tiny PNG whose header claims ``width`` x ``height`` pixels (a decompression bomb)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit grayscale
    idat = zlib.compress(b"\x00" * (width + 1) * 4)  # a few rows; the header is what matters
    _ready(path).write_bytes(_png_bytes([(b"IHDR", ihdr), (b"IDAT", idat), (b"IEND", b"")]))
    return path


def make_text_file(path: Path, text: str = "Notes from the shelf: box 3, folder 12.\n") -> Path:
    """A text file, typically given an image suffix to impersonate a scan."""
    _ready(path).write_text(text, encoding="utf-8")
    return path


def make_empty_file(path: Path) -> Path:
    """A zero-byte file, as an interrupted copy can leave behind."""
    _ready(path).write_bytes(b"")
    return path


# -- PNG chunk plumbing ----------------------------------------------------------------------


def _png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    chunks = []
    pos = 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        chunks.append((kind, data[pos + 8 : pos + 8 + length]))
        pos += 12 + length
    return chunks


def _png_bytes(chunks: Sequence[tuple[bytes, bytes]]) -> bytes:
    out = [b"\x89PNG\r\n\x1a\n"]
    for kind, body in chunks:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        out.append(struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc))
    return b"".join(out)


def make_pdf_with_damaged_trailer(path: Path, pages: int = 2) -> Path:
    """A PDF whose cross-reference table and startxref offset are garbage: readers must rebuild
    them by scanning the objects (pdfium does)."""
    data = make_pdf(path, pages).read_bytes()
    xref = data.rindex(b"xref")
    broken = data[:xref] + b"xrfe garbage\n" + data[xref + 4 :]
    broken = re.sub(rb"startxref\s+\d+", b"startxref\n999999999", broken)
    path.write_bytes(broken)
    return path


def make_pdf_with_page_labels(path: Path) -> Path:
    """Five pages labelled i, ii, then A-3, A-4, A-5 (/PageLabels)."""
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(make_pdf(path, 5).read_bytes())))
    writer.set_page_label(0, 1, style="/r")
    writer.set_page_label(2, 4, style="/D", prefix="A-", start=3)
    out = io.BytesIO()
    writer.write(out)
    path.write_bytes(out.getvalue())
    return path


def adobe_rgb_icc() -> bytes:
    """An ICC v2 display profile for Adobe RGB (1998): D50-adapted primaries, gamma 2.2."""

    def s15(v: float) -> bytes:
        return struct.pack(">i", round(v * 65536))

    def xyz(x: float, y: float, z: float) -> bytes:
        return b"XYZ \0\0\0\0" + s15(x) + s15(y) + s15(z)

    text = b"Adobe RGB (1998) compatible, test"
    desc = b"desc\0\0\0\0" + struct.pack(">I", len(text) + 1) + text + b"\0" + bytes(8 + 3 + 67)
    curve = b"curv\0\0\0\0" + struct.pack(">IH", 1, 0x0233) + b"\0\0"  # gamma 563/256
    tags = [
        (b"desc", desc),
        (b"wtpt", xyz(0.9642, 1.0, 0.8249)),
        (b"rXYZ", xyz(0.6097, 0.3111, 0.0195)),
        (b"gXYZ", xyz(0.2053, 0.6257, 0.0609)),
        (b"bXYZ", xyz(0.1492, 0.0632, 0.7446)),
        (b"rTRC", curve),
        (b"gTRC", curve),
        (b"bTRC", curve),
        (b"cprt", b"text\0\0\0\0no copyright, test data\0"),
    ]
    offset = 128 + 4 + 12 * len(tags)
    table, body = b"", b""
    for sig, data in tags:
        data += bytes(-len(data) % 4)
        table += sig + struct.pack(">II", offset + len(body), len(data))
        body += data
    size = offset + len(body)
    header = (
        struct.pack(">I", size)
        + b"lcms"
        + bytes.fromhex("02100000")
        + b"mntrRGB XYZ "
        + bytes(12)
        + b"acsp"
        + bytes(24)
        + struct.pack(">I", 0)
        + s15(0.9642)
        + s15(1.0)
        + s15(0.8249)
        + bytes(48)
    )
    assert len(header) == 128
    return header + struct.pack(">I", len(tags)) + table + body


def make_jpeg_with_corrupt_exif(path: Path, size: tuple[int, int] = (320, 440)) -> Path:
    """A JPEG whose EXIF says orientation 6, then points a tag's data past the block's end
    (Pillow warns "... Skipping tag 271")."""
    entries = [
        (0x0112, 3, 1, struct.pack("<HH", 6, 0)),  # Orientation = 6, inline
        (0x010F, 2, 100, struct.pack("<I", 4000)),  # Make: 100 bytes at offset 4000 (absent)
    ]
    ifd = struct.pack("<H", len(entries))
    for tag, kind, count, value in entries:
        ifd += struct.pack("<HHI", tag, kind, count) + value
    ifd += struct.pack("<I", 0)
    exif = b"Exif\0\0" + b"II*\0" + struct.pack("<I", 8) + ifd
    page_pixels(size, "RGB").save(_ready(path), "JPEG", quality=85, exif=exif)
    return path
