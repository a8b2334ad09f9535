"""Corpora as earlier versions wrote them, for the tests of their migration on open."""

from __future__ import annotations

from pathlib import Path

import orjson


def to_legacy_plan_layout(data: Path) -> list[str]:
    """Put every frozen plan back where versions before the move kept it; the run ids.

    ``import-runs/plans/<id>.json`` becomes ``import-runs/<id>.plan.json`` and the record's
    ``plan_snapshot`` names it again, byte for byte what those versions wrote.
    """
    runs = data / "corpus" / "import-runs"
    moved = []
    for snapshot in sorted((runs / "plans").glob("*.json")):
        run_id = snapshot.stem
        snapshot.rename(runs / f"{run_id}.plan.json")
        record = runs / f"{run_id}.json"
        doc = orjson.loads(record.read_bytes())
        doc["plan_snapshot"] = f"{run_id}.plan.json"
        record.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
        moved.append(run_id)
    (runs / "plans").rmdir()
    return moved
