"""Benchmark: a shelf of tens of thousands of pages, `plan` and `validate` beside a hash walk.

Issue #38: an archive's shelf is notebooks of 500 JPEG pages (600x850, a phone's or a
scanner's small export), each page its own handwriting (random lines of words in one of the
Debian handwriting fonts tests/helpers/pages.py names), generated once under bench/_work/
and reused. For each shelf size, in one run, each side its own child process, the tree warm
in the page cache (an untimed walk first):

  hash walk   os.scandir walk, read and sha256 every byte of every file, one thread
  plan        the command a user runs: ``transcribe-import plan SHELF -o PLAN`` in a fresh
              corpus (the scan, the look pass, the validation, the plan written, its summary)
  validate    ``transcribe-import validate PLAN`` of that plan
  plan again  the same ``plan`` a second time in the same corpus (``--data-dir``), its looks
              and verdicts kept there by the first: what a person pays for Scan Again, a
              plan made again after an edit, or a plan opened again
  floor       the least any look can cost: every page decoded by Pillow at its smallest draft
              scale (1/8, libjpeg's DCT scaling) and nothing else, in one process, and the
              same spread over two processes (plan uses both cores)

With ``--warm``, the sides a person pays over and over, on a corpus an earlier cold plan of the
same shelf made and kept under bench/_work/warm-N/ (``data/`` and ``plan.json``; made by this
bench's cold plan if missing, what made it written in its ``made.txt``), each run on a fresh
copy of it in the system's temp folder (the kept corpus is never used in place):

  hash walk          as above
  plan again, first  ``plan`` of the shelf in the copy: its looks and verdicts kept, its scan
                     cache as the cold plan left it (none, if an older app made it)
  plan again         the same ``plan`` once more in the same copy: what a person pays for Scan
                     Again, a plan made again after an edit
  validate           ``validate`` of plan again's plan

so the warm sides of 20,000 pages are measured in minutes, without the cold plan's quarter of
an hour.

Each side's wall time, CPU (the child's user + system time, every thread and process it
started) and peak RSS (the largest of the child's processes, from ``wait4``). Reported: plan
and validate over the walk (wall), CPU growth from the smallest shelf to each larger one
against the growth of the pages, peak RSS, plan again and the floor over the walk (wall,
CPU). Figures go to standard output as a Markdown
table; the lead folds them into bench/RESULTS.md.

    PYTHONPATH=app .venv/bin/python bench/bench_shelf.py [--pages 5000 20000] [--repeat 1]
        [--before /tmp/base/app] [--warm] [--tag NAME]

``--before``: the app/ folder of another tree (``git archive BASE app | tar -x -C /tmp/base``),
measured in the same run, each of its runs just before this tree's, for a before/after.
``--tag``: a name for the file the sides' standard error goes to (bench/_work/last-side-NAME.err),
so that benches run at once do not write one file.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from bench_scan import side_hashwalk  # noqa: E402 - beside this script: the same reference

BENCH = Path(__file__).resolve().parent
WORK = BENCH / "_work"
APP = BENCH.parent / "app"
PER_NOTEBOOK = 500
WIDTH, HEIGHT = 600, 850

FONTS = (
    "/usr/share/fonts/truetype/fifthhorseman/dkg.ttf",
    "/usr/share/fonts/truetype/breip/Breip.ttf",
    "/usr/share/fonts/truetype/femkeklaver/femkeklaver.ttf",
    "/usr/share/fonts/truetype/rufscript/Rufscript010.ttf",
    "/usr/share/fonts/truetype/sjfonts/SteveHand.ttf",
    "/usr/share/fonts/opentype/dancingscript/DancingScript-Regular.otf",
)
WORDS = [
    "the",
    "river",
    "was",
    "high",
    "this",
    "morning",
    "and",
    "we",
    "crossed",
    "it",
    "at",
    "the",
    "old",
    "ford",
    "before",
    "noon",
    "snow",
    "on",
    "the",
    "hills",
    "mother",
    "wrote",
    "again",
    "about",
    "the",
    "farm",
    "prices",
    "of",
    "wool",
    "and",
    "barley",
    "walked",
    "to",
    "the",
    "station",
    "in",
    "the",
    "rain",
    "letters",
    "from",
    "Anna",
    "nothing",
    "from",
    "the",
    "office",
    "measured",
    "the",
    "north",
    "field",
    "seven",
    "hundred",
    "paces",
    "long",
    "reindeer",
    "tracks",
    "near",
    "the",
    "lake",
    "fish",
    "soup",
    "for",
    "supper",
]


def shelf_path(pages: int) -> Path:
    return WORK / f"shelf-{pages}"


def _notebook(args: tuple[Path, int, int]) -> int:
    """Write one notebook's pages (its folder, its first page's number, how many)."""
    from PIL import Image, ImageDraw, ImageFont

    folder, first, count = args
    folder.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(first)
    font = ImageFont.truetype(FONTS[first % len(FONTS)], 22)
    for n in range(count):
        page = Image.new("L", (WIDTH, HEIGHT), 236)
        draw = ImageDraw.Draw(page)
        for y in range(90, HEIGHT - 40, 28):  # the ruling, light
            draw.line([(20, y), (WIDTH - 20, y)], fill=205)
        draw.text((WIDTH - 80, 40), str(n + 1), fill=40, font=font)
        kind = rnd.random()
        lines = 1 if kind < 0.15 else 4 if kind < 0.35 else 26
        for k in range(lines):
            words = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 7)))
            draw.text((40 + rnd.randint(0, 30), 66 + 28 * k), words, fill=35, font=font)
        page.convert("RGB").save(folder / f"page {n + 1:03d}.jpg", "JPEG", quality=85)
    return count


def make_shelf(pages: int) -> Path:
    """The shelf of ``pages`` pages in notebooks of ``PER_NOTEBOOK``, made once."""
    root = shelf_path(pages)
    done = root.with_name(root.name + ".complete")
    if done.exists():
        return root
    if root.exists():
        shutil.rmtree(root)
    jobs = [
        (
            root / f"notebook {k + 1:03d}",
            k * PER_NOTEBOOK,
            min(PER_NOTEBOOK, pages - k * PER_NOTEBOOK),
        )
        for k in range((pages + PER_NOTEBOOK - 1) // PER_NOTEBOOK)
    ]
    with ProcessPoolExecutor(2) as pool:
        assert sum(pool.map(_notebook, jobs)) == pages
    done.write_text(f"{pages} pages\n")
    return root


def side(argv: list[str], env: dict[str, str]) -> dict[str, float]:
    """Run ``argv``; its wall time, CPU (user + system, its children included) and peak RSS."""
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=_quiet())
    _pid, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):  # validate exits 1 when the plan has problems to resolve
        raise SystemExit(f"{' '.join(argv)} exited {code}")
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss_mib": usage.ru_maxrss / 1024,
    }


# The file the sides' standard error goes to (``--tag``).
ERR_FILE = {"name": "last-side.err"}


def _quiet() -> list[tuple[int, int, str, int, int]]:
    return [
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (
            os.POSIX_SPAWN_OPEN,
            2,
            str(WORK / ERR_FILE["name"]),
            os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
            0o644,
        ),
    ]


def _page_files(root: Path) -> list[str]:
    """Every file under ``root``, in the walk's order."""
    files: list[str] = []
    stack = [str(root)]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir():
                    stack.append(entry.path)
                else:
                    files.append(entry.path)
    return files


