"""The look pass's cheaper arithmetic makes the same measures, inks and looks to the last bit
as the straightforward arithmetic it replaced, which is kept here (bench/bench_look.py
checks the same on hundreds of page files against the tree before)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from transcribe_import.engine.media import ink, lookalike, page_measures

from helpers.pages import Kind, Light, Paper, first_scan, notebook, page


def _straight_sharpness(g: np.ndarray) -> float:
    """The page's sharpness in float32 over every pixel, as it was first made."""
    if min(g.shape) < 8:
        return 0.0
    core = g[1:-1, 1:-1]
    lap = g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:] - 4 * core
    gx = (g[1:-1, 2:] - g[1:-1, :-2]) / 2
    gy = (g[2:, 1:-1] - g[:-2, 1:-1]) / 2
    grad = gx * gx + gy * gy
    strongest = grad >= np.quantile(grad, 1 - page_measures.EDGE_SHARE)
    energy = float(grad[strongest].sum())
    if energy <= 0:
        return 0.0
    return float(np.sqrt(float((lap[strongest] ** 2).sum()) / energy))


def _straight_lines(pixels: np.ndarray) -> tuple[float, float, float]:
    part = ink.written(ink.Ink(pixels))  # no extent kept: found again
    total = float(part.sum())
    if total <= 0:
        return 0.0, 0.0, 0.5

    def variation(profile: np.ndarray) -> float:
        mean = float(profile.mean())
        return float(profile.std()) / mean if mean > 0 else 0.0

    lead = float(part[: part.shape[0] // 2].sum()) / total
    return variation(part.sum(axis=1)), variation(part.sum(axis=0)), lead


def _straight_measures(image: Image.Image, pixels: np.ndarray) -> page_measures.Measures:
    grey = image.convert("L")
    if max(grey.size) > ink.SIDE:
        grey.thumbnail((ink.SIDE, ink.SIDE), Image.Resampling.BOX)
    levels = np.asarray(grey)
    cumulative = np.cumsum(np.bincount(levels.ravel(), minlength=256))
    paper, darkest = (int(np.searchsorted(cumulative, q * cumulative[-1])) for q in (0.95, 0.0002))
    rows, columns, lead = _straight_lines(pixels)
    sharp = _straight_sharpness(levels.astype(np.float32))
    return page_measures.Measures(paper, darkest, sharp, rows, columns, lead)


# A page of each kind under each light, as the look pass decodes it (a JPEG at ``ink.SIDE``).
PAGES = [(kind, light) for kind in Kind for light in Light]


@pytest.fixture(scope="module")
def decoded() -> dict[tuple[Kind, Light], Image.Image]:
    out = {}
    for k, (kind, light) in enumerate(PAGES):
        data = first_scan(page(notebook(40 + k, Paper.RULED, light), 3, kind))
        out[kind, light] = lookalike._jpeg_image(
            io.BytesIO(data), "page.jpg", exif=True, side=lookalike.LOOK_SIDE
        )
    return out


@pytest.mark.parametrize(("kind", "light"), PAGES, ids=[f"{k.name}-{v.name}" for k, v in PAGES])
def test_a_pages_measures_and_ink_are_the_straightforward_ones(
    decoded: dict[tuple[Kind, Light], Image.Image], kind: Kind, light: Light
) -> None:
    image = decoded[kind, light]
    found = ink.ink_of(image)
    assert page_measures.measure(image, found) == _straight_measures(image, found.pixels)
    # The extent the ink keeps is the one found again, and so is its written part.
    if found.extent is not None:
        assert found.extent == ink._ink_extent(found.pixels)
    again = ink.Ink(found.pixels)
    assert np.array_equal(ink.written(found), ink.written(again))
    assert lookalike._look(lookalike._reduced(found)) == lookalike._look(lookalike._reduced(again))


def test_the_sharpness_is_the_float_arithmetic_on_any_grey_levels() -> None:
    rnd = np.random.default_rng(38)
    for case in range(600):
        shape = (int(rnd.integers(8, 70)), int(rnd.integers(8, 70)))
        how = case % 4
        if how == 0:  # noise: every level
            levels = rnd.integers(0, 256, shape, dtype=np.uint8)
        elif how == 1:  # paper with specks: most gradients 0, many ties at the quantile
            levels = np.where(rnd.random(shape) < 0.03, rnd.integers(0, 256), 230).astype(np.uint8)
        elif how == 2:  # one line across: the strongest few share one value
            levels = np.full(shape, 200, np.uint8)
            levels[int(rnd.integers(0, shape[0])), :] = int(rnd.integers(0, 256))
        else:  # a few levels, the extremes among them
            levels = rnd.choice(np.array([0, 1, 2, 254, 255], np.uint8), shape)
        assert page_measures._sharpness(levels) == _straight_sharpness(levels.astype(np.float32))


def test_the_quantiles_bound_picks_the_pixels_numpys_quantile_does() -> None:
    rnd = np.random.default_rng(39)
    for n in [*range(1, 80), 181, 1000, 4097, 183_090]:
        for top in (3, 40, 130_050):
            values = rnd.integers(0, top + 1, n).astype(np.int32)
            quarters = (values / 4).astype(np.float32)
            for q in (0.5, 0.9, 0.98, 0.999):
                least = page_measures._quantile_floor(values, q)
                expected = quarters >= np.quantile(quarters, q)
                assert np.array_equal(values >= least, expected), (n, top, q)


def test_a_blank_and_a_tiny_page_measure_as_before() -> None:
    for image in (Image.new("L", (400, 560), 235), Image.new("L", (6, 9), 120)):
        found = ink.ink_of(image)
        assert found.extent is None
        assert page_measures.measure(image, found) == _straight_measures(image, found.pixels)


@pytest.mark.parametrize("size", [(600, 850), (850, 600), (1023, 400), (1024, 800), (20, 30)])
@pytest.mark.parametrize("orientation", range(1, 9))
def test_a_small_jpeg_decoded_once_gives_both_decodes_pixels(
    size: tuple[int, int], orientation: int
) -> None:
    pixels = np.random.default_rng(orientation).integers(0, 256, (size[1], size[0], 3))
    exif = Image.Exif()
    exif[0x0112] = orientation
    out = io.BytesIO()
    Image.fromarray(pixels.astype(np.uint8), "RGB").save(out, "JPEG", exif=exif.tobytes())
    data = out.getvalue()
    small, finer = lookalike._jpeg(data, "page.jpg", exif=True)
    assert finer is not None
    for made, side in ((small, lookalike.LOOK_SIDE), (finer(), ink.DETAIL_SIDE)):
        apart = lookalike._jpeg_image(io.BytesIO(data), "page.jpg", exif=True, side=side)
        assert (made.mode, made.size) == (apart.mode, apart.size)
        assert made.tobytes() == apart.tobytes()


def _detail_shrunk_whole(small: Image.Image, data: bytes) -> np.ndarray | None:
    """A sparse page's written part cut from its whole page's ink at DETAIL_SIDE, the JPEG
    decoded and shrunk whole (the way before)."""
    fine_image = lookalike._jpeg_image(io.BytesIO(data), "page.jpg", exif=True, side=2048)
    base = ink._ink_pixels(small, ink.SIDE)
    box = ink._sparse_box(base)
    if box is None:
        return None
    fine = ink._ink_pixels(fine_image, ink.DETAIL_SIDE, exactly=True)
    y0, y1, x0, x1 = ink._detail_box(box, base.shape, fine.shape)
    return fine[y0:y1, x0:x1]


@pytest.mark.parametrize("size", [(2480, 3508), (3508, 2480), (3024, 4032), (2049, 3000)])
@pytest.mark.parametrize("kind", [Kind.DATE, Kind.NUMBER])
def test_a_large_sparse_pages_detail_is_its_band_shrunk_alone(
    size: tuple[int, int], kind: Kind
) -> None:
    im = page(notebook(5, Paper.RULED, Light.LAMP), 2, kind)
    if size[0] > size[1]:
        im = im.transpose(Image.Transpose.ROTATE_90)
    out = io.BytesIO()
    im.resize(size).save(out, "JPEG", quality=85)
    data = out.getvalue()
    small, finer = lookalike._jpeg(data, "page.jpg", exif=True)
    assert small is not None and finer is not None
    assert max(finer().size) > ink.DETAIL_SIDE  # decoded, not shrunk whole
    found = ink.ink_of(small, finer)
    assert found.detail is not None
    assert np.array_equal(found.detail, _detail_shrunk_whole(small, data))


@pytest.mark.parametrize(
    "size", [(2480, 3508), (3508, 2480), (1449, 2049), (3000, 2999), (2999, 3000), (7000, 13)]
)
def test_the_shrunk_size_is_pillows_thumbnails(size: tuple[int, int]) -> None:
    made = Image.new("L", size)
    made.thumbnail((ink.DETAIL_SIDE, ink.DETAIL_SIDE), Image.Resampling.BOX)
    assert ink.thumbnail_size(size, ink.DETAIL_SIDE) == made.size


def _straight_look(pixels: np.ndarray) -> lookalike.Look:
    """A page's four hashes in Python floats and lists, as they were first made."""
    rows: list[list[float]] = (lookalike._cosines() @ pixels @ lookalike._cosines().T).tolist()
    hashes = []
    for _ in range(4):
        flat = [c for row in rows for c in row]
        median = sorted(flat[1:])[(lookalike.BITS - 1) // 2]
        hashes.append(sum(1 << i for i in range(1, lookalike.BITS) if flat[i] > median))
        keep = range(lookalike.KEEP)
        rows = [[rows[u][v] * (-1 if u % 2 else 1) for u in keep] for v in keep]
    return lookalike.Look((hashes[0], hashes[3], hashes[2], hashes[1]))


def test_the_hash_is_the_python_arithmetic_to_the_last_bit(
    decoded: dict[tuple[Kind, Light], Image.Image],
) -> None:
    rnd = np.random.default_rng(40)
    reduced = [lookalike._reduced(ink.ink_of(image)) for image in decoded.values()]
    reduced += [rnd.random((lookalike.SIDE, lookalike.SIDE)) for _ in range(200)]
    reduced += [np.round(rnd.random((lookalike.SIDE, lookalike.SIDE)) * 3) for _ in range(50)]
    for pixels in reduced:
        assert lookalike._look(pixels) == _straight_look(pixels)


def _same_ink(a: ink.Ink | None, b: ink.Ink | None) -> bool:
    if a is None or b is None:
        return a is b
    if a.detail is None or b.detail is None:
        same_detail = a.detail is b.detail
    else:
        same_detail = np.array_equal(a.detail, b.detail)
    return np.array_equal(a.pixels, b.pixels) and same_detail


def test_a_pages_ink_alone_is_the_one_its_look_is_made_with(tmp_path: Path) -> None:
    nb = notebook(9, Paper.RULED, Light.SCANNER)
    pages = [page(nb, n, kind) for n, kind in enumerate((Kind.DATE, Kind.FULL, Kind.NUMBER), 1)]
    files: list[tuple[Path, str, int]] = []
    pdf = tmp_path / "scans.pdf"
    pages[0].save(pdf, "PDF", resolution=100, save_all=True, append_images=pages[1:])
    files.append((pdf, "application/pdf", 3))
    for k, (im, name, kind) in enumerate(
        [
            (pages[0], "small.jpg", "image/jpeg"),
            (pages[2].resize((2480, 3508)), "a4.jpg", "image/jpeg"),
            (pages[0], "page.png", "image/png"),
        ]
    ):
        im.save(tmp_path / name, quality=88 - k)
        files.append((tmp_path / name, kind, 1))
    for path, kind, count in files:
        data = path.read_bytes()
        seen = lookalike.page_seen(path, kind, count, size=len(data), data=data)
        for index in range(count):
            alone = lookalike.page_ink(path, kind, count, index, size=len(data), data=data)
            with_look = seen[index]
            assert _same_ink(alone, None if with_look is None else with_look.ink), (path, index)
    assert lookalike.page_ink(pdf, "application/pdf", 3, 3, size=pdf.stat().st_size) is None
