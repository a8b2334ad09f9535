"""Doctor's remedy for a checkpoint it undid follows its run: Resume while the run can be
resumed, committing its frozen plan again (Finish Import) once the run has ended."""

from __future__ import annotations

from pathlib import Path

import orjson

from helpers.cli import cli_json, run_cli
from helpers.journals import staging_journal
from helpers.shelves import make_shelf


def test_a_checkpoint_undone_in_an_ended_run_says_finish_import(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", notebooks=1, pages=2)
    plan = tmp_path / "plan.json"
    assert run_cli(data, "plan", str(shelf), "-o", str(plan)).returncode == 0
    run_id = cli_json(data, "commit", str(plan), "--json")["import_run_id"]
    [notebook_id] = [it["notebook_id"] for it in orjson.loads(plan.read_bytes())["items"]]
    staging_journal(data / "corpus" / "notebooks" / notebook_id, notebook_id, run_id)

    said = run_cli(data, "doctor").stdout
    assert "“notebook 1”" in said and "was undone because it had not finished staging" in said
    assert "Finishing its import imports them again: `transcribe-import commit " in said
    assert "transcribe-import resume" not in said
