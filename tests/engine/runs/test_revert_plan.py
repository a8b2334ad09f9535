"""What undoing a run would remove, and each cause that blocks it, read from the corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from transcribe_import.engine.ingest.checkpoints import CHECKPOINT_PAGES
from transcribe_import.engine.planning.plan import DedupeScope
from transcribe_import.engine.runs.model import RunStatus
from transcribe_import.engine.runs.revert import RevertBlock, plan_revert
from transcribe_import.engine.runs.service import prepare_run
from transcribe_import.engine.storage.corpus import Corpus

from helpers.runs import commit_plan, later_work, plan_for
from helpers.shelves import make_pages, make_shelf


def _project(corpus: Corpus, notebook_id: str) -> dict[str, Any]:
    return orjson.loads((corpus.notebook_dir(notebook_id) / "project.json").read_bytes())


def _rewrite(corpus: Corpus, notebook_id: str, doc: dict[str, Any]) -> None:
    path = corpus.notebook_dir(notebook_id) / "project.json"
    path.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))


def _codes(rp) -> set[RevertBlock]:
    return {b.code for b in rp.blockers}


def test_a_complete_run_removes_the_notebooks_it_created_whole(corpus: Corpus, first):
    plan, run_id = first
    rp = plan_revert(corpus, run_id)
    assert rp.ok and rp.status is RunStatus.COMPLETE and rp.pages == 6
    assert {n.notebook_id for n in rp.notebooks} == {it.notebook_id for it in plan.items}
    for n in rp.notebooks:
        doc = _project(corpus, n.notebook_id)
        assert n.whole and set(n.page_ids) == {p["id"] for p in doc["pages"]}
        assert set(n.files) == {s["path"] for s in doc["sources"]} | {
            p["render"]["path"] for p in doc["pages"]
        }


def test_into_an_existing_notebook_only_the_runs_pages_are_taken(
    corpus: Corpus, first, tmp_path: Path
):
    plan, _ = first
    target = plan.items[0].notebook_id
    make_pages(tmp_path / "late", 2, name="late {i}.png")
    late = plan_for(corpus, tmp_path / "late", mode=f"into:{target}")
    second = commit_plan(corpus, late).run_id

    rp = plan_revert(corpus, second)
    assert rp.ok
    [n] = rp.notebooks
    doc = _project(corpus, target)
    assert not n.whole and n.notebook_id == target and len(n.page_ids) == 2
    assert list(n.page_ids) == [p["id"] for p in doc["pages"]][-2:]
    # ...and the first run is now blocked: its notebook holds the later run's pages.
    blocked = plan_revert(corpus, first[1])
    assert RevertBlock.LATER_PAGES in _codes(blocked)
    assert second[:8] in next(b.message for b in blocked.blockers if b.notebook_id == target)


@pytest.mark.parametrize(("edit", "code"), later_work())
def test_later_work_blocks_the_revert_naming_the_notebook(corpus: Corpus, first, edit, code):
    plan, run_id = first
    target = plan.items[0].notebook_id
    doc = _project(corpus, target)
    edit(doc)
    _rewrite(corpus, target, doc)
    rp = plan_revert(corpus, run_id)
    assert not rp.ok and _codes(rp) == {code}
    [blocker] = rp.blockers
    # The words name it as `notebooks` lists it; the whole id is the blocker's notebook_id.
    assert blocker.notebook_id == target and f"({target[:8]}): " in blocker.message
    assert target not in blocker.message


def test_a_file_whose_bytes_changed_blocks_it(corpus: Corpus, first):
    plan, run_id = first
    target = plan.items[1].notebook_id
    doc = _project(corpus, target)
    render = corpus.notebook_dir(target) / doc["pages"][0]["render"]["path"]
    render.write_bytes(render.read_bytes() + b"x")
    rp = plan_revert(corpus, run_id)
    assert _codes(rp) == {RevertBlock.FILE_CHANGED} and str(render) in rp.blockers[0].message


def test_a_run_that_landed_nothing_has_nothing_to_undo(corpus: Corpus, first, tmp_path: Path):
    plan, _ = first
    again_plan = plan_for(corpus, tmp_path / "shelf", dedupe_scope=DedupeScope.CORPUS)
    assert all(not it.imported_sources() for it in again_plan.items)  # every file a duplicate
    again = commit_plan(corpus, again_plan)
    rp = plan_revert(corpus, again.run_id)
    assert _codes(rp) == {RevertBlock.NOTHING_LANDED} and not rp.notebooks


def test_a_run_not_ended_is_not_undone(corpus: Corpus, tmp_path: Path):
    plan = plan_for(corpus, make_shelf(tmp_path / "shelf", notebooks=1, pages=2))
    record, _ = prepare_run(corpus, plan)  # created, never executed: pending
    rp = plan_revert(corpus, record.run_id)
    assert (
        _codes(rp) == {RevertBlock.NOT_ENDED} and "resume it or cancel it" in rp.blockers[0].message
    )


def test_pages_a_failed_item_landed_in_its_checkpoints_are_found(corpus: Corpus, tmp_path: Path):
    make_pages(tmp_path / "big" / "register", CHECKPOINT_PAGES + 3, size=(120, 160))
    plan = plan_for(corpus, tmp_path / "big")
    plan.items[0].imported_sources()[CHECKPOINT_PAGES + 1].provenance.fs_path.unlink()
    result = commit_plan(corpus, plan, workers=1)
    assert result.status is RunStatus.FAILED  # no item committed, but one checkpoint landed
    rp = plan_revert(corpus, result.run_id)
    assert rp.ok, rp.blockers
    [n] = rp.notebooks
    assert n.whole and len(n.page_ids) == CHECKPOINT_PAGES
