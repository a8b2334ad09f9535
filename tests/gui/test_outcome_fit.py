"""The Commit view's outcomes read whole at 800x600: the Notebook column gives up room and,
when Details still has too little, every row is two lines tall and Details wraps, so its
words are read, not cut; at 1366 wide a row is one line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PIL import Image
from PySide6.QtCore import QRect, Qt
from pytestqt.qtbot import QtBot

from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.models.outcomes import OutcomeColumn

from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_png_shelf
from helpers.window import wait_run_end


def test_details_wrap_at_800x600_and_fit_one_line_when_wide(
    qtbot: QtBot, importing: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    shelf = make_png_shelf(tmp_path / "shelf", notebooks=2, pages=3)
    commit_plan(corpus, plan_for(corpus, shelf))
    for n in (1, 2):  # a new page each: the rest are duplicates, and Details says so
        Image.new("RGB", (40, 56), (99, n * 30, 10)).save(shelf / f"Notebook {n:02}" / "p9.png")
    window = importing(shelf)
    wait_run_end(qtbot, window)
    table = window.commit_page.table
    details = table.model().index(0, OutcomeColumn.DETAILS).data()
    assert "duplicate file" in details  # long enough to be cut at 800 px on one line

    def fits() -> bool:
        """Whether the first row's Details, wrapped as the view draws it, fits in its cell."""
        width = table.columnWidth(OutcomeColumn.DETAILS) - 8  # the cell's own margins
        flags = Qt.TextFlag.TextWordWrap if table.wordWrap() else Qt.TextFlag.TextSingleLine
        box = table.fontMetrics().boundingRect(QRect(0, 0, width, 1 << 16), flags, details)
        return box.width() <= width and box.height() <= table.rowHeight(0)

    window.showNormal()
    window.resize(800, 600)
    qtbot.waitUntil(lambda: window.width() == 800, timeout=5000)
    qtbot.waitUntil(table.wordWrap, timeout=5000)
    two_lines = table.rowHeight(0)
    assert two_lines >= 2 * table.fontMetrics().lineSpacing()
    assert fits()
    assert table.columnWidth(OutcomeColumn.NOTEBOOK) < 240  # it gave up room

    window.resize(1366, 768)
    qtbot.waitUntil(lambda: not table.wordWrap(), timeout=5000)
    assert table.rowHeight(0) == two_lines - table.fontMetrics().lineSpacing()
    assert table.columnWidth(OutcomeColumn.NOTEBOOK) == 240
    assert fits()
