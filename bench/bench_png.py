"""Benchmark: the PNG settings of libvips' renders, against the PNGs Pillow wrote before.

One A4 300-dpi scan (2480x3508, colour and grayscale, made as bench_ingest makes its
pages) rendered to the 2400 px cap; the render is encoded at each zlib level and PNG
filter, CPU time the best of three, and its size compared with Pillow's level-1 PNG of
the same page (the renders before libvips: the limit is 10 % larger). Results go to
bench/RESULTS.md; with ``--levels`` or ``--filters`` (a few settings compared, best of
``--repeat``) the table is only printed, for a section recorded by hand.

    .venv/bin/python bench/bench_png.py [--levels 2 --filters sub paeth --repeat 7]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from bench_ingest import _scan  # noqa: E402 - beside this script
from bench_results import replace_section  # noqa: E402 - beside this script

BENCH = Path(__file__).resolve().parent
WORK = BENCH / "_work"
LEVELS = (1, 2, 3, 6)
FILTERS = ("none", "sub", "up", "paeth", "all")


def main() -> None:
    import sys

    ap = argparse.ArgumentParser()
    ap.add_argument("--levels", type=int, nargs="+", default=list(LEVELS))
    ap.add_argument("--filters", nargs="+", default=list(FILTERS))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    whole = tuple(args.levels) == LEVELS and tuple(args.filters) == FILTERS
    sys.path.insert(0, str(BENCH.parent / "app"))
    import pyvips

    from transcribe_import.engine.media import render, render_vips

    WORK.mkdir(exist_ok=True)
    rows = []
    for kind in ("colour", "grayscale"):
        path = WORK / f"png-settings-{kind}.jpg"
        if not path.exists():
            page = _scan(1)
            (page if kind == "colour" else page.convert("L")).save(path, quality=85)
        (pillow,) = render.render_pages(path, "image/jpeg", [0], engine=render.RenderEngine.PILLOW)
        (vips,) = render.render_pages(path, "image/jpeg", [0])
        im = pyvips.Image.new_from_buffer(vips.png, "").copy_memory()
        for level in args.levels:
            for png_filter in args.filters:
                best = float("inf")
                for _ in range(args.repeat):
                    t0 = time.process_time()
                    size = len(im.pngsave_buffer(compression=level, filter=png_filter))
                    best = min(best, time.process_time() - t0)
                rows.append((kind, level, png_filter, size, best, size / len(pillow.png)))
        rows.append((kind, 1, "Pillow", len(pillow.png), 0.0, 1.0))
    chosen = render_vips.PNG_SETTINGS[render_vips.PIPELINE]
    lines = [
        "## Render PNG settings (bench/bench_png.py)",
        "",
        f"Run {time.strftime('%Y-%m-%d')}, load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} shared cores. One A4 scan rendered to 1697x2400 by libvips, encoded "
        f"at each zlib level and PNG filter (CPU seconds, best of {args.repeat}); size against "
        "Pillow's level-1 PNG of the same page, the renders before libvips (limit: 1.10). "
        f"Chosen for render revision {render_vips.PIPELINE}: level {chosen[0]}, filter "
        f"{chosen[1]} (the history of bench/RESULTS.md, `git log -p`, says why).",
        "",
        "| page | level | filter | bytes | CPU s | size / Pillow |",
        "| --- | --- | --- | --- | --- | --- |",
        *(
            f"| {k} | {lv} | {f}{' (chosen)' if (lv, f) == chosen else ''} | {n:,} | "
            f"{'' if f == 'Pillow' else f'{s:.3f}'} | {r:.2f} |"
            for k, lv, f, n, s, r in rows
        ),
        "",
    ]
    print("\n".join(lines))
    if whole:
        replace_section(BENCH / "RESULTS.md", lines[0], "\n".join(lines))


if __name__ == "__main__":
    main()
