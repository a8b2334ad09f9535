"""`doctor` tells empty notebooks (left by earlier versions); `doctor --remove-empty` takes one
away on request, after a confirmation, crash-safely, and never one that holds a page."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.storage.corpus import Corpus

from helpers.cli import Exit, cli_json, run_cli
from helpers.shelves import make_shelf


def _empty_notebook(data: Path) -> str:
    """A registered notebook with no page, as earlier versions left for a cancelled item."""
    nbid = new_id()
    Corpus.open(data).create_notebook(nbid, "Left empty")
    return nbid


def test_doctor_reports_an_empty_notebook_by_its_own_code(tmp_path: Path) -> None:
    data = tmp_path / "data"
    nbid = _empty_notebook(data)
    report = cli_json(data, "doctor", "--json")
    [finding] = report["findings"]
    assert finding["code"] == "empty_notebook" and finding["notebook_id"] == nbid
    assert f"--remove-empty {nbid}" in finding["message"]
    assert report["clean"], "an empty notebook is told, not an error"
    # Never removed by doctor itself.
    assert cli_json(data, "doctor", "--json")["findings"] == [finding]
    assert Corpus.open(data).is_registered(nbid)


def test_remove_empty_moves_it_to_quarantine_after_confirmation(tmp_path: Path) -> None:
    data = tmp_path / "data"
    nbid = _empty_notebook(data)
    refused = run_cli(data, "doctor", "--remove-empty", nbid)  # no terminal to ask in
    assert refused.returncode == Exit.USAGE and "--yes" in refused.stderr
    assert Corpus.open(data).is_registered(nbid)

    done = cli_json(data, "doctor", "--remove-empty", nbid, "--yes", "--json")
    assert done["removed"] == nbid
    moved = Path(done["moved_to"])
    assert moved.parent == data / "corpus" / "quarantine" and (moved / "project.json").exists()
    corpus = Corpus.open(data)
    assert not corpus.is_registered(nbid) and not corpus.notebook_dir(nbid).exists()
    assert cli_json(data, "notebooks", "--json")["notebooks"] == []
    codes = [f["code"] for f in cli_json(data, "doctor", "--json")["findings"]]
    assert codes == ["quarantine_present"]


@pytest.mark.slow
def test_remove_empty_refuses_a_notebook_with_pages(tmp_path: Path) -> None:
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    run_cli(data, "plan", str(make_shelf(tmp_path / "shelf", notebooks=1)), "-o", str(plan))
    assert cli_json(data, "commit", str(plan), "--json")["status"] == "complete"
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    before = (Path(nb["directory"]) / "project.json").read_bytes()
    proc = run_cli(data, "doctor", "--remove-empty", nb["notebook_id"], "--yes")
    assert proc.returncode == Exit.PROBLEMS
    assert "holds 3 pages" in proc.stderr and "Nothing was changed" in proc.stderr
    assert (Path(nb["directory"]) / "project.json").read_bytes() == before
    assert cli_json(data, "notebooks", "--json")["notebooks"][0]["page_count"] == 3


def test_remove_empty_of_an_unknown_notebook_names_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    Corpus.open(data)
    nbid = new_id()
    proc = run_cli(data, "doctor", "--remove-empty", nbid, "--yes")
    assert proc.returncode == Exit.PROBLEMS and nbid in proc.stderr


@pytest.mark.crash
def test_killed_between_unregistering_and_moving_it_comes_back_whole(tmp_path: Path) -> None:
    """Boundary 1: the folder with its valid project.json wins and is registered again."""
    data = tmp_path / "data"
    nbid = _empty_notebook(data)
    proc = run_cli(
        data, "doctor", "--remove-empty", nbid, "--yes", crash_at="remove_empty.after_unregister"
    )
    assert proc.returncode == Exit.KILLED
    assert not Corpus.open(data).is_registered(nbid)
    repaired = cli_json(data, "doctor", "--json", rc=Exit.PROBLEMS)  # it repaired something
    codes = [f["code"] for f in repaired["findings"]]
    assert codes == ["registration_completed", "empty_notebook"]
    assert run_cli(data, "doctor", "--remove-empty", nbid, "--yes").returncode == Exit.OK
    assert not Corpus.open(data).is_registered(nbid)
    doc = orjson.loads(
        next((data / "corpus" / "quarantine").glob("*-empty-notebook/project.json")).read_bytes()
    )
    assert doc["id"] == nbid
