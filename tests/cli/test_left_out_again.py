"""A folder imported before, scanned again (#22): what a person left out of that import (a
blank page, a page replaced by its rescan) is left out again and said so, not offered as a
"new page" to complete the notebook with; Include takes it back; an undone import's choices
are not carried."""

from __future__ import annotations

from pathlib import Path

import orjson

from helpers.cli import cli_json, ok, run_cli
from helpers.shelves import make_shelf


def _item(plan: Path) -> str:
    return str(orjson.loads(plan.read_bytes())["items"][0]["item_id"])


def _first_import(data: Path, tmp_path: Path) -> tuple[Path, str]:
    """“notebook 1”, pages 1 to 4, imported without page 3 (left out in the review)."""
    shelf = make_shelf(tmp_path / "shelf", notebooks=1, pages=4)
    plan = tmp_path / "first.json"
    ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
    ok(run_cli(data, "order", str(plan), _item(plan), "--exclude", "page 3.jpg"))
    ok(run_cli(data, "commit", str(plan)))
    [run] = cli_json(data, "runs", "--json")["runs"]
    return shelf, str(run["import_run_id"])


def _states(data: Path, plan: Path, rc: int = 0) -> list[str]:
    report = cli_json(data, "validate", str(plan), "--json", rc=rc)
    return [p["code"] for p in report["problems"]]


def test_a_file_left_out_of_an_import_is_left_out_again_and_said(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shelf, _run = _first_import(data, tmp_path)
    again = tmp_path / "again.json"
    out = ok(run_cli(data, "plan", str(shelf), "-o", str(again))).stdout
    assert "0 pages to import" in out
    assert "Already imported: all 3 pages are in “notebook 1” (imported " in out
    assert "shelf/notebook 1/page 3.jpg was left out of that import: it is left out again." in out
    assert _states(data, again) == ["already_imported"]
    [source] = [
        s
        for s in orjson.loads(again.read_bytes())["items"][0]["sources"]
        if s["provenance"]["rel"].endswith("page 3.jpg")
    ]
    assert source["excluded"] is True
    ok(run_cli(data, "commit", str(again)))
    notebooks = cli_json(data, "notebooks", "--json")["notebooks"]
    assert [nb["page_count"] for nb in notebooks] == [3]  # nothing imported, no second one
    runs = cli_json(data, "runs", "--json")["runs"]
    shown = cli_json(data, "show", str(runs[0]["import_run_id"]), "--json")
    assert {n["file"]: n["reason"] for n in shown["not_imported"]} == {
        "shelf/notebook 1/page 3.jpg": (
            "left out again, as it was left out of an earlier import of its folder"
        )
    }


def test_include_takes_it_back_and_completes_the_notebook_with_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shelf, _run = _first_import(data, tmp_path)
    again = tmp_path / "again.json"
    ok(run_cli(data, "plan", str(shelf), "-o", str(again)))
    ok(run_cli(data, "order", str(again), _item(again), "--include", "page 3.jpg"))
    assert _states(data, again) == ["partly_imported"]
    ok(run_cli(data, "order", str(again), _item(again), "--complete"))
    ok(run_cli(data, "commit", str(again)))
    [notebook] = cli_json(data, "notebooks", "--json")["notebooks"]
    assert notebook["page_count"] == 4


def test_an_undone_imports_choices_are_not_carried(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shelf, run_id = _first_import(data, tmp_path)
    ok(run_cli(data, "revert", run_id))
    again = tmp_path / "again.json"
    out = ok(run_cli(data, "plan", str(shelf), "-o", str(again))).stdout
    assert "4 pages to import" in out
    assert "left out" not in out


def test_a_broken_file_left_out_then_is_left_out_again_unasked(tmp_path: Path) -> None:
    """A page file cut short, left out of the first import: the folder scanned again does
    not ask again (no error), and says it is left out as before."""
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", notebooks=1, pages=3)
    broken = shelf / "notebook 1" / "page 4.jpg"
    broken.write_bytes((shelf / "notebook 1" / "page 1.jpg").read_bytes()[:600])
    first = tmp_path / "first.json"
    ok(run_cli(data, "plan", str(shelf), "-o", str(first)))
    assert _states(data, first, rc=3) == ["source_unreadable"]
    ok(run_cli(data, "order", str(first), _item(first), "--exclude", "page 4.jpg"))
    ok(run_cli(data, "commit", str(first)))

    again = tmp_path / "again.json"
    out = ok(run_cli(data, "plan", str(shelf), "-o", str(again))).stdout
    assert "shelf/notebook 1/page 4.jpg was left out of that import: it is left out again." in out
    assert _states(data, again) == ["already_imported"]  # no error to answer again
