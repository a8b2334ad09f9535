"""Two sparse pages that are not one page are turned down early (media/ink.py's
``_sparse_score``: the cheaper of their whole pages and their written parts first) and no
verdict changes: every pair scores as the straightforward path does (helpers/ink_straight.py)
from ``EXACT_FROM`` up, to the last bit, and 0 or that score below it."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from transcribe_import.engine.media import ink, lookalike

from helpers import ink_straight, pages

pytestmark = pytest.mark.slow  # some 400 pairs, each verified both ways


def _ink(data: bytes, ext: str) -> ink.Ink:
    kind = {".jpg": "image/jpeg", ".png": "image/png"}[ext]
    [seen] = lookalike.page_seen(Path("page" + ext), kind, 1, size=len(data), data=data)
    assert seen is not None and seen.ink is not None
    return seen.ink


@pytest.fixture(autouse=True)
def _nothing_kept() -> Iterator[None]:
    ink.forget_derived()
    yield
    ink.forget_derived()


# Pages with a little written (a few words, a date line, a page number), of two notebooks:
# each first scan, and rescans upright as it (turned rescans are turned back before their
# verification: ``inks.score``).
KINDS = (pages.Kind.FEW_WORDS,) * 4 + (pages.Kind.DATE, pages.Kind.DATE, pages.Kind.NUMBER)
WAYS = (pages.Rescan.TILT, pages.Rescan.CROP, pages.Rescan.PHONE)


def _notebook(seed: int, light: pages.Light) -> list[tuple[int, ink.Ink]]:
    """A notebook's pages (their number, their ink): each first scan, then its rescans."""
    nb = pages.notebook(seed, pages.Paper.RULED, light)
    out = []
    for n, kind in enumerate(KINDS, 1):
        page = pages.page(nb, n, kind)
        out.append((n, _ink(pages.first_scan(page), ".jpg")))
        out += [(n, _ink(*pages.rescan(page, how, seed + n))) for how in WAYS]
    return out


def test_no_verdict_changes_and_every_score_from_exact_from_is_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    missing_asked = 0
    real_missing = ink._is_missing

    def counted(pa: np.ndarray, pb: np.ndarray) -> bool:
        nonlocal missing_asked
        missing_asked += 1
        return real_missing(pa, pb)

    monkeypatch.setattr(ink, "_is_missing", counted)
    turned_down_on_the_whole = turned_down_by_a_part = same = 0
    for seed, light in ((38, pages.Light.LAMP), (2027, pages.Light.SCANNER)):
        found = _notebook(seed, light)
        firsts = found[:: 1 + len(WAYS)]
        # Each ink onto each first scan of its notebook (a rescan onto its own page, and
        # every page onto the notebook's other pages: one hand, one paper).
        for n, a in firsts:
            for m, b in found:
                if a is b:
                    continue
                assert a.detail is not None and b.detail is not None  # all sparse
                asked_before = missing_asked
                value = ink.score(a, b)
                straight = ink_straight.score(a, b)
                if straight >= ink.EXACT_FROM:
                    assert value == straight, (n, m)
                else:
                    assert value in (straight, 0.0), (n, m)
                assert (value >= ink.SAME_PAGE) == (straight >= ink.SAME_PAGE), (n, m)
                # Real verdicts: another page of the notebook is never its page.
                assert n == m or value < ink.SAME_PAGE, (n, m, value)
                framed = max(a.detail.shape[0], b.detail.shape[0]) * max(
                    a.detail.shape[1], b.detail.shape[1]
                )
                if n != m and framed > a.pixels.size and missing_asked == asked_before:
                    turned_down_on_the_whole += 1
                if n != m and framed <= a.pixels.size and value == 0.0:
                    turned_down_by_a_part += 1
                same += value >= ink.SAME_PAGE
    # Both orders were taken, and pairs were turned down on their whole pages with their
    # written parts never aligned.
    assert turned_down_on_the_whole > 0
    assert turned_down_by_a_part > 0
    assert same >= 0.9 * 2 * len(KINDS) * len(WAYS)  # most rescans found their page


def test_the_score_does_not_depend_on_which_is_found_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same pairs scored with every written part aligned first, then with every whole
    page scored first: the same score, each pair's, turned down or not."""
    found = _notebook(38, pages.Light.LAMP)[:8]  # two pages, each with its rescans
    pairs = [(a, b) for _n, a in found for _m, b in found if a is not b]
    monkeypatch.setattr(ink, "_whole_first", lambda shape, pixels: False)
    parts_first = [ink.score(a, b) for a, b in pairs]
    ink.forget_derived()
    monkeypatch.setattr(ink, "_whole_first", lambda shape, pixels: True)
    wholes_first = [ink.score(a, b) for a, b in pairs]
    assert wholes_first == parts_first
    assert any(s >= ink.SAME_PAGE for s in parts_first)
    assert 0.0 in parts_first


