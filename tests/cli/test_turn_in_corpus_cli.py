"""``turn NOTEBOOK PAGE... ANGLE`` (#39): pages already in the corpus turned by a run of their
own, said in words, the stored files untouched and the renders upright, the history naming
who asked and when, and ``revert`` putting the pages back as they were."""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest

from helpers.cli import Exit, assert_doctor_clean, cli_json, notebook_files, ok, run_cli
from helpers.turns import cli_diary, notebook_doc, red_corner

pytestmark = pytest.mark.slow  # a CLI process per step: each test takes 15 s or more


def test_turn_pages_in_the_corpus_then_undo(tmp_path: Path) -> None:
    data, nbid = cli_diary(tmp_path)
    before, files = notebook_doc(data, nbid), notebook_files(data)

    out = ok(run_cli(data, "turn", "Diary", "2", "3.jpg", "90")).stdout
    run = cli_json(data, "runs", "--json")["runs"][0]["import_run_id"]
    assert out.splitlines() == [
        f"“Diary”: pages 2 and 3 turned 90° clockwise (run {run[:8]}).",
        "The pages as they were are kept in the notebook's history; undo the turn with "
        f"`transcribe-import revert {run[:8]}`.",
    ]
    doc = notebook_doc(data, nbid)
    folder = data / "corpus" / "notebooks" / nbid
    assert [p.get("turn") for p in doc["pages"]] == [None, 90, 90]
    for page in doc["pages"][1:]:
        assert red_corner((folder / page["render"]["path"]).read_bytes())[1] == "top-right"
    # Every stored file is as it was, byte for byte: the turn only added files.
    stored = {k: v for k, v in files.items() if not k.endswith("project.json")}
    after = notebook_files(data)
    assert {k: after[k] for k in stored} == stored
    # The history: the pages as they were, by whom and when the turn was asked.
    assert [e["page"] for e in doc["replaced_pages"]] == before["pages"][1:]
    shown = cli_json(data, "show", run, "--json")
    created = [h for h in shown["history"] if h["event"] == "created"]
    assert created[0]["requested_by"] == getpass.getuser() and created[0]["at"]
    assert shown["status"] == "complete"
    listing = ok(run_cli(data, "notebooks", "Diary")).stdout
    assert "replaced" in listing and "2.jpg" in listing and "3.jpg" in listing

    # Undo: the notebook as it was, every file it had, and said so.
    short = f"“Diary” ({nbid[:8]})"
    preview = ok(run_cli(data, "revert", run[:8], "--dry-run")).stdout.splitlines()
    assert preview[1] == (
        f"  to remove: the pages this turn made in {short}, 4 files; the pages as they were "
        "come back"
    )
    said = ok(run_cli(data, "revert", run)).stdout.splitlines()
    assert said[0] == f"Run {run[:8]} was undone (2 pages, 4 files):"
    assert said[1] == (
        f"  removed: the pages this turn made in {short}, 4 files; the pages as they were are back"
    )
    undone = notebook_doc(data, nbid)
    assert undone["pages"] == before["pages"] and not undone.get("replaced_pages")
    after = notebook_files(data)
    assert after.keys() == files.keys() and {k: after[k] for k in stored} == stored
    assert_doctor_clean(data)


def test_turn_json_and_a_turn_taken_back(tmp_path: Path) -> None:
    data, nbid = cli_diary(tmp_path)
    doc = cli_json(data, "turn", nbid[:8], "1", "180", "--json")
    page = notebook_doc(data, nbid)["pages"][0]
    assert doc == {
        "import_run_id": doc["import_run_id"],
        "status": "complete",
        "notebook_id": nbid,
        "pages": [1],
        "turn": 180,
        "page_ids": [page["id"]],
    }
    assert page["turn"] == 180
    out = ok(run_cli(data, "turn", "Diary", "1", "0")).stdout
    assert out.startswith("“Diary”: page 1 no longer turned (run ")
    assert out.splitlines()[1].startswith("The page as it was is kept in the notebook's history")
    assert "turn" not in notebook_doc(data, nbid)["pages"][0]


def test_turn_refused_in_words_with_nothing_changed(tmp_path: Path) -> None:
    data, nbid = cli_diary(tmp_path)
    before = notebook_files(data)
    refused = {
        ("Diary", "2", "45"): "a page turns by 0, 90, 180 or 270 degrees clockwise, not 45",
        ("Diary", "2", "left"): "turn ends with the angle (90, 180 or 270 degrees clockwise, "
        "0 to take a turn back), not 'left': turn NOTEBOOK PAGE... 90",
        ("Diary", "90"): "turn takes the pages, then the angle: turn NOTEBOOK PAGE... 90",
        ("Diary", "9", "90"): "notebook “Diary” has 3 pages; there is no page 9",
        ("Nothing", "1", "90"): "the corpus has no notebook 'Nothing'",
        ("Diary", "1", "0"): "page 1 of “Diary” is not turned already: nothing to do",
    }
    for words, said in refused.items():
        proc = ok(run_cli(data, "turn", *words), Exit.USAGE)
        assert said in proc.stderr, (words, proc.stderr)
    assert notebook_files(data) == before
    assert len(cli_json(data, "runs", "--json")["runs"]) == 1  # no run for a refusal


def test_a_bag_plan_counts_a_notebooks_pages_apart_from_its_history(tmp_path: Path) -> None:
    data, nbid = cli_diary(tmp_path)
    ok(run_cli(data, "turn", "Diary", "2", "90"))  # page 2 as it was goes to the history
    ok(run_cli(data, "export", "--all", "-o", str(tmp_path / "bag")))

    other, plan = tmp_path / "other", tmp_path / "bag.json"
    said = ok(run_cli(other, "plan", "--mode", "bag", str(tmp_path / "bag"), "-o", str(plan)))
    assert said.stdout.startswith(
        f"Wrote {plan}: 1 notebook, 3 pages to import, 1 earlier page kept in history.\n"
    )
    [line] = [ln for ln in said.stdout.splitlines() if "create “Diary”" in ln]
    assert line.endswith("create “Diary”: 3 pages, 1 earlier page kept in its history")
    # What the line says is what the commit lands: 3 pages, and 1 in the history.
    ok(run_cli(other, "commit", str(plan)))
    doc = notebook_doc(other, nbid)
    assert len(doc["pages"]) == 3 and len(doc["replaced_pages"]) == 1
