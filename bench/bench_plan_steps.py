"""The CPU of each step of a plan's own Python, alone: building, ordering, checking, loading.

    python bench/bench_plan_steps.py PLAN.json [RUNS]

Run with the code to measure first on PYTHONPATH (main's or a branch's). Each step runs RUNS
times (3) in this process on the plan in PLAN.json (a warm plan: bench/_work/warm-5000 or
warm-20000, its looks made), and the least ``time.process_time`` of the runs is printed, in
milliseconds. ``build_plan`` plans the plan's own files again as a scan would list them
(nothing read from the disk, no corpus). The name readings ``ordering/names`` keeps are
forgotten before the steps that read names, so each of those starts as a new process would.
bench/RESULTS.md holds its figures.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson

from transcribe_import.engine.base import text
from transcribe_import.engine.planning import look_pass, planner
from transcribe_import.engine.planning import plan as plans
from transcribe_import.engine.planning.ordering import checks, names
from transcribe_import.engine.planning.plan_document import fingerprint_of
from transcribe_import.engine.planning.scan import ScannedFile, ScanResult


def forget_names() -> None:
    """The name readings kept (none before they were kept) forgotten."""
    kept = [getattr(names, n, None) for n in dir(names)] + [text.name_parts]
    for f in kept:
        if callable(getattr(f, "cache_clear", None)) and f is not text._folder_parts:
            f.cache_clear()  # type: ignore[union-attr]


def least_cpu(label: str, step: Callable[[], Any], runs: int) -> None:
    best = float("inf")
    for _ in range(runs):
        gc.collect()
        start = time.process_time()
        step()
        best = min(best, time.process_time() - start)
    print(f"{label:40s} {best * 1000:8.1f} ms")


def scan_of(plan: plans.ImportPlan) -> ScanResult:
    """The plan's files as a scan lists them (looks not yet made)."""
    root = Path(plan.provenance["roots"][0])
    files = []
    for item in plan.items:
        for s in item.sources:
            p = s.provenance
            files.append(
                ScannedFile(
                    p.fs_path,
                    root,
                    p.rel,
                    p.size,
                    p.mtime,
                    p.mtime_ns,
                    s.media_type,
                    len(s.pages),
                    p.captured_at,
                    p.width,
                    p.height,
                    s.sha256,
                    None,
                    (),
                    p.dpi,
                )  # fmt: skip
            )
    return ScanResult((root,), tuple(files), ())


def main(path: Path, runs: int) -> None:
    raw = path.read_bytes()
    doc = orjson.loads(raw)
    plan = plans.load_plan(path)
    scan = scan_of(plan)
    looks = {
        look_pass.page_key(s.sha256, p.page_index): p.look
        for item in plan.items
        for s in item.sources
        for p in s.pages
    }
    unlooked = replace(
        plan,
        items=tuple(
            replace(
                item,
                sources=tuple(
                    replace(s, pages=tuple(replace(p, look=None) for p in s.pages))
                    for s in item.sources
                ),
            )
            for item in plan.items
        ),
    )

    def fresh() -> plans.ImportPlan:
        return plans.ImportPlan(plan.plan_id, plan.import_policy_id, plan.items, plan.provenance)

    steps: list[tuple[str, Callable[[], Any]]] = [
        ("build_plan (no corpus)", lambda: (forget_names(), planner.build_plan(None, scan))),
        (
            "propose_order (every notebook)",
            lambda: (forget_names(), [names.propose_order(it.sources) for it in plan.items]),
        ),
        (
            "find_ambiguities (every notebook)",
            lambda: (forget_names(), [checks.find_ambiguities(it) for it in plan.items]),
        ),
        (
            "find_ambiguities (names new to each)",
            lambda: [(forget_names(), checks.find_ambiguities(it)) for it in plan.items],
        ),
        ("load_plan", lambda: plans.load_plan(path)),
        ("  plan_from_document", lambda: plans.plan_from_document(orjson.loads(raw), "x")),
        ("  nested_deeper_than", lambda: plans.nested_deeper_than(doc, plans.MAX_PLAN_DEPTH)),
        ("  fingerprint_of (the file's check)", lambda: fingerprint_of(doc)),
        ("a new plan's fingerprint", lambda: fresh().fingerprint),
        ("a new plan saved (encode_parts)", lambda: fresh().encode_parts()),
        ("with_looks (every page)", lambda: look_pass.with_looks(unlooked, looks)),
    ]
    for label, step in steps:
        least_cpu(label, step, runs)


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 3)
