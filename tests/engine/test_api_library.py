"""engine.api's library: a notebook's pages read back as project.json has them, a run's pages
by the run id their sources carry, the folders each notebook came from; read-only."""

from __future__ import annotations

from pathlib import Path

import pytest

from transcribe_import.engine import api
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.planning.plan import AdapterMode
from transcribe_import.engine.runs.model import RunStatus
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import page_image


@pytest.fixture
def corpus(data_dir: Path) -> Corpus:
    return Corpus.open(data_dir)


def _import(corpus: Corpus, shelf: Path) -> tuple[str, list[str]]:
    """Plan and commit ``shelf``: the run and its notebooks, in plan order."""
    plan = api.plan_paths(corpus, api.PlanRequest((shelf,))).plan
    prepared = api.prepare_commit(corpus, plan)
    assert api.execute(corpus, prepared.run_id).status is RunStatus.COMPLETE
    return prepared.run_id, [item.notebook_id for item in plan.items]


def test_a_notebook_reads_back_as_its_project_json(corpus: Corpus, tmp_path: Path) -> None:
    for name in ("cover.jpg", "f. 1r.jpg", "f. 1v.jpg"):
        page_image(tmp_path / "shelf" / "Diary" / name, name)
    run_id, [notebook_id] = _import(corpus, tmp_path / "shelf")
    before = (corpus.notebook_dir(notebook_id) / "project.json").read_bytes()

    notebook = api.read_notebook(corpus, notebook_id)
    doc = project.read(corpus.notebook_dir(notebook_id), notebook_id)
    assert [p.page_id for p in notebook.pages] == [p["id"] for p in doc["pages"]]
    assert [p.label for p in notebook.pages] == [None, "1r", "1v"]
    assert [p.position for p in notebook.pages] == [1, 2, 3]
    assert [p.source.name for p in notebook.pages] == ["cover.jpg", "f. 1r.jpg", "f. 1v.jpg"]
    assert all(p.source.path.is_file() and p.render and p.render.is_file() for p in notebook.pages)
    assert notebook.cover_page_id == doc["cover_page_id"] == notebook.pages[0].page_id
    assert notebook.source_folders == (str(tmp_path / "shelf" / "Diary"),)
    assert notebook.unfinished is None and notebook.history == () and notebook.run_id is None
    assert api.notebook_sources(corpus, [notebook_id, "not-a-notebook"]) == {
        notebook_id: notebook.source_folders
    }
    assert (corpus.notebook_dir(notebook_id) / "project.json").read_bytes() == before


def test_a_run_shows_only_the_pages_it_added_and_nothing_once_undone(
    corpus: Corpus, tmp_path: Path
) -> None:
    for n in range(2):
        for p in range(1, 3):
            page_image(tmp_path / "first" / f"notebook {n}" / f"page {p}.jpg", f"{n}/{p}")
    first, notebooks = _import(corpus, tmp_path / "first")
    shown = api.run_pages(corpus, first)
    assert [nb.notebook_id for nb in shown] == notebooks
    assert all(len(nb.pages) == 2 and nb.run_id == first for nb in shown)

    page_image(tmp_path / "later" / "page 3.jpg", "late")
    plan = api.plan_paths(
        corpus,
        api.PlanRequest((tmp_path / "later",), mode=AdapterMode.into(notebooks[0])),
    )
    prepared = api.prepare_commit(corpus, plan.plan)
    api.execute(corpus, prepared.run_id)
    [added] = api.run_pages(corpus, prepared.run_id)
    assert [p.source.name for p in added.pages] == ["page 3.jpg"]
    assert [p.position for p in added.pages] == [3] and added.page_count == 3
    assert [len(nb.pages) for nb in api.run_pages(corpus, first)] == [2, 2]

    api.revert(corpus, prepared.run_id)
    assert api.run_pages(corpus, prepared.run_id) == []
    with pytest.raises(TranscribeError) as refused:
        api.read_notebook(corpus, "0" * 8)
    assert refused.value.code is ErrorCode.NOTEBOOK_NOT_FOUND
    assert "it was never imported there, or it was undone since" in str(refused.value)
