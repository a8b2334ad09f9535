"""Media: sniffing, probing and rendering every page kind, and refusing every bad input by code."""

from __future__ import annotations

import errno
import hashlib
import io
import struct
import threading
from pathlib import Path

import PIL
import pypdf
import pypdfium2
import pytest
from PIL import Image, ImageFile, PngImagePlugin, TiffImagePlugin, WebPImagePlugin

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.media import decode as media
from transcribe_import.engine.media import kinds, render, sniff
from transcribe_import.engine.media.kinds import RenderSettings
from transcribe_import.engine.storage import fsio

import media_factory as mf

# Small renders keep the file fast; the default cap is exercised once on its own.
SMALL = RenderSettings(max_side=400)


def render_all(path: Path, settings: RenderSettings = SMALL, **kw) -> list[kinds.RenderedPage]:
    info = media.probe(path, settings)
    return list(render.render_pages(path, info.media_type, range(info.page_count), settings, **kw))


def decoded(page: kinds.RenderedPage) -> Image.Image:
    img = Image.open(io.BytesIO(page.png))
    img.load()
    return img


def png_chunk_types(data: bytes) -> list[bytes]:
    kinds, pos = [], 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kinds.append(data[pos + 4 : pos + 8])
        pos += 12 + length
    return kinds


def assert_close(got: Image.Image, want: Image.Image, worst: int = 2) -> None:
    """The same size and mode, each byte within ``worst`` levels, the mean within 0.2."""
    assert (got.size, got.mode) == (want.size, want.mode)
    diffs = [abs(a - b) for a, b in zip(got.tobytes(), want.tobytes(), strict=True)]
    assert max(diffs) <= worst and sum(diffs) / len(diffs) < 0.2


def refused(code: ErrorCode, name: str, call, *args, **kw) -> TranscribeError:
    """Assert ``call`` raises ``code`` with a one-line message naming ``name``."""
    with pytest.raises(TranscribeError) as info:
        result = call(*args, **kw)
        if hasattr(result, "__next__"):
            list(result)
    err = info.value
    assert err.code == code, str(err)
    assert name in str(err)
    assert err.path is not None and name in err.path
    assert "\n" not in str(err)
    return err


def is_reddish(rgb: tuple[int, ...]) -> bool:
    r, g, b = rgb[:3]
    return r > 150 and g < 90 and b < 90


# -- sniffing ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "name", "expected"),
    [
        (mf.make_jpeg, "a.jpg", "image/jpeg"),
        (mf.make_png, "a.png", "image/png"),
        (mf.make_tiff, "a.tif", "image/tiff"),
        (mf.make_webp, "a.webp", "image/webp"),
        (mf.make_heic, "a.heic", "image/heic"),
        (mf.make_pdf, "a.pdf", "application/pdf"),
        # The name lies; the bytes decide.
        (mf.make_png, "really-a-png.jpg", "image/png"),
        (mf.make_jpeg, "no-suffix", "image/jpeg"),
    ],
)
def test_sniff_by_content(tmp_path: Path, make, name: str, expected: str) -> None:
    path = make(tmp_path / name)
    assert sniff.sniff_media_type(path) == expected
    assert expected in kinds.MEDIA_EXTENSIONS


def test_extension_tables() -> None:
    assert kinds.MEDIA_EXTENSIONS == {
        "image/jpeg": "jpg",
        "image/png": "png",
        "image/tiff": "tif",
        "image/webp": "webp",
        "image/heic": "heic",
        "application/pdf": "pdf",
    }
    assert {
        ".jpg",
        ".jpeg",
        ".jpe",
        ".png",
        ".tif",
        ".tiff",
        ".webp",
        ".heic",
        ".heif",
        ".hif",
        ".pdf",
    } == set(kinds.PAGE_FILE_SUFFIXES)


def test_text_named_jpg_is_unsupported_and_says_what_it_is(tmp_path: Path) -> None:
    path = mf.make_text_file(tmp_path / "scan 7.jpg")
    err = refused(ErrorCode.UNSUPPORTED_MEDIA, "scan 7.jpg", sniff.sniff_media_type, path)
    assert "not a JPEG image" in str(err)
    assert "looks like text" in str(err)


