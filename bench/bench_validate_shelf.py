"""Validate end to end on a shelf of written pages: its CPU as the shelf grows, and the questions.

    python bench/bench_validate_shelf.py [--sizes 5000 20000] [--per-notebook 100]
                                         [--rescans 4] [--out FILE]

For each size, a shelf of folders of small JPEGs (ruled paper, a date and 12 to 30 lines in a
handwriting font, each page its own words: distinct pages whose looks are not blank) with
``--rescans`` true rescans among them (a page of an earlier folder taken again: tilted,
brighter, at another quality). ``transcribe-import plan`` plans it (the scan and the look
pass); then ``transcribe-import validate PLAN --json`` is run twice in a child process each,
measured in CPU seconds (the child's user + system time): once as it is (the candidate
search of planning/look_index.py), and once with the index this issue replaced (the
reference, the file as it was at ``--reference`` in git, put in its place in the same
child), so both are measured in the same run on the same machine load. Printed: CPU of
each, the ratio between sizes, and the questions asked (``looks_like`` problems).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT / "tests"))

from helpers.pages import MONTHS, WORDS, hand_fonts  # noqa: E402

SIDE = (310, 438)
# Lines of writing on a page, at least (at most 30, a full page): with a few only, every
# page's look is near every other's and validate verifies each page's six nearest (the
# figures say what that costs a page), which a 20,000-page run cannot afford here.
FEWEST_LINES = 12  # A4 at about 37 dpi: a small JPEG, as a phone's thumbnail
CLI = "from transcribe_import.cli import main; sys.exit(main())"
# The reference: the index of the look_index.py file at that commit, in the child's place.
# ``find`` adds every page, then looks each one up among the pages before it (``near_many``);
# the reference, which has no such call, is given its pages and lookups one at a time in
# that order, as ``find`` once made them.
REFERENCE_CHILD = """
import sys, importlib.util
spec = importlib.util.spec_from_file_location("old_look_index", sys.argv.pop(1))
old = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = old
spec.loader.exec_module(old)
from transcribe_import.engine.planning import lookalikes

class Replayed(old.LookIndex):
    def __init__(self):
        super().__init__()
        self.later = []

    def add(self, upright):
        self.later.append(upright)
        return len(self.later) - 1

    def near_many(self, looks, limits=None, threshold=old.THRESHOLD):
        limits = [len(self.later)] * len(looks) if limits is None else list(limits)
        out = [None] * len(looks)
        for k in sorted(range(len(looks)), key=limits.__getitem__):
            while len(self) < limits[k]:
                super().add(self.later[len(self)])
            out[k] = self.near(looks[k], threshold)
        return out

