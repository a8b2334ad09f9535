"""What a page's look costs the scan: the scan's own work on a file, with and without it.

    python bench/bench_lookalike_scan.py [--repeats 15] [--no-record]

The scan reads and hashes each file once and checks its data (planning/scan.py ``_inspect``);
since #22 it also makes each page's look from a small decode of its own
(media/lookalike.py ``page_looks``). For an A4 page (2480x3508) as a JPEG (quality 90) and as a
PNG, and a ten-page PDF of such scans, this measures the median time of ``_inspect`` with
the look and with ``page_looks`` replaced by nothing, per page, on one thread (the scan runs
two). Results replace their section of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "tests"))
sys.path.insert(0, str(BENCH.parent / "app"))

from bench_results import RESULTS, replace_section  # noqa: E402 - beside this script
from transcribe_import.engine.media import lookalike  # noqa: E402
from transcribe_import.engine.planning import scan  # noqa: E402

A4 = (2480, 3508)


def _files(folder: Path) -> dict[str, tuple[Path, int]]:
    """The files measured, each with its page count."""
    from helpers.lookalike_set import Ruling, notebook_page

    page = notebook_page(3, Ruling.LINED, 1.0).resize(A4, Image.Resampling.BICUBIC)
    page.save(folder / "page.jpg", "JPEG", quality=90)
    page.save(folder / "page.png", "PNG", compress_level=6)
    pages = [
        notebook_page(10 + k, Ruling.LINED, 1.0).resize(A4, Image.Resampling.BICUBIC)
        for k in range(10)
    ]
    pages[0].save(folder / "ten.pdf", "PDF", resolution=300, save_all=True, append_images=pages[1:])
    return {
        "A4 JPEG": (folder / "page.jpg", 1),
        "PDF of 10 A4 scans": (folder / "ten.pdf", 10),
        "A4 PNG": (folder / "page.png", 1),
    }


def _whole_decode_look_ms(path: Path, repeats: int) -> float:
    """What a PNG's look would cost, made as a JPEG's is but from a whole decode."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        with Image.open(path) as im:
            im.thumbnail((lookalike.LOOK_SIDE, lookalike.LOOK_SIDE), Image.Resampling.BOX)
            lookalike.page_look(im)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def _inspect_ms(path: Path, repeats: int) -> float:
    st = path.stat()
    found = scan.FoundFile(str(path), path.parent, path.name, st.st_size, st.st_mtime_ns)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        scanned = scan._inspect(found, scan.DEFAULT_SETTINGS)
        times.append((time.perf_counter() - t0) * 1000)
        assert scanned.problem is None, scanned.problem
    return statistics.median(times)


def _compare_ms(stored_pages: int, repeats: int) -> float:
    """A new page against ``stored_pages`` looks of the corpus, none alike: milliseconds."""
    import random

    from transcribe_import.engine.planning.look_index import LookIndex

    rnd = random.Random(1)
    index = LookIndex()
    for _ in range(stored_pages):
        index.add(rnd.getrandbits(143) << 1)
    turns = [rnd.getrandbits(143) << 1 for _ in range(4)]
    look = lookalike.Look((turns[0], turns[1], turns[2], turns[3]))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        index.near(look)  # the candidate search (planning/look_index.py)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--no-record", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (path, pages) in _files(Path(tmp)).items():
            if path.suffix == ".png":
                alone = _inspect_ms(path, args.repeats)
                would = _whole_decode_look_ms(path, args.repeats)
                rows.append(
                    f"| {name} (no look at scan) | {alone:.1f} | ({alone + would:.1f}) | "
                    f"({would:.1f}) | ({(alone + would) / alone:.2f}x) |"
                )
                continue
            with_look = _inspect_ms(path, args.repeats)
            made = lookalike.page_looks
            lookalike.page_looks = lambda *_a, **_k: ()  # type: ignore[assignment]
            try:
                without = _inspect_ms(path, args.repeats)
            finally:
                lookalike.page_looks = made
            rows.append(
                f"| {name} | {without / pages:.1f} | {with_look / pages:.1f} | "
                f"{(with_look - without) / pages:.1f} | {with_look / without:.2f}x |"
            )
    compare = _compare_ms(10_000, args.repeats)
    section = [
        "## The look at scan (bench_lookalike_scan.py)",
        "",
        "The scan's work on one file (`scan._inspect`: one read hashed, its data checked), "
        "with each page's look made from a small decode of its own and without it, per page, "
        f"medians of {args.repeats}, one thread. Load average {load:.1f} on {os.cpu_count()} "
        "cores.",
        "",
        "| file | scan without look, ms/page | with look, ms/page | the look, ms/page | ratio |",
        "| --- | --- | --- | --- | --- |",
        *rows,
        "",
        "A JPEG's look comes from libjpeg's decode at a fraction (draft mode), a PDF page's "
        "from its one "
        "JPEG image decoded the same way (rasterising the page with pdfium instead cost about "
        "220 ms a page: it decodes the whole image). PNG (and TIFF, WebP, HEIC) have no "
        "shrink-on-load: their look would decode each page whole a second time (the check "
        "decoded it once already), the cost in brackets, so it is not made at scan.",
        "",
        f"The candidate search (validate, planning/look_index.py): {compare:.1f} ms for one "
        "new page against an index of 10,000 looks of the corpus, so a plan of 500 pages "
        f"spends about {compare * 500 / 1000:.1f} s finding candidates in each validation "
        "(each candidate then verified, planning/inks.py).",
        "",
    ]
    text = "\n".join(section)
    print(text)
    if not args.no_record:
        replace_section(RESULTS, section[0], text)


if __name__ == "__main__":
    main()
