"""The review page: a plan's notebooks and pages, their order decisions, and every problem.

Every change is an engine call (``ordering.*``, ``edits.*``, and for an import into an
existing notebook ``api.place``, ``api.replace_page``, ``api.keep_pages``) made through
``ImportSession.edit_item``, so it is undoable and the plan stays the only state; the
page only decides which call to make for the button pressed and the pages selected.

Over the usual 500 lines: the page's widgets, its commands, and the decision panel whose
buttons settle each kind of problem belong to one view; the placement bar and the replace
question are in placement.py.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import (
    QAbstractItemModel,
    QItemSelectionModel,
    QModelIndex,
    QSize,
    Qt,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QSplitter,
    QStyle,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from transcribe_import.engine import api
from transcribe_import.engine.planning import edits, ordering
from transcribe_import.engine.planning.plan import Op, OrderingRule, PlanItem, PlanSource
from transcribe_import.engine.planning.problems import ProblemCode, Resolution
from transcribe_import.gui.icons import not_imported_icon
from transcribe_import.gui.models.plan import (
    ItemColumn,
    ItemIdRole,
    PageColumn,
    PageTableModel,
    PlanItemsModel,
    ProblemColumn,
    ProblemsModel,
    SourceIdsRole,
    says_page_in_file,
)
from transcribe_import.gui.pages.placement import (
    AFTER_PAGE,
    AT_POSITION,
    PlacementBar,
    ask_replaced_page,
)
from transcribe_import.gui.session import ImportSession
from transcribe_import.gui.thumbnails import ThumbnailCache
from transcribe_import.gui.values import PlanItemState
from transcribe_import.gui.viewer import PREVIEW_SIDE, PageViewer, ViewerDialog
from transcribe_import.gui.widgets import (
    elide_names_in_the_middle,
    icon_label,
    pane,
    selectable_text,
    table_view,
)
from transcribe_import.gui.wording import (
    ActionWords,
    errors_words,
    format_wall_time,
    item_message,
    not_imported_title,
    op_words,
    plain_message,
    plan_state_words,
    resolution_words,
    review_actions,
    warnings_words,
)

# Problems of where an into item's pages go: shown with their buttons in the decision panel.
_PLACEMENT_CODES = frozenset(
    {
        ProblemCode.PLACEMENT_OUT_OF_RANGE,
        ProblemCode.PLACEMENT_PAGE_NOT_FOUND,
        ProblemCode.REPLACED_PAGE_NOT_FOUND,
        ProblemCode.PAGE_REPLACED_TWICE,
        ProblemCode.PLACEMENT_ON_NEW_NOTEBOOK,
        ProblemCode.REPLACEMENT_LEFT_OUT,
    }
)


# The thumbnail as a table row shows it; the cache renders at 160 px, sharp on a 2x screen.
THUMBNAIL_SIZE = QSize(44, 56)
_ROW_PADDING = 6
_SHORTCUT_CONTEXT = Qt.ShortcutContext.WidgetWithChildrenShortcut


class _ActionButton(QPushButton):
    """A push button that mirrors a QAction (enabled state, tooltip) and triggers it.

    Push buttons, not tool bar buttons: they are in the Tab order and keep their
    mnemonics, so the page works from the keyboard alone.
    """

    def __init__(self, action: QAction, text: str | None = None) -> None:
        super().__init__(text if text is not None else action.text())
        self._action = action
        self._sync()
        action.changed.connect(self._sync)
        self.clicked.connect(action.trigger)

    @Slot()
    def _sync(self) -> None:
        if not shiboken6.isValid(self._action):
            return  # the page is being torn down and its actions went first
        self.setEnabled(self._action.isEnabled())
        tip = self._action.toolTip()
        shortcut = self._action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        self.setToolTip(f"{tip} ({shortcut})" if shortcut else tip)


class _WrappingLabel(QLabel):
    """A word-wrapped label whose height follows its width in a layout.

    QLabel's minimum size hint is its height at a narrow width, which a parent layout
    takes as a floor: a two-line message got four lines of space. The height it needs at
    the width it has comes from heightForWidth instead.
    """

    def __init__(self, text: str = "") -> None:
        super().__init__(text)
        self.setWordWrap(True)

    def minimumSizeHint(self) -> QSize:
        return QSize(super().minimumSizeHint().width(), self.fontMetrics().height())


class ReviewPage(QWidget):
    """Review and fix a plan: order pages, leave pages or files out, rename, pick covers.

    The shell connects ``validate_requested`` (validate in a worker, then
    ``session.set_report``) and ``commit_requested``; ``can_commit()`` says whether the
    plan as it stands validated without errors.
    """

    validate_requested = Signal()
    commit_requested = Signal()
    current_item_changed = Signal(str)  # item_id; "" when no item is selected

    def __init__(
        self,
        session: ImportSession,
        thumbnails: ThumbnailCache | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self._owns_thumbnails = thumbnails is None
        self.thumbnails = thumbnails if thumbnails is not None else ThumbnailCache(parent=self)
        self.previews = ThumbnailCache(capacity=24, threads=1, parent=self, side=PREVIEW_SIDE)
        self.viewer_dialog: ViewerDialog | None = None
        self.items_model = PlanItemsModel(session, self)
        self.pages_model = PageTableModel(session, self.thumbnails, self)
        self.problems_model = ProblemsModel(session, self)
        self._decision_box: QWidget | None = None

        self._build_actions()
        self._build_widgets()
        self.items_view.selectionModel().currentRowChanged.connect(self._on_item_row_changed)
        self.page_view.selectionModel().selectionChanged.connect(self._update_actions)
        self.page_view.selectionModel().selectionChanged.connect(self._show_selected_pages)
        self.pages_model.edit_failed.connect(self._show_error)
        session.plan_changed.connect(self._on_plan_changed)
        session.item_changed.connect(self._on_item_changed)
        session.validation_changed.connect(self._on_validation_changed)
        self._on_plan_changed()

    # -- building --------------------------------------------------------------------------

    def _action(self, words: ActionWords, slot: Callable[[], object]) -> QAction:
        action = QAction(words.text, self, toolTip=words.tip, statusTip=words.tip)
        if words.shortcut:
            action.setShortcut(QKeySequence(words.shortcut))
        # Only while the focus is on this page: the shell has other pages with their own keys.
        action.setShortcutContext(_SHORTCUT_CONTEXT)
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        tr = self.tr
        w = review_actions()
        self.move_up_action = self._action(w.move_up, self.move_up)
        self.move_down_action = self._action(w.move_down, self.move_down)
        self.sort_name_action = self._action(w.sort_name, self.sort_by_name)
        self.sort_capture_action = self._action(w.sort_capture, self.sort_by_capture_time)
        self.sort_mtime_action = self._action(w.sort_mtime, self.sort_by_mtime)
        self.exclude_action = self._action(w.exclude, self.exclude)
        self.include_action = self._action(w.include, self.include)
        self.rename_action = self._action(w.rename, self.rename)
        self.cover_action = self._action(w.cover, self.set_cover)
        self.replace_action = self._action(w.replace, self.choose_replaced_page)
        self.validate_action = self._action(w.validate, self.validate_requested.emit)
        self.commit_action = self._action(w.commit, self.commit_requested.emit)

        stack = self.session.undo_stack
        self.undo_action = stack.createUndoAction(self, tr("Undo"))
        self.undo_action.setShortcut(QKeySequence("Ctrl+Z"))
        self.redo_action = stack.createRedoAction(self, tr("Redo"))
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        for action in (self.undo_action, self.redo_action):
            action.setShortcutContext(_SHORTCUT_CONTEXT)
            self.addAction(action)

    def _build_widgets(self) -> None:
        tr = self.tr
        style = self.style()

        # The commands, in the Tab order before the tables they act on.
        self.sort_button = QPushButton(tr("&Sort pages"))
        self.sort_button.setToolTip(tr("Put every page of the notebook in one order"))
        sort_menu = QMenu(self.sort_button)
        sort_menu.addActions(
            [self.sort_name_action, self.sort_capture_action, self.sort_mtime_action]
        )
        self.sort_button.setMenu(sort_menu)
        self.undo_button = _ActionButton(self.undo_action, tr("Undo"))
        self.undo_button.setIcon(style.standardIcon(QStyle.StandardPixmap.SP_ArrowBack))
        self.redo_button = _ActionButton(self.redo_action, tr("Redo"))
        self.redo_button.setIcon(style.standardIcon(QStyle.StandardPixmap.SP_ArrowForward))
        commands = QHBoxLayout()
        for widget in (
            _ActionButton(self.move_up_action),
            _ActionButton(self.move_down_action),
            self.sort_button,
            _ActionButton(self.exclude_action),
            _ActionButton(self.include_action),
            _ActionButton(self.rename_action),
            _ActionButton(self.cover_action),
            _ActionButton(self.replace_action),
        ):
            commands.addWidget(widget)
        commands.addStretch(1)
        commands.addWidget(self.undo_button)
        commands.addWidget(self.redo_button)

        # Left: the notebooks of the plan.
        self.items_view = self._table(self.items_model, tr("Notebooks in the plan"))
        header = self.items_view.horizontalHeader()
        header.setSectionResizeMode(ItemColumn.NOTEBOOK, QHeaderView.ResizeMode.Stretch)
        # No column is measured from its rows: a plan of thousands of notebooks would be read
        # row by row on every change (a state costs an ordering check of the notebook). The
        # widths come from what a cell can say: a state is one of four, a count a few digits.
        metrics = self.fontMetrics()
        icon = self.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)

        def wide(*texts: str) -> int:
            return max(metrics.horizontalAdvance(t) for t in texts) + 12  # the cell's margins

        header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        header.setSectionResizeMode(ItemColumn.NOTEBOOK, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(ItemColumn.ACTION, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(ItemColumn.PAGES, wide(self._header_text(ItemColumn.PAGES), "8888"))
        header.resizeSection(ItemColumn.NOT_IMPORTED, max(icon + 10, wide("888")))
        header.resizeSection(
            ItemColumn.STATE, wide(*(plan_state_words(s) for s in PlanItemState)) + icon + 6
        )
        elide_names_in_the_middle(self.items_view, ItemColumn.NOTEBOOK)
        items_label = QLabel(tr("&Notebooks"))
        items_label.setBuddy(self.items_view)
        left = pane(items_label, self.items_view)

        # Right: the decisions the selected notebook needs, above its pages.
        self.pages_label = QLabel()
        self.decision_panel = QGroupBox(tr("Needs a decision"))
        self.decision_panel.setAccessibleName(tr("Decisions this notebook needs"))
        self._decision_layout = QVBoxLayout(self.decision_panel)
        self._decision_layout.setContentsMargins(9, 2, 9, 6)
        self.page_view = self._table(
            self.pages_model,
            tr("Pages of the notebook, in notebook order"),
            selection=QAbstractItemView.SelectionMode.ExtendedSelection,
            row_numbers=True,
        )
        self.page_view.setIconSize(THUMBNAIL_SIZE)
        # A row is a thumbnail tall, room for three lines: a long file name, a capture time
        # or a warning wraps instead of being cut, so the columns can be narrow.
        self.page_view.setWordWrap(True)
        self.page_view.setDragEnabled(True)
        self.page_view.setAcceptDrops(True)
        self.page_view.setDropIndicatorShown(True)
        self.page_view.setDragDropOverwriteMode(False)
        self.page_view.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.page_view.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.page_view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.page_view.addActions(
            [
                self.move_up_action,
                self.move_down_action,
                self.exclude_action,
                self.include_action,
                self.cover_action,
                self.replace_action,
            ]
        )
        rows = self.page_view.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(THUMBNAIL_SIZE.height() + _ROW_PADDING)
        rows.setDefaultAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        header = self.page_view.horizontalHeader()
        header.setSectionResizeMode(PageColumn.THUMBNAIL, QHeaderView.ResizeMode.Fixed)
        header.resizeSection(PageColumn.THUMBNAIL, THUMBNAIL_SIZE.width() + 2 * _ROW_PADDING)
        metrics = self.fontMetrics()
        widths = {
            PageColumn.FILE: metrics.horizontalAdvance("IMG_20240309_1.jpeg") + 16,
            PageColumn.SOURCE_PAGE: metrics.horizontalAdvance(
                self.pages_model.headerData(PageColumn.SOURCE_PAGE, Qt.Orientation.Horizontal)
            )
            + 20,
            # The date above the time (a row wraps): as wide as the wider of the two.
            PageColumn.CAPTURED: max(
                metrics.horizontalAdvance(part)
                for part in format_wall_time("2088-12-28T18:58:58").split()
            )
            + 16,
            PageColumn.SIZE: metrics.horizontalAdvance("888.88 KiB") + 12,
        }
        for column, width in widths.items():
            header.resizeSection(column, width)
        header.setStretchLastSection(True)  # the warning, whatever room is left
        # The file name shares the room with the warning: on a 1024-pixel screen neither is
        # pushed out of view by a sideways scroll (issue 13); a long name is elided.
        header.setSectionResizeMode(PageColumn.FILE, QHeaderView.ResizeMode.Stretch)
        self.pages_label.setBuddy(self.page_view)
        # The selected page (or the two of a disputed pair) large enough to read, beside
        # the table; Space or a double-click opens it full-window.
        self.viewer = PageViewer(self.previews)
        self.page_split = QSplitter(Qt.Orientation.Horizontal)
        self.page_split.setObjectName("reviewPageSplit")
        self.page_split.addWidget(self.page_view)
        self.page_split.addWidget(self.viewer)
        self.page_split.setStretchFactor(0, 3)
        self.page_split.setStretchFactor(1, 2)
        self.page_split.setCollapsible(0, False)
        self._viewer_sized = False
        self.page_view.doubleClicked.connect(self.open_viewer)
        space = QShortcut(QKeySequence(Qt.Key.Key_Space), self.page_view)
        space.setContext(Qt.ShortcutContext.WidgetShortcut)
        space.activated.connect(self.open_viewer)
        # An import into an existing notebook: where its new pages go there.
        self.placement_bar = PlacementBar()
        self.placement_bar.placement_chosen.connect(self._on_placement_chosen)
        right = pane(
            self.pages_label, self.placement_bar, self.decision_panel, (self.page_split, 1)
        )

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(1, 1)
        # On a 1024-pixel screen both keep their key columns: the notebooks' names, and the
        # pages' files and warnings (the window shrinks the table, not the list).
        self.splitter.setSizes([390, 710])
        self.splitter.setChildrenCollapsible(False)

        # Bottom: every problem of the last validation, and what can be done next.
        self.problems_view = self._table(self.problems_model, tr("Problems found by validation"))
        # Messages wrap: they say what to do, and a cut-off one does not.
        self.problems_view.setWordWrap(True)
        self.problems_view.verticalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents
        )
        header = self.problems_view.horizontalHeader()
        header.setSectionResizeMode(ProblemColumn.NOTEBOOK, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(ProblemColumn.NOTEBOOK, 200)
        header.setStretchLastSection(True)
        self.problems_view.activated.connect(self._on_problem_activated)
        # One click jumps (activated needs a double-click on most styles); Enter still does.
        self.problems_view.clicked.connect(self._on_problem_activated)
        # A validation rebuilds the list: where the person had scrolled to stays.
        self._problems_scroll = 0
        self.problems_model.modelAboutToBeReset.connect(self._remember_problems_scroll)
        self.problems_model.modelReset.connect(self._restore_problems_scroll)
        problems_label = QLabel(tr("Pro&blems"))
        problems_label.setBuddy(self.problems_view)
        self.problems_summary = QLabel()
        self.problems_summary.setWordWrap(True)
        self.problems_summary.setAccessibleName(tr("Validation summary"))
        self.validate_button = _ActionButton(self.validate_action)
        self.commit_button = _ActionButton(self.commit_action)
        self.commit_button.setDefault(False)
        summary_row = QHBoxLayout()
        summary_row.addWidget(problems_label)
        summary_row.addWidget(self.problems_summary, 1)
        summary_row.addWidget(self.validate_button)
        summary_row.addWidget(self.commit_button)
        # Every file the scan found and the plan does not import, with its reason: nothing
        # found is ever hidden (engine: api.not_imported).
        self.not_imported_label = QLabel()
        self.not_imported_label.setWordWrap(True)
        self.not_imported_view = QTableWidget(0, 3)
        self.not_imported_view.setHorizontalHeaderLabels(
            [tr("File"), tr("Why it is not imported"), tr("Found beside")]
        )
        self.not_imported_view.setAccessibleName(tr("Files not imported"))
        self.not_imported_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.not_imported_view.setWordWrap(True)
        self.not_imported_view.verticalHeader().hide()
        ni_header = self.not_imported_view.horizontalHeader()
        ni_header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        ni_header.resizeSection(0, 220)
        ni_header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        ni_header.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        ni_header.resizeSection(2, 180)
        self.not_imported_label.setBuddy(self.not_imported_view)
        # The picture that heads the notebooks' Not imported count.
        not_imported_title = QHBoxLayout()
        not_imported_title.addWidget(icon_label(not_imported_icon()))
        not_imported_title.addWidget(self.not_imported_label, 1)
        self.not_imported_box = pane(not_imported_title, (self.not_imported_view, 1))
        self.not_imported_box.hide()
        bottom = pane(summary_row, (self.problems_view, 2), (self.not_imported_box, 1))

        self.main_splitter = QSplitter(Qt.Orientation.Vertical)
        self.main_splitter.addWidget(self.splitter)
        self.main_splitter.addWidget(bottom)
        self.main_splitter.setStretchFactor(0, 1)
        self.main_splitter.setSizes([490, 140])
        self.main_splitter.setChildrenCollapsible(False)

        # An edit the engine refused says why here; it never interrupts with a dialog.
        self.status_label = selectable_text(QLabel())
        self.status_label.setAccessibleName(tr("Last edit"))
        self.status_label.hide()

        layout = QVBoxLayout(self)
        layout.addLayout(commands)
        layout.addWidget(self.main_splitter, 1)
        layout.addWidget(self.status_label)

    @staticmethod
    def _table(model: QAbstractItemModel, name: str, **kwargs: Any) -> QTableView:
        view = table_view(model, name, **kwargs)
        view.setTabKeyNavigation(False)  # Tab leaves the table, as keyboard users expect
        view.horizontalHeader().setHighlightSections(False)
        return view

    # -- the shell's interface -------------------------------------------------------------

    def selected_item_id(self) -> str | None:
        return self.pages_model.item_id()

    def select_item(self, item_id: str) -> bool:
        """Show that notebook's pages; False when the plan has no such item."""
        row = self.items_model.row_of(item_id)
        if row is None:
            return False
        self.items_view.setCurrentIndex(self.items_model.index(row, ItemColumn.NOTEBOOK))
        return True

    def select_source(self, source_id: str) -> bool:
        """Select the first page of that source in the current notebook and scroll to it."""
        rows = self.pages_model.rows_of_source(source_id)
        if not rows:
            return False
        self.select_rows([rows[0]])
        return True

    def select_rows(self, rows: list[int]) -> None:
        """Select those page rows of the current notebook (the first becomes current)."""
        selection = self.page_view.selectionModel()
        flags = (
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows
        )
        first = True
        for row in rows:
            index = self.pages_model.index(row, PageColumn.FILE)
            if first:
                selection.setCurrentIndex(index, flags)
                first = False
            else:
                selection.select(
                    index,
                    QItemSelectionModel.SelectionFlag.Select
                    | QItemSelectionModel.SelectionFlag.Rows,
                )
        if rows:
            self.page_view.scrollTo(self.pages_model.index(rows[0], PageColumn.FILE))

    def selected_rows(self) -> list[int]:
        """The selected page rows, top to bottom."""
        return sorted({i.row() for i in self.page_view.selectionModel().selectedRows()})

    def can_commit(self) -> bool:
        report = self.session.report
        plan = self.session.plan
        return (
            plan is not None
            and report is not None
            and report.ok
            and api.nothing_to_import(plan) is None
        )

    def not_imported(self) -> list[api.NotImported]:
        """The files the plan under review leaves out, as the list shows them."""
        return self.items_model.not_imported()

    def _header_text(self, column: int) -> str:
        return str(self.items_model.headerData(column, Qt.Orientation.Horizontal))

    def _fit_item_columns(self) -> None:
        """No column that says nothing: Action when every notebook is a new one (the names'
        tooltips say it), Not imported when the scan left nothing out. Action is as wide as
        the widest of its few different words (a plan into one notebook names it once)."""
        plan = self.session.plan
        items = () if plan is None else plan.items
        view = self.items_view
        new_only = all(it.op is Op.CREATE_NOTEBOOK for it in items)
        view.setColumnHidden(ItemColumn.ACTION, new_only)
        if not new_only:
            words = {op_words(it) for it in items} | {self._header_text(ItemColumn.ACTION)}
            metrics = view.fontMetrics()
            width = max(metrics.horizontalAdvance(w) for w in words) + 16
            view.horizontalHeader().resizeSection(ItemColumn.ACTION, min(width, 200))
        view.setColumnHidden(ItemColumn.NOT_IMPORTED, not self.items_model.not_imported())

    def _fit_page_columns(self, item: PlanItem | None) -> None:
        """Page in file only for a notebook with a file of several pages, Captured only for
        one with a capture time: the room goes to the file names and the warnings."""
        sources = () if item is None else item.sources
        view = self.page_view
        view.setColumnHidden(
            PageColumn.SOURCE_PAGE,
            not any(says_page_in_file(s) for s in sources),
        )
        view.setColumnHidden(
            PageColumn.CAPTURED, not any(s.provenance.captured_at for s in sources)
        )

    def _update_not_imported(self) -> None:
        rows = self.not_imported()
        labels = (
            {}
            if self.session.plan is None
            else {it.item_id: it.label for it in self.session.plan.items}
        )
        self.not_imported_view.setRowCount(len(rows))
        for r, row in enumerate(rows):
            where = labels.get(row.item_id or "", self.tr("no notebook"))
            for c, text in enumerate((row.rel, plain_message(row.reason, row.rel), where)):
                cell = QTableWidgetItem(text)
                cell.setToolTip(text)
                self.not_imported_view.setItem(r, c, cell)
        self.not_imported_view.resizeRowsToContents()
        # As tall as its rows, up to four: the problems above keep their room.
        view = self.not_imported_view
        shown = sum(view.rowHeight(r) for r in range(min(4, len(rows))))
        view.setMaximumHeight(view.horizontalHeader().height() + shown + 2 * view.frameWidth() + 2)
        self.not_imported_label.setText(not_imported_title(len(rows)))
        self.not_imported_box.setVisible(bool(rows))

    def decision_buttons(self) -> list[QPushButton]:
        """The buttons the decision panel shows now (resolutions, Leave out, ...)."""
        if self._decision_box is None:
            return []
        return self._decision_box.findChildren(QPushButton)

    def selected_pages(self) -> list[tuple[PlanSource, int]]:
        """The selected pages as (source, page index), top to bottom."""
        return [
            (self.pages_model.source_at(r), self.pages_model.page_at(r).page_index)
            for r in self.selected_rows()
        ]

    def _show_selected_pages(self) -> None:
        self.viewer.set_pages(self.selected_pages()[:2])

    def open_viewer(self) -> None:
        """The selected page(s) full-window (two side by side: a disputed pair)."""
        pages = self.selected_pages()[:2]
        if not pages:
            return
        if self.viewer_dialog is not None:
            self.viewer_dialog.close()
        self.viewer_dialog = ViewerDialog(self.previews, pages, self)
        self.viewer_dialog.open()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._viewer_sized:
            # Beside the table where there is room; folded away on a small screen, where
            # Space and a double-click still open it full-window (and it can be dragged out).
            self._viewer_sized = True
            wide = self.window().width() >= 1300
            # Shares, not pixels: the splitter is not laid out yet; it keeps the proportion.
            self.page_split.setSizes([6500, 3500] if wide else [1, 0])

    def shutdown(self) -> None:
        """Stop background work: the shell calls this when its window closes."""
        self.previews.shutdown()
        if self._owns_thumbnails:
            self.thumbnails.shutdown()
        else:
            self.thumbnails.cancel()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)

    # -- edits -----------------------------------------------------------------------------

    def _current_item(self) -> PlanItem | None:
        return self.pages_model.item

    def _edit(self, change: Callable[[PlanItem], PlanItem], text: str) -> bool:
        """One undoable engine edit of the current notebook; a refusal is shown, not raised."""
        item = self._current_item()
        if item is None:
            return False
        try:
            applied = self.session.edit_item(item.item_id, change, text)
        except ValueError as exc:
            self._show_error(str(exc))
            return False
        self._show_error(None)
        return applied

    def _selected_source_ids(self) -> list[str]:
        rows = self.selected_rows()
        return list(dict.fromkeys(self.pages_model.source_at(r).source_id for r in rows))

    @staticmethod
    def _positions(item: PlanItem, source_ids: list[str]) -> list[int]:
        wanted = set(source_ids)
        return [i for i, s in enumerate(item.sources) if s.source_id in wanted]

    @Slot()
    def move_up(self) -> None:
        ids = self._selected_source_ids()
        if ids:
            self._move(ids, -1)

    @Slot()
    def move_down(self) -> None:
        ids = self._selected_source_ids()
        if ids:
            self._move(ids, +1)

    def _move(self, source_ids: list[str], step: int) -> None:
        def change(item: PlanItem) -> PlanItem:
            positions = self._positions(item, source_ids)
            # move() puts the rows before ``to``: one up is before the row above the first,
            # one down is before the row two below the last.
            to = positions[0] - 1 if step < 0 else positions[-1] + 2
            if not 0 <= to <= len(item.sources):
                return item
            return ordering.move(item, positions, to)

        if self._edit(change, self.tr("Move pages")):
            current = self.page_view.currentIndex()
            if current.isValid():
                self.page_view.scrollTo(current)

    def _sort(self, rule: OrderingRule, text: str) -> None:
        self._edit(lambda item: ordering.order_by(item, rule), text)

    @Slot()
    def sort_by_name(self) -> None:
        self._sort(OrderingRule.NAME, self.tr("Sort pages by name"))

    @Slot()
    def sort_by_capture_time(self) -> None:
        self._sort(OrderingRule.CAPTURE_TIME, self.tr("Sort pages by capture time"))

    @Slot()
    def sort_by_mtime(self) -> None:
        self._sort(OrderingRule.MTIME, self.tr("Sort pages by modification time"))

    def _selected_names(self) -> list[str]:
        item = self._current_item()
        if item is None:
            return []
        wanted = set(self._selected_source_ids())
        # The engine names sources by their path as validate shows it (provenance.rel).
        return [s.provenance.rel for s in item.sources if s.source_id in wanted]

    @Slot()
    def exclude(self) -> None:
        names = self._selected_names()
        if names:
            self._edit(lambda item: ordering.exclude(item, names), self.tr("Exclude pages"))

    @Slot()
    def include(self) -> None:
        names = self._selected_names()
        if names:
            self._edit(lambda item: ordering.include(item, names), self.tr("Include pages"))

    @Slot()
    def rename(self, title: str | None = None) -> None:
        """Rename the new notebook; without ``title``, ask for one."""
        item = self._current_item()
        if item is None or item.op is not Op.CREATE_NOTEBOOK:
            return
        if not isinstance(title, str):  # triggered(bool) from the action passes a bool
            title, ok = QInputDialog.getText(
                self,
                self.tr("Rename Notebook"),
                self.tr("Title of the new notebook:"),
                QLineEdit.EchoMode.Normal,
                item.title or "",
            )
            if not ok:
                return
        new_title = title
        self._edit(lambda it: edits.rename(it, new_title), self.tr("Rename notebook"))

    @Slot()
    def set_cover(self) -> None:
        rows = self.selected_rows()
        if len(rows) != 1:
            return
        page_id = self.pages_model.page_at(rows[0]).page_id
        self._edit(lambda item: edits.set_cover(item, page_id), self.tr("Set cover"))

    @Slot(object, object)
    def _on_placement_chosen(self, at: int | None, after: str | None) -> None:
        corpus = self.session.corpus
        self._edit(
            lambda it: api.place(corpus, it, at=at, after=after), self.tr("Place the new pages")
        )

    @Slot()
    def choose_replaced_page(self) -> None:
        """Ask which page of the notebook the selected page (a rescan) replaces."""
        item = self._current_item()
        rows = self.selected_rows()
        if item is None or len(rows) != 1:
            return
        now = dict(item.replacements).get(self.pages_model.page_at(rows[0]).page_id)
        pages = self.session.notebook_pages(item.notebook_id)
        asked, page_id = ask_replaced_page(self, pages, now)
        if asked:
            self.replace_selected_with(page_id)

    def replace_selected_with(self, page_id: str | None) -> None:
        """The selected page replaces the notebook's page ``page_id`` (None: nothing)."""
        rows = self.selected_rows()
        if len(rows) != 1:
            return
        rescan = self.pages_model.page_at(rows[0]).page_id
        corpus = self.session.corpus
        if page_id is None:
            self._edit(lambda it: api.keep_pages(it, [rescan]), self.tr("Add as a new page"))
        else:
            self._edit(
                lambda it: api.replace_page(corpus, it, rescan, page_id),
                self.tr("Replace a notebook page"),
            )

    def _rescans_of(self, item: PlanItem, source_ids: tuple[str, ...]) -> list[str]:
        """The item's rescan pages (replacing a page) of those sources."""
        wanted = set(source_ids)
        of = {p.page_id: s.source_id for s in item.sources for p in s.pages}
        return [new for new, _old in item.replacements if of.get(new) in wanted]

    # The resolutions that are an ordering rule (api.reorder's ``by``); the rest are flags.
    _ORDER_RULES = frozenset(
        {
            Resolution.NAME,
            Resolution.CAPTURE_TIME,
            Resolution.MTIME,
            Resolution.INTERLEAVE,
            Resolution.INTERLEAVE_REVERSED,
        }
    )

    def resolve(self, resolution: str, source_ids: tuple[str, ...] = ()) -> None:
        """Settle the current notebook the way a panel button says: an engine resolution,
        applied as `order` applies it (api.reorder), "exclude" for the selected pages, or
        where an into item's pages go and what its rescans replace (``source_ids``: the
        sources the problem names)."""
        tr = self.tr
        undo_texts: dict[str, str] = {
            Resolution.ACCEPT: tr("Accept the page order"),
            Resolution.CAPTURE_TIME: tr("Order pages by capture time"),
            Resolution.NAME: tr("Order pages by name"),
            Resolution.MTIME: tr("Order pages by modification time"),
            # Two duplex passes woven together; what a person says of a foliated notebook.
            Resolution.INTERLEAVE: tr("Interleave fronts and backs"),
            Resolution.INTERLEAVE_REVERSED: tr("Interleave fronts and reversed backs"),
            Resolution.VERSO_FIRST: tr("Say the first page is a verso"),
            Resolution.VERSOS_BLANK: tr("Say the versos are blank"),
            # A bag's notebook whose id holds another notebook: leave it out, or take a copy.
            Resolution.SKIP: tr("Leave the notebook out"),
            Resolution.AS_COPY: tr("Import the notebook as a copy"),
        }
        # Where an into item's pages go, and what its rescans replace.
        corpus = self.session.corpus
        placing: dict[str, tuple[Callable[[PlanItem], PlanItem], str]] = {
            Resolution.AT_END: (lambda it: api.place(corpus, it), tr("Put the pages at the end")),
            Resolution.NO_REPLACE: (
                lambda it: api.keep_pages(it, self._rescans_of(it, source_ids)),
                tr("Add as new pages"),
            ),
            Resolution.INCLUDE: (
                lambda it: ordering.include(
                    it, [s.provenance.rel for s in it.sources if s.source_id in source_ids]
                ),
                tr("Include pages"),
            ),
        }
        if resolution == Resolution.EXCLUDE:
            self.exclude()
        elif resolution in (Resolution.AT, Resolution.AFTER):
            self.placement_bar.choose(AT_POSITION if resolution == Resolution.AT else AFTER_PAGE)
            return
        elif resolution == Resolution.REPLACE:
            item = self._current_item()
            rows = [r for sid in source_ids[:1] for r in self.pages_model.rows_of_source(sid)[:1]]
            if item is not None and rows:
                self.select_rows(rows)
                self.choose_replaced_page()
        elif resolution in placing:
            change, text = placing[resolution]
            self._edit(change, text)
        elif resolution in undo_texts:
            how: dict[str, Any] = (
                {"by": resolution} if resolution in self._ORDER_RULES else {resolution: True}
            )
            self._edit(lambda it: api.reorder(it, **how), undo_texts[resolution])
        self.page_view.setFocus(Qt.FocusReason.OtherFocusReason)

    @Slot()
    def _on_resolution_clicked(self) -> None:
        button = self.sender()
        if isinstance(button, QPushButton):
            ids = button.property("source_ids") or ()
            self.resolve(str(button.property("resolution")), tuple(ids))

    @Slot()
    def _on_leave_out_clicked(self) -> None:
        button = self.sender()
        if not isinstance(button, QPushButton):
            return
        rel = str(button.property("rel"))
        if button.property("take_back"):
            self._edit(
                lambda it: edits.unacknowledge_unusable(it, [rel]),
                self.tr("Take back a left-out file"),
            )
        else:
            self._edit(
                lambda it: edits.acknowledge_unusable(it, [rel]), self.tr("Leave out a file")
            )
        self.page_view.setFocus(Qt.FocusReason.OtherFocusReason)

    # -- following the session -------------------------------------------------------------

    @Slot()
    def _on_plan_changed(self) -> None:
        plan = self.session.plan
        keep = self.pages_model.item_id()
        if plan is not None and plan.items:
            if keep is None or self.items_model.row_of(keep) is None:
                keep = plan.items[0].item_id
            self.select_item(keep)
            # The model was reset; a current row that did not change sends no signal.
            self._show_item(keep)
        else:
            self._show_item(None)
        self._fit_item_columns()
        self._on_validation_changed()

    @Slot(QModelIndex, QModelIndex)
    def _on_item_row_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        item_id = current.data(ItemIdRole) if current.isValid() else None
        self._show_item(item_id)

    def _show_item(self, item_id: str | None) -> None:
        if item_id != self.pages_model.item_id():
            self.pages_model.set_item(item_id)
            self._fit_page_columns(self.pages_model.item)
            self.current_item_changed.emit(item_id or "")
        self._refresh_item_widgets()

    @Slot(str)
    def _on_item_changed(self, item_id: str) -> None:
        if item_id == self.pages_model.item_id():
            self._refresh_item_widgets()

    @Slot()
    def _on_validation_changed(self) -> None:
        self._update_not_imported()
        self._update_summary()
        self._rebuild_decisions(self._current_item())  # a notebook's conflict comes from it
        self._update_actions()

    def _refresh_item_widgets(self) -> None:
        item = self._current_item()
        into = item is not None and item.op is Op.IMPORT_INTO_NOTEBOOK
        self.placement_bar.show_item(
            item, self.session.notebook_pages(item.notebook_id) if item and into else []
        )
        if item is None:
            self.pages_label.setText(self.tr("&Pages"))
        else:
            self.pages_label.setText(
                self.tr("&Pages of “{title}”").format(title=item.label.replace("&", "&&"))
            )
        self._rebuild_decisions(item)
        self._update_actions()

    def _rebuild_decisions(self, item: PlanItem | None) -> None:
        """One entry per ambiguity and per unusable file, each with the buttons that settle it."""
        old = self._decision_box
        focus = QApplication.focusWidget()
        had_focus = old is not None and focus is not None and old.isAncestorOf(focus)
        if old is not None:
            # Later, not now: this may run inside the click of one of its own buttons.
            old.hide()
            old.deleteLater()
        self._decision_box = None
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        ambiguities = ordering.find_ambiguities(item) if item is not None else []
        wants_sequence = False
        for amb in ambiguities:
            buttons = []
            for resolution in amb.resolutions:
                if resolution == Resolution.SEQUENCE:
                    wants_sequence = True
                    continue
                buttons.append(self._resolution_button(resolution))
            layout.addLayout(self._decision_row(item_message(amb.message, item), buttons))
        if wants_sequence:
            hint = _WrappingLabel(
                self.tr(
                    "Or put the pages in order yourself: drag them, or select pages and use "
                    "Move up and Move down (Ctrl+Up, Ctrl+Down)."
                )
            )
            layout.addWidget(hint)
        report = self.session.report
        conflicts = [
            p
            for p in (report.for_item(item.item_id) if report and item is not None else [])
            if p.resolutions and p.code is ProblemCode.NOTEBOOK_CONFLICT
        ]
        placed = [
            p
            for p in (report.for_item(item.item_id) if report and item is not None else [])
            if p.code in _PLACEMENT_CODES
        ]
        for problem in [*conflicts, *placed]:
            buttons = [self._resolution_button(r, problem.source_ids) for r in problem.resolutions]
            layout.addLayout(self._decision_row(item_message(problem.message, item), buttons))
        unusable = item.unusable if item is not None else []
        for entry in unusable:
            rel = str(entry.get("rel", ""))
            left_out = item is not None and rel in item.acknowledged
            name = rel.rsplit("/", 1)[-1]
            button = QPushButton(self.tr("Take back") if left_out else self.tr("Leave out"))
            button.setProperty("rel", rel)
            button.setProperty("take_back", left_out)
            spoken = self.tr("Take back {name}") if left_out else self.tr("Leave out {name}")
            button.setAccessibleName(spoken.format(name=name))
            button.clicked.connect(self._on_leave_out_clicked)
            if left_out:
                text = self.tr("<b>{name}</b> cannot be used and is left out.").format(
                    name=html.escape(name)
                )
            else:
                text = self.tr("<b>{name}</b> cannot be used: {why}").format(
                    name=html.escape(name),
                    why=html.escape(item_message(str(entry.get("message", "")), item, name)),
                )
            layout.addLayout(self._decision_row(text, [button], rich=True))
        if not ambiguities and not unusable and not conflicts and not placed:
            self.decision_panel.hide()  # ``box`` has no parent: Python frees it
            if had_focus:
                self.page_view.setFocus(Qt.FocusReason.OtherFocusReason)
            return
        self._decision_layout.addWidget(box)
        box.show()  # a layout shows a new child of a visible widget only later, queued
        self._decision_box = box
        self.decision_panel.setTitle(
            self.tr("The page order needs a decision")
            if ambiguities
            else self.tr("This notebook is already in the corpus, different")
            if conflicts
            else self.tr("Where the pages go needs a decision")
            if placed
            else self.tr("Files that cannot be imported")
        )
        self.decision_panel.show()
        # Keep the Tab order visual: notebooks, this panel's buttons, then the pages.
        previous: QWidget = self.items_view
        for button in box.findChildren(QPushButton):
            QWidget.setTabOrder(previous, button)
            previous = button
        QWidget.setTabOrder(previous, self.page_view)
        if had_focus:
            buttons = box.findChildren(QPushButton)
            (buttons[0] if buttons else self.page_view).setFocus(Qt.FocusReason.OtherFocusReason)

    def _resolution_button(self, resolution: str, source_ids: tuple[str, ...] = ()) -> QPushButton:
        if resolution == Resolution.EXCLUDE:
            # Follows the page selection, as the Exclude command does.
            button: QPushButton = _ActionButton(self.exclude_action, resolution_words(resolution))
            return button
        button = QPushButton(resolution_words(resolution))
        button.setProperty("resolution", resolution)
        button.setProperty("source_ids", list(source_ids))
        button.clicked.connect(self._on_resolution_clicked)
        return button

    @staticmethod
    def _decision_row(text: str, buttons: list[QPushButton], rich: bool = False) -> QVBoxLayout:
        row = QVBoxLayout()
        label = _WrappingLabel(text)
        label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
        row.addWidget(label)
        line = QHBoxLayout()
        for button in buttons:
            line.addWidget(button)
        line.addStretch(1)
        row.addLayout(line)
        return row

    @Slot()
    def _update_actions(self) -> None:
        item = self._current_item()
        rows = self.selected_rows() if item is not None else []
        sources = [self.pages_model.source_at(r) for r in rows]
        positions = sorted({self.pages_model.source_position(r) for r in rows})
        count = len(item.sources) if item is not None else 0
        self.move_up_action.setEnabled(bool(positions) and positions[0] > 0)
        self.move_down_action.setEnabled(bool(positions) and positions[-1] < count - 1)
        for action in (self.sort_name_action, self.sort_capture_action, self.sort_mtime_action):
            action.setEnabled(count > 1)
        self.sort_button.setEnabled(count > 1)
        self.exclude_action.setEnabled(any(not s.excluded for s in sources))
        self.include_action.setEnabled(any(s.excluded for s in sources))
        self.rename_action.setEnabled(item is not None and item.op is Op.CREATE_NOTEBOOK)
        self.replace_action.setEnabled(
            item is not None
            and item.op is Op.IMPORT_INTO_NOTEBOOK
            and len(rows) == 1
            and sources[0].imported
        )
        self.cover_action.setEnabled(
            item is not None
            and len(rows) == 1
            and sources[0].imported
            and self.pages_model.page_at(rows[0]).page_id != item.cover_page_id
        )
        self.validate_action.setEnabled(self.session.plan is not None)
        self.commit_action.setEnabled(self.can_commit())

    def _update_summary(self) -> None:
        report = self.session.report
        empty = None if self.session.plan is None else api.nothing_to_import(self.session.plan)
        if self.session.plan is None:
            text = self.tr("No plan to review.")
        elif empty is not None:
            text = empty  # an empty plan is never "ready to commit"
        elif report is None:
            text = self.tr(
                "Not validated since the last change. Validate to see every problem; commit "
                "is possible once no error stands."
            )
        elif report.errors:
            text = errors_words(len(report.errors))
            if report.warnings:
                text += ", " + warnings_words(len(report.warnings))
            text += self.tr(". Commit is possible once every error is resolved.")
        elif report.warnings:
            text = self.tr("No errors, {warnings}: ready to commit.").format(
                warnings=warnings_words(len(report.warnings))
            )
        else:
            text = self.tr("No problems: ready to commit.")
        self.problems_summary.setText(text)

    def _show_error(self, message: str | None) -> None:
        if message:
            self.status_label.setText(self.tr("Not changed: {why}").format(why=message))
            self.status_label.show()
        else:
            self.status_label.clear()
            self.status_label.hide()

    def _remember_problems_scroll(self) -> None:
        self._problems_scroll = self.problems_view.verticalScrollBar().value()

    def _restore_problems_scroll(self) -> None:
        # After the view has laid the new rows out (their heights follow their words).
        QTimer.singleShot(0, self._apply_problems_scroll)

    def _apply_problems_scroll(self) -> None:
        self.problems_view.verticalScrollBar().setValue(self._problems_scroll)

    @Slot(QModelIndex)
    def _on_problem_activated(self, index: QModelIndex) -> None:
        item_id = index.data(ItemIdRole)
        if not item_id or not self.select_item(item_id):
            return
        source_ids = index.data(SourceIdsRole) or ()
        rows = [r for sid in source_ids[:2] for r in self.pages_model.rows_of_source(sid)[:1]]
        if rows:
            # Both pages of a disputed pair are selected, so the viewer shows them side by side.
            self.select_rows(rows)
            self.page_view.setFocus(Qt.FocusReason.OtherFocusReason)
            return
        buttons = self.decision_buttons()
        target: QWidget = buttons[0] if buttons else self.page_view
        target.setFocus(Qt.FocusReason.OtherFocusReason)
