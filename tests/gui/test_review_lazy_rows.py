"""A notebook of many pages under review makes only the page rows it shows (issue #38).

Choosing a notebook, a new report and its hints coming used to build every row of it on
the window's thread (5,000 pages: 0.1-0.45 s each time); the rows are now made as a view
reads them. These tests count the rows made, through the real window, not the time.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtCore import QEvent, QObject
from pytestqt.qtbot import QtBot

from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.models.page_rows import PageColumn
from transcribe_import.gui.models.plan_pages import PageTableModel
from transcribe_import.gui.pages.review_grid import PageView

from helpers.window import TIMEOUT_MS, scan, wait_validated
from helpers.window import show_item as show

PAGES = 1200  # more files than the hints found on the window's thread (HINTS_HERE_AT_MOST)
# A screen of the grid's cells (the hidden table's row header reads no row to size itself):
# far fewer than the notebook's pages.
SHOWN_AT_MOST = 260


def tiny_pages(folder: Path, count: int) -> None:
    """``count`` small JPEG files, each its own (bytes after the picture's end)."""
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 190, 170)).save(buf, "JPEG", quality=75)
    folder.mkdir(parents=True)
    for n in range(1, count + 1):
        (folder / f"page {n:04d}.jpg").write_bytes(buf.getvalue() + n.to_bytes(4, "big"))


