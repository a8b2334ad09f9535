"""The one rule of an incomplete notebook (runs/incomplete.py), each of its branches in-process:
a failed item, a retry that finishes the item, an undo of that retry, another plan that
brings the missing files in, and the cost when every import finished."""

from __future__ import annotations

from pathlib import Path

import pytest

from transcribe_import.engine import api
from transcribe_import.engine.runs import incomplete
from transcribe_import.engine.runs.model import RunStatus
from transcribe_import.engine.runs.undo import revert_run
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus, NotebookState

from helpers.runs import cancelled_part_way, commit_plan, plan_for
from helpers.shelves import make_shelf

PAGES = 70


def _shelf(tmp_path: Path) -> Path:
    return make_shelf(tmp_path / "shelf", 1, PAGES, folder="Register", size=(120, 160))


def _cancelled_part_way(corpus: Corpus, shelf: Path) -> tuple[str, str]:
    """The notebook's import cancelled once its first checkpoint landed: run id, notebook id."""
    result, plan = cancelled_part_way(corpus, shelf)
    return result.run_id, plan.items[0].notebook_id


def _pages(corpus: Corpus, notebook_id: str) -> int:
    return len(project.read(corpus.notebook_dir(notebook_id), notebook_id)["pages"])


def test_a_failed_item_leaves_its_notebook_incomplete(corpus: Corpus, tmp_path: Path) -> None:
    shelf = _shelf(tmp_path)
    plan = plan_for(corpus, shelf)
    # The last page grows after planning: its hash no longer matches, and the item fails
    # there, after its first checkpoint landed.
    with (shelf / "Register" / f"page {PAGES}.jpg").open("ab") as f:
        f.write(b"\0" * 4096)
    result = commit_plan(corpus, plan, workers=1)
    assert result.status is RunStatus.FAILED
    notebook_id = plan.items[0].notebook_id
    u = api.notebook_state(corpus, notebook_id)
    assert u is not None and u.run_id == result.run_id and u.run_ended
    assert u.pages_expected == PAGES and u.pages_landed == _pages(corpus, notebook_id)
    assert 0 < u.pages_landed < PAGES


def test_a_retry_finishes_it_and_an_undo_of_the_retry_brings_the_mark_back(
    corpus: Corpus, tmp_path: Path
) -> None:
    run_id, notebook_id = _cancelled_part_way(corpus, _shelf(tmp_path))
    landed = _pages(corpus, notebook_id)
    (listed,) = api.list_notebooks(corpus)
    assert listed.state is NotebookState.INCOMPLETE
    assert listed.to_json()["unfinished_import"]["run_id"] == run_id

    retry = api.prepare_retry(corpus, run_id)
    assert api.execute(corpus, retry.run_id).status is RunStatus.COMPLETE
    (listed,) = api.list_notebooks(corpus)
    assert listed.state is NotebookState.COMPLETE and listed.to_json()["unfinished_import"] is None

    revert_run(corpus, retry.run_id)  # the retry's pages go; the first run's stay
    u = api.notebook_state(corpus, notebook_id)
    assert (
        u is not None
        and u.run_id == run_id
        and u.pages_landed == landed == _pages(corpus, notebook_id)
    )


def test_another_plan_that_brings_the_missing_files_in_completes_it(
    corpus: Corpus, tmp_path: Path
) -> None:
    shelf = _shelf(tmp_path)
    _run_id, notebook_id = _cancelled_part_way(corpus, shelf)
    assert api.notebook_state(corpus, notebook_id) is not None
    # The same folder into the notebook, by another plan (other item ids): what is there is
    # skipped as a duplicate, the rest is imported.
    into = plan_for(corpus, shelf, mode=f"into:{notebook_id}")
    assert commit_plan(corpus, into).status is RunStatus.COMPLETE
    assert _pages(corpus, notebook_id) == PAGES
    assert api.notebook_state(corpus, notebook_id) is None


def test_nothing_unfinished_reads_no_notebook(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit_plan(corpus, plan_for(corpus, make_shelf(tmp_path / "shelf", notebooks=3)))
    read: list[str] = []
    real = project.read
    monkeypatch.setattr(project, "read", lambda d, i=None: read.append(str(d)) or real(d, i))
    assert incomplete.unfinished_imports(corpus) == {}
    assert read == []  # the run records alone say every item finished
