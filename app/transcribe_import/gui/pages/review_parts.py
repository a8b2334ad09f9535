"""The review page's parts: its buttons and tables as built, and the problems pane below them.

The page (review.py) puts them together and decides what each command does; these only
build and show. The decision panel is in review_decisions.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import shiboken6
from PySide6.QtCore import (
    QAbstractItemModel,
    QCoreApplication,
    QEvent,
    QObject,
    QSize,
    Qt,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtGui import QAction, QKeySequence, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
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
from transcribe_import.engine.planning.plan import ImportPlan
from transcribe_import.engine.planning.problems import ProblemCode, ValidationReport
from transcribe_import.gui.icons import not_imported_icon
from transcribe_import.gui.models.page_rows import PageColumn
from transcribe_import.gui.models.plan_items import ItemColumn, PlanItemsModel
from transcribe_import.gui.models.plan_pages import PageTableModel
from transcribe_import.gui.models.problems import ProblemColumn, ProblemsModel
from transcribe_import.gui.values import PlanItemState
from transcribe_import.gui.widgets import elide_names_in_the_middle, icon_label, pane, table_view
from transcribe_import.gui.wording import (
    errors_words,
    format_wall_time,
    looking_words,
    not_imported_title,
    notes_words,
    open_questions_words,
    plan_state_words,
    warnings_words,
)

_t = QCoreApplication.translate

# The thumbnail as a table row shows it; the cache renders at 160 px, sharp on a 2x screen.
THUMBNAIL_SIZE = QSize(44, 56)
_ROW_PADDING = 6


class ActionButton(QPushButton):
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


class DecisionsSplit(QSplitter):
    """The review's decisions above its pages, a splitter that says when its height changes
    (the page gives the decisions their share of the new height)."""

    resized = Signal()

    def __init__(self) -> None:
        super().__init__(Qt.Orientation.Vertical)
        self.setObjectName("reviewDecisionsSplit")

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().height() != event.oldSize().height():
            self.resized.emit()


class WrappingLabel(QLabel):
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


def review_table(model: QAbstractItemModel, name: str, **kwargs: Any) -> QTableView:
    """A table of the page (``widgets.table_view``) that Tab leaves, as keyboard users expect."""
    view = table_view(model, name, **kwargs)
    view.setTabKeyNavigation(False)
    view.horizontalHeader().setHighlightSections(False)
    return view


def items_table(model: PlanItemsModel) -> QTableView:
    """The plan's notebooks: the name stretches, the other columns are as wide as their words."""
    view = review_table(model, _t("ReviewPage", "Notebooks in the plan"))
    header = view.horizontalHeader()
    # No column is measured from its rows: a plan of thousands of notebooks would be read
    # row by row on every change (a state costs an ordering check of the notebook). The
    # widths come from what a cell can say: a state is one of four, a count a few digits.
    metrics = view.fontMetrics()
    icon = view.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)

    def wide(*texts: str) -> int:
        return max(metrics.horizontalAdvance(t) for t in texts) + 12  # the cell's margins

    pages_title = str(model.headerData(ItemColumn.PAGES, Qt.Orientation.Horizontal))
    header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    header.setSectionResizeMode(ItemColumn.NOTEBOOK, QHeaderView.ResizeMode.Stretch)
    header.setSectionResizeMode(ItemColumn.ACTION, QHeaderView.ResizeMode.Interactive)
    header.resizeSection(ItemColumn.PAGES, wide(pages_title, "8888"))
    header.resizeSection(ItemColumn.NOT_IMPORTED, max(icon + 10, wide("888")))
    header.resizeSection(
        ItemColumn.STATE, wide(*(plan_state_words(s) for s in PlanItemState)) + icon + 6
    )
    elide_names_in_the_middle(view, ItemColumn.NOTEBOOK)
    return view


class PageNumbers(QHeaderView):
    """The pages table's row header, the pages' numbers: as wide as the notebook's widest.

    Measured from the row count, not read: Qt's own header reads the labels of the first
    and last hundred rows to size itself, each time a notebook is shown (800 calls into
    the model and 200 page rows made on the window's thread for a notebook of 500 pages).
    """

    def __init__(self, parent: QWidget) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)

    def widest_label(self) -> str:
        """The widest label a row can have: the cover's star before the largest number."""
        model = self.model()
        count = 0 if model is None else model.rowCount()
        return "★ " + "8" * len(str(max(count, 1)))

    def sizeHint(self) -> QSize:
        margin = self.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, self)
        width = self.fontMetrics().horizontalAdvance(self.widest_label()) + 4 * margin
        return QSize(width, self.defaultSectionSize())


