"""Turning pages already in the corpus: a run whose pages take the turned pages' places,
the source bytes untouched, the render upright, the history naming who and when, and an
undo that puts the page, its render and its turn back."""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest

from transcribe_import.engine import api
from transcribe_import.engine.media.kinds import Turn
from transcribe_import.engine.runs.model import HistoryEvent, RunStatus
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import assert_notebook_whole
from helpers.runs import commit_plan, looked_at, plan_for
from helpers.turns import marked_page, red_corner


def _diary(corpus: Corpus, tmp_path: Path, n: int = 3) -> str:
    """A notebook of ``n`` portrait pages 1.jpg…, imported upright: its id."""
    for k in range(1, n + 1):
        marked_page(tmp_path / "Diary" / f"{k}.jpg")
    plan = looked_at(plan_for(corpus, tmp_path / "Diary"))
    assert commit_plan(corpus, plan).status is RunStatus.COMPLETE
    return plan.items[0].notebook_id


def _files(corpus: Corpus, nb: str) -> dict[str, bytes]:
    folder = corpus.notebook_dir(nb)
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and p.parent.name in ("sources", "renders")
    }


def test_turning_pages_in_the_corpus_is_a_run_with_history_and_undo(
    corpus: Corpus, tmp_path: Path
) -> None:
    nb = _diary(corpus, tmp_path)
    before = project.read(corpus.notebook_dir(nb), nb)
    files_before = _files(corpus, nb)
    old_ids = [p["id"] for p in before["pages"]]

    # Pages named as every command names them: a position and a file name.
    turn = api.plan_corpus_turn(corpus, nb, ["2", "3.jpg"], 90)
    assert turn.positions == (2, 3)
    assert turn.words == "pages 2 and 3 turned 90° clockwise"
    result = api.turn_in_corpus(corpus, turn)
    assert result.status is RunStatus.COMPLETE

    doc = assert_notebook_whole(corpus, nb)
    folder = corpus.notebook_dir(nb)
    # The first page is untouched; the turned ones are new pages in their places.
    assert doc["pages"][0] == before["pages"][0]
    assert [p.get("turn") for p in doc["pages"]] == [None, 90, 90]
    assert [p["id"] for p in doc["pages"]][1:] != old_ids[1:]
    for page in doc["pages"][1:]:
        png = (folder / page["render"]["path"]).read_bytes()
        assert red_corner(png) == ((200, 120), "top-right")  # upright: turned a quarter
    # Every file there was is there, byte for byte; the new sources are the same bytes.
    for rel, data in files_before.items():
        assert (folder / rel).read_bytes() == data
    by_id = {s["id"]: s for s in doc["sources"]}
    old_by_id = {s["id"]: s for s in before["sources"]}
    for new, old in zip(doc["pages"][1:], before["pages"][1:], strict=True):
        src, was = by_id[new["source_id"]], old_by_id[old["source_id"]]
        assert src["sha256"] == was["sha256"]
        assert (folder / src["path"]).read_bytes() == (folder / was["path"]).read_bytes()
        # Still named by the file it was first imported from.
        assert src["provenance"]["original_path"] == was["provenance"]["original_path"]
        assert new["look"] == old["look"] and new["look"].startswith("ink1:")
    # The history: the pages as they were, replaced by the turned ones, in the run, when.
    history = project.replaced_entries(doc)
    assert [e["page"] for e in history] == before["pages"][1:]
    assert [e["replaced_by"] for e in history] == [p["id"] for p in doc["pages"][1:]]
    assert {e["import_run_id"] for e in history} == {result.run_id}
    assert all(e["replaced_at"] for e in history)
    # Who asked, and when: the run's history.
    created = [h for h in api.run_history(result.record) if h.event is HistoryEvent.CREATED]
    assert len(created) == 1 and created[0].requested_by == getpass.getuser()
    assert created[0].at.startswith("20")
    # The library and `notebooks NOTEBOOK` say the pages by the same names.
    assert [p.file for p in api.notebook_pages(corpus, nb)][:3] == ["1.jpg", "2.jpg", "3.jpg"]
    assert [p.turn for p in api.read_notebook(corpus, nb).pages] == [0, 90, 90]

    # Undo: the notebook is as it was, its renders and turns with it; nothing is lost.
    done = api.revert(corpus, result.run_id)
    assert done.plan.ok
    after = assert_notebook_whole(corpus, nb)
    assert after["pages"] == before["pages"]
    assert after["sources"] == before["sources"]
    assert project.replaced_entries(after) == []
    assert _files(corpus, nb) == files_before


def test_a_turn_taken_back_and_a_turn_of_a_turned_page(corpus: Corpus, tmp_path: Path) -> None:
    nb = _diary(corpus, tmp_path, 2)
    api.turn_in_corpus(corpus, api.plan_corpus_turn(corpus, nb, ["1"], 90))
    # The angle is from the file's upright, not added to the turn the page has.
    api.turn_in_corpus(corpus, api.plan_corpus_turn(corpus, nb, ["1"], 180))
    doc = assert_notebook_whole(corpus, nb)
    png = (corpus.notebook_dir(nb) / doc["pages"][0]["render"]["path"]).read_bytes()
    assert doc["pages"][0]["turn"] == 180 and red_corner(png) == ((120, 200), "bottom-right")
    back = api.plan_corpus_turn(corpus, nb, ["1"], 0)
    assert back.words == "page 1 no longer turned"
    api.turn_in_corpus(corpus, back)
    doc = assert_notebook_whole(corpus, nb)
    png = (corpus.notebook_dir(nb) / doc["pages"][0]["render"]["path"]).read_bytes()
    assert project.TURN not in doc["pages"][0] and red_corner(png) == ((120, 200), "top-left")
    assert len(project.replaced_entries(doc)) == 3  # every turn is in the history


