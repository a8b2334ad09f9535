"""The library through the real window (#23): a notebook opened from the Corpus view shows its
project.json (order, labels, ids, cover, History) read-only in the page grid; Show What This
Import Added shows exactly the run's pages; the viewer pages through them; Export… from the
library writes a bag and the dialog says where; same-title notebooks are told apart; an
incomplete notebook carries its mark there and its actions in the list's menu."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import bagit
import pytest
from PIL import Image
from PySide6.QtCore import QItemSelectionModel, QSettings, Qt
from PySide6.QtWidgets import QAbstractItemView, QApplication
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.ingest.transaction import IngestRequest, PageSpec, SourceSpec, ingest
from transcribe_import.engine.planning.plan import AdapterMode
from transcribe_import.engine.storage import fsio, project
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.help import guide_html
from transcribe_import.gui.main_window import MainWindow, Section
from transcribe_import.gui.models.notebooks import NotebookColumn
from transcribe_import.gui.models.page_grid import position_words
from transcribe_import.gui.models.page_rows import PageColumn
from transcribe_import.gui.pages import corpus as corpus_page_module
from transcribe_import.gui.pages.corpus import run_summary
from transcribe_import.gui.pages.library import LibraryView
from transcribe_import.gui.pages.review_grid import PageView
from transcribe_import.gui.wording import counts_sentence

from helpers.runs import cancelled_part_way, commit_plan, plan_for
from helpers.shelves import make_shelf
from helpers.window import TIMEOUT_MS, assert_no_clash, commit, scan, wait_run_end

PAGES = ("cover.png", "f. 1r.png", "f. 1v.png", "f. 2r.png", "f. 2v.png")


def pages_folder(folder: Path, names: tuple[str, ...], shade: int) -> Path:
    folder.mkdir(parents=True)
    for i, name in enumerate(names):
        Image.new("RGB", (60, 80), (200 - 20 * i, shade, 160 + i)).save(folder / name)
    return folder


def imported_diary(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> tuple[str, str]:
    """“Diary” (a cover and four foliated pages) imported through the window: its id, the run."""
    scan(qtbot, window, pages_folder(tmp_path / "shelf" / "Diary", PAGES, 180))
    commit(qtbot, window)
    wait_run_end(qtbot, window)
    run_id = window.commit_page.run_id
    assert run_id is not None
    [notebook] = window.corpus.list_notebooks()
    return notebook.notebook_id, run_id


def rescan_into(corpus: Corpus, notebook_id: str, tmp_path: Path) -> str:
    """A second import into the notebook: a rescan of 2r (replacing it) and a new 3r; its run."""
    folder = pages_folder(tmp_path / "later", ("f. 2r.png", "f. 3r.png"), 90)
    plan = api.plan_paths(
        corpus, api.PlanRequest((folder,), mode=AdapterMode.into(notebook_id))
    ).plan
    [item] = plan.items
    item = api.replace_page(corpus, item, "f. 2r.png", "2r")
    plan = replace(plan, items=(item,))
    result = commit_plan(corpus, plan)
    assert result.status == "complete"
    return result.run_id


def open_in_library(qtbot: QtBot, window: MainWindow, notebook_id: str) -> LibraryView:
    """Double-click the notebook's row in the Corpus view; wait until the library shows it."""
    window.show_section(Section.CORPUS)
    qtbot.waitUntil(lambda: window.corpus_page.notebook_model.rowCount() > 0, timeout=TIMEOUT_MS)
    table = window.corpus_page.notebook_table
    model = table.model()
    [row] = [
        r
        for r in range(model.rowCount())
        if model.index(r, NotebookColumn.ID).data(Qt.ItemDataRole.ToolTipRole) == notebook_id
    ]
    table.selectRow(row)
    library = window.corpus_page.library
    rect = table.visualRect(model.index(row, NotebookColumn.TITLE))
    with qtbot.waitSignal(library.shown, timeout=TIMEOUT_MS):
        # A press first, as a real double-click has: the view opens what was pressed.
        qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.corpus_page.page_stack.currentWidget() is library
    return library


def shown_ids(library: LibraryView, *, history: bool = False) -> list[str]:
    model = library.history_model if history else library.pages_model
    return [model.row(r).page.page_id for r in range(model.rowCount())]


