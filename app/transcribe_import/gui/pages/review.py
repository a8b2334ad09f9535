"""The review page: a plan's notebooks and pages, their order decisions, and every problem.

The page puts its parts together and follows the session: the tables and the problems
pane (review_parts.py), the page grid and spreads (review_grid.py), the decision panel
(review_decisions.py), the placement bar and the replace question (placement.py); what
each command edits is review_edits.py's. The grid, the table and the spreads show one
model on one selection, so every command acts on the pages selected in whichever is shown.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator

from PySide6.QtCore import (
    QItemSelectionModel,
    QModelIndex,
    QPoint,
    QSettings,
    Qt,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QListView,
    QMenu,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QStyle,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from transcribe_import.engine import api
from transcribe_import.engine.media.kinds import Turn
from transcribe_import.engine.planning.plan import Op, PlanItem, PlanSource
from transcribe_import.engine.planning.problems import Resolution
from transcribe_import.gui.after_paint import PaintGate
from transcribe_import.gui.models.page_rows import PageColumn, PageRow, says_page_in_file
from transcribe_import.gui.models.plan_items import ItemColumn, PlanItemsModel
from transcribe_import.gui.models.plan_pages import PageTableModel
from transcribe_import.gui.models.problems import ProblemsModel
from transcribe_import.gui.models.roles import ItemIdRole, SourceIdsRole
from transcribe_import.gui.pages.placement import (
    PlacementBar,
)
from transcribe_import.gui.pages.review_decisions import DecisionPanel
from transcribe_import.gui.pages.review_edits import ReviewEdits
from transcribe_import.gui.pages.review_grid import GridViews, PageView, ViewBar
from transcribe_import.gui.pages.review_parts import (
    ActionButton,
    DecisionsSplit,
    ProblemsPane,
    items_table,
    pages_table,
)
from transcribe_import.gui.session import ImportSession
from transcribe_import.gui.thumbnails import ThumbnailCache
from transcribe_import.gui.viewer import (
    PREVIEW_SIDE,
    PageViewer,
    Place,
    ViewerDialog,
    turn_actions,
)
from transcribe_import.gui.widgets import (
    ButtonRow,
    pane,
    selectable_text,
)
from transcribe_import.gui.wording import (
    ActionWords,
    op_words,
    resolution_words,
    review_actions,
)

_SHORTCUT_CONTEXT = Qt.ShortcutContext.WidgetWithChildrenShortcut
# The decisions' height once the person has moved their splitter (pixels), and their share of
# the room above the pages until then: at 1024x768 half of it shows four or five entries.
DECISIONS_HEIGHT_KEY = "ReviewPage/decisionsHeight"
DECISIONS_SHARE = 0.5


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
        settings: QSettings | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        # Where the Grid / Details choice and the zoom are remembered (the window's settings).
        self.settings = settings if settings is not None else QSettings()
        self._owns_thumbnails = thumbnails is None
        self.thumbnails = (
            thumbnails
            if thumbnails is not None
            else ThumbnailCache(parent=self, corpus=session.corpus)
        )
        self.previews = ThumbnailCache(
            capacity=24, threads=1, parent=self, side=PREVIEW_SIDE, corpus=session.corpus
        )
        self.viewer_dialog: ViewerDialog | None = None
        # The decision panel asked for while held (``_decisions_later``): built at its end.
        self._decisions_held = False
        self._decisions_due = False
        # A plan or a notebook shown: the workers its models start (the order checks, the
        # hints) wait until it has painted and the grid has placed its last cell
        # (after_paint.py). Connected before the models are: it holds before they read.
        self.paint_gate = PaintGate(self, self._pages_laid_out)
        session.plan_changed.connect(self.paint_gate.hold)
        self.items_model = PlanItemsModel(session, self)
        self.pages_model = PageTableModel(session, self.thumbnails, self)
        self.items_model.later = self.pages_model.later = self.paint_gate.later
        self.problems_model = ProblemsModel(session, self)

        self.edits = ReviewEdits(self, self)
        self._build_actions()
        self._build_widgets()
        self.items_view.selectionModel().currentRowChanged.connect(self._on_item_row_changed)
        self.page_view.selectionModel().selectionChanged.connect(self._update_actions)
        self.page_view.selectionModel().selectionChanged.connect(self._show_selected_pages)
        # Another notebook's pages (a reset clears the selection without selectionChanged):
        # the viewer never goes on showing a page of the notebook left (#34).
        self.pages_model.modelReset.connect(self._show_selected_pages)
        self.pages_model.edit_failed.connect(self.show_error)
        self.pages_model.hints_found.connect(self._update_actions)  # Leave Out Blank Pages
        session.plan_changed.connect(self._on_plan_changed)
        session.item_changed.connect(self._on_item_changed)
        session.validation_changed.connect(self._on_validation_changed)
        session.looks_changed.connect(self._on_looks_changed)
        self._on_plan_changed()
        self._on_validation_changed()  # as the session's set_plan says it after plan_changed

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
        self.move_up_action = self._action(w.move_up, self.edits.move_up)
        self.move_down_action = self._action(w.move_down, self.edits.move_down)
        # In the grid a page goes left or right: the same moves, by the arrows a grid has.
        for action, more in (
            (self.move_up_action, "Ctrl+Left"),
            (self.move_down_action, "Ctrl+Right"),
        ):
            action.setShortcuts([action.shortcut(), QKeySequence(more)])
        self.sort_name_action = self._action(w.sort_name, self.edits.sort_by_name)
        self.sort_capture_action = self._action(w.sort_capture, self.edits.sort_by_capture_time)
        self.sort_mtime_action = self._action(w.sort_mtime, self.edits.sort_by_mtime)
        self.exclude_action = self._action(w.exclude, self.edits.exclude)
        self.include_action = self._action(w.include, self.edits.include)
        self.rename_action = self._action(w.rename, self.edits.rename)
        self.cover_action = self._action(w.cover, self.edits.set_cover)
        self.replace_action = self._action(w.replace, self.edits.choose_replaced_page)
        self.turn_right_action = self._action(w.turn_right, self.edits.turn_right)
        self.turn_left_action = self._action(w.turn_left, self.edits.turn_left)
        # The same Turn in the full-window viewer, on the page(s) it shows (the first two
        # selected): its own actions, live in the dialog, as the library's viewer has them.
        self.viewer_turn_right_action, self.viewer_turn_left_action = turn_actions(
            self,
            self._turn_shown,
            tr("The plan keeps the turn, the file stays as it is; Undo (Ctrl+Z) takes it back."),
        )
        self.leave_out_blank_action = self._action(w.leave_out_blank, self.edits.leave_out_blank)
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
        # Left: the notebooks of the plan.
        self.items_view = items_table(self.items_model)
        items_label = QLabel(tr("&Notebooks"))
        items_label.setBuddy(self.items_view)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(pane(items_label, self.items_view))
        self.splitter.addWidget(self._build_pages_pane())
        self.splitter.setStretchFactor(1, 1)
        # On a 1024-pixel screen both keep their key columns: the notebooks' names, and the
        # pages' files and warnings (the window shrinks the table, not the list).
        self.splitter.setSizes([390, 710])
        self.splitter.setChildrenCollapsible(False)

        # Bottom: every problem of the last validation, and what can be done next.
        self.problems = ProblemsPane(self.problems_model, self.validate_action, self.commit_action)
        self.problems.problems_view.activated.connect(self._on_problem_activated)
        # One click jumps (activated needs a double-click on most styles); Enter still does.
        self.problems.problems_view.clicked.connect(self._on_problem_activated)
        # A line's own answers (a "Turn it?"'s turn): in its context menu, and as buttons
        # beside Validate while it is the current line.
        self.problems.problems_view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.problems.problems_view.customContextMenuRequested.connect(self._problem_menu)
        self.problems.problems_view.selectionModel().currentRowChanged.connect(
            self._show_problem_answers
        )
        self.problems_model.modelReset.connect(self._show_problem_answers)
        # Its parts under the names the page has always had (its tests reach them so).
        self.problems_view = self.problems.problems_view
        self.problems_summary = self.problems.summary
        self.validate_button = self.problems.validate_button
        self.commit_button = self.problems.commit_button
        self.not_imported_box = self.problems.not_imported_box
        self.not_imported_view = self.problems.not_imported_view
        self.not_imported_label = self.problems.not_imported_label

        self.main_splitter = QSplitter(Qt.Orientation.Vertical)
        self.main_splitter.addWidget(self.splitter)
        self.main_splitter.addWidget(self.problems)
        self.main_splitter.setStretchFactor(0, 1)
        self.main_splitter.setSizes([490, 140])
        self.main_splitter.setChildrenCollapsible(False)

        # An edit the engine refused says why here; it never interrupts with a dialog.
        self.status_label = selectable_text(QLabel())
        self.status_label.setAccessibleName(tr("Last edit"))
        self.status_label.hide()

        layout = QVBoxLayout(self)
        layout.addLayout(self._build_commands())
        layout.addWidget(self.main_splitter, 1)
        layout.addWidget(self.status_label)

    def _build_commands(self) -> ButtonRow:
        """The commands, in the Tab order before the tables they act on."""
        tr = self.tr
        style = self.style()
        self.sort_button = QPushButton(tr("&Sort pages"))
        self.sort_button.setToolTip(tr("Put every page of the notebook in one order"))
        sort_menu = QMenu(self.sort_button)
        sort_menu.addActions(
            [self.sort_name_action, self.sort_capture_action, self.sort_mtime_action]
        )
        self.sort_button.setMenu(sort_menu)
        # One button for both turns, so the row of commands still fits a 1024-pixel screen.
        # No Alt letter: every letter of "Turn" is another control's; its keys are Ctrl+R
        # and Ctrl+Shift+R, and its menu's items have letters of their own.
        self.turn_button = QPushButton(tr("Turn"))
        self.turn_button.setToolTip(
            tr("Turn the selected pages: right (Ctrl+R) or left (Ctrl+Shift+R)")
        )
        turn_menu = QMenu(self.turn_button)
        turn_menu.addActions([self.turn_right_action, self.turn_left_action])
        self.turn_button.setMenu(turn_menu)
        self.undo_button = ActionButton(self.undo_action, tr("Undo"))
        self.undo_button.setIcon(style.standardIcon(QStyle.StandardPixmap.SP_ArrowBack))
        self.redo_button = ActionButton(self.redo_action, tr("Redo"))
        self.redo_button.setIcon(style.standardIcon(QStyle.StandardPixmap.SP_ArrowForward))
        commands = ButtonRow(trailing=2)  # wraps where the window is narrow
        for widget in (
            ActionButton(self.move_up_action),
            ActionButton(self.move_down_action),
            self.sort_button,
            ActionButton(self.exclude_action),
            ActionButton(self.include_action),
            ActionButton(self.rename_action),
            ActionButton(self.cover_action),
            ActionButton(self.replace_action),
            self.turn_button,
        ):
            commands.addWidget(widget)
        commands.addWidget(self.undo_button)
        commands.addWidget(self.redo_button)
        return commands

    def _build_pages_pane(self) -> QWidget:
        """The decisions the selected notebook needs, above its pages and the page viewer."""
        self.pages_label = QLabel()
        self.decision_panel = DecisionPanel(
            self.exclude_action,
            completion=lambda it: api.completion_target(self.session.corpus, it),
        )
        self.decision_panel.resolve_requested.connect(self.edits.resolve)
        self.decision_panel.leave_out_requested.connect(self.edits.leave_out)
        menu = [
            self.move_up_action,
            self.move_down_action,
            self.exclude_action,
            self.include_action,
            self.cover_action,
            self.replace_action,
            self.turn_left_action,
            self.turn_right_action,
            self.leave_out_blank_action,
        ]
        self.page_view: QTableView = pages_table(self.pages_model, menu)
        # The same pages as thumbnails, and in openings: on the table's own selection.
        self.grid_views = GridViews(
            self.pages_model, self.page_view.selectionModel(), self.thumbnails, menu, self.settings
        )
        self.grid = self.grid_views.grid
        self.spreads_view = self.grid_views.spreads
        self.spreads_view.pages_chosen.connect(self.select_rows)
        self.view_bar = ViewBar()
        self.view_bar.zoom_slider.setValue(self.grid_views.look.zoom)
        self.view_bar.view_chosen.connect(lambda value: self.show_view(PageView(value)))
        self.view_bar.zoom_chosen.connect(self._zoom_to)
        for icons in (self.grid, self.spreads_view):
            icons.zoom_requested.connect(self._zoom_by)
        self.page_stack = QStackedWidget()
        self._views: dict[PageView, QAbstractItemView] = {
            PageView.DETAILS: self.page_view,
            PageView.GRID: self.grid,
            PageView.SPREADS: self.spreads_view,
        }
        for view in self._views.values():
            self.page_stack.addWidget(view)
        self.paint_gate.watch(*(v.viewport() for v in (self.items_view, *self._views.values())))
        self.pages_label.setBuddy(self.page_stack)
        # The selected page (or the two of a disputed pair) large enough to read, beside
        # the table; Space or a double-click opens it full-window.
        self.viewer = PageViewer(self.previews)
        self.page_split = QSplitter(Qt.Orientation.Horizontal)
        self.page_split.setObjectName("reviewPageSplit")
        self.page_split.addWidget(self.page_stack)
        self.page_split.addWidget(self.viewer)
        self.page_split.setStretchFactor(0, 3)
        self.page_split.setStretchFactor(1, 2)
        self.page_split.setCollapsible(0, False)
        self._viewer_sized = False
        self.viewer.page_requested.connect(self.go_to_page)
        for view in self._views.values():
            view.doubleClicked.connect(self.open_viewer)
            keys = [Qt.Key.Key_Space]
            if view is not self.page_view:  # the table keeps Enter as it was
                keys += [Qt.Key.Key_Return, Qt.Key.Key_Enter]
            for key in keys:
                shortcut = QShortcut(QKeySequence(key), view)
                shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
                shortcut.activated.connect(self.open_viewer)
        # An import into an existing notebook: where its new pages go there.
        self.placement_bar = PlacementBar()
        self.placement_bar.placement_chosen.connect(self.edits.place)
        self.show_view(self.grid_views.remembered_view(), remember=False)
        # The decisions above the pages, in a splitter the person can move (remembered):
        # at 768 pixels a fixed band of them was a small scrolling slit.
        self.decisions_split = DecisionsSplit()
        self.decisions_split.addWidget(self.decision_panel)
        self.decisions_split.addWidget(pane(self.view_bar, (self.page_split, 1)))
        self.decisions_split.setStretchFactor(1, 1)
        self.decisions_split.setChildrenCollapsible(False)
        self.decisions_split.splitterMoved.connect(self._decisions_moved)
        self.decision_panel.fitted.connect(self._size_decisions)
        self.decisions_split.resized.connect(self._size_decisions)
        return pane(self.pages_label, self.placement_bar, (self.decisions_split, 1))

    def decisions_height(self) -> int:
        """The height the decisions are given when they need it: the person's (dragged,
        remembered), else ``DECISIONS_SHARE`` of the room beside the notebooks."""
        wanted = self.settings.value(DECISIONS_HEIGHT_KEY)
        try:
            height = int(wanted) if wanted is not None else 0
        except (TypeError, ValueError):
            height = 0
        if height > 0:
            return height
        return round(sum(self.decisions_split.sizes()) * DECISIONS_SHARE)

    def _size_decisions(self) -> None:
        """Give the decisions their height (up to what their entries need), the pages the rest."""
        split = self.decisions_split
        total = sum(split.sizes())
        if not self.decision_panel.isVisibleTo(self) or total <= 0:
            return
        panel = min(self.decisions_height(), self.decision_panel.maximumHeight(), total)
        split.setSizes([panel, total - panel])

    def _decisions_moved(self, _pos: int, _index: int) -> None:
        self.settings.setValue(DECISIONS_HEIGHT_KEY, self.decisions_split.sizes()[0])

    # -- the grid, the table and the spreads -----------------------------------------------

    def page_view_shown(self) -> PageView:
        """Which view of the pages is on screen (the switch's choice, or Grid when Spreads
        says nothing for this notebook)."""
        return next(v for v, w in self._views.items() if w is self.page_stack.currentWidget())

    def pages_widget(self) -> QAbstractItemView:
        """The view of the pages on screen: the grid, the table or the spreads."""
        return self._views[self.page_view_shown()]

    def show_view(self, view: PageView, *, remember: bool = True) -> None:
        """Show the pages in that view (remembered for the next review unless told not to)."""
        self._chosen_view = view
        if remember:
            self.grid_views.remember_view(view)
        self._apply_view()

    def _apply_view(self) -> None:
        possible = self.grid_views.spreads_possible()
        view = self._chosen_view
        if view is PageView.SPREADS and not possible:
            view = PageView.GRID  # this notebook's files name no sides; the choice stays
        had_focus = self.pages_widget().hasFocus()
        widget = self._views[view]
        changed = self.page_stack.currentWidget() is not widget
        self.page_stack.setCurrentWidget(widget)
        self.view_bar.show_view(view, spreads_possible=possible)
        rows = self.selected_rows()
        if view is PageView.GRID:
            # Its cells are the model's first column: the current index must be there too.
            current = self.page_view.selectionModel().currentIndex()
            if current.isValid() and current.column() != PageColumn.THUMBNAIL:
                self.page_view.selectionModel().setCurrentIndex(
                    self.pages_model.index(current.row(), PageColumn.THUMBNAIL),
                    QItemSelectionModel.SelectionFlag.NoUpdate,
                )
        elif view is PageView.SPREADS:
            self.spreads_view.follow(rows)
        if rows and view is not PageView.SPREADS:
            self.scroll_to_row(rows[0])
        if changed:
            self._rebuild_decisions(self.current_item())  # its Tab order leads to the view
        if had_focus:
            widget.setFocus(Qt.FocusReason.OtherFocusReason)

    def _zoom_to(self, zoom: int) -> None:
        self.grid_views.set_zoom(zoom)

    def _zoom_by(self, steps: int) -> None:
        slider = self.view_bar.zoom_slider
        slider.setValue(slider.value() + steps * slider.singleStep())

    def scroll_to_row(self, row: int) -> None:
        """Bring that page row into view, in whichever view shows the pages."""
        shown = self.pages_widget()
        if shown is self.spreads_view:
            spread = self.grid_views.spreads_model.spread_of(row)
            if spread is not None:
                shown.scrollTo(self.grid_views.spreads_model.index(spread))
            return
        column = PageColumn.THUMBNAIL if shown is self.grid else PageColumn.FILE
        shown.scrollTo(self.pages_model.index(row, column))

    def go_to_page(self, row: int) -> None:
        """Select that page alone (the viewer's paging: the views and the viewer follow)."""
        if 0 <= row < self.pages_model.rowCount():
            self.select_rows([row])

    # -- the shell's interface -------------------------------------------------------------

    def selected_item_id(self) -> str | None:
        return self.pages_model.item_id()

    def _pages_laid_out(self) -> bool:
        """Whether the view of the pages on screen has placed its last page (the grid and
        the spreads lay their cells out in batches, after their first paint)."""
        view = self.pages_widget()
        model = view.model()
        rows = model.rowCount()
        if not isinstance(view, QListView) or rows == 0 or not view.isVisible():
            return True
        return not view.visualRect(model.index(rows - 1, view.modelColumn())).isEmpty()

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
        # The grid's cells are the model's first column; the current index is one of them.
        column = PageColumn.THUMBNAIL if self.pages_widget() is self.grid else PageColumn.FILE
        for row in rows:
            index = self.pages_model.index(row, column)
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
            self.scroll_to_row(rows[0])

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
            and not self.session.looking  # its rescans are not all asked yet
            and api.nothing_to_import(plan) is None
        )

    def not_imported(self) -> list[api.NotImported]:
        """The files the plan under review leaves out, as the list shows them."""
        return self.items_model.not_imported()

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
            title = str(self.items_model.headerData(ItemColumn.ACTION, Qt.Orientation.Horizontal))
            words = {op_words(it) for it in items} | {title}
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
        plan = self.session.plan
        rows = self.not_imported()
        # Only the notebooks the rows name, not one label for each of thousands of notebooks.
        named = {row.item_id for row in rows if row.item_id}
        labels: dict[str, str] = {}
        if plan is not None and named:
            labels = {it.item_id: it.label for it in plan.items if it.item_id in named}
        self.problems.show_not_imported(rows, labels)

    def decision_buttons(self) -> list[QPushButton]:
        """The buttons the decision panel shows now (resolutions, Leave out, ...)."""
        return self.decision_panel.buttons()

    def selected_pages(self) -> list[tuple[PlanSource, int]]:
        """The selected pages as (source, page index), top to bottom."""
        return [
            (self.pages_model.source_at(r), self.pages_model.page_at(r).page_index)
            for r in self.selected_rows()
        ]

    def _place(self) -> Place | None:
        """Where the one selected page stands among the notebook's pages."""
        rows = self.selected_rows()
        if len(rows) != 1:
            return None
        row = self.pages_model.row(rows[0])
        why = None
        if row.number is None:
            why = (
                self.tr("Not a page of the notebook: a duplicate, skipped")
                if row.source.planned_skip
                else self.tr("Not a page of the notebook: left out")
                if row.source.excluded or row.left_out
                else None
            )
        return Place(
            rows[0] + 1,
            self.pages_model.rowCount(),
            row.page.label,
            in_notebook=row.number,
            notebook_pages=self.pages_model.notebook_pages,
            not_a_page=why,
        )

    def _show_selected_pages(self) -> None:
        pages, place = self.selected_pages()[:2], self._place()
        turns = [self.pages_model.page_at(r).turn for r in self.selected_rows()[:2]]
        self.viewer.set_pages(pages, place, turns)
        dialog = self.viewer_dialog
        if dialog is not None and dialog.isVisible():
            dialog.viewer.set_pages(pages, place, turns)
        if self.pages_widget() is self.spreads_view:
            self.spreads_view.follow(self.selected_rows())

    def open_viewer(self) -> None:
        """The selected page(s) full-window (two side by side: a disputed pair); it pages
        through the notebook and follows the selection."""
        pages = self.selected_pages()[:2]
        if not pages:
            return
        if self.viewer_dialog is not None:
            self.viewer_dialog.close()
        actions = [self.viewer_turn_right_action, self.viewer_turn_left_action]
        self.viewer_dialog = ViewerDialog(self.previews, pages, self, self._place(), actions)
        turns = [self.pages_model.page_at(r).turn for r in self.selected_rows()[:2]]
        self.viewer_dialog.viewer.set_pages(pages, self._place(), turns)
        self.viewer_dialog.viewer.page_requested.connect(self.go_to_page)
        self.viewer_dialog.open()

    def _turn_shown(self, step: Turn) -> None:
        """The page(s) the viewer shows turned ``step`` further: those alone selected (the
        viewer shows the first two), then the review's own Turn, one undoable edit."""
        rows = self.selected_rows()
        if not rows or not self.viewer_turn_right_action.isEnabled():
            return
        if len(rows) > 2:
            self.select_rows(rows[:2])
        (self.edits.turn_right if step is Turn.QUARTER else self.edits.turn_left)()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._viewer_sized:
            # Beside the table where there is room; folded away on a small screen, where
            # Space and a double-click still open it full-window (and it can be dragged out).
            self._viewer_sized = True
            wide = self.window().width() >= 1300
            # Shares, not pixels: the splitter is not laid out yet; it keeps the proportion.
            self.page_split.setSizes([6500, 3500] if wide else [1, 0])
        QTimer.singleShot(0, self._size_decisions)  # once the splitter has its height

    def shutdown(self) -> None:
        """Stop background work: the shell calls this when its window closes."""
        self.items_model.close()
        self.pages_model.close()
        self.previews.shutdown()
        for cache in self.grid_views.caches():
            cache.shutdown()
        if self._owns_thumbnails:
            self.thumbnails.shutdown()
        else:
            self.thumbnails.cancel()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)

    def current_item(self) -> PlanItem | None:
        return self.pages_model.item

    # -- following the session -------------------------------------------------------------

    @Slot()
    def _on_plan_changed(self) -> None:
        # The session says validation_changed right after plan_changed (set_plan): the
        # decision panel, the summary and the actions follow the new plan then, once; a
        # plan of 100,000 pages shown built the panel four times over.
        with self._decisions_later(rebuild=False):
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

    @Slot(QModelIndex, QModelIndex)
    def _on_item_row_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        item_id = current.data(ItemIdRole) if current.isValid() else None
        self._show_item(item_id)

    def _show_item(self, item_id: str | None) -> None:
        with self._decisions_later():  # the view shown and the notebook: one panel
            self._show_item_now(item_id)

    def _show_item_now(self, item_id: str | None) -> None:
        if item_id != self.pages_model.item_id():
            self.paint_gate.hold(*(view.viewport() for view in self._views.values()))
            self.pages_model.set_item(item_id)
            self._fit_page_columns(self.pages_model.item)
            # Another notebook starts at its first page, in every view.
            for view in self._views.values():
                view.scrollToTop()
            self._apply_view()
            self.current_item_changed.emit(item_id or "")
        self._refresh_item_widgets()

    @Slot(str)
    def _on_item_changed(self, item_id: str) -> None:
        if item_id == self.pages_model.item_id():
            self._refresh_item_widgets()
            self._show_selected_pages()  # a turn changes how the same pages are shown

    @Slot()
    def _on_validation_changed(self) -> None:
        self._update_not_imported()
        self._show_summary()
        self._rebuild_decisions(self.current_item())  # a notebook's conflict comes from it
        self._update_actions()

    @Slot(bool)
    def _on_looks_changed(self, _stamped: bool) -> None:
        self._show_summary()
        self.commit_action.setEnabled(self.can_commit())

    def _show_summary(self) -> None:
        s = self.session
        self.problems.show_summary(
            s.plan, s.report, s.look_progress if s.looking else None, s.look_seconds_left
        )

    def _refresh_item_widgets(self) -> None:
        item = self.current_item()
        into = item is not None and item.op is Op.IMPORT_INTO_NOTEBOOK
        self.placement_bar.show_item(
            item,
            self.session.notebook_pages(item.notebook_id) if item and into else [],
            api.landing(self.session.corpus, item) if item and into else None,
        )
        if item is None:
            self.pages_label.setText(self.tr("&Pages"))
        else:
            self.pages_label.setText(
                self.tr("&Pages of “{title}”").format(title=item.label.replace("&", "&&"))
            )
        self._rebuild_decisions(item)
        self._update_actions()

    @contextlib.contextmanager
    def _decisions_later(self, *, rebuild: bool = True) -> Iterator[None]:
        """The decision panel asked for inside built once at the end (``rebuild``), or not
        at all when the caller knows it is built next anyway."""
        outer = not self._decisions_held
        self._decisions_held = True
        try:
            yield
        finally:
            if outer:
                self._decisions_held = False
                if self._decisions_due and rebuild:
                    self._rebuild_decisions(self.current_item())
                self._decisions_due = False

    def _rebuild_decisions(self, item: PlanItem | None) -> None:
        if self._decisions_held:
            self._decisions_due = True  # for the notebook current then (``item`` is it)
            return
        report = self.session.report
        self.decision_panel.rebuild(
            item, report, self.items_view, self.pages_widget(), self.session.plan
        )

    @Slot()
    def _update_actions(self) -> None:
        item = self.current_item()
        rows = self.selected_rows() if item is not None else []
        sources = [self.pages_model.source_at(r) for r in rows]
        count = len(item.sources) if item is not None else 0
        self.move_up_action.setEnabled(self.edits.can_move(-1))
        self.move_down_action.setEnabled(self.edits.can_move(+1))
        for action in (self.sort_name_action, self.sort_capture_action, self.sort_mtime_action):
            action.setEnabled(count > 1)
        self.sort_button.setEnabled(count > 1)
        page_rows = [self.pages_model.row(r) for r in rows]
        self.exclude_action.setEnabled(any(r.imported for r in page_rows))
        self.include_action.setEnabled(any(s.excluded or s.left_out for s in sources))

        def can_turn(chosen: list[PageRow]) -> bool:
            return bool(chosen) and all(r.page.render is None and not r.left_out for r in chosen)

        turnable = can_turn(page_rows)
        self.turn_right_action.setEnabled(turnable)
        self.turn_left_action.setEnabled(turnable)
        shown = can_turn(page_rows[:2])  # the pages the viewer shows
        self.viewer_turn_right_action.setEnabled(shown)
        self.viewer_turn_left_action.setEnabled(shown)
        self.turn_button.setEnabled(turnable)
        # A notebook's blank pages (api.page_hints): all left out at once, while any is in.
        # (read from the hints the pages show: finding them reads every page's measures)
        self.leave_out_blank_action.setEnabled(
            item is not None
            and api.Hint.BLANK in self.session.hints
            and self.pages_model.has_blank()
        )
        self.rename_action.setEnabled(item is not None and item.op is Op.CREATE_NOTEBOOK)
        self.replace_action.setEnabled(
            item is not None
            and item.op is Op.IMPORT_INTO_NOTEBOOK
            and len(rows) == 1
            and page_rows[0].imported
        )
        self.cover_action.setEnabled(
            item is not None
            and len(rows) == 1
            and page_rows[0].imported
            and self.pages_model.page_at(rows[0]).page_id != item.cover_page_id
        )
        self.validate_action.setEnabled(self.session.plan is not None)
        self.commit_action.setEnabled(self.can_commit())

    def sort_entry(self, resolution: Resolution) -> str:
        """The Sort pages menu's entry that orders the pages as ``resolution`` does, named as
        the menu shows it ("Sort pages › By name")."""
        action = {
            Resolution.NAME: self.sort_name_action,
            Resolution.CAPTURE_TIME: self.sort_capture_action,
            Resolution.MTIME: self.sort_mtime_action,
        }[resolution]
        return f"{self.sort_button.text()} › {action.text()}".replace("&", "")

    def show_error(self, message: str | None) -> None:
        if message:
            self.status_label.setText(self.tr("Not changed: {why}").format(why=message))
            self.status_label.show()
        else:
            self.status_label.clear()
            self.status_label.hide()

    def problem_answers(self, row: int) -> list[tuple[str, Callable[[], object]]]:
        """What the Problems line ``row`` offers to do about itself, in words and as a call:
        a "Turn it?"'s turn by the likely angle (both quarters when only the page's shape
        says it is sideways). Nothing is done until the person picks one."""
        if not 0 <= row < self.problems_model.rowCount():
            return []
        problem = self.problems_model.problem(row)
        turn = self.edits.turn_as_hinted
        return [
            (resolution_words(r), functools.partial(turn, problem.item_id, problem.files[0], r))
            for r in problem.resolutions
            if r in (Resolution.TURN_CLOCKWISE, Resolution.TURN_ANTICLOCKWISE)
        ]

    @Slot()
    def _show_problem_answers(self) -> None:
        self.problems.show_answers(self.problem_answers(self.problems_view.currentIndex().row()))

    @Slot(QPoint)
    def _problem_menu(self, at: QPoint) -> None:
        view = self.problems_view
        answers = self.problem_answers(view.indexAt(at).row())
        if not answers:
            return
        menu = QMenu(view)
        for words, do in answers:
            menu.addAction(words).triggered.connect(do)
        menu.exec(view.viewport().mapToGlobal(at))

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
            self.pages_widget().setFocus(Qt.FocusReason.OtherFocusReason)
            return
        buttons = self.decision_buttons()
        target: QWidget = buttons[0] if buttons else self.pages_widget()
        target.setFocus(Qt.FocusReason.OtherFocusReason)
