"""Rescans in two stages (#33): precision and recall per page kind and light, what a page's
look and a pair's verification cost, and how the candidate search grows with the shelf.

    python bench/bench_rescans.py [--pages-per-notebook 20] [--per-light 3] [--rescans 3]
                                  [--shelf 5000 20000] [--out FILE]

The labelled set is the tests' (tests/helpers/pages.py): notebooks in real handwriting fonts
on ruled, squared and plain paper, under a scanner's flat light and a lamp's; each page
rescanned in ``--rescans`` of the ways the issue names, and as many new pages of other
notebooks. Each file's look and ink are made as the look pass makes them (a JPEG decoded
by libjpeg at a fraction, ``lookalike.page_seen``), and each page is asked about as
``lookalikes.find`` asks (``lookalikes.verified``). Recall: the rescans asked about naming
the right page. Precision: of the questions asked (rescans and new pages), those naming the
right page. The shelf: ``--shelf`` sizes of distinct looks through the index, each looked up
then added, as validate does; CPU seconds (process time) and comparisons counted.
"""

from __future__ import annotations

import argparse
import collections
import os
import statistics
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "tests"))
sys.path.insert(0, str(BENCH.parent / "app"))

from transcribe_import.engine.media import ink, lookalike  # noqa: E402
from transcribe_import.engine.planning import inks  # noqa: E402
from transcribe_import.engine.planning.look_index import LookIndex  # noqa: E402
from transcribe_import.engine.planning.lookalikes import Stored, verified  # noqa: E402


def _seen(key: str, data: bytes, ext: str, costs: list[float]) -> lookalike.Look | None:
    kind = {".jpg": "image/jpeg", ".png": "image/png"}[ext]
    t0 = time.process_time()
    [seen] = lookalike.page_seen(Path(key + ext), kind, 1, size=len(data), data=data)
    costs.append(time.process_time() - t0)
    assert seen is not None
    inks.keep(key, seen.ink)
    return seen.look


def _timed_score(real, costs: list[float]):
    def score(*args, **kwargs):
        t0 = time.process_time()
        try:
            return real(*args, **kwargs)
        finally:
            costs.append(time.process_time() - t0)

    return score


