"""Crash safety of undoing a run: SIGKILL at every named point of a revert, then recover.

Each case commits a run through the command line, kills `transcribe-import revert` at
one named point (asserting it really died by SIGKILL), then lets `doctor` or a second
`revert` take it up. Afterwards the corpus holds either all of the run or none of it:
the run is `reverted`, its notebooks or pages are gone from the corpus and every one of
their files is in the trash with the hash project.json recorded, nothing is doubled,
and `doctor` is clean. A revert whose remaining work was changed in between is undone
instead: everything goes back and the run keeps its status.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import orjson
import pytest

from helpers.cli import Exit, assert_doctor_clean, cli_json, imported, notebook_files, ok, run_cli
from helpers.shelves import make_pages, make_shelf

pytestmark = pytest.mark.crash


def _record(data: Path, run_id: str) -> dict[str, Any]:
    return orjson.loads((data / "corpus" / "import-runs" / f"{run_id}.json").read_bytes())


def _projects(data: Path) -> dict[str, dict[str, Any]]:
    root = data / "corpus" / "notebooks"
    return {p.parent.name: orjson.loads(p.read_bytes()) for p in root.glob("*/project.json")}


@pytest.fixture
def corpus_with_two_runs(tmp_path: Path):
    """Run A created two notebooks of 3 pages; run B added 2 pages to the first."""
    data = tmp_path / "data"
    a = imported(data, tmp_path, *sorted(make_shelf(tmp_path / "shelf", notebooks=2).iterdir()))
    first = sorted(_projects(data))[0]
    make_pages(tmp_path / "late", 2, name="late {i}.png")
    b = imported(data, tmp_path, tmp_path / "late", mode=f"into:{first}")
    return data, a, b, first


def _assert_reverted(data: Path, run_id: str, before: dict[str, dict[str, Any]]) -> None:
    record = _record(data, run_id)
    assert record["status"] == "reverted"
    events = [h["event"] for h in record["history"]]
    assert events.count("revert_requested") == 1 and events.count("reverted") == 1
    revert_id = record["revert"]["revert_id"]
    box = data / "corpus" / "trash" / revert_id
    journal = orjson.loads((box / "revert.json").read_bytes())
    assert journal["state"] == "done"
    now = _projects(data)
    for nb in journal["notebooks"]:
        nbid = nb["notebook_id"]
        if nb["whole"]:
            assert nbid not in now
        else:
            listed = {p["id"] for p in now[nbid]["pages"]}
            assert not listed & set(nb["page_ids"])
            assert len(now[nbid]["pages"]) == len(before[nbid]["pages"]) - len(nb["page_ids"])
        for f in nb["files"]:  # every file it took out is in the trash, byte for byte
            moved = box / "notebooks" / nbid / f["path"]
            assert hashlib.sha256(moved.read_bytes()).hexdigest() == f["sha256"]
            assert not (data / "corpus" / "notebooks" / nbid / f["path"]).exists()
    pages = [p["id"] for doc in now.values() for p in doc["pages"]]
    assert len(pages) == len(set(pages))  # nothing doubled
    assert_doctor_clean(data)


WHOLE_POINTS = [
    "revert.after_request",
    "revert.after_journal",
    "revert.after_move:1",
    "revert.after_move:2",
    "revert.after_index",
    "revert.after_record",
]
PARTIAL_POINTS = [
    "revert.after_request",
    "revert.after_journal",
    "revert.after_project",
    "revert.after_move",
    "revert.after_index",
    "revert.after_record",
]


@pytest.mark.parametrize("then", ["doctor", "revert"])
@pytest.mark.parametrize("point", WHOLE_POINTS)
def test_kill_a_revert_of_created_notebooks(corpus_with_two_runs, point: str, then: str):
    data, a, b, _first = corpus_with_two_runs
    ok(run_cli(data, "revert", b))  # the later run first, so the first one is revertible
    before = _projects(data)
    proc = run_cli(data, "revert", a, crash_at=point)
    assert proc.returncode == Exit.KILLED, (point, proc.stderr)
    if then == "doctor":  # it repaired something: exit 1, the finding says what
        report = cli_json(data, "doctor", "--json", rc=Exit.PROBLEMS)
        assert "revert_finished" in {f["code"] for f in report["findings"]}
    else:
        said = ok(run_cli(data, "revert", a)).stdout
        assert "was undone" in said and ("already" in said or "notebook" in said)
    _assert_reverted(data, a, before)
    assert notebook_files(data) == {}


@pytest.mark.parametrize("then", ["doctor", "revert"])
@pytest.mark.parametrize("point", PARTIAL_POINTS)
def test_kill_a_revert_of_pages_added_to_a_notebook(corpus_with_two_runs, point: str, then: str):
    data, _a, b, first = corpus_with_two_runs
    before = _projects(data)
    proc = run_cli(data, "revert", b, crash_at=point)
    assert proc.returncode == Exit.KILLED, (point, proc.stderr)
    if then == "doctor":
        ok(run_cli(data, "doctor"), Exit.PROBLEMS)
    else:
        ok(run_cli(data, "revert", b))
    _assert_reverted(data, b, before)
    assert len(_projects(data)[first]["pages"]) == 3


def test_a_revert_whose_rest_changed_meanwhile_is_undone(corpus_with_two_runs):
    data, a, b, first = corpus_with_two_runs
    ok(run_cli(data, "revert", b))
    files = notebook_files(data)
    names = set(_projects(data))
    proc = run_cli(data, "revert", a, crash_at="revert.after_move:1")
    assert proc.returncode == Exit.KILLED
    [left] = _projects(data)  # one notebook moved, one still in place...
    path = data / "corpus" / "notebooks" / left / "project.json"
    doc = orjson.loads(path.read_bytes())
    doc["pages"][0]["transcription"] = "Dear diary"  # ...and someone transcribed a page of it
    path.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    report = cli_json(data, "doctor", "--json", rc=Exit.PROBLEMS)
    [finding] = [f for f in report["findings"] if f["code"] == "revert_finished"]
    assert "undone" in finding["message"]
    record = _record(data, a)
    assert record["status"] == "complete" and record["revert"]["state"] == "abandoned"
    assert [h["event"] for h in record["history"]][-1] == "revert_abandoned"
    changed = {k for k in files if k.startswith(left) and k.endswith("project.json")}
    assert {k: v for k, v in notebook_files(data).items() if k not in changed} == {
        k: v for k, v in files.items() if k not in changed
    }
    assert set(_projects(data)) == names and first in names  # both back in place
    assert_doctor_clean(data)
    # The transcription blocks a new revert, in words.
    proc = run_cli(data, "revert", a)
    assert proc.returncode == 1 and "revert_page_changed" in proc.stdout


def test_kill_a_purge_then_doctor_finishes_it(corpus_with_two_runs):
    data, _a, b, _first = corpus_with_two_runs
    ok(run_cli(data, "revert", b))
    [entry] = cli_json(data, "trash", "--json")["entries"]
    proc = run_cli(data, "trash", "--purge", entry["revert_id"], crash_at="trash.after_hide")
    assert proc.returncode == Exit.KILLED
    # Listed as being deleted until it is finished (#36: it was hidden until doctor).
    [left] = cli_json(data, "trash", "--json")["entries"]
    assert left["revert_id"] == entry["revert_id"] and left["state"] == "purging"
    ok(run_cli(data, "doctor"), Exit.PROBLEMS)
    assert list((data / "corpus" / "trash").iterdir()) == []
    assert_doctor_clean(data)


def test_revert_dry_run_and_json_change_nothing(corpus_with_two_runs):
    data, a, b, first = corpus_with_two_runs
    files = notebook_files(data)
    doc = cli_json(data, "revert", b, "--dry-run", "--json")
    assert doc["ok"] and doc["dry_run"] and doc["pages"] == 2
    [nb] = doc["notebooks"]
    assert nb["notebook_id"] == first and not nb["whole"]
    blocked = cli_json(data, "revert", a, "--json", rc=1)
    assert not blocked["ok"] and {x["code"] for x in blocked["blockers"]} == {"revert_later_pages"}
    assert notebook_files(data) == files
    assert run_cli(data, "revert", a).returncode == 1
    assert notebook_files(data) == files
    assert run_cli(data, "revert", b).returncode == Exit.OK


def test_a_run_cancelled_with_commits_is_undone_through_the_cli(tmp_path: Path):
    """(A partial run is undone in tests/engine/runs/test_undo.py: through the CLI a file that
    vanishes after the plan is refused by validate before anything lands.)"""
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", notebooks=3, pages=2)
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", *map(str, sorted(shelf.iterdir())), "-o", str(plan)))
    proc = run_cli(data, "commit", str(plan), "--workers", "1", crash_at="run.after_item_outcome")
    assert proc.returncode == Exit.KILLED
    [run] = cli_json(data, "runs", "--json")["runs"]
    run_cli(data, "cancel", run["import_run_id"])
    show = cli_json(data, "show", run["import_run_id"], "--json")
    assert show["status"] == "cancelled_with_commits"
    before = _projects(data)
    assert before
    ok(run_cli(data, "revert", run["import_run_id"]))
    _assert_reverted(data, run["import_run_id"], before)
    assert _projects(data) == {}


def test_the_plan_of_an_undone_run_committed_again_imports_it_again(tmp_path: Path):
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", notebooks=2, pages=2)
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", *map(str, sorted(shelf.iterdir())), "-o", str(plan)))
    first = cli_json(data, "commit", str(plan), "--json")
    ids = sorted(_projects(data))
    ok(run_cli(data, "revert", first["import_run_id"]))
    again = cli_json(data, "commit", str(plan), "--json")
    assert again["import_run_id"] != first["import_run_id"] and again["status"] == "complete"
    record = _record(data, again["import_run_id"])
    assert record["retry_of"] == first["import_run_id"]
    assert sorted(_projects(data)) == ids  # the plan's own notebook ids, imported again
    assert_doctor_clean(data)


@pytest.mark.parametrize("point", ["revert.after_journal", "revert.after_project"])
def test_kill_undoing_a_rescan_then_doctor_puts_the_replaced_page_back(
    corpus_with_two_runs, tmp_path: Path, point: str
):
    data, _a, b, first = corpus_with_two_runs
    ok(run_cli(data, "revert", b))
    before = _projects(data)[first]
    old = before["pages"][1]["id"]
    make_pages(tmp_path / "rescan", 1, name="rescan {i}.png", tag="R")
    plan = tmp_path / "rescan.json"
    ok(run_cli(data, "plan", str(tmp_path / "rescan"), "--mode", f"into:{first}", "-o", str(plan)))
    item = orjson.loads(plan.read_bytes())["items"][0]["item_id"]
    ok(run_cli(data, "order", str(plan), item, "--replace", "rescan 1.png", old))
    run = cli_json(data, "commit", str(plan), "--json")["import_run_id"]
    assert _projects(data)[first]["replaced_pages"][0]["page"]["id"] == old
    proc = run_cli(data, "revert", run, crash_at=point)
    assert proc.returncode == Exit.KILLED
    ok(run_cli(data, "doctor"), Exit.PROBLEMS)
    after = _projects(data)[first]
    assert after["pages"] == before["pages"] and "replaced_pages" not in after
    assert _record(data, run)["status"] == "reverted"
    assert_doctor_clean(data)
