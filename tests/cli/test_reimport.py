"""Importing a shelf again (#22): duplicates across the corpus by default, decided one commit
after the other, so that no timing makes a page land twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.cli import (
    EXIT_OK,
    assert_doctor_clean,
    cli_json,
    finish,
    go_on,
    ok,
    run_cli,
    start_cli,
    stop_at,
    wait_stopped,
)
from helpers.shelves import make_shelf

WAITING = (
    "transcribe-import: waiting for another import into this corpus to finish: duplicates "
    "across the corpus are decided one import at a time (Ctrl-C cancels this one)."
)


def _plan(data: Path, out: Path, root: Path, *options: str) -> Path:
    ok(run_cli(data, "plan", str(root), "-o", str(out), *options))
    return out


@pytest.mark.crash
def test_two_concurrent_commits_of_one_folder_land_each_page_once(tmp_path: Path) -> None:
    """Main: both exited 0 and every page was in the corpus twice."""
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", notebooks=2, pages=4, size=(1600, 2200))
    first = _plan(data, tmp_path / "a.json", shelf)
    second = _plan(data, tmp_path / "b.json", shelf)
    # A stops after staging its first page: it is mid-commit, its decision taken.
    a = start_cli(data, "commit", str(first), "--json", env=stop_at("ingest.stage.after_source"))
    b = None
    try:
        wait_stopped(a)
        b = start_cli(data, "commit", str(second), "--json", env=stop_at("run.waiting_for_corpus"))
        wait_stopped(b)  # B is committing too, and found A deciding: the commits overlap
        go_on(b)
        go_on(a)
        _a_out, a_err = finish(a)
        b_out, b_err = finish(b)
    finally:
        for proc in (a, b):
            if proc is not None and proc.returncode is None:
                proc.kill()
                proc.wait()
    assert a.returncode == EXIT_OK, a_err
    assert b.returncode == EXIT_OK, b_err
    assert WAITING in b_err
    assert '"all_duplicates"' in b_out
    notebooks = cli_json(data, "notebooks", "--json")["notebooks"]
    assert sorted(nb["page_count"] for nb in notebooks) == [4, 4]
    assert_doctor_clean(data)


def test_a_plan_looks_across_the_corpus_by_default_and_notebook_opts_out(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", notebooks=1, pages=3)
    ok(run_cli(data, "commit", str(_plan(data, tmp_path / "a.json", shelf))))
    again = _plan(data, tmp_path / "b.json", shelf)
    assert cli_json(data, "commit", str(again), "--json")["counts"]["skipped"] == 1
    apart = _plan(data, tmp_path / "c.json", shelf, "--dedupe", "notebook")
    ok(run_cli(data, "commit", str(apart)))
    notebooks = cli_json(data, "notebooks", "--json")["notebooks"]
    assert sorted(nb["page_count"] for nb in notebooks) == [3, 3]