def _diary_rescanned(
    qtbot: QtBot, window: MainWindow, corpus: Corpus, tmp_path: Path
) -> tuple[MainWindow, str, dict[str, Any]]:
    """The diary imported through the window, then a rescan of one page imported into it:
    the window (its notebooks listed again), the notebook's id and its project.json."""
    notebook_id, _run = imported_diary(qtbot, window, tmp_path)
    rescan_into(corpus, notebook_id, tmp_path)
    window.health.list_notebooks()
    return window, notebook_id, project.read(corpus.notebook_dir(notebook_id), notebook_id)


def test_the_library_of_an_imported_notebook_is_its_project_json(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    window, notebook_id, doc = _diary_rescanned(qtbot, open_window(workers=1), corpus, tmp_path)

    library = open_in_library(qtbot, window, notebook_id)
    model = library.pages_model
    assert shown_ids(library) == [p["id"] for p in doc["pages"]]
    rows = [model.row(r) for r in range(model.rowCount())]
    assert [r.page.label for r in rows] == [p.get("label") for p in doc["pages"]]
    assert [r.number for r in rows] == list(range(1, len(doc["pages"]) + 1))
    assert [r.source.name for r in rows] == [*PAGES[:3], "f. 2r.png", "f. 2v.png", "f. 3r.png"]
    assert [position_words(r) for r in rows][:3] == ["★ 1", "2 · 1r", "3 · 1v"]
    # The rescan says what it replaced; the page it replaced is under History, whole.
    [old] = doc["replaced_pages"]
    assert rows[3].replaces == "“2r”, f. 2r.png" and rows[3].page.page_id == old["replaced_by"]
    assert shown_ids(library, history=True) == [old["page"]["id"]]
    assert library.tabs.tabText(0) == "Pages (6)" and library.tabs.tabText(1) == "History (1)"
    assert library.title_label.text() == "Diary"
    facts = library.facts_label.text()
    assert notebook_id in facts and "6 pages" in facts
    assert str(tmp_path / "shelf" / "Diary") in facts and "and 1 more folder" in facts
    assert library.state_panel.isHidden()  # complete: no incomplete mark
    assert_no_clash(window, "the library")

    # Read-only: no drag, no drop, no edit, on the grid and the table alike.
    grid = library.pages_pane.grid
    assert grid.dragDropMode() is QAbstractItemView.DragDropMode.NoDragDrop
    assert not (model.flags(model.index(0, 0)) & Qt.ItemFlag.ItemIsDragEnabled)
    # Thumbnails from the engine's cache, rendered off the window's thread.
    first = rows[0]
    qtbot.waitUntil(
        lambda: library.thumbnails.request(first.source, first.page.page_index) is not None,
        timeout=TIMEOUT_MS,
    )

    # The viewer pages through the notebook: Enter opens it, Right, End, Home turn the page.
    grid.setFocus()
    library.pages_pane.select_row(1)
    qtbot.keyClick(grid, Qt.Key.Key_Return)
    dialog = library.viewer_dialog
    assert dialog is not None and dialog.isVisible()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog, timeout=TIMEOUT_MS)
    viewer = dialog.viewer
    assert viewer.caption.text() == "Page 2 of 6 · 1r · f. 1r.png"
    qtbot.keyClick(viewer.scroll_area, Qt.Key.Key_Right)
    assert viewer.caption.text() == "Page 3 of 6 · 1v · f. 1v.png"
    qtbot.keyClick(viewer.scroll_area, Qt.Key.Key_End)
    assert viewer.caption.text() == "Page 6 of 6 · 3r · f. 3r.png"
    assert library.pages_pane.current_row() == 5  # the grid follows the viewer
    qtbot.keyClick(viewer.scroll_area, Qt.Key.Key_Home)
    assert library.pages_pane.current_row() == 0 and viewer.caption.text().startswith("Page 1 ")
    qtbot.waitUntil(lambda: all(viewer.pixmaps()), timeout=TIMEOUT_MS)
    dialog.close()

    qtbot.mouseClick(library.back_button, Qt.MouseButton.LeftButton)
    list_page = window.corpus_page.list_page
    assert window.corpus_page.page_stack.currentWidget() is list_page
    # The list stands where the library stood: the same margins, no jump to the edge.
    assert list_page.layout().contentsMargins() == library.layout().contentsMargins()


