"""The ink's arithmetic done faster gives the same pixels: a page's look is their hash."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageFilter

from transcribe_import.engine.media import ink


@pytest.mark.parametrize("shape", [(1, 1), (2, 3), (7, 4), (91, 128), (128, 91), (300, 17)])
def test_the_paper_s_maximum_is_pillow_s_max_filter_pixel_for_pixel(
    shape: tuple[int, int],
) -> None:
    rng = np.random.default_rng(sum(shape))
    pixels = rng.integers(0, 256, size=shape, dtype=np.uint8)
    expected = Image.fromarray(pixels, "L").filter(ImageFilter.MaxFilter(ink.PAPER_WINDOW))
    assert np.array_equal(ink._max_filter(pixels, ink.PAPER_WINDOW), np.asarray(expected))


def _ink_as_before(image: Image.Image, side: int) -> np.ndarray:
    """``ink._ink_pixels`` as it was written first (Pillow's MaxFilter, a new array a step)."""
    grey = image.convert("L")
    if max(grey.size) > side:
        grey.thumbnail((side, side), Image.Resampling.BOX)
    small = grey.reduce(4) if min(grey.size) >= 32 else grey
    paper = small.filter(ImageFilter.MaxFilter(5)).filter(ImageFilter.BoxBlur(3))
    paper = paper.resize(grey.size, Image.Resampling.BILINEAR)
    g = np.asarray(grey, dtype=np.float32)
    p = np.maximum(np.asarray(paper, dtype=np.float32), 1.0)
    dark = 1.0 - np.minimum(g / p, 1.0)
    out = np.clip((dark - ink.INK_FROM) / (ink.INK_FULL - ink.INK_FROM), 0.0, 1.0)
    rows, cols = out.shape
    dy, dx = max(1, round(rows * ink.EDGE)), max(1, round(cols * ink.EDGE))
    out[:dy, :] = 0
    out[-dy:, :] = 0
    out[:, :dx] = 0
    out[:, -dx:] = 0
    return out.astype(np.float32)


def test_a_page_s_ink_is_the_same_to_the_last_bit() -> None:
    rng = np.random.default_rng(7)
    # Paper with a lamp's gradient, strokes of every darkness, specks.
    page = np.linspace(170, 245, 700, dtype=np.float32)[None, :].repeat(990, axis=0)
    for _ in range(400):
        y, x = rng.integers(20, 970), rng.integers(20, 600)
        page[y : y + 2, x : x + rng.integers(5, 80)] = rng.integers(0, 160)
    image = Image.fromarray(page.astype(np.uint8), "L").convert("RGB")
    for side in (ink.SIDE, ink.DETAIL_SIDE):
        assert np.array_equal(ink._ink_pixels(image, side), _ink_as_before(image, side))
