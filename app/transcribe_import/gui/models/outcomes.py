"""A run's items with their outcomes as a table model: live during a commit, or from a record."""

from __future__ import annotations

import enum
from operator import attrgetter

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject

from transcribe_import.engine.runs.model import ItemState
from transcribe_import.gui.icons import outcome_icon
from transcribe_import.gui.models.base import LEFT, RIGHT, Column, ColumnTableModel, record_roles
from transcribe_import.gui.values import OutcomeRow
from transcribe_import.gui.wording import outcome_details, outcome_words

_CONTEXT = "OutcomeTableModel"


class OutcomeColumn(enum.IntEnum):
    NOTEBOOK = 0
    PAGES = 1
    OUTCOME = 2
    DETAILS = 3


def _pages(row: OutcomeRow) -> str:
    done = row.outcome.page_count
    if row.state is ItemState.COMMITTED and done != row.pages_planned:
        return f"{done} / {row.pages_planned}"
    return str(row.pages_planned)


def _spoken(row: OutcomeRow, live: bool) -> str:
    details = outcome_details(row)
    words = outcome_words(row, live)
    return f"{words}: {details}" if details else words


def _columns(live: bool) -> tuple[Column[OutcomeRow], ...]:
    """The columns; ``live`` (a run being executed now) says "waiting" where a record says
    "not done"."""
    return (
        Column(
            QT_TRANSLATE_NOOP("OutcomeTableModel", "Notebook"),
            display=attrgetter("label"),
            tooltip=lambda row: QCoreApplication.translate(_CONTEXT, "Notebook id: {id}").format(
                id=row.notebook_id
            ),
            align=LEFT,
        ),
        Column(QT_TRANSLATE_NOOP("OutcomeTableModel", "Pages"), display=_pages, align=RIGHT),
        Column(
            QT_TRANSLATE_NOOP("OutcomeTableModel", "Outcome"),
            display=lambda row: outcome_words(row, live),
            decoration=outcome_icon,
            accessible=lambda row: _spoken(row, live),
            align=LEFT,
        ),
        Column(
            QT_TRANSLATE_NOOP("OutcomeTableModel", "Details"),
            display=outcome_details,
            tooltip=lambda row: outcome_details(row) or None,
            align=LEFT,
        ),
    )


_LIVE_COLUMNS = _columns(live=True)
_RECORD_COLUMNS = _columns(live=False)


class OutcomeTableModel(ColumnTableModel[OutcomeRow]):
    """A run's items, one row each, with their outcome as the engine recorded it."""

    context = _CONTEXT
    row_roles = record_roles("item_id", "state")
    key = attrgetter("item_id")

    def __init__(
        self,
        rows: list[OutcomeRow] | tuple[OutcomeRow, ...] = (),
        parent: QObject | None = None,
        *,
        live: bool = True,
    ) -> None:
        super().__init__(rows, parent)
        self.columns = _LIVE_COLUMNS if live else _RECORD_COLUMNS
