"""Renders by libvips: the pages Pillow rendered, the same size, mode and pixels within a level
or two; Pillow keeps the pages libvips does not read as it does; a stop ends a page mid-render."""

from __future__ import annotations

import io
import struct
import subprocess
import sys
import threading
import zlib
from pathlib import Path

import pytest
from PIL import Image

from transcribe_import.engine.media import render, render_vips
from transcribe_import.engine.media.kinds import RenderSettings, RenderStopped

import media_factory as mf

SMALL = RenderSettings(max_side=400)


def _page(path: Path, media_type: str, engine: render.RenderEngine, index: int = 0):  # type: ignore[no-untyped-def]
    (page,) = render.render_pages(path, media_type, [index], SMALL, engine=engine)
    return page


def _pixels(png: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(png))
    im.load()
    return im


def _same_picture(path: Path, media_type: str, index: int = 0) -> Image.Image:
    """The libvips render, checked against Pillow's: size, mode, every pixel within 4, mean < 1."""
    vips = _page(path, media_type, render.RenderEngine.LIBVIPS, index)
    pillow = _page(path, media_type, render.RenderEngine.PILLOW, index)
    assert vips.renderer == render_vips.version()
    assert pillow.renderer.startswith("Pillow ")
    got, want = _pixels(vips.png), _pixels(pillow.png)
    assert (got.size, got.mode) == (want.size, want.mode) == ((vips.width, vips.height), got.mode)
    diffs = [abs(a - b) for a, b in zip(got.tobytes(), want.tobytes(), strict=True)]
    assert max(diffs) <= 4 and sum(diffs) / len(diffs) < 1.0
    return got


@pytest.mark.parametrize(
    "mode, suffix, out_mode",
    [
        ("RGB", ".jpg", "RGB"),
        ("L", ".jpg", "L"),
        ("RGB", ".png", "RGB"),
        ("L", ".png", "L"),
        ("RGBA", ".png", "RGB"),  # alpha composited on white
        ("LA", ".png", "L"),
        ("I;16", ".png", "L"),  # 16-bit grayscale scaled, not clipped
        ("RGB", ".tif", "RGB"),
        ("RGB", ".webp", "RGB"),
    ],
)
def test_libvips_renders_the_common_pages_as_pillow_does(
    tmp_path: Path, mode: str, suffix: str, out_mode: str
) -> None:
    path = tmp_path / f"page{suffix}"
    im = mf.page_pixels((900, 700), "RGB", "a page")
    if mode == "RGBA":
        im = im.convert("RGBA")
        im.putalpha(Image.linear_gradient("L").resize(im.size))
    elif mode == "LA":
        im = im.convert("LA")
    elif mode == "I;16":
        im = im.convert("L").point(lambda v: v * 257, "I").convert("I;16")
    else:
        im = im.convert(mode)
    im.save(path)
    media_type = {".jpg": "image/jpeg", ".png": "image/png", ".tif": "image/tiff"}.get(
        suffix, "image/webp"
    )
    got = _same_picture(path, media_type)
    assert got.mode == out_mode and max(got.size) == 400
    if mode == "RGBA":  # the transparent corner is white, not black
        assert got.getpixel((0, 0)) == (255, 255, 255)


@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_orientation_is_applied_as_pillow_applies_it(tmp_path: Path, orientation: int) -> None:
    path = mf.make_jpeg(tmp_path / "turned.jpg", (900, 600), exif_orientation=orientation)
    got = _same_picture(path, "image/jpeg")
    assert got.size == ((267, 400) if orientation >= 5 else (400, 267))


def test_a_tiff_page_is_its_frame(tmp_path: Path) -> None:
    path = tmp_path / "pages.tif"
    frames = [mf.page_pixels((500, 300), "RGB", f"frame {i}") for i in range(3)]
    frames[0].save(path, save_all=True, append_images=frames[1:])
    for index in range(3):
        _same_picture(path, "image/tiff", index)


