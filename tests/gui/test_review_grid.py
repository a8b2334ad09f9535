"""The review's page grid, its spreads and the viewer that pages, driven through the real window.

One model and one selection under the grid and the table: a page moved in one is moved
in the other, on one undo stack; the viewer pages through the notebook by selecting the
next page, so every view follows it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from PySide6.QtCore import QMimeData, QModelIndex, QPoint, QPointF, QSettings, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent, QWheelEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from transcribe_import.engine.planning.plan import PlanItem
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.models.page_grid import (
    MAX_ZOOM,
    Badge,
    PageGridDelegate,
    Pictures,
    badge_words,
    badges,
    position_words,
    spreads_of,
)
from transcribe_import.gui.models.page_rows import PageColumn
from transcribe_import.gui.pages.review import ReviewPage
from transcribe_import.gui.pages.review_grid import VIEW_KEY, ZOOM_KEY, PageView
from transcribe_import.gui.thumbnails import ThumbnailCache
from transcribe_import.gui.viewer import ViewerDialog

from helpers.window import TIMEOUT_MS, commit, scan, wait_run_end, wait_validated
from helpers.window import show_item as show
from media_factory import make_jpeg

E = TypeVar("E", QDragEnterEvent, QDragMoveEvent, QDropEvent)


@pytest.fixture
def shelf(tmp_path: Path) -> Path:
    """A foliated diary (1r to 4v) and a numbered notebook of 8 pages with a duplicate."""
    root = tmp_path / "shelf"
    for leaf in range(1, 5):
        for side in "rv":
            make_jpeg(root / "diary" / f"f. {leaf}{side}.jpg", label=f"{leaf}{side}")
    for n in range(1, 9):
        make_jpeg(root / "letters" / f"page {n}.jpg", label=str(n))
    shutil.copy(root / "letters" / "page 3.jpg", root / "letters" / "page 3 copy.jpg")
    return root


@pytest.fixture
def review(
    qtbot: QtBot, open_window: Callable[..., MainWindow], shelf: Path
) -> tuple[MainWindow, ReviewPage]:
    window = open_window()
    scan(qtbot, window, shelf)
    page = window.review_page
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=TIMEOUT_MS)
    return window, page


def names(page: ReviewPage) -> list[str]:
    item = page.current_item()
    assert item is not None
    return [s.name for s in item.sources]


def cell_centre(page: ReviewPage, row: int) -> QPoint:
    return page.grid.visualRect(page.pages_model.index(row, PageColumn.THUMBNAIL)).center()


def click_cell(qtbot: QtBot, page: ReviewPage, row: int, modifier=Qt.KeyboardModifier.NoModifier):
    qtbot.mouseClick(
        page.grid.viewport(), Qt.MouseButton.LeftButton, modifier, cell_centre(page, row)
    )


def drag_event(kind: type[E], at: QPoint, mime: QMimeData) -> E:
    """A drag event of a move, at ``at``, as Qt sends it to a view's viewport."""
    args = (
        Qt.DropAction.MoveAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    try:
        return kind(QPointF(at), *args)
    except TypeError:  # drag enter and move events take a QPoint before PySide 6.12
        return kind(at, *args)


def drag_in_grid(page: ReviewPage, rows: list[int], to: QPoint) -> None:
    """A drag of those rows' cells dropped at ``to``, as the grid receives it from Qt."""
    model = page.pages_model
    mime = model.mimeData([model.index(r, PageColumn.THUMBNAIL) for r in rows])
    viewport = page.grid.viewport()
    enter = drag_event(QDragEnterEvent, to, mime)
    QApplication.sendEvent(viewport, enter)
    assert enter.isAccepted()
    move = drag_event(QDragMoveEvent, to, mime)
    QApplication.sendEvent(viewport, move)
    assert move.isAccepted() and page.grid.drop_indicator() is not None
    QApplication.sendEvent(viewport, drag_event(QDropEvent, to, mime))
    assert page.grid.drop_indicator() is None


def test_the_grid_shows_every_page_with_its_place_label_file_and_badges(
    qtbot: QtBot, review: tuple[MainWindow, ReviewPage]
) -> None:
    _window, page = review
    # The grid is what a first review shows: thumbnails, not the table.
    assert page.page_view_shown() is PageView.GRID and page.grid.isVisible()
    show(page, "diary")
    rows = page.pages_model.rows()
    assert [position_words(r) for r in rows[:3]] == ["1 · 1r", "2 · 1v", "3 · 2r"]
    # The cells on screen get their thumbnails, rendered off the window's thread.
    qtbot.waitUntil(
        lambda: page.thumbnails.request(rows[0].source, 0) is not None, timeout=TIMEOUT_MS
    )
    assert not page.grid.visualRect(page.pages_model.index(0, 0)).isEmpty()

    letters = show(page, "letters")
    duplicate = next(r for r in page.pages_model.rows() if r.source.name == "page 3 copy.jpg")
    assert badges(duplicate) == (Badge.LEFT_OUT, Badge.DUPLICATE)
    assert position_words(duplicate) == "–"  # not imported: no number in the notebook
    assert all(badge_words(b) for b in Badge)
    # A page left out by the person gets its badge; the notebook's numbers close up.
    page.select_rows([0])
    page.exclude_action.trigger()
    first = page.pages_model.row(0)
    assert Badge.LEFT_OUT in badges(first) and first.number is None
    assert page.pages_model.row(1).number == 1
    assert page.current_item() is not None and page.current_item() != letters


def test_a_badge_is_painted_once_then_drawn_in_its_colour_from_its_picture(
    qtbot: QtBot, review: tuple[MainWindow, ReviewPage]
) -> None:
    _window, page = review
    show(page, "letters")
    model = page.pages_model
    row = next(r for r in range(model.rowCount()) if model.row(r).source.duplicate is not None)
    index = model.index(row, PageColumn.THUMBNAIL)
    page.grid.scrollTo(index)
    delegate = page.grid.itemDelegate()
    assert isinstance(delegate, PageGridDelegate)
    page.grid.viewport().repaint()
    made = dict(delegate.cell._pills)
    assert {key[0] for key in made} == {Badge.LEFT_OUT, Badge.DUPLICATE}
    page.grid.viewport().repaint()  # painted again: the same pictures, none made anew
    assert delegate.cell._pills.keys() == made.keys()
    assert all(delegate.cell._pills[k] is made[k] for k in made)
    # On screen, one under the other at the thumbnail's top left: each badge's colour.
    rect = page.grid.visualRect(index)
    image = page.grid.viewport().grab(rect).toImage()
    zoom = page.grid_views.look.zoom
    box_x = (rect.width() - round(zoom * 0.75)) // 2
    height = page.grid.fontMetrics().height() + 2
    first, second = (
        image.pixelColor(box_x + 5, 6 + 3 + height // 2 + k * (height + 2)) for k in (0, 1)
    )
    assert first.name() == "#616161" and second.name() == "#4285f4"


def test_mouse_and_keyboard_select_in_the_grid_and_commands_act_on_the_selection(
    qtbot: QtBot, review: tuple[MainWindow, ReviewPage]
) -> None:
    _window, page = review
    show(page, "letters")
    click_cell(qtbot, page, 1)
    assert page.selected_rows() == [1]
    click_cell(qtbot, page, 3, Qt.KeyboardModifier.ShiftModifier)
    assert page.selected_rows() == [1, 2, 3]
    click_cell(qtbot, page, 2, Qt.KeyboardModifier.ControlModifier)
    assert page.selected_rows() == [1, 3]
    # The table shows the same selection: it is one selection model.
    assert page.page_view.selectionModel() is page.grid.selectionModel()

    click_cell(qtbot, page, 0)
    qtbot.keyClick(page.grid, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClick(page.grid, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
    assert page.selected_rows() == [0, 1, 2]
    # Leave Out (Del) acts on the three, as one undoable step.
    qtbot.keyClick(page.grid, Qt.Key.Key_Delete)
    item = page.current_item()
    assert item is not None
    assert [s.excluded for s in item.sources[:4]] == [True, True, True, False]
    page.undo_action.trigger()
    item = page.current_item()
    assert item is not None and not any(s.excluded for s in item.sources[:3])


def test_reorder_by_drag_in_the_grid_then_undo_and_redo_from_the_table(
    qtbot: QtBot, review: tuple[MainWindow, ReviewPage]
) -> None:
    _window, page = review
    show(page, "diary")
    before = names(page)
    click_cell(qtbot, page, 4)
    # Dropped on the left half of the first cell: lands before it.
    first = page.grid.visualRect(page.pages_model.index(0, PageColumn.THUMBNAIL))
    drag_in_grid(page, [4], QPoint(first.left() + 5, first.center().y()))
    moved = [before[4], *before[:4], *before[5:]]
    assert names(page) == moved
    # The selection followed the page it was on.
    assert page.selected_rows() == [0]
    # Dropped on the right half of the last cell: lands at the end.
    last = page.grid.visualRect(page.pages_model.index(len(before) - 1, PageColumn.THUMBNAIL))
    drag_in_grid(page, [0], QPoint(last.right() - 5, last.center().y()))
    assert names(page) == [*moved[1:], moved[0]]

    # The table shows the new order, and its Undo takes back the grid's moves.
    qtbot.mouseClick(page.view_bar.buttons[PageView.DETAILS], Qt.MouseButton.LeftButton)
    assert page.page_view_shown() is PageView.DETAILS and page.page_view.isVisible()
    assert page.pages_model.index(0, PageColumn.FILE).data() == moved[1]
    page.page_view.setFocus()
    qtbot.keyClick(page.page_view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert names(page) == moved
    qtbot.keyClick(page.page_view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert names(page) == before
    # Back in the grid, Redo (Ctrl+Shift+Z) puts the first move back.
    qtbot.mouseClick(page.view_bar.buttons[PageView.GRID], Qt.MouseButton.LeftButton)
    page.grid.setFocus()
    qtbot.keyClick(
        page.grid,
        Qt.Key.Key_Z,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert names(page) == moved


def test_reorder_by_keyboard_in_the_grid_and_undo_in_the_table(
    qtbot: QtBot, review: tuple[MainWindow, ReviewPage]
) -> None:
    _window, page = review
    show(page, "letters")
    before = names(page)
    click_cell(qtbot, page, 1)
    page.grid.setFocus()
    ctrl = Qt.KeyboardModifier.ControlModifier
    qtbot.keyClick(page.grid, Qt.Key.Key_Right, ctrl)
    qtbot.keyClick(page.grid, Qt.Key.Key_Right, ctrl)
    assert names(page) == [before[0], before[2], before[3], before[1], *before[4:]]
    assert page.selected_rows() == [3]  # the moved page stays selected
    qtbot.keyClick(page.grid, Qt.Key.Key_Left, ctrl)
    assert names(page) == [before[0], before[2], before[1], *before[3:]]
    assert page.session.undo_stack.count() == 3  # one step each

    page.show_view(PageView.DETAILS)
    page.page_view.setFocus()
    for _ in range(3):
        qtbot.keyClick(page.page_view, Qt.Key.Key_Z, ctrl)
    assert names(page) == before


def test_the_viewer_pages_through_the_notebook_and_follows_the_selection(
    qtbot: QtBot, review: tuple[MainWindow, ReviewPage]
) -> None:
    window, page = review
    show(page, "diary")
    count = page.pages_model.rowCount()
    click_cell(qtbot, page, 0)
    page.grid.setFocus()
    qtbot.keyClick(page.grid, Qt.Key.Key_Return)  # opened from the grid
    dialog = page.viewer_dialog
    assert isinstance(dialog, ViewerDialog) and dialog.isVisible()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog, timeout=TIMEOUT_MS)
    viewer = dialog.viewer
    assert viewer.caption.text() == f"Page 1 of {count} · 1r · f. 1r.jpg"

    def press(key: Qt.Key) -> None:
        qtbot.keyClick(viewer.scroll_area, key)

    press(Qt.Key.Key_Right)
    assert page.selected_rows() == [1]
    assert viewer.caption.text() == f"Page 2 of {count} · 1v · f. 1v.jpg"
    press(Qt.Key.Key_PageDown)
    assert page.selected_rows() == [2] and "2r" in viewer.caption.text()
    press(Qt.Key.Key_End)
    assert page.selected_rows() == [count - 1]
    assert viewer.caption.text() == f"Page {count} of {count} · 4v · f. 4v.jpg"
    press(Qt.Key.Key_Right)  # past the end: stays
    assert page.selected_rows() == [count - 1]
    press(Qt.Key.Key_PageUp)
    assert page.selected_rows() == [count - 2]
    press(Qt.Key.Key_Home)
    assert page.selected_rows() == [0]
    press(Qt.Key.Key_Left)
    assert page.selected_rows() == [0]
    qtbot.waitUntil(lambda: all(viewer.pixmaps()), timeout=TIMEOUT_MS)
    # The viewer beside the grid shows the same page, and follows a click in the grid.
    assert viewer.pages() == page.viewer.pages()
    dialog.close()
    click_cell(qtbot, page, 5)
    assert page.viewer.caption.text() == f"Page 6 of {count} · 3v · f. 3v.jpg"

    # Opened from the table too (Space), on the page clicked there.
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=TIMEOUT_MS)
    page.show_view(PageView.DETAILS)
    index = page.pages_model.index(3, PageColumn.FILE)
    qtbot.waitUntil(lambda: not page.page_view.visualRect(index).isEmpty(), timeout=TIMEOUT_MS)
    rect = page.page_view.visualRect(index)
    qtbot.mouseClick(page.page_view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.keyClick(page.page_view, Qt.Key.Key_Space)
    assert page.viewer_dialog is not dialog
    dialog = page.viewer_dialog
    assert isinstance(dialog, ViewerDialog) and dialog.isVisible()
    assert dialog.viewer.caption.text().startswith(f"Page 4 of {count} · 2v")
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog, timeout=TIMEOUT_MS)
    qtbot.keyClick(dialog.viewer.scroll_area, Qt.Key.Key_Right)
    assert page.selected_rows() == [4]
    dialog.close()


def test_a_pair_in_the_viewer_says_both_files_and_does_not_page(
    qtbot: QtBot, review: tuple[MainWindow, ReviewPage]
) -> None:
    _window, page = review
    show(page, "diary")
    page.select_rows([0, 2])
    assert page.viewer.caption.text() == "f. 1r.jpg  |  f. 2r.jpg"
    assert page.viewer.place() is None


def test_the_switch_and_the_zoom_are_remembered(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    shelf: Path,
    settings: QSettings,
) -> None:
    window = open_window()
    scan(qtbot, window, shelf)
    page = window.review_page
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=TIMEOUT_MS)
    # Each view has its key (Alt+1 to 3; Ctrl+1 to 3 are the window's sections).
    page.grid.setFocus()
    # A button's key presses it as a click would look (its click comes a moment later).
    qtbot.keyClick(page.grid, Qt.Key.Key_2, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: page.page_view_shown() is PageView.DETAILS, timeout=TIMEOUT_MS)
    qtbot.keyClick(page.page_view, Qt.Key.Key_1, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: page.page_view_shown() is PageView.GRID, timeout=TIMEOUT_MS)
    assert window.current_page() is page
    qtbot.mouseClick(page.view_bar.buttons[PageView.DETAILS], Qt.MouseButton.LeftButton)
    assert page.page_view.isVisible() and not page.grid.isVisible()
    assert not page.view_bar.zoom_slider.isVisible()  # the table has no thumbnails to zoom
    page.show_view(PageView.GRID)
    # Ctrl+wheel over the grid zooms, as the slider does.
    before = page.grid_views.look.zoom
    wheel = QWheelEvent(
        QPointF(20, 20),
        QPointF(page.grid.viewport().mapToGlobal(QPoint(20, 20))),
        QPoint(0, 0),
        QPoint(0, 120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.ControlModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(page.grid.viewport(), wheel)
    assert page.grid_views.look.zoom > before
    assert page.view_bar.zoom_slider.value() == page.grid_views.look.zoom
    page.view_bar.zoom_slider.setValue(MAX_ZOOM)
    qtbot.mouseClick(page.view_bar.buttons[PageView.DETAILS], Qt.MouseButton.LeftButton)
    window.close()
    settings.sync()
    assert settings.value(VIEW_KEY) == "details"
    assert int(settings.value(ZOOM_KEY)) == MAX_ZOOM

    again = open_window()
    scan(qtbot, again, shelf)
    assert again.review_page.page_view_shown() is PageView.DETAILS
    assert again.review_page.page_view.isVisible()
    assert again.review_page.grid_views.look.zoom == MAX_ZOOM
    assert again.review_page.view_bar.buttons[PageView.DETAILS].isChecked()


def test_spreads_show_verso_beside_recto_for_a_foliated_notebook(
    qtbot: QtBot, review: tuple[MainWindow, ReviewPage]
) -> None:
    _window, page = review
    show(page, "letters")
    # Numbered pages say no side: no spreads for them.
    assert not page.view_bar.buttons[PageView.SPREADS].isEnabled()
    show(page, "diary")
    button = page.view_bar.buttons[PageView.SPREADS]
    assert button.isEnabled()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert page.page_view_shown() is PageView.SPREADS and page.spreads_view.isVisible()
    model = page.grid_views.spreads_model
    labels = [r.page.label for r in page.pages_model.rows()]
    # 1r alone on the right; then 1v | 2r, 2v | 3r, 3v | 4r; 4v alone on the left.
    assert [model.spread(s) for s in range(model.rowCount())] == [
        (None, 0),
        (1, 2),
        (3, 4),
        (5, 6),
        (7, None),
    ]
    assert labels[1:3] == ["1v", "2r"]
    # Choosing a spread selects its two pages: the viewer shows them side by side, and the
    # review's commands act on them.
    rect = page.spreads_view.visualRect(model.index(1))
    qtbot.mouseClick(page.spreads_view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert page.selected_rows() == [1, 2]
    assert len(page.viewer.pages()) == 2
    # A notebook without sides shows the grid; the choice of spreads stays for the next.
    show(page, "letters")
    assert page.page_view_shown() is PageView.GRID
    show(page, "diary")
    assert page.page_view_shown() is PageView.SPREADS


def test_spreads_pair_pages_by_their_sides() -> None:
    assert spreads_of(["1r", "1v", "2r", "2v"]) == [(None, 0), (1, 2), (3, None)]
    # Openings: L then R.
    assert spreads_of(["1L", "1R", "2L", "2R"]) == [(0, 1), (2, 3)]
    # A missing verso: the recto stands alone; a page with no side (a cover) too.
    assert spreads_of([None, "1r", "2r", "2v"]) == [(None, 0), (None, 1), (None, 2), (3, None)]
    assert spreads_of([]) == []


def test_switching_notebooks_starts_each_at_its_first_page(
    qtbot: QtBot, review: tuple[MainWindow, ReviewPage]
) -> None:
    window, page = review
    page.view_bar.zoom_slider.setValue(MAX_ZOOM)  # few cells a screen: the grid scrolls
    show(page, "letters")
    bar = page.grid.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=TIMEOUT_MS)
    bar.setValue(bar.maximum())
    show(page, "diary")
    assert bar.value() == 0
    show(page, "letters")
    assert bar.value() == 0


def test_a_drag_from_elsewhere_is_refused_by_the_grid(
    review: tuple[MainWindow, ReviewPage],
) -> None:
    _window, page = review
    item: PlanItem = show(page, "diary")
    model = page.pages_model
    mime = model.mimeData([model.index(0, PageColumn.THUMBNAIL)])
    show(page, "letters")
    enter = drag_event(QDragEnterEvent, cell_centre(page, 0), mime)
    QApplication.sendEvent(page.grid.viewport(), enter)
    assert not enter.isAccepted()
    assert item.item_id != page.selected_item_id()
    assert not model.canDropMimeData(mime, Qt.DropAction.MoveAction, 0, 0, QModelIndex())


def test_while_the_grid_moves_it_asks_only_for_thumbnails_already_rendered(
    qtbot: QtBot, review: tuple[MainWindow, ReviewPage]
) -> None:
    _window, page = review
    show(page, "letters")
    row = page.pages_model.row(5)
    cache = ThumbnailCache(parent=page)
    pictures = Pictures(cache, page, 320)
    pictures.moving = True  # a fling: no render is queued for a page passed by
    assert pictures.picture(cache, row) is None and not cache.is_busy()
    pictures.moving = False  # standing still: the cells on screen ask
    with qtbot.waitSignal(cache.ready, timeout=TIMEOUT_MS):
        assert pictures.picture(cache, row) is None
    assert pictures.picture(cache, row) is not None
    pictures.moving = True  # what is rendered is still shown while moving
    assert pictures.picture(cache, row) is not None
    # Above 160 px on screen the grid paints from sharper renders.
    assert pictures.cache_for(160) is cache
    large = pictures.cache_for(320)
    assert large is not cache and large.side == 320
    assert pictures.own_caches() == [large]
    cache.shutdown()
    large.shutdown()


@pytest.fixture
def register(
    qtbot: QtBot, open_window: Callable[..., MainWindow], tmp_path: Path
) -> tuple[MainWindow, ReviewPage]:
    """A notebook of three files: a.jpg, scan.pdf (5 pages) and z.jpg, shown in the grid."""
    from media_factory import make_pdf

    folder = tmp_path / "shelf" / "register"
    make_jpeg(folder / "a.jpg", label="a")
    make_pdf(folder / "scan.pdf", 5)
    make_jpeg(folder / "z.jpg", label="z")
    window = open_window(workers=1)
    scan(qtbot, window, tmp_path / "shelf")
    page = window.review_page
    show(page, "register")
    return window, page


def pdf_pages(page: ReviewPage) -> list[int]:
    """The PDF's pages (numbers in the file, from 1) in the order the plan imports them."""
    item = page.current_item()
    assert item is not None
    return [p.page_index + 1 for s in item.sources if s.name == "scan.pdf" for p in s.pages]


def test_pages_of_a_pdf_move_among_its_pages_by_drag_and_by_keyboard(
    qtbot: QtBot, register: tuple[MainWindow, ReviewPage], corpus: Corpus
) -> None:
    """Main moved the whole PDF whatever page of it was dragged or moved (#22)."""
    from transcribe_import.engine.storage import project
    from transcribe_import.gui.models.page_grid import position_words

    window, page = register
    files = names(page)
    assert files == ["a.jpg", "scan.pdf", "z.jpg"] and pdf_pages(page) == [1, 2, 3, 4, 5]
    # Page 4 of the PDF (row 4) dropped on the left half of its page 1 (row 1): before it.
    click_cell(qtbot, page, 4)
    first = page.grid.visualRect(page.pages_model.index(1, PageColumn.THUMBNAIL))
    drag_in_grid(page, [4], QPoint(first.left() + 5, first.center().y()))
    assert pdf_pages(page) == [4, 1, 2, 3, 5] and names(page) == files
    assert page.selected_rows() == [1]  # the selection followed the page
    assert position_words(page.pages_model.row(1)) == "2"
    said = page.pages_model.index(1, PageColumn.SOURCE_PAGE).data()
    assert said == "p. 4 of 5"  # the page keeps its number in the file
    # Dropped past the file's last page, on z.jpg's left half: at the end of the PDF.
    z = page.grid.visualRect(page.pages_model.index(6, PageColumn.THUMBNAIL))
    drag_in_grid(page, [1, 2], QPoint(z.left() + 5, z.center().y()))
    assert pdf_pages(page) == [2, 3, 5, 4, 1] and names(page) == files

    # Keys: Ctrl+Left and Ctrl+Right move the selected PDF pages a place within the file.
    page.select_rows([2, 3])  # pages 3 and 5 of the file
    page.grid.setFocus()
    ctrl = Qt.KeyboardModifier.ControlModifier
    qtbot.keyClick(page.grid, Qt.Key.Key_Left, ctrl)
    assert pdf_pages(page) == [3, 5, 2, 4, 1] and page.selected_rows() == [1, 2]
    # At the file's first page the move goes no further: the action says so by being off.
    assert not page.move_up_action.isEnabled() and page.move_down_action.isEnabled()
    qtbot.keyClick(page.grid, Qt.Key.Key_Left, ctrl)
    assert pdf_pages(page) == [3, 5, 2, 4, 1]

    # Out of the file, between two other files: refused, in words, nothing changed.
    page.select_rows([1])
    a = page.grid.visualRect(page.pages_model.index(0, PageColumn.THUMBNAIL))
    drag_in_grid(page, [1], QPoint(a.left() + 5, a.center().y()))
    assert pdf_pages(page) == [3, 5, 2, 4, 1] and names(page) == files
    assert page.status_label.text() == (
        "Not changed: A page of scan.pdf moves only among the pages of scan.pdf: to move "
        "the whole file, select all of its pages."
    )
    # Every page of the file selected: the file moves whole, as before.
    page.select_rows([1, 2, 3, 4, 5])
    qtbot.keyClick(page.grid, Qt.Key.Key_Left, ctrl)
    assert names(page) == ["scan.pdf", "a.jpg", "z.jpg"]
    assert page.session.undo_stack.count() == 4  # one step each; the refusals none

    # The table's own drop makes the same move; Undo there takes it back, on one stack.
    page.show_view(PageView.DETAILS)
    model = page.pages_model
    mime = model.mimeData([model.index(4, PageColumn.FILE)])  # page 1 of the file
    assert model.dropMimeData(mime, Qt.DropAction.MoveAction, 0, 0, QModelIndex())
    assert pdf_pages(page) == [1, 3, 5, 2, 4]
    page.page_view.setFocus()
    qtbot.keyClick(page.page_view, Qt.Key.Key_Z, ctrl)
    assert pdf_pages(page) == [3, 5, 2, 4, 1]
    qtbot.keyClick(page.page_view, Qt.Key.Key_Z, ctrl)  # the file back in its place
    assert names(page) == files and pdf_pages(page) == [3, 5, 2, 4, 1]

    # The commit lands the pages in the order chosen.
    item = page.current_item()
    assert item is not None
    wait_validated(qtbot, window)
    commit(qtbot, window)
    wait_run_end(qtbot, window)
    doc = project.read(corpus.notebook_dir(item.notebook_id), item.notebook_id)
    by_source = {s["id"]: Path(s["provenance"]["rel"]).name for s in doc["sources"]}
    landed = [(by_source[p["source_id"]], p["page_index"] + 1) for p in doc["pages"]]
    assert landed == [
        ("a.jpg", 1),
        *(("scan.pdf", n) for n in (3, 5, 2, 4, 1)),
        ("z.jpg", 1),
    ]
