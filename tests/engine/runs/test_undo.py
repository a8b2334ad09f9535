"""Undoing a run as a group: what moves into the trash, the record, the audit, refusals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from transcribe_import.engine import api
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.ids import short_id
from transcribe_import.engine.doctor import doctor
from transcribe_import.engine.runs.model import RunStatus
from transcribe_import.engine.runs.revert import RevertBlock
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.runs.undo import RevertBlocked
from transcribe_import.engine.storage import trash
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import assert_notebook_whole, snapshot
from helpers.runs import commit_plan, later_work, plan_for
from helpers.shelves import make_pages, make_shelf


def _project(corpus: Corpus, notebook_id: str) -> dict[str, Any]:
    return orjson.loads((corpus.notebook_dir(notebook_id) / "project.json").read_bytes())


def _tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): p.read_bytes().hex()[:64]
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


def test_revert_moves_the_notebooks_it_created_into_the_trash(corpus: Corpus, first):
    plan, run_id = first
    ids = [it.notebook_id for it in plan.items]
    before = {n: snapshot(corpus.notebook_dir(n)) for n in ids}
    result = api.revert(corpus, run_id)
    assert not result.already and result.plan.pages == 6
    for n in ids:
        assert not corpus.notebook_dir(n).exists() and not corpus.is_registered(n)
        moved = result.trash_dir / "notebooks" / n
        assert snapshot(moved) == before[n]  # every file, byte for byte, in the trash
    record = RunStore(corpus).load(run_id)
    assert record.status is RunStatus.REVERTED
    assert record.doc["revert"]["revert_id"] == result.revert_id
    events = [h["event"] for h in record.doc["history"]]
    assert events == ["created", "started", "complete", "revert_requested", "reverted"]
    journal = trash.read_journal(corpus, result.revert_id)
    assert journal["state"] == trash.DONE and journal["import_run_id"] == run_id
    assert sum(len(n["files"]) for n in journal["notebooks"]) == 12
    assert all(f["sha256"] for n in journal["notebooks"] for f in n["files"])
    assert doctor(corpus).clean


def test_a_second_revert_is_a_no_op_that_says_so(corpus: Corpus, first):
    _, run_id = first
    done = api.revert(corpus, run_id)
    again = api.revert(corpus, run_id)
    assert again.already and again.revert_id == done.revert_id
    assert again.plan.pages == done.plan.pages == 6  # what it took out, from its journal
    preview = api.preview_revert(corpus, run_id)
    assert preview.already_reverted and preview.revert_id == done.revert_id
    history = [h["event"] for h in RunStore(corpus).load(run_id).doc["history"]]
    assert history.count("reverted") == 1 and history.count("revert_requested") == 1


def test_pages_added_to_an_existing_notebook_are_taken_out_and_nothing_else(
    corpus: Corpus, first, tmp_path: Path
):
    plan, first_run = first
    target = plan.items[0].notebook_id
    kept = _project(corpus, target)
    make_pages(tmp_path / "late", 2, name="late {i}.png")
    second = commit_plan(corpus, plan_for(corpus, tmp_path / "late", mode=f"into:{target}"))
    grown = _project(corpus, target)
    assert len(grown["pages"]) == 5

    result = api.revert(corpus, second.run_id)
    [nb] = result.plan.notebooks
    assert not nb.whole and corpus.is_registered(target)
    now = assert_notebook_whole(corpus, target)
    assert now["pages"] == kept["pages"] and now["sources"] == kept["sources"]
    for rel in nb.files:
        assert not (corpus.notebook_dir(target) / rel).exists()
        assert (result.trash_dir / "notebooks" / target / rel).is_file()
    saved = result.trash_dir / "projects" / f"{target}.before.json"
    assert orjson.loads(saved.read_bytes())["pages"] == grown["pages"]
    assert doctor(corpus).clean
    # The first run is revertible again now that the later pages are gone.
    assert api.preview_revert(corpus, first_run).plan.ok


@pytest.mark.parametrize(("edit", "code"), later_work())
def test_a_refused_revert_changes_nothing(corpus: Corpus, first, edit, code):
    plan, run_id = first
    target = plan.items[0].notebook_id
    doc = _project(corpus, target)
    edit(doc)
    (corpus.notebook_dir(target) / "project.json").write_bytes(orjson.dumps(doc))
    before = _tree(corpus.root)
    with pytest.raises(RevertBlocked) as caught:
        api.revert(corpus, run_id)
    assert code in {b.code for b in caught.value.plan.blockers}
    assert f"({target[:8]}): " in str(caught.value)  # the notebook as `notebooks` lists it
    assert _tree(corpus.root) == before
    assert RunStore(corpus).load(run_id).status is RunStatus.COMPLETE


def test_a_later_run_into_its_notebook_blocks_it_until_that_run_is_undone(
    corpus: Corpus, first, tmp_path: Path
):
    plan, first_run = first
    target = plan.items[1].notebook_id
    make_pages(tmp_path / "late", 1, name="late {i}.png")
    later = commit_plan(corpus, plan_for(corpus, tmp_path / "late", mode=f"into:{target}"))
    with pytest.raises(RevertBlocked) as caught:
        api.revert(corpus, first_run)
    assert {b.code for b in caught.value.plan.blockers} == {RevertBlock.LATER_PAGES}
    assert short_id(later.run_id) in str(caught.value)
    api.revert(corpus, later.run_id)
    api.revert(corpus, first_run)
    assert not any(corpus.is_registered(it.notebook_id) for it in plan.items)


def test_the_same_plan_committed_after_a_revert_makes_a_new_run(corpus: Corpus, first):
    plan, run_id = first
    api.revert(corpus, run_id)
    again = commit_plan(corpus, plan)
    assert again.run_id != run_id and again.status is RunStatus.COMPLETE
    record = RunStore(corpus).load(again.run_id)
    assert record.doc["history"][0]["retry_of"] == run_id
    for it in plan.items:  # the plan's own ids, imported again
        doc = assert_notebook_whole(corpus, it.notebook_id)
        assert [p["id"] for p in doc["pages"]] == [
            p.page_id for s in it.imported_sources() for p in s.pages
        ]
    assert doctor(corpus).clean


def test_a_cancelled_run_that_landed_nothing_has_nothing_to_undo(corpus: Corpus, tmp_path: Path):
    from transcribe_import.engine.runs.model import RunControl

    plan = plan_for(corpus, make_shelf(tmp_path / "s", notebooks=1, pages=2))
    control = RunControl()
    control.cancel()
    result = commit_plan(corpus, plan, control=control)
    assert result.status is RunStatus.CANCELLED
    with pytest.raises(RevertBlocked) as caught:
        api.revert(corpus, result.run_id)
    assert {b.code for b in caught.value.plan.blockers} == {RevertBlock.NOTHING_LANDED}


def test_trash_lists_and_purges_only_on_request(corpus: Corpus, first):
    _, run_id = first
    result = api.revert(corpus, run_id)
    entries, problems = api.list_trash(corpus)
    assert not problems
    [entry] = entries
    assert entry.revert_id == result.revert_id and entry.run_id == run_id
    assert entry.notebooks == 2 and entry.pages == 6 and entry.files == 12 and entry.bytes > 0
    api.purge_trash(corpus, result.revert_id)
    assert not result.trash_dir.exists() and api.list_trash(corpus) == ([], [])
    # The run stays reverted; its record and audit are kept.
    assert RunStore(corpus).load(run_id).status is RunStatus.REVERTED


def test_audit_entries_name_the_app_and_only_the_asker(corpus: Corpus, first):
    _, run_id = first
    api.revert(corpus, run_id)
    history = RunStore(corpus).load(run_id).doc["history"]
    for h in history:
        assert h["actor"] == "transcribe-import" and h["app_version"]
        assert ("requested_by" in h) == (h["event"] in {"created", "revert_requested"})
        assert "by" not in h
    words = api.run_history(RunStore(corpus).load(run_id))
    assert [w.event for w in words][-2:] == ["revert_requested", "reverted"]
    assert words[-1].detail["revert_id"]


def _source_of(plan, k: int) -> Path:
    return Path(plan.items[k].sources[0].provenance.path)


def test_a_partial_run_is_undone_as_far_as_it_landed(corpus: Corpus, tmp_path: Path):
    plan = plan_for(corpus, make_shelf(tmp_path / "shelf", notebooks=2, pages=2))
    _source_of(plan, 1).unlink()  # the second notebook's first page vanished: it fails
    result = commit_plan(corpus, plan, workers=1)
    assert result.status is RunStatus.PARTIAL
    undone = api.revert(corpus, result.run_id)
    assert [n.notebook_id for n in undone.plan.notebooks] == [plan.items[0].notebook_id]
    assert not corpus.is_registered(plan.items[0].notebook_id)
    assert RunStore(corpus).load(result.run_id).status is RunStatus.REVERTED
    assert doctor(corpus).clean


def test_a_run_cancelled_with_commits_is_undone(corpus: Corpus, tmp_path: Path):
    from transcribe_import.engine.runs.model import EventKind, RunControl

    plan = plan_for(corpus, make_shelf(tmp_path / "shelf", notebooks=3, pages=2))
    control = RunControl()

    def cancel_after_first(event) -> None:  # type: ignore[no-untyped-def]
        if event.kind is EventKind.ITEM_FINISHED:
            control.cancel()

    result = commit_plan(corpus, plan, workers=1, control=control, on_event=cancel_after_first)
    assert result.status is RunStatus.CANCELLED_WITH_COMMITS
    landed = [it.notebook_id for it in plan.items if corpus.is_registered(it.notebook_id)]
    assert landed
    undone = api.revert(corpus, result.run_id)
    assert sorted(n.notebook_id for n in undone.plan.notebooks) == sorted(landed)
    assert not any(corpus.is_registered(n) for n in landed)
    assert doctor(corpus).clean


# -- late pages and rescans: an undo puts the notebook back as it was -----------------------


def _into(corpus: Corpus, tmp_path: Path, target: str, name: str, n: int):  # type: ignore[no-untyped-def]
    make_pages(tmp_path / name, n, name=name + " {i}.png", tag=name)
    return plan_for(corpus, tmp_path / name, mode=f"into:{target}")


def test_undoing_placed_pages_and_a_rescan_restores_the_notebook_exactly(
    corpus: Corpus, tmp_path: Path
):
    from transcribe_import.engine.planning import placement

    plan = plan_for(corpus, make_shelf(tmp_path / "shelf", notebooks=1, pages=3))
    commit_plan(corpus, plan)
    target = plan.items[0].notebook_id
    doc = _project(corpus, target)
    cover = doc["pages"][1]["id"]
    doc["cover_page_id"] = cover  # the second page is the cover...
    (corpus.notebook_dir(target) / "project.json").write_bytes(orjson.dumps(doc))
    before = _project(corpus, target)

    late = _into(corpus, tmp_path, target, "late", 2)
    [item] = late.items
    rescan, *_ = [p.page_id for s in item.sources for p in s.pages]
    item = placement.place(item, at=1)
    item = placement.replace_page(item, rescan, cover)  # ...and is rescanned
    run = commit_plan(corpus, late.with_item(item))
    assert run.status is RunStatus.COMPLETE
    grown = _project(corpus, target)
    assert grown["cover_page_id"] == rescan and grown["replaced_pages"][0]["page"]["id"] == cover
    assert api.preview_revert(corpus, run.run_id).plan.ok

    api.revert(corpus, run.run_id)
    after = assert_notebook_whole(corpus, target)
    assert {**after, "updated_at": None} == {**before, "updated_at": None}
    assert doctor(corpus).clean


def test_a_later_rescan_of_a_page_blocks_undoing_the_import_that_added_it(
    corpus: Corpus, tmp_path: Path
):
    from transcribe_import.engine.planning import placement

    plan = plan_for(corpus, make_shelf(tmp_path / "shelf", notebooks=1, pages=2))
    commit_plan(corpus, plan)
    target = plan.items[0].notebook_id
    first = commit_plan(corpus, _into(corpus, tmp_path, target, "late", 1))
    added = _project(corpus, target)["pages"][-1]["id"]
    again = _into(corpus, tmp_path, target, "again", 1)
    [item] = again.items
    item = placement.replace_page(item, item.sources[0].pages[0].page_id, added)
    later = commit_plan(corpus, again.with_item(item))
    with pytest.raises(RevertBlocked) as caught:
        api.revert(corpus, first.run_id)
    # Said once, as what it is: no "reordered" for the rescan standing in the page's place.
    assert [b.code for b in caught.value.plan.blockers] == [RevertBlock.REPLACED]
    assert short_id(later.run_id) in str(caught.value)
    api.revert(corpus, later.run_id)  # the rescan first: the added page is back...
    api.revert(corpus, first.run_id)  # ...then the import that added it
    assert len(assert_notebook_whole(corpus, target)["pages"]) == 2
    assert doctor(corpus).clean


def test_a_rescan_into_a_notebook_the_run_created_is_one_reason_and_a_true_one(
    corpus: Corpus, tmp_path: Path
):
    """A later rescan replacing a page of a notebook the run created: "replaced", once; not
    "renamed or another tool added to it" (its history key is an import's), nor "reordered"."""
    from transcribe_import.engine.planning import placement

    plan = plan_for(corpus, make_shelf(tmp_path / "shelf", notebooks=1, pages=3))
    first = commit_plan(corpus, plan)
    target = plan.items[0].notebook_id
    replaced = _project(corpus, target)["pages"][1]["id"]
    again = _into(corpus, tmp_path, target, "again", 1)
    [item] = again.items
    commit_plan(
        corpus,
        again.with_item(placement.replace_page(item, item.sources[0].pages[0].page_id, replaced)),
    )
    blockers = api.preview_revert(corpus, first.run_id).plan.blockers
    assert [b.code for b in blockers] == [RevertBlock.REPLACED]
    assert "1 page of this import was replaced" in blockers[0].message


def test_pages_changed_since_are_one_reason_naming_them_by_number(corpus: Corpus, first):
    plan, run_id = first
    target = plan.items[0].notebook_id
    doc = _project(corpus, target)
    doc["pages"][0]["label"] = "1r"
    doc["pages"][2]["transcription"] = "Dear diary"
    (corpus.notebook_dir(target) / "project.json").write_bytes(orjson.dumps(doc))
    [blocker] = api.preview_revert(corpus, run_id).plan.blockers
    assert blocker.code is RevertBlock.PAGE_CHANGED and blocker.pages == (1, 3)
    assert "2 pages of this import changed since (page 1: label added; page 3: " in (
        blocker.message
    )


def _rename(corpus: Corpus, notebook_id: str, title: str) -> None:
    doc = _project(corpus, notebook_id)
    doc["title"] = title
    (corpus.notebook_dir(notebook_id) / "project.json").write_bytes(orjson.dumps(doc))


def test_the_notebooks_nothing_blocks_are_undone_and_the_blocked_one_stays(corpus: Corpus, first):
    plan, run_id = first
    blocked, free = (it.notebook_id for it in plan.items)
    title = _project(corpus, blocked)["title"]
    _rename(corpus, blocked, "Renamed since")
    with pytest.raises(RevertBlocked):  # as a group: refused, nothing changed
        api.revert(corpus, run_id)
    offer = api.free_to_undo(api.preview_revert(corpus, run_id).plan)
    assert offer is not None and [n.notebook_id for n in offer.notebooks] == [free]
    assert offer.held_titles == ("Renamed since",)

    result = api.revert(corpus, run_id, leave_blocked=True)
    assert result.plan.partial and [n.notebook_id for n in result.plan.notebooks] == [free]
    assert [b.code for b in result.plan.held] == [RevertBlock.RENAMED]
    assert corpus.is_registered(blocked) and not corpus.is_registered(free)
    record = RunStore(corpus).load(run_id)
    assert record.status is RunStatus.COMPLETE  # part of it is still in the corpus
    assert record.doc["revert"]["partial"] is True
    assert [h["event"] for h in record.doc["history"]][-1] == "partly_reverted"
    assert doctor(corpus).clean

    # Once the block is lifted, undoing again takes the rest: the run is undone whole.
    _rename(corpus, blocked, title)
    rest = api.revert(corpus, run_id)
    assert [n.notebook_id for n in rest.plan.notebooks] == [blocked] and not rest.plan.partial
    assert RunStore(corpus).load(run_id).status is RunStatus.REVERTED
    assert not corpus.is_registered(blocked)


def test_a_partial_undo_is_put_back_from_the_trash(corpus: Corpus, first):
    plan, run_id = first
    blocked, free = (it.notebook_id for it in plan.items)
    before = snapshot(corpus.notebook_dir(free))
    _rename(corpus, blocked, "Renamed since")
    result = api.revert(corpus, run_id, leave_blocked=True)
    back = api.restore_from_trash(corpus, result.revert_id)
    assert isinstance(back, api.RestoreResult) and back.status is RunStatus.COMPLETE
    assert corpus.is_registered(free) and snapshot(corpus.notebook_dir(free)) == before
    assert doctor(corpus).clean


def test_a_partial_undo_stopped_half_way_is_finished_as_partial(corpus: Corpus, tmp_path: Path):
    plan = plan_for(corpus, make_shelf(tmp_path / "shelf", notebooks=3, pages=2))
    run_id = commit_plan(corpus, plan).run_id
    blocked = plan.items[0].notebook_id
    _rename(corpus, blocked, "Renamed since")
    asked = iter([False, False, True])  # before it begins, the first notebook; then stop
    with pytest.raises(TranscribeError) as caught:
        api.revert(corpus, run_id, lambda: next(asked), leave_blocked=True)
    assert caught.value.code is ErrorCode.REVERT_STOPPED
    assert RunStore(corpus).load(run_id).doc["revert"]["notebook_ids"] == [
        it.notebook_id for it in plan.items[1:]
    ]

    done = api.revert(corpus, run_id)  # finishes the undo asked for: the blocked one stays
    assert done.plan.partial and done.plan.held_titles == ("Renamed since",)
    assert corpus.is_registered(blocked)
    assert not any(corpus.is_registered(it.notebook_id) for it in plan.items[1:])
    assert RunStore(corpus).load(run_id).status is RunStatus.COMPLETE
    assert doctor(corpus).clean