def test_a_pdf_page_is_rasterised_by_pdfium_and_encoded_by_libvips(tmp_path: Path) -> None:
    path = mf.make_pdf(tmp_path / "two.pdf", 2)
    page = _page(path, "application/pdf", render.RenderEngine.LIBVIPS, 1)
    assert page.renderer.startswith(f"{render_vips.version()}, pdfium ")
    pillow = _page(path, "application/pdf", render.RenderEngine.PILLOW, 1)
    assert _pixels(page.png).tobytes() == _pixels(pillow.png).tobytes()


def _rgb_with_trns(path: Path) -> None:
    mf.page_pixels((300, 200), "RGB").save(path, transparency=(255, 255, 255))


def _cmyk_jpeg(path: Path) -> None:
    mf.page_pixels((300, 200), "RGB").convert("CMYK").save(path)


def _palette_png(path: Path) -> None:
    mf.page_pixels((300, 200), "RGB").convert("P").save(path)


def _bilevel_png(path: Path) -> None:
    mf.page_pixels((300, 200), "RGB").convert("1").save(path)


@pytest.mark.parametrize(
    "make, name",
    [
        (_rgb_with_trns, "trns.png"),
        (_cmyk_jpeg, "cmyk.jpg"),
        (_palette_png, "palette.png"),
        (_bilevel_png, "bilevel.png"),
    ],
)
def test_pillow_keeps_the_pages_libvips_does_not_read_as_it_does(
    tmp_path: Path, make, name: str
) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / name
    make(path)
    media_type = "image/jpeg" if name.endswith(".jpg") else "image/png"
    page = _page(path, media_type, render.RenderEngine.LIBVIPS)
    assert page.renderer.startswith("Pillow ")


def test_a_stop_request_ends_a_page_in_the_middle_of_its_render(tmp_path: Path) -> None:
    path = tmp_path / "big.png"
    mf.page_pixels((3000, 4000), "RGB", "big").save(path, compress_level=1)
    asked = threading.Event()

    def should_stop() -> bool:
        if asked.is_set():
            return True
        asked.set()  # the first question says go on; the next ones say stop
        return False

    pages = render.render_pages(
        path, "image/png", [0], RenderSettings(max_side=3000), should_stop=should_stop
    )
    with pytest.raises(RenderStopped):
        next(iter(pages))
    assert asked.is_set()