def _draft_decode(paths: list[str]) -> int:
    """Decode each of ``paths`` at its smallest draft scale (1/8) and nothing else."""
    from PIL import Image

    for path in paths:
        with Image.open(path) as im:
            im.draft(im.mode, (im.width // 8, im.height // 8))
            im.load()
    return len(paths)


def side_floor(root: Path, processes: int) -> int:
    """The floor: every page of ``root`` decoded at 1/8, on ``processes`` processes."""
    files = _page_files(root)
    if processes == 1:
        return _draft_decode(files)
    step = 64
    chunks = [files[k : k + step] for k in range(0, len(files), step)]
    with ProcessPoolExecutor(processes) as pool:
        return sum(pool.map(_draft_decode, chunks))


def measure(pages: int, app: Path = APP) -> dict[str, float]:
    root = make_shelf(pages)
    # Compiled as an installed app is (pip compiles it): a run with PYTHONDONTWRITEBYTECODE
    # would otherwise compile every module in every side, a second of CPU each time.
    compileall.compile_dir(app, quiet=1)
    side_hashwalk(root)  # the page cache warm for every side alike
    env = {**os.environ, "PYTHONPATH": str(app)}
    py = sys.executable
    walk = side([py, __file__, "--walk", str(root)], env)
    floor1 = side([py, __file__, "--floor", str(root), "--processes", "1"], env)
    floor2 = side([py, __file__, "--floor", str(root), "--processes", "2"], env)
    with tempfile.TemporaryDirectory(dir=WORK) as tmp:
        plan_file = Path(tmp) / "plan.json"
        cli = [py, "-m", "transcribe_import", "--data-dir", str(Path(tmp) / "data")]
        plan = side([*cli, "plan", str(root), "-o", str(plan_file)], env)
        validate = side([*cli, "validate", str(plan_file)], env)
        plan_bytes = plan_file.stat().st_size
        again = side([*cli, "plan", str(root), "-o", str(Path(tmp) / "again.json")], env)
    return {
        "pages": pages,
        "walk": walk["wall"],
        "walk_cpu": walk["cpu"],
        "plan": plan["wall"],
        "plan_cpu": plan["cpu"],
        "plan_rss": plan["rss_mib"],
        "validate": validate["wall"],
        "validate_cpu": validate["cpu"],
        "validate_rss": validate["rss_mib"],
        "plan_bytes": plan_bytes,
        "again": again["wall"],
        "again_cpu": again["cpu"],
        "again_rss": again["rss_mib"],
        "floor1": floor1["wall"],
        "floor1_cpu": floor1["cpu"],
        "floor2": floor2["wall"],
        "floor2_cpu": floor2["cpu"],
    }


def warm_path(pages: int) -> Path:
    return WORK / f"warm-{pages}"


def make_warm(pages: int, app: Path, env: dict[str, str]) -> Path:
    """The corpus a cold ``plan`` of the shelf of ``pages`` made (its looks, verdicts and, for
    an app that keeps one, scan cache), kept under bench/_work/warm-N/ once made; what made
    it is in its made.txt."""
    warm = warm_path(pages)
    if (warm / "plan.json").exists():
        return warm
    if warm.exists():
        shutil.rmtree(warm)  # a cold plan stopped part way: made again
    warm.mkdir(parents=True)
    cli = [sys.executable, "-m", "transcribe_import", "--data-dir", str(warm / "data")]
    cold = side([*cli, "plan", str(shelf_path(pages)), "-o", str(warm / "plan.json")], env)
    (warm / "made.txt").write_text(
        f"made {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by bench_shelf.py --warm: "
        f"transcribe-import plan {shelf_path(pages)} of the app in {app}, "
        f"{cold['wall']:.0f} s wall, {cold['cpu']:.0f} s CPU, peak RSS {cold['rss_mib']:.0f} MiB, "
        f"load average {os.getloadavg()[0]:.2f} at its end\n"
    )
    return warm


def measure_warm(pages: int, app: Path = APP) -> dict[str, float]:
    """The warm sides of the shelf of ``pages`` for the app in ``app``, on a copy of its
    warm corpus."""
    root = make_shelf(pages)
    compileall.compile_dir(app, quiet=1)
    env = {**os.environ, "PYTHONPATH": str(app)}
    warm = make_warm(pages, app, env)
    side_hashwalk(root)
    py = sys.executable
    walk = side([py, __file__, "--walk", str(root)], env)
    with tempfile.TemporaryDirectory(prefix="bench-shelf-warm-") as tmp:
        data = Path(tmp) / "data"
        shutil.copytree(warm / "data", data, symlinks=True)
        cli = [py, "-m", "transcribe_import", "--data-dir", str(data)]
        first = side([*cli, "plan", str(root), "-o", str(Path(tmp) / "first.json")], env)
        again_file = Path(tmp) / "again.json"
        again = side([*cli, "plan", str(root), "-o", str(again_file)], env)
        validate = side([*cli, "validate", str(again_file)], env)
    return {
        "pages": pages,
        "walk": walk["wall"],
        "walk_cpu": walk["cpu"],
        "first": first["wall"],
        "first_cpu": first["cpu"],
        "again": again["wall"],
        "again_cpu": again["cpu"],
        "again_rss": again["rss_mib"],
        "validate": validate["wall"],
        "validate_cpu": validate["cpu"],
        "validate_rss": validate["rss_mib"],
    }


def warm_table(rows: list[dict[str, float]]) -> str:
    first = rows[0]
    out = [
        "| pages | hash walk (wall, CPU) | plan again, first (wall, CPU) | plan again (wall, CPU) "
        "| plan again / walk (wall, CPU) | validate (wall, CPU) | validate / walk (wall, CPU) "
        "| CPU growth plan again, validate (pages) | peak RSS plan again, validate |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        growth = (
            "-"
            if r is first
            else f"{r['again_cpu'] / first['again_cpu']:.2f}x, "
            f"{r['validate_cpu'] / first['validate_cpu']:.2f}x "
            f"({r['pages'] / first['pages']:.0f}x)"
        )
        out.append(
            f"| {r['pages']:,} | {r['walk']:.2f} s, {r['walk_cpu']:.2f} s "
            f"| {r['first']:.1f} s, {r['first_cpu']:.1f} s "
            f"| {r['again']:.1f} s, {r['again_cpu']:.1f} s "
            f"| **{r['again'] / r['walk']:.1f}x, {r['again_cpu'] / r['walk_cpu']:.1f}x** "
            f"| {r['validate']:.1f} s, {r['validate_cpu']:.1f} s "
            f"| {r['validate'] / r['walk']:.1f}x, {r['validate_cpu'] / r['walk_cpu']:.1f}x "
            f"| {growth} | {r['again_rss']:.0f} MiB, {r['validate_rss']:.0f} MiB |"
        )
    return "\n".join(out)


def table(rows: list[dict[str, float]]) -> str:
    first = rows[0]
    out = [
        "| pages | hash walk (wall, CPU) | plan (wall, CPU) | plan / walk (wall, CPU) "
        "| validate (wall, CPU) | validate / walk (wall, CPU) "
        "| CPU growth plan, validate (pages) | peak RSS plan, validate | plan document "
        "| plan again (wall, CPU) | plan again / walk (wall, CPU) "
        "| floor, 1 process (wall, CPU) | floor, 2 processes (wall, CPU) "
        "| floor / walk, 1 and 2 processes (wall, CPU) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        growth = (
            "-"
            if r is first
            else f"{r['plan_cpu'] / first['plan_cpu']:.2f}x, "
            f"{r['validate_cpu'] / first['validate_cpu']:.2f}x "
            f"({r['pages'] / first['pages']:.0f}x)"
        )
        out.append(
            f"| {r['pages']:,} | {r['walk']:.2f} s, {r['walk_cpu']:.2f} s "
            f"| {r['plan']:.1f} s, {r['plan_cpu']:.1f} s "
            f"| **{r['plan'] / r['walk']:.0f}x, {r['plan_cpu'] / r['walk_cpu']:.0f}x** "
            f"| {r['validate']:.1f} s, {r['validate_cpu']:.1f} s "
            f"| {r['validate'] / r['walk']:.1f}x, {r['validate_cpu'] / r['walk_cpu']:.1f}x "
            f"| {growth} | {r['plan_rss']:.0f} MiB, {r['validate_rss']:.0f} MiB "
            f"| {r['plan_bytes'] / 1e6:.1f} MB "
            f"| {r['again']:.1f} s, {r['again_cpu']:.1f} s "
            f"| **{r['again'] / r['walk']:.1f}x, {r['again_cpu'] / r['walk_cpu']:.1f}x** "
            f"| {r['floor1']:.2f} s, {r['floor1_cpu']:.2f} s "
            f"| {r['floor2']:.2f} s, {r['floor2_cpu']:.2f} s "
            f"| {r['floor1'] / r['walk']:.1f}x, {r['floor1_cpu'] / r['walk_cpu']:.1f}x; "
            f"{r['floor2'] / r['walk']:.1f}x, {r['floor2_cpu'] / r['walk_cpu']:.1f}x |"
        )
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, nargs="+", default=[5000, 20000])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--walk", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--floor", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--processes", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--make", action="store_true", help="only make the shelves")
    ap.add_argument("--before", type=Path, help="another tree's app/ folder, measured too")
    ap.add_argument(
        "--warm", action="store_true", help="plan again and validate on a kept warm corpus"
    )
    ap.add_argument("--tag", help="names the sides' error file: last-side-TAG.err")
    args = ap.parse_args()
    if args.tag:
        ERR_FILE["name"] = f"last-side-{args.tag}.err"
    if args.walk is not None:
        side_hashwalk(args.walk)
        return
    if args.floor is not None:
        side_floor(args.floor, args.processes)
        return
    WORK.mkdir(exist_ok=True)
    if args.make:
        for pages in args.pages:
            make_shelf(pages)
        return
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load_before = os.getloadavg()
    trees = ([("before", args.before)] if args.before else []) + [("this tree", APP)]
    rows: dict[str, list[dict[str, float]]] = {name: [] for name, _app in trees}
    for pages in args.pages:
        runs: dict[str, list[dict[str, float]]] = {name: [] for name, _app in trees}
        for _ in range(args.repeat):
            for name, app in trees:  # alternated: both sides see the same load
                runs[name].append(measure_warm(pages, app) if args.warm else measure(pages, app))
                print(name, json.dumps(runs[name][-1]), file=sys.stderr)
        for name, done in runs.items():
            rows[name].append({k: statistics.median(r[k] for r in done) for k in done[0]})
    load_after = os.getloadavg()
    print(
        f"Run {started}, load average {load_before[0]:.2f} at the start, "
        f"{load_after[0]:.2f} at the end, {os.cpu_count()} cores, median of {args.repeat}.\n"
    )
    for name, app in trees:
        print(f"{name} ({app}):\n")
        print((warm_table if args.warm else table)(rows[name]) + "\n")


if __name__ == "__main__":
    main()
