"""The corpus's notebooks as a table model: Title, Pages, Created, State, Id, Source, over
NotebookSummary rows (the source folders come later, from their own read)."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from operator import attrgetter
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QLocale, Qt
from PySide6.QtGui import QIcon

from transcribe_import.engine.api import NotebookSummary, ShortIds
from transcribe_import.engine.base.text import natural_key
from transcribe_import.gui.icons import SP, standard_icon
from transcribe_import.gui.models.base import RIGHT, SORT_ROLE, Column, ColumnTableModel
from transcribe_import.gui.wording import (
    format_local,
    notebook_state_words,
    unfinished_import_words,
    unreadable_notebook_words,
)


def _tr(text: str, n: int) -> str:
    return QCoreApplication.translate("NotebookTableModel", text, "", n)


class NotebookColumn(enum.IntEnum):
    TITLE = 0
    PAGES = 1
    CREATED = 2
    STATE = 3
    ID = 4  # two notebooks of one title are told apart by their id and their source
    SOURCE = 5


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


def _state_tooltip(nb: NotebookSummary) -> str:
    if nb.unfinished is None:
        return notebook_state_words(nb)
    return unfinished_import_words(nb.title, nb.unfinished)


def _state_icon(nb: NotebookSummary) -> QIcon | None:
    # Not a warning: nothing is damaged; the import is only half way.
    return None if nb.unfinished is None else standard_icon(SP.SP_MessageBoxInformation)


class NotebookTableModel(ColumnTableModel[NotebookSummary]):
    """The corpus's notebooks, one row each. Replace the list to update."""

    context = "NotebookTableModel"
    columns = (
        Column(
            QT_TRANSLATE_NOOP("NotebookTableModel", "Title"),
            display=attrgetter("title"),
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
        Column(
            QT_TRANSLATE_NOOP("NotebookTableModel", "State"),
            display=notebook_state_words,
            # Incomplete ones first when sorted up: they are the ones that need something.
            sort=lambda nb: f"{int(nb.unfinished is None)}{nb.created_at}",
            tooltip=_state_tooltip,
            decoration=_state_icon,
        ),
        Column(
            QT_TRANSLATE_NOOP("NotebookTableModel", "Id"),
            # The start of an id tells notebooks apart at a glance, as `notebooks` names it
            # (see cell(): it is read against the listing's other ids); the whole id is its
            # tooltip.
            sort=attrgetter("notebook_id"),
            tooltip=attrgetter("notebook_id"),
        ),
        # The folders its files came from: see cell() (read after the listing).
        Column(QT_TRANSLATE_NOOP("NotebookTableModel", "Source")),
    )
    row_roles = {Qt.ItemDataRole.AccessibleDescriptionRole: attrgetter("problem")}

    _sources: dict[str, tuple[str, ...]] = {}

    def set_notebooks(self, notebooks: Iterable[NotebookSummary]) -> None:
        self.set_rows(notebooks)

    def set_sources(self, sources: dict[str, tuple[str, ...]]) -> None:
        """The folders each notebook's files came from (``api.notebook_sources``)."""
        self._sources = sources
        self.rows_changed(0, self.rowCount() - 1)

    def source_words(self, nb: NotebookSummary) -> str:
        """The Source column: the first folder, and how many more there are."""
        folders = self._sources.get(nb.notebook_id, ())
        if len(folders) > 1:
            return _tr("{folder} and %Ln more", len(folders) - 1).format(folder=folders[0])
        return folders[0] if folders else ""

    def _load_rows(self, rows: Iterable[NotebookSummary]) -> None:
        super()._load_rows(rows)
        # Titles sort in the engine's one natural order ("Notebook 2" before "Notebook 10").
        # The sort proxy compares in C++, which cannot compare natural keys: each title's
        # place in that order is what it compares.
        ordered = sorted(self._rows, key=lambda nb: natural_key(nb.title))
        self._title_rank = {id(nb): i for i, nb in enumerate(ordered)}
        # Each id as `notebooks` and every command name it: 8 characters, more where two
        # notebooks of the listing (the corpus's, all of them) share them.
        self._shown_ids = ShortIds.of(nb.notebook_id for nb in self._rows)

    def cell(self, row: NotebookSummary, column: int, role: int) -> Any:
        if role == SORT_ROLE and column == NotebookColumn.TITLE:
            return self._title_rank[id(row)]
        if role == Qt.ItemDataRole.DisplayRole and column == NotebookColumn.ID:
            return self._shown_ids(row.notebook_id)
        if column == NotebookColumn.SOURCE:
            if role in (Qt.ItemDataRole.DisplayRole, SORT_ROLE):
                return self.source_words(row)
            if role == Qt.ItemDataRole.ToolTipRole:
                return "\n".join(self._sources.get(row.notebook_id, ())) or None
        return super().cell(row, column, role)

    def notebook(self, row: int) -> NotebookSummary:
        return self.row(row)
