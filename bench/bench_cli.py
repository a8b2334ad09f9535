"""Benchmark: whole-process wall time of light CLI commands, BEFORE and AFTER the layer refactor.

The refactor moves the engine into layer packages so that commands which only read
the corpus (`runs`, `show`, `notebooks`) need not import Pillow, pypdf and pypdfium2.
This measures what a user waits for: the whole `python -m transcribe_import ...`
process, from exec to exit, for two source trees run with the same interpreter:

  bare     `python -c pass`: the interpreter's own start-up, the reference
  before   the tree before the refactor (--before, default /work/before)
  after    the tree being measured (--after, default this repository)

In one run, under a temporary directory removed at the end (unless --keep):

1. A corpus with 200 import runs (--import-runs), made through the BEFORE tree's
   engine in one child process: 200 tiny plans (one notebook of two 8x8 JPEGs each,
   distinct bytes), each planned, prepared and executed like `commit` does. The on-disk
   format is unchanged by the refactor; both trees' JSON outputs are compared below.
2. `--data-dir D runs --json`, `show RUN_ID --json`, `notebooks --json`: median wall time
   of --runs runs per side (at least 7), interleaved (bare, before, after, in a rotating
   order, one run of each per round), after one untimed warm-up per side (.pyc written,
   page cache warm). Each command's JSON is compared between the trees.
3. `plan SHELF -o plan.json` on a small shelf (20 folders x 5 tiny JPEGs): it needs the
   media libraries, so any gain there is small.
4. `python -X importtime` of `runs --json` for each tree (median of 5): the total import
   time, and the part spent importing PIL, pypdf and pypdfium2 (the cumulative time of
   each outermost import of those packages).

Each side runs in its own process with PYTHONPATH=<tree>/app (checked: the tree's
`transcribe_import` is the one imported, not the editable install), cwd in the temp dir.
Results go to the "## CLI start-up (bench/bench_cli.py)" section of bench/RESULTS.md
with --write only. --snapshot times copies of both trees' app/ taken at the start, for
while others are editing them. Every process has a timeout; exit 2 (nothing written) when
a side fails, with its stderr's tail; exit 1 when outputs differ or the corpus changed.

    .venv/bin/python bench/bench_cli.py [--before /work/before] [--after .] [--runs 15]
        [--snapshot] [--write]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_results import replace_section  # noqa: E402 - beside this script

BENCH = Path(__file__).resolve().parent
HEADING = "## CLI start-up (bench/bench_cli.py)"
MEDIA_LIBS = ("PIL", "pypdf", "pypdfium2")
TIMEOUT_S = 120  # any one timed process; the corpus build has its own, longer bound
BUILD_TIMEOUT_S = 900
IMPORTTIME_RUNS = 5


class BenchError(Exception):
    """A side could not be run: one clear line (and the child's stderr tail) for the user."""


# -- the data: tiny JPEGs, the shelf, the corpus ------------------------------------------------


def _tiny_jpeg() -> bytes:
    from PIL import Image  # the bench process only: the timed children import what they import

    buf = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 190, 170)).save(buf, "JPEG", quality=75)
    return buf.getvalue()


def write_pages(root: Path, folders: int, per_folder: int, counter_start: int) -> int:
    """folders x per_folder tiny valid JPEGs; bytes after the end-of-image marker differ per
    file (decoders ignore them), so every hash differs and nothing is a duplicate."""
    tiny = _tiny_jpeg()
    n = counter_start
    for k in range(1, folders + 1):
        folder = root / f"notebook {k:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        for j in range(1, per_folder + 1):
            (folder / f"page {j:02d}.jpg").write_bytes(tiny + n.to_bytes(4, "big"))
            n += 1
    return n


def child_build(tree: Path, data_dir: Path, src: Path) -> dict[str, Any]:
    """In a child with the BEFORE tree first on sys.path: one committed run per folder of src."""
    sys.path.insert(0, str(tree / "app"))
    import transcribe_import

    _check_origin(transcribe_import.__file__, tree)
    from transcribe_import.engine import ordering
    from transcribe_import.engine.commit import execute_run, prepare_run
    from transcribe_import.engine.corpus import Corpus
    from transcribe_import.engine.planner import build_plan
    from transcribe_import.engine.runs import RunStatus
    from transcribe_import.engine.scan import run_scan

    corpus = Corpus.open(data_dir)
    t0 = time.perf_counter()
    folders = sorted(p for p in src.iterdir() if p.is_dir())
    for folder in folders:
        plan = build_plan(corpus, run_scan([folder], workers=1), mode="folders")
        for it in plan.items:
            if ordering.find_ambiguities(it):
                plan = plan.with_item(ordering.accept(it))
        assert len(plan.items) == 1, (folder, len(plan.items))
        record, existing = prepare_run(corpus, plan)
        assert not existing
        result = execute_run(corpus, record.run_id, workers=1)
        if result.status is not RunStatus.COMPLETE:
            raise RuntimeError(f"run of {folder} ended {result.status}")
    return {"runs": len(folders), "seconds": round(time.perf_counter() - t0, 2)}