def test_libvips_is_loaded_only_when_a_page_is_rendered() -> None:
    # A fresh process: starting the app, planning and doctor do not load libvips' 18 MB.
    code = (
        "import sys\n"
        "import transcribe_import.engine.api, transcribe_import.engine.doctor\n"
        "import transcribe_import.engine.media.render\n"
        "assert 'pyvips' not in sys.modules, 'pyvips imported at start'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_without_libvips_pillow_renders_every_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A damaged install (libvips' library missing): pages still import, made by Pillow.
    monkeypatch.setattr(render_vips, "available", lambda: False)
    jpeg = mf.make_jpeg(tmp_path / "p.jpg", (500, 300))
    pdf = mf.make_pdf(tmp_path / "p.pdf", 1)
    for path, media_type in ((jpeg, "image/jpeg"), (pdf, "application/pdf")):
        page = _page(path, media_type, render.RenderEngine.LIBVIPS)
        assert page.renderer.startswith("Pillow ")


def _pdf_pages(path: Path, indices: list[int], thumbnails=None):  # type: ignore[no-untyped-def]
    return render.render_pages(path, "application/pdf", indices, SMALL, thumbnails=thumbnails)


def test_a_pdfs_pages_encoded_beside_each_other_are_the_bytes_of_each_page_alone(
    tmp_path: Path,
) -> None:
    path = mf.make_pdf(tmp_path / "six.pdf", 6)
    kept: dict[tuple[int, int], bytes] = {}
    thumbnails = render_vips.Thumbnails(lambda i, side, png: kept.update({(i, side): png}), (64,))
    together = list(_pdf_pages(path, [5, 0, 3, 1, 4, 2], thumbnails))
    alone = [next(iter(_pdf_pages(path, [i]))) for i in (5, 0, 3, 1, 4, 2)]
    assert [p.page_index for p in together] == [5, 0, 3, 1, 4, 2]
    assert together == alone  # the same bytes, sizes and renderer, in the order asked
    assert sorted(kept) == [(i, 64) for i in range(6)]


def test_a_pdf_page_is_encoded_while_the_next_one_rasterises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = mf.make_pdf(tmp_path / "three.pdf", 3)
    rasterising = {i: threading.Event() for i in range(3)}
    seen_while_encoding: list[bool] = []
    real_rasterise, real_encode = render._rasterise_rgbx, render_vips.encode_rgbx

    def rasterise(doc, index, max_side, dp, turn):  # type: ignore[no-untyped-def]
        rasterising[index].set()
        return real_rasterise(doc, index, max_side, dp, turn)

    def encode(data, width, height, index, thumbnails=None, revision=None):  # type: ignore[no-untyped-def]
        # Page 0's encode waits for page 1 to be rasterised: done one after the other, it
        # would wait for ever (the timeout only keeps a broken pipeline from hanging).
        if index == 0:
            seen_while_encoding.append(rasterising[1].wait(timeout=30))
        return real_encode(data, width, height, index, thumbnails, revision)

    monkeypatch.setattr(render, "_rasterise_rgbx", rasterise)
    monkeypatch.setattr(render_vips, "encode_rgbx", encode)
    assert [p.page_index for p in _pdf_pages(path, [0, 1, 2])] == [0, 1, 2]
    assert seen_while_encoding == [True]


def test_a_pdf_page_pdfium_cannot_rasterise_fails_after_the_pages_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pypdfium2 as pdfium

    from transcribe_import.engine.base.errors import ErrorCode, TranscribeError

    path = mf.make_pdf(tmp_path / "four.pdf", 4)
    real = render._rasterise_rgbx

    def rasterise(doc, index, max_side, dp, turn):  # type: ignore[no-untyped-def]
        if index == 2:
            raise pdfium.PdfiumError("Failed to load page.")
        return real(doc, index, max_side, dp, turn)

    monkeypatch.setattr(render, "_rasterise_rgbx", rasterise)
    got: list[int] = []
    with pytest.raises(TranscribeError) as caught:
        for page in _pdf_pages(path, [0, 1, 2, 3]):
            got.append(page.page_index)
    assert caught.value.code is ErrorCode.CORRUPT_PDF and "four.pdf" in str(caught.value)
    assert got == [0, 1]


def test_a_pdf_left_after_its_first_page_encodes_only_the_pages_in_flight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = mf.make_pdf(tmp_path / "ten.pdf", 10)
    encoded: list[int] = []
    real = render_vips.encode_rgbx

    def encode(data, width, height, index, thumbnails=None, revision=None):  # type: ignore[no-untyped-def]
        encoded.append(index)
        return real(data, width, height, index, thumbnails, revision)

    monkeypatch.setattr(render_vips, "encode_rgbx", encode)
    pages = iter(_pdf_pages(path, list(range(10))))
    assert next(pages).page_index == 0
    pages.close()  # a stop between pages: the caller leaves the generator
    assert sorted(encoded) == list(range(len(encoded)))
    assert len(encoded) <= render.PDF_ENCODERS + 1
    assert not [t for t in threading.enumerate() if t.name.startswith("pdf-encode")]


def test_a_pdfs_pages_in_flight_hold_their_memory_from_the_decoding_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from transcribe_import.engine.media import budget

    path = mf.make_pdf(tmp_path / "five.pdf", 5)
    one_page = SMALL.max_side**2 * render._PDF_BYTES_PER_PIXEL
    tight = budget.MemoryBudget(one_page * 3 // 2)  # room for one page at a time
    monkeypatch.setattr(budget, "DECODE_BUDGET", tight)
    assert [p.page_index for p in _pdf_pages(path, [0, 1, 2, 3, 4])] == [0, 1, 2, 3, 4]
    assert tight.peak == one_page and tight.in_use == 0
    roomy = budget.MemoryBudget(one_page * 100)
    monkeypatch.setattr(budget, "DECODE_BUDGET", roomy)
    pages = iter(_pdf_pages(path, [0, 1, 2, 3, 4]))
    next(pages)
    pages.close()  # the caller stops after a page: every page's memory is given back
    assert one_page <= roomy.peak <= (render.PDF_ENCODERS + 1) * one_page
    assert roomy.in_use == 0
    real = render_vips.encode_rgbx

    def encode(data, width, height, index, thumbnails=None, revision=None):  # type: ignore[no-untyped-def]
        if index == 1:
            raise render_vips.vips().Error("encode failed")
        return real(data, width, height, index, thumbnails, revision)

    monkeypatch.setattr(render_vips, "encode_rgbx", encode)
    got: list[int] = []
    with pytest.raises(render_vips.vips().Error):
        for page in _pdf_pages(path, [0, 1, 2, 3, 4]):
            got.append(page.page_index)
    assert got == [0] and roomy.in_use == 0
    assert not [t for t in threading.enumerate() if t.name.startswith("pdf-encode")]


def _row_filters(png: bytes) -> set[int]:
    """The PNG filter types of a render's rows (8-bit grayscale or RGB, not interlaced)."""
    pos, idat = 8, b""
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        kind, body = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and body[12] == 0  # 8 bits a sample, not interlaced
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * {0: 1, 2: 3}[colour] + 1
    assert len(raw) == stride * height
    return {raw[row * stride] for row in range(height)}


SUB, PAETH = 1, 4  # the PNG filter types (PNG specification, 9.2)


@pytest.mark.parametrize("media_type", ["image/jpeg", "application/pdf"])
def test_renders_are_revision_3_with_every_row_sub_filtered_and_revision_2_is_paeth(
    tmp_path: Path, media_type: str
) -> None:
    if media_type == "image/jpeg":
        path = mf.make_jpeg(tmp_path / "page.jpg", (900, 700))
    else:
        path = mf.make_pdf(tmp_path / "page.pdf", 1)

    def made(revision: int | None):  # type: ignore[no-untyped-def]
        settings = RenderSettings(max_side=400, libvips_revision=revision)
        (page,) = render.render_pages(path, media_type, [0], settings)
        return page

    now, again, three, two = made(None), made(None), made(3), made(2)
    assert render_vips.PIPELINE == 3
    assert now.renderer.startswith(render_vips.version())
    assert render_vips.version().endswith(" (render 3)")
    assert now == again == three  # deterministic: the same bytes, sha256 and name
    assert _row_filters(now.png) == {SUB}
    assert two.renderer.startswith(render_vips.version(2))
    assert render_vips.version(2).endswith(" (render 2)")
    assert _row_filters(two.png) == {PAETH}
    assert two.sha256 != now.sha256
    assert _pixels(two.png).tobytes() == _pixels(now.png).tobytes()  # only the filter differs
    assert (two.width, two.height) == (now.width, now.height)


def test_a_recorded_libvips_renderer_names_the_revision_that_remakes_it() -> None:
    vips = "libvips 8.18.7"
    assert render_vips.revision_of(f"{vips} (render 3)") == 3
    assert render_vips.revision_of(f"{vips} (render 2)") == 2
    assert render_vips.revision_of(f"{vips} (render 2), pdfium 8149") == 2
    assert render_vips.revision_of("libvips 8.17.1 (render 3)") == 3  # the sha256 decides
    # Revision 1 (no revision in the name) had revision 2's PNG: revision 2 is tried.
    assert render_vips.revision_of(vips) == 2
    assert render_vips.revision_of(f"{vips}, pdfium 8149") == 2
    # A revision this app does not have, and names that are not libvips'.
    assert render_vips.revision_of(f"{vips} (render 4)") is None
    assert render_vips.revision_of(f"{vips} (render 1)") is None
    assert render_vips.revision_of("Pillow 12.0.0") is None
    assert render_vips.revision_of(f"{vips} (render 2) and more") is None
