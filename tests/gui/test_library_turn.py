"""Turning pages already in the corpus through the real window (#39): in a notebook opened from
the Corpus view, Turn Right on several selected pages turns them by a run of its own, the
grid shows them turned and History the pages as they were, the stored files untouched;
Undo Turn… previews and undoes that run, and the notebook is as it was."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from test_library import open_in_library, shown_ids  # the library opened as a person does

from transcribe_import.engine.runs.model import RunStatus
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.help import guide_html
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.models.page_grid import Badge, badges
from transcribe_import.gui.models.page_rows import PageColumn

from engine_helpers import assert_notebook_whole
from helpers.runs import commit_plan, plan_for
from helpers.turns import marked_page, red_corner
from helpers.window import TIMEOUT_MS, assert_no_clash

pytestmark = pytest.mark.slow


def _stored(corpus: Corpus, nb: str) -> dict[str, bytes]:
    folder = corpus.notebook_dir(nb)
    return {
        p.name: p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and p.parent.name in ("sources", "renders")
    }


def test_turn_several_pages_in_the_library_then_undo(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    for k in (1, 2, 3):
        marked_page(tmp_path / "Diary" / f"{k}.jpg")
    plan = plan_for(corpus, tmp_path / "Diary")
    assert commit_plan(corpus, plan).status is RunStatus.COMPLETE
    nb = plan.items[0].notebook_id
    before = project.read(corpus.notebook_dir(nb), nb)
    stored = _stored(corpus, nb)

    window = open_window(workers=1)
    library = open_in_library(qtbot, window, nb)
    assert library.turn_button.isEnabled() and not library.turn_right_action.isEnabled()
    # Pages 2 and 3 chosen, as a person does: a click, then a Ctrl-click, in the grid.
    grid = library.pages_pane.grid
    for row, keys in (
        (1, Qt.KeyboardModifier.NoModifier),
        (2, Qt.KeyboardModifier.ControlModifier),
    ):
        rect = grid.visualRect(library.pages_model.index(row, PageColumn.THUMBNAIL))
        qtbot.mouseClick(grid.viewport(), Qt.MouseButton.LeftButton, keys, rect.center())
    assert library.pages_pane.selected_rows() == [1, 2]
    assert library.turn_right_action.isEnabled()
    assert_no_clash(window, "the library")

    with qtbot.waitSignal(library.shown, timeout=TIMEOUT_MS):
        library.pages_pane.grid.setFocus()
        qtbot.keyClick(library.pages_pane.grid, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: library.turn_run_id is not None, timeout=TIMEOUT_MS)
    run_id = library.turn_run_id
    assert library.message_label.text() == (
        "Pages 2 and 3 turned 90° clockwise. The pages as they were are under History; "
        "Undo Turn… puts them back."
    )
    assert library.undo_turn_button.isVisible()
    doc = assert_notebook_whole(corpus, nb)
    assert [p.get("turn") for p in doc["pages"]] == [None, 90, 90]
    folder = corpus.notebook_dir(nb)
    for page in doc["pages"][1:]:
        assert red_corner((folder / page["render"]["path"]).read_bytes())[1] == "top-right"
    after = _stored(corpus, nb)
    assert {name: after[name] for name in stored} == stored  # every stored file as it was
    # The grid shows the pages turned; History the pages as they were.
    assert shown_ids(library) == [p["id"] for p in doc["pages"]]
    rows = [library.pages_model.row(r) for r in range(3)]
    assert [int(r.page.turn) for r in rows] == [0, 90, 90]
    # Badged as turned, not as a rescan, with where the page as it was is.
    assert [badges(r) for r in rows] == [(), (Badge.TURNED,), (Badge.TURNED,)]
    assert [r.replaces for r in rows] == [None, None, None]
    assert rows[1].turned == "2.jpg"
    tip = library.pages_model.index(1, PageColumn.WARNING).data()
    assert tip == "Turned; 2.jpg as it was is under History"
    assert shown_ids(library, history=True) == [p["id"] for p in before["pages"][1:]]
    assert library.tabs.tabText(1) == "History (2)"
    # The run is the notebook's history: who asked and when, in Runs.
    record = RunStore(corpus).load(str(run_id))
    assert record.status is RunStatus.COMPLETE
    assert record.doc["history"][0]["event"] == "created"
    assert record.doc["history"][0]["requested_by"]

    # Runs lists it as what it was.
    runs = window.runs_page
    runs.refresh()
    qtbot.waitUntil(lambda: runs.model.rowCount() == 2, timeout=TIMEOUT_MS)
    assert runs.model.index(0, len(runs.model.columns) - 1).data() == "Pages turned in the corpus"

    # Undo Turn…: the preview, then the undo; the notebook is as it was.
    page = window.corpus_page
    qtbot.mouseClick(library.undo_turn_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.undo_dialog is not None, timeout=TIMEOUT_MS)
    dialog = page.undo_dialog
    assert dialog is not None and dialog.run.run_id == run_id
    qtbot.waitUntil(lambda: dialog.undo_button.isEnabled(), timeout=TIMEOUT_MS)
    assert dialog.headline.text().startswith("Undo the turn of ")
    assert dialog.removed.item(0).text() == (
        "“Diary”: the 2 pages this turn made (the pages as they were come back)"
    )
    with (
        qtbot.waitSignal(library.shown, timeout=TIMEOUT_MS),
        qtbot.waitSignal(dialog.reverted, timeout=TIMEOUT_MS),
    ):
        qtbot.mouseClick(dialog.undo_button, Qt.MouseButton.LeftButton)
    assert dialog.headline.text().startswith(
        "The turn was undone: the pages are back as they were."
    )
    dialog.accept()
    undone = assert_notebook_whole(corpus, nb)
    assert undone["pages"] == before["pages"] and not undone.get("replaced_pages")
    assert shown_ids(library) == [p["id"] for p in before["pages"]]
    assert not library.message_row.isVisible()
    assert [int(library.pages_model.row(r).page.turn) for r in range(3)] == [0, 0, 0]


def test_the_guide_says_where_a_page_in_the_corpus_is_turned() -> None:
    guide = guide_html()
    assert "where Turn (Ctrl+R, Ctrl+Shift+R) sets pages scanned sideways upright" in guide
    assert "opens one to show its pages in order (double-click or Open)" in guide


def test_turn_the_page_shown_large_in_the_viewer(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    """The viewer (a page of the library's grid shown large) has the grid's Turn, for the
    page it shows alone, through the same run; it then shows that page turned."""
    for k in (1, 2, 3):
        marked_page(tmp_path / "Diary" / f"{k}.jpg")
    plan = plan_for(corpus, tmp_path / "Diary")
    assert commit_plan(corpus, plan).status is RunStatus.COMPLETE
    nb = plan.items[0].notebook_id

    window = open_window(workers=1)
    library = open_in_library(qtbot, window, nb)
    grid = library.pages_pane.grid
    # Pages 1 and 2 chosen, then page 2 opened large by a double-click: only it is turned.
    for row, keys in ((0, Qt.KeyboardModifier.NoModifier), (1, Qt.KeyboardModifier.ShiftModifier)):
        rect = grid.visualRect(library.pages_model.index(row, PageColumn.THUMBNAIL))
        qtbot.mouseClick(grid.viewport(), Qt.MouseButton.LeftButton, keys, rect.center())
    assert library.pages_pane.selected_rows() == [0, 1]
    library.open_viewer()
    dialog = library.viewer_dialog
    assert dialog is not None and dialog.isVisible()
    words = [b.text() for b in dialog.action_buttons]
    assert [w.replace("&", "") for w in words] == ["Turn Right", "Turn Left"]
    assert all(b.isEnabled() for b in dialog.action_buttons)

    with qtbot.waitSignal(library.shown, timeout=TIMEOUT_MS):
        qtbot.mouseClick(dialog.action_buttons[0], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: library.turn_run_id is not None, timeout=TIMEOUT_MS)
    doc = assert_notebook_whole(corpus, nb)
    assert [p.get("turn") for p in doc["pages"]] == [None, 90, None]
    assert library.message_label.text() == (
        "Page 2 turned 90° clockwise. The page as it was is under History; Undo Turn… puts it back."
    )
    # The viewer stays open on that page, as it is now: turned.
    assert dialog.isVisible() and library.pages_pane.current_row() == 1
    assert dialog.viewer.turns() == [90]
    # Its shortcut works in the dialog: Ctrl+Shift+R turns it back a quarter, a second run.
    first = library.turn_run_id
    with qtbot.waitSignal(library.shown, timeout=TIMEOUT_MS):
        qtbot.keyClick(
            dialog.viewer,
            Qt.Key.Key_R,
            Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
        )
    qtbot.waitUntil(lambda: library.turn_run_id != first, timeout=TIMEOUT_MS)
    assert [p.get("turn") for p in assert_notebook_whole(corpus, nb)["pages"]][1] in (None, 0)
    assert dialog.viewer.turns() == [0]
