"""Turning pages in the review (#39): Turn right and Turn left on the selected pages, several at
once, by key and by button, each one undoable step; the thumbnails and the viewer show the
page turned, and the committed page is turned as shown. A page probably sideways is badged
"Turn it?", and turned only when the person says so."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from transcribe_import.engine.media.kinds import Turn
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.models.page_grid import Badge, accessible_words, badges
from transcribe_import.gui.models.page_rows import PageColumn
from transcribe_import.gui.pages.review import ReviewPage

from helpers.window import TIMEOUT_MS, commit, scan, wait_run_end, wait_validated
from media_factory import make_jpeg


@pytest.fixture
def review(qtbot: QtBot, open_window: Callable[..., MainWindow], tmp_path: Path) -> ReviewPage:
    """“letters”, four portrait pages, under review."""
    for n in range(1, 5):
        make_jpeg(tmp_path / "shelf" / "letters" / f"page {n}.jpg", size=(300, 400), label=str(n))
    window = open_window()
    scan(qtbot, window, tmp_path / "shelf")
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=TIMEOUT_MS)
    return window.review_page


def turns(page: ReviewPage) -> list[Turn]:
    item = page.current_item()
    assert item is not None
    return [p.turn for s in item.sources for p in s.pages]


def select(qtbot: QtBot, page: ReviewPage, first: int, last: int) -> None:
    grid = page.grid
    for row, modifier in (
        (first, Qt.KeyboardModifier.NoModifier),
        (last, Qt.KeyboardModifier.ShiftModifier),
    ):
        at = grid.visualRect(page.pages_model.index(row, PageColumn.THUMBNAIL)).center()
        qtbot.mouseClick(grid.viewport(), Qt.MouseButton.LeftButton, modifier, at)
    assert page.selected_rows() == list(range(first, last + 1))


def thumbnail_size(qtbot: QtBot, page: ReviewPage, row: int) -> QSize:
    """The size of the row's thumbnail as the pages table shows it, once rendered."""
    index = page.pages_model.index(row, PageColumn.THUMBNAIL)
    qtbot.waitUntil(
        lambda: isinstance(page.pages_model.data(index, Qt.ItemDataRole.DecorationRole), QIcon),
        timeout=TIMEOUT_MS,
    )
    icon = page.pages_model.data(index, Qt.ItemDataRole.DecorationRole)
    return icon.availableSizes()[0]


