"""Late pages and rescans in the ingest transaction: where pages land, what they replace.

Every other page keeps its id and its place; a replaced page's record moves to
``replaced_pages`` with its files kept; each rule is checked again under the lock, and a
refusal changes nothing; recovery lands a placed transaction exactly as a live one.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.ingest import placement
from transcribe_import.engine.ingest.checkpoints import Checkpoint, ingest_checkpoints
from transcribe_import.engine.ingest.placement import Placement
from transcribe_import.engine.ingest.recovery import recover_journal
from transcribe_import.engine.ingest.transaction import IngestCancelled, ingest
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import assert_notebook_whole, ingest_pages, page_ids, request_for, snapshot
from helpers.shelves import make_pages


def pages(tmp_path: Path, n: int, tag: str) -> list[Path]:
    return make_pages(tmp_path / tag, n, name=f"{tag} {{i}}.jpg", tag=tag)


@pytest.fixture
def five(corpus: Corpus, notebook: str, tmp_path: Path) -> list[str]:
    """The notebook holds five pages; their ids in order."""
    return page_ids(ingest_pages(corpus, notebook, pages(tmp_path, 5, "old")))


def page_order(corpus: Corpus, notebook: str) -> list[str]:
    return [p["id"] for p in assert_notebook_whole(corpus, notebook)["pages"]]


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        (Placement(at=1), lambda old, new: new + old),
        (Placement(at=3), lambda old, new: old[:2] + new + old[2:]),
        (Placement(at=6), lambda old, new: old + new),  # one past the last page: the end
        (None, lambda old, new: old + new),
    ],
    ids=["at 1", "in the middle", "at end+1", "no placement"],
)
def test_pages_land_at_the_position(corpus, notebook, tmp_path, five, where, expected) -> None:
    req = request_for(notebook, pages(tmp_path, 2, "new"), placement=where)
    ingest(corpus, req)
    assert page_order(corpus, notebook) == expected(five, page_ids(req))


def test_pages_land_after_a_named_page(corpus, notebook, tmp_path, five) -> None:
    req = request_for(notebook, pages(tmp_path, 2, "new"), placement=Placement(after_page=five[3]))
    ingest(corpus, req)
    assert page_order(corpus, notebook) == five[:4] + page_ids(req) + five[4:]


def test_a_rescan_takes_the_place_and_keeps_the_history(corpus, notebook, tmp_path, five) -> None:
    nb_dir = corpus.notebook_dir(notebook)
    before = project.read(nb_dir, notebook)
    files_before = snapshot(nb_dir)
    [rescan] = request_for(notebook, pages(tmp_path, 1, "rescan")).sources
    new_page = rescan.pages[0].page_id
    run_id, item_id = new_id(), new_id()
    req = request_for(notebook, [], import_run_id=run_id, item_id=item_id)
    req = replace(req, sources=(rescan,), replaces=((new_page, five[2]),))
    ingest(corpus, req)

    doc = assert_notebook_whole(corpus, notebook)
    assert [p["id"] for p in doc["pages"]] == five[:2] + [new_page] + five[3:]
    [entry] = doc["replaced_pages"]
    assert entry["page"] == before["pages"][2]  # the record as it was, every key
    assert entry["replaced_by"] == new_page
    assert (entry["import_run_id"], entry["item_id"]) == (run_id, item_id)
    assert entry["replaced_at"] == doc["updated_at"]
    # Nothing of the old page is gone: its source stays listed, every file stays.
    assert [s["id"] for s in doc["sources"]][:5] == [s["id"] for s in before["sources"]]
    now = snapshot(nb_dir)
    kept = {rel: sha for rel, sha in files_before.items() if rel != "project.json"}
    assert {rel: now.get(rel) for rel in kept} == kept


def test_the_rescan_of_the_cover_becomes_the_cover(corpus, notebook, tmp_path, five) -> None:
    nb_dir = corpus.notebook_dir(notebook)
    doc = project.read(nb_dir, notebook)
    doc["cover_page_id"] = five[0]
    doc["pages"][0]["label"] = "cover"
    project.write(nb_dir, doc)
    [rescan] = request_for(notebook, pages(tmp_path, 1, "rescan")).sources
    new_page = rescan.pages[0].page_id
    req = replace(request_for(notebook, []), sources=(rescan,), replaces=((new_page, five[0]),))
    ingest(corpus, req)
    doc = assert_notebook_whole(corpus, notebook)
    assert doc["cover_page_id"] == new_page
    # The rescan keeps the place's name, since its own file gave it none.
    assert doc["pages"][0]["label"] == "cover"


def test_replacing_and_placing_in_one_transaction(corpus, notebook, tmp_path, five) -> None:
    """New pages after a page this same transaction replaces go after its rescan."""
    specs = request_for(notebook, pages(tmp_path, 3, "new")).sources
    rescan = specs[0].pages[0].page_id
    req = replace(
        request_for(notebook, []),
        sources=specs,
        placement=Placement(after_page=five[1]),
        replaces=((rescan, five[1]),),
    )
    ingest(corpus, req)
    rest = [s.pages[0].page_id for s in specs[1:]]
    assert page_order(corpus, notebook) == [five[0], rescan, *rest, *five[2:]]


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (lambda five: {"placement": Placement(at=7)}, ErrorCode.PLACEMENT_OUT_OF_RANGE),
        (lambda five: {"placement": Placement(at=0)}, ErrorCode.PLACEMENT_OUT_OF_RANGE),
        (
            lambda five: {"placement": Placement(after_page=new_id())},
            ErrorCode.PLACEMENT_PAGE_NOT_FOUND,
        ),
        (lambda five: {"replaces": "unknown"}, ErrorCode.REPLACED_PAGE_NOT_FOUND),
    ],
    ids=["past the end", "before the start", "after no page", "replaces no page"],
)
def test_a_placement_the_notebook_refuses_changes_nothing(
    corpus, notebook, tmp_path, five, change, code
) -> None:
    nb_dir = corpus.notebook_dir(notebook)
    before = snapshot(nb_dir)
    req = request_for(notebook, pages(tmp_path, 2, "new"))
    kw = change(five)
    if kw.get("replaces") == "unknown":
        kw["replaces"] = ((page_ids(req)[0], new_id()),)
    with pytest.raises(TranscribeError) as info:
        ingest(corpus, replace(req, **kw))
    assert info.value.code == code
    assert "Notebook “Field notes”" in str(info.value) and "validate the plan again" in str(
        info.value
    )
    assert snapshot(nb_dir) == before


def test_a_page_replaced_already_is_refused_in_words(corpus, notebook, tmp_path, five) -> None:
    first, second = request_for(notebook, pages(tmp_path, 2, "rescan")).sources
    ingest(
        corpus,
        replace(
            request_for(notebook, []),
            sources=(first,),
            replaces=((first.pages[0].page_id, five[4]),),
        ),
    )
    before = snapshot(corpus.notebook_dir(notebook))
    late = replace(
        request_for(notebook, []), sources=(second,), replaces=((second.pages[0].page_id, five[4]),)
    )
    with pytest.raises(TranscribeError) as info:
        ingest(corpus, late)
    assert info.value.code == ErrorCode.REPLACED_PAGE_NOT_FOUND
    assert "was already replaced by a rescan (page 5" in str(info.value)
    assert snapshot(corpus.notebook_dir(notebook)) == before


def test_checkpoints_of_a_placed_item_land_as_one_block(corpus, notebook, tmp_path, five) -> None:
    """Across checkpoints (3 pages each here) the block stays whole and in order."""
    req = request_for(notebook, pages(tmp_path, 8, "new"), placement=Placement(at=2))
    seen: list[Checkpoint] = []
    ingest_checkpoints(corpus, req, max_pages=3, on_checkpoint=seen.append)
    assert len(seen) == 3
    assert page_order(corpus, notebook) == five[:1] + page_ids(req) + five[1:]


def test_a_stopped_placed_item_resumes_after_what_landed(corpus, notebook, tmp_path, five) -> None:
    """Stopped between checkpoints, then the same request again (a resume): no page twice,
    none misplaced, none of the landed pages rendered again."""
    req = request_for(notebook, pages(tmp_path, 7, "new"), placement=Placement(after_page=five[2]))
    landed: list[Checkpoint] = []

    def stop_after_first() -> bool:
        return bool(landed)

    with pytest.raises(IngestCancelled):
        ingest_checkpoints(
            corpus, req, max_pages=3, should_stop=stop_after_first, on_checkpoint=landed.append
        )
    ids = page_ids(req)
    assert page_order(corpus, notebook) == five[:3] + ids[:3] + five[3:]
    kept = snapshot(corpus.notebook_dir(notebook))

    again: list[Checkpoint] = []
    ingest_checkpoints(corpus, req, max_pages=3, on_checkpoint=again.append)
    assert again[0].earlier and again[0].pages == 3
    assert page_order(corpus, notebook) == five[:3] + ids + five[3:]
    now = snapshot(corpus.notebook_dir(notebook))
    assert all(now[k] == v for k, v in kept.items() if k.startswith("renders/"))


def test_recovery_rolls_a_placed_transaction_forward_to_the_same_place(
    corpus, notebook, tmp_path, five, monkeypatch
) -> None:
    """A transaction killed after staging (the journal says `promoting`) lands, when
    recovered, exactly where the live one would have put it, with its rescan swapped in."""
    from transcribe_import.engine.ingest import transaction

    specs = request_for(notebook, pages(tmp_path, 3, "new")).sources
    rescan = specs[2].pages[0].page_id
    req = replace(
        request_for(notebook, []),
        sources=specs,
        placement=Placement(at=2),
        replaces=((rescan, five[3]),),
    )

    class Killed(BaseException):
        pass

    def die(nb_dir, txn):  # the process dies where promotion would begin
        raise Killed()

    monkeypatch.setattr(transaction, "promote_and_commit", die)
    with pytest.raises(Killed):
        ingest(corpus, req)
    monkeypatch.undo()
    shown = project.read(corpus.notebook_dir(notebook), notebook)["pages"]
    assert [p["id"] for p in shown] == five  # nothing shown yet: the journal holds it
    recover_journal(corpus, notebook)
    new = [s.pages[0].page_id for s in specs[:2]]
    assert page_order(corpus, notebook) == [five[0], *new, five[1], five[2], rescan, five[4]]
    doc = project.read(corpus.notebook_dir(notebook), notebook)
    assert [e["page"]["id"] for e in doc["replaced_pages"]] == [five[3]]
    # Recovered twice, or the request again: nothing moves, nothing is added.
    assert recover_journal(corpus, notebook) == []
    assert ingest(corpus, req).already_present
    assert len(project.read(corpus.notebook_dir(notebook), notebook)["replaced_pages"]) == 1


# -- naming pages ------------------------------------------------------------------------------


def test_find_page_reads_an_id_a_label_a_position_or_a_prefix(corpus, notebook, five) -> None:
    nb_dir = corpus.notebook_dir(notebook)
    doc = project.read(nb_dir, notebook)
    doc["pages"][1]["label"] = "12v"
    assert placement.find_page(doc, five[3]) == five[3]
    assert placement.find_page(doc, "12v") == five[1]
    assert placement.find_page(doc, "5") == five[4]
    assert placement.find_page(doc, five[2][:8]) == five[2]
    with pytest.raises(ValueError, match=r"has 5 pages; there is no page 9"):
        placement.find_page(doc, "9")
    with pytest.raises(ValueError, match="has no page 'nope'"):
        placement.find_page(doc, "nope")
    assert placement.page_words(doc, five[1]) == "page 2 (“12v”, old 2.jpg)"


def test_an_id_whose_start_is_all_digits_is_still_found_by_it(corpus, notebook, five) -> None:
    """A number is a position first; past the last page it may be the start of an id (one
    in about fifty page ids begins with eight digits)."""
    doc = project.read(corpus.notebook_dir(notebook), notebook)
    doc["pages"][2]["id"] = "24364639-" + doc["pages"][2]["id"][9:]
    assert placement.find_page(doc, "24364639") == doc["pages"][2]["id"]
    assert placement.find_page(doc, "3") == doc["pages"][2]["id"]  # a position still wins
