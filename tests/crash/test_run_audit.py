"""A run's audit history and its idempotency, proven with real processes.

Every transition is written once, in the same atomic replace as the change, however
many attempts or kills it took; the app is the actor, the person only the one who
asked. Committing one plan twice, or from two processes at once, makes one run.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from helpers.cli import Exit, assert_doctor_clean, cli_json, ok, run_cli, start_cli
from helpers.shelves import make_shelf

pytestmark = pytest.mark.crash


@pytest.fixture
def plan_file(tmp_path: Path) -> tuple[Path, Path]:
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", notebooks=5, pages=2)
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", *map(str, sorted(shelf.iterdir())), "-o", str(plan)))
    return data, plan


def test_killed_and_resumed_three_times_one_started_three_resumed_one_end(plan_file):
    data, plan = plan_file
    proc = run_cli(data, "commit", str(plan), "--workers", "1", crash_at="run.after_item_outcome")
    assert proc.returncode == Exit.KILLED, proc.stderr
    [run] = cli_json(data, "runs", "--json")["runs"]
    run_id = run["import_run_id"]
    for _ in range(2):
        proc = run_cli(data, "resume", run_id, "--workers", "1", crash_at="run.after_item_outcome")
        assert proc.returncode == Exit.KILLED, proc.stderr
    ok(run_cli(data, "resume", run_id, "--workers", "1"))
    show = cli_json(data, "show", run_id, "--json")
    events = [h["event"] for h in show["history"]]
    assert events == ["created", "started", "resumed", "resumed", "resumed", "complete"]
    assert [h["attempt"] for h in show["history"]] == [0, 1, 2, 3, 4, 4]
    for h in show["history"]:
        assert h["actor"] == "transcribe-import" and h["app_version"]
        assert ("requested_by" in h) == (h["event"] == "created")
    words = ok(run_cli(data, "show", run_id)).stdout
    assert words.count("resumed (attempt") == 3 and "asked by" in words
    assert_doctor_clean(data)


def test_a_cancel_names_who_asked(plan_file):
    data, plan = plan_file
    proc = run_cli(data, "commit", str(plan), "--workers", "1", crash_at="run.after_item_outcome")
    assert proc.returncode == Exit.KILLED
    [run] = cli_json(data, "runs", "--json")["runs"]
    run_cli(data, "cancel", run["import_run_id"])
    history = cli_json(data, "show", run["import_run_id"], "--json")["history"]
    [asked] = [h for h in history if h["event"] == "cancel_requested"]
    assert asked["requested_by"] and asked["actor"] == "transcribe-import"
    assert history[-1]["event"] == "cancelled_with_commits" and "requested_by" not in history[-1]


def test_the_same_plan_committed_twice_returns_its_run(plan_file):
    data, plan = plan_file
    first = cli_json(data, "commit", str(plan), "--json")
    again = cli_json(data, "commit", str(plan), "--json")
    assert again["import_run_id"] == first["import_run_id"]
    assert len(cli_json(data, "runs", "--json")["runs"]) == 1


def test_a_plan_edited_after_its_run_is_refused(plan_file):
    data, plan = plan_file
    ok(run_cli(data, "commit", str(plan)))
    doc = orjson.loads(plan.read_bytes())
    doc["items"][0]["title"] = "Another title"  # edited by hand, fingerprint left stale
    plan.write_bytes(orjson.dumps(doc))
    proc = run_cli(data, "commit", str(plan))
    assert proc.returncode != Exit.OK
    assert len(cli_json(data, "runs", "--json")["runs"]) == 1


def test_two_processes_committing_one_plan_end_with_one_run(plan_file):
    data, plan = plan_file
    procs = [start_cli(data, "commit", str(plan), "--workers", "1") for _ in range(2)]
    said = [p.communicate(timeout=120) for p in procs]
    codes = sorted(p.returncode for p in procs)
    assert set(codes) <= {Exit.OK, Exit.LOCKED} and Exit.OK in codes, (codes, said)
    [run] = cli_json(data, "runs", "--json")["runs"]
    if Exit.LOCKED in codes:  # the second found the run busy; resuming it is a no-op
        ok(run_cli(data, "commit", str(plan)))
    show = cli_json(data, "show", run["import_run_id"], "--json")
    assert show["status"] == "complete"
    pages = [
        p["id"]
        for f in (data / "corpus" / "notebooks").glob("*/project.json")
        for p in orjson.loads(f.read_bytes())["pages"]
    ]
    assert len(pages) == 10 == len(set(pages))
    assert_doctor_clean(data)
