"""The corpus's notebooks as a table model: Title, Pages, Created, over NotebookSummary rows."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from operator import attrgetter

from PySide6.QtCore import QT_TRANSLATE_NOOP, QLocale, Qt
from PySide6.QtGui import QIcon

from transcribe_import.engine.storage.corpus import NotebookSummary
from transcribe_import.gui.icons import SP, standard_icon
from transcribe_import.gui.models.base import RIGHT, Column, ColumnTableModel
from transcribe_import.gui.wording import format_local, unreadable_notebook_words


class NotebookColumn(enum.IntEnum):
    TITLE = 0
    PAGES = 1
    CREATED = 2


def _pages(nb: NotebookSummary) -> str:
    # The same mark as the CLI's `notebooks`: the manifest could not be read.
    return "?" if nb.page_count is None else str(nb.page_count)


def _tooltip(nb: NotebookSummary) -> str:
    if nb.problem is not None:
        return unreadable_notebook_words(nb.problem)
    return str(nb.directory)


def _created_tooltip(nb: NotebookSummary) -> str:
    if nb.problem is not None:
        return unreadable_notebook_words(nb.problem)
    return format_local(nb.created_at, QLocale.FormatType.LongFormat)


def _warning(nb: NotebookSummary) -> QIcon | None:
    return None if nb.problem is None else standard_icon(SP.SP_MessageBoxWarning)


class NotebookTableModel(ColumnTableModel[NotebookSummary]):
    """The corpus's notebooks, one row each. Replace the list to update."""

    context = "NotebookTableModel"
    columns = (
        Column(
            QT_TRANSLATE_NOOP("NotebookTableModel", "Title"),
            display=attrgetter("title"),
            sort=lambda nb: nb.title.casefold(),
            tooltip=_tooltip,
            decoration=_warning,
        ),
        Column(
            QT_TRANSLATE_NOOP("NotebookTableModel", "Pages"),
            display=_pages,
            sort=lambda nb: -1 if nb.page_count is None else nb.page_count,
            tooltip=_tooltip,
            align=RIGHT,
        ),
        Column(
            QT_TRANSLATE_NOOP("NotebookTableModel", "Created"),
            display=lambda nb: format_local(nb.created_at),
            # The formats write UTC with fixed-width fields, so text order is time order.
            sort=attrgetter("created_at"),
            tooltip=_created_tooltip,
        ),
    )
    row_roles = {Qt.ItemDataRole.AccessibleDescriptionRole: attrgetter("problem")}

    def set_notebooks(self, notebooks: Iterable[NotebookSummary]) -> None:
        self.set_rows(notebooks)

    def notebook(self, row: int) -> NotebookSummary:
        return self.row(row)
