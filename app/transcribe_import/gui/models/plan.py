"""Qt models of the plan under review: its notebooks, one notebook's pages, and its problems.

Thin adapters over the session's frozen engine values. They hold no plan state of their
own (they re-read ``session.plan`` when the session says it changed) and make no import
decision: a state badge is read off ``ordering.find_ambiguities`` and the validation
report, and a drop becomes ``ordering.move`` through ``session.edit_item``.
"""

from __future__ import annotations

import enum
import html
import re
from collections import Counter
from datetime import datetime
from typing import Any

import orjson
from PySide6.QtCore import (
    QAbstractTableModel,
    QByteArray,
    QCoreApplication,
    QDate,
    QDateTime,
    QLocale,
    QMimeData,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPointF,
    QSize,
    Qt,
    QTime,
    Signal,
)
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QApplication, QStyle

from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.plan import Duplicate, Op, PlanItem, PlanPage, PlanSource
from transcribe_import.engine.planning.validate import PlanProblem, ProblemCode, Severity
from transcribe_import.gui.models.base import format_local
from transcribe_import.gui.session import ImportSession
from transcribe_import.gui.thumbnails import ThumbnailCache

_Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()

# Custom roles; Qt.UserRole itself is models.SORT_ROLE.
ItemIdRole = Qt.ItemDataRole.UserRole + 1  # str: the plan item a row concerns
StateRole = Qt.ItemDataRole.UserRole + 2  # ItemState of a plan item
SourceIdsRole = Qt.ItemDataRole.UserRole + 3  # tuple[str, ...]: the sources a problem concerns
SeverityRole = Qt.ItemDataRole.UserRole + 4  # validate.Severity of a problem

SOURCES_MIME_TYPE = "application/x-transcribe-import-plan-sources"

_MULTI_PAGE_TYPES = frozenset({"application/pdf", "image/tiff"})
# Engine messages also serve the CLI and name its options: "(--sequence)", "(order --exclude
# ...)", "(`transcribe-import notebooks`)". The window has buttons for those instead.
_CLI_HINT = re.compile(r"\s*\([^()]*(?:--|`)[^()]*\)")


def _tr(context: str, text: str) -> str:
    return QCoreApplication.translate(context, text)


def plain_message(message: str, label: str | None = None) -> str:
    """An engine message for the window: without the CLI's option names or a leading label."""
    text = _CLI_HINT.sub("", message)
    if label and text.startswith(f"{label}: "):
        text = text[len(label) + 2 :]
    return text


def item_message(message: str, item: PlanItem | None, label: str | None = None) -> str:
    """An engine message about one item, for the window: its files by name, not by path.

    The CLI names files by their path as validate shows it, so a person can type it; in
    the window, next to a table of those files, the name alone reads better. A name two
    files of the item share keeps its path.
    """
    text = plain_message(message, label)
    if item is None:
        return text
    paths: list[tuple[str, str]] = []
    uses: Counter[str] = Counter()
    for s in item.sources:
        paths += [(s.provenance.path, s.name), (s.provenance.rel, s.name)]
        uses[s.name] += 1
    for u in item.unusable:
        rel = str(u.get("rel", ""))
        name = rel.rsplit("/", 1)[-1]
        paths += [(str(u.get("path", "")), name), (rel, name)]
        uses[name] += 1
    # Longest first, so an absolute path is not cut to "/tmp/" + a shortened rel.
    for path, name in sorted(set(paths), key=lambda p: -len(p[0])):
        if path and uses[name] == 1:
            text = text.replace(path, name)
    return text


def format_wall_time(iso: str) -> str:
    """A capture time as the camera's clock showed it (EXIF has no zone: never converted)."""
    try:
        value = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    if value.tzinfo is not None:
        return format_local(iso)
    wall = QDateTime(
        QDate(value.year, value.month, value.day), QTime(value.hour, value.minute, value.second)
    )
    locale = QLocale()
    if locale.language() == QLocale.Language.C:
        return wall.toString("yyyy-MM-dd HH:mm:ss")
    # Photos of one notebook are often seconds apart: the seconds tell their order.
    time_format = locale.timeFormat(QLocale.FormatType.ShortFormat)
    if "s" not in time_format:
        time_format = time_format.replace("mm", "mm:ss", 1)
    return locale.toString(
        wall, f"{locale.dateFormat(QLocale.FormatType.ShortFormat)} {time_format}"
    )