class Painted(QObject):
    """Counts the paint events of the widget it filters."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


def _scanned(qtbot: QtBot, open_window: Callable[..., MainWindow], tmp: Path) -> MainWindow:
    """The window with a shelf of two notebooks scanned: "long" of ``PAGES`` pages, "short"."""
    root = tmp / "shelf"
    tiny_pages(root / "long", PAGES)
    tiny_pages(root / "short", 3)
    window = open_window()
    scan(qtbot, window, root)
    return window


def test_a_long_notebook_makes_only_the_rows_on_screen(
    qtbot: QtBot, open_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    window = _scanned(qtbot, open_window, tmp_path)
    page = window.review_page
    model = page.pages_model
    page.show_view(PageView.GRID, remember=False)
    show(page, "short")
    show(page, "long")
    assert model.rowCount() == PAGES
    # Its hints are found on a worker; the rows are made again, as read, when they come.
    qtbot.waitUntil(lambda: model.item is not None and model.has_blank(), timeout=TIMEOUT_MS)
    page.grid.viewport().repaint()
    assert 0 < model.rows_made() <= SHOWN_AT_MOST

    # A new report: the same pages made again with its notes, only as they are read.
    first = model.row(0)
    report = window.session.report
    changes: list[tuple[int, int, int, int]] = []
    model.dataChanged.connect(
        lambda a, b, _roles=(): changes.append((a.row(), a.column(), b.row(), b.column()))
    )
    # Scrolled to the middle of the notebook (its cells all laid out: a batch at a time).
    grid = page.grid
    bar = grid.verticalScrollBar()
    qtbot.waitUntil(
        lambda: grid.visualRect(model.index(PAGES - 1, PageColumn.THUMBNAIL)).isValid(),
        timeout=TIMEOUT_MS,
    )
    bar.setValue(bar.maximum() // 2)
    scrolled, laid_out = bar.value(), bar.maximum()
    assert scrolled > 0
    painted = Painted()
    grid.viewport().installEventFilter(painted)
    window.flow.validate_plan()
    qtbot.waitUntil(lambda: window.session.report is not report, timeout=TIMEOUT_MS)
    wait_validated(qtbot, window)
    # Every row told, but not the thumbnail column: the grid is not sent through its
    # 1,200 cells to size them again; it paints its badges again all the same.
    assert (0, PageColumn.FILE, PAGES - 1, PageColumn.WARNING) in changes
    assert all(
        column != PageColumn.THUMBNAIL for first, column, last, _c in changes if last > first
    )
    qtbot.waitUntil(lambda: painted.count > 0, timeout=TIMEOUT_MS)
    # The page numbers did not change: the grid is not laid out again, and stays where the
    # person scrolled it (laid out again, it went back to its first 200 pages).
    assert (bar.value(), bar.maximum()) == (scrolled, laid_out)
    assert model.row(0) is not first and model.row(0).key == first.key
    assert 0 < model.rows_made() <= SHOWN_AT_MOST

    # A row far down reads as it would have: its file, its number, its badge.
    last = model.row(PAGES - 1)
    assert last.source.name == f"page {PAGES:04d}.jpg"
    assert last.number == PAGES
    assert any(h.hint.value == "blank" for h in last.hints)
    assert model.row_of(last.key) == PAGES - 1
    assert model.rows_of_source(last.source.source_id) == [PAGES - 1]
    index = model.index(PAGES - 1, PageColumn.FILE)
    assert index.data() == last.source.name
    # Every row made once read; the labels for the spreads came without any.
    assert len(model.page_labels()) == PAGES
    assert model.rows_made() <= SHOWN_AT_MOST + 1
    item = model.item
    assert item is not None
    assert [r.key for r in model.rows()] == [(s.source_id, 0) for s in item.sources]
    assert model.rows_made() == PAGES


def test_the_lazy_rows_keep_the_models_as_qt_expects(
    qtbot: QtBot, qtmodeltester, open_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    # Qt's own model tester (QAbstractItemModelTester) watches the page rows made as read,
    # their index() written in Python and the spreads read when asked, through a choice of
    # a long notebook, its hints come from a worker, a new report and another choice: an
    # index Qt does not expect or a change told out of turn fails the test (issue #38,
    # where a window died in Shiboken as the grid of 5,000 pages was first shown).
    window = _scanned(qtbot, open_window, tmp_path)
    page = window.review_page
    model = page.pages_model
    spreads = page.grid_views.spreads_model
    qtmodeltester.check(model)
    qtmodeltester.check(spreads)
    page.show_view(PageView.GRID, remember=False)
    show(page, "short")
    show(page, "long")
    assert spreads.rowCount() == model.rowCount() == PAGES  # no leaf and side: a page each
    qtbot.waitUntil(lambda: model.item is not None and model.has_blank(), timeout=TIMEOUT_MS)
    bar = page.grid.verticalScrollBar()
    bar.setValue(bar.maximum())
    page.show_view(PageView.SPREADS, remember=False)
    report = window.session.report
    window.flow.validate_plan()
    qtbot.waitUntil(lambda: window.session.report is not report, timeout=TIMEOUT_MS)
    wait_validated(qtbot, window)
    page.show_view(PageView.GRID, remember=False)
    show(page, "short")
    assert spreads.rowCount() == model.rowCount() == 3
    assert model.index(3, PageColumn.FILE).isValid() is False
    assert model.index(2, PageColumn.FILE).data() == "page 0003.jpg"


def test_the_page_numbers_are_sized_from_the_count_not_read_row_by_row(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Qt's own row header read the labels of the first and last hundred rows, four roles
    # each, to size itself each time a notebook was shown: 800 calls and 200 rows made.
    read: list[int] = []
    real = PageTableModel.row_header

    def row_header(self: PageTableModel, row: int, role: int) -> object:
        read.append(row)
        return real(self, row, role)

    monkeypatch.setattr(PageTableModel, "row_header", row_header)
    window = _scanned(qtbot, open_window, tmp_path)
    page = window.review_page
    page.show_view(PageView.DETAILS, remember=False)
    show(page, "short")
    show(page, "long")
    view = page.page_view
    read.clear()
    view.updateGeometries()
    view.viewport().repaint()
    view.verticalHeader().repaint()
    header = view.verticalHeader()
    on_screen = view.viewport().height() // header.defaultSectionSize() + 2
    assert set(read) <= set(range(on_screen))
    # As wide as the widest number, the cover's star before it.
    assert header.sizeHint().width() > header.fontMetrics().horizontalAdvance(f"★ {PAGES}")
    assert header.width() >= header.sizeHint().width()
