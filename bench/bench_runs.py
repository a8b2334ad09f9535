"""Benchmarks of import runs: a realistic commit, and resuming a run that is almost done.

1. Commit: 20 notebooks x 50 pages (A5 notebook scans at 200 dpi) through plan,
   validate and commit with --workers 2, against the storage benchmark's
   reference (read+hash, copy, decode at reduced size, write PNG; one thread)
   over the same files, measured in the same run, each side in its own process.
2. Resume: a run of 1,000 one-page items paused after 999 committed; resuming
   must verify the committed items, not redo or re-hash them. Reported: the
   resume's wall time, its file-system operations (counted through fsio) and the
   bytes it hashed, against committing that one last item alone.

    .venv/bin/python bench/bench_runs.py [--notebooks 20 --pages 50] [--items 1000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "app"))

from bench_ingest import WORK, _scan, peak_rss_mib, side_reference  # noqa: E402
from bench_results import replace_section  # noqa: E402

A5_200DPI = (1165, 1654)


def make_tree(notebooks: int, pages: int) -> Path:
    root = WORK / f"runs-{notebooks}x{pages}"
    done = root / ".complete"
    if done.exists():
        return root
    for n in range(1, notebooks + 1):
        d = root / f"notebook {n:02d}"
        d.mkdir(parents=True, exist_ok=True)
        for p in range(1, pages + 1):
            img = _scan(n * 1000 + p, A5_200DPI)
            img.save(d / f"page {p}.jpg", quality=85, dpi=(200, 200))
    done.write_text("ok")
    return root


def side_commit(tree: Path, out: Path) -> dict[str, float]:
    from transcribe_import.engine.planning import ordering
    from transcribe_import.engine.planning.planner import build_plan
    from transcribe_import.engine.planning.scan import run_scan
    from transcribe_import.engine.planning.validate import validate
    from transcribe_import.engine.runs.executor import execute_run
    from transcribe_import.engine.runs.model import RunStatus
    from transcribe_import.engine.runs.service import prepare_run
    from transcribe_import.engine.storage.corpus import Corpus

    corpus = Corpus.open(out)
    t0 = time.perf_counter()
    plan = build_plan(corpus, run_scan([tree]), mode="folders")
    t_plan = time.perf_counter() - t0
    for it in plan.items:
        if ordering.find_ambiguities(it):
            plan = plan.with_item(ordering.accept(it))
    t1 = time.perf_counter()
    assert validate(corpus, plan).ok
    t_validate = time.perf_counter() - t1
    t2 = time.perf_counter()
    record, _ = prepare_run(corpus, plan)
    result = execute_run(corpus, record.run_id, workers=2)
    t_commit = time.perf_counter() - t2
    assert result.status is RunStatus.COMPLETE
    return {
        "plan_s": t_plan,
        "validate_s": t_validate,
        "commit_s": t_commit,
        "seconds": time.perf_counter() - t0,
    }


def side_ref(tree: Path, out: Path) -> dict[str, float]:
    files = sorted(tree.rglob("*.jpg"))
    t0 = time.perf_counter()
    side_reference(files, None, out)
    return {"seconds": time.perf_counter() - t0}


def bench_resume(items: int) -> dict[str, float]:
    """Pause a run of `items` one-page items after items-1 commits, then time the resume."""
    from PIL import Image

    from transcribe_import.engine.planning import ordering
    from transcribe_import.engine.planning.planner import build_plan
    from transcribe_import.engine.planning.scan import run_scan
    from transcribe_import.engine.runs.executor import EventKind, RunControl, execute_run
    from transcribe_import.engine.runs.model import RunStatus
    from transcribe_import.engine.runs.service import prepare_run
    from transcribe_import.engine.storage import fsio
    from transcribe_import.engine.storage.corpus import Corpus

    src = WORK / f"resume-{items}"
    if not (src / ".complete").exists():
        for i in range(items):
            d = src / f"nb {i:04d}"
            d.mkdir(parents=True, exist_ok=True)
            Image.new("RGB", (64, 90), (i % 256, (i * 7) % 256, 200)).save(d / "page 1.png")
        (src / ".complete").write_text("ok")
    with tempfile.TemporaryDirectory(dir=WORK) as d:
        corpus = Corpus.open(Path(d))
        plan = build_plan(corpus, run_scan([src]), mode="folders")
        for it in plan.items:
            if ordering.find_ambiguities(it):
                plan = plan.with_item(ordering.accept(it))
        record, _ = prepare_run(corpus, plan)
        control = RunControl()
        done = [0]

        def on_event(ev) -> None:  # noqa: ANN001
            if ev.kind is EventKind.ITEM_FINISHED:
                done[0] += 1
                if done[0] == items - 1:
                    control.pause()

        t0 = time.perf_counter()
        first = execute_run(corpus, record.run_id, workers=1, control=control, on_event=on_event)
        t_first = time.perf_counter() - t0
        assert first.paused and first.record.counts()["committed"] == items - 1

        counter = fsio.FaultPlan(fail_at=10**12)
        hashed = [0]
        real_hash = fsio.hash_file

        def counting_hash(path):  # noqa: ANN001, ANN202
            sha, size = real_hash(path)
            hashed[0] += size
            return sha, size

        fsio.hash_file = counting_hash
        fsio.install_faults(counter)
        t1 = time.perf_counter()
        second = execute_run(Corpus.open(Path(d)), record.run_id, workers=2)
        t_resume = time.perf_counter() - t1
        fsio.install_faults(None)
        fsio.hash_file = real_hash
        assert second.status is RunStatus.COMPLETE
        ops_by_kind: dict[str, int] = {}
        for op in counter.ops:
            ops_by_kind[op] = ops_by_kind.get(op, 0) + 1
    return {
        "items": items,
        "first_s": t_first,
        "per_item_s": t_first / (items - 1),
        "resume_s": t_resume,
        "resume_fs_ops": counter.count,
        "resume_ops_by_kind": ops_by_kind,
        "resume_bytes_hashed": hashed[0],
    }


def _child(side: str, args: argparse.Namespace) -> None:
    tree = make_tree(args.notebooks, args.pages)
    with tempfile.TemporaryDirectory(dir=WORK) as out:
        res = side_commit(tree, Path(out)) if side == "commit" else side_ref(tree, Path(out))
    res["peak_mib"] = peak_rss_mib()
    print(json.dumps(res))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notebooks", type=int, default=20)
    ap.add_argument("--pages", type=int, default=50)
    ap.add_argument("--items", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--child", choices=["commit", "reference"])
    ap.add_argument("--no-record", action="store_true")
    args = ap.parse_args()
    WORK.mkdir(exist_ok=True)
    if args.child:
        _child(args.child, args)
        return
    make_tree(args.notebooks, args.pages)
    runs: dict[str, list[dict[str, float]]] = {"reference": [], "commit": []}
    for _ in range(args.repeat):
        for side in ("reference", "commit"):
            proc = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--child",
                    side,
                    "--notebooks",
                    str(args.notebooks),
                    "--pages",
                    str(args.pages),
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            runs[side].append(json.loads(proc.stdout.strip().splitlines()[-1]))
            print(side, runs[side][-1], file=sys.stderr)
    ref = statistics.median(r["seconds"] for r in runs["reference"])
    com = statistics.median(r["seconds"] for r in runs["commit"])
    commit_only = statistics.median(r["commit_s"] for r in runs["commit"])
    pages = args.notebooks * args.pages
    resume = bench_resume(args.items)
    summary = {
        "pages": pages,
        "reference_s": round(ref, 2),
        "plan_validate_commit_s": round(com, 2),
        "commit_s": round(commit_only, 2),
        "plan_s": round(statistics.median(r["plan_s"] for r in runs["commit"]), 2),
        "validate_s": round(statistics.median(r["validate_s"] for r in runs["commit"]), 2),
        "ratio_commit": round(commit_only / ref, 2),
        "ratio_all": round(com / ref, 2),
        "commit_pages_per_s": round(pages / commit_only, 1),
        "peak_commit_mib": round(max(r["peak_mib"] for r in runs["commit"])),
        "peak_reference_mib": round(max(r["peak_mib"] for r in runs["reference"])),
        **{f"resume_{k}": (round(v, 3) if isinstance(v, float) else v) for k, v in resume.items()},
    }
    print(json.dumps(summary, indent=2))
    if not args.no_record:
        _record(summary, args)


def _record(s: dict, args: argparse.Namespace) -> None:
    import os
    import platform

    section = f"""## Import runs (bench/bench_runs.py)

