"""Import runs as a table model, one RunSummary a row, in the order given (newest first)."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from operator import attrgetter
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt

from transcribe_import.engine.api import ShortIds
from transcribe_import.gui.icons import run_icon
from transcribe_import.gui.models.base import LEFT, RIGHT, Column, ColumnTableModel, record_roles
from transcribe_import.gui.values import RunSummary
from transcribe_import.gui.wording import format_local, run_state_explanation, run_state_words

_CONTEXT = "RunTableModel"


class RunColumn(enum.IntEnum):
    STARTED = 0
    STATUS = 1
    COMMITTED = 2
    SKIPPED = 3
    FAILED = 4
    NOT_DONE = 5
    PAGES = 6
    FROM = 7


def _count(title: object, name: str) -> Column[RunSummary]:
    read = attrgetter(name)
    return Column(title, display=lambda run: str(read(run)), align=RIGHT)


def _from(run: RunSummary) -> str:
    """The folders the run imported, by their last name; a turn of pages in the corpus came
    from no folder, and says what it was."""
    if run.turn:
        return QCoreApplication.translate(_CONTEXT, "Pages turned in the corpus")
    return ", ".join(r.rstrip("/").rsplit("/", 1)[-1] for r in run.roots)


class RunTableModel(ColumnTableModel[RunSummary]):
    """Import runs, one row each: when, how it ended, what it did, from where."""

    context = _CONTEXT
    columns = (
        Column(
            QT_TRANSLATE_NOOP("RunTableModel", "Started"),
            display=lambda run: format_local(run.created_at),
            # Its tooltip names the run as `runs` does: see cell().
            align=LEFT,
        ),
        Column(
            QT_TRANSLATE_NOOP("RunTableModel", "Status"),
            display=run_state_words,
            tooltip=run_state_explanation,
            decoration=run_icon,
            align=LEFT,
        ),
        _count(QT_TRANSLATE_NOOP("RunTableModel", "Committed"), "counts.notebooks_complete"),
        _count(QT_TRANSLATE_NOOP("RunTableModel", "Skipped"), "skipped"),
        _count(QT_TRANSLATE_NOOP("RunTableModel", "Failed"), "counts.items_failed"),
        _count(QT_TRANSLATE_NOOP("RunTableModel", "Not done"), "not_done"),
        _count(QT_TRANSLATE_NOOP("RunTableModel", "Pages"), "pages_landed"),
        Column(
            QT_TRANSLATE_NOOP("RunTableModel", "From"),
            display=_from,
            tooltip=lambda run: "\n".join(run.roots) or None,
            align=LEFT,
        ),
    )
    row_roles = record_roles("run_id", "status")
    key = attrgetter("run_id")

    def set_runs(self, runs: Iterable[RunSummary]) -> None:
        self.set_rows(runs)

    def _load_rows(self, rows: Iterable[RunSummary]) -> None:
        super()._load_rows(rows)
        # Each run as `runs` and every command name it: 8 characters, more where two runs of
        # the listing (the corpus's, all of them) share them.
        self._shown_ids = ShortIds.of(run.run_id for run in self._rows)

    def cell(self, row: RunSummary, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.ToolTipRole and column == RunColumn.STARTED:
            return QCoreApplication.translate(
                _CONTEXT, "In a terminal, this import is run {id}"
            ).format(id=self._shown_ids(row.run_id))
        return super().cell(row, column, role)

    def run(self, row: int) -> RunSummary:
        return self.row(row)
