"""`revert --leave-blocked`: a run whose notebooks are partly blocked undoes the free ones,
saying which stay and why; the refusal says so, and each reason once."""

from __future__ import annotations

from pathlib import Path

import orjson

from helpers.cli import Exit, cli_json, ok, run_cli
from helpers.shelves import make_shelf


def test_revert_leave_blocked_undoes_the_free_notebooks_and_says_which_stay(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", notebooks=3, pages=2)
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
    run_id = cli_json(data, "commit", str(plan), "--json")["import_run_id"]
    ids = [it["notebook_id"] for it in orjson.loads(plan.read_bytes())["items"]]
    project = data / "corpus" / "notebooks" / ids[0] / "project.json"
    doc = orjson.loads(project.read_bytes())
    title = doc["title"]
    doc["title"] = "Diary, renamed"
    project.write_bytes(orjson.dumps(doc))

    [plain] = cli_json(data, "runs", "--json")["runs"]
    assert plain["partly_undone"] is False
    assert cli_json(data, "show", run_id, "--json")["partly_undone"] is False

    refused = ok(run_cli(data, "revert", run_id), Exit.PROBLEMS).stdout
    [why] = [line for line in refused.splitlines() if "BLOCKED" in line]  # once, and true
    assert "[revert_renamed]" in why and "renamed since" in why
    assert f"`transcribe-import revert {run_id[:8]} --leave-blocked` undoes the 2 notebooks " in (
        refused
    )
    assert "(“notebook 2”, “notebook 3”, 4 pages) and leaves the blocked ones in place." in (
        refused
    )

    preview = ok(run_cli(data, "revert", run_id, "--dry-run", "--leave-blocked")).stdout
    assert "would undo part of it, leaving the blocked notebooks in place:" in preview
    assert "KEPT [revert_renamed] “Diary, renamed”" in preview

    done = ok(run_cli(data, "revert", run_id, "--leave-blocked")).stdout
    assert done.startswith(f"Run {run_id[:8]} was partly undone (4 pages, 8 files):")
    assert done.count("  removed: notebook ") == 2
    assert "KEPT [revert_renamed] “Diary, renamed”" in done
    listed = cli_json(data, "notebooks", "--json")
    assert [n["notebook_id"] for n in listed["notebooks"]] == [ids[0]]
    shown = ok(run_cli(data, "show", run_id)).stdout
    assert "partly undone, its blocked notebooks left in place" in shown
    assert "complete, partly undone — some of its notebooks were undone" in shown
    assert f"{run_id[:8]}  " in ok(run_cli(data, "runs")).stdout
    assert "complete, partly undone" in ok(run_cli(data, "runs")).stdout
    # The JSON says it as the words do, its status kept.
    [row] = cli_json(data, "runs", "--json")["runs"]
    assert row["partly_undone"] is True and row["status"] == "complete"
    assert cli_json(data, "show", run_id, "--json")["partly_undone"] is True
    # The rest is still refused by name, and a JSON answer says what was held.
    again = cli_json(data, "revert", run_id, "--json", rc=Exit.PROBLEMS)
    assert [b["code"] for b in again["blockers"]] == ["revert_renamed"]
    assert again["notebooks"][0]["notebook_id"] == ids[0] and not again["partial"]

    # The block lifted, the rest is undone: the run is reverted, no longer partly undone.
    doc["title"] = title
    project.write_bytes(orjson.dumps(doc))
    ok(run_cli(data, "revert", run_id))
    shown = cli_json(data, "show", run_id, "--json")
    assert shown["status"] == "reverted" and shown["partly_undone"] is False
