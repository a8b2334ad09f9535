"""How well the look-alike hash tells rescans from other pages, and what it costs per page.

    python bench/bench_lookalike.py [--pages-per-notebook 60] [--no-record]

The labelled set is the tests' (tests/helpers/lookalike_set.py): three notebooks (lined,
squared, plain paper) of generated handwritten pages, each page rescanned in every way the
issue names. For the hash (engine/media/lookalike.py) and, as the reference, the usual
64-bit DCT hash (8x8 coefficients of the same 32x32 reduction, as imagehash's ``phash``
computes it), the bench reports the share of rescans found and the share of pairs of two
different pages of one notebook flagged, at each threshold, and the worst distance of each
kind of rescan. The cost is measured on what the scan has in hand: an A4 JPEG at 2480x3508
decoded at 1/8 (libjpeg's draft), then hashed. Results replace their section of
bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import io
import math
import operator
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from PIL import Image

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "tests"))
sys.path.insert(0, str(BENCH.parent / "app"))

from bench_results import RESULTS, replace_section  # noqa: E402 - beside this script
from transcribe_import.engine.media import lookalike  # noqa: E402


def _phash64(image: Image.Image) -> tuple[int, int, int, int]:
    """The reference: 8x8 coefficients, 63 bits, in the four turns (as lookalike does)."""
    side, keep = 32, 8
    cos = [
        [math.cos(math.pi * (2 * x + 1) * u / (2 * side)) for x in range(side)] for u in range(keep)
    ]
    px = image.convert("L").resize((side, side), Image.Resampling.BOX).tobytes()
    rows = [
        [sum(map(operator.mul, c, px[y * side : (y + 1) * side])) for c in cos] for y in range(side)
    ]
    cols = list(zip(*rows, strict=True))
    co = [[sum(map(operator.mul, cos[v], cols[u])) for u in range(keep)] for v in range(keep)]
    out = []
    for _ in range(4):
        flat = [c for row in co for c in row]
        median = sorted(flat[1:])[31]
        out.append(sum(1 << i for i in range(1, 64) if flat[i] > median))
        co = [[co[u][v] * (-1 if u % 2 else 1) for u in range(keep)] for v in range(keep)]
    return out[0], out[3], out[2], out[1]


def _lookalike(image: Image.Image) -> tuple[int, int, int, int]:
    return lookalike.look_of(image).turns


def _rates(
    hasher: Callable[[Image.Image], tuple[int, int, int, int]], labelled, per_notebook: int
) -> tuple[dict[str, list[int]], list[int]]:
    from helpers.lookalike_set import distinct_pairs

    looks = [hasher(p) for p in labelled.pages]
    same: dict[str, list[int]] = {}
    for i, kind, im in labelled.rescans:
        turns = hasher(im)
        same.setdefault(kind.value, []).append(
            min(lookalike.distance(t, looks[i][0]) for t in turns)
        )
    other = [
        min(lookalike.distance(t, looks[j][0]) for t in looks[i])
        for i, j in distinct_pairs(len(labelled.pages), per_notebook)
    ]
    return same, other


def _table(name: str, bits: int, same: dict[str, list[int]], other: list[int], marks) -> list[str]:
    every = [d for ds in same.values() for d in ds]
    lines = [
        f"**{name}** ({bits} bits): worst rescan by kind "
        + ", ".join(f"{kind} {max(ds)}" for kind, ds in same.items())
        + f"; closest two distinct pages {min(other)}.",
        "",
        "| threshold | rescans found | distinct pairs flagged |",
        "|---:|---:|---:|",
    ]
    for t in marks:
        found = sum(d <= t for d in every) / len(every)
        flagged = sum(d <= t for d in other) / len(other)
        lines.append(f"| {t} | {found:.1%} | {flagged:.2%} |")
    return [*lines, ""]


def _cost(repeats: int) -> tuple[float, float]:
    """Milliseconds per A4 page: the scan's 1/8 decode alone, and the hash of its result."""
    from helpers.lookalike_set import Ruling, notebook_page

    page = notebook_page(3, Ruling.LINED, 1.0).resize((2480, 3508), Image.Resampling.BICUBIC)
    buf = io.BytesIO()
    page.save(buf, "JPEG", quality=90)
    data = buf.getvalue()
    decode, look = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        with Image.open(io.BytesIO(data)) as im:
            im.draft("RGB", (310, 439))
            im.load()
            t1 = time.perf_counter()
            lookalike.look_of(im)
            t2 = time.perf_counter()
        decode.append((t1 - t0) * 1000)
        look.append((t2 - t1) * 1000)
    return statistics.median(decode), statistics.median(look)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages-per-notebook", type=int, default=60)
    parser.add_argument("--no-record", action="store_true")
    args = parser.parse_args()
    from helpers.lookalike_set import labelled_set

    per = args.pages_per_notebook
    load = os.getloadavg()[0]
    started = time.perf_counter()
    labelled = labelled_set(per, seed=1)
    ours = _rates(_lookalike, labelled, per)
    reference = _rates(_phash64, labelled, per)
    decode_ms, look_ms = _cost(30)
    every = [d for ds in ours[0].values() for d in ds]
    found = sum(d <= lookalike.THRESHOLD for d in every) / len(every)
    flagged = sum(d <= lookalike.THRESHOLD for d in ours[1]) / len(ours[1])
    section = [
        "## Look-alike pages (bench_lookalike.py)",
        "",
        f"{len(labelled.pages)} generated handwritten pages in three notebooks (lined, squared, "
        f"plain paper), {len(labelled.rescans)} rescans (each page in every way: JPEG quality "
        "40-95, turned 0.5-2 degrees, brightness ±5-10%, cropped up to 3% a side, turned "
        f"90/180/270), {len(ours[1])} pairs of distinct pages of one notebook. Load average "
        f"{load:.1f} on {os.cpu_count()} cores; {time.perf_counter() - started:.0f} s.",
        "",
        f"At the threshold the app uses ({lookalike.THRESHOLD} of {lookalike.BITS - 1} bits): "
        f"**{found:.1%} of rescans found, {flagged:.2%} of distinct pairs flagged** "
        "(goals: at least 95%, at most 1%).",
        "",
        *_table("lookalike (12x12 DCT)", lookalike.BITS - 1, *ours, (14, 18, 20, 22, 24, 28)),
        *_table("reference: 64-bit pHash (8x8 DCT)", 63, *reference, (4, 6, 8, 10, 12)),
        f"Cost per A4 page (2480x3508 JPEG): the scan's 1/8 decode {decode_ms:.1f} ms, the hash "
        f"of what it gives {look_ms:.2f} ms (medians of 30).",
        "",
    ]
    text = "\n".join(section)
    print(text)
    if not args.no_record:
        replace_section(RESULTS, section[0], text)


if __name__ == "__main__":
    main()
