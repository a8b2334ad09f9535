"""The library: a notebook of the corpus (or what one import added) in the review's page grid.

Read-only. The pages in notebook order with their numbers, labels and files, the cover
starred, the pages rescans replaced under History; above them the notebook's id, the
folders its files came from and, for a notebook that holds only part of an import, the
incomplete mark. The values come from ``api.read_notebook`` and ``api.run_pages`` on a
worker; the thumbnails from the engine's cache of renders, off the window's thread. A page
opens in the viewer (double-click, Enter, Space), which pages through the shown pages.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import QItemSelectionModel, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QStackedWidget,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from transcribe_import.engine import api
from transcribe_import.engine.api import Corpus, NotebookLibrary
from transcribe_import.gui.icons import SP
from transcribe_import.gui.models.library import (
    LibraryGridDelegate,
    LibraryPageModel,
    library_rows,
)
from transcribe_import.gui.models.page_grid import DEFAULT_ZOOM, ZOOM_STEP, GridLook, Pictures
from transcribe_import.gui.models.page_rows import PageColumn
from transcribe_import.gui.pages.review_grid import (
    LARGE_SIDE,
    SETTLE_MS,
    PageView,
    ViewBar,
    _IconList,
)
from transcribe_import.gui.thumbnails import ThumbnailCache
from transcribe_import.gui.viewer import PREVIEW_SIDE, Page, Place, ViewerDialog
from transcribe_import.gui.widgets import headline_label, push_button, selectable_text, table_view
from transcribe_import.gui.wording import (
    ButtonWords,
    format_local,
    plural,
    unfinished_import_words,
)
from transcribe_import.gui.workers import TaskSlot


def read_run(corpus: Corpus, run_id: str) -> tuple[list[NotebookLibrary], str]:
    """What ``run_id`` added, with the run's id (the worker's value)."""
    return api.run_pages(corpus, run_id), run_id


def read_one(corpus: Corpus, notebook_id: str) -> tuple[list[NotebookLibrary], None]:
    """One notebook, whole (the worker's value)."""
    return [api.read_notebook(corpus, notebook_id)], None


class PagesPane(QStackedWidget):
    """One list of pages (a notebook's, or its History) as a grid or as a table."""

    open_requested = Signal()  # show the current page in the viewer

    def __init__(self, model: LibraryPageModel, look: GridLook, name: str) -> None:
        super().__init__()
        self.model = model
        self.table: QTableView = table_view(
            model, name, selection=QAbstractItemView.SelectionMode.SingleSelection, row_numbers=True
        )
        self.table.horizontalHeader().setSectionResizeMode(
            PageColumn.WARNING, QHeaderView.ResizeMode.Stretch
        )
        self.table.setColumnWidth(PageColumn.FILE, 220)
        self.grid = _IconList(look, name)
        self.grid.setModel(model)
        self.grid.setModelColumn(PageColumn.THUMBNAIL)
        self.grid.setSelectionModel(self.table.selectionModel())
        self.grid.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.grid.setItemDelegate(LibraryGridDelegate(model, look, self.grid))
        # Read-only: the icon mode would take drops; nothing here moves a stored page.
        self.grid.setDragDropMode(QAbstractItemView.DragDropMode.NoDragDrop)
        self.grid.setAcceptDrops(False)
        self.addWidget(self.grid)
        self.addWidget(self.table)
        for view in (self.grid, self.table):
            view.doubleClicked.connect(self.open_requested)
            view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
            opening = QAction(self.tr("&Open in Viewer"), view)
            opening.triggered.connect(self.open_requested)
            view.addAction(opening)
            for key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
                shortcut = QShortcut(QKeySequence(key), view)
                shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
                shortcut.activated.connect(self.open_requested)

    def show_view(self, view: PageView) -> None:
        self.setCurrentWidget(self.table if view is PageView.DETAILS else self.grid)

    def current_row(self) -> int | None:
        index = self.table.selectionModel().currentIndex()
        return index.row() if index.isValid() else None

    def select_row(self, row: int) -> None:
        index = self.model.index(row, PageColumn.THUMBNAIL)
        flags = QItemSelectionModel.SelectionFlag
        self.table.selectionModel().setCurrentIndex(index, flags.ClearAndSelect | flags.Rows)
        self.grid.scrollTo(index)
        self.table.scrollTo(index)


class LibraryView(QWidget):
    """A stored notebook, or the pages one import added, read-only in the page grid."""

    back_requested = Signal()  # back to the list of notebooks
    export_requested = Signal()  # Export… on the notebook shown (``notebook``)
    shown = Signal()  # a notebook (or a run's pages) is on screen: the tests wait for it

    def __init__(self, corpus: Corpus, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.corpus = corpus
        self._notebooks: list[NotebookLibrary] = []
        self.run_id: str | None = None
        self.viewer_dialog: ViewerDialog | None = None
        self._loads = TaskSlot(self, done=self._loaded, failed=self._failed)
        self.thumbnails = ThumbnailCache(parent=self, corpus=corpus)
        self.previews = ThumbnailCache(capacity=8, threads=1, parent=self, side=PREVIEW_SIDE)
        pictures = Pictures(self.thumbnails, self, LARGE_SIDE)
        self.look = GridLook(DEFAULT_ZOOM, pictures, self.devicePixelRatioF)
        pictures.ready_large = lambda *_: self._repaint()
        # As in the review: renders wait while the pages move, asked for once they stand still.
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self._settled)

        tr = self.tr
        self.back_button = push_button(
            ButtonWords(tr("&All Notebooks"), tr("Back to the list of notebooks")),
            SP.SP_ArrowBack,
            self.back_requested,
        )
        self.title_label = headline_label(tr("Notebook"))
        self.export_button = push_button(
            ButtonWords(
                tr("E&xport…"),
                tr("Export this notebook"),
                tr("Copy this notebook out of the corpus as a BagIt bag"),
            ),
            SP.SP_DialogSaveButton,
            self.export_requested,
        )
        top = QHBoxLayout()
        top.addWidget(self.back_button)
        top.addWidget(self.title_label, 1)
        top.addWidget(self.export_button)

        self.run_label = selectable_text(QLabel())
        self.run_label.setAccessibleName(tr("What the import added"))
        self.notebook_choice = QComboBox()
        self.notebook_choice.setAccessibleName(tr("Notebook the import added pages to"))
        self.notebook_choice.currentIndexChanged.connect(self._choose)
        self.run_row = QWidget()
        run_layout = QHBoxLayout(self.run_row)
        run_layout.setContentsMargins(0, 0, 0, 0)
        run_layout.addWidget(self.run_label, 1)
        run_layout.addWidget(self.notebook_choice)
        self.run_row.hide()

        self.facts_label = selectable_text(QLabel())
        self.facts_label.setAccessibleName(tr("About the notebook"))
        # The incomplete mark: what the notebook holds of the import that stopped.
        self.state_label = selectable_text(QLabel())
        self.state_label.setAccessibleName(tr("The notebook's state"))
        self.state_label.setFrameShape(QFrame.Shape.StyledPanel)
        self.state_label.setMargin(6)
        self.state_label.hide()

        self.view_bar = ViewBar()
        self.view_bar.buttons[PageView.SPREADS].hide()  # the review's; not here
        self.view_bar.view_chosen.connect(lambda v: self.show_view(PageView(v)))
        self.view_bar.zoom_chosen.connect(self.set_zoom)
        self.pages_model = LibraryPageModel(self.thumbnails, self)
        self.history_model = LibraryPageModel(self.thumbnails, self)
        self.pages_pane = PagesPane(self.pages_model, self.look, tr("Pages of the notebook"))
        self.history_pane = PagesPane(
            self.history_model, self.look, tr("Pages of the notebook that rescans replaced")
        )
        self.tabs = QTabWidget()
        self.tabs.addTab(self.pages_pane, tr("Pages"))
        self.tabs.addTab(self.history_pane, tr("History"))
        for pane in (self.pages_pane, self.history_pane):
            pane.open_requested.connect(self.open_viewer)
            pane.grid.zoom_requested.connect(
                lambda step: self.view_bar.zoom_slider.setValue(self.look.zoom + ZOOM_STEP * step)
            )
            pane.grid.verticalScrollBar().valueChanged.connect(self._moved)
        self.message_label = selectable_text(QLabel())
        self.message_label.hide()

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.run_row)
        layout.addWidget(self.facts_label)
        layout.addWidget(self.state_label)
        layout.addWidget(self.message_label)
        layout.addWidget(self.view_bar)
        layout.addWidget(self.tabs, 1)
        self.view = PageView.GRID
        self.show_view(PageView.GRID)

    # -- what is shown -------------------------------------------------------------------

    def open_notebook(self, notebook_id: str) -> None:
        """Read the notebook (on a worker) and show it whole."""
        self._loading(self.tr("Reading the notebook…"))
        self._loads.run(read_one, self.corpus, notebook_id)

    def open_run(self, run_id: str) -> None:
        """Read what the import ``run_id`` added (on a worker) and show it."""
        self._loading(self.tr("Reading what the import added…"))
        self._loads.run(read_run, self.corpus, run_id)

    def _loading(self, words: str) -> None:
        self.message_label.setText(words)
        self.message_label.show()
        self.export_button.setEnabled(False)

    def notebook(self) -> NotebookLibrary | None:
        """The notebook shown now."""
        row = self.notebook_choice.currentIndex()
        return self._notebooks[row] if 0 <= row < len(self._notebooks) else None

    def _loaded(self, loaded: tuple[list[NotebookLibrary], str | None]) -> None:
        self._notebooks, self.run_id = loaded
        self.message_label.hide()
        self.notebook_choice.blockSignals(True)
        self.notebook_choice.clear()
        for nb in self._notebooks:
            self.notebook_choice.addItem(
                self.tr("“{title}”: {pages}").format(
                    title=nb.title, pages=self._pages(len(nb.pages))
                )
            )
        self.notebook_choice.blockSignals(False)
        self.run_row.setVisible(self.run_id is not None)
        self.notebook_choice.setVisible(len(self._notebooks) > 1)
        if self.run_id is not None:
            self.run_label.setText(self._run_words())
        self._choose()
        self.shown.emit()

    def _run_words(self) -> str:
        n = len(self._notebooks)
        pages = sum(len(nb.pages) for nb in self._notebooks)
        if not n:
            return self.tr(
                "Import {run} holds no page in the corpus now (it added none, or it was undone)."
            ).format(run=self.run_id)
        if n == 1:
            words = self.tr("Import {run} added {pages} to this notebook.").format(
                run=self.run_id, pages=self._pages(pages)
            )
        else:
            words = self.tr("Import {run} added {pages} to {count} notebooks:").format(
                run=self.run_id, pages=self._pages(pages), count=n
            )
        replaced = sum(len(nb.history) for nb in self._notebooks)
        if replaced:
            words += " " + plural(
                replaced,
                self.tr("Its rescans replaced 1 page, shown under History."),
                self.tr("Its rescans replaced %Ln pages, shown under History.", "", replaced),
            )
        return words

    def _pages(self, n: int) -> str:
        return plural(n, self.tr("1 page"), self.tr("%Ln pages", "", n))

    def _failed(self, message: str) -> None:
        self._notebooks = []
        self.message_label.setText(message)
        self.message_label.show()
        self._choose()
        self.shown.emit()

    def _choose(self, *_: object) -> None:
        nb = self.notebook()
        self.export_button.setEnabled(nb is not None)
        self.title_label.setText("" if nb is None else nb.title)
        self.facts_label.setText("" if nb is None else self._facts(nb))
        unfinished = None if nb is None else nb.unfinished
        self.state_label.setVisible(unfinished is not None)
        if nb is not None and unfinished is not None:
            self.state_label.setText(
                self.tr("<b>Incomplete.</b> {words}").format(
                    words=html.escape(unfinished_import_words(nb.title, unfinished))
                )
            )
        self.pages_model.set_rows([] if nb is None else library_rows(nb))
        self.history_model.set_rows([] if nb is None else library_rows(nb, history=True))
        self.tabs.setTabText(0, self.tr("Pages (%n)", "", self.pages_model.rowCount()))
        self.tabs.setTabText(1, self.tr("History (%n)", "", self.history_model.rowCount()))
        self.tabs.setTabEnabled(1, self.history_model.rowCount() > 0)
        self.tabs.setCurrentIndex(0)
        for pane in (self.pages_pane, self.history_pane):
            pane.grid.scrollToTop()
            pane.table.scrollToTop()

    def _facts(self, nb: NotebookLibrary) -> str:
        folders = nb.source_folders
        where = self.tr("no source folder recorded")
        if folders:
            where = folders[0]
            if len(folders) > 1:
                more = len(folders) - 1
                where = plural(
                    more,
                    self.tr("{folder} and 1 more folder"),
                    self.tr("{folder} and %Ln more folders", "", more),
                ).format(folder=folders[0])
        return self.tr("Notebook {id} · {pages} · created {created}\nFrom {where}").format(
            id=nb.notebook_id,
            pages=self._pages(nb.page_count),
            created=format_local(nb.created_at),
            where=where,
        )

    # -- the view ------------------------------------------------------------------------

    def show_view(self, view: PageView) -> None:
        self.view = PageView.DETAILS if view is PageView.DETAILS else PageView.GRID
        self.view_bar.show_view(self.view, spreads_possible=False)
        for pane in (self.pages_pane, self.history_pane):
            pane.show_view(self.view)

    def set_zoom(self, zoom: int) -> None:
        self.look.zoom = zoom
        self._moved()
        for pane in (self.pages_pane, self.history_pane):
            pane.grid.apply_zoom()

    def _moved(self) -> None:
        self.look.pictures.moving = True
        self._settle.start()

    def _settled(self) -> None:
        self.look.pictures.moving = False
        self._repaint()

    def _repaint(self) -> None:
        for pane in (self.pages_pane, self.history_pane):
            pane.grid.viewport().update()

    def current_pane(self) -> PagesPane:
        return self.history_pane if self.tabs.currentIndex() == 1 else self.pages_pane

    # -- the viewer ----------------------------------------------------------------------

    def open_viewer(self) -> None:
        """The current page in the viewer, which pages through the shown pages."""
        pane = self.current_pane()
        row = pane.current_row()
        if row is None:
            return
        if self.viewer_dialog is not None:
            self.viewer_dialog.close()
        page, place = self._page_at(pane, row)
        self.viewer_dialog = ViewerDialog(self.previews, [page], self, place)
        self.viewer_dialog.viewer.page_requested.connect(self._go_to)
        self.viewer_dialog.open()

    def _page_at(self, pane: PagesPane, row: int) -> tuple[Page, Place]:
        page_row = pane.model.row(row)
        place = Place(row + 1, pane.model.rowCount(), page_row.page.label)
        return (page_row.source, page_row.page.page_index), place

    def _go_to(self, row: int) -> None:
        pane = self.current_pane()
        pane.select_row(row)
        if self.viewer_dialog is not None:
            page, place = self._page_at(pane, row)
            self.viewer_dialog.viewer.set_pages([page], place)

    # -- closing -------------------------------------------------------------------------

    def caches(self) -> Sequence[ThumbnailCache]:
        return [self.thumbnails, self.previews, *self.look.pictures.own_caches()]

    def stop_and_wait(self) -> None:
        """Wait for a reading (short) and stop every render before the window closes."""
        self._loads.close()
        for cache in self.caches():
            cache.shutdown()
