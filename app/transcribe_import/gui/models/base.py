"""Qt item models: thin adapters over plain lists of engine values and nothing more."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QDateTime,
    QLocale,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtWidgets import QApplication, QStyle

from transcribe_import.engine.storage.corpus import NotebookSummary

# What the sort proxy compares: raw values, so "10" pages sorts after "9" and dates sort by time.
SORT_ROLE = Qt.ItemDataRole.UserRole

_Index = QModelIndex | QPersistentModelIndex


class NotebookColumn(enum.IntEnum):
    TITLE = 0
    PAGES = 1
    CREATED = 2


def _tr(text: str) -> str:
    return QCoreApplication.translate("NotebookTableModel", text)


def parse_timestamp(iso: str) -> datetime | None:
    """An on-disk timestamp (UTC, ISO 8601 with Z) as an aware datetime, or None if unreadable."""
    try:
        value = datetime.fromisoformat(iso)
    except ValueError:
        return None
    # The formats always write UTC; a value without an offset is read as UTC, not local time.
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def format_local(iso: str, fmt: QLocale.FormatType = QLocale.FormatType.ShortFormat) -> str:
    """``iso`` in the user's time zone and locale; the raw text when it cannot be read."""
    value = parse_timestamp(iso)
    if value is None:
        return iso
    local = QDateTime.fromMSecsSinceEpoch(int(value.timestamp() * 1000))
    locale = QLocale()
    if locale.language() == QLocale.Language.C:
        # The C locale's short format is "2 12 2026 08:00", which reads as nothing; ISO is clear.
        return local.toString(
            "yyyy-MM-dd HH:mm" if fmt == QLocale.FormatType.ShortFormat else "yyyy-MM-dd HH:mm:ss t"
        )
    return locale.toString(local, fmt)


class NotebookTableModel(QAbstractTableModel):
    """The corpus's notebooks, one row each: Title, Pages, Created. Replace the list to update."""

    def __init__(
        self, notebooks: Sequence[NotebookSummary] = (), parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._notebooks: list[NotebookSummary] = list(notebooks)

    def set_notebooks(self, notebooks: Sequence[NotebookSummary]) -> None:
        self.beginResetModel()
        self._notebooks = list(notebooks)
        self.endResetModel()

    def notebook(self, row: int) -> NotebookSummary:
        return self._notebooks[row]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._notebooks)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(NotebookColumn)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(NotebookColumn):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return (_tr("Title"), _tr("Pages"), _tr("Created"))[section]
        if role == Qt.ItemDataRole.TextAlignmentRole and section == NotebookColumn.PAGES:
            return Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._notebooks):
            return None
        nb = self._notebooks[index.row()]
        column = NotebookColumn(index.column())
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(nb, column)
        if role == SORT_ROLE:
            return self._sort_key(nb, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(nb, column)
        if role == Qt.ItemDataRole.AccessibleDescriptionRole and nb.problem is not None:
            return nb.problem
        if role == Qt.ItemDataRole.DecorationRole and column == NotebookColumn.TITLE:
            if nb.problem is not None:
                return QApplication.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole and column == NotebookColumn.PAGES:
            return Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        return None

    @staticmethod
    def _display(nb: NotebookSummary, column: NotebookColumn) -> str:
        if column == NotebookColumn.TITLE:
            return nb.title
        if column == NotebookColumn.PAGES:
            # The same mark as the CLI's `notebooks`: the manifest could not be read.
            return "?" if nb.page_count is None else str(nb.page_count)
        return format_local(nb.created_at)

    @staticmethod
    def _sort_key(nb: NotebookSummary, column: NotebookColumn) -> str | int:
        if column == NotebookColumn.TITLE:
            return nb.title.casefold()
        if column == NotebookColumn.PAGES:
            return -1 if nb.page_count is None else nb.page_count
        # The formats write UTC with fixed-width fields, so text order is time order.
        return nb.created_at

    @staticmethod
    def _tooltip(nb: NotebookSummary, column: NotebookColumn) -> str:
        if nb.problem is not None:
            return _tr("This notebook cannot be read: {problem}").format(problem=nb.problem)
        if column == NotebookColumn.CREATED:
            return format_local(nb.created_at, QLocale.FormatType.LongFormat)
        return str(nb.directory)
