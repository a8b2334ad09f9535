"""Widgets more than one page builds alike: buttons, read-only tables, headlines, icon labels."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QRect,
    QSize,
    Qt,
    QTimer,
    SignalInstance,
)
from PySide6.QtGui import QIcon, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QLayout,
    QLayoutItem,
    QProgressBar,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from transcribe_import.gui.icons import SP, small_pixmap, standard_icon
from transcribe_import.gui.models.base import LEFT
from transcribe_import.gui.models.outcomes import OutcomeColumn, OutcomeTableModel
from transcribe_import.gui.wording import ButtonWords, resume_words, retry_words

Selection = QAbstractItemView.SelectionMode


def table_view(
    model: QAbstractItemModel,
    name: str,
    *,
    selection: Selection = Selection.SingleSelection,
    row_numbers: bool = False,
    view: QTableView | None = None,
) -> QTableView:
    """A read-only table of whole rows on ``model``, named ``name`` for screen readers
    (``view``: one of a kind of its own, made so; else a plain one)."""
    view = QTableView() if view is None else view
    view.setModel(model)
    view.setAccessibleName(name)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(selection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    if not row_numbers:
        view.verticalHeader().hide()
    view.horizontalHeader().setDefaultAlignment(LEFT)
    return view


class MiddleElided(QStyledItemDelegate):
    """Cells cut in the middle when too narrow: "Parish regi…volume 2", "IMG_2024…_0017.jpg"
    keep what tells two names apart, where the end is cut from most views' names."""

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().initStyleOption(option, index)
        option.textElideMode = Qt.TextElideMode.ElideMiddle


class OneLineMiddleElided(MiddleElided):
    """A name cut in the middle on one line, in a view whose other cells wrap."""

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().initStyleOption(option, index)
        option.features &= ~QStyleOptionViewItem.ViewItemFeature.WrapText


def elide_names_in_the_middle(view: QTableView, *columns: int) -> None:
    """The name columns of ``view`` keep both ends of a name that does not fit."""
    delegate = MiddleElided(view)
    for column in columns:
        view.setItemDelegateForColumn(column, delegate)


def outcome_view(model: OutcomeTableModel, name: str) -> QTableView:
    """A table of a run's outcomes, sized for reading; the commit and runs views both show one."""
    view = table_view(model, name, view=OutcomeView())
    elide_names_in_the_middle(view, OutcomeColumn.NOTEBOOK)
    header = view.horizontalHeader()
    header.setSectionResizeMode(OutcomeColumn.DETAILS, QHeaderView.ResizeMode.Stretch)
    header.resizeSection(OutcomeColumn.PAGES, 70)
    header.resizeSection(OutcomeColumn.OUTCOME, 130)
    return view


class OutcomeView(QTableView):
    """An outcome table fitted to its width, so that Details is read, not cut, at 800x600.

    The Notebook column gives up room on a narrow window (240 px down to 140; its names are
    cut in the middle, and each is whole in the row's tooltip); when Details still has less
    than ``DETAILS_CHARS`` characters' room, every row is two lines tall and Details wraps.
    Every row has the same height, so no row is measured: a run of thousands of notebooks
    costs nothing more.
    """

    DETAILS_CHARS = 60  # "1 page into the existing notebook; 3 duplicate files skipped"

    def __init__(self) -> None:
        super().__init__()
        self._one_line = self.verticalHeader().defaultSectionSize()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)  # the viewport has its new width from here on
        self.fit()

    def fit(self) -> None:
        header = self.horizontalHeader()
        width = self.viewport().width()
        notebook = max(140, min(240, int(width * 0.3)))
        if header.sectionSize(OutcomeColumn.NOTEBOOK) != notebook:
            header.resizeSection(OutcomeColumn.NOTEBOOK, notebook)
        fixed = sum(
            header.sectionSize(c)
            for c in (OutcomeColumn.NOTEBOOK, OutcomeColumn.PAGES, OutcomeColumn.OUTCOME)
        )
        metrics = self.fontMetrics()
        narrow = width - fixed < self.DETAILS_CHARS * metrics.averageCharWidth()
        if self.wordWrap() != narrow:
            self.setWordWrap(narrow)
        height = self._one_line + (metrics.lineSpacing() if narrow else 0)
        if self.verticalHeader().defaultSectionSize() != height:
            self.verticalHeader().setDefaultSectionSize(height)


def headline_label(name: str) -> QLabel:
    """A step's headline: bold and larger, the first thing a page says."""
    label = QLabel()
    label.setAccessibleName(name)
    font = label.font()
    font.setPointSizeF(font.pointSizeF() * 1.3)
    font.setBold(True)
    label.setFont(font)
    return label


def icon_label(icon: QIcon | None = None) -> QLabel:
    """A label showing ``icon`` at the small icon size; ``set_small_icon`` changes it."""
    label = QLabel()
    if icon is not None:
        set_small_icon(label, icon)
    return label


def set_small_icon(label: QLabel, icon: QIcon) -> None:
    label.setPixmap(small_pixmap(icon))


def selectable_text(label: QLabel, *, wrap: bool = True) -> QLabel:
    """``label`` with text a person can select and copy (messages, paths, ids)."""
    label.setWordWrap(wrap)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def push_button(
    words: ButtonWords,
    icon: QStyle.StandardPixmap | None = None,
    clicked: Callable[..., object] | SignalInstance | None = None,
) -> QPushButton:
    """A push button with its ``words`` (text, accessible name when the text alone is too
    short to say what it does, tooltip), the style's ``icon`` and what a click does."""
    button = (
        QPushButton(words.text) if icon is None else QPushButton(standard_icon(icon), words.text)
    )
    if words.name:
        button.setAccessibleName(words.name)
    if words.tip:
        button.setToolTip(words.tip)
    if clicked is not None:
        # A bound method or a signal, never a lambda over a widget: PySide crashed when a
        # window holding such a connection was garbage-collected.
        button.clicked.connect(clicked)
    return button