def test_several_pages_turn_by_key_and_button_each_an_undoable_step(
    qtbot: QtBot, review: ReviewPage
) -> None:
    page = review
    upright = thumbnail_size(qtbot, page, 1)
    assert upright.width() < upright.height()
    select(qtbot, page, 1, 2)
    page.grid.setFocus()
    # Ctrl+R turns the two selected pages a quarter clockwise, as one step.
    qtbot.keyClick(page.grid, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    assert turns(page) == [Turn.NONE, Turn.QUARTER, Turn.QUARTER, Turn.NONE]
    assert page.selected_rows() == [1, 2]  # still selected, to be turned again
    assert thumbnail_size(qtbot, page, 1).transposed() == upright
    qtbot.waitUntil(lambda: all(page.viewer.pixmaps()), timeout=TIMEOUT_MS)
    shown = [p for p in page.viewer.pixmaps() if p is not None]
    assert shown and all(p.width() > p.height() for p in shown)  # the viewer shows it turned
    # Ctrl+Shift+R twice: a quarter anticlockwise from there, then another.
    shift_ctrl = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(page.grid, Qt.Key.Key_R, shift_ctrl)
    qtbot.keyClick(page.grid, Qt.Key.Key_R, shift_ctrl)
    assert turns(page) == [Turn.NONE, Turn.THREE_QUARTERS, Turn.THREE_QUARTERS, Turn.NONE]
    # Each turn undoes alone, and redoes.
    page.undo_action.trigger()
    assert turns(page) == [Turn.NONE] * 4
    assert page.undo_action.text() == "Undo Turn pages left"
    page.undo_action.trigger()
    assert turns(page) == [Turn.NONE, Turn.QUARTER, Turn.QUARTER, Turn.NONE]
    page.undo_action.trigger()
    assert turns(page) == [Turn.NONE] * 4
    page.redo_action.trigger()
    assert turns(page) == [Turn.NONE, Turn.QUARTER, Turn.QUARTER, Turn.NONE]
    # The Turn button's menu does the same, on the selection.
    select(qtbot, page, 2, 3)
    assert page.turn_button.isEnabled()
    menu = page.turn_button.menu()
    assert [a.text() for a in menu.actions()] == ["Turn ri&ght", "Turn le&ft"]
    menu.actions()[0].trigger()
    assert turns(page) == [Turn.NONE, Turn.QUARTER, Turn.HALF, Turn.QUARTER]
    assert thumbnail_size(qtbot, page, 2) == upright


def test_nothing_selected_turns_nothing(qtbot: QtBot, review: ReviewPage) -> None:
    page = review
    page.page_view.clearSelection()
    assert not page.turn_right_action.isEnabled() and not page.turn_left_action.isEnabled()
    assert not page.turn_button.isEnabled()
    select(qtbot, page, 0, 0)
    assert page.turn_right_action.isEnabled() and page.turn_left_action.isEnabled()
    assert page.turn_button.isEnabled()


def test_a_turned_page_is_committed_turned_and_the_library_shows_it_so(
    qtbot: QtBot, review: ReviewPage
) -> None:
    page = review
    select(qtbot, page, 1, 1)
    page.turn_left_action.trigger()
    window = page.window()
    assert isinstance(window, MainWindow)
    wait_validated(qtbot, window)
    commit(qtbot, window)
    wait_run_end(qtbot, window)
    [notebook] = window.corpus.list_notebooks()
    pages = window.corpus_page.library
    pages.open_notebook(notebook.notebook_id)
    model = pages.pages_model
    qtbot.waitUntil(lambda: model.rowCount() == 4, timeout=TIMEOUT_MS)
    assert [model.row(r).page.turn for r in range(4)] == [0, 270, 0, 0]
    index = model.index(1, PageColumn.THUMBNAIL)
    qtbot.waitUntil(
        lambda: isinstance(model.data(index, Qt.ItemDataRole.DecorationRole), QIcon),
        timeout=TIMEOUT_MS,
    )
    size = model.data(index, Qt.ItemDataRole.DecorationRole).availableSizes()[0]
    assert size.width() > size.height()  # the portrait file shown turned, as it was imported


def test_a_page_scanned_sideways_is_asked_turn_it_until_it_is_turned(
    qtbot: QtBot, open_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    for n in range(1, 6):
        size = (400, 300) if n == 3 else (300, 400)  # page 3 scanned sideways
        make_jpeg(tmp_path / "shelf" / "letters" / f"page {n}.jpg", size=size, label=str(n))
    window = open_window()
    scan(qtbot, window, tmp_path / "shelf")
    page = window.review_page
    model = page.pages_model
    shown = [badges(model.row(r)) for r in range(5)]
    assert shown == [(), (), (Badge.SIDEWAYS,), (), ()]
    assert accessible_words(model.row(2)).endswith("Turn it?")
    # Never turned without the person's word: the plan has no turn until Turn is pressed.
    assert turns(page) == [Turn.NONE] * 5
    select(qtbot, page, 2, 2)
    page.turn_right_action.trigger()
    assert [badges(model.row(r)) for r in range(5)] == [()] * 5
    page.undo_action.trigger()
    assert badges(model.row(2)) == (Badge.SIDEWAYS,)


def test_the_grid_paints_a_turned_page_turned(
    qtbot: QtBot, open_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    # Dark portrait pages on the grid's light base: the dark pixels of a cell are its picture.
    folder = tmp_path / "shelf" / "dark"
    folder.mkdir(parents=True)
    for n in range(1, 4):
        Image.new("RGB", (300, 400), (10 * n, 10 * n, 10 * n)).save(folder / f"{n}.png")
    window = open_window()
    scan(qtbot, window, tmp_path / "shelf")
    page = window.review_page
    select(qtbot, page, 1, 1)
    qtbot.keyClick(page.grid, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)

    def picture(row: int) -> tuple[int, int]:
        """The width and height of the dark pixels painted in the row's cell."""
        rect = page.grid.visualRect(page.pages_model.index(row, PageColumn.THUMBNAIL))
        rect.setHeight(page.grid.look.zoom + 8)  # the picture's box, above the captions
        image = page.grid.viewport().grab(rect).toImage()
        dark = [
            (x, y)
            for y in range(image.height())
            for x in range(image.width())
            if image.pixelColor(x, y).lightness() < 60
        ]
        if not dark:
            return (0, 0)
        xs, ys = [x for x, _ in dark], [y for _, y in dark]
        return (max(xs) - min(xs) + 1, max(ys) - min(ys) + 1)

    qtbot.waitUntil(lambda: all(picture(r)[0] > 0 for r in range(3)), timeout=TIMEOUT_MS)
    (w0, h0), (w1, h1) = picture(0), picture(1)
    assert w0 < h0 and w1 > h1  # page 2 painted landscape, as it will be imported
    assert abs(w1 / h1 - h0 / w0) < 0.05


def test_turn_the_pages_shown_large_in_the_viewer(qtbot: QtBot, review: ReviewPage) -> None:
    """The review's full-window viewer has Turn too (buttons and keys live in the dialog), on
    the pages it shows: of three selected, the first two, which it shows side by side."""
    page = review
    select(qtbot, page, 0, 2)
    page.open_viewer()
    dialog = page.viewer_dialog
    assert dialog is not None and dialog.isVisible()
    assert [b.text().replace("&", "") for b in dialog.action_buttons] == [
        "Turn Right",
        "Turn Left",
    ]
    assert all(b.isEnabled() for b in dialog.action_buttons)
    qtbot.mouseClick(dialog.action_buttons[0], Qt.MouseButton.LeftButton)
    # The two shown are turned, and alone selected (the viewer follows the selection).
    assert turns(page) == [Turn.QUARTER, Turn.QUARTER, Turn.NONE, Turn.NONE]
    assert page.selected_rows() == [0, 1]
    assert dialog.isVisible() and dialog.viewer.turns() == [90, 90]
    # Ctrl+Shift+R in the dialog turns them back: a second undoable step.
    shift_ctrl = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(dialog.viewer, Qt.Key.Key_R, shift_ctrl)
    assert turns(page) == [Turn.NONE] * 4 and dialog.viewer.turns() == [0, 0]
    page.undo_action.trigger()
    assert turns(page) == [Turn.QUARTER, Turn.QUARTER, Turn.NONE, Turn.NONE]
