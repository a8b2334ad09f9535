"""A rescan's verification as it was written first (media/ink.py before #38 kept what is
made of one page for its next pairs): each pair made from nothing, one step after another.
The tests hold the kept path to these scores, to the last bit."""

from __future__ import annotations

import numpy as np

from transcribe_import.engine.media import ink
from transcribe_import.engine.media.ink import (
    BLOCK,
    BLOCK_INK,
    DETAIL_BLOCK,
    DETAIL_SLACK,
    DETAIL_TOLERANCE,
    MISSING,
    SCALES,
    TILE_LEAST,
    TILE_SLACK,
    TILES,
    TOLERANCE,
    Ink,
)


def score(a: Ink, b: Ink) -> float:
    if a.blank or b.blank:
        return 0.0
    if a.detail is None or b.detail is None:
        return _score(a.pixels, ink._fitted(b.pixels, a.pixels.shape), BLOCK)
    shape = (
        max(a.detail.shape[0], b.detail.shape[0]),
        max(a.detail.shape[1], b.detail.shape[1]),
    )
    pa = ink._framed(a.detail, shape)
    pb = aligned(pa, ink._framed(b.detail, shape), DETAIL_SLACK)
    if _missing(pa, pb) > MISSING:
        return 0.0
    whole = _score(a.pixels, ink._fitted(b.pixels, a.pixels.shape), BLOCK, by_blocks=False)
    if whole <= 0:
        return 0.0
    return min(whole, _measures(pa, pb, DETAIL_BLOCK, tolerance=DETAIL_TOLERANCE))


def turned(found: Ink, quarters: int) -> Ink:
    if quarters % 4 == 0:
        return found
    detail = found.detail
    return Ink(
        np.ascontiguousarray(np.rot90(found.pixels, quarters)),
        None if detail is None else np.ascontiguousarray(np.rot90(detail, quarters)),
    )