@pytest.mark.parametrize(
    ("data", "looks"),
    [
        (b"<!DOCTYPE html><html><body>Sign in</body></html>", "HTML"),
        (b"PK\x03\x04" + b"\x00" * 40, "ZIP"),
        (b"GIF89a" + b"\x00" * 40, "GIF"),
        (b"\x00\x00\x00\x18ftypavif" + b"\x00" * 40, "AVIF"),
        (b"\x00\x00\x00\x18ftypmif1\x00\x00\x00\x00mif1avif" + b"\x00" * 40, "not coded in HEVC"),
        (bytes(range(256)) * 2, "unrecognised"),
    ],
)
def test_unsupported_media_names_what_it_looks_like(tmp_path: Path, data: bytes, looks) -> None:
    path = tmp_path / "page.png"
    path.write_bytes(data)
    err = refused(ErrorCode.UNSUPPORTED_MEDIA, "page.png", media.probe, path)
    assert looks in str(err)


def test_unsupported_suffix_lists_what_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "notes.docx"
    path.write_bytes(b"PK\x03\x04" + b"\x00" * 40)
    err = refused(ErrorCode.UNSUPPORTED_MEDIA, "notes.docx", sniff.sniff_media_type, path)
    assert "JPEG, PNG, TIFF, WebP, HEIC or PDF" in str(err)


def test_empty_file(tmp_path: Path) -> None:
    path = mf.make_empty_file(tmp_path / "blank.jpg")
    refused(ErrorCode.EMPTY_FILE, "blank.jpg", sniff.sniff_media_type, path)
    refused(ErrorCode.EMPTY_FILE, "blank.jpg", media.probe, path)


# -- probing -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "name", "media_type", "pages"),
    [
        (mf.make_jpeg, "p.jpg", "image/jpeg", 1),
        (mf.make_png, "p.png", "image/png", 1),
        (mf.make_tiff, "p.tif", "image/tiff", 1),
        (mf.make_webp, "p.webp", "image/webp", 1),
    ],
)
def test_probe_images(tmp_path: Path, make, name: str, media_type: str, pages: int) -> None:
    info = media.probe(make(tmp_path / name, (640, 480)))
    assert info == kinds.MediaInfo(media_type, pages, 640, 480, None, 1)


def test_probe_reads_headers_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = [
        mf.make_jpeg(tmp_path / "a.jpg", exif_orientation=6),
        mf.make_png(tmp_path / "a.png"),
        mf.make_png_with_late_exif(tmp_path / "late.png"),
        mf.make_tiff(tmp_path / "a.tif"),
        mf.make_multiframe_tiff(tmp_path / "m.tif", 3),
        mf.make_webp(tmp_path / "a.webp"),
    ]

    def no_decode(self, *a, **kw):
        raise AssertionError("probe decoded pixels")

    for cls in (
        ImageFile.ImageFile,
        PngImagePlugin.PngImageFile,
        TiffImagePlugin.TiffImageFile,
        WebPImagePlugin.WebPImageFile,
    ):
        monkeypatch.setattr(cls, "load", no_decode)
    infos = [media.probe(p) for p in files]
    assert [i.page_count for i in infos] == [1, 1, 1, 1, 3, 1]
    assert infos[2].orientation == 6


def test_probe_with_check_data_refuses_data_the_headers_hide(tmp_path: Path) -> None:
    # A deflate-compressed TIFF whose header and tags are whole but whose strip is garbage.
    buf = io.BytesIO()
    Image.new("RGB", (64, 64), (200, 10, 10)).save(buf, "TIFF", compression="tiff_adobe_deflate")
    data = bytearray(buf.getvalue())
    with Image.open(io.BytesIO(bytes(data))) as im:
        offset, length = im.tag_v2[273][0], im.tag_v2[279][0]  # type: ignore[attr-defined]
    data[offset : offset + length] = b"\x55" * length
    path = tmp_path / "hollow.tif"
    path.write_bytes(bytes(data))
    assert media.probe(path).page_count == 1  # the headers alone look fine
    refused(ErrorCode.CORRUPT_IMAGE, "hollow.tif", media.probe, path, check_data=True)
    refused(ErrorCode.CORRUPT_IMAGE, "hollow.tif", render_all, path)
    good = mf.make_multiframe_tiff(tmp_path / "good.tif", 3)
    assert media.probe(good, check_data=True).page_count == 3
    assert media.probe(mf.make_jpeg(tmp_path / "a.jpg"), check_data=True).page_count == 1


def test_probe_exif_orientation_swaps_size_and_reads_capture_time(tmp_path: Path) -> None:
    path = mf.make_jpeg(
        tmp_path / "p.jpg", (800, 600), exif_orientation=6, datetime_original="2019:07:14 09:30:05"
    )
    info = media.probe(path)
    assert (info.width, info.height, info.orientation) == (600, 800, 6)
    assert info.captured_at == "2019-07-14T09:30:05"