def test_show_what_this_import_added_shows_exactly_its_pages(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    window = open_window(workers=1)
    notebook_id, first_run = imported_diary(qtbot, window, tmp_path)
    second_run = rescan_into(corpus, notebook_id, tmp_path)
    doc = project.read(corpus.notebook_dir(notebook_id), notebook_id)
    run_of = {s["id"]: s["import_run_id"] for s in doc["sources"]}
    library = window.corpus_page.library
    runs = window.runs_page

    for run_id, count in ((second_run, 2), (first_run, 4)):
        window.show_section(Section.RUNS)
        runs.refresh(select=run_id)
        qtbot.waitUntil(lambda run_id=run_id: runs.selected_run_id() == run_id, timeout=TIMEOUT_MS)
        assert runs.added_button.isEnabled()
        assert_no_clash(window, "Runs view")
        with qtbot.waitSignal(library.shown, timeout=TIMEOUT_MS):
            qtbot.mouseClick(runs.added_button, Qt.MouseButton.LeftButton)
        assert window.sections.currentIndex() == Section.CORPUS
        expected = [p["id"] for p in doc["pages"] if run_of[p["source_id"]] == run_id]
        assert shown_ids(library) == expected and len(expected) == count
        # Each page keeps its place in the notebook: the numbers are the notebook's.
        numbers = [library.pages_model.row(r).number for r in range(count)]
        where = [i for i, p in enumerate(doc["pages"], 1) if run_of[p["source_id"]] == run_id]
        assert numbers == where
        said = f"Import {run_id[:8]} added {count} pages to this notebook."
        if run_id == second_run:
            # The page its rescan replaced is under History, and the sentence says so.
            [old] = doc["replaced_pages"]
            assert shown_ids(library, history=True) == [old["page"]["id"]]
            said += " Its rescans replaced 1 page, shown under History."
        assert library.run_label.text() == said
    # The first import's page that the second replaced: not among what the first holds now.
    assert shown_ids(library, history=True) == []


def test_export_from_the_library_writes_a_bag_and_says_where(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    make_notebook: Callable[..., str],
    tmp_path: Path,
) -> None:
    make_notebook("Letters", 2)
    wanted = make_notebook("Field notes", 3)
    window = open_window()
    library = open_in_library(qtbot, window, wanted)
    assert library.export_button.isEnabled()
    qtbot.mouseClick(library.export_button, Qt.MouseButton.LeftButton)
    dialog = window.dialogs.export_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.notebook_ids == (wanted,)
    assert dialog.summary.text() == "Export 1 notebook (“Field notes”) as a BagIt bag."
    dest = tmp_path / "bag"
    dialog.set_destination(dest)
    with qtbot.waitSignal(dialog.ended, timeout=TIMEOUT_MS) as ended:
        qtbot.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    result = ended.args[0]
    assert [n.notebook_id for n in result.notebooks] == [wanted]
    bagit.Bag(str(dest)).validate()
    qtbot.waitUntil(lambda: dialog.close_button.isVisible(), timeout=TIMEOUT_MS)
    assert dialog.status_label.text().startswith("<b>Exported.</b>")
    assert f"are in {dest}: a complete BagIt bag" in dialog.status_label.text()
    assert window.statusBar().currentMessage() == ""


def test_notebooks_of_one_title_are_told_apart_and_offer_their_actions(
    qtbot: QtBot, open_window: Callable[..., MainWindow], make_notebook: Callable[..., str]
) -> None:
    ids = {make_notebook("Diary", 1), make_notebook("Diary", 2)}
    window = open_window()
    page = window.corpus_page
    model = window.corpus_page.notebook_table.model()
    qtbot.waitUntil(lambda: model.rowCount() == 2, timeout=TIMEOUT_MS)
    shown = {model.index(r, NotebookColumn.ID).data() for r in range(2)}
    assert shown == {i[:8] for i in ids} and len(shown) == 2
    # The Source column: the folder their files came from (read after the listing).
    qtbot.waitUntil(
        lambda: all(model.index(r, NotebookColumn.SOURCE).data() for r in range(2)),
        timeout=TIMEOUT_MS,
    )
    source = model.index(0, NotebookColumn.SOURCE).data()
    assert source.endswith("scans")

    window.show_section(Section.CORPUS)
    table = window.corpus_page.notebook_table
    table.selectionModel().select(
        model.index(0, 0),
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
    )
    assert page.open_button.isEnabled() and page.export_button.isEnabled()
    menu = page.notebook_menu()
    assert [(a.text(), a.isEnabled()) for a in menu.actions()] == [
        ("&Open", True),
        ("E&xport…", True),
    ]
    # Enter opens the selected notebook, as a double-click does.
    table.setFocus()
    with qtbot.waitSignal(page.library.shown, timeout=TIMEOUT_MS):
        qtbot.keyClick(table, Qt.Key.Key_Return)
    assert page.page_stack.currentWidget() is page.library
    assert page.library.notebook().notebook_id == page.selected_notebooks()[0].notebook_id
    page.show_list()
    # Two selected: export both, open neither (one notebook at a time).
    table.selectAll()
    assert not page.open_button.isEnabled() and page.export_button.isEnabled()


def test_an_incomplete_notebook_is_marked_in_the_library_and_offers_to_finish(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    shelf = make_shelf(tmp_path / "shelf", 1, 70, folder="Register", size=(120, 160))
    result, plan = cancelled_part_way(corpus, shelf)
    notebook_id = plan.items[0].notebook_id
    landed = len(project.read(corpus.notebook_dir(notebook_id), notebook_id)["pages"])
    assert 0 < landed < 70

    window = open_window()
    window.show_section(Section.CORPUS)
    window.corpus_page.notebook_table.selectRow(0)
    menu = window.corpus_page.notebook_menu()
    assert [a.text() for a in menu.actions() if a.text()] == [
        "&Open",
        "E&xport…",
        "F&inish Import",
        "&Undo This Import…",
    ]
    library = open_in_library(qtbot, window, notebook_id)
    assert library.pages_model.rowCount() == landed
    assert library.state_label.isVisibleTo(library)
    words = library.state_label.text()
    assert words.startswith("<b>Incomplete.</b> ")
    assert f"“Register” is incomplete: {landed} of its 70 pages landed" in words


def test_the_guide_says_where_the_library_is() -> None:
    guide = guide_html()
    assert "Show What This Import Added shows the pages it put in the corpus" in guide
    assert "opens one to show its pages in order (double-click or Open)" in guide


def test_the_open_notebook_follows_a_new_listing(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    make_notebook: Callable[..., str],
    tmp_path: Path,
) -> None:
    notebook_id = make_notebook("Letters", 2)
    window = open_window()
    library = open_in_library(qtbot, window, notebook_id)
    assert library.pages_model.rowCount() == 2
    more = tmp_path / "more.png"
    Image.new("RGB", (40, 56), (10, 20, 30)).save(more)
    sha256, _size = fsio.hash_file(more)
    page = PageSpec(new_id(), new_id(), 0)
    ingest(
        corpus,
        IngestRequest(notebook_id, (SourceSpec(new_id(), more, sha256, "image/png", (page,)),)),
    )
    with qtbot.waitSignal(library.shown, timeout=TIMEOUT_MS):
        window.health.list_notebooks()  # as after an import: the listing counts 3 pages now
    assert shown_ids(library)[-1] == page.page_id and library.pages_model.rowCount() == 3
    assert window.corpus_page.page_stack.currentWidget() is library


def test_an_import_of_two_notebooks_shows_each_in_turn(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    pages_folder(tmp_path / "shelf" / "Diary", PAGES[:3], 100)
    pages_folder(tmp_path / "shelf" / "Letters", PAGES[:2], 120)
    plan = plan_for(corpus, tmp_path / "shelf")
    run_id = commit_plan(corpus, plan).run_id
    window = open_window()
    library = window.corpus_page.library
    with qtbot.waitSignal(library.shown, timeout=TIMEOUT_MS):
        window.show_added(run_id)  # what the Runs view's button asks for
    assert library.run_label.text() == f"Import {run_id[:8]} added 5 pages to 2 notebooks:"
    choice = library.notebook_choice
    assert choice.isVisibleTo(library)
    assert [choice.itemText(i) for i in range(choice.count())] == [
        "“Diary”: 3 pages",
        "“Letters”: 2 pages",
    ]
    assert library.title_label.text() == "Diary" and library.pages_model.rowCount() == 3
    choice.setCurrentIndex(1)
    assert library.title_label.text() == "Letters" and library.pages_model.rowCount() == 2
    assert library.notebook().notebook_id == plan.items[1].notebook_id


def test_a_replaced_page_says_which_page_replaced_it(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    window, notebook_id, doc = _diary_rescanned(qtbot, open_window(workers=1), corpus, tmp_path)
    [old] = doc["replaced_pages"]
    # The page in its place now: its number in the notebook, as the Pages tab shows it.
    number = 1 + [p["id"] for p in doc["pages"]].index(old["replaced_by"])
    assert number == 4

    library = open_in_library(qtbot, window, notebook_id)
    [row] = [library.history_model.row(0)]
    assert row.number is None and row.replaced_by == number
    assert position_words(row) == "Replaced by 4 · 2r"  # it read "– · 2r"
    warning = library.history_model.index(0, PageColumn.WARNING).data()
    assert warning == "Replaced by page 4"
    # The page that replaced it says what it replaced; none of the shown pages was replaced.
    pages = [library.pages_model.row(r) for r in range(library.pages_model.rowCount())]
    assert [r.replaced_by for r in pages] == [None] * 6
    assert position_words(pages[3]) == "4 · 2r" and pages[3].replaces == "“2r”, f. 2r.png"


def test_the_library_shows_spreads_and_remembers_its_view_and_zoom(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    make_notebook: Callable[..., str],
    settings: QSettings,
    tmp_path: Path,
) -> None:
    window = open_window(workers=1)
    notebook_id, _run = imported_diary(qtbot, window, tmp_path)
    rescan_into(window.corpus, notebook_id, tmp_path)  # a page under History
    plain = make_notebook("Letters", 2)  # pages with no leaf and side: no spreads
    window.health.list_notebooks()
    library = open_in_library(qtbot, window, notebook_id)
    pane = library.pages_pane
    spreads_button = library.view_bar.buttons[PageView.SPREADS]
    assert spreads_button.isVisibleTo(library) and spreads_button.isEnabled()

    qtbot.mouseClick(spreads_button, Qt.MouseButton.LeftButton)
    assert pane.currentWidget() is pane.spreads
    assert settings.value("library/pageView") == "spreads"
    # The cover alone, then 1r alone (a first recto), 1v | 2r, 2v | 3r: the openings.
    model = pane.spreads.spreads
    assert [model.spread(s) for s in range(model.rowCount())] == [
        (None, 0),
        (None, 1),
        (2, 3),
        (4, 5),
    ]
    # Choosing an opening makes its first page the current one: Enter shows it in the viewer.
    pane.spreads.setFocus()
    pane.spreads.selectionModel().setCurrentIndex(
        model.index(2), QItemSelectionModel.SelectionFlag.ClearAndSelect
    )
    assert pane.current_row() == 2
    qtbot.keyClick(pane.spreads, Qt.Key.Key_Return)
    dialog = library.viewer_dialog
    assert dialog is not None and dialog.viewer.caption.text() == "Page 3 of 6 · 1v · f. 1v.png"
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog, timeout=TIMEOUT_MS)
    qtbot.keyClick(dialog.viewer.scroll_area, Qt.Key.Key_Right)
    # The page the viewer turns to is the current one in the spreads too (2r: the same opening).
    assert pane.current_row() == 3 and pane.spreads.currentIndex().row() == 2
    dialog.close()

    # Pages rescans replaced are not openings: History shows its grid, Spreads comes back after.
    library.tabs.setCurrentIndex(1)
    assert library.history_pane.currentWidget() is library.history_pane.grid
    assert not spreads_button.isEnabled()
    library.tabs.setCurrentIndex(0)
    assert pane.currentWidget() is pane.spreads and spreads_button.isChecked()

    library.view_bar.zoom_slider.setValue(240)
    assert library.look.zoom == 240 and settings.value("library/gridZoom") == 240

    # A notebook whose pages name no side: the grid, Spreads offered no more (and chosen still).
    library.open_notebook(plain)
    qtbot.waitUntil(lambda: library.pages_model.rowCount() == 2, timeout=TIMEOUT_MS)
    assert pane.currentWidget() is pane.grid and not spreads_button.isEnabled()
    assert settings.value("library/pageView") == "spreads"

    # The next session's library opens as this one was left, apart from the review.
    later = LibraryView(window.corpus, settings=settings)
    qtbot.addWidget(later)
    assert later.view is PageView.SPREADS and later.look.zoom == 240
    assert later.view_bar.zoom_slider.value() == 240
    assert settings.value("review/pageView") is None


def test_finish_import_from_the_library_finishes_the_notebook(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    make_notebook: Callable[..., str],
    corpus: Corpus,
    tmp_path: Path,
) -> None:
    make_notebook("Letters", 1)
    window = open_window(workers=1)  # its columns fitted to a list of complete notebooks
    shelf = make_shelf(tmp_path / "shelf", 1, 40, folder="Register", size=(120, 160))
    result, plan = cancelled_part_way(corpus, shelf)
    notebook_id = plan.items[0].notebook_id
    # One notebook, its words one: "its pages", as "their pages" for two.
    said = counts_sentence(run_summary(corpus, result.run_id))
    assert said.startswith("0 notebooks committed, 1 incomplete (some of its pages landed); ")
    window.health.list_notebooks()
    table = window.corpus_page.notebook_table
    qtbot.waitUntil(lambda: table.model().rowCount() == 2, timeout=TIMEOUT_MS)
    # The state read later is wider than "Complete": the column grows to show it whole.
    assert table.columnWidth(NotebookColumn.STATE) >= table.sizeHintForColumn(NotebookColumn.STATE)
    library = open_in_library(qtbot, window, notebook_id)
    # The mark's words name Finish Import and Undo This Import…: both are beside them.
    assert "Finish Import retries it" in library.state_label.text()
    for button in (library.finish_button, library.undo_button):
        assert button.isVisibleTo(library) and button.isEnabled()
    assert_no_clash(window, "the library of an incomplete notebook")

    qtbot.mouseClick(library.undo_button, Qt.MouseButton.LeftButton)
    page = window.corpus_page
    qtbot.waitUntil(lambda: page.undo_dialog is not None, timeout=TIMEOUT_MS)
    assert page.undo_dialog is not None and page.undo_dialog.run.run_id == result.run_id
    page.undo_dialog.reject()  # a preview only: nothing taken out

    qtbot.mouseClick(library.finish_button, Qt.MouseButton.LeftButton)
    wait_run_end(qtbot, window)
    doc = project.read(corpus.notebook_dir(notebook_id), notebook_id)
    assert len(doc["pages"]) == 40
    assert api.notebook_state(corpus, notebook_id) is None  # complete: the mark is gone


def test_back_from_what_an_import_added_returns_to_runs(
    qtbot: QtBot, open_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    window = open_window(workers=1)
    _, run_id = imported_diary(qtbot, window, tmp_path)
    library = window.corpus_page.library
    runs = window.runs_page
    window.show_section(Section.RUNS)
    runs.refresh(select=run_id)
    qtbot.waitUntil(lambda: runs.selected_run_id() == run_id, timeout=TIMEOUT_MS)
    with qtbot.waitSignal(library.shown, timeout=TIMEOUT_MS):
        qtbot.mouseClick(runs.added_button, Qt.MouseButton.LeftButton)
    assert library.back_button.text() == "&Back to Runs"
    assert_no_clash(window, "the library opened from Runs")
    qtbot.mouseClick(library.back_button, Qt.MouseButton.LeftButton)
    assert window.sections.currentIndex() == Section.RUNS  # where it was asked for
    assert runs.selected_run_id() == run_id
    # Opened from the list of notebooks, Back goes back to that list.
    window.show_section(Section.CORPUS)
    assert window.corpus_page.page_stack.currentWidget() is window.corpus_page.list_page
    [notebook] = window.corpus.list_notebooks()
    open_in_library(qtbot, window, notebook.notebook_id)
    assert library.back_button.text() == "&All Notebooks"


def test_a_failed_undo_from_the_library_is_told_in_the_library(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shelf = make_shelf(tmp_path / "shelf", 1, 70, folder="Register", size=(120, 160))
    result, plan = cancelled_part_way(corpus, shelf)
    window = open_window()
    library = open_in_library(qtbot, window, plan.items[0].notebook_id)

    def unreadable(*_: object) -> object:
        raise OSError(5, "Input/output error", "runs/the-run.json")

    monkeypatch.setattr(corpus_page_module, "run_summary", unreadable)
    qtbot.mouseClick(library.undo_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(library.message_label.isVisible, timeout=TIMEOUT_MS)
    assert "Input/output error" in library.message_label.text()
