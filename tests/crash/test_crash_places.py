"""Completing a notebook in several places under SIGKILL (#22): each block resumed in its own.

A real `transcribe-import commit` completes “Parish Register” (imported without 012 and
038) with both: 012 lands after 011, then 038 after 037, one block after the other. It is
killed between the two blocks, or inside the second block's transaction, then `resume`
finishes it: 038 lands after 037 (never after 012, the last page that landed), every page
once, every earlier page with its id, and `doctor` finds nothing.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from helpers.cli import Exit, assert_doctor_clean, cli_json, ok, run_cli
from helpers.completing import file_order, imported_with_gaps, project_of

pytestmark = pytest.mark.crash

IN_ORDER = [f"{i:03}.jpg" for i in range(1, 41)]


@pytest.mark.parametrize(
    ("point", "landed"),
    [
        ("ingest.between_checkpoints", ["012.jpg"]),  # the first block in, the second not begun
        ("ingest.after_stage:2", ["012.jpg"]),  # the second block's transaction `promoting`
        ("ingest.after_manifest:2", ["012.jpg", "038.jpg"]),  # its project.json written
    ],
)
def test_a_killed_completion_lands_each_block_in_its_place(
    tmp_path: Path, point: str, landed: list[str]
) -> None:
    data, plan, nbid, before = imported_with_gaps(tmp_path)
    [item] = orjson.loads(plan.read_bytes())["items"]
    ok(run_cli(data, "order", str(plan), item["item_id"][:8], "--complete"))
    proc = run_cli(data, "commit", str(plan), "--workers", "1", crash_at=point)
    assert proc.returncode == Exit.KILLED, f"{point} was never reached: {proc.stderr}"
    # What landed is in its place: 012 after 011, and nothing after it that is not 013.
    assert file_order(data, nbid) == [
        n for n in IN_ORDER if n not in {"012.jpg", "038.jpg"} - set(landed)
    ]

    run_id = cli_json(data, "runs", "--json")["runs"][0]["import_run_id"]
    assert cli_json(data, "resume", run_id, "--json")["status"] == "complete"
    assert file_order(data, nbid) == IN_ORDER
    kept = {p["id"]: p for p in before}
    assert [p for p in project_of(data, nbid)["pages"] if p["id"] in kept] == before
    assert_doctor_clean(data)
    # Committing the plan once more changes nothing.
    done = project_of(data, nbid)
    ok(run_cli(data, "commit", str(plan)))
    assert project_of(data, nbid) == done
