"""Benchmark: ingest realistic scans against a reference of the unavoidable work, same run.

Pages: N A4 300-dpi JPEG scans (2480x3508) split over notebooks of 50, plus one
scanned PDF of M pages, each notebook landed in checkpoints as an import run does
(engine/ingest/checkpoints.py), its first checkpoint creating it. The reference
does, single-threaded and with no transaction, what any importer must: read and
hash every byte, copy it, decode each page at reduced size and write its PNG (same
size cap, same PNG settings). Each side runs in its own process so peak memory
is its own; sides alternate and the median of the repeats is reported. Results go
to bench/RESULTS.md. ``--pause`` adds the work a pause loses in a 500-page notebook.

    .venv/bin/python bench/bench_ingest.py [--pages 200] [--pdf-pages 50] [--repeat 3]
        [--pause] [--before RATIO]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter

from bench_results import replace_section  # noqa: E402 - beside this script

BENCH = Path(__file__).resolve().parent
WORK = BENCH / "_work"
A4_300DPI = (2480, 3508)


# -- realistic inputs ----------------------------------------------------------------------


def _scan(seed: int, size: tuple[int, int] = A4_300DPI) -> Image.Image:
    """An A4 page at 300 dpi: tinted paper, grain, ruled lines, handwriting-like strokes."""
    rnd = random.Random(seed)
    w, h = size
    grain = Image.effect_noise((w // 4, h // 4), 18).resize((w, h), Image.Resampling.BILINEAR)
    paper = Image.merge(
        "RGB",
        [grain.point(lambda v, o=o: max(0, min(255, v + o))) for o in (110, 105, 85)],
    )
    d = ImageDraw.Draw(paper)
    for y in range(300, h - 200, 90):
        d.line([(150, y), (w - 150, y)], fill=(150, 165, 200), width=3)
        x = 200
        while x < w - 400 and rnd.random() < 0.97:
            seg = rnd.randint(60, 260)
            pts = [(x + i * 12, y - 10 - rnd.randint(0, 45)) for i in range(seg // 12)]
            if len(pts) > 1:
                d.line(pts, fill=(30, 30, 70), width=4)
            x += seg + rnd.randint(30, 90)
    return paper.filter(ImageFilter.SMOOTH)


def make_inputs(n_pages: int, pdf_pages: int) -> tuple[list[Path], Path]:
    src = WORK / f"scans-{n_pages}"
    jpgs = [src / f"page {i:04d}.jpg" for i in range(1, n_pages + 1)]
    if not all(p.exists() for p in jpgs):
        src.mkdir(parents=True, exist_ok=True)
        for i, p in enumerate(jpgs):
            if not p.exists():
                _scan(i).save(p, quality=85, dpi=(300, 300))
    pdf = WORK / f"scanned-{pdf_pages}.pdf"
    if not pdf.exists():
        # A generator keeps one page in memory at a time.
        rest = (_scan(10_000 + i) for i in range(1, pdf_pages))
        _scan(10_000).save(pdf, save_all=True, append_images=rest, resolution=300, quality=85)
    return jpgs, pdf


# -- the two sides, each run in a child process ---------------------------------------------


def side_reference(jpgs: list[Path], pdf: Path | None, out: Path) -> None:
    import pypdfium2 as pdfium

    from transcribe_import.engine.media.kinds import RenderSettings

    s = RenderSettings()
    for i, p in enumerate([*jpgs, *([pdf] if pdf else [])]):
        data = p.read_bytes()
        hashlib.sha256(data).hexdigest()
        dst = out / f"{i}{p.suffix}"
        with open(dst, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if p.suffix == ".pdf":
            doc = pdfium.PdfDocument(data)
            for k in range(len(doc)):
                page = doc[k]
                scale = s.max_side / max(page.get_size())
                img = page.render(scale=scale).to_pil()
                _write_png(img, out / f"{i}-{k}.png", s.png_compress_level)
            doc.close()
        else:
            img = Image.open(io.BytesIO(data))
            img.draft("RGB", (s.max_side, s.max_side))
            img.thumbnail((s.max_side, s.max_side), Image.Resampling.LANCZOS)
            _write_png(img, out / f"{i}.png", s.png_compress_level)


def side_vips_reference(jpgs: list[Path], pdf: Path | None, out: Path) -> None:
    """The same work on libvips (issue #26's reference): read, sha256, copy, fsync,
    shrink-on-load decode, one resize, PNG (libspng) at level 1, fsync; libvips' defaults."""
    import pypdfium2 as pdfium
    import pyvips

    from transcribe_import.engine.media.kinds import RenderSettings

    s = RenderSettings()
    for i, p in enumerate([*jpgs, *([pdf] if pdf else [])]):
        data = p.read_bytes()
        hashlib.sha256(data).hexdigest()
        dst = out / f"{i}{p.suffix}"
        with open(dst, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if p.suffix == ".pdf":
            doc = pdfium.PdfDocument(data)
            for k in range(len(doc)):
                page = doc[k]
                scale = s.max_side / max(page.get_size())
                bitmap = page.render(scale=scale, prefer_bgrx=True, rev_byteorder=True)
                img = pyvips.Image.new_from_memory(
                    bitmap.buffer, bitmap.width, bitmap.height, 4, "uchar"
                )
                _write_bytes(
                    img.extract_band(0, n=3).pngsave_buffer(compression=1), out / f"{i}-{k}.png"
                )
                bitmap.close()
            doc.close()
        else:
            img = pyvips.Image.thumbnail_buffer(data, s.max_side, height=s.max_side, size="down")
            _write_bytes(img.pngsave_buffer(compression=1), out / f"{i}.png")


def _write_bytes(png: bytes, path: Path) -> None:
    with open(path, "wb") as f:
        f.write(png)
        f.flush()
        os.fsync(f.fileno())


def _write_png(img: Image.Image, path: Path, level: int) -> None:
    buf = io.BytesIO()
    img.save(buf, "PNG", compress_level=level)
    with open(path, "wb") as f:
        f.write(buf.getvalue())
        f.flush()
        os.fsync(f.fileno())


def side_ingest(jpgs: list[Path], pdf: Path, out: Path) -> None:
    from transcribe_import.engine.base.ids import new_id
    from transcribe_import.engine.ingest.transaction import (
        IngestRequest,
        PageSpec,
        SourceSpec,
        ingest,
    )
    from transcribe_import.engine.media import decode as media
    from transcribe_import.engine.storage import fsio
    from transcribe_import.engine.storage.corpus import Corpus

    try:
        from transcribe_import.engine.ingest.checkpoints import ingest_checkpoints
        from transcribe_import.engine.ingest.transaction import NewNotebook
    except ImportError:
        checkpointed = None
    else:
        checkpointed = ingest_checkpoints

    corpus = Corpus.open(out)

    def spec(p: Path) -> SourceSpec:
        # What the plan would have recorded (its own cost is the scan's, benchmarked there).
        info = media.probe(p)
        sha, _ = fsio.hash_file(p)
        pages = tuple(PageSpec(new_id(), new_id(), k) for k in range(info.page_count))
        return SourceSpec(new_id(), p, sha, info.media_type, pages)

    specs = [[spec(p) for p in jpgs[k : k + 50]] for k in range(0, len(jpgs), 50)]
    specs.append([spec(pdf)])
    t0, c0 = time.perf_counter(), time.process_time()
    for group in specs:
        nbid = new_id()
        if checkpointed is None:  # a tree from before checkpoints: one transaction each
            corpus.create_notebook(nbid, f"bench {nbid[:8]}")
            ingest(corpus, IngestRequest(nbid, tuple(group)), workers=2)
        else:
            checkpointed(
                corpus,
                IngestRequest(nbid, tuple(group)),
                create=NewNotebook(f"bench {nbid[:8]}"),
                workers=2,
            )
    print(json.dumps({"seconds": time.perf_counter() - t0, "cpu_s": time.process_time() - c0}))


def _child(side: str, n_pages: int, pdf_pages: int) -> dict[str, float]:
    jpgs, pdf = make_inputs(n_pages, pdf_pages)
    with tempfile.TemporaryDirectory(dir=WORK) as out:
        if side in ("reference", "vips-reference"):
            work = side_reference if side == "reference" else side_vips_reference
            t0, c0 = time.perf_counter(), time.process_time()
            work(jpgs, pdf, Path(out))
            seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        else:
            buf = io.StringIO()
            real_stdout, sys.stdout = sys.stdout, buf
            try:
                side_ingest(jpgs, pdf, Path(out))
            finally:
                sys.stdout = real_stdout
            timed = json.loads(buf.getvalue())
            seconds, cpu = timed["seconds"], timed["cpu_s"]
    # CPU: the process's, every thread's (libvips' and pdfium's included), over the clock.
    return {"seconds": seconds, "cpu_s": cpu, "peak_mib": peak_rss_mib()}


def peak_rss_mib() -> float:
    """This process's peak RSS. ru_maxrss would carry the parent's peak across exec on Linux."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_side(side: str, n_pages: int, pdf_pages: int, app: Path | None = None) -> dict[str, float]:
    """One side in a child process; ``app``: the app tree it imports (another checkout's
    ``app/``, to compare trees in the same run), this one's by default."""
    proc = subprocess.run(
        [
            sys.executable,
            __file__,
            "--child",
            side,
            "--pages",
            str(n_pages),
            "--pdf-pages",
            str(pdf_pages),
            *(["--app", str(app)] if app is not None else []),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def bench_pause(jpgs: list[Path], pages: int = 500, pause_at: int = 250) -> dict[str, float]:
    """The work a pause loses in a ``pages``-page notebook of A4 scans, in seconds.

    The notebook is the benchmark's scans repeated (a source's cost does not depend on its
    bytes being new). Pause is asked when page ``pause_at`` has been rendered, inside a
    checkpoint; the work lost is the time since that checkpoint began (its staged pages
    are rolled back), the worst case a whole checkpoint's time.
    """
    from transcribe_import.engine.base.ids import new_id
    from transcribe_import.engine.ingest import staging
    from transcribe_import.engine.ingest.checkpoints import CHECKPOINT_PAGES, ingest_checkpoints
    from transcribe_import.engine.ingest.transaction import (
        IngestCancelled,
        IngestRequest,
        NewNotebook,
        PageSpec,
        SourceSpec,
    )
    from transcribe_import.engine.media import decode as media
    from transcribe_import.engine.storage import fsio
    from transcribe_import.engine.storage.corpus import Corpus

    info = {p: (media.probe(p).media_type, fsio.hash_file(p)[0]) for p in jpgs}
    files = [jpgs[k % len(jpgs)] for k in range(pages)]
    specs = tuple(
        SourceSpec(new_id(), p, info[p][1], info[p][0], (PageSpec(new_id(), new_id(), 0),))
        for p in files
    )
    rendered = [0]
    stop = [False]
    real = staging.rendering.render_pages

    def counted(*a, **kw):  # type: ignore[no-untyped-def]
        for page in real(*a, **kw):
            rendered[0] += 1
            if rendered[0] == pause_at:
                stop.append(time.perf_counter())
                stop[0] = True
            yield page

    staging.rendering.render_pages = counted
    starts: list[float] = []
    with tempfile.TemporaryDirectory(dir=WORK) as d:
        corpus = Corpus.open(Path(d))
        nbid = new_id()
        t0 = time.perf_counter()
        starts.append(t0)
        landed = [0]

        def on_checkpoint(cp) -> None:  # type: ignore[no-untyped-def]
            landed[0] += cp.pages
            starts.append(time.perf_counter())

        try:
            ingest_checkpoints(
                corpus,
                IngestRequest(nbid, specs),
                create=NewNotebook("bench pause"),
                workers=2,
                should_stop=lambda: stop[0],
                on_checkpoint=on_checkpoint,
            )
        except IngestCancelled:
            pass
        ended = time.perf_counter()
        kept = len(Corpus.open(Path(d)).list_notebooks())
    staging.rendering.render_pages = real
    asked = float(stop[1])
    durations = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    return {
        "pages": pages,
        "checkpoint_pages": CHECKPOINT_PAGES,
        "landed_pages": landed[0],
        "notebooks_shown": kept,
        "lost_s": asked - starts[-1],
        "stop_latency_s": ended - asked,
        "checkpoint_median_s": statistics.median(durations),
        "checkpoint_max_s": max(durations),
        "pages_per_s": landed[0] / (starts[-1] - t0),
    }


def bench_registration(n: int = 10_000, samples: int = 20) -> dict[str, float]:
    """Register notebooks into a corpus that already lists n: cold (fresh process) and warm."""
    from transcribe_import.engine.base.ids import new_id
    from transcribe_import.engine.storage.corpus import Corpus, IndexEntry

    with tempfile.TemporaryDirectory(dir=WORK) as d:
        corpus = Corpus.open(Path(d))
        lines = b"".join(
            json.dumps(
                IndexEntry(i, f"notebooks/{i}", "t", "2026-01-01T00:00:00Z", None).to_json()
            ).encode()
            + b"\n"
            for i in (new_id() for _ in range(n))
        )
        corpus.index_path.write_bytes(lines)
        cold = []
        for _ in range(5):
            t0 = time.perf_counter()
            Corpus.open(Path(d)).create_notebook(new_id(), "cold")
            cold.append((time.perf_counter() - t0) * 1000)
        warm_corpus = Corpus.open(Path(d))
        warm_corpus.index_entries()
        warm = []
        for _ in range(samples):
            t0 = time.perf_counter()
            warm_corpus.create_notebook(new_id(), "warm")
            warm.append((time.perf_counter() - t0) * 1000)
    return {"cold_ms": statistics.median(cold), "warm_ms": statistics.median(warm)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=200)
    ap.add_argument("--pdf-pages", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--child", choices=["reference", "vips-reference", "ingest"])
    ap.add_argument("--no-record", action="store_true")
    ap.add_argument("--pause", action="store_true", help="also the work a pause loses (500 pages)")
    ap.add_argument("--before", type=float, help="the ratio of the tree before, to compare")
    ap.add_argument("--app", type=Path, help="a child's app tree (run_side's ``app``)")
    args = ap.parse_args()
    sys.path.insert(0, str(args.app or BENCH.parent / "app"))
    WORK.mkdir(exist_ok=True)
    if args.child:
        print(json.dumps(_child(args.child, args.pages, args.pdf_pages)))
        return
    make_inputs(args.pages, args.pdf_pages)
    results: dict[str, list[dict[str, float]]] = {
        "reference": [],
        "vips-reference": [],
        "ingest": [],
    }
    for _ in range(args.repeat):
        for side in ("reference", "vips-reference", "ingest"):
            results[side].append(run_side(side, args.pages, args.pdf_pages))
            print(side, results[side][-1], file=sys.stderr)
    ref = statistics.median(r["seconds"] for r in results["reference"])
    ing = statistics.median(r["seconds"] for r in results["ingest"])
    vref = statistics.median(r["seconds"] for r in results["vips-reference"])
    pages = args.pages + args.pdf_pages
    reg = bench_registration()
    pause = bench_pause(make_inputs(args.pages, args.pdf_pages)[0]) if args.pause else None
    summary = {
        "pages": pages,
        "reference_s": round(ref, 2),
        "ingest_s": round(ing, 2),
        "ratio": round(ing / ref, 2),
        "vips_reference_s": round(vref, 2),
        "vips_ratio": round(ing / vref, 2),
        "load": os.getloadavg()[0],
        "ingest_pages_per_s": round(pages / ing, 1),
        "reference_pages_per_s": round(pages / ref, 1),
        "ingest_peak_mib": round(max(r["peak_mib"] for r in results["ingest"])),
        "reference_peak_mib": round(max(r["peak_mib"] for r in results["reference"])),
        "register_cold_ms": round(reg["cold_ms"], 1),
        "register_warm_ms": round(reg["warm_ms"], 2),
    }
    if pause is not None:
        summary["pause"] = {k: round(v, 2) for k, v in pause.items()}
    print(json.dumps(summary, indent=2))
    if not args.no_record:
        record(summary, args)


def _before_line(s: dict, args: argparse.Namespace) -> str:  # type: ignore[type-arg]
    if args.before is None:
        return ""
    change = s["ratio"] / args.before - 1
    return (
        f"\nThe same benchmark on the tree before checkpoints (one transaction per notebook), "
        f"same machine and inputs: ratio {args.before}; with checkpoints {s['ratio']} "
        f"({change:+.0%}; the target: within 5%)."
    )


def _pause_lines(s: dict) -> str:  # type: ignore[type-arg]
    p = s.get("pause")
    if not p:
        return ""
    return f"""
**Pause in a {p["pages"]}-page notebook** (the scans above, repeated; checkpoints of
{p["checkpoint_pages"]} pages; Pause asked when page 250 was rendered): {p["landed_pages"]}
pages had landed and stay ({p["notebooks_shown"]} notebook shown); the work lost, the
checkpoint in flight rolled back, was **{p["lost_s"]} s**, and the import stopped
{p["stop_latency_s"]} s after the request. A checkpoint took {p["checkpoint_median_s"]} s
(median; at most {p["checkpoint_max_s"]} s): the most a pause, a cancel or a crash can lose.
Before checkpoints a pause rolled back everything the notebook had staged (here about
250 pages, and the notebook was left empty).
"""


def record(s: dict[str, float], args: argparse.Namespace) -> None:
    import platform

    section = f"""## Ingest (bench/bench_ingest.py)

Run {time.strftime("%Y-%m-%d")} on {os.cpu_count()} cores, Python {platform.python_version()},
{args.pages} A4 300-dpi JPEG scans in notebooks of 50 and one {args.pdf_pages}-page scanned PDF
({s["pages"]} pages), median of {args.repeat} alternating runs per side.

| measure | ingest (workers=2) | Pillow reference (1 thread) | libvips reference |
| --- | --- | --- | --- |
| wall time | {s["ingest_s"]} s | {s["reference_s"]} s | {s["vips_reference_s"]} s |
| pages/s | {s["ingest_pages_per_s"]} | {s["reference_pages_per_s"]} | |
| peak memory (RSS) | {s["ingest_peak_mib"]} MiB | {s["reference_peak_mib"]} MiB | |

**Ratio ingest / libvips reference: {s["vips_ratio"]}** (target: at most 1.3); ingest /
Pillow reference: {s["ratio"]}. The libvips reference (issue #26) reads, hashes, copies and
fsyncs each file, decodes it with shrink-on-load, resizes once and writes a level-1 PNG
(libspng, libvips' default filter), one file at a time with libvips' own threads. Load
average when the run ended: {s["load"]:.1f} (a shared 2-core machine).{_before_line(s, args)}
{_pause_lines(s)}
Registering a notebook (create folder + manifest + index append) in a corpus that
already lists 10,000: {s["register_cold_ms"]} ms in a fresh process (a new notebook's
registration is appended without reading the index), {s["register_warm_ms"]} ms in a
process that has read the index (target: under 50 ms).
"""
    replace_section(BENCH / "RESULTS.md", "## Ingest (bench/bench_ingest.py)", section)


if __name__ == "__main__":
    main()
