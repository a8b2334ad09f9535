"""A turn of pages in the corpus under SIGKILL: a real ``transcribe-import turn`` killed inside
its transaction leaves the notebook whole (its pages as they were, or turned, never half),
and ``resume`` of its run finishes the turn; ``revert`` then puts the pages back."""

from __future__ import annotations

import pytest

from helpers.cli import Exit, assert_doctor_clean, cli_json, ok, run_cli
from helpers.turns import cli_diary, notebook_doc

pytestmark = pytest.mark.crash


@pytest.mark.parametrize(
    "point",
    [
        "ingest.after_stage",  # the copies and the turned renders staged, journal written
        "ingest.promote.after_file",  # the first staged file promoted, the others not
        "ingest.after_manifest",  # project.json written, its journal not yet removed
        "run.before_item_outcome",  # the notebook turned, the run's record not yet told
    ],
)
def test_killed_turn_leaves_the_notebook_whole_and_resumes(tmp_path, point: str) -> None:
    data, nbid = cli_diary(tmp_path)
    before = notebook_doc(data, nbid)
    proc = run_cli(data, "turn", "Diary", "2", "3", "270", crash_at=point)
    assert proc.returncode == Exit.KILLED, f"{point} was never reached: {proc.stderr}"

    turns = [p.get("turn") for p in notebook_doc(data, nbid)["pages"]]
    assert turns in ([None, None, None], [None, 270, 270])  # as it was, or turned: never half
    run = cli_json(data, "runs", "--json")["runs"][0]
    assert run["state"] == "interrupted"
    assert cli_json(data, "resume", run["import_run_id"], "--json")["status"] == "complete"
    doc = notebook_doc(data, nbid)
    assert [p.get("turn") for p in doc["pages"]] == [None, 270, 270]
    assert [e["page"] for e in doc["replaced_pages"]] == before["pages"][1:]
    assert_doctor_clean(data)

    ok(run_cli(data, "revert", run["import_run_id"]))
    assert notebook_doc(data, nbid)["pages"] == before["pages"]
    assert_doctor_clean(data)