def test_capture_time_falls_back_to_datetime_and_ignores_zero_dates(tmp_path: Path) -> None:
    fallback = mf.make_jpeg(tmp_path / "a.jpg", datetime="2020:01:02 03:04:05")
    assert media.probe(fallback).captured_at == "2020-01-02T03:04:05"
    zeros = mf.make_jpeg(tmp_path / "b.jpg", datetime_original="0000:00:00 00:00:00")
    assert media.probe(zeros).captured_at is None
    assert media.probe(zeros).orientation == 1


def test_probe_pdf(tmp_path: Path) -> None:
    info = media.probe(mf.make_pdf(tmp_path / "book.pdf", 4))
    assert info == kinds.MediaInfo("application/pdf", 4, None, None, None, 1, (None,) * 4)


def test_probe_multiframe_tiff_counts_frames(tmp_path: Path) -> None:
    path = mf.make_multiframe_tiff(tmp_path / "m.tif", [(300, 200), (100, 150), (50, 60)])
    info = media.probe(path)
    assert (info.page_count, info.width, info.height) == (3, 300, 200)


# -- rendering images --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "name"),
    [
        (mf.make_jpeg, "r.jpg"),
        (mf.make_png, "r.png"),
        (mf.make_tiff, "r.tif"),
        (mf.make_webp, "r.webp"),
    ],
)
def test_render_caps_longest_side(tmp_path: Path, make, name: str) -> None:
    (page,) = render_all(make(tmp_path / name, (1000, 600)))
    assert (page.width, page.height) == (400, 240)
    img = decoded(page)
    assert img.size == (400, 240)
    assert img.mode == "RGB"
    assert page.sha256 == hashlib.sha256(page.png).hexdigest()
    assert page.page_index == 0


def test_render_default_cap_on_a_big_jpeg(tmp_path: Path) -> None:
    path = mf.make_jpeg(tmp_path / "big.jpg", (3000, 2000), quality=70)
    (page,) = render_all(path, RenderSettings())
    assert (page.width, page.height) == (2400, 1600)
    assert is_reddish(decoded(page).getpixel((5, 5)))


def test_small_images_are_never_upscaled(tmp_path: Path) -> None:
    (jpeg,) = render_all(mf.make_jpeg(tmp_path / "s.jpg", (120, 90)))
    (png,) = render_all(mf.make_png(tmp_path / "s.png", (33, 47)))
    assert (jpeg.width, jpeg.height) == (120, 90)
    assert (png.width, png.height) == (33, 47)


@pytest.mark.parametrize("make", [mf.make_jpeg, mf.make_webp, mf.make_png, mf.make_tiff])
def test_exif_orientation_6_rotates_clockwise(tmp_path: Path, make) -> None:
    path = make(tmp_path / "rot", (300, 200), exif_orientation=6)
    info = media.probe(path)
    (page,) = render_all(path)
    assert (page.width, page.height) == (info.width, info.height) == (200, 300)
    assert info.orientation == 6
    img = decoded(page).convert("RGB")
    # The stored top-left marker is at the top-right once turned upright.
    assert is_reddish(img.getpixel((page.width - 5, 5)))
    assert not is_reddish(img.getpixel((5, 5)))


def test_late_png_exif_is_applied_like_probe_says(tmp_path: Path) -> None:
    path = mf.make_png_with_late_exif(tmp_path / "late.png", (300, 200), exif_orientation=6)
    info = media.probe(path)
    (page,) = render_all(path)
    assert (info.width, info.height) == (page.width, page.height) == (200, 300)


@pytest.mark.parametrize(
    ("make", "kw"),
    [
        (mf.make_jpeg, {"mode": "L"}),
        (mf.make_png, {"mode": "L"}),
        (mf.make_png, {"mode": "1"}),
        (mf.make_png, {"mode": "I;16"}),
        (mf.make_png, {"mode": "LA"}),
        (mf.make_tiff, {"mode": "L"}),
    ],
)
def test_grayscale_stays_grayscale(tmp_path: Path, make, kw: dict) -> None:
    (page,) = render_all(make(tmp_path / "g", (200, 300), **kw))
    img = decoded(page)
    assert img.mode == "L"
    low, high = img.getextrema()
    # 16-bit data scaled into 8 bits, not clipped to white.
    assert low < 200 and high > low