Run {time.strftime("%Y-%m-%d")} on {os.cpu_count()} cores, Python {platform.python_version()},
median of {args.repeat} alternating runs per side, each side in its own process.

**Commit** of {args.notebooks} notebooks x {args.pages} pages (A5 scans at 200 dpi, JPEG),
`--workers 2`, against the storage benchmark's reference (read+hash, copy, decode at reduced
size, write PNG; one thread) over the same {s["pages"]} files:

| measure | value |
| --- | --- |
| reference | {s["reference_s"]} s |
| commit alone | {s["commit_s"]} s ({s["commit_pages_per_s"]} pages/s) |
| scan + plan, validate | {s["plan_s"]} s, {s["validate_s"]} s |
| plan + validate + commit | {s["plan_validate_commit_s"]} s |
| **ratio commit / reference** | **{s["ratio_commit"]}** |
| ratio plan+validate+commit / reference | {s["ratio_all"]} |
| peak RSS commit / reference | {s["peak_commit_mib"]} MiB / {s["peak_reference_mib"]} MiB |

**Resume** of a run of {s["resume_items"]} one-page items paused after {s["resume_items"] - 1}
were committed: the resume took {s["resume_resume_s"]} s, with {s["resume_resume_fs_ops"]}
file-system operations ({s["resume_resume_ops_by_kind"]}) and
{s["resume_resume_bytes_hashed"]} bytes re-hashed: committed items are verified from their
notebooks' manifests, never re-hashed (the remaining item's bytes are hashed while copied).
Committing one item costs {s["resume_per_item_s"]} s on average in the same run;
the first {s["resume_items"] - 1} items took {s["resume_first_s"]} s.
"""
    replace_section(BENCH / "RESULTS.md", "## Import runs (bench/bench_runs.py)", section)


if __name__ == "__main__":
    main()
