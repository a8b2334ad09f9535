"""Benchmark: the proposed order and its questions for 100,000 names of one folder (#35).

Each case is one folder of names as a tool or a person writes them, shuffled; measured in
CPU seconds (``time.process_time``, so a busy machine's other work counts less), the
proposed order (``ordering.propose_order``) and the questions of that order
(``ordering.find_ambiguities``), each once. Run it with one checkout's ``app`` on the path,
then with another's, to compare them in the same run (the machine's load changes between
runs):

    PYTHONPATH=app .venv/bin/python bench/bench_ordering_names.py [--files 100000]
    PYTHONPATH=/tmp/before/app .venv/bin/python bench/bench_ordering_names.py

It prints one Markdown row per case: the case, the files, both times, and the questions.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.plan import (
    Op,
    Ordering,
    PlanItem,
    PlanPage,
    PlanSource,
    SourceProvenance,
)

MONTHS = "January February March April May June July August September October November December"


def _phone(i: int) -> str:
    return f"IMG_2023{i // 2419200 % 12 + 1:02d}{i // 86400 % 28 + 1:02d}_{i // 3600 % 24:02d}"


CASES: dict[str, Callable[[int], list[str]]] = {
    "page N": lambda n: [f"page {i}.jpg" for i in range(1, n + 1)],
    "IMG_YYYYMMDD_HHMMSS": lambda n: [
        f"{_phone(i)}{i // 60 % 60:02d}{i % 60:02d}.jpg" for i in range(n)
    ],
    "DD.MM.YYYY pN": lambda n: [f"02.05.1931 p{i}.jpg" for i in range(1, n + 1)],
    "IMG-YYYYMMDD-WAnnnn": lambda n: [
        f"IMG-2023{d // 28 % 12 + 1:02d}{d % 28 + 1:02d}-WA{c:04d}.jpg"
        for d in range(n // 50)
        for c in range(50)
    ],
    "D Month YYYY pN": lambda n: [
        f"{i % 28 + 1} {MONTHS.split()[i // 28 % 12]} 1931 p{i}.jpg" for i in range(1, n + 1)
    ],
}


def source(rel: str) -> PlanSource:
    return PlanSource(
        source_id=new_id(),
        sha256="0" * 64,
        media_type="image/jpeg",
        pages=(PlanPage(new_id(), new_id(), 0),),
        provenance=SourceProvenance(
            path=f"/scans/{rel}", rel=rel, size=1000, mtime="2024-01-01T00:00:00Z", mtime_ns=0
        ),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100_000)
    args = parser.parse_args()
    print("| case | files | proposed order (CPU s) | questions (CPU s) | questions asked |")
    print("| --- | --- | --- | --- | --- |")
    for case, make in CASES.items():
        names = make(args.files)
        random.Random(1).shuffle(names)
        sources = [source(n) for n in names]
        start = time.process_time()
        order = ordering.propose_order(sources)
        proposed = time.process_time()
        item = PlanItem(new_id(), Op.CREATE_NOTEBOOK, new_id(), "book", tuple(order), Ordering())
        found = ordering.find_ambiguities(item)
        asked = time.process_time()
        codes = ", ".join(sorted({a.code.value for a in found})) or "none"
        print(
            f"| {case} | {len(names):,} | {proposed - start:.2f} | {asked - proposed:.2f} | "
            f"{codes} |"
        )


if __name__ == "__main__":
    main()