def test_sixteen_bit_gray_is_scaled_not_clipped(tmp_path: Path) -> None:
    (eight,) = render_all(mf.make_png(tmp_path / "8.png", (200, 300), mode="L"))
    (sixteen,) = render_all(mf.make_png(tmp_path / "16.png", (200, 300), mode="I;16"))
    a, b = decoded(eight), decoded(sixteen)
    assert max(abs(x - y) for x, y in zip(a.tobytes(), b.tobytes(), strict=True)) <= 1


@pytest.mark.parametrize(("mode", "kw"), [("CMYK", {}), ("P", {}), ("P", {"transparency": 0})])
def test_colour_modes_become_rgb(tmp_path: Path, mode: str, kw: dict) -> None:
    make = mf.make_jpeg if mode == "CMYK" else mf.make_png
    (page,) = render_all(make(tmp_path / "c", (200, 300), mode=mode, **kw))
    assert decoded(page).mode == "RGB"


def test_alpha_is_composited_on_white(tmp_path: Path) -> None:
    # The factory makes the bottom half fully transparent.
    (page,) = render_all(mf.make_png(tmp_path / "a.png", (200, 300), mode="RGBA"))
    img = decoded(page)
    assert img.mode == "RGB"
    assert img.getpixel((100, 290)) == (255, 255, 255)
    assert is_reddish(img.getpixel((5, 5)))


def test_renders_are_deterministic_and_carry_no_metadata(tmp_path: Path) -> None:
    src = tmp_path / "meta.jpg"
    img = mf.page_pixels((900, 700))
    exif = Image.Exif()
    exif[0x0132] = "2020:01:02 03:04:05"
    img.save(src, "JPEG", quality=80, dpi=(600, 600), exif=exif.tobytes(), comment=b"scanner")
    first = render_all(src)
    second = render_all(src)
    assert [p.sha256 for p in first] == [p.sha256 for p in second]
    assert first[0].png == second[0].png
    assert first[0].renderer.startswith("libvips 8.")
    # libvips always writes pHYs: a fixed 72 dpi (2835 px/m), never the source's 600.
    assert png_chunk_types(first[0].png) == [b"IHDR", b"pHYs", b"IDAT", b"IEND"]
    assert struct.pack(">IIB", 2835, 2835, 1) in first[0].png
    (pillow,) = render_all(src, engine=render.RenderEngine.PILLOW)
    assert pillow.renderer == f"Pillow {PIL.__version__}"
    assert png_chunk_types(pillow.png) == [b"IHDR", b"IDAT", b"IEND"]


def test_png_compress_level_is_honoured(tmp_path: Path) -> None:
    path = mf.make_png(tmp_path / "c.png", (300, 300))
    # Pillow's zlib level (libvips' PNG settings are its own, chosen by measurement).
    pillow = render.RenderEngine.PILLOW
    (fast,) = render_all(path, RenderSettings(max_side=400, png_compress_level=0), engine=pillow)
    (small,) = render_all(path, RenderSettings(max_side=400, png_compress_level=9), engine=pillow)
    assert len(fast.png) > len(small.png)
    assert decoded(fast).tobytes() == decoded(small).tobytes()


def test_multiframe_tiff_renders_one_page_per_frame(tmp_path: Path) -> None:
    path = mf.make_multiframe_tiff(
        tmp_path / "m.tif", [(300, 200), (100, 150), (500, 800)], ["RGB", "L", "1"]
    )
    pages = render_all(path)
    assert [(p.page_index, p.width, p.height) for p in pages] == [
        (0, 300, 200),
        (1, 100, 150),
        (2, 250, 400),
    ]
    assert [decoded(p).mode for p in pages] == ["RGB", "L", "L"]
    # Any order, any subset, same bytes as the full pass.
    again = list(render.render_pages(path, "image/tiff", [2, 0], SMALL))
    assert [p.sha256 for p in again] == [pages[2].sha256, pages[0].sha256]


# -- rendering PDFs ----------------------------------------------------------------------


def test_pdf_pages_render_at_the_cap(tmp_path: Path) -> None:
    # Points are not pixels: a small page is rasterised up to the cap.
    path = mf.make_pdf(tmp_path / "book.pdf", [(150, 200), (200, 100), (300, 400)])
    pages = render_all(path)
    assert [(p.page_index, p.width, p.height) for p in pages] == [
        (0, 300, 400),
        (1, 400, 200),
        (2, 300, 400),
    ]
    assert all(decoded(p).mode == "RGB" for p in pages)
    assert is_reddish(decoded(pages[0]).getpixel((5, 5)))