def imported_page_count(item: PlanItem) -> int:
    return sum(len(s.pages) for s in item.imported_sources())


def _disabled_text() -> QColor:
    return QGuiApplication.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)


def _standard_icon(pixmap: QStyle.StandardPixmap) -> QIcon:
    return QApplication.style().standardIcon(pixmap)


def _untinted(pixmap: QPixmap) -> QIcon:
    """An icon that looks the same in a selected row: a page or a badge keeps its colours."""
    icon = QIcon(pixmap)
    icon.addPixmap(pixmap, QIcon.Mode.Selected)
    return icon


def _small(icon: QIcon) -> QPixmap:
    side = QApplication.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)
    return icon.pixmap(QSize(side, side))


def severity_icon(severity: Severity) -> QIcon:
    if severity is Severity.ERROR:
        return _standard_icon(QStyle.StandardPixmap.SP_MessageBoxCritical)
    return _standard_icon(QStyle.StandardPixmap.SP_MessageBoxWarning)


# -- the notebooks of the plan -------------------------------------------------------------


class ItemState(enum.StrEnum):
    """What a plan item's badge says, worst first."""

    ERROR = "error"
    NEEDS_ORDER_DECISION = "needs_order_decision"
    DUPLICATE_SKIPS = "duplicate_skips"
    READY = "ready"


# Semantic colours, the one exception to "palette roles only": mid-tone fills with a darker
# rim, so a badge reads on a light and on a dark base alike (its words are in the text too).
_BADGE_COLOURS = {
    ItemState.ERROR: QColor(0xD3, 0x2F, 0x2F),
    ItemState.NEEDS_ORDER_DECISION: QColor(0xF5, 0xA6, 0x23),
    ItemState.DUPLICATE_SKIPS: QColor(0x42, 0x85, 0xF4),
    ItemState.READY: QColor(0x43, 0xA0, 0x47),
}
_badges: dict[ItemState, QIcon] = {}


def badge_icon(state: ItemState) -> QIcon:
    """A filled dot in the state's colour (made once; QPixmap needs the GUI thread)."""
    icon = _badges.get(state)
    if icon is None:
        icon = QIcon()
        for side in (16, 32):  # 32 for a 2x screen
            pixmap = QPixmap(side, side)
            pixmap.fill(Qt.GlobalColor.transparent)
            painter = QPainter(pixmap)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            fill = _BADGE_COLOURS[state]
            painter.setPen(fill.darker(160))
            painter.setBrush(fill)
            radius = side * 0.34
            painter.drawEllipse(QPointF(side / 2, side / 2), radius, radius)
            painter.end()
            icon.addPixmap(pixmap)
            icon.addPixmap(pixmap, QIcon.Mode.Selected)
        _badges[state] = icon
    return icon


def state_text(state: ItemState) -> str:
    return {
        ItemState.ERROR: _tr("PlanItemsModel", "Error"),
        ItemState.NEEDS_ORDER_DECISION: _tr("PlanItemsModel", "Needs an order decision"),
        ItemState.DUPLICATE_SKIPS: _tr("PlanItemsModel", "Duplicate skips"),
        ItemState.READY: _tr("PlanItemsModel", "Ready"),
    }[state]


class ItemColumn(enum.IntEnum):
    NOTEBOOK = 0
    ACTION = 1
    PAGES = 2
    STATE = 3


