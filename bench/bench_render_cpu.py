"""Benchmark: where a commit's render of a page spends CPU beyond the libvips reference.

One of bench_ingest.py's A4 300-dpi JPEG scans and one page of its scanned PDF, each step
of the commit's render timed alone against the reference's (bench_ingest's
``side_vips_reference``): process CPU time, best of ``--repeat``, one page at a time on
libvips' bounded threads (as the commit's workers run them). Hand-run; the table is for
bench/RESULTS.md.

    .venv/bin/python bench/bench_render_cpu.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_ingest import make_inputs  # noqa: E402 - beside this script

BENCH = Path(__file__).resolve().parent


def _cpu_ms(work: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        c0 = time.process_time()
        work()
        best = min(best, time.process_time() - c0)
    return best * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    sys.path.insert(0, str(BENCH.parent / "app"))
    import pyvips

    from transcribe_import.engine.media import render, render_vips, thumbs
    from transcribe_import.engine.media.decode import _pdf_document
    from transcribe_import.engine.media.kinds import RenderSettings

    jpgs, pdf = make_inputs(50, 10)
    settings = RenderSettings()
    render_vips.available()  # libvips loaded and bounded as the commit has it
    data = jpgs[0].read_bytes()
    side = settings.max_side

    def decoded() -> pyvips.Image:
        im = pyvips.Image.new_from_buffer(data, "", access="sequential", fail_on="error")
        out = render_vips._display(im, "bench")
        return render_vips._reduce(out, settings.capped(im.width, im.height))

    page = decoded().copy_memory()
    level, png_filter = render_vips.PNG_SETTINGS[render_vips.PIPELINE]
    keep = render_vips.Thumbnails(lambda *_: None, thumbs.COMMIT_SIDES)
    rows: list[tuple[str, str, float]] = [
        (
            "JPEG: decode and resize to 2400 px",
            "reference (thumbnail_buffer)",
            _cpu_ms(
                lambda: pyvips.Image.thumbnail_buffer(
                    data, side, height=side, size="down"
                ).copy_memory(),
                args.repeat,
            ),
        ),
        ("JPEG: decode and resize to 2400 px", "commit (Pillow's passes)", 0.0),
        (
            "JPEG: PNG of the 1697x2400 page",
            "reference (level 1, no filter)",
            _cpu_ms(lambda: page.pngsave_buffer(compression=1), args.repeat),
        ),
        (
            "JPEG: PNG of the 1697x2400 page",
            f"commit (level {level}, {png_filter}), and its sha256",
            _cpu_ms(lambda: render_vips.encode(page, 0), args.repeat),
        ),
        (
            "JPEG: the commit's thumbnails",
            f"{' and '.join(map(str, thumbs.COMMIT_SIDES))} px, from the page in memory",
            _cpu_ms(lambda: render_vips._make_thumbnails(page, 0, keep), args.repeat),
        ),
        (
            "JPEG: the whole render",
            "commit (render_pages, with thumbnails)",
            _cpu_ms(
                lambda: list(
                    render.render_pages(jpgs[0], "image/jpeg", [0], settings, thumbnails=keep)
                ),
                args.repeat,
            ),
        ),
        (
            "JPEG: the whole render",
            f"render {render_vips.PIPELINE - 1}, as before (render_pages, with thumbnails)",
            _cpu_ms(
                lambda: list(
                    render.render_pages(
                        jpgs[0],
                        "image/jpeg",
                        [0],
                        RenderSettings(libvips_revision=render_vips.PIPELINE - 1),
                        thumbnails=keep,
                    )
                ),
                args.repeat,
            ),
        ),
    ]
    rows[1] = (rows[1][0], rows[1][1], _cpu_ms(lambda: decoded().copy_memory(), args.repeat))
    # What the PNG costs at the other settings near Pillow's renders' size (bench_png.py), the
    # earlier revisions' among them (doctor's only), for the record; bytes against the commit's.
    chosen = len(page.pngsave_buffer(compression=level, filter=png_filter))
    others = [(2, f) for f in ("paeth", "sub", "up") if (2, f) != (level, png_filter)]
    used = {png: f"render {r} (doctor's only)" for r, png in render_vips.PNG_SETTINGS.items()}
    for other_level, other_filter in others:
        size = len(page.pngsave_buffer(compression=other_level, filter=other_filter)) / chosen
        rows.append(
            (
                "JPEG: PNG of the 1697x2400 page",
                f"{used.get((other_level, other_filter), 'not used')}: level {other_level}, "
                f"{other_filter} ({size:.2f}x the bytes)",
                _cpu_ms(
                    lambda lv=other_level, f=other_filter: page.pngsave_buffer(
                        compression=lv, filter=f
                    ),
                    args.repeat,
                ),
            )
        )
    with open(pdf, "rb") as fp, _pdf_document(fp, "bench") as doc:
        rgbx, width, height = render._rasterise_rgbx(doc, 0, side, "bench")
        rows.append(
            (
                "PDF page: rasterise at 2400 px (pdfium)",
                "both",
                _cpu_ms(lambda: render._rasterise_rgbx(doc, 0, side, "bench"), args.repeat),
            )
        )
    im = pyvips.Image.new_from_memory(rgbx, width, height, 4, "uchar").extract_band(0, n=3)
    rows += [
        (
            "PDF page: PNG",
            "reference (level 1, no filter)",
            _cpu_ms(lambda: im.pngsave_buffer(compression=1), args.repeat),
        ),
        (
            "PDF page: PNG and thumbnails",
            "commit (encode_rgbx)",
            _cpu_ms(
                lambda: render_vips.encode_rgbx(memoryview(rgbx), width, height, 0, keep),
                args.repeat,
            ),
        ),
        (
            "PDF page: PNG and thumbnails",
            f"render {render_vips.PIPELINE - 1}, as before (encode_rgbx)",
            _cpu_ms(
                lambda: render_vips.encode_rgbx(
                    memoryview(rgbx), width, height, 0, keep, render_vips.PIPELINE - 1
                ),
                args.repeat,
            ),
        ),
    ]
    print(f"load average {os.getloadavg()[0]:.1f} at the end, best of {args.repeat}")
    print("| step | side | CPU ms |\n| --- | --- | --- |")
    for step, who, ms in rows:
        print(f"| {step} | {who} | {ms:.1f} |")


if __name__ == "__main__":
    main()