def run_buttons(
    resume: Callable[..., object], retry: Callable[..., object]
) -> tuple[QPushButton, QPushButton]:
    """Resume and Retry What Did Not Land, as the commit view and the Runs view offer them."""
    return (
        push_button(resume_words(), SP.SP_MediaPlay, resume),
        push_button(retry_words(), SP.SP_BrowserReload, retry),
    )


def pane(*parts: QWidget | QLayout | tuple[QWidget, int]) -> QWidget:
    """A widget laying ``parts`` out top to bottom with no margin of its own (a pane of a
    splitter); a (widget, stretch) pair takes that share of the spare height."""
    widget = QWidget()
    layout = QVBoxLayout(widget)
    layout.setContentsMargins(0, 0, 0, 0)
    for part in parts:
        if isinstance(part, tuple):
            layout.addWidget(*part)
        elif isinstance(part, QLayout):
            layout.addLayout(part)
        else:
            layout.addWidget(part)
    return widget


def settle_busy_bars(page: QWidget) -> None:
    """Nothing runs on ``page`` any more: a busy bar of it (the moving one, for work of no
    known size yet) stops and shows nothing done, so an idle screen never animates."""
    for bar in page.findChildren(QProgressBar):
        if bar.maximum() == 0:
            bar.setRange(0, 1)
            bar.setValue(0)


class ButtonRow(QLayout):
    """A row of buttons that wraps onto a second line where the window is too narrow for it
    (a 1024-pixel screen with a dock beside the window, a large font), so no button falls
    off the right edge; the last ``trailing`` buttons keep to the right (Undo, Redo).
    """

    def __init__(self, trailing: int = 0, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._trailing = trailing
        # The height its lines took at the width it was last given. Not heightForWidth: a
        # page holding a height-for-width item is given its preferred height by a scroll
        # area, not the room on screen, and the window then scrolls up and down.
        self._height = 0
        self._relayout = QTimer(self, singleShot=True, interval=0)
        self._relayout.timeout.connect(self.invalidate)
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        height = self._place(rect, move=True)
        if height != self._height:
            self._height = height
            self._relayout.start()  # one more line, or one fewer: ask the page again

    def invalidate(self) -> None:
        super().invalidate()
        parent = self.parentWidget()
        if parent is not None:
            parent.updateGeometry()

    def sizeHint(self) -> QSize:
        shown = [i.sizeHint() for i in self._items if not i.isEmpty()]
        gaps = self._gap() * max(len(shown) - 1, 0)
        return QSize(sum(s.width() for s in shown) + gaps, self._line_height())

    def minimumSize(self) -> QSize:
        # As narrow as its widest button (or its trailing group): it wraps the rest.
        groups = [[i] for i in self._leading()] + [self._trailing_items()]
        return QSize(max((self._width(g) for g in groups if g), default=0), self._line_height())

    def _line_height(self) -> int:
        """The lines' height at the last width given, one line's before any."""
        one = max((i.sizeHint().height() for i in self._items if not i.isEmpty()), default=0)
        return max(self._height, one)

    def _gap(self) -> int:
        gap = self.spacing()
        if gap < 0:
            parent = self.parentWidget()
            style = parent.style() if parent is not None else None
            gap = style.pixelMetric(QStyle.PixelMetric.PM_LayoutHorizontalSpacing) if style else 6
        return max(gap, 6)

    def _leading(self) -> list[QLayoutItem]:
        shown = [i for i in self._items if not i.isEmpty()]
        return [i for i in self._items[: len(self._items) - self._trailing] if i in shown]

    def _trailing_items(self) -> list[QLayoutItem]:
        tail = self._items[len(self._items) - self._trailing :] if self._trailing else []
        return [i for i in tail if not i.isEmpty()]

    def _width(self, items: list[QLayoutItem]) -> int:
        return sum(i.sizeHint().width() for i in items) + self._gap() * max(len(items) - 1, 0)

    def _place(self, rect: QRect, *, move: bool) -> int:
        """Lay the buttons out in ``rect`` (``move``) or only measure; the height they take."""
        gap = self._gap()
        lines: list[list[QLayoutItem]] = [[]]
        for item in self._leading():
            line = lines[-1]
            if line and self._width([*line, item]) > rect.width():
                lines.append([])
            lines[-1].append(item)
        trailing = self._trailing_items()
        if (
            trailing
            and lines[-1]
            and self._width(lines[-1]) + gap + self._width(trailing) > (rect.width())
        ):
            lines.append([])
        y = rect.y()
        for n, line in enumerate(lines):
            right = trailing if n == len(lines) - 1 else []
            height = max((i.sizeHint().height() for i in line + right), default=0)
            if move:
                x = rect.x()
                for item in line:
                    item.setGeometry(QRect(QPoint(x, y), item.sizeHint()))
                    x += item.sizeHint().width() + gap
                x = rect.right() + 1 - self._width(right)
                for item in right:
                    item.setGeometry(QRect(QPoint(x, y), item.sizeHint()))
                    x += item.sizeHint().width() + gap
            y += height + (gap if n < len(lines) - 1 else 0)
        return y - rect.y()