def _check_origin(module_file: str | None, tree: Path) -> None:
    want = (tree / "app" / "transcribe_import").resolve()
    got = Path(module_file or "?").resolve().parent
    if got != want:
        raise SystemExit(f"transcribe_import came from {got}, not {want}")


# -- running sides ------------------------------------------------------------------------------


class Side:
    def __init__(self, name: str, tree: Path | None, cwd: Path) -> None:
        self.name = name
        self.tree = tree
        self.cwd = cwd
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        if tree is not None:
            self.env["PYTHONPATH"] = str(tree / "app")

    def argv(self, cli_args: list[str], importtime: bool = False) -> list[str]:
        if self.tree is None:
            return [sys.executable, "-c", "pass"]
        return [
            sys.executable,
            *(["-X", "importtime"] if importtime else []),
            "-m",
            "transcribe_import",
            *cli_args,
        ]

    def run(
        self, cli_args: list[str], importtime: bool = False, timeout: float = TIMEOUT_S
    ) -> tuple[float, bytes, str]:
        argv = self.argv(cli_args, importtime)
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(
                argv, cwd=self.cwd, env=self.env, capture_output=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            raise BenchError(f"{self.name}: {' '.join(argv[1:])} took over {timeout} s") from None
        seconds = time.perf_counter() - t0
        stderr = proc.stderr.decode("utf-8", "replace")
        if proc.returncode != 0:
            tail = "\n".join(stderr.strip().splitlines()[-15:])
            raise BenchError(
                f"{self.name}: `{' '.join(argv[1:])}` exited {proc.returncode}:\n{tail}"
            )
        return seconds, proc.stdout, stderr

    def check_origin(self) -> str:
        """The tree's transcribe_import, imported the way the timed runs import it."""
        code = "import transcribe_import as t, transcribe_import.cli; print(t.__file__)"
        proc = subprocess.run(
            [sys.executable, "-c", code],
            cwd=self.cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
        if proc.returncode != 0:
            tail = "\n".join(proc.stderr.strip().splitlines()[-8:])
            raise BenchError(f"{self.name}: cannot import transcribe_import.cli:\n{tail}")
        assert self.tree is not None
        want = (self.tree / "app" / "transcribe_import" / "__init__.py").resolve()
        got = Path(proc.stdout.splitlines()[0]).resolve()
        if got != want:
            raise BenchError(f"{self.name}: transcribe_import is {got}, not {want}")
        return str(got)


def media_import_us(stderr: str) -> tuple[int, int, int, list[str]]:
    """From `-X importtime` output: (total import time, time of the outermost imports of
    PIL/pypdf/pypdfium2, in microseconds; how many modules of those packages; the project
    modules importing them, e.g. "transcribe_import.engine.planning.plan > ...media.decode").

    Lines come child before parent; reading them backwards gives each line's ancestors."""
    rows: list[tuple[int, int, str]] = []
    for line in stderr.splitlines():
        if not line.startswith("import time:"):
            continue
        parts = line[len("import time:") :].split("|")
        if len(parts) != 3 or not parts[0].strip().isdigit():
            continue
        raw = parts[2].rstrip()
        name = raw.lstrip()
        depth = (len(raw) - len(name) - 1) // 2
        rows.append((depth, int(parts[1]), name))
    total = media = count = 0
    via: list[str] = []
    stack: list[str] = []
    for depth, cumulative, name in reversed(rows):
        del stack[depth:]
        if depth == 0:
            total += cumulative
        if name.split(".")[0] in MEDIA_LIBS:
            count += 1
            if not any(a.split(".")[0] in MEDIA_LIBS for a in stack):
                media += cumulative
                ours = [a for a in stack if a.startswith("transcribe_import.")]
                chain = " > ".join(ours[-2:]) if ours else "(not the project)"
                if chain not in via:
                    via.append(chain)
        stack.append(name)
    return total, media, count, via


# -- comparing outputs --------------------------------------------------------------------------


def _sorted_lists(doc: Any) -> Any:
    if isinstance(doc, dict):
        return {k: _sorted_lists(v) for k, v in doc.items()}
    if isinstance(doc, list):
        items = [_sorted_lists(v) for v in doc]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
    return doc


# Keys the refactor's tree added on purpose (an empty value means nothing to tell):
# `notebooks --json` lists why a listing may be incomplete (a damaged index).
_ADDED_KEYS = {"problems": []}


def compare_json(a: bytes, b: bytes) -> str:
    da, db = json.loads(a), json.loads(b)
    added = ""
    if isinstance(db, dict):
        for key, empty in _ADDED_KEYS.items():
            if key in db and key not in da and db[key] == empty:
                db = {k: v for k, v in db.items() if k != key}
                added = f" (after adds an empty `{key}`)"
    if da == db:
        return "identical" + added
    if _sorted_lists(da) == _sorted_lists(db):
        return "identical up to ordering" + added
    return "DIFFERENT"


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _plan_shape(path: Path) -> Any:
    """A plan document with what is fresh on every run taken out (every UUID, created_at,
    and the fingerprint over them); the rest must not differ between the trees."""

    def strip(d: Any) -> Any:
        if isinstance(d, dict):
            return {
                k: strip(v) for k, v in d.items() if k not in ("created_at", "plan_fingerprint")
            }
        if isinstance(d, list):
            return [strip(v) for v in d]
        if isinstance(d, str):
            return _UUID.sub("<id>", d)
        return d

    return strip(json.loads(path.read_bytes()))


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under root but lock files: size and mtime (the read commands must not write)."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.name.endswith(".lock"):
            st = p.stat()
            out[str(p.relative_to(root))] = (st.st_size, st.st_mtime_ns)
    return out


# -- the benchmark ------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, default=Path("/work/before"))
    ap.add_argument("--after", type=Path, default=BENCH.parent)
    ap.add_argument("--runs", type=int, default=15, help="timed runs per side and command (>= 7)")
    ap.add_argument("--plan-runs", type=int, help="timed runs of `plan` (>= 5; default --runs)")
    ap.add_argument("--import-runs", type=int, default=200, help="import runs in the corpus")
    ap.add_argument("--shelf", default="20x5", help="plan's shelf: FOLDERSxPAGES")
    ap.add_argument("--write", action="store_true", help="write the section of RESULTS.md")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument(
        "--snapshot",
        action="store_true",
        help="time copies of the trees' app/ made at the start (while others edit them)",
    )
    ap.add_argument("--child", choices=["build"], help=argparse.SUPPRESS)
    ap.add_argument("--tree", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--data-dir", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--src", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child == "build":
        print(json.dumps(child_build(args.tree, args.data_dir, args.src)))
        return 0
    if args.runs < 7:
        ap.error("--runs must be at least 7")
    args.plan_runs = args.plan_runs or args.runs
    if args.plan_runs < 5:
        ap.error("--plan-runs must be at least 5")
    shelf_folders, _, shelf_pages = args.shelf.partition("x")
    args.shelf_folders, args.shelf_pages = int(shelf_folders), int(shelf_pages)
    for t in (args.before, args.after):
        if not (t / "app" / "transcribe_import" / "__init__.py").exists():
            ap.error(f"{t} has no app/transcribe_import")

    tmp = Path(tempfile.mkdtemp(prefix="bench-cli-"))
    try:
        summary = run_bench(args, tmp)
    except BenchError as exc:
        print(f"bench_cli: {exc}", file=sys.stderr)
        return 2
    finally:
        if args.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(summary, indent=2))
    if args.write:
        record(summary, args)
        print(f"wrote {HEADING!r} in {BENCH / 'RESULTS.md'}", file=sys.stderr)
    bad = [c for c, v in summary["commands"].items() if v["outputs"] == "DIFFERENT"]
    if bad or summary["corpus_changed"]:
        print(
            f"bench_cli: outputs differ for {bad} / corpus changed: {summary['corpus_changed']}",
            file=sys.stderr,
        )
        return 1
    return 0


def tree_state(tree: Path) -> str:
    """The tree's commit, and whether its app/ has uncommitted changes (read-only git calls)."""
    try:
        head = subprocess.run(
            ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(tree), "status", "--porcelain", "--", "app"],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "not a git checkout"
    if not head:
        return "not a git checkout"
    return f"commit {head}" + (
        f", {len(dirty.splitlines())} files changed in app/" if dirty else ""
    )


def log(*a: Any) -> None:
    print(*a, file=sys.stderr, flush=True)


def run_bench(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    data = tmp / "data"
    src = tmp / "runs-src"
    shelf = tmp / "shelf"
    out = tmp / "out"
    out.mkdir()
    load_start = os.getloadavg()[0]
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    args.tree_states = {name: tree_state(t) for name, t in trees.items()}
    if args.snapshot:
        # One consistent state of each tree for the whole run, though others edit it meanwhile.
        for name, t in trees.items():
            copy = tmp / "trees" / name
            shutil.copytree(t / "app", copy / "app", ignore=shutil.ignore_patterns("__pycache__"))
            trees[name] = copy
            log(f"{name}: {t} copied to {copy} ({args.tree_states[name]})")
    sides = [
        Side("bare", None, tmp),
        Side("before", trees["before"], tmp),
        Side("after", trees["after"], tmp),
    ]
    bare, before, after = sides
    for s in (before, after):
        log(f"{s.name}: {s.check_origin()}")

    # 1. the corpus, through the BEFORE tree's engine; and the shelf the plan command scans
    t0 = time.perf_counter()
    n = write_pages(src, args.import_runs, 2, 0)
    write_pages(shelf, args.shelf_folders, args.shelf_pages, n)
    proc = subprocess.run(
        [
            sys.executable,
            __file__,
            "--child",
            "build",
            "--tree",
            str(before.tree),
            "--data-dir",
            str(data),
            "--src",
            str(src),
        ],
        cwd=tmp,
        env=before.env,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
    )
    if proc.returncode != 0:
        raise BenchError(f"building the corpus failed:\n{proc.stderr[-3000:]}")
    built = json.loads(proc.stdout.strip().splitlines()[-1])
    log(
        f"corpus: {built['runs']} runs committed in {built['seconds']} s "
        f"({time.perf_counter() - t0:.1f} s with the pages)"
    )

    dd = ["--data-dir", str(data)]
    _, runs_out, _ = before.run([*dd, "runs", "--json"])
    run_ids = [r["import_run_id"] for r in json.loads(runs_out)["runs"]]
    if len(run_ids) != args.import_runs:
        raise BenchError(f"the corpus lists {len(run_ids)} runs, not {args.import_runs}")
    show_id = run_ids[len(run_ids) // 2]
    commands: dict[str, list[str]] = {
        "runs --json": [*dd, "runs", "--json"],
        "show RUN_ID --json": [*dd, "show", show_id, "--json"],
        "notebooks --json": [*dd, "notebooks", "--json"],
    }

    # warm-up (compiles .pyc, warms the page cache), outputs compared between the trees
    outputs: dict[str, str] = {}
    for label, cli in commands.items():
        bare.run([])
        _, a, _ = before.run(cli)
        _, b, _ = after.run(cli)
        outputs[label] = compare_json(a, b)
        log(f"{label}: outputs {outputs[label]} ({len(a):,} bytes)")
    plan_out = {s.name: out / f"warm-{s.name}.json" for s in (before, after)}
    for s in (before, after):
        s.run([*dd, "plan", str(shelf), "-o", str(plan_out[s.name])])
    shapes = [_plan_shape(p) for p in plan_out.values()]
    outputs["plan SHELF -o plan.json"] = "identical" if shapes[0] == shapes[1] else "DIFFERENT"
    log(f"plan: documents {outputs['plan SHELF -o plan.json']} (fresh ids and times aside)")
    before_snap = snapshot(data)

    # 2-4. timed, interleaved: every round runs each side once per command, order rotating
    times: dict[str, dict[str, list[float]]] = {
        label: {s.name: [] for s in sides} for label in [*commands, "plan SHELF -o plan.json"]
    }
    rounds = max(args.runs, args.plan_runs)
    for i in range(rounds):
        order = sides[i % 3 :] + sides[: i % 3]
        for label, cli in commands.items():
            if i < args.runs:
                for s in order:
                    times[label][s.name].append(s.run(cli)[0])
        if i < args.plan_runs:
            for s in order:
                cli = [*dd, "plan", str(shelf), "-o", str(out / f"plan-{s.name}-{i}.json")]
                times["plan SHELF -o plan.json"][s.name].append(s.run(cli)[0])
        log(
            f"round {i + 1}/{rounds}: "
            + ", ".join(
                f"{s.name} {times['runs --json'][s.name][-1] * 1000:.0f} ms"
                for s in sides
                if i < args.runs
            )
            + " (runs --json)"
        )

    importtime: dict[str, dict[str, Any]] = {}
    for s in (before, after):
        samples = [
            media_import_us(s.run(commands["runs --json"], importtime=True)[2])
            for _ in range(IMPORTTIME_RUNS)
        ]
        importtime[s.name] = {
            "total_ms": round(statistics.median(x[0] for x in samples) / 1000, 1),
            "media_ms": round(statistics.median(x[1] for x in samples) / 1000, 1),
            "media_modules": samples[0][2],
            "media_via": samples[0][3],
        }
        log(f"{s.name} importtime: {importtime[s.name]}")
    changed = snapshot(data) != before_snap

    result: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d"),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "import_runs": args.import_runs,
        "shelf": [args.shelf_folders, args.shelf_pages],
        "build_s": built["seconds"],
        "load_1min": [round(load_start, 2), round(os.getloadavg()[0], 2)],
        "corpus_changed": changed,
        "importtime": importtime,
        "commands": {},
    }
    for label, by_side in times.items():
        med = {name: statistics.median(v) for name, v in by_side.items()}
        result["commands"][label] = {
            "runs": len(by_side["before"]),
            "median_ms": {k: round(v * 1000, 1) for k, v in med.items()},
            "min_ms": {k: round(min(v) * 1000, 1) for k, v in by_side.items()},
            "before_over_bare": round(med["before"] / med["bare"], 1),
            "after_over_bare": round(med["after"] / med["bare"], 1),
            "after_over_before": round(med["after"] / med["before"], 2),
            "outputs": outputs[label],
        }
    return result


# -- RESULTS.md ---------------------------------------------------------------------------------


def record(s: dict[str, Any], args: argparse.Namespace) -> None:
    rows = "\n".join(
        f"| `{label}` | {v['median_ms']['bare']:.0f} ms | {v['median_ms']['before']:.0f} ms "
        f"({v['before_over_bare']}x) | {v['median_ms']['after']:.0f} ms ({v['after_over_bare']}x) "
        f"| **{v['after_over_before']}** | {v['runs']} | {v['outputs']} |"
        for label, v in s["commands"].items()
    )
    it_rows = "\n".join(
        f"| {name} | {v['total_ms']} ms | {v['media_ms']} ms | {v['media_modules']} "
        f"| {'; '.join(f'`{c}`' for c in v['media_via']) or 'none'} |"
        for name, v in s["importtime"].items()
    )
    copied = ", both copied at the start (--snapshot)" if args.snapshot else ""
    rerun = (
        f".venv/bin/python bench/bench_cli.py --before {args.before} --after {args.after} "
        f"--runs {args.runs}{' --snapshot' if args.snapshot else ''} --write"
    )
    section = f"""{HEADING}

Run {s["date"]} on {s["cores"]} cores, Python {s["python"]} ({s["platform"]}),
before = `{args.before}` ({args.tree_states["before"]}),
after = `{args.after}` ({args.tree_states["after"]}){copied}.
Whole-process wall time of `python -m transcribe_import --data-dir D ...`, each run its
own process, median of the runs, interleaved (bare, before, after in a rotating order),
after one untimed warm-up per side; bare = `python -c pass` in the same rounds.
1-minute load average {s["load_1min"][0]} at the start, {s["load_1min"][1]} at the end.
The corpus: {s["import_runs"]} import runs of one notebook of 2 tiny JPEGs each, committed
through the before tree's engine ({s["build_s"]} s); plan's shelf:
{s["shelf"][0]} folders x {s["shelf"][1]} tiny JPEGs.

| command | bare | before (/ bare) | after (/ bare) | after / before | runs | JSON before vs after |
| --- | --- | --- | --- | --- | --- | --- |
{rows}

`python -X importtime` of `runs --json`, median of {IMPORTTIME_RUNS} (with importtime's overhead):

| tree | all imports | Pillow, pypdf, pypdfium2 | their modules | imported by |
| --- | --- | --- | --- | --- |
{it_rows}

The read commands left the corpus {"CHANGED (a bug)" if s["corpus_changed"] else "unchanged"}.
The plan documents are compared with their fresh ids and times taken out.

    {rerun}
"""
    replace_section(BENCH / "RESULTS.md", HEADING, section)


if __name__ == "__main__":
    sys.exit(main())
