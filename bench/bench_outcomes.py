"""Benchmark: the cost of writing one item outcome, against the size of the plan.

`RunStore.record_outcome` appends one line to the run's outcomes log (after the fence
and forward-only checks, under the corpus lock); before the log it rewrote the whole
record. This measures that write for plans of 100, 10,000 and 100,000 one-page items:
wall time per outcome and the record's size. The write must not grow with the plan.

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
        "Each write is a stat of the record, the fence and forward-only checks on the state",
        "kept in memory, and one fsynced append to `<run_id>.outcomes.jsonl`: O(1) in the plan.",
        "Before the log (commit e63f211, same machine) every write re-read, re-checked and",
        "rewrote the whole record: 1.5 ms, 51.4 ms and 1,172 ms per outcome for 100, 10,000",
        "and 100,000 items. The first write after another writer changed the record (a new",
        "attempt, a cancel request) still reads it once; the compaction at the end rewrites it",
        "once.",
        "",
    ]
    replace_section(RESULTS, HEADING, "\n".join(lines))


if __name__ == "__main__":
    main()