class PlanItemsModel(QAbstractTableModel):
    """The plan's items, one row each: Notebook, Action, Pages, State (icon and words)."""

    def __init__(self, session: ImportSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._session = session
        self._states: dict[str, tuple[PlanItem, object, ItemState]] = {}
        session.plan_changed.connect(self._on_plan_changed)
        session.item_changed.connect(self._on_item_changed)
        session.validation_changed.connect(self._on_validation_changed)

    def _items(self) -> tuple[PlanItem, ...]:
        plan = self._session.plan
        return () if plan is None else plan.items

    def item_at(self, row: int) -> PlanItem:
        return self._items()[row]

    def row_of(self, item_id: str) -> int:
        """The row of the item, or -1 when the plan has no such item."""
        for row, item in enumerate(self._items()):
            if item.item_id == item_id:
                return row
        return -1

    def state(self, item: PlanItem) -> ItemState:
        # Views ask for every row on each repaint and resize; an item's state only changes
        # with the item (a new frozen object) or the report, so it is remembered per both.
        report = self._session.report
        cached = self._states.get(item.item_id)
        if cached is not None and cached[0] is item and cached[1] is report:
            return cached[2]
        state = self._state(item)
        self._states[item.item_id] = (item, report, state)
        return state

    def _state(self, item: PlanItem) -> ItemState:
        report = self._session.report
        if report is not None and any(
            p.severity is Severity.ERROR for p in report.for_item(item.item_id)
        ):
            return ItemState.ERROR
        if ordering.find_ambiguities(item):
            return ItemState.NEEDS_ORDER_DECISION
        if any(s.duplicate is not None for s in item.sources):
            return ItemState.DUPLICATE_SKIPS
        return ItemState.READY

    def rowCount(self, parent: _Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._items())

    def columnCount(self, parent: _Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(ItemColumn)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return (
            Qt.ItemFlag.ItemIsEnabled
            | Qt.ItemFlag.ItemIsSelectable
            | Qt.ItemFlag.ItemNeverHasChildren
        )

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(ItemColumn):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return (
                _tr("PlanItemsModel", "Notebook"),
                _tr("PlanItemsModel", "Action"),
                _tr("PlanItemsModel", "Pages"),
                _tr("PlanItemsModel", "State"),
            )[section]
        if role == Qt.ItemDataRole.TextAlignmentRole and section == ItemColumn.PAGES:
            return Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        items = self._items()
        if not index.isValid() or not 0 <= index.row() < len(items):
            return None
        item = items[index.row()]
        column = ItemColumn(index.column())
        if role == ItemIdRole:
            return item.item_id
        if role == StateRole:
            return self.state(item)
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(item, column)
        if role == Qt.ItemDataRole.DecorationRole and column == ItemColumn.STATE:
            return badge_icon(self.state(item))
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(item, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column == ItemColumn.PAGES:
            return Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        return None

    def _display(self, item: PlanItem, column: ItemColumn) -> str:
        if column == ItemColumn.NOTEBOOK:
            return item.label
        if column == ItemColumn.ACTION:
            if item.op is Op.CREATE_NOTEBOOK:
                return _tr("PlanItemsModel", "New notebook")
            return _tr("PlanItemsModel", "Into {id8}").format(id8=item.notebook_id[:8])
        if column == ItemColumn.PAGES:
            return str(imported_page_count(item))
        return state_text(self.state(item))

    def _tooltip(self, item: PlanItem, column: ItemColumn) -> str | None:
        if column == ItemColumn.ACTION:
            if item.op is Op.CREATE_NOTEBOOK:
                return _tr("PlanItemsModel", "Creates notebook {id}").format(id=item.notebook_id)
            return _tr("PlanItemsModel", "Adds pages to notebook {id}").format(id=item.notebook_id)
        if column == ItemColumn.PAGES:
            skipped = sum(len(s.pages) for s in item.sources if not s.imported)
            if skipped:
                return _tr("PlanItemsModel", "{n} more page(s) excluded or skipped").format(
                    n=skipped
                )
            return None
        if column == ItemColumn.NOTEBOOK:
            folder = item.provenance.get("folder")
            return str(folder) if folder else None
        return None

    def _on_plan_changed(self) -> None:
        self.beginResetModel()
        self._states.clear()
        self.endResetModel()

    def _on_item_changed(self, item_id: str) -> None:
        row = self.row_of(item_id)
        if row >= 0:
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(ItemColumn) - 1))

    def _on_validation_changed(self) -> None:
        if self.rowCount():
            last = self.rowCount() - 1
            self.dataChanged.emit(
                self.index(0, ItemColumn.STATE), self.index(last, ItemColumn.STATE)
            )


# -- one notebook's pages ------------------------------------------------------------------


class PageColumn(enum.IntEnum):
    THUMBNAIL = 0
    FILE = 1
    SOURCE_PAGE = 2
    CAPTURED = 3
    SIZE = 4
    WARNING = 5


def _problem_label(code: str) -> str:
    labels: dict[str, str] = {
        ProblemCode.SOURCE_MISSING: "File missing",
        ProblemCode.SOURCE_CHANGED: "Changed since the scan",
        ProblemCode.SOURCE_UNUSABLE: "Cannot be read",
        ProblemCode.MEDIA_MISMATCH: "Not what the scan found",
        ordering.AmbiguityCode.DUPLICATE_NUMBER: "Page number used twice",
        ordering.AmbiguityCode.MISSING_INDEX: "Next to missing pages",
        ordering.AmbiguityCode.MIXED_MEDIA: "PDF among images",
        ordering.AmbiguityCode.CONFLICTING_CUES: "Order in question",
    }
    text = labels.get(code)
    return _tr("PageTableModel", text) if text is not None else code


def _duplicate_label(duplicate: Duplicate) -> str:
    return {
        Duplicate.IN_NOTEBOOK: _tr("PageTableModel", "Already in the notebook: skipped"),
        Duplicate.IN_CORPUS: _tr("PageTableModel", "Already in the corpus: skipped"),
        Duplicate.IN_PLAN: _tr("PageTableModel", "Earlier in this plan: skipped"),
    }[duplicate]


class PageTableModel(QAbstractTableModel):
    """The pages of one plan item in notebook order; a multi-page source spans adjacent rows.

    Rows follow the engine item: after an edit the model re-reads it and reports the
    change as a layout change that carries persistent indexes (so a selection follows
    the pages it was on), never by reordering itself. Drops become ``ordering.move``.
    """

    edit_failed = Signal(str)  # a drop the engine refused; the message is for a person

    def __init__(
        self,
        session: ImportSession,
        thumbnails: ThumbnailCache | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._session = session
        self._thumbnails = thumbnails
        self._item: PlanItem | None = None
        self._rows: list[tuple[int, int]] = []  # (source position, page position)
        self._row_of_page: dict[tuple[str, int], int] = {}  # (source_id, page_index) -> row
        self._notes: dict[str, list[tuple[str, str, Severity]]] = {}  # source_id -> notes
        session.plan_changed.connect(self._on_plan_changed)
        session.item_changed.connect(self._on_item_changed)
        session.validation_changed.connect(self._on_validation_changed)
        if thumbnails is not None:
            thumbnails.ready.connect(self._on_thumbnail_ready)

    # -- what it shows ---------------------------------------------------------------------

    @property
    def item(self) -> PlanItem | None:
        return self._item

    def item_id(self) -> str | None:
        return None if self._item is None else self._item.item_id

    def set_item(self, item_id: str | None) -> None:
        """Show the pages of ``item_id`` (None: none)."""
        self.beginResetModel()
        self._load(self._session.item(item_id) if item_id is not None else None)
        self.endResetModel()

    def source_at(self, row: int) -> PlanSource:
        assert self._item is not None
        return self._item.sources[self._rows[row][0]]

    def page_at(self, row: int) -> PlanPage:
        source_pos, page_pos = self._rows[row]
        assert self._item is not None
        return self._item.sources[source_pos].pages[page_pos]

    def source_position(self, row: int) -> int:
        """Where the row's source stands in ``item.sources`` (what ordering.move counts)."""
        return self._rows[row][0]

    def rows_of_source(self, source_id: str) -> list[int]:
        if self._item is None:
            return []
        return [
            row
            for row, (pos, _) in enumerate(self._rows)
            if self._item.sources[pos].source_id == source_id
        ]

    def _load(self, item: PlanItem | None) -> None:
        self._item = item
        self._rows = []
        self._row_of_page = {}
        if item is not None:
            for pos, source in enumerate(item.sources):
                for page_pos, page in enumerate(source.pages):
                    self._row_of_page[(source.source_id, page.page_index)] = len(self._rows)
                    self._rows.append((pos, page_pos))
        self._load_notes()

    def _load_notes(self) -> None:
        """Ambiguity codes (live, from the engine) and the report's problems, by source."""
        self._notes = {}
        item = self._item
        if item is None:
            return
        for amb in ordering.find_ambiguities(item):
            message = item_message(amb.message, item)
            for source_id in amb.source_ids:
                self._note(source_id, str(amb.code), message, Severity.ERROR)
        report = self._session.report
        if report is not None:
            for problem in report.for_item(item.item_id):
                if problem.code == ProblemCode.DUPLICATES_SKIPPED:
                    continue  # each skipped row says so itself
                message = item_message(problem.message, item, item.label)
                for source_id in problem.source_ids:
                    self._note(source_id, str(problem.code), message, problem.severity)

    def _note(self, source_id: str, code: str, message: str, severity: Severity) -> None:
        notes = self._notes.setdefault(source_id, [])
        if all(c != code for c, _, _ in notes):
            notes.append((code, message, severity))

    # -- Qt's model interface --------------------------------------------------------------

    def rowCount(self, parent: _Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(PageColumn)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            # Drops land between rows, never on one: a page cannot hold another.
            return Qt.ItemFlag.ItemIsDropEnabled
        return (
            Qt.ItemFlag.ItemIsEnabled
            | Qt.ItemFlag.ItemIsSelectable
            | Qt.ItemFlag.ItemIsDragEnabled
            | Qt.ItemFlag.ItemNeverHasChildren
        )

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Vertical:
            return self._row_header(section, role)
        if not 0 <= section < len(PageColumn):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return (
                _tr("PageTableModel", "Preview"),
                _tr("PageTableModel", "File"),
                _tr("PageTableModel", "Page in file"),
                _tr("PageTableModel", "Captured"),
                _tr("PageTableModel", "Size"),
                _tr("PageTableModel", "Warning"),
            )[section]
        if role == Qt.ItemDataRole.TextAlignmentRole and section == PageColumn.SIZE:
            return Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        return None

    def _row_header(self, row: int, role: int) -> Any:
        """The page's number in the notebook (excluded and skipped pages have none)."""
        if not 0 <= row < len(self._rows) or self._item is None:
            return None
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return None
        source = self.source_at(row)
        if not source.imported:
            return "–" if role == Qt.ItemDataRole.DisplayRole else None
        number = 1 + sum(1 for r in range(row) if self._item.sources[self._rows[r][0]].imported)
        is_cover = self.page_at(row).page_id == self._item.cover_page_id
        if role == Qt.ItemDataRole.ToolTipRole:
            if is_cover:
                return _tr("PageTableModel", "Page {n} of the notebook, its cover").format(n=number)
            return _tr("PageTableModel", "Page {n} of the notebook").format(n=number)
        return f"★ {number}" if is_cover else str(number)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows) or self._item is None:
            return None
        source = self.source_at(index.row())
        page = self.page_at(index.row())
        column = PageColumn(index.column())
        if role == ItemIdRole:
            return self._item.item_id
        if role == SourceIdsRole:
            return (source.source_id,)
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(source, page, column, index.row())
        if role == Qt.ItemDataRole.DecorationRole:
            return self._decoration(source, page, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(source, page, column)
        if role == Qt.ItemDataRole.AccessibleTextRole and column == PageColumn.THUMBNAIL:
            return _tr("PageTableModel", "Preview of {name}").format(name=source.name)
        if role == Qt.ItemDataRole.ForegroundRole and not source.imported:
            return _disabled_text()
        if role == Qt.ItemDataRole.TextAlignmentRole and column == PageColumn.SIZE:
            return Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        return None

    def _display(self, source: PlanSource, page: PlanPage, column: PageColumn, row: int) -> Any:
        if column == PageColumn.FILE:
            return source.name
        if column == PageColumn.SOURCE_PAGE:
            if source.media_type in _MULTI_PAGE_TYPES or len(source.pages) > 1:
                return _tr("PageTableModel", "p. {page} of {count}").format(
                    page=page.page_index + 1, count=len(source.pages)
                )
            return ""
        if column == PageColumn.CAPTURED:
            captured = source.provenance.captured_at
            return format_wall_time(captured) if isinstance(captured, str) and captured else ""
        if column == PageColumn.SIZE:
            size = source.provenance.size
            # A multi-page file's size is said once, on its first page.
            if size < 0 or self._rows[row][1] != 0:
                return ""
            return QLocale().formattedDataSize(size)
        if column == PageColumn.WARNING:
            return "; ".join(self._warnings(source))
        return None

    def _warnings(self, source: PlanSource) -> list[str]:
        words = []
        if source.excluded:
            words.append(_tr("PageTableModel", "Excluded"))
        if source.duplicate is not None:
            words.append(_duplicate_label(source.duplicate))
        words += [_problem_label(code) for code, _, _ in self._notes.get(source.source_id, [])]
        return words

    def _decoration(self, source: PlanSource, page: PlanPage, column: PageColumn) -> Any:
        if column == PageColumn.THUMBNAIL and self._thumbnails is not None:
            pixmap = self._thumbnails.request(source, page.page_index)
            # A view paints a QPixmap at its own size; an icon is scaled to the view's.
            return _untinted(pixmap) if pixmap is not None else None
        if column == PageColumn.WARNING:
            # A pixmap keeps its own (small) size; an icon would grow to the thumbnails' size.
            notes = self._notes.get(source.source_id, [])
            if any(sev is Severity.ERROR for _, _, sev in notes):
                return _small(severity_icon(Severity.ERROR))
            if notes or (source.duplicate is not None and not source.excluded):
                return _small(severity_icon(Severity.WARNING))
        return None

    def _tooltip(self, source: PlanSource, page: PlanPage, column: PageColumn) -> str | None:
        if column == PageColumn.FILE:
            return source.provenance.path
        if column == PageColumn.THUMBNAIL and self._thumbnails is not None:
            failure = self._thumbnails.failure(source.source_id, page.page_index)
            if failure is not None:
                return _tr("PageTableModel", "No preview: {why}").format(why=failure)
            return None
        if column == PageColumn.CAPTURED and source.provenance.captured_at:
            return _tr("PageTableModel", "Taken {when} by the camera's clock").format(
                when=source.provenance.captured_at
            )
        if column == PageColumn.WARNING:
            messages = [m for _, m, _ in self._notes.get(source.source_id, [])]
            if source.duplicate is not None:
                messages.insert(0, _duplicate_label(source.duplicate))
            if not messages:
                return None
            # Rich text, so a long message wraps instead of running off the screen.
            return "".join(f"<p>{html.escape(m)}</p>" for m in messages)
        return None

    # -- following the session -------------------------------------------------------------

    def _on_plan_changed(self) -> None:
        plan = self._session.plan
        keep = self.item_id()
        if plan is None or keep is None or all(it.item_id != keep for it in plan.items):
            keep = None
        self.set_item(keep)

    def _on_item_changed(self, item_id: str) -> None:
        if item_id != self.item_id():
            return
        new = self._session.item(item_id)
        old_rows = [self._page_key(r) for r in range(len(self._rows))]
        new_keys = [(s.source_id, p.page_index) for s in new.sources for p in s.pages]
        if sorted(old_rows) != sorted(new_keys):
            self.beginResetModel()  # never from the engine's edits; a safe fallback
            self._load(new)
            self.endResetModel()
            return
        if old_rows != new_keys:
            # Same pages in a new order: move every persistent index (the selection) with its page.
            self.layoutAboutToBeChanged.emit()
            persistent = self.persistentIndexList()
            keys = [self._page_key(i.row()) for i in persistent]
            self._load(new)
            self.changePersistentIndexList(
                persistent,
                [
                    self.index(self._row_of_page[k], i.column())
                    for k, i in zip(keys, persistent, strict=True)
                ],
            )
            self.layoutChanged.emit()
        else:
            self._load(new)
        self._all_changed()

    def _page_key(self, row: int) -> tuple[str, int]:
        source = self.source_at(row)
        return (source.source_id, self.page_at(row).page_index)

    def _on_validation_changed(self) -> None:
        if self._item is None:
            return
        self._load_notes()
        self._all_changed()

    def _all_changed(self) -> None:
        if self._rows:
            self.dataChanged.emit(
                self.index(0, 0), self.index(len(self._rows) - 1, len(PageColumn) - 1)
            )
        self.headerDataChanged.emit(Qt.Orientation.Vertical, 0, max(0, len(self._rows) - 1))

    def _on_thumbnail_ready(self, source_id: str, page_index: int) -> None:
        row = self._row_of_page.get((source_id, page_index))
        if row is not None:
            index = self.index(row, PageColumn.THUMBNAIL)
            self.dataChanged.emit(index, index, [Qt.ItemDataRole.DecorationRole])

    # -- drag and drop ---------------------------------------------------------------------

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def mimeTypes(self) -> list[str]:
        return [SOURCES_MIME_TYPE]

    def mimeData(self, indexes: list[QModelIndex]) -> QMimeData:
        """The dragged rows' sources, by id: a multi-page source moves whole."""
        data = QMimeData()
        if self._item is None:
            return data
        rows = sorted({i.row() for i in indexes if i.isValid() and i.row() < len(self._rows)})
        source_ids = list(dict.fromkeys(self.source_at(r).source_id for r in rows))
        body = {"item_id": self._item.item_id, "source_ids": source_ids}
        data.setData(SOURCES_MIME_TYPE, QByteArray(orjson.dumps(body)))
        return data

    def _dragged(self, data: QMimeData) -> list[str] | None:
        """The source ids a drag carries, if it comes from this item; None otherwise."""
        if self._item is None or not data.hasFormat(SOURCES_MIME_TYPE):
            return None
        try:
            body = orjson.loads(bytes(data.data(SOURCES_MIME_TYPE).data()))
        except orjson.JSONDecodeError:
            return None
        if not isinstance(body, dict) or body.get("item_id") != self._item.item_id:
            return None
        ids = body.get("source_ids")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            return None
        return ids

    def canDropMimeData(
        self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: _Index
    ) -> bool:
        return action == Qt.DropAction.MoveAction and bool(self._dragged(data))

    def dropMimeData(
        self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: _Index
    ) -> bool:
        """Move the dragged sources to land before ``row``'s source, as one undoable edit.

        A drop inside a multi-page source lands before that whole source.
        """
        if action == Qt.DropAction.IgnoreAction:
            return True
        source_ids = self._dragged(data) if action == Qt.DropAction.MoveAction else None
        if not source_ids or self._item is None:
            return False
        if row < 0:
            row = parent.row() if parent.isValid() else len(self._rows)
        # Counted in sources, which is what ordering.move takes.
        target_id = self.source_at(row).source_id if row < len(self._rows) else None
        return self.move_sources(source_ids, target_id)

    def move_sources(self, source_ids: list[str], before_source_id: str | None) -> bool:
        """Move those sources before ``before_source_id`` (None: to the end); one undo step."""
        if self._item is None:
            return False
        item_id = self._item.item_id

        def change(item: PlanItem) -> PlanItem:
            position = {s.source_id: i for i, s in enumerate(item.sources)}
            missing = [i for i in source_ids if i not in position]
            if missing or (before_source_id is not None and before_source_id not in position):
                raise ValueError(
                    _tr("PageTableModel", "Those pages are no longer in this notebook.")
                )
            to = len(item.sources) if before_source_id is None else position[before_source_id]
            return ordering.move(item, [position[i] for i in source_ids], to)

        try:
            return self._session.edit_item(item_id, change, _tr("PageTableModel", "Move pages"))
        except ValueError as exc:
            self.edit_failed.emit(str(exc))
            return False


# -- the validation report -----------------------------------------------------------------


class ProblemColumn(enum.IntEnum):
    NOTEBOOK = 0
    MESSAGE = 1


class ProblemsModel(QAbstractTableModel):
    """Every error and warning of ``session.report``, errors of a notebook before its warnings."""

    def __init__(self, session: ImportSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._session = session
        self._problems: tuple[PlanProblem, ...] = ()
        self._items: dict[str, PlanItem] = {}
        session.plan_changed.connect(self._reload)
        session.validation_changed.connect(self._reload)
        self._reload()

    def problem(self, row: int) -> PlanProblem:
        return self._problems[row]

    def _reload(self) -> None:
        self.beginResetModel()
        report = self._session.report
        plan = self._session.plan
        self._problems = () if report is None else report.problems
        self._items = {} if plan is None else {it.item_id: it for it in plan.items}
        self.endResetModel()

    def rowCount(self, parent: _Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._problems)

    def columnCount(self, parent: _Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(ProblemColumn)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return (
            Qt.ItemFlag.ItemIsEnabled
            | Qt.ItemFlag.ItemIsSelectable
            | Qt.ItemFlag.ItemNeverHasChildren
        )

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(ProblemColumn):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return (_tr("ProblemsModel", "Notebook"), _tr("ProblemsModel", "Problem"))[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._problems):
            return None
        problem = self._problems[index.row()]
        item = self._items.get(problem.item_id)
        label = item.label if item is not None else problem.item_id
        column = ProblemColumn(index.column())
        if role == ItemIdRole:
            return problem.item_id
        if role == SourceIdsRole:
            return problem.source_ids
        if role == SeverityRole:
            return problem.severity
        if role == Qt.ItemDataRole.DisplayRole:
            if column == ProblemColumn.NOTEBOOK:
                return label
            return item_message(problem.message, item, label)
        if role == Qt.ItemDataRole.DecorationRole and column == ProblemColumn.NOTEBOOK:
            return severity_icon(problem.severity)
        if role == Qt.ItemDataRole.ToolTipRole and column == ProblemColumn.MESSAGE:
            return f"<p>{html.escape(item_message(problem.message, item, label))}</p>"
        if role == Qt.ItemDataRole.AccessibleDescriptionRole:
            if problem.severity is Severity.ERROR:
                return _tr("ProblemsModel", "Error")
            return _tr("ProblemsModel", "Warning")
        return None
