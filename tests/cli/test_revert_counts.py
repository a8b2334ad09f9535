"""Revert and trash count the files really moved: every source and every render (issue #25)."""

from __future__ import annotations

from pathlib import Path

import pytest

from transcribe_import.engine.base.text import counted

from helpers.cli import cli_json, ok, run_cli
from helpers.shelves import make_pages, make_shelf


def _moved_files(trash_entry: Path) -> int:
    return sum(1 for p in (trash_entry / "notebooks").rglob("*") if p.is_file())


def _sources_and_renders(folder: Path) -> int:
    return sum(
        1 for p in folder.rglob("*") if p.is_file() and p.parent.name in {"sources", "renders"}
    )


@pytest.mark.slow
def test_undoing_pages_added_to_a_notebook_counts_their_renders_too(tmp_path: Path) -> None:
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(make_shelf(tmp_path / "shelf", 1, 3)), "-o", str(plan)))
    ok(run_cli(data, "commit", str(plan)))
    [notebook] = (data / "corpus" / "notebooks").iterdir()
    make_pages(tmp_path / "late", 5, name="late {i}.png")
    late = tmp_path / "late.json"
    ok(
        run_cli(
            data, "plan", str(tmp_path / "late"), "--mode", f"into:{notebook.name}", "-o", str(late)
        )
    )
    run_id = cli_json(data, "commit", str(late), "--json")["import_run_id"]

    said = ok(run_cli(data, "revert", run_id)).stdout

    [entry] = cli_json(data, "trash", "--json")["entries"]
    moved = _moved_files(Path(entry["path"]))
    assert moved == 10  # five sources and their five renders
    assert f"was undone (5 pages, {counted(moved, 'file')}):" in said, said
    assert f"  removed: 5 pages and {counted(moved, 'file')} added to “notebook 1”" in said, said
    assert entry["files"] == moved
    purged = ok(run_cli(data, "trash", "--purge", entry["revert_id"])).stdout
    assert f"5 pages, {counted(moved, 'file')}," in purged


@pytest.mark.slow
def test_undoing_a_created_notebook_counts_every_file_it_moved(tmp_path: Path) -> None:
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(make_shelf(tmp_path / "shelf", 2, 4)), "-o", str(plan)))
    run_id = cli_json(data, "commit", str(plan), "--json")["import_run_id"]

    preview = ok(run_cli(data, "revert", run_id, "--dry-run")).stdout
    said = ok(run_cli(data, "revert", run_id)).stdout

    [entry] = cli_json(data, "trash", "--json")["entries"]
    moved = _sources_and_renders(Path(entry["path"]))
    assert moved == 16
    assert f"was undone (8 pages, {counted(moved, 'file')}):" in said
    assert said.count(", 4 pages and 8 files") == 2
    assert preview.count(", 4 pages and 8 files") == 2
    assert entry["files"] == moved
