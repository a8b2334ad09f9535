"""`trash` lists what reverts moved out, and names an entry whose journal cannot be read."""

from __future__ import annotations

from pathlib import Path

from transcribe_import.engine.base.ids import new_id

from helpers.cli import Exit, cli_json, ok, run_cli
from helpers.shelves import make_shelf


def test_trash_json_names_an_entry_it_cannot_read_beside_the_ones_it_can(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", notebooks=1, pages=2)
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
    run_id = cli_json(data, "commit", str(plan), "--json")["import_run_id"]
    revert_id = cli_json(data, "revert", run_id, "--json")["revert_id"]
    damaged = data / "corpus" / "trash" / new_id()
    damaged.mkdir()
    (damaged / "revert.json").write_bytes(b"{ not json")

    listing = cli_json(data, "trash", "--json", rc=Exit.PROBLEMS)

    assert [e["revert_id"] for e in listing["entries"]] == [revert_id]
    [problem] = listing["problems"]
    assert problem["code"] == "corpus_invalid"
    assert problem["path"] == str(damaged / "revert.json")
    assert "cannot be read" in problem["message"]
    # The words name it too, and exit the same way.
    words = ok(run_cli(data, "trash"), Exit.PROBLEMS).stdout
    assert revert_id in words and f"PROBLEM {damaged / 'revert.json'}" in words
