"""A page's verifications reuse what was made of its ink for its earlier pairs (media/ink.py
keeps it: its spectra, its tiles', its dilated ink), and score every pair as the
straightforward path does (helpers/ink_straight.py), to the last bit."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from transcribe_import.engine.media import ink, lookalike

from helpers import ink_straight, pages

pytestmark = pytest.mark.slow  # some 250 verifications, each path


def _ink(data: bytes, ext: str = ".jpg") -> ink.Ink:
    kind = {".jpg": "image/jpeg", ".png": "image/png"}[ext]
    [seen] = lookalike.page_seen(Path("page" + ext), kind, 1, size=len(data), data=data)
    assert seen is not None and seen.ink is not None
    return seen.ink


@pytest.fixture(scope="module")
def found() -> list[ink.Ink]:
    """A full page, a half page and a date line (sparse: scored by its written part at
    2048 pixels), each first scanned and rescanned tilted and at another dpi, and a full
    page of another day."""
    nb = pages.notebook(38, pages.Paper.RULED, pages.Light.LAMP)
    out = []
    for n, kind in enumerate((pages.Kind.FULL, pages.Kind.HALF, pages.Kind.DATE), 1):
        page = pages.page(nb, n, kind)
        out.append(_ink(pages.first_scan(page)))
        out += [_ink(*pages.rescan(page, how, n)) for how in (pages.Rescan.TILT, pages.Rescan.DPI)]
    out.append(_ink(pages.first_scan(pages.page(nb, 4, pages.Kind.FULL))))
    return out


@pytest.fixture(autouse=True)
def _nothing_kept() -> Iterator[None]:
    ink.forget_derived()
    yield
    ink.forget_derived()


def _pairs(found: list[ink.Ink]) -> list[tuple[ink.Ink, ink.Ink]]:
    """Every page onto every other, and onto each a page turned a half turn back."""
    pairs = [(a, b) for a in found for b in found if a is not b]
    return pairs + [(a, ink.turned(found[0], 2)) for a in found[:3]]


def test_every_score_is_the_straightforward_one_to_the_last_bit(found: list[ink.Ink]) -> None:
    pairs = _pairs(found)
    kept = [ink.score(a, b) for a, b in pairs]
    straight = [ink_straight.score(a, ink_straight.turned(b, 0)) for a, b in pairs]
    assert kept == straight
    # Real verdicts: each first scan's rescans are its page, the other pages are not.
    assert [kept[k] >= ink.SAME_PAGE for k in (0, 1, 2)] == [True, True, False]
    assert any(a.detail is not None and b.detail is not None for a, b in pairs)


def test_a_page_onto_others_is_made_once_and_the_kept_stays_within_its_bound(
    found: list[ink.Ink], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tiles of a page verified against all the others are made once; with room for
    a page or two only, the kept is let go as it grows and the scores stay the same."""
    stacks = 0  # the tiles' transforms: one stack of tiles of one shape a call
    real = np.fft.rfft2

    def counted(pixels: np.ndarray, *args: object, **kwargs: object) -> np.ndarray:
        nonlocal stacks
        stacks += pixels.ndim == 3
        return real(pixels, *args, **kwargs)

    first, others = found[0], found[2:]
    monkeypatch.setattr(np.fft, "rfft2", counted)
    ink.score(first, found[1])
    first_pair = stacks
    tiles = ink._tiles(first.pixels, ink.TILES, ink.TILES)
    for other in others:
        ink.score(first, other)
    monkeypatch.setattr(np.fft, "rfft2", real)
    assert ink._tiles(first.pixels, ink.TILES, ink.TILES) is tiles  # kept, not made again
    assert first_pair == 2 * len(tiles.spectra)  # both pages' tiles, a stack a shape
    # The other page's tiles alone after that (fewer where a tile of it has no ink).
    assert 0 < stacks - first_pair <= len(others) * len(tiles.spectra)

    ink.forget_derived()
    monkeypatch.setattr(ink, "DERIVED_BYTES", 2 * 2**20)
    pairs = _pairs(found)
    scores = []
    for a, b in pairs:
        scores.append(ink.score(a, b))
        assert ink._derived_size <= ink.DERIVED_BYTES or len(ink._derived) == 1
    assert scores == [ink_straight.score(a, b) for a, b in pairs]
