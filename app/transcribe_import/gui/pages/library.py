"""The library: a notebook of the corpus (or what one import added) in the review's page grid.

The pages in notebook order with their numbers, labels and files, the cover starred, the
pages rescans or turns replaced under History (each saying the page now in its place);
above them the notebook's id, the folders its files came from and, for a notebook that
holds only part of an import, the incomplete mark with Finish Import and Undo This Import.
A foliated notebook shows in Spreads too; the view and the zoom are remembered between
sessions, apart from the review's. The values come from ``api.read_notebook`` and
``api.run_pages`` on a worker; the thumbnails from the engine's cache of renders, off the
window's thread. A page opens in the viewer (double-click, Enter, Space), which pages
through the shown pages. The one change made here is a turn: Turn Right or Turn Left on the
selected pages of a whole notebook (Ctrl+R, Ctrl+Shift+R) turns each a quarter further, by a
run of its own (``api.turn_in_corpus``, on a worker), which Undo Turn… undoes as any import.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QPushButton,
    QStackedWidget,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from transcribe_import.engine import api
from transcribe_import.engine.api import Corpus, NotebookLibrary, UnfinishedImport
from transcribe_import.engine.media.kinds import Turn
from transcribe_import.engine.runs.model import RunResult, RunStatus
from transcribe_import.gui.icons import SP
from transcribe_import.gui.models.library import (
    LibraryGridDelegate,
    LibraryPageModel,
    library_rows,
)
from transcribe_import.gui.models.page_grid import (
    DEFAULT_ZOOM,
    MAX_ZOOM,
    MIN_ZOOM,
    ZOOM_STEP,
    GridLook,
    Pictures,
    SpreadsModel,
    has_sides,
)
from transcribe_import.gui.models.page_rows import PageColumn
from transcribe_import.gui.pages.review_grid import (
    LARGE_SIDE,
    SETTLE_MS,
    PageView,
    SpreadsView,
    ViewBar,
    _IconList,
)
from transcribe_import.gui.thumbnails import ThumbnailCache
from transcribe_import.gui.viewer import PREVIEW_SIDE, Page, Place, ViewerDialog, turn_actions
from transcribe_import.gui.widgets import headline_label, push_button, selectable_text, table_view
from transcribe_import.gui.wording import (
    ButtonWords,
    format_local,
    incomplete_buttons,
    plural,
    unfinished_import_words,
)
from transcribe_import.gui.workers import TaskSlot

# What the library remembers between sessions (in the window's settings), apart from the
# review's: a person reading a notebook may look at it otherwise than one ordering a plan.
VIEW_KEY = "library/pageView"
ZOOM_KEY = "library/gridZoom"


def read_run(corpus: Corpus, run_id: str) -> tuple[list[NotebookLibrary], str, str]:
    """What ``run_id`` added, with the run's id, whole and as `runs` and the Runs view name
    it (the worker's value: naming it lists the corpus's runs)."""
    return api.run_pages(corpus, run_id), run_id, api.run_short_ids(corpus)(run_id)


def read_one(corpus: Corpus, notebook_id: str) -> tuple[list[NotebookLibrary], None, None]:
    """One notebook, whole (the worker's value)."""
    return [api.read_notebook(corpus, notebook_id)], None, None


def turn_pages(
    corpus: Corpus, notebook_id: str, turns: tuple[tuple[str, int], ...]
) -> tuple[api.CorpusTurn, RunResult]:
    """The notebook's pages turned as ``turns`` says (page id, degrees), by a run of its
    own: what was asked and how the run ended (the worker's value)."""
    turn = api.plan_page_turns(corpus, notebook_id, dict(turns))
    return turn, api.turn_in_corpus(corpus, turn)


class PagesPane(QStackedWidget):
    """One list of pages (a notebook's, or its History) as a grid or as a table."""

    open_requested = Signal()  # show the current page in the viewer

    def __init__(
        self, model: LibraryPageModel, look: GridLook, name: str, *, several: bool = False
    ) -> None:
        super().__init__()
        self.model = model
        # The notebook's pages are chosen several at a time (to turn them); History one.
        mode = QAbstractItemView.SelectionMode
        chosen = mode.ExtendedSelection if several else mode.SingleSelection
        self.table: QTableView = table_view(model, name, selection=chosen, row_numbers=True)
        self.table.horizontalHeader().setSectionResizeMode(
            PageColumn.WARNING, QHeaderView.ResizeMode.Stretch
        )
        self.table.setColumnWidth(PageColumn.FILE, 220)
        self.grid = _IconList(look, name)
        self.grid.setModel(model)
        self.grid.setModelColumn(PageColumn.THUMBNAIL)
        self.grid.setSelectionModel(self.table.selectionModel())
        self.grid.setSelectionMode(chosen)
        self.grid.setItemDelegate(LibraryGridDelegate(model, look, self.grid))
        # Read-only: the icon mode would take drops; nothing here moves a stored page.
        self.grid.setDragDropMode(QAbstractItemView.DragDropMode.NoDragDrop)
        self.grid.setAcceptDrops(False)
        # The openings, verso | recto; choosing one makes its first page the current one.
        self.spreads = SpreadsView(SpreadsModel(model, self), look)
        self.spreads.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.spreads.pages_chosen.connect(self._spread_chosen)
        self.table.selectionModel().currentRowChanged.connect(self._follow)
        self.addWidget(self.grid)
        self.addWidget(self.table)
        self.addWidget(self.spreads)
        for view in (self.grid, self.table, self.spreads):
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
        shown = {PageView.DETAILS: self.table, PageView.SPREADS: self.spreads}
        self.setCurrentWidget(shown.get(view, self.grid))

    def icon_views(self) -> tuple[_IconList, ...]:
        """The views that show thumbnails at the zoom."""
        return (self.grid, self.spreads)

    def _spread_chosen(self, rows: list[int]) -> None:
        if rows:
            self.select_row(rows[0])

    def _follow(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.spreads.follow([current.row()])

    def current_row(self) -> int | None:
        index = self.table.selectionModel().currentIndex()
        return index.row() if index.isValid() else None

    def selected_rows(self) -> list[int]:
        """The rows chosen, in notebook order (the grid chooses a row's thumbnail cell, the
        table its whole row)."""
        return sorted({i.row() for i in self.table.selectionModel().selectedIndexes()})

    def select_row(self, row: int) -> None:
        index = self.model.index(row, PageColumn.THUMBNAIL)
        flags = QItemSelectionModel.SelectionFlag
        self.table.selectionModel().setCurrentIndex(index, flags.ClearAndSelect | flags.Rows)
        self.grid.scrollTo(index)
        self.table.scrollTo(index)


class LibraryView(QWidget):
    """A stored notebook, or the pages one import added, read-only in the page grid."""

    back_requested = Signal()  # back to the list of notebooks
    back_to_run_requested = Signal(str)  # opened from Runs on a run: back to that run
    export_requested = Signal()  # Export… on the notebook shown (``notebook``)
    shown = Signal()  # a notebook (or a run's pages) is on screen: the tests wait for it

    finish_requested = Signal(UnfinishedImport)  # Finish Import on the incomplete notebook shown
    undo_requested = Signal(str)  # Undo This Import… on it (or Undo Turn…): the run's id
    turned = Signal()  # pages were turned (a run landed): the listing and Runs follow

    def __init__(
        self, corpus: Corpus, parent: QWidget | None = None, settings: QSettings | None = None
    ) -> None:
        super().__init__(parent)
        self.corpus = corpus
        self.settings = settings if settings is not None else QSettings()
        self._notebooks: list[NotebookLibrary] = []
        self.run_id: str | None = None
        self._run_shown: str | None = None  # the run as `runs` names it (base/ids.short_id)
        self.viewer_dialog: ViewerDialog | None = None
        self._loads = TaskSlot(self, done=self._loaded, failed=self._failed)
        self._turns = TaskSlot(self, done=self._turn_done, failed=self._turn_failed)
        self.turn_run_id: str | None = None  # the last turn made here, which Undo Turn… undoes
        self.thumbnails = ThumbnailCache(parent=self, corpus=corpus)
        self.previews = ThumbnailCache(capacity=8, threads=1, parent=self, side=PREVIEW_SIDE)
        pictures = Pictures(self.thumbnails, self, LARGE_SIDE)
        self.look = GridLook(self._remembered_zoom(), pictures, self.devicePixelRatioF)
        pictures.ready_large = lambda *_: self._repaint()
        # As in the review: renders wait while the pages move, asked for once they stand still.
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self._settled)

        tr = self.tr
        self.back_button = push_button(ButtonWords("", ""), SP.SP_ArrowBack, self._back_clicked)
        self._came_from_runs = False
        self._set_back()
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
        # Turn: each selected page a quarter further, as the review's Turn does in a plan.
        self.turn_right_action = QAction(tr("Turn &Right"), self)
        self.turn_right_action.setShortcut(QKeySequence("Ctrl+R"))
        self.turn_right_action.triggered.connect(lambda: self.turn(Turn.QUARTER))
        self.turn_left_action = QAction(tr("Turn &Left"), self)
        self.turn_left_action.setShortcut(QKeySequence("Ctrl+Shift+R"))
        self.turn_left_action.triggered.connect(lambda: self.turn(Turn.THREE_QUARTERS))
        self.turn_button = QPushButton(tr("Turn"))
        self.turn_button.setAccessibleName(tr("Turn the selected pages"))
        self.turn_button.setToolTip(
            tr(
                "Turn the selected pages: right (Ctrl+R) or left (Ctrl+Shift+R). The files stay "
                "as they are; the pages as they were go to History, and Undo Turn… puts them back."
            )
        )
        turn_menu = QMenu(self.turn_button)
        turn_menu.addActions([self.turn_right_action, self.turn_left_action])
        self.turn_button.setMenu(turn_menu)
        for action in (self.turn_right_action, self.turn_left_action):
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self.addAction(action)
        # The same Turn in the viewer (a page shown large), on the page it shows: its own
        # actions, since the grid's turn the pages selected there, and live in the dialog.
        self.viewer_turn_right_action, self.viewer_turn_left_action = turn_actions(
            self,
            self._turn_shown,
            tr(
                "The file stays as it is; the page as it was goes to History, and Undo Turn… "
                "puts it back."
            ),
        )
        self._viewer_row_turned: int | None = None  # the page the viewer turned, shown again
        top = QHBoxLayout()
        top.addWidget(self.back_button)
        top.addWidget(self.title_label, 1)
        top.addWidget(self.turn_button)
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
        self.state_label.setWordWrap(True)
        finish, undo = incomplete_buttons()
        # The mark's words name these two: they are here, as in the Corpus list.
        self.finish_button = push_button(finish, SP.SP_MediaPlay, self._finish_clicked)
        self.undo_button = push_button(undo, SP.SP_TrashIcon, self._undo_clicked)
        self.state_panel = QFrame()
        self.state_panel.setFrameShape(QFrame.Shape.StyledPanel)
        state_row = QHBoxLayout(self.state_panel)
        state_row.setContentsMargins(6, 6, 6, 6)
        state_row.addWidget(self.state_label, 1)
        state_row.addWidget(self.undo_button, 0, Qt.AlignmentFlag.AlignTop)
        state_row.addWidget(self.finish_button, 0, Qt.AlignmentFlag.AlignTop)
        self.state_panel.hide()
        self._actions_allowed = True
        self._said_turn: tuple[str, str] | None = None  # (notebook id, words) of the last turn

        self.view_bar = ViewBar()
        self.view_bar.zoom_slider.setValue(self.look.zoom)
        self.view_bar.view_chosen.connect(self._view_chosen)
        self.view_bar.zoom_chosen.connect(self.set_zoom)
        self.pages_model = LibraryPageModel(self.thumbnails, self)
        self.history_model = LibraryPageModel(self.thumbnails, self)
        self.pages_pane = PagesPane(
            self.pages_model, self.look, tr("Pages of the notebook"), several=True
        )
        self.history_pane = PagesPane(
            self.history_model,
            self.look,
            tr("Pages of the notebook that rescans or turns replaced"),
        )
        for view in (self.pages_pane.grid, self.pages_pane.table):
            view.addActions([self.turn_right_action, self.turn_left_action])
            view.selectionModel().selectionChanged.connect(self._enable_turn)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.pages_pane, tr("Pages"))
        self.tabs.addTab(self.history_pane, tr("History"))
        for pane in (self.pages_pane, self.history_pane):
            pane.open_requested.connect(self.open_viewer)
            for view in pane.icon_views():
                view.zoom_requested.connect(
                    lambda step: self.view_bar.zoom_slider.setValue(
                        self.look.zoom + ZOOM_STEP * step
                    )
                )
                view.verticalScrollBar().valueChanged.connect(self._moved)
        self.tabs.currentChanged.connect(lambda _: self._offer_spreads())
        self.message_label = selectable_text(QLabel())
        self.message_label.setWordWrap(True)
        self.undo_turn_button = push_button(
            ButtonWords(
                tr("Undo &Turn…"), tr("Undo the turn"), tr("Put the pages back as they were")
            ),
            SP.SP_ArrowBack,
            self._undo_turn_clicked,
        )
        self.message_row = QWidget()
        message_layout = QHBoxLayout(self.message_row)
        message_layout.setContentsMargins(0, 0, 0, 0)
        message_layout.addWidget(self.message_label, 1)
        message_layout.addWidget(self.undo_turn_button, 0, Qt.AlignmentFlag.AlignTop)
        self.message_row.hide()

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.run_row)
        layout.addWidget(self.facts_label)
        layout.addWidget(self.state_panel)
        layout.addWidget(self.message_row)
        layout.addWidget(self.view_bar)
        layout.addWidget(self.tabs, 1)
        self.view = PageView.GRID
        self.show_view(self._remembered_view())

    # -- what is shown -------------------------------------------------------------------

    def _set_back(self) -> None:
        """Back goes where the library was opened from: Runs, or the list of notebooks."""
        words = (
            ButtonWords(self.tr("&Back to Runs"), self.tr("Back to the import in Runs"))
            if self._came_from_runs
            else ButtonWords(self.tr("&All Notebooks"), self.tr("Back to the list of notebooks"))
        )
        self.back_button.setText(words.text)
        self.back_button.setAccessibleName(words.name)

    def _back_clicked(self) -> None:
        self.back_requested.emit()
        if self._came_from_runs and self.run_id is not None:
            self.back_to_run_requested.emit(self.run_id)

    def tell(self, message: str, *, undo_turn: bool = False) -> None:
        """A message about the notebook shown (an action on it failed, a turn made), where
        the person is; ``undo_turn``: with Undo Turn… beside it."""
        self.message_label.setText(message)
        self.undo_turn_button.setVisible(undo_turn)
        self.message_row.show()

    def open_notebook(self, notebook_id: str) -> None:
        """Read the notebook (on a worker) and show it whole."""
        self._came_from_runs = False
        self._set_back()
        self._loading(self.tr("Reading the notebook…"))
        self._loads.run(read_one, self.corpus, notebook_id)

    def open_run(self, run_id: str) -> None:
        """Read what the import ``run_id`` added (on a worker) and show it; Back returns to
        Runs, where it was asked for."""
        self._came_from_runs = True
        self._set_back()
        self._loading(self.tr("Reading what the import added…"))
        self._loads.run(read_run, self.corpus, run_id)

    def _loading(self, words: str) -> None:
        self.tell(words)
        self.export_button.setEnabled(False)

    def notebook(self) -> NotebookLibrary | None:
        """The notebook shown now."""
        row = self.notebook_choice.currentIndex()
        return self._notebooks[row] if 0 <= row < len(self._notebooks) else None

    def _loaded(self, loaded: tuple[list[NotebookLibrary], str | None, str | None]) -> None:
        self._notebooks, self.run_id, self._run_shown = loaded
        if self._said_turn is None or self._said_turn[0] != self._shown_id():
            self.message_row.hide()
        elif self.turn_run_id is not None:  # the notebook turned, read again: still said
            self.tell(self._said_turn[1], undo_turn=True)
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
        row, self._viewer_row_turned = self._viewer_row_turned, None
        viewing = self.viewer_dialog is not None and self.viewer_dialog.isVisible()
        if viewing and row is not None and row < self.pages_model.rowCount():
            self._go_to(row)  # the page the viewer turned, as it is now
        self.shown.emit()

    def _run_words(self) -> str:
        n = len(self._notebooks)
        pages = sum(len(nb.pages) for nb in self._notebooks)
        run = self._run_shown or ""  # as the Runs view and `runs` name it
        if not n:
            return self.tr(
                "Import {run} holds no page in the corpus now (it added none, or it was undone)."
            ).format(run=run)
        if n == 1:
            words = self.tr("Import {run} added {pages} to this notebook.").format(
                run=run, pages=self._pages(pages)
            )
        else:
            words = self.tr("Import {run} added {pages} to {count} notebooks:").format(
                run=run, pages=self._pages(pages), count=n
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
        self.tell(message)
        self._choose()
        self.shown.emit()

    def _shown_id(self) -> str | None:
        nb = self.notebook()
        return None if nb is None else nb.notebook_id

    def _choose(self, *_: object) -> None:
        nb = self.notebook()
        self.export_button.setEnabled(nb is not None)
        self.title_label.setText("" if nb is None else nb.title)
        self.facts_label.setText("" if nb is None else self._facts(nb))
        unfinished = None if nb is None else nb.unfinished
        self.state_panel.setVisible(unfinished is not None)
        self._enable_actions()
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
            pane.spreads.scrollToTop()
        self._offer_spreads()
        self._enable_turn()

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
        """Show the pages as ``view``; Spreads falls back to the grid where the pages name
        no side (a notebook not foliated), and comes back with the next foliated one."""
        self.view = view
        spreads = self.spreads_possible()
        shown = PageView.GRID if view is PageView.SPREADS and not spreads else view
        self.view_bar.show_view(shown, spreads_possible=spreads)
        for pane in (self.pages_pane, self.history_pane):
            pane.show_view(shown)

    def _view_chosen(self, value: str) -> None:
        view = PageView(value)
        self.settings.setValue(VIEW_KEY, view.value)
        self.show_view(view)

    def _remembered_view(self) -> PageView:
        try:
            return PageView(str(self.settings.value(VIEW_KEY, PageView.GRID.value)))
        except ValueError:
            return PageView.GRID

    def _remembered_zoom(self) -> int:
        try:
            zoom = int(str(self.settings.value(ZOOM_KEY, DEFAULT_ZOOM)))
        except ValueError:
            zoom = DEFAULT_ZOOM
        return max(MIN_ZOOM, min(MAX_ZOOM, zoom))

    def spreads_possible(self) -> bool:
        """Whether the pages shown name leaf and side, so spreads say something; pages
        rescans replaced (History) are not openings."""
        return self.current_pane() is self.pages_pane and has_sides(
            [r.page.label for r in self.pages_model.rows()]
        )

    def _offer_spreads(self) -> None:
        self.show_view(self.view)

    def set_zoom(self, zoom: int) -> None:
        self.look.zoom = zoom
        self.settings.setValue(ZOOM_KEY, zoom)
        self._moved()
        for pane in (self.pages_pane, self.history_pane):
            for view in pane.icon_views():
                view.apply_zoom()

    def _moved(self) -> None:
        self.look.pictures.moving = True
        self._settle.start()

    def _settled(self) -> None:
        self.look.pictures.moving = False
        self._repaint()

    def _repaint(self) -> None:
        for pane in (self.pages_pane, self.history_pane):
            for view in pane.icon_views():
                view.viewport().update()

    # -- an incomplete notebook's actions ------------------------------------------------

    def allow_actions(self, allowed: bool) -> None:
        """Finish Import, Undo This Import… and Turn start nothing while the window commits."""
        self._actions_allowed = allowed
        self._enable_actions()
        self._enable_turn()

    def _enable_actions(self) -> None:
        nb = self.notebook()
        unfinished = None if nb is None else nb.unfinished
        # Another process importing it (its run is live) finishes it, or stops it resumable.
        idle = self._actions_allowed and unfinished is not None and not unfinished.running
        for button in (self.finish_button, self.undo_button):
            button.setEnabled(idle)

    def _finish_clicked(self) -> None:
        nb = self.notebook()
        if nb is not None and nb.unfinished is not None:
            self.finish_requested.emit(nb.unfinished)

    def _undo_clicked(self) -> None:
        nb = self.notebook()
        if nb is not None and nb.unfinished is not None:
            self.undo_requested.emit(nb.unfinished.run_id)

    # -- turning pages -------------------------------------------------------------------

    def _enable_turn(self, *_: object) -> None:
        """Turn works on a whole notebook's selected pages, one turn at a time, never while
        the window commits or while the notebook holds an unfinished import."""
        nb = self.notebook()
        can = (
            self._actions_allowed
            and nb is not None
            and self.run_id is None
            and nb.unfinished is None
            and not self._turns.is_busy()
        )
        self.turn_button.setEnabled(can)
        chosen = can and bool(self.pages_pane.selected_rows())
        self.turn_right_action.setEnabled(chosen)
        self.turn_left_action.setEnabled(chosen)
        shown = can and self.pages_pane.current_row() is not None
        self.viewer_turn_right_action.setEnabled(shown)
        self.viewer_turn_left_action.setEnabled(shown)

    def _turn_shown(self, step: Turn) -> None:
        """The page the viewer shows (the current one of Pages) turned ``step`` further, by
        the grid's own Turn; the viewer shows it again once the notebook is read again."""
        row = self.pages_pane.current_row()
        if row is None or not self.viewer_turn_right_action.isEnabled():
            return
        self.pages_pane.select_row(row)  # that page alone, whatever else was chosen
        self._viewer_row_turned = row
        self.turn(step)

    def turn(self, step: Turn) -> None:
        """The selected pages each turned ``step`` further than they are, by one run."""
        nb = self.notebook()
        rows = self.pages_pane.selected_rows()
        if nb is None or not rows or not self.turn_right_action.isEnabled():
            return
        turns = tuple(
            (page.page_id, int(page.turn.then(step)))
            for page in (self.pages_model.row(r).page for r in rows)
        )
        self.tell(self.tr("Turning the pages…"))
        self._turns.run(turn_pages, self.corpus, nb.notebook_id, turns)
        self._enable_turn()

    def _turn_done(self, done: tuple[api.CorpusTurn, RunResult]) -> None:
        turn, result = done
        if result.status is RunStatus.COMPLETE:
            self.turn_run_id = result.run_id
            said = turn.words[0].upper() + turn.words[1:]
            words = plural(
                len(turn.positions),
                self.tr("{done}. The page as it was is under History; Undo Turn… puts it back."),
                self.tr(
                    "{done}. The pages as they were are under History; Undo Turn… puts them back.",
                    "",
                    len(turn.positions),
                ),
            ).format(done=said)
            self._said_turn = (turn.notebook_id, words)
            self.tell(words, undo_turn=True)
        else:  # stopped or failed part way: the run says so in Runs, where it can be resumed
            self._said_turn = None
            self.tell(
                self.tr("The turn did not finish ({status}); see it in Runs.").format(
                    status=result.status.value
                )
            )
        self._enable_turn()
        self.turned.emit()
        self._loads.run(read_one, self.corpus, turn.notebook_id)

    def _turn_failed(self, message: str) -> None:
        self._said_turn = None
        self._viewer_row_turned = None
        self.tell(message)
        self._enable_turn()

    def _undo_turn_clicked(self) -> None:
        if self.turn_run_id is not None:
            self.undo_requested.emit(self.turn_run_id)

    def reread(self) -> None:
        """Read the notebook shown again (an undo changed it); the turn made here is said no
        more once it is undone."""
        nb = self.notebook()
        if nb is not None and self.run_id is None:
            self._said_turn = None
            self.turn_run_id = None
            self._loads.run(read_one, self.corpus, nb.notebook_id)

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
        # Turn where Pages is shown (History's pages are what turns and rescans replaced).
        turns = (
            [self.viewer_turn_right_action, self.viewer_turn_left_action]
            if pane is self.pages_pane
            else []
        )
        self.viewer_dialog = ViewerDialog(self.previews, [page], self, place, turns)
        self._enable_turn()
        self.viewer_dialog.viewer.set_pages([page], place, [pane.model.row(row).page.turn])
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
            turns = [pane.model.row(row).page.turn]
            self.viewer_dialog.viewer.set_pages([page], place, turns)

    # -- closing -------------------------------------------------------------------------

    def caches(self) -> Sequence[ThumbnailCache]:
        return [self.thumbnails, self.previews, *self.look.pictures.own_caches()]

    def stop_and_wait(self) -> None:
        """Wait for a reading or a turn (short) and stop every render before the window closes."""
        self._turns.close()
        self._loads.close()
        for cache in self.caches():
            cache.shutdown()