def pages_table(model: PageTableModel, actions: Sequence[QAction]) -> QTableView:
    """A notebook's pages, a thumbnail tall, reordered by dragging; ``actions`` its menu."""
    view = review_table(
        model,
        _t("ReviewPage", "Pages of the notebook, in notebook order"),
        selection=QAbstractItemView.SelectionMode.ExtendedSelection,
        row_numbers=True,
    )
    view.setIconSize(THUMBNAIL_SIZE)
    # A row is a thumbnail tall, room for three lines: a long file name, a capture time
    # or a warning wraps instead of being cut, so the columns can be narrow.
    view.setWordWrap(True)
    view.setDragEnabled(True)
    view.setAcceptDrops(True)
    view.setDropIndicatorShown(True)
    view.setDragDropOverwriteMode(False)
    view.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
    view.setDefaultDropAction(Qt.DropAction.MoveAction)
    view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
    view.addActions(list(actions))
    rows = PageNumbers(view)
    view.setVerticalHeader(rows)
    rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    rows.setDefaultSectionSize(THUMBNAIL_SIZE.height() + _ROW_PADDING)
    rows.setDefaultAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    header = view.horizontalHeader()
    header.setSectionResizeMode(PageColumn.THUMBNAIL, QHeaderView.ResizeMode.Fixed)
    header.resizeSection(PageColumn.THUMBNAIL, THUMBNAIL_SIZE.width() + 2 * _ROW_PADDING)
    metrics = view.fontMetrics()
    widths = {
        PageColumn.FILE: metrics.horizontalAdvance("IMG_20240309_1.jpeg") + 16,
        PageColumn.SOURCE_PAGE: metrics.horizontalAdvance(
            model.headerData(PageColumn.SOURCE_PAGE, Qt.Orientation.Horizontal)
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
    return view


# The problems the pane always has room for (more scroll): one used to show two and a half.
SHOWN_PROBLEMS = 3


class ProblemsPane(QWidget):
    """Every problem of the last validation, Validate and Commit, and the files left out.

    Every file the scan found and the plan does not import is listed with its reason:
    nothing found is ever hidden (engine: api.not_imported).
    """

    def __init__(
        self,
        model: ProblemsModel,
        validate_action: QAction,
        commit_action: QAction,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        tr = self.tr
        self.problems_view = review_table(model, tr("Problems found by validation"))
        # Messages wrap: they say what to do, and a cut-off one does not. Each row is as tall
        # as its words once it is in view (``fit_rows``): measuring every row of a plan's
        # thousands of problems at each layout held the window's thread for a second.
        self.problems_view.setWordWrap(True)
        self.problems_view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.problems_view.verticalScrollBar().valueChanged.connect(self._fit_rows_later)
        self.problems_view.viewport().installEventFilter(self)
        header = self.problems_view.horizontalHeader()
        header.setSectionResizeMode(ProblemColumn.NOTEBOOK, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(ProblemColumn.NOTEBOOK, 200)
        header.setStretchLastSection(True)
        self._fit_due = False
        # A validation rebuilds the list: where the person had scrolled to stays.
        self._scroll = 0
        model.modelAboutToBeReset.connect(self._remember_scroll)
        model.modelReset.connect(self._restore_scroll)
        # Never squeezed below its first rows, whole (a dragged splitter, a small screen):
        # they grow as their words wrap, so the floor follows the rows and the width.
        model.modelReset.connect(self._fit_rows_later)
        model.layoutChanged.connect(self._fit_rows_later)
        header.sectionResized.connect(self._fit_rows_later)
        problems_label = QLabel(tr("Pro&blems"))
        problems_label.setBuddy(self.problems_view)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setAccessibleName(tr("Validation summary"))
        self.validate_button = ActionButton(validate_action)
        self.commit_button = ActionButton(commit_action)
        self.commit_button.setDefault(False)
        summary_row = QHBoxLayout()
        summary_row.addWidget(problems_label)
        summary_row.addWidget(self.summary, 1)
        # The current line's own answers (a "Turn it?"'s turn): never done without a click.
        self.answers = QWidget()
        answers_row = QHBoxLayout(self.answers)
        answers_row.setContentsMargins(0, 0, 0, 0)
        self.answers.hide()
        summary_row.addWidget(self.answers)
        summary_row.addWidget(self.validate_button)
        summary_row.addWidget(self.commit_button)

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
        not_imported_title_row = QHBoxLayout()
        not_imported_title_row.addWidget(icon_label(not_imported_icon()))
        not_imported_title_row.addWidget(self.not_imported_label, 1)
        self.not_imported_box = pane(not_imported_title_row, (self.not_imported_view, 1))
        self.not_imported_box.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(summary_row)
        layout.addWidget(self.problems_view, 2)
        layout.addWidget(self.not_imported_box, 1)

    def show_summary(
        self,
        plan: ImportPlan | None,
        report: ValidationReport | None,
        looking: tuple[int, int] | None = None,
        left: float | None = None,
    ) -> None:
        """What the last validation found, and whether commit is possible; ``looking``: the
        look pass is still comparing pages for rescans (pages done, of how many), ``left``
        seconds at its pace so far (None: not known yet)."""
        empty = None if plan is None else api.nothing_to_import(plan)
        if plan is None:
            text = self.tr("No plan to review.")
        elif empty is not None:
            text = empty  # an empty plan is never "ready to commit"
        elif report is None and looking is not None:
            text = self.tr("Validating the plan once its pages are compared for rescans.")
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
        elif looking is not None:
            text = self.tr("No errors so far.")
            if report.warnings:
                text = self.tr("No errors so far, {warnings}.").format(
                    warnings=warnings_words(len(report.warnings))
                )
        elif report.warnings:
            text = self.tr("No errors, {warnings}: ready to commit.").format(
                warnings=warnings_words(len(report.warnings))
            )
            asked = sum(p.code is ProblemCode.LOOKS_LIKE for p in report.warnings)
            if asked:  # said where Commit is: what it does with the questions left open
                text += " " + open_questions_words(asked)
        else:
            text = self.tr("No problems: ready to commit.")
        if report is not None and report.information:
            text += " " + notes_words(len(report.information))
        if plan is not None and empty is None and looking is not None:
            text += " " + looking_words(*looking, left)
        self.summary.setText(text)

    def show_answers(self, answers: Sequence[tuple[str, Callable[[], object]]]) -> None:
        """Buttons beside Validate for what the current line offers to do about itself
        (words, and what a click does), in place of the last line's."""
        for old in self.answer_buttons():
            old.setParent(None)
            old.deleteLater()
        layout = self.answers.layout()
        assert layout is not None
        for words, do in answers:
            button = QPushButton(words)
            button.clicked.connect(do)
            layout.addWidget(button)
        self.answers.setVisible(bool(answers))

    def answer_buttons(self) -> list[QPushButton]:
        """The buttons ``show_answers`` shows now, in their order."""
        return self.answers.findChildren(QPushButton)

    def show_not_imported(self, rows: Sequence[api.NotImported], labels: dict[str, str]) -> None:
        """The files left out, each with its reason and its notebook (``labels``: by item id)."""
        view = self.not_imported_view
        view.setRowCount(len(rows))
        for r, row in enumerate(rows):
            where = labels.get(row.item_id or "", self.tr("no notebook"))
            for c, text in enumerate((row.rel, row.reason, where)):
                cell = QTableWidgetItem(text)
                cell.setToolTip(text)
                view.setItem(r, c, cell)
        view.resizeRowsToContents()
        # As tall as its rows, up to four: the problems above keep their room.
        shown = sum(view.rowHeight(r) for r in range(min(4, len(rows))))
        view.setMaximumHeight(view.horizontalHeader().height() + shown + 2 * view.frameWidth() + 2)
        self.not_imported_label.setText(not_imported_title(len(rows)))
        self.not_imported_box.setVisible(bool(rows))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self._fit_rows_later()  # more or fewer rows in view
        return False

    def _fit_rows_later(self, *_: object) -> None:
        if not self._fit_due:
            self._fit_due = True
            QTimer.singleShot(0, self.fit_rows)

    def fit_rows(self) -> None:
        """Make the rows in view, and the first ``SHOWN_PROBLEMS``, as tall as their words, and
        keep the view tall enough for those first rows, whole."""
        self._fit_due = False
        view = self.problems_view
        count = view.model().rowCount()
        rows = min(SHOWN_PROBLEMS, count)
        for r in range(rows):
            view.resizeRowToContents(r)
        # Then from the first row in view down, until the rows fill the view.
        r, filled, height = max(view.rowAt(0), 0), 0, view.viewport().height()
        while r < count and filled < height:
            view.resizeRowToContents(r)
            filled += view.rowHeight(r)
            r += 1
        shown = (
            sum(view.rowHeight(r) for r in range(rows))
            or view.verticalHeader().defaultSectionSize()
        )
        view.setMinimumHeight(view.horizontalHeader().height() + shown + 2 * view.frameWidth())

    def _remember_scroll(self) -> None:
        self._scroll = self.problems_view.verticalScrollBar().value()

    def _restore_scroll(self) -> None:
        # After the view has laid the new rows out (their heights follow their words).
        QTimer.singleShot(0, self._apply_scroll)

    def _apply_scroll(self) -> None:
        self.problems_view.verticalScrollBar().setValue(self._scroll)