lookalikes.LookIndex = Replayed
"""


def _page(rnd: random.Random, fonts: tuple[str, ...]):
    from PIL import Image, ImageDraw, ImageFont

    im = Image.new("RGB", SIDE, (244, 240, 228))
    d = ImageDraw.Draw(im)
    for y in range(40, SIDE[1] - 15, 12):
        d.line([(12, y), (SIDE[0] - 12, y)], fill=(175, 190, 220))
    font = ImageFont.truetype(rnd.choice(fonts), rnd.randrange(10, 13))
    date = f"{rnd.randrange(1, 29)} {rnd.choice(MONTHS)} 19{rnd.randrange(10, 60)}"
    d.text((20 + rnd.randrange(0, 120), 28), date, (30, 30, 60), font)
    for row in range(rnd.randrange(FEWEST_LINES, 31)):
        words = " ".join(rnd.choice(WORDS) for _ in range(rnd.randrange(2, 7)))
        d.text((20 + rnd.randrange(0, 30), 40 + 12 * row), words, (30, 30, 60), font)
    return im


def _jpeg(im, quality: int = 85) -> bytes:
    buf = io.BytesIO()
    im.save(buf, "JPEG", quality=quality)
    return buf.getvalue()


def write_shelf(root: Path, size: int, per_notebook: int, rescans: int, seed: int) -> None:
    """``size`` pages in folders of ``per_notebook``, the last ``rescans`` of them rescans of
    pages of the first folder."""
    from PIL import ImageEnhance

    rnd = random.Random(seed)
    fonts = hand_fonts()
    firsts = []
    for n in range(size - rescans):
        folder = root / f"notebook {n // per_notebook + 1:04d}"
        folder.mkdir(parents=True, exist_ok=True)
        im = _page(rnd, fonts)
        if n < rescans:
            firsts.append(im)
        (folder / f"page {n % per_notebook + 1:03d}.jpg").write_bytes(_jpeg(im))
    folder = root / "rescans"
    folder.mkdir()
    for k, im in enumerate(firsts):
        again = ImageEnhance.Brightness(im.rotate(1.0, fillcolor=(255, 255, 255))).enhance(1.05)
        (folder / f"page {k + 1:03d}.jpg").write_bytes(_jpeg(again, 75))


def _cpu_of(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Run a child; its CPU seconds (user + system) and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1, 3):
        raise SystemExit(f"{argv[2:]} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, proc.stdout


def _questions(report: str) -> int:
    doc = json.loads(report)
    problems = doc.get("problems", [])
    return sum(1 for p in problems if p.get("code") == "looks_like")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 20000])
    parser.add_argument("--per-notebook", type=int, default=100)
    parser.add_argument("--rescans", type=int, default=4)
    parser.add_argument("--reference", default="91a6cda")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "app")}
    py = sys.executable
    rows = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-validate-") as tmp:
        old = Path(tmp) / "old_look_index.py"
        old.write_text(
            subprocess.run(
                [
                    "git",
                    "-C",
                    str(ROOT),
                    "show",
                    f"{args.reference}:app/transcribe_import/engine/planning/look_index.py",
                ],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        for size in args.sizes:
            shelf, data = Path(tmp) / f"shelf-{size}", Path(tmp) / f"data-{size}"
            t0 = time.perf_counter()
            write_shelf(shelf, size, args.per_notebook, args.rescans, args.seed + size)
            made = time.perf_counter() - t0
            plan = Path(tmp) / f"plan-{size}.json"
            base = ["--data-dir", str(data)]
            plan_cpu, _ = _cpu_of(
                [py, "-c", "import sys; " + CLI, "plan", str(shelf), "-o", str(plan), *base], env
            )
            cmd = ["validate", str(plan), "--json", *base]
            now_cpu, report = _cpu_of([py, "-c", "import sys; " + CLI, *cmd], env)
            ref_cpu, ref_report = _cpu_of(
                [py, "-c", REFERENCE_CHILD + "\n" + CLI, str(old), *cmd], env
            )
            rows.append(
                (size, made, plan_cpu, now_cpu, _questions(report), ref_cpu, _questions(ref_report))
            )
            print(rows[-1], flush=True)
    load = os.getloadavg()
    first = rows[0]
    lines = [
        "## Validate end to end on a shelf (bench_validate_shelf.py)",
        "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average "
        f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores (shared). "
        f"Shelves of small JPEGs ({SIDE[0]}x{SIDE[1]}, ruled, a date and {FEWEST_LINES} to 30 "
        "lines in a "
        f"handwriting font), {args.per_notebook} pages a folder, {args.rescans} true rescans "
        f"among them. CPU seconds of `transcribe-import validate PLAN --json` (a child's user "
        f"+ system time); the reference is the same command with the index as it was at "
        f"{args.reference}, in the same run.",
        "",
        "| pages | plan CPU s | validate CPU s | x first | questions | reference CPU s | "
        "x first | reference questions |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for size, _made, plan_cpu, now, q, ref, rq in rows:
        lines.append(
            f"| {size:,} | {plan_cpu:.1f} | {now:.1f} | {now / first[3]:.2f}x | {q} | "
            f"{ref:.1f} | {ref / first[5]:.2f}x | {rq} |"
        )
    lines += ["", f"Whole run {time.perf_counter() - started:.0f} s.", ""]
    text = "\n".join(lines)
    print(text)
    if args.out is not None:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
