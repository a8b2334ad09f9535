"""A folder imported before, recognised (planning/reimport.py): the notebook it completes,
where its new pages go by their names, the day it was imported in words."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from transcribe_import.engine.ingest.placement import Placement
from transcribe_import.engine.planning import reimport
from transcribe_import.engine.planning.plan import Op
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus

from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_pages


def _imported(corpus: Corpus, tmp_path: Path, names: list[int]) -> tuple[Path, str]:
    """“Register” holding the pages ``names`` of a folder of pages 1-6: the folder with all
    six, and the notebook's id."""
    folder = tmp_path / "shelf" / "Register"
    pages = make_pages(folder, 6, tag="reg")
    first = tmp_path / "first" / "Register"
    first.mkdir(parents=True)
    for i in names:
        shutil.copy(pages[i - 1], first / pages[i - 1].name)
    plan = plan_for(corpus, first.parent)
    commit_plan(corpus, plan)
    return folder.parent, plan.items[0].notebook_id


def test_new_pages_go_after_the_last_page_whose_name_sorts_before_them(
    corpus: Corpus, tmp_path: Path
) -> None:
    shelf, nbid = _imported(corpus, tmp_path, [1, 2, 5, 6])
    [item] = plan_for(corpus, shelf).items
    found = reimport.recognise(corpus, item)
    assert found is not None and found.kind is reimport.Recognition.PARTLY_IMPORTED
    assert (found.notebook_id, found.held_pages, found.new_pages) == (nbid, 4, 2)
    doc = project.read(corpus.notebook_dir(nbid), nbid)
    done = reimport.complete(item, nbid, doc)
    assert done.op is Op.IMPORT_INTO_NOTEBOOK and done.title is None
    assert done.placement == Placement(after_page=doc["pages"][1]["id"])
    assert [s.name for s in done.imported_sources()] == ["page 3.jpg", "page 4.jpg"]


def test_pages_that_belong_in_several_places_each_go_where_their_names_put_them(
    corpus: Corpus, tmp_path: Path
) -> None:
    shelf, nbid = _imported(corpus, tmp_path, [3, 4])
    [item] = plan_for(corpus, shelf).items
    found = reimport.recognise(corpus, item)
    assert found is not None and found.scattered
    assert reimport.recognised_words(found).endswith(
        "complete “Register” with the 4 new pages, each where its name puts it among its "
        "pages (they fill several gaps), rather than making a second notebook of them."
    )
    doc = project.read(corpus.notebook_dir(nbid), nbid)
    done = reimport.complete(item, nbid, doc)
    # Pages 1 and 2 at the start, pages 5 and 6 after page 4 (the notebook's last: named,
    # not "the end", so that they follow it whatever lands at the end before them).
    assert done.placement == Placement(at=1)
    by_name = {s.source_id: s.name for s in done.sources}
    assert [(by_name[sid], p) for sid, p in done.places] == [
        ("page 5.jpg", Placement(after_page=doc["pages"][1]["id"])),
        ("page 6.jpg", Placement(after_page=doc["pages"][1]["id"])),
    ]


def test_pages_of_one_gap_have_no_places_of_their_own(corpus: Corpus, tmp_path: Path) -> None:
    shelf, nbid = _imported(corpus, tmp_path, [1, 2, 5, 6])
    [item] = plan_for(corpus, shelf).items
    doc = project.read(corpus.notebook_dir(nbid), nbid)
    assert reimport.complete(item, nbid, doc).places == ()


def test_pages_after_every_page_go_at_the_end(corpus: Corpus, tmp_path: Path) -> None:
    shelf, nbid = _imported(corpus, tmp_path, [1, 2, 3, 4])
    [item] = plan_for(corpus, shelf).items
    found = reimport.recognise(corpus, item)
    assert found is not None and not found.scattered
    doc = project.read(corpus.notebook_dir(nbid), nbid)
    assert reimport.complete(item, nbid, doc).placement is None


def test_a_notebook_sharing_a_page_with_the_folder_is_no_notebook_to_complete(
    corpus: Corpus, tmp_path: Path
) -> None:
    diary = make_pages(tmp_path / "one" / "Diary", 3, tag="diary")
    commit_plan(corpus, plan_for(corpus, tmp_path / "one"))
    letters = tmp_path / "two" / "Letters"
    make_pages(letters, 2, tag="letters")
    shutil.copy(diary[0], letters / "page 9.jpg")
    [item] = plan_for(corpus, tmp_path / "two").items
    assert reimport.recognise(corpus, item) is None


def test_the_day_it_was_imported_in_words() -> None:
    now = "2026-12-03T10:00:00Z"
    assert reimport.day_words("2026-12-03T09:00:00.123456Z", now) == "3 December"
    assert reimport.day_words("2025-01-21T09:00:00Z", now) == "21 January 2025"
    assert reimport.day_words("", now) == ""


def test_a_notebook_marked_incomplete_is_said_so_and_only_the_one_to_complete_is_asked(
    corpus: Corpus, tmp_path: Path
) -> None:
    from transcribe_import.engine.storage.corpus import UnfinishedImport

    shelf, nbid = _imported(corpus, tmp_path, [1, 2])
    [item] = plan_for(corpus, shelf).items
    asked: list[str] = []

    def unfinished_of(notebook_id: str) -> UnfinishedImport | None:
        asked.append(notebook_id)
        return UnfinishedImport("r", "i", 6, 2, run_ended=True)

    found = reimport.recognise(corpus, item, unfinished_of=unfinished_of)
    assert found is not None and asked == [nbid]
    words = reimport.recognised_words(replace(found, imported_at=""))
    assert words == (
        "“Register” is incomplete: its import stopped after 2 of its 6 pages. Complete it "
        "with the 4 new pages, where their names put them among its pages, rather than making "
        "a second notebook of them."
    )
    running = replace(
        found, imported_at="", unfinished=UnfinishedImport("r", "i", None, 2, False, True)
    )
    assert reimport.recognised_words(running).startswith(
        "“Register” is incomplete: another process is importing it right now. Complete it"
    )
    unknown = replace(found, imported_at="", unfinished=UnfinishedImport("r", "i", None, 2, True))
    assert "its import stopped after 2 of its pages." in reimport.recognised_words(unknown)


def test_a_second_notebook_chosen_is_the_item_as_it_was_planned_new(
    corpus: Corpus, tmp_path: Path
) -> None:
    """Completing by default (what planning does, #34) and the choice of a second notebook
    (``order --new-notebook``) are each other's inverse: the new notebook is the item a
    plan made before, its held files skipped as in the corpus, with the same fingerprint."""
    from transcribe_import.engine.planning.plan import Duplicate

    shelf, nbid = _imported(corpus, tmp_path, [1, 2, 5, 6])
    plan = plan_for(corpus, shelf)
    [item] = plan.items
    found = reimport.recognise(corpus, item)
    assert found is not None
    manifest = project.read(corpus.notebook_dir(nbid), nbid)
    done = reimport.completed(item, found.notebook_id, manifest, reimport.Completion.FILES)
    assert reimport.completes_by_default(done) and done.notebook_id == nbid
    assert {s.duplicate for s in done.sources if not s.imported} == {Duplicate.IN_NOTEBOOK}
    again = reimport.as_new_notebook(done)
    # The item as planned, and the choice said (provenance: not fingerprinted).
    chosen = {**item.provenance, reimport.SECOND_NOTEBOOK: "files"}
    assert again == replace(item, provenance=chosen)
    assert plan.with_item(again).fingerprint == plan.fingerprint
    assert not reimport.completes_by_default(again)
