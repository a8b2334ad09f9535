"""Trash › Restore on the command line: an undone run put back as it was, or refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.cli import Exit, assert_doctor_clean, cli_json, imported, notebook_files, ok, run_cli
from helpers.shelves import make_pages, make_shelf


def _state(data: Path) -> tuple[dict[str, str], list[tuple[str, str, int | None]]]:
    """Every notebook file with its hash, and each listed notebook's id, title and pages."""
    listed = cli_json(data, "notebooks", "--json")["notebooks"]
    return notebook_files(data), [(n["notebook_id"], n["title"], n["page_count"]) for n in listed]


def test_a_run_undone_whole_is_put_back_as_it_was(tmp_path: Path) -> None:
    data = tmp_path / "data"
    run_id = imported(data, tmp_path, make_shelf(tmp_path / "shelf", notebooks=2))
    before = _state(data)
    revert_id = cli_json(data, "revert", run_id, "--json")["revert_id"]
    assert cli_json(data, "notebooks", "--json")["notebooks"] == []

    back = ok(run_cli(data, "trash", "--restore", revert_id))
    assert back.stdout == (
        f"Put run {run_id[:8]} back from trash entry {revert_id[:8]}: 2 notebooks (notebook 1, "
        "notebook 2), 6 pages, 12 files. The run is complete again; the entry has left the "
        "trash.\n"
    )
    assert _state(data) == before  # every file, byte for byte, and the listing
    shown = cli_json(data, "show", run_id, "--json")
    assert shown["status"] == "complete"
    events = [h["event"] for h in shown["history"]]
    assert events[-4:] == ["revert_requested", "reverted", "restore_requested", "restored"]
    assert cli_json(data, "trash", "--json")["entries"] == []
    assert_doctor_clean(data)
    # Undone again, and put back again: the same run, the same pages.
    again = cli_json(data, "revert", run_id, "--json")["revert_id"]
    restored = cli_json(data, "trash", "--restore", again, "--json")["restored"]
    assert restored == {
        "entry_removed": True,
        "import_run_id": run_id,
        "revert_id": again,
        "status": "complete",
        "notebooks": 2,
        "pages": 6,
        "files": 12,
        "titles": ["notebook 1", "notebook 2"],
    }
    assert _state(data) == before
    assert_doctor_clean(data)


def test_pages_a_run_added_to_a_notebook_are_put_back_among_its_pages(tmp_path: Path) -> None:
    data = tmp_path / "data"
    imported(data, tmp_path, make_shelf(tmp_path / "shelf", notebooks=1))
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    late = make_pages(tmp_path / "late", 2, name="late {i}.png", tag="late")[0].parent
    run_b = imported(data, tmp_path, late, mode=f"into:{nb['notebook_id']}")
    before = _state(data)
    revert_id = cli_json(data, "revert", run_b, "--json")["revert_id"]
    assert cli_json(data, "notebooks", "--json")["notebooks"][0]["page_count"] == 3

    ok(run_cli(data, "trash", "--restore", revert_id))
    assert _state(data) == before  # project.json as it was before the undo, files back
    assert cli_json(data, "show", run_b, "--json")["status"] == "complete"
    assert_doctor_clean(data)


def test_a_restore_that_would_double_pages_imported_again_since_is_refused(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", notebooks=1)
    run_id = imported(data, tmp_path, shelf)
    revert_id = cli_json(data, "revert", run_id, "--json")["revert_id"]
    imported(data, tmp_path, shelf)  # the same folder, imported again
    before = _state(data)
    [again] = before[1]

    refused = run_cli(data, "trash", "--restore", revert_id)
    assert refused.returncode == Exit.PROBLEMS, refused.stderr
    assert refused.stderr == (
        f"transcribe-import: Trash entry {revert_id[:8]} cannot be put back, nothing was changed: "
        f"3 of the run's page files were imported again since, into “notebook 1” "
        f"({again[0][:8]}): "
        "putting them back would double them.\n"
    )
    assert _state(data) == before
    [entry] = cli_json(data, "trash", "--json")["entries"]
    assert entry["revert_id"] == revert_id and entry["state"] == "done"
    assert cli_json(data, "show", run_id, "--json")["status"] == "reverted"
    assert_doctor_clean(data)


@pytest.mark.parametrize(
    ("revert_id", "words"),
    [
        ("0" * 8 + "-0000-4000-8000-" + "0" * 12, "No trash entry 00000000-0000-4000-8000-"),
        ("nonsense", "No trash entry 'nonsense': a revert id, or its first 4 characters or more"),
    ],
)
def test_an_entry_that_is_not_there_is_said_so(tmp_path: Path, revert_id: str, words: str) -> None:
    data = tmp_path / "data"
    imported(data, tmp_path, make_shelf(tmp_path / "shelf", notebooks=1))
    before = _state(data)
    proc = run_cli(data, "trash", "--restore", revert_id)
    assert proc.returncode == Exit.PROBLEMS, proc.stderr
    assert proc.stderr.startswith(f"transcribe-import: {words}"), proc.stderr
    assert "`transcribe-import trash` lists them." in proc.stderr
    assert _state(data) == before


def test_restore_and_purge_are_one_or_the_other(tmp_path: Path) -> None:
    proc = run_cli(tmp_path / "data", "trash", "--restore", "a", "--purge", "b")
    assert proc.returncode == 2 and "not allowed with argument" in proc.stderr
