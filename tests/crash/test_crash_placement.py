"""Late pages and rescans under SIGKILL: a placed import killed at named points, resumed.

A real `transcribe-import commit` places 40 pages (two checkpoints) after a notebook's
second page and replaces its fourth page by a rescan; it is killed between checkpoints or
inside a transaction, then `resume` finishes it. The end is the same every time: every
page once, in the planned place, every other page with its id, the replaced page in the
history once, its files kept, and `doctor` finds nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from helpers.cli import Exit, assert_doctor_clean, cli_json, ok, run_cli
from helpers.shelves import make_pages, make_shelf

pytestmark = pytest.mark.crash

LATE = 40  # checkpoints of 32 and 8 pages (the rescan among the second's)


def _project(data: Path, nbid: str) -> dict[str, Any]:
    doc: dict[str, Any] = orjson.loads(
        (data / "corpus" / "notebooks" / nbid / "project.json").read_bytes()
    )
    return doc


@pytest.fixture
def placed(tmp_path: Path) -> tuple[Path, Path, str, list[str]]:
    """A notebook of five pages and a plan: 40 late pages after page 2, and z rescan.jpg
    replacing page 4. (data, plan, notebook id, its page ids before)."""
    data = tmp_path / "data"
    make_shelf(tmp_path / "shelf", notebooks=1, pages=5, folder="Register", tag="R")
    ok(run_cli(data, "plan", str(tmp_path / "shelf"), "-o", str(tmp_path / "first.json")))
    ok(run_cli(data, "commit", str(tmp_path / "first.json")))
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    nbid = nb["notebook_id"]
    held = [p["id"] for p in _project(data, nbid)["pages"]]
    late = tmp_path / "late"
    make_pages(late, LATE - 1, name="leaf {i:03}.jpg", size=(60, 80), tag="L")
    make_pages(late, 1, name="zz rescan {i}.jpg", size=(60, 80), tag="Z")
    plan = tmp_path / "late.json"
    ok(run_cli(data, "plan", str(late), "--mode", f"into:{nbid}", "--after", "2", "-o", str(plan)))
    for problem in cli_json(data, "validate", str(plan), "--json", rc=3)["problems"]:
        ok(run_cli(data, "order", str(plan), problem["item_id"], "--accept"))
    ok(run_cli(data, "order", str(plan), "late", "--replace", "zz rescan 1.jpg", "4"))
    return data, plan, nbid, held


def _expected(plan: Path, held: list[str]) -> list[str]:
    [item] = orjson.loads(plan.read_bytes())["items"]
    [(rescan, _old)] = item["replacements"].items()
    new = [p["page_id"] for s in item["sources"] for p in s["pages"] if p["page_id"] != rescan]
    return [*held[:2], *new, held[2], rescan, held[4]]


@pytest.mark.parametrize(
    "point",
    [
        "ingest.between_checkpoints",  # the first 32 pages placed, the rest not begun
        "ingest.after_stage:2",  # the second checkpoint (with the rescan) `promoting`
        "ingest.after_manifest:2",  # its project.json written, its journal not yet removed
    ],
)
def test_killed_placed_import_resumes_to_the_same_notebook(placed, point: str) -> None:
    data, plan, nbid, held = placed
    proc = run_cli(data, "commit", str(plan), "--workers", "1", crash_at=point)
    assert proc.returncode == Exit.KILLED, f"{point} was never reached: {proc.stderr}"
    shown = [p["id"] for p in _project(data, nbid)["pages"]]
    expected = _expected(plan, held)
    # What landed is the start of the block, in its place: never a page out of it.
    assert shown[:2] == held[:2] and shown[-3:] in ([held[2], held[3], held[4]], expected[-3:])

    run_id = cli_json(data, "runs", "--json")["runs"][0]["import_run_id"]
    assert cli_json(data, "resume", run_id, "--json")["status"] == "complete"
    doc = _project(data, nbid)
    assert [p["id"] for p in doc["pages"]] == expected
    [entry] = doc["replaced_pages"]
    assert entry["page"]["id"] == held[3] and entry["import_run_id"] == run_id
    assert (data / "corpus" / "notebooks" / nbid / entry["page"]["render"]["path"]).is_file()
    assert_doctor_clean(data)
    # Committing the plan once more changes nothing.
    before = _project(data, nbid)
    ok(run_cli(data, "commit", str(plan)))
    assert _project(data, nbid) == before
