"""The library's pages as the review's page rows: a stored notebook read back, read-only.

The library shows a notebook in the same grid and table as the review (models/page_grid.py's
painter, page_rows.py's columns), so its pages read as they did before the import. Each
stored page becomes a ``PageRow`` whose source is the notebook's own copy of the file
(``sources/<id>.<ext>``, the bytes imported, with the sha256 the manifest records): its
thumbnail is the engine's cached one for those bytes, rendered off the window's thread.
Nothing here can move or change a page: no drag, no edit.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import Any

from PySide6.QtCore import QObject, QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem, QWidget

from transcribe_import.engine.api import NotebookLibrary, StoredPage, StoredSource
from transcribe_import.engine.media.kinds import Turn
from transcribe_import.engine.planning.plan import PlanPage, PlanSource, SourceProvenance
from transcribe_import.gui.icons import turned, untinted
from transcribe_import.gui.models.base import ColumnTableModel, Index
from transcribe_import.gui.models.page_grid import (
    GridLook,
    PageCellPainter,
    accessible_words,
    cell_size,
    paint_panel,
)
from transcribe_import.gui.models.page_rows import PAGE_COLUMNS, PageColumn, PageRow
from transcribe_import.gui.thumbnails import ThumbnailCache

Role = Qt.ItemDataRole


def _plan_source(source: StoredSource, pages: Sequence[StoredPage]) -> PlanSource:
    """The stored file as the grid's rows and the thumbnail cache name a source: its stored
    copy to read, the name it was imported under to show."""
    return PlanSource(
        source.source_id,
        source.sha256,
        source.media_type,
        tuple(
            PlanPage(p.page_id, "", p.page_index, label=p.label, turn=Turn(p.turn)) for p in pages
        ),
        SourceProvenance(str(source.path), source.rel or source.name, source.size, source.mtime, 0),
    )


def library_rows(notebook: NotebookLibrary, *, history: bool = False) -> list[PageRow]:
    """The notebook's shown pages (or, ``history``, its replaced pages) as page rows."""
    shown = notebook.history if history else notebook.pages
    of_source: dict[str, list[StoredPage]] = {}
    for page in shown:
        of_source.setdefault(page.source.source_id, []).append(page)
    sources = {sid: _plan_source(pages[0].source, pages) for sid, pages in of_source.items()}
    order = {sid: k for k, sid in enumerate(of_source)}
    # What a rescan replaced, said on the page that replaced it ("Replaces page 4 …"), and
    # under History, on the page replaced, the page in its place now ("Replaced by 4").
    replaced = {p.replaced_by: p for p in notebook.history if p.replaced_by}
    number_of = {p.page_id: p.position for p in notebook.pages}
    # Where each page stands among its file's pages shown (a PDF's pages, in order).
    place = {p.page_id: k for pages in of_source.values() for k, p in enumerate(pages)}
    rows = []
    for page in shown:
        sid = page.source.source_id
        pos = place[page.page_id]
        source = sources[sid]
        before = None if history else replaced.get(page.page_id)
        # A turn of the page took its place (the same bytes): said as a turn, not a rescan.
        turned = before is not None and before.replaced_by_turn
        rows.append(
            PageRow(
                notebook.notebook_id,
                source,
                source.pages[pos],
                order[sid],
                pos,
                page.position,
                page.page_id == notebook.cover_page_id,
                (),
                None if before is None or turned else _words(before),
                number_of.get(page.replaced_by) if history and page.replaced_by else None,
                turned=_words(before) if before is not None and turned else None,
            )
        )
    return rows


def _words(page: StoredPage) -> str:
    """A stored page as a person knows it: its label and the file it came from."""
    name = page.source.name
    return f"“{page.label}”, {name}" if page.label else name


class LibraryPageModel(ColumnTableModel[PageRow]):
    """A stored notebook's pages (or its replaced pages), in notebook order; read-only.

    Qt's own flags (enabled, selectable) are the ones it needs: no drag, no drop, no edit.
    """

    context = "PageTableModel"
    columns = PAGE_COLUMNS
    key = attrgetter("key")

    def __init__(self, thumbnails: ThumbnailCache, parent: QObject | None = None) -> None:
        super().__init__((), parent)
        self._thumbnails = thumbnails
        thumbnails.ready.connect(self._on_thumbnail_ready)

    def row_header(self, row: int, role: int) -> Any:
        if role != Role.DisplayRole:
            return None
        number = self.row(row).number
        return "–" if number is None else str(number)

    def cell(self, row: PageRow, column: int, role: int) -> Any:
        if column == PageColumn.THUMBNAIL:
            if role == Role.DecorationRole:
                pixmap = self._thumbnails.request(row.source, row.page.page_index)
                return None if pixmap is None else untinted(turned(pixmap, row.page.turn))
            if role == Role.AccessibleTextRole:
                return accessible_words(row)
        return super().cell(row, column, role)

    def _on_thumbnail_ready(self, source_id: str, page_index: int) -> None:
        row = self.row_of((source_id, page_index))
        if row is not None:
            self.rows_changed(row, row, [Role.DecorationRole])


class LibraryGridDelegate(QStyledItemDelegate):
    """A cell of the library's grid: the review's page cell, painted from the library's rows."""

    def __init__(self, model: LibraryPageModel, look: GridLook, parent: QWidget) -> None:
        super().__init__(parent)
        self._model = model
        self._painter = PageCellPainter(look)

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        return cell_size(self._painter.look.zoom, option.fontMetrics)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        if index.row() >= self._model.rowCount():
            return
        painter.save()
        paint_panel(painter, option)
        self._painter.paint_page(painter, option.rect, self._model.row(index.row()), option)
        painter.restore()
