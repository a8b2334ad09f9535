"""The Corpus view's health findings about a notebook's files and pages (#34): each names the
notebook by its title and the page by its number, never the notebook's id, a run's id or the
stored file's name."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from transcribe_import.engine.runs import executor
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow

from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_png_shelf


def _page_files(corpus: Corpus, notebook_id: str, number: int) -> tuple[Path, Path]:
    """The stored source and render of page ``number`` (1-based) of a notebook."""
    nb_dir = corpus.notebook_dir(notebook_id)
    manifest = json.loads((nb_dir / "project.json").read_text(encoding="utf-8"))
    page = manifest["pages"][number - 1]
    [source] = [s for s in manifest["sources"] if s["id"] == page["source_id"]]
    return nb_dir / source["path"], nb_dir / page["render"]["path"]


def test_file_findings_name_the_notebook_by_title_and_the_page_by_number(
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    make_notebook: Callable[..., str],
) -> None:
    # One notebook: the fixture's pages of two would be the same bytes (another finding).
    register = make_notebook("Parish register, volume 1", pages=3)
    source, _render = _page_files(corpus, register, 2)
    source.unlink()  # lost: doctor has nothing to bring it back from
    damaged, _render = _page_files(corpus, register, 3)
    damaged.write_bytes(damaged.read_bytes() + b"damage")  # changed: its size no longer matches

    window = open_window()

    view = window.corpus_page.findings_view
    said = sorted(view.item(row, 0).text() for row in range(view.rowCount()))
    assert said == [
        "The file of page 2 of “Parish register, volume 1” is missing from the corpus. Doctor "
        "brings it back from the file it was imported from, or a backup, with "
        f"`transcribe-import --data-dir {corpus.data_dir} doctor --restore-from "
        f"{_original(corpus, register, source)}` (typed in a terminal; the window has no "
        "button for it).",
        "The file of page 3 of “Parish register, volume 1” does not match the notebook's "
        "record: it was changed or damaged. Restore it from a backup.",
    ]
    original = _original(corpus, register, source)  # the test's scan, named by the id
    for words in said:
        assert register not in words.replace(original, "")
        assert source.name not in words and damaged.name not in words
    # The stored file's place stays at hand, in the row's tooltip.
    tips = "\n".join(view.item(row, 0).toolTip() for row in range(view.rowCount()))
    assert str(source) in tips and str(damaged) in tips


def _original(corpus: Corpus, notebook_id: str, stored: Path) -> str:
    """The file a stored source was imported from, as its provenance records it."""
    nb_dir = corpus.notebook_dir(notebook_id)
    manifest = json.loads((nb_dir / "project.json").read_text(encoding="utf-8"))
    [source] = [s for s in manifest["sources"] if nb_dir / s["path"] == stored]
    return str(source["provenance"]["original_path"])


def test_a_page_held_twice_is_told_in_titles_and_page_numbers_with_the_undo_in_runs(
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two plans of one folder committed at once by a version without the duplicates lock
    (simulated as in tests/engine/runs/test_held_twice.py): the later copy is a problem."""
    shelf = make_png_shelf(tmp_path / "shelf", notebooks=1, pages=2)
    first = plan_for(corpus, shelf)
    second = plan_for(corpus, shelf)
    commit_plan(corpus, first)
    monkeypatch.setattr(executor, "duplicates_lock", lambda *a: None)
    monkeypatch.setattr(executor, "corpus_index_for", lambda *a: None)
    later = commit_plan(corpus, second)
    monkeypatch.undo()

    window = open_window()

    view = window.corpus_page.findings_view
    [said] = [view.item(row, 0).text() for row in range(view.rowCount())]
    assert said == (
        "“Notebook 01” holds 2 pages that “Notebook 01” holds already, the same bytes: page 1 "
        "is its page 1; page 2 is its page 2. The import that added them was to leave out "
        "files the corpus held (duplicates judged across the corpus), and landed them all the "
        "same, as two imports committed at the same time could before duplicates were decided "
        "one import at a time. Undoing it takes them out (it takes out only those pages); "
        "leave them if you want them twice. To undo that import, select it in Runs and choose "
        "Undo This Import…: it shows what undoing would take out first."
    )
    for hidden in (first.items[0].notebook_id, second.items[0].notebook_id, later.run_id):
        assert hidden not in said


def test_a_page_held_twice_with_no_import_on_record_is_a_note_in_titles(
    open_window: Callable[..., MainWindow], make_notebook: Callable[..., str]
) -> None:
    # The fixture's pages of two notebooks are the same bytes, and no run landed them.
    register = make_notebook("Parish register, volume 1", pages=1)
    diary = make_notebook("Diary 1931", pages=1)

    window = open_window()

    view = window.corpus_page.findings_view
    [said] = [view.item(row, 0).text() for row in range(view.rowCount())]
    # With no run on record, the copy of the greater notebook id is the later one.
    titles = {register: "Parish register, volume 1", diary: "Diary 1931"}
    earlier, later = (titles[nb] for nb in sorted(titles))
    assert said == (
        f"“{later}” holds 1 page that “{earlier}” holds already, the same bytes: page 1 is "
        "its page 1. No import on record added them (an earlier version did, or its run is "
        "gone), so no undo can take them out: leave them if that was meant."
    )
    assert register not in said and diary not in said


def test_a_check_stopped_at_a_link_says_so_not_0_notebooks_checked(
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    make_notebook: Callable[..., str],
    tmp_path: Path,
) -> None:
    make_notebook("Diary", pages=1)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    link = corpus.root / "quarantine"
    if link.exists():
        link.rmdir()  # made empty with the corpus
    link.symlink_to(outside, target_is_directory=True)

    window = open_window()

    summary = window.corpus_page.health_summary.text()
    assert summary.startswith(
        "1 needs attention (no notebook checked: a link in the corpus stops the check; put "
        "the real folder back, then Check Again, at "
    )
    assert "0 notebooks" not in summary
    view = window.corpus_page.findings_view
    assert view.rowCount() == 1 and str(link) in view.item(0, 0).text()
