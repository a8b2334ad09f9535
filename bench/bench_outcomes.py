"""Benchmark: the cost of writing one item outcome, against the size of the plan.

A run's record lists every item's outcome, and `RunStore.record_outcome` rewrites the
record (read, check the fence, atomic replace, index) for each one. This measures that
write for plans of 100, 10,000 and 100,000 one-page items: wall time per outcome and
the record's size, so that an O(1) outcome write (issue 14, finding 11) can be checked
against it.

    .venv/bin/python bench/bench_outcomes.py [--sizes 100 10000 100000] [--writes 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent / "app"))

from bench_results import RESULTS, replace_section  # noqa: E402

HEADING = "## Outcome writes against plan size"


def synthetic_plan(items: int):  # type: ignore[no-untyped-def]
    """A plan of ``items`` one-page items (no file is read: only the store is measured)."""
    from transcribe_import.engine.base.ids import new_id
    from transcribe_import.engine.planning.plan import (
        DEFAULT_POLICY_ID,
        ImportPlan,
        Op,
        PlanItem,
        PlanPage,
        PlanSource,
        SourceProvenance,
    )

    out = []
    for k in range(items):
        source = PlanSource(
            new_id(),
            f"{k:064x}",
            "image/jpeg",
            (PlanPage(new_id(), new_id(), 0),),
            SourceProvenance(f"/shelf/nb {k}/page 1.jpg", f"nb {k}/page 1.jpg", 1000, "", 0),
        )
        out.append(PlanItem(new_id(), Op.CREATE_NOTEBOOK, new_id(), f"nb {k}", (source,)))
    return ImportPlan(new_id(), DEFAULT_POLICY_ID, tuple(out))


def measure(items: int, writes: int) -> dict[str, float]:
    from transcribe_import.engine.base.clock import utc_now
    from transcribe_import.engine.runs.model import ItemOutcome, ItemState
    from transcribe_import.engine.runs.store import RunStore
    from transcribe_import.engine.storage.corpus import Corpus

    plan = synthetic_plan(items)
    with tempfile.TemporaryDirectory(prefix="bench-outcomes-") as d:
        corpus = Corpus.open(Path(d))
        store = RunStore(corpus)
        with corpus.locked():
            record = store.create(plan)
        record = store.begin_attempt(record.run_id)
        times = []
        for it in plan.items[:writes]:
            outcome = ItemOutcome(
                it.item_id,
                ItemState.COMMITTED,
                it.notebook_id,
                (it.sources[0].source_id,),
                1,
                updated_at=utc_now(),
            )
            start = time.perf_counter()
            store.record_outcome(record.run_id, record.attempt, outcome)
            times.append(time.perf_counter() - start)
        size = store.record_path(record.run_id).stat().st_size
    return {
        "items": items,
        "writes": len(times),
        "median_ms": statistics.median(times) * 1000,
        "max_ms": max(times) * 1000,
        "record_mib": size / 1_048_576,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 10_000, 100_000])
    ap.add_argument("--writes", type=int, default=20)
    args = ap.parse_args()
    rows = []
    for n in args.sizes:
        r = measure(n, min(args.writes, n))
        print(
            f"{n:>7} items: {r['median_ms']:8.1f} ms per outcome (max {r['max_ms']:.1f}), "
            f"record {r['record_mib']:.1f} MiB",
            flush=True,
        )
        rows.append(r)
    lines = [
        HEADING,
        "",
        "`bench/bench_outcomes.py`: one `RunStore.record_outcome` (the write the executor makes",
        "for every item it finishes) in a run of N one-page items, on this machine's temp disk,",
        "median of the first writes of the run.",
        "",
        "| plan items | outcome writes timed | median per write | slowest | run record |",
        "| ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(
            f"| {int(r['items']):,} | {int(r['writes'])} | {r['median_ms']:.1f} ms | "
            f"{r['max_ms']:.1f} ms | {r['record_mib']:.1f} MiB |"
        )
    lines += [
        "",
        "Each write re-reads, re-checks and rewrites the whole record, so its cost grows with",
        "the plan (O(plan size) per outcome). The append-only outcomes log that would make it",
        "O(1) is not built yet; these numbers are the baseline it is to be measured against.",
        "",
    ]
    replace_section(RESULTS, HEADING, "\n".join(lines))


if __name__ == "__main__":
    main()
