"""Benchmark: how far libvips' renders are from Pillow's, pixel by pixel, and what each costs.

Pages made as bench_ingest makes its scans: an A4 300-dpi scan (2480x3508) in colour and in
grayscale (JPEG, quality 85), rendered to the 2400 px cap (no shrink-on-load: 1/2 scale would
be under it), and the same scan at 600 dpi (4960x7016, shrunk on load by 1/2 first). Each is
rendered by Pillow (the renders before libvips) and by libvips two ways: libvips' own
``resize`` (the tree before) and ``render_vips._reduce`` (Pillow's passes in Pillow's order).
Reported: the mean and largest difference per channel from Pillow's pixels, and the CPU time
of the whole render (read, decode, resize, PNG), best of three. Results go to bench/RESULTS.md.

    .venv/bin/python bench/bench_pixels.py
"""

from __future__ import annotations

import io
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bench_ingest import _scan  # noqa: E402 - beside this script
from bench_results import replace_section  # noqa: E402 - beside this script

BENCH = Path(__file__).resolve().parent
WORK = BENCH / "_work"
HEADING = "## Render pixels against Pillow (bench/bench_pixels.py)"
REPEAT = 3


def _pages() -> list[tuple[str, Path]]:
    from PIL import Image

    WORK.mkdir(exist_ok=True)
    pages = []
    for name, kind, size in (
        ("A4 300 dpi colour", "RGB", None),
        ("A4 300 dpi grayscale", "L", None),
        ("A4 600 dpi colour", "RGB", (4960, 7016)),
    ):
        path = WORK / f"pixels-{name.replace(' ', '-')}.jpg"
        if not path.exists():
            page = _scan(1)
            if size is not None:
                page = page.resize(size, Image.Resampling.BICUBIC)
            page.convert(kind).save(path, quality=85)
        pages.append((name, path))
    return pages


def _difference(png: bytes, reference: bytes) -> tuple[float, int]:
    from PIL import Image, ImageChops, ImageStat

    got, want = Image.open(io.BytesIO(png)), Image.open(io.BytesIO(reference))
    assert (got.size, got.mode) == (want.size, want.mode)
    diff = ImageChops.difference(got, want)
    means = ImageStat.Stat(diff).mean
    extrema = diff.getextrema()
    worst = extrema[1] if diff.mode == "L" else max(high for _low, high in extrema)
    return sum(means) / len(means), int(worst)


def _timed(render: Callable[[], bytes]) -> tuple[bytes, float]:
    best, png = float("inf"), b""
    for _ in range(REPEAT):
        t0 = time.process_time()
        png = render()
        best = min(best, time.process_time() - t0)
    return png, best


def main() -> None:
    sys.path.insert(0, str(BENCH.parent / "app"))
    from transcribe_import.engine.media import render, render_vips

    def resize(im, target):  # type: ignore[no-untyped-def]  # the tree before: libvips' resize
        if (im.width, im.height) == target:
            return im
        return im.resize(target[0] / im.width, vscale=target[1] / im.height, kernel="lanczos3")

    reduce = render_vips._reduce
    ways: dict[str, Callable[[Path], bytes]] = {
        "Pillow": lambda p: _one(render, p, render.RenderEngine.PILLOW),
        "libvips resize (before)": lambda p: _one(render, p, render.RenderEngine.LIBVIPS),
        "libvips, Pillow's passes": lambda p: _one(render, p, render.RenderEngine.LIBVIPS),
    }
    load = os.getloadavg()
    rows = []
    for name, path in _pages():
        reference = b""
        for way, make in ways.items():
            render_vips._reduce = resize if "before" in way else reduce  # type: ignore[assignment]
            png, cpu = _timed(lambda make=make, path=path: make(path))  # type: ignore[misc]
            if way == "Pillow":
                reference, pillow_cpu = png, cpu
                rows.append((name, way, "", "", cpu, 1.0))
                continue
            mean, worst = _difference(png, reference)
            rows.append((name, way, f"{mean:.3f}", str(worst), cpu, cpu / pillow_cpu))
            print(rows[-1], file=sys.stderr)
    render_vips._reduce = reduce  # type: ignore[assignment]
    lines = [
        HEADING,
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M')} UTC on {os.cpu_count()} shared cores; load average "
        f"{load[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end. Each page rendered to "
        "the 2400 px cap by Pillow and by libvips two ways; the difference from Pillow's pixels "
        "per channel (of 255), the CPU time of the whole render (best of three). Goal: a mean "
        "under 0.2 for JPEG.",
        "",
        "| page | renderer | mean difference | largest | CPU s | CPU / Pillow |",
        "| --- | --- | --- | --- | --- | --- |",
        *(f"| {p} | {w} | {m} | {x} | {c:.3f} | {r:.2f} |" for p, w, m, x, c, r in rows),
        "",
    ]
    print("\n".join(lines))
    if "--no-record" not in sys.argv:
        replace_section(BENCH / "RESULTS.md", HEADING, "\n".join(lines))


def _one(render, path: Path, engine) -> bytes:  # type: ignore[no-untyped-def]
    (page,) = render.render_pages(path, "image/jpeg", [0], engine=engine)
    png: bytes = page.png
    return png


if __name__ == "__main__":
    main()