def labelled(args: argparse.Namespace) -> list[str]:
    from helpers.pages import Kind, labelled_set

    inks.LIMIT_BYTES = 2**40
    made = labelled_set(
        args.pages_per_notebook,
        per_light=args.per_light,
        rescans_per_page=args.rescans,
        seed=args.seed,
    )
    look_costs: list[float] = []
    pair_costs: list[float] = []
    ink.score = _timed_score(ink.score, pair_costs)  # type: ignore[assignment]
    index, stored = LookIndex(), []
    looks: list[lookalike.Look | None] = []
    for i, sheet in enumerate(made.sheets):
        look = _seen(f"s{i}", sheet.data, ".jpg", look_costs)
        looks.append(look)
        if look is not None:
            index.add(look.upright)
            stored.append(Stored(look.upright, f"s{i}", f"p{i}", sheet.label))
    cells: dict[tuple[str, str], list[int]] = collections.defaultdict(lambda: [0, 0, 0])
    verify_costs: list[float] = []
    wrong = 0
    for r, taken in enumerate(made.rescans):
        sheet = made.sheets[taken.of]
        look = _seen(f"r{r}", taken.data, taken.ext, look_costs)
        t0 = time.process_time()
        match = None if look is None else verified(look, f"r{r}", None, index, stored, set())
        verify_costs.append(time.process_time() - t0)
        cell = cells[sheet.kind.value, sheet.notebook.light.value]
        if sheet.kind is Kind.BLANK:
            wrong += match is not None
            continue
        cell[0] += 1
        cell[1] += match is not None and match[0].key == f"s{taken.of}"
        cell[2] += match is not None and match[0].key != f"s{taken.of}"
    new_asked = 0
    for n, sheet in enumerate(made.new_pages):
        look = _seen(f"n{n}", sheet.data, ".jpg", look_costs)
        t0 = time.process_time()
        match = None if look is None else verified(look, f"n{n}", None, index, stored, set())
        verify_costs.append(time.process_time() - t0)
        new_asked += match is not None
    # One import of the stored notebooks: each page asked about against the earlier ones.
    own = 0
    index2, stored2 = LookIndex(), []
    for i, look in enumerate(looks):
        if look is None:
            continue
        own += verified(look, f"s{i}", None, index2, stored2, set()) is not None
        index2.add(look.upright)
        stored2.append(Stored(look.upright, f"s{i}", f"p{i}", ""))
    rows = [
        "| page kind | light | rescans | right page | wrong page | recall | precision |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for (kind, light), (total, right, bad) in sorted(cells.items()):
        if total == 0:
            continue
        asked = right + bad
        rows.append(
            f"| {kind} | {light} | {total} | {right} | {bad} | {right / total:.1%} | "
            f"{(right / asked if asked else 1):.1%} |"
        )
    return [
        f"Labelled set: {len(made.sheets)} stored pages in {2 * args.per_light} notebooks "
        f"(fonts: {', '.join(sorted({Path(s.notebook.font).stem for s in made.sheets}))}), "
        f"{len(made.rescans)} rescans, {len(made.new_pages)} new pages of other notebooks.",
        "",
        *rows,
        "",
        f"Rescans of blank pages asked about: {wrong}. New pages asked about: {new_asked} of "
        f"{len(made.new_pages)} ({new_asked / len(made.new_pages):.1%}). A notebook's own "
        f"pages asked about against its earlier pages: {own} of {len(made.sheets)}.",
        "",
        f"Cost (CPU, medians): a page's look and ink from its file "
        f"{1000 * statistics.median(look_costs):.1f} ms (mean "
        f"{1000 * statistics.fmean(look_costs):.1f}); a pair's verification "
        f"{1000 * statistics.median(pair_costs):.1f} ms (mean "
        f"{1000 * statistics.fmean(pair_costs):.1f}, {len(pair_costs)} pairs); a page's "
        f"search and verifications {1000 * statistics.median(verify_costs):.1f} ms (mean "
        f"{1000 * statistics.fmean(verify_costs):.1f}).",
    ]


def a4_costs(repeats: int = 5) -> list[str]:
    """A page's look and ink from a 300 dpi A4 JPEG (2480x3508): a full page and a page
    with only a date line (sparse: decoded again larger for its detail)."""
    import io

    from PIL import Image

    from helpers.pages import Kind, Light, Paper, notebook, page

    nb = notebook(3, Paper.RULED, Light.SCANNER)
    out = []
    for kind in (Kind.FULL, Kind.DATE):
        buf = io.BytesIO()
        page(nb, 1, kind).resize((2480, 3508), Image.Resampling.BICUBIC).save(
            buf, "JPEG", quality=90
        )
        data = buf.getvalue()
        costs: list[float] = []
        for _ in range(repeats):
            t0 = time.process_time()
            lookalike.page_seen(Path("a4.jpg"), "image/jpeg", 1, size=len(data), data=data)
            costs.append(time.process_time() - t0)
        out.append(f"{kind.value} {1000 * statistics.median(costs):.0f} ms")
    return [
        "A page's look and ink from a 300 dpi A4 JPEG (2480x3508, CPU, median of 5): "
        + ", ".join(out)
        + "."
    ]


def shelf(sizes: list[int]) -> list[str]:
    import random

    rows = ["| shelf (pages) | CPU s | comparisons | per page |", "|---:|---:|---:|---:|"]
    first: float | None = None
    for size in sizes:
        rnd = random.Random(size)
        index = LookIndex()
        t0 = time.process_time()
        for _ in range(size):
            value = rnd.getrandbits(lookalike.BITS) & ~1
            index.near(lookalike.Look((value, value ^ 2, value ^ 4, value ^ 8)))
            index.add(value)
        cpu = time.process_time() - t0
        first = cpu if first is None else first
        rows.append(
            f"| {size:,} | {cpu:.1f} ({cpu / first:.1f}x) | {index.comparisons:,} | "
            f"{index.comparisons / size:,.0f} |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages-per-notebook", type=int, default=20)
    parser.add_argument("--per-light", type=int, default=3)
    parser.add_argument("--rescans", type=int, default=3)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--shelf", type=int, nargs="*", default=[5000, 20000])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    load = os.getloadavg()
    started = time.perf_counter()
    lines = [
        "## Rescans in two stages (bench_rescans.py)",
        "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average "
        f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores (shared).",
        "",
        *labelled(args),
        "",
        *a4_costs(),
        "",
        "The candidate search as the shelf grows (distinct pages, each looked up then added):",
        "",
        *shelf(args.shelf),
        "",
        f"Whole run {time.perf_counter() - started:.0f} s.",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.out is not None:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