def test_a_pair_turned_down_for_no_peak_standing_out_keeps_every_verdict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two sparse pages whose whole pages' correlation has no peak standing out
    (``ink.STANDS_OUT``) score 0 without being aligned: on rescans of every upright way and
    both lights, each rescan found keeps the score made without that stage, to the last
    bit, its peak far above the line, and pairs of different pages are turned down by it."""
    ways = tuple(
        how
        for how in pages.Rescan
        if how not in (pages.Rescan.RIGHT, pages.Rescan.HALF, pages.Rescan.LEFT)
    )
    pairs: list[tuple[int, ink.Ink, int, ink.Ink]] = []
    for seed, light in ((11, pages.Light.SCANNER), (2027, pages.Light.LAMP)):
        nb = pages.notebook(seed, pages.Paper.RULED, light)
        found: list[tuple[int, ink.Ink]] = []
        firsts: list[tuple[int, ink.Ink]] = []
        for n, kind in enumerate(KINDS, 1):
            page = pages.page(nb, n, kind)
            firsts.append((n, _ink(pages.first_scan(page), ".jpg")))
            found.append(firsts[-1])
            found += [(n, _ink(*pages.rescan(page, how, seed + n))) for how in ways]
        pairs += [(n, a, m, b) for n, a in firsts for m, b in found if a is not b]
    line = ink.STANDS_OUT
    real = ink._standing_out
    stood: list[float] = []

    def recorded(pa: np.ndarray, pb: np.ndarray) -> float:
        stood.append(real(pa, pb))
        return stood[-1]

    monkeypatch.setattr(ink, "_standing_out", recorded)
    with_stage, peaks = [], []
    for _n, a, _m, b in pairs:
        del stood[:]
        with_stage.append(ink.score(a, b))
        # None: not asked (a part missing decided first, or an ink with no written part at
        # DETAIL_SIDE, verified as a whole page)
        peaks.append(stood[0] if stood else None)
    ink.forget_derived()
    monkeypatch.setattr(ink, "STANDS_OUT", 0.0)  # the stage never turns a pair down
    without = [ink.score(a, b) for _n, a, _m, b in pairs]
    rescans_found = turned_down = 0
    for (n, _a, m, _b), value, plain, peak in zip(pairs, with_stage, without, peaks, strict=True):
        if plain >= ink.SAME_PAGE:
            assert value == plain, (n, m)  # every rescan found keeps its exact score
            assert peak is None or peak > 1.2 * line, (n, m, peak)
            rescans_found += n == m
        else:
            assert value in (plain, 0.0), (n, m)
        assert n == m or value < ink.SAME_PAGE, (n, m)
        turned_down += n != m and peak is not None and peak < line
    assert rescans_found >= 0.9 * 2 * len(KINDS) * len(ways)
    assert turned_down > 0


def _cropped(im: Image.Image, cut: float, rnd: random.Random) -> bytes:
    """``im`` with ``cut`` of its width and height taken off, anywhere: a rescan framed
    tighter than the labelled sets' 2-4 % (helpers/pages.py's ``Rescan.CROP``)."""
    w, h = im.size
    left, top = int(w * cut * rnd.random()), int(h * cut * rnd.random())
    return pages.first_scan(
        im.crop((left, top, left + int(w * (1 - cut)), top + int(h * (1 - cut))))
    )


@pytest.mark.parametrize("cut", [0.06, 0.08])
def test_a_rescan_cropped_beyond_the_scale_search_keeps_its_verdict(
    monkeypatch: pytest.MonkeyPatch, cut: float
) -> None:
    """Cropped by 6 or 8 %, beyond the ±4 % the scale search covers, a sparse page's rescan
    gets the same score with the no-peak stage as without it: the stage is not what finds
    or loses such a rescan (at 8 % most are lost either way: ``SCALES``)."""
    rnd = random.Random(38)
    pairs = []
    for seed, light in ((38, pages.Light.LAMP), (2027, pages.Light.SCANNER)):
        nb = pages.notebook(seed, pages.Paper.RULED, light)
        for n, kind in enumerate((pages.Kind.FEW_WORDS, pages.Kind.DATE, pages.Kind.NUMBER), 1):
            page = pages.page(nb, n, kind)
            pairs.append(
                (_ink(pages.first_scan(page), ".jpg"), _ink(_cropped(page, cut, rnd), ".jpg"))
            )
    with_stage = [ink.score(a, b) for a, b in pairs]
    ink.forget_derived()
    monkeypatch.setattr(ink, "STANDS_OUT", 0.0)  # the stage never turns a pair down
    assert [ink.score(a, b) for a, b in pairs] == with_stage
    if cut == 0.06:
        assert sum(s >= ink.SAME_PAGE for s in with_stage) >= 4  # most still found