def _shift(a: np.ndarray, b: np.ndarray, limit: int | None = None) -> tuple[int, int]:
    fa = np.fft.rfft2(a)
    fb = np.fft.rfft2(b)
    cross = fa * np.conj(fb)
    cross /= np.maximum(np.abs(cross), 1e-9)
    corr = np.fft.irfft2(cross, s=a.shape)
    if limit is not None:
        rows, cols = corr.shape
        keep = np.zeros_like(corr, dtype=bool)
        keep[: limit + 1, : limit + 1] = True
        keep[: limit + 1, cols - limit :] = True
        keep[rows - limit :, : limit + 1] = True
        keep[rows - limit :, cols - limit :] = True
        corr = np.where(keep, corr, -np.inf)
    r, c = (int(v) for v in np.unravel_index(int(np.argmax(corr)), corr.shape))
    rows, cols = corr.shape
    return (r - rows if r > rows // 2 else r), (c - cols if c > cols // 2 else c)


def _peak(a: np.ndarray, b: np.ndarray) -> tuple[float, int, int]:
    cross = np.fft.rfft2(a) * np.conj(np.fft.rfft2(b))
    cross /= np.maximum(np.abs(cross), 1e-9)
    corr = np.fft.irfft2(cross, s=a.shape)
    at = int(np.argmax(corr))
    r, c = divmod(at, corr.shape[1])
    rows, cols = corr.shape
    return (
        float(corr.flat[at]),
        (r - rows if r > rows // 2 else r),
        (c - cols if c > cols // 2 else c),
    )


def _ncc(a: np.ndarray, b: np.ndarray) -> float:
    a = a - a.mean()
    b = b - b.mean()
    den = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return 0.0 if den == 0 else float((a * b).sum()) / den


def aligned(pa: np.ndarray, pb: np.ndarray, slack: int = TILE_SLACK) -> np.ndarray:
    halved, zoomed = ink._halved, ink._zoomed
    small = max(pa.shape) < 4 * TILE_LEAST
    qa, qb = (pa, pb) if small else (halved(halved(pa)), halved(halved(pb)))
    scale = max(SCALES, key=lambda s: _peak(qa, zoomed(qb, s))[0])
    pb = zoomed(pb, scale)
    if small:
        _h, dy, dx = _peak(pa, pb)
        pb = ink._moved(pb, dy, dx)
    else:
        _h, dy, dx = _peak(halved(pa), halved(pb))
        pb = ink._moved(pb, 2 * dy, 2 * dx)
    rows, cols = pa.shape
    down = max(1, min(TILES, rows // TILE_LEAST))
    across = max(1, min(TILES, cols // TILE_LEAST))
    if down * across == 1:
        return pb
    centres, moves, weights = [], [], []
    for i in range(down):
        for j in range(across):
            ys = slice(i * rows // down, (i + 1) * rows // down)
            xs = slice(j * cols // across, (j + 1) * cols // across)
            ta, tb = pa[ys, xs], pb[ys, xs]
            w = min(float(ta.sum()), float(tb.sum()))
            if w <= 0:
                continue
            centres.append(((ys.start + ys.stop) / 2, (xs.start + xs.stop) / 2))
            moves.append(_shift(ta, tb, slack))
            weights.append(w)
    if not centres:
        return pb
    m, t = ink._fit(np.array(centres, float), np.array(moves, float), np.array(weights, float))
    return ink._warped(pb, m, t)


def _missing(pa: np.ndarray, pb: np.ndarray) -> float:
    least = min(float(pa.sum()), float(pb.sum()))
    if least <= 0:
        return 1.0
    size = 2 * TOLERANCE + 1
    off_a = np.clip(pa - ink._max_filter(pb, size), 0.0, None)
    off_b = np.clip(pb - ink._max_filter(pa, size), 0.0, None)
    return max(_window_most(off_a), _window_most(off_b)) / least


def _window_most(pixels: np.ndarray) -> float:
    w = min(ink.MISSING_WINDOW, *pixels.shape)
    table = np.zeros((pixels.shape[0] + 1, pixels.shape[1] + 1), dtype=np.float64)
    np.cumsum(np.cumsum(pixels, axis=0), axis=1, out=table[1:, 1:])
    sums = table[w:, w:] - table[:-w, w:] - table[w:, :-w] + table[:-w, :-w]
    return float(sums.max())


def _score(pa: np.ndarray, pb: np.ndarray, block: int, *, by_blocks: bool = True) -> float:
    return _measures(pa, aligned(pa, pb), block, by_blocks=by_blocks)


def _measures(
    pa: np.ndarray,
    pb: np.ndarray,
    block: int,
    *,
    by_blocks: bool = True,
    tolerance: int = TOLERANCE,
) -> float:
    ink_a, ink_b = float(pa.sum()), float(pb.sum())
    if ink_a == 0 or ink_b == 0:
        return 0.0
    near_a, near_b = ink._near_ink(pa, tolerance), ink._near_ink(pb, tolerance)
    covered_a = float(pa[near_b].sum()) / ink_a
    covered_b = float(pb[near_a].sum()) / ink_b
    correlation = max(0.0, _ncc(ink._soft(pa, tolerance), ink._soft(pb, tolerance)))
    if not by_blocks:
        return min(correlation, covered_a, covered_b)
    blocks = _block_scores(pa, pb, near_a, near_b, block)
    worst = float(np.sort(blocks)[len(blocks) // 20]) if len(blocks) else 1.0
    return min(correlation, covered_a, covered_b, worst)


def _block_scores(
    pa: np.ndarray, pb: np.ndarray, near_a: np.ndarray, near_b: np.ndarray, block: int
) -> np.ndarray:
    sums = ink._sums
    ink_a, ink_b = sums(pa, block), sums(pb, block)
    on_b, on_a = sums(pa * near_b, block), sums(pb * near_a, block)
    inked = (ink_a + ink_b) >= BLOCK_INK
    cov_a = np.where(ink_a > 0, on_b / np.maximum(ink_a, 1e-9), 1.0)
    cov_b = np.where(ink_b > 0, on_a / np.maximum(ink_b, 1e-9), 1.0)
    out: np.ndarray = np.minimum(cov_a, cov_b)[inked]
    return out