def test_a_turn_keeps_the_keys_other_tools_wrote_and_the_cover(
    corpus: Corpus, tmp_path: Path
) -> None:
    nb = _diary(corpus, tmp_path, 2)
    folder = corpus.notebook_dir(nb)
    doc = project.read(folder, nb)
    doc["pages"][1]["transcription"] = "Dear diary"
    doc["pages"][1]["label"] = "1v"
    doc["cover_page_id"] = doc["pages"][1]["id"]
    project.write(folder, doc)
    api.turn_in_corpus(corpus, api.plan_corpus_turn(corpus, nb, ["1v"], 270))
    after = assert_notebook_whole(corpus, nb)
    page = after["pages"][1]
    assert page["transcription"] == "Dear diary" and page["label"] == "1v"
    assert page["turn"] == 270 and after["cover_page_id"] == page["id"]


def test_a_turn_refused_in_words(corpus: Corpus, tmp_path: Path) -> None:
    nb = _diary(corpus, tmp_path, 2)
    with pytest.raises(ValueError, match="0, 90, 180 or 270 degrees clockwise, not 45"):
        api.plan_corpus_turn(corpus, nb, ["1"], 45)
    with pytest.raises(ValueError, match="there is no page 7"):
        api.plan_corpus_turn(corpus, nb, ["7"], 90)
    with pytest.raises(ValueError, match="named twice"):
        api.plan_corpus_turn(corpus, nb, ["1", "1.jpg"], 90)
    with pytest.raises(ValueError, match="pages 1 and 2 of “Diary” are not turned already"):
        api.plan_corpus_turn(corpus, nb, ["1", "2"], 0)
    folder = corpus.notebook_dir(nb)
    doc = project.read(folder, nb)
    (folder / doc["sources"][0]["path"]).unlink()
    with pytest.raises(ValueError, match="cannot be read .* run `transcribe-import doctor`"):
        api.plan_corpus_turn(corpus, nb, ["1"], 90)
    assert Turn.of(90) is Turn.QUARTER


def test_pages_turned_each_their_own_way_by_one_run(corpus: Corpus, tmp_path: Path) -> None:
    nb = _diary(corpus, tmp_path)
    ids = [p["id"] for p in project.read(corpus.notebook_dir(nb), nb)["pages"]]
    # As the library's Turn Right asks it: each page a quarter further than it is.
    turn = api.plan_page_turns(corpus, nb, {ids[2]: 90, ids[0]: 180})
    assert turn.positions == (1, 3) and turn.turns == (180, 90)
    assert turn.words == "pages 1 and 3 turned each its own way"
    result = api.turn_in_corpus(corpus, turn)
    doc = assert_notebook_whole(corpus, nb)
    assert [p.get("turn") for p in doc["pages"]] == [180, None, 90]
    [row] = api.show_run(corpus, result.run_id).rows
    assert row.turns == (180, 90) and row.pages_replacing == 2
    assert api.placement_words(corpus, api.show_run(corpus, result.run_id).plan.items[0]) == [
        "turns page 1 (1.jpg) and page 3 (3.jpg) each its own way"
    ]


def test_a_corpus_turn_applies_the_exif_orientation_first(corpus: Corpus, tmp_path: Path) -> None:
    # Mirrored by its EXIF (orientation 2), then turned a quarter in the corpus: the mirror
    # first, so the block ends bottom-right, as a turn in the plan puts it.
    source = marked_page(tmp_path / "Mirrored" / "1.jpg", orientation=2)
    original = source.read_bytes()
    plan = looked_at(plan_for(corpus, tmp_path / "Mirrored"))
    assert commit_plan(corpus, plan).status is RunStatus.COMPLETE
    nb = plan.items[0].notebook_id
    api.turn_in_corpus(corpus, api.plan_corpus_turn(corpus, nb, ["1"], 90))
    doc = assert_notebook_whole(corpus, nb)
    folder = corpus.notebook_dir(nb)
    png = (folder / doc["pages"][0]["render"]["path"]).read_bytes()
    assert red_corner(png) == ((200, 120), "bottom-right")
    assert source.read_bytes() == original
    assert (folder / doc["sources"][-1]["path"]).read_bytes() == original


def test_an_import_whose_page_was_turned_since_says_so_and_names_the_turn(
    corpus: Corpus, tmp_path: Path
) -> None:
    """A newcomer turned page 4 of a notebook, then tried to undo its import: refused, "1 page
    of this import was replaced by rescans since, by import …", of a turn. Now the turn is
    said as one, by its run; undone, the import can be too."""
    from transcribe_import.engine.base.ids import short_id
    from transcribe_import.engine.runs.revert import RevertBlock

    nb = _diary(corpus, tmp_path)
    [imported] = [listing.record for listing in api.list_runs(corpus)]
    turn = api.turn_in_corpus(corpus, api.plan_corpus_turn(corpus, nb, ["2"], 90))
    [blocker] = api.preview_revert(corpus, imported.run_id).plan.blockers
    assert blocker.code is RevertBlock.REPLACED
    assert blocker.message.endswith(
        f": 1 page of this import was turned since, by turn {short_id(turn.run_id)}; undo that "
        "turn first, or keep this one."
    )
    assert "rescan" not in blocker.message
    api.revert(corpus, turn.run_id)
    assert api.revert(corpus, imported.run_id).plan.ok
