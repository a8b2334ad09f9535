"""The Corpus table shows every title whole (#34): a title longer than its column's room wraps
onto a second line instead of "Parish reg…, volume 1", while the source folder stays one line,
elided in the middle, whole in its tooltip."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QApplication, QStyle, QStyleOptionViewItem, QTableView
from pytestqt.qtbot import QtBot

from transcribe_import.gui import main_window
from transcribe_import.gui.main_window import MainWindow, Section
from transcribe_import.gui.models.notebooks import NotebookColumn

from helpers.window import TIMEOUT_MS

TITLES = ("Diary 1931", "Parish register of Sankt Margarethen, volume 1")


def _text_room(view: QTableView, row: int, column: int) -> tuple[int, int]:
    """The width a cell's text is drawn in, and the room it has (a text longer than one
    line of that width needs the row's height for its lines)."""
    margin = 2 * (view.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) + 1)
    return view.horizontalHeader().sectionSize(column) - margin, view.rowHeight(row)


def _one_line_height() -> int:
    """The height the style gives a table's row of one line."""
    view = QTableView()
    return view.verticalHeader().defaultSectionSize()


def _height_needed(view: QTableView, text: str, width: int) -> int:
    """The height ``text`` takes wrapped at ``width``, as the view's delegate wraps it."""
    flags = Qt.TextFlag.TextWordWrap
    return view.fontMetrics().boundingRect(QRect(0, 0, width, 10_000), flags, text).height()


@pytest.mark.parametrize(
    "area", [QRect(0, 0, 800, 600), QRect(0, 0, 1024, 768)], ids=["800x600", "1024x768"]
)
def test_a_long_title_is_whole_in_the_corpus_table_and_the_source_is_elided(
    qtbot: QtBot,
    open_window: Callable[[], MainWindow],
    make_notebook: Callable[..., str],
    monkeypatch: pytest.MonkeyPatch,
    area: QRect,
) -> None:
    for title in TITLES:
        make_notebook(title, 1)
    monkeypatch.setattr(main_window, "available_geometry", lambda _w: QRect(area))
    window = open_window()
    window.show_section(Section.CORPUS)
    table = window.corpus_page.notebook_table
    model = table.model()
    qtbot.waitUntil(lambda: model.rowCount() == len(TITLES), timeout=TIMEOUT_MS)
    source = NotebookColumn.SOURCE
    qtbot.waitUntil(lambda: bool(model.index(0, source).data()), timeout=TIMEOUT_MS)
    QApplication.processEvents()
    assert window.width() <= area.width()

    metrics = table.fontMetrics()
    rows = {model.index(r, NotebookColumn.TITLE).data(): r for r in range(model.rowCount())}
    long_title = TITLES[1]
    width, height = _text_room(table, rows[long_title], NotebookColumn.TITLE)
    # Not drawn elided: the delegate gives the text its lines, and the row holds them all.
    assert table.itemDelegateForColumn(NotebookColumn.TITLE) is None  # no eliding delegate
    assert table.textElideMode() is Qt.TextElideMode.ElideNone and table.wordWrap()
    needed = _height_needed(table, long_title, width)
    assert needed <= height
    # And no taller than its lines need: a row of one line's padding around them.
    assert height == _one_line_height() - metrics.lineSpacing() + needed
    if area.width() == 800:  # too long for one line there: it wraps, not cut
        assert metrics.horizontalAdvance(long_title) > width
        one_line = _one_line_height()
        assert height >= one_line + metrics.lineSpacing()
    # Every row one height (fitting each row to its contents is seconds at a thousand).
    assert table.rowHeight(rows["Diary 1931"]) == height
    # The source: one line, elided in the middle, whole in its tooltip.
    index = model.index(rows[long_title], source)
    assert index.data(Qt.ItemDataRole.ToolTipRole)
    delegate = table.itemDelegateForColumn(source)
    option = QStyleOptionViewItem()
    delegate.initStyleOption(option, index)
    assert option.textElideMode is Qt.TextElideMode.ElideMiddle
    assert not option.features & QStyleOptionViewItem.ViewItemFeature.WrapText


def test_rows_stay_one_line_high_while_every_title_fits_one_line(
    qtbot: QtBot,
    open_window: Callable[[], MainWindow],
    make_notebook: Callable[..., str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    make_notebook("Diary 1931", 1)
    monkeypatch.setattr(main_window, "available_geometry", lambda _w: QRect(0, 0, 800, 600))
    window = open_window()
    window.show_section(Section.CORPUS)
    table = window.corpus_page.notebook_table
    qtbot.waitUntil(lambda: table.model().rowCount() == 1, timeout=TIMEOUT_MS)
    QApplication.processEvents()
    metrics = table.fontMetrics()
    width, height = _text_room(table, 0, NotebookColumn.TITLE)
    assert metrics.horizontalAdvance("Diary 1931") <= width
    one_line = _one_line_height()
    assert height == one_line