def test_pdf_single_page_and_determinism(tmp_path: Path) -> None:
    path = mf.make_pdf(tmp_path / "book.pdf", 3)
    all_pages = render_all(path)
    (only,) = render.render_pages(path, "application/pdf", [1], SMALL)
    assert only.page_index == 1
    assert only.sha256 == all_pages[1].sha256
    assert len({p.sha256 for p in all_pages}) == 3  # each page has its own label


def test_pdf_rotated_page_is_rendered_upright_size(tmp_path: Path) -> None:
    (page,) = render_all(mf.make_pdf(tmp_path / "r.pdf", [(300, 400)], rotate=90))
    assert (page.width, page.height) == (400, 300)


def test_pdf_document_opened_once_per_call(tmp_path: Path, monkeypatch) -> None:
    path = mf.make_pdf(tmp_path / "book.pdf", 5)
    opened = []
    real = pypdfium2.PdfDocument

    def counting(*a, **kw):
        opened.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(pypdfium2, "PdfDocument", counting)
    pages = list(render.render_pages(path, "application/pdf", range(5), SMALL))
    assert len(pages) == 5
    assert len(opened) == 1


def test_pdf_renders_from_many_threads_agree(tmp_path: Path) -> None:
    paths = [mf.make_pdf(tmp_path / f"{i}.pdf", 2) for i in range(2)]
    expected = {p: [r.sha256 for r in render_all(p)] for p in paths}
    results: list[tuple[Path, list[str]]] = []
    errors: list[BaseException] = []

    def work(p: Path) -> None:
        try:
            for _ in range(3):
                results.append((p, [r.sha256 for r in render_all(p)]))
        except BaseException as exc:  # noqa: BLE001 - a thread must hand its failure to the test
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(paths[i % 2],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 12
    assert all(shas == expected[p] for p, shas in results)


# -- bad inputs --------------------------------------------------------------------------


def test_encrypted_pdf(tmp_path: Path) -> None:
    path = mf.make_encrypted_pdf(tmp_path / "locked.pdf")
    err = refused(ErrorCode.ENCRYPTED_PDF, "locked.pdf", media.probe, path)
    assert "needs a password" in str(err)
    assert "save a copy without one" in str(err)
    refused(
        ErrorCode.ENCRYPTED_PDF, "locked.pdf", render.render_pages, path, "application/pdf", [0]
    )


def test_a_pdf_encrypted_by_a_security_handler_pdfium_lacks_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pdfium refuses such a file with FPDF_ERR_SECURITY; no generator here writes one.
    path = mf.make_pdf(tmp_path / "drm.pdf", pages=1)

    def refuses(*args: object, **kw: object) -> None:
        raise pypdfium2.PdfiumError("Unsupported security scheme", pypdfium2.raw.FPDF_ERR_SECURITY)

    monkeypatch.setattr(pypdfium2, "PdfDocument", refuses)
    err = refused(ErrorCode.ENCRYPTED_PDF, "drm.pdf", media.probe, path)
    assert "encrypted in a way this app cannot open" in str(err)


def test_pdf_with_only_an_owner_password_opens(tmp_path: Path) -> None:
    path = mf.make_encrypted_pdf(tmp_path / "restricted.pdf", pages=2, user_password="")
    assert media.probe(path).page_count == 2
    assert len(render_all(path)) == 2


@pytest.mark.parametrize("make", [mf.make_corrupt_pdf, mf.make_truncated_pdf])
def test_corrupt_pdf(tmp_path: Path, make) -> None:
    path = make(tmp_path / "broken.pdf")
    refused(ErrorCode.CORRUPT_PDF, "broken.pdf", media.probe, path)
    refused(ErrorCode.CORRUPT_PDF, "broken.pdf", render.render_pages, path, "application/pdf", [0])


def test_zero_page_pdf(tmp_path: Path) -> None:
    # pdfium, which would render it, will not load a document with an empty page tree.
    path = mf.make_zero_page_pdf(tmp_path / "nothing.pdf")
    refused(ErrorCode.CORRUPT_PDF, "nothing.pdf", media.probe, path)
    refused(ErrorCode.CORRUPT_PDF, "nothing.pdf", render.render_pages, path, "application/pdf", [0])


def test_truncated_jpeg_fails_to_render_rather_than_rendering_grey(tmp_path: Path) -> None:
    path = mf.make_truncated_jpeg(tmp_path / "cut.jpg", (1200, 900))
    # The probe already sees the missing end (tested below); the full decode must refuse too.
    for settings in (SMALL, RenderSettings()):  # reduced-scale (draft) and full decode
        err = refused(
            ErrorCode.CORRUPT_IMAGE,
            "cut.jpg",
            render.render_pages,
            path,
            "image/jpeg",
            [0],
            settings,
        )
        assert "JPEG" in str(err)


@pytest.mark.parametrize("suffix", [".jpg", ".png", ".webp"])
def test_probe_refuses_an_image_cut_short(tmp_path: Path, suffix: str) -> None:
    maker = {".jpg": mf.make_jpeg, ".png": mf.make_png, ".webp": mf.make_webp}[suffix]
    path = maker(tmp_path / f"cut{suffix}", (400, 300))
    data = path.read_bytes()
    assert media.probe(path).page_count == 1  # whole, it passes
    path.write_bytes(data[: len(data) * 2 // 3])  # an interrupted copy
    err = refused(ErrorCode.CORRUPT_IMAGE, f"cut{suffix}", media.probe, path)
    assert "cut short" in str(err)


def test_jpeg_with_a_trailer_after_its_end_marker_is_whole(tmp_path: Path) -> None:
    path = mf.make_jpeg(tmp_path / "trailer.jpg", (400, 300))
    path.write_bytes(path.read_bytes() + b"\0" * 4096)  # padding some cameras append
    assert media.probe(path).page_count == 1


def test_jpeg_missing_only_its_last_bytes_fails(tmp_path: Path) -> None:
    path = mf.make_jpeg(tmp_path / "almost.jpg", (400, 300))
    path.write_bytes(path.read_bytes()[:-2])  # no end-of-image marker
    refused(ErrorCode.CORRUPT_IMAGE, "almost.jpg", render.render_pages, path, "image/jpeg", [0])


def test_corrupt_image_header(tmp_path: Path) -> None:
    path = mf.make_truncated_jpeg(tmp_path / "stub.jpg", keep=0.01)
    refused(ErrorCode.CORRUPT_IMAGE, "stub.jpg", media.probe, path)
    png = mf.make_png(tmp_path / "bad.png")
    png.write_bytes(png.read_bytes()[:20])
    refused(ErrorCode.CORRUPT_IMAGE, "bad.png", media.probe, png)


def test_header_bomb_is_refused_without_decoding(tmp_path: Path) -> None:
    path = mf.make_bomb_png(tmp_path / "bomb.png")
    err = refused(ErrorCode.DECOMPRESSION_BOMB, "bomb.png", media.probe, path)
    assert "megapixels" in str(err)
    refused(ErrorCode.DECOMPRESSION_BOMB, "bomb.png", render.render_pages, path, "image/png", [0])


def test_header_just_over_the_limit_is_refused(tmp_path: Path) -> None:
    # Over Pillow's warning threshold but under its hard error: our own check must catch it.
    path = mf.make_bomb_png(tmp_path / "big.png", 10_000, 9_000)
    refused(ErrorCode.DECOMPRESSION_BOMB, "big.png", media.probe, path)


def test_lowered_pixel_limit_is_refused(tmp_path: Path) -> None:
    strict = RenderSettings(max_side=400, max_pixels=100_000)
    jpeg = mf.make_jpeg(tmp_path / "photo.jpg", (400, 300))
    err = refused(ErrorCode.DECOMPRESSION_BOMB, "photo.jpg", media.probe, jpeg, strict)
    assert "400x300" in str(err)
    refused(
        ErrorCode.DECOMPRESSION_BOMB,
        "photo.jpg",
        render.render_pages,
        jpeg,
        "image/jpeg",
        [0],
        strict,
    )
    # A later frame too big is caught by probe too, not only the first.
    tiff = mf.make_multiframe_tiff(tmp_path / "m.tif", [(100, 100), (400, 300)])
    refused(ErrorCode.DECOMPRESSION_BOMB, "m.tif", media.probe, tiff, strict)
    refused(
        ErrorCode.DECOMPRESSION_BOMB, "m.tif", render.render_pages, tiff, "image/tiff", [1], strict
    )
    assert len(list(render.render_pages(tiff, "image/tiff", [0], strict))) == 1


@pytest.mark.parametrize(
    ("make", "name", "media_type", "index"),
    [
        (mf.make_jpeg, "one.jpg", "image/jpeg", 1),
        (mf.make_pdf, "two.pdf", "application/pdf", 2),
        (mf.make_multiframe_tiff, "three.tif", "image/tiff", 3),
        (mf.make_pdf, "neg.pdf", "application/pdf", -1),
    ],
)
def test_page_index_out_of_range(tmp_path: Path, make, name: str, media_type, index) -> None:
    path = make(tmp_path / name)
    refused(ErrorCode.MEDIA_MISMATCH, name, render.render_pages, path, media_type, [0, index])


def test_wrong_media_type_for_render(tmp_path: Path) -> None:
    path = mf.make_png(tmp_path / "p.png")
    refused(ErrorCode.MEDIA_MISMATCH, "p.png", render.render_pages, path, "image/jpeg", [0])
    with pytest.raises(ValueError):
        list(render.render_pages(path, "image/gif", [0]))


def test_messages_name_the_display_path_not_the_staged_copy(tmp_path: Path) -> None:
    staged = mf.make_text_file(tmp_path / ".staging" / "txn" / "0123.jpg")
    original = "/Volumes/Shelf 3/box 12/page 004.jpg"
    err = refused(ErrorCode.UNSUPPORTED_MEDIA, original, media.probe, staged, SMALL, original)
    assert ".staging" not in str(err)
    cut = mf.make_truncated_jpeg(tmp_path / ".staging" / "txn" / "0124.jpg")
    err = refused(
        ErrorCode.CORRUPT_IMAGE,
        original,
        render.render_pages,
        cut,
        "image/jpeg",
        [0],
        display_path=original,
    )
    assert ".staging" not in str(err)


def test_io_faults_become_coded_errors(tmp_path: Path) -> None:
    path = mf.make_jpeg(tmp_path / "p.jpg")
    calls = [
        lambda: sniff.sniff_media_type(path, "orig/p.jpg"),
        lambda: media.probe(path, display_path="orig/p.jpg"),
        lambda: list(render.render_pages(path, "image/jpeg", [0], display_path="orig/p.jpg")),
    ]
    for call in calls:
        fsio.install_faults(fsio.FaultPlan(fail_at=1, errno=errno.EIO))
        try:
            refused(ErrorCode.IO_ERROR, "orig/p.jpg", call)
        finally:
            fsio.install_faults(None)
    refused(ErrorCode.IO_ERROR, "gone.jpg", media.probe, tmp_path / "gone.jpg")


def test_encryption_pypdf_cannot_decrypt_is_judged_by_pdfium(tmp_path: Path, monkeypatch) -> None:
    # Without its optional crypto package pypdf cannot open AES files at all; stand that in.
    def no_crypto(self, password):
        raise pypdf.errors.DependencyError("cryptography>=3.1 is required for AES algorithm")

    monkeypatch.setattr(pypdf.PdfReader, "decrypt", no_crypto)
    locked = mf.make_encrypted_pdf(tmp_path / "aes.pdf")
    refused(ErrorCode.ENCRYPTED_PDF, "aes.pdf", media.probe, locked)
    restricted = mf.make_encrypted_pdf(tmp_path / "aes-open.pdf", pages=3, user_password="")
    assert media.probe(restricted).page_count == 3


# -- PDFs as pdfium, which renders them, sees them -------------------------------------------

DATA = Path(__file__).parent / "data"


def test_aes_encrypted_pdf_that_opens_without_a_password_imports(tmp_path: Path) -> None:
    # AES-256: pypdf could not even check the empty password without the cryptography package.
    path = tmp_path / "aes.pdf"
    path.write_bytes((DATA / "aes256-empty-password.pdf").read_bytes())
    info = media.probe(path)
    assert info.page_count >= 1
    pages = render_all(path)
    assert len(pages) == info.page_count
    assert decoded(pages[0]).size[0] > 0


def test_pdf_with_a_damaged_trailer_that_pdfium_reads_imports(tmp_path: Path) -> None:
    path = mf.make_pdf_with_damaged_trailer(tmp_path / "trailer.pdf", pages=3)
    assert media.probe(path).page_count == 3
    good = render_all(mf.make_pdf(tmp_path / "good.pdf", 3))
    assert [p.sha256 for p in render_all(path)] == [p.sha256 for p in good]


def test_pdf_page_labels_per_page(tmp_path: Path) -> None:
    info = media.probe(mf.make_pdf_with_page_labels(tmp_path / "labelled.pdf"))
    assert info.page_labels == ("i", "ii", "A-3", "A-4", "A-5")


def test_images_have_no_page_labels(tmp_path: Path) -> None:
    assert media.probe(mf.make_jpeg(tmp_path / "a.jpg")).page_labels == ()


# -- decoder warnings ------------------------------------------------------------------------


def test_corrupt_exif_is_logged_not_raised_and_keeps_what_was_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # The suite runs with warnings as errors: Pillow's warning must not abort the probe.
    path = mf.make_jpeg_with_corrupt_exif(tmp_path / "camera.jpg", size=(320, 440))
    with caplog.at_level("INFO", logger="transcribe_import.engine.media"):
        info = media.probe(path)
        (page,) = render_all(path)
    assert (info.width, info.height, info.orientation) == (440, 320, 6)
    assert (page.width, page.height) == (400, 291)
    notes = [r for r in caplog.records if "Skipping tag 271" in r.getMessage()]
    assert notes, caplog.text
    assert all(r.levelname == "INFO" and "camera.jpg" in r.getMessage() for r in notes)


def test_invalid_apng_uses_the_default_image(tmp_path: Path) -> None:
    # An acTL chunk announcing zero frames: Pillow warns "Invalid APNG" and keeps the PNG.
    png = mf.make_png(tmp_path / "src.png", size=(64, 48)).read_bytes()
    chunks = mf._png_chunks(png)
    actl = (b"acTL", struct.pack(">II", 0, 0))
    path = tmp_path / "anim.png"
    path.write_bytes(mf._png_bytes([chunks[0], actl, *chunks[1:]]))
    assert media.probe(path).page_count == 1
    assert [p.sha256 for p in render_all(path)] == [
        p.sha256 for p in render_all(tmp_path / "src.png")
    ]


def test_warnings_from_other_code_keep_their_filters() -> None:
    # While a decode catches library warnings, a warning raised elsewhere is untouched
    # (here: still an error, as the suite's filters say).
    from transcribe_import.engine.media import quiet

    with quiet.caught() as found, pytest.raises(UserWarning):
        import warnings

        warnings.warn("not a decoder's", UserWarning, stacklevel=1)
    assert found == []


# -- colour ------------------------------------------------------------------------------------


def _saturated(size: tuple[int, int] = (60, 40)) -> Image.Image:
    im = Image.new("RGB", size)
    colours = [
        (255, 0, 0),
        (0, 200, 0),
        (0, 0, 255),
        (240, 200, 40),
        (90, 30, 160),
        (128, 128, 128),
    ]
    for i, colour in enumerate(colours):
        im.paste(colour, (i * 10, 0, i * 10 + 10, size[1]))
    return im


@pytest.mark.parametrize("fmt, suffix", [("PNG", ".png"), ("TIFF", ".tif"), ("JPEG", ".jpg")])
def test_adobe_rgb_render_is_converted_to_srgb(tmp_path: Path, fmt: str, suffix: str) -> None:
    from PIL import ImageCms

    icc = mf.adobe_rgb_icc()
    tagged = tmp_path / f"adobe{suffix}"
    naive = tmp_path / f"naive{suffix}"
    kw = {"quality": 95} if fmt == "JPEG" else {}
    _saturated().save(tagged, fmt, icc_profile=icc, **kw)
    _saturated().save(naive, fmt, **kw)
    (page,) = render_all(tagged)
    (plain,) = render_all(naive)
    with Image.open(tagged) as src:
        src.load()
        expected = ImageCms.profileToProfile(
            src,
            ImageCms.ImageCmsProfile(io.BytesIO(icc)),
            ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")),
            outputMode="RGB",
        )
    assert expected is not None
    # libvips converts with LittleCMS as Pillow does; JPEG's own decoders differ by a level.
    assert_close(decoded(page), expected)
    assert decoded(page).tobytes() != decoded(plain).tobytes()
    assert b"iCCP" not in png_chunk_types(page.png)
    # Deterministic: the same input renders to the same bytes, again and in a fresh file.
    again = tmp_path / f"again{suffix}"
    again.write_bytes(tagged.read_bytes())
    assert render_all(tagged)[0].png == page.png == render_all(again)[0].png


def test_an_unusable_icc_profile_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "junk-profile.png"
    _saturated().save(path, "PNG", icc_profile=b"not an icc profile" * 10)
    plain = tmp_path / "plain.png"
    _saturated().save(plain, "PNG")
    assert render_all(path)[0].png == render_all(plain)[0].png
