"""Benchmark: peak memory of a commit of huge pages, with 2 and 6 workers, same run.

Pages: 16-bit grayscale PNGs of 88 megapixels (11,000 x 8,000), inside the decompression
bomb limit, each in its own notebook so that every worker lane decodes at once. Each
commit runs in its own process (the real CLI, ``transcribe-import commit --workers N``);
its peak resident memory is read from the kernel (``ru_maxrss`` of the child).

The reference, measured in the same run: the peak of rendering ONE such page in a fresh
process, the floor any importer pays. A ratio near 1 means the pages were decoded one or
two at a time whatever the worker count (the shared budget, engine/media/budget.py); the
``unbounded`` rows run the same commit with the budget lifted, as the app did before it.
Results go to bench/RESULTS.md.

    .venv/bin/python bench/bench_memory.py [--pages 6]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image

from bench_results import replace_section  # noqa: E402 - beside this script

BENCH = Path(__file__).resolve().parent
WORK = BENCH / "_work"
SIZE = (11_000, 8_000)

# Each child reports its own peak (VmHWM, reset by exec) on its last line of stderr: the
# ru_maxrss wait4 gives starts from the parent's resident size at the fork, and the parent
# holds a Pillow image of a page while it makes them, which hid every child's peak below it.
PEAK = """
import atexit, sys
def _peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            print("PEAK_KIB", line.split()[1], file=sys.stderr)
atexit.register(_peak)
"""
# The commit, in a child process; "unbounded" lifts the budget first (the app before it).
COMMIT = (
    PEAK
    + """
import sys
from transcribe_import.engine.media import budget
if sys.argv[1] == "unbounded":
    budget.DECODE_BUDGET = budget.MemoryBudget(1 << 62)
from transcribe_import.cli.main import main
sys.exit(main(["commit", sys.argv[2], "--workers", sys.argv[3]]))
"""
)
ONE = (
    PEAK
    + """
import sys
from pathlib import Path
from transcribe_import.engine.media.render import render_pages
for _ in render_pages(Path(sys.argv[1]), "image/png", [0]):
    pass
"""
)


def make_pages(folder: Path, count: int) -> None:
    base = Image.linear_gradient("L").resize(SIZE).convert("I")
    for n in range(count):
        nb = folder / f"huge {n + 1}"
        nb.mkdir(parents=True)
        page = base.point(lambda v, n=n: v * 200 + n)  # distinct bytes: no duplicates
        page.convert("I;16").save(nb / "page 1.png", compress_level=1)


def peak_of(args: list[str], env: dict[str, str]) -> float:
    """Run a child; its own peak resident memory in MiB (its VmHWM, see ``PEAK``)."""
    proc = subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.decode()
    if proc.returncode != 0:
        raise SystemExit(f"{args[:3]} failed: {err}")
    (kib,) = (line.split()[1] for line in err.splitlines() if line.startswith("PEAK_KIB "))
    return int(kib) / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=6)
    args = ap.parse_args()
    WORK.mkdir(exist_ok=True)
    rows: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory(dir=WORK) as tmp:
        root = Path(tmp)
        make_pages(root / "shelf", args.pages)
        env = {**os.environ, "PYTHONPATH": str(BENCH.parent / "app")}
        ref = peak_of([sys.executable, "-c", ONE, str(root / "shelf/huge 1/page 1.png")], env)
        for mode in ("budget", "unbounded"):
            for workers in (2, 6):
                data = root / f"data-{mode}-{workers}"
                env["TRANSCRIBE_DATA_DIR"] = str(data)
                plan = root / f"plan-{mode}-{workers}.json"
                subprocess.run(
                    [sys.executable, "-m", "transcribe_import", "plan", str(root / "shelf")]
                    + ["-o", str(plan)],
                    env=env,
                    check=True,
                    capture_output=True,
                )
                peak = peak_of([sys.executable, "-c", COMMIT, mode, str(plan), str(workers)], env)
                rows.append((f"{mode}, --workers {workers}", peak))
                shutil.rmtree(data)
                print(f"{mode} workers={workers}: {peak:.0f} MiB (one page alone: {ref:.0f})")
    record(ref, rows, args)


def record(ref: float, rows: list[tuple[str, float]], args: argparse.Namespace) -> None:
    lines = [
        "## Decoding memory (bench/bench_memory.py)",
        "",
        f"A commit of {args.pages} 16-bit 88-megapixel PNGs, one per notebook, through the real "
        "CLI; peak resident memory of the process. Reference, same run: rendering one such page "
        f"alone in a fresh process, **{ref:.0f} MiB**. `unbounded` lifts the shared decoding "
        "budget (engine/media/budget.py), as the app was before it.",
        "",
        "| commit | peak MiB | ratio to one page |",
        "| --- | --- | --- |",
        *(f"| {name} | {peak:.0f} | {peak / ref:.2f} |" for name, peak in rows),
        "",
        f"Machine: {os.cpu_count()} cores; budget {_budget_mib():.0f} MiB (a quarter of "
        f"memory, 512 MiB to 4 GiB), each page estimated at {_estimate_mib():.0f} MiB, so "
        f"at most {max(1, int(_budget_mib() // _estimate_mib()))} decode at once here (with "
        f"8 GB of memory, a 2 GiB budget: {max(1, int(2048 // _estimate_mib()))}). Pages "
        "rendered by libvips (engine/media/render_vips.py: no operation cache, one libvips "
        "thread a page), each holding libvips' own estimate (render_vips.estimate). "
        f"Load average when the run ended: {os.getloadavg()[0]:.1f}.",
        "",
        *(
            f"**The commit with 6 workers peaked at {peak:.0f} MiB, "
            f"{'within' if peak <= _budget_mib() else 'over'} the {_budget_mib():.0f} MiB "
            "decoding budget** (the whole process's resident memory).\n"
            for name, peak in rows
            if name == "budget, --workers 6"
        ),
    ]
    replace_section(BENCH / "RESULTS.md", lines[0], "\n".join(lines))


def _estimate_mib() -> float:
    sys.path.insert(0, str(BENCH.parent / "app"))
    from transcribe_import.engine.media.kinds import RenderSettings
    from transcribe_import.engine.media.render_vips import estimate

    return estimate(*SIZE, RenderSettings().capped(*SIZE), streamed=True) / (1024 * 1024)


def _budget_mib() -> float:
    sys.path.insert(0, str(BENCH.parent / "app"))
    from transcribe_import.engine.media.budget import default_budget

    return default_budget() / (1024 * 1024)


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    main()
