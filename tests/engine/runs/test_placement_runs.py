"""Late pages and rescans committed by a run: across checkpoints, paused and resumed.

An item of more than 32 pages placed in the middle of a notebook lands as one block over
several checkpoints; a run paused between two of them and resumed (or committed again)
leaves no page doubled or misplaced, and renders none of the landed pages again. A rescan
committed by a run records the run in the notebook's history.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from transcribe_import.engine.ingest.checkpoints import CHECKPOINT_PAGES
from transcribe_import.engine.planning import placement
from transcribe_import.engine.runs.executor import EventKind, RunControl, RunEvent, execute_run
from transcribe_import.engine.runs.model import RunStatus
from transcribe_import.engine.runs.service import prepare_run
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import assert_notebook_whole, ingest_pages, page_ids, snapshot
from helpers.runs import commit_plan, plan_for, planned_page_ids
from helpers.shelves import make_pages

LATE = CHECKPOINT_PAGES + 8  # two checkpoints: 32 pages, then 8


@pytest.fixture
def held(corpus: Corpus, notebook: str, tmp_path: Path) -> list[str]:
    return page_ids(
        ingest_pages(corpus, notebook, make_pages(tmp_path / "held", 6, name="held {i}.jpg"))
    )


@pytest.fixture
def late_plan(corpus: Corpus, notebook: str, tmp_path: Path, held: list[str]):
    """40 late pages to go after the notebook's third page."""
    make_pages(tmp_path / "late", LATE, name="late {i}.jpg", size=(60, 80), tag="L")
    plan = plan_for(corpus, tmp_path / "late", mode=f"into:{notebook}")
    [item] = plan.items
    return plan.with_item(placement.place(item, after_page=held[2]))


def order(corpus: Corpus, notebook: str) -> list[str]:
    return [p["id"] for p in assert_notebook_whole(corpus, notebook)["pages"]]


def test_a_placed_item_of_two_checkpoints_lands_as_one_block(
    corpus, notebook, held, late_plan
) -> None:
    result = commit_plan(corpus, late_plan)
    assert result.status is RunStatus.COMPLETE
    new = planned_page_ids(late_plan.items[0])
    assert order(corpus, notebook) == held[:3] + new + held[3:]


@pytest.mark.parametrize("how", ["resume", "commit again"])
def test_paused_between_checkpoints_then_finished(corpus, notebook, held, late_plan, how) -> None:
    control = RunControl()

    def on_event(ev: RunEvent) -> None:
        if ev.kind is EventKind.PAGES_LANDED:
            control.pause()  # heard before the next checkpoint starts

    record, _ = prepare_run(corpus, late_plan)
    first = execute_run(corpus, record.run_id, control=control, on_event=on_event)
    assert first.paused
    new = planned_page_ids(late_plan.items[0])
    assert order(corpus, notebook) == held[:3] + new[:CHECKPOINT_PAGES] + held[3:]
    kept = {k: v for k, v in snapshot(corpus.notebook_dir(notebook)).items() if "renders/" in k}

    if how == "resume":
        assert execute_run(corpus, record.run_id).status is RunStatus.COMPLETE
    else:
        from transcribe_import.engine.runs.service import cancel_run

        cancel_run(corpus, record.run_id)
        assert commit_plan(corpus, late_plan).status is RunStatus.COMPLETE
    assert order(corpus, notebook) == held[:3] + new + held[3:]
    now = snapshot(corpus.notebook_dir(notebook))
    assert {k: now[k] for k in kept} == kept  # no landed page rendered again


def test_a_run_replaces_a_page_and_records_itself(corpus, notebook, held, tmp_path) -> None:
    make_pages(tmp_path / "rescan", 2, name="rescan {i}.jpg", tag="R")
    plan = plan_for(corpus, tmp_path / "rescan", mode=f"into:{notebook}")
    [item] = plan.items
    rescan = placement.page_of_file(item, "rescan 1.jpg")
    plan = plan.with_item(placement.replace_page(placement.place(item, at=1), rescan, held[4]))
    result = commit_plan(corpus, plan)
    assert result.status is RunStatus.COMPLETE
    other = placement.page_of_file(item, "rescan 2.jpg")
    assert order(corpus, notebook) == [other, *held[:4], rescan, held[5]]
    doc = project.read(corpus.notebook_dir(notebook), notebook)
    [entry] = doc["replaced_pages"]
    assert entry["page"]["id"] == held[4]
    assert (entry["import_run_id"], entry["item_id"]) == (result.run_id, item.item_id)
    # Committing the plan again does nothing: the replacement is recognised as landed.
    again = commit_plan(corpus, plan)
    assert again.already_done or again.status is RunStatus.COMPLETE
    assert project.read(corpus.notebook_dir(notebook), notebook)["replaced_pages"] == [entry]
