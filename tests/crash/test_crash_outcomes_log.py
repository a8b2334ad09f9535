"""The outcomes log beside a run record, with a real process killed around its writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.cli import Exit, assert_doctor_clean, cli_json, run_cli
from helpers.shelves import make_shelf

pytestmark = pytest.mark.crash


@pytest.mark.parametrize(
    ("point", "then"),
    [
        ("run.after_item_outcome:2", "resume"),  # two outcomes only in the log
        ("run.after_compact:2", "ended"),  # the terminal record written, its log not removed
    ],
)
def test_a_kill_around_the_outcomes_log_loses_and_doubles_nothing(
    point: str, then: str, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    run_cli(data, "plan", str(make_shelf(tmp_path / "shelf", notebooks=3)), "-o", str(plan))
    killed = run_cli(data, "commit", str(plan), "--workers", "1", crash_at=point)
    assert killed.returncode == Exit.KILLED, killed.stderr
    (run,) = cli_json(data, "runs", "--json")["runs"]
    log = data / "corpus" / "import-runs" / f"{run['import_run_id']}.outcomes.jsonl"
    assert log.is_file()  # the kill came before the log was compacted away
    if then == "resume":
        assert run["interrupted"] and run["counts"]["committed"] == 2  # record + log
        done = cli_json(data, "resume", run["import_run_id"], "--json")
        assert not log.exists()
    else:
        assert run["status"] == "complete" and run["counts"]["committed"] == 3
        done = cli_json(data, "resume", run["import_run_id"], "--json")
        assert done["already_done"]
    assert done["status"] == "complete" and done["counts"]["committed"] == 3
    pages = sorted(n["page_count"] for n in cli_json(data, "notebooks", "--json")["notebooks"])
    assert pages == [3, 3, 3]
    assert_doctor_clean(data)
