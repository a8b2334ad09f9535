"""A sparse page's written part at DETAIL_SIDE is made of its band of the page alone, the
same pixels as the whole page's ink at that size there (the verdicts depend on them)."""

from __future__ import annotations

import time

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from transcribe_import.engine.media import ink


def _page(size: tuple[int, int], where: tuple[int, int], words: str) -> Image.Image:
    page = Image.new("RGB", size, (244, 238, 222))
    draw = ImageDraw.Draw(page)
    for y in range(60, size[1] - 20, 24):  # the ruling: light, not ink
        draw.line([(10, y), (size[0] - 10, y)], fill=(200, 205, 220))
    font = ImageFont.load_default(size=max(11, size[1] // 40))  # a hand's size on the page
    draw.text(where, words, fill=(30, 30, 60), font=font)
    return page


def _whole(image: Image.Image) -> np.ndarray:
    """The written part cut from the whole page's ink at DETAIL_SIDE (the way before)."""
    base = ink._ink_pixels(image, ink.SIDE)
    box = ink._sparse_box(base)
    assert box is not None
    fine = ink._ink_pixels(image, ink.DETAIL_SIDE, exactly=True)
    y0, y1, x0, x1 = ink._detail_box(box, base.shape, fine.shape)
    return fine[y0:y1, x0:x1]


@pytest.mark.parametrize(
    ("size", "where"),
    [
        ((600, 850), (40, 70)),  # a phone's small export, a date line at the top
        ((600, 850), (300, 800)),  # a page number at the foot, the band at the page's end
        ((850, 600), (60, 300)),  # turned: the band across the columns
        ((620, 877), (200, 420)),  # another size: the scale to 2048 not a round one
        ((1448, 2048), (300, 900)),  # DETAIL_SIDE long already: not enlarged
        ((2480, 3508), (400, 600)),  # larger than DETAIL_SIDE: the whole page made smaller
    ],
)
def test_the_written_part_is_the_whole_pages_ink_there_to_the_last_bit(
    size: tuple[int, int], where: tuple[int, int]
) -> None:
    image = _page(size, where, "Tuesday 4 March 1931")
    found = ink.ink_of(image)
    assert found.detail is not None
    assert found.detail.dtype == np.float32
    assert np.array_equal(found.detail, _whole(image))


def test_the_written_part_costs_a_fraction_of_the_whole_page() -> None:
    image = _page((600, 850), (40, 70), "12 May 1932")

    def cpu(make: object) -> float:
        best = float("inf")
        for _ in range(5):
            start = time.process_time()
            make()  # type: ignore[operator]
            best = min(best, time.process_time() - start)
        return best

    assert cpu(lambda: ink.ink_of(image)) < 0.5 * cpu(lambda: _whole(image))
