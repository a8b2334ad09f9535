"""The validation report of the plan under review as a Qt model: every problem, by notebook."""

from __future__ import annotations

import enum
import html
from collections.abc import Iterable, MutableSequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, overload

from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject, Qt

from transcribe_import.engine.planning.plan import PlanItem
from transcribe_import.engine.planning.problems import PlanProblem
from transcribe_import.gui.icons import severity_icon
from transcribe_import.gui.models.base import Column, ColumnTableModel
from transcribe_import.gui.models.roles import ItemIdRole, SeverityRole, SourceIdsRole
from transcribe_import.gui.session import ImportSession
from transcribe_import.gui.wording import severity_words

Role = Qt.ItemDataRole


class ProblemColumn(enum.IntEnum):
    NOTEBOOK = 0
    MESSAGE = 1


@dataclass(frozen=True)
class ProblemRow:
    """One problem of the report with the plan item it is about (None: no longer in the plan)."""

    problem: PlanProblem
    item: PlanItem | None

    @property
    def label(self) -> str:
        return self.item.label if self.item is not None else self.problem.item_id

    @property
    def message(self) -> str:
        """The engine's words as they are: they name neither the item (its own column) nor
        a face's commands, and name files as the engine names them (problems.file_name)."""
        return self.problem.message


class ProblemsModel(ColumnTableModel[ProblemRow]):
    """Every error and warning of ``session.report``: every error first, then the warnings,
    each in the plan's order (so by notebook). An error is what stops the commit, and a
    shelf's rescan questions (a warning each) must not bury it below the fold."""

    context = "ProblemsModel"
    columns = (
        Column(
            QT_TRANSLATE_NOOP("ProblemsModel", "Notebook"),
            display=attrgetter("label"),
            decoration=lambda row: severity_icon(row.problem.severity),
        ),
        Column(
            QT_TRANSLATE_NOOP("ProblemsModel", "Problem"),
            display=attrgetter("message"),
            tooltip=lambda row: f"<p>{html.escape(row.message)}</p>",
        ),
    )
    row_roles = {
        ItemIdRole: lambda row: row.problem.item_id,
        SourceIdsRole: lambda row: row.problem.source_ids,
        SeverityRole: lambda row: row.problem.severity,
        Role.AccessibleDescriptionRole: lambda row: severity_words(row.problem.severity),
    }

    def __init__(self, session: ImportSession, parent: QObject | None = None) -> None:
        super().__init__((), parent)
        self._session = session
        session.plan_changed.connect(self._reload)
        session.validation_changed.connect(self._reload)
        self._reload()

    def problem(self, row: int) -> PlanProblem:
        return self.row(row).problem

    def _reload(self) -> None:
        report = self._session.report
        plan = self._session.plan
        items = {} if plan is None else {it.item_id: it for it in plan.items}
        # Errors first, then the warnings, then the rest and the pages worth a second look
        # (information, never in the way), each in the plan's order (worked out on the
        # validation's worker: ``gui/workers.validate_plan``).
        self.set_rows(_ProblemRows(() if report is None else report.listed, items))

    def _load_rows(self, rows: Iterable[ProblemRow]) -> None:
        if isinstance(rows, _ProblemRows):
            self._rows, self._row_of = rows, {}
        else:
            super()._load_rows(rows)


class _ProblemRows(MutableSequence[ProblemRow]):
    """The report's problems in the list's order, each row made when a view first reads it:
    a shelf's report can hold 100,000 problems (every page of a disk that is not there),
    and making every row on the window's thread held it for 0.4 s at each report
    (bench/bench_gui_open.py); a view reads only the rows on screen."""

    def __init__(self, ranked: tuple[PlanProblem, ...], items: dict[str, PlanItem]) -> None:
        self._ranked = ranked
        self._items = items
        self._made: dict[int, ProblemRow] = {}

    def __len__(self) -> int:
        return len(self._ranked)

    @overload
    def __getitem__(self, i: int) -> ProblemRow: ...

    @overload
    def __getitem__(self, i: slice) -> MutableSequence[ProblemRow]: ...

    def __getitem__(self, i: int | slice) -> ProblemRow | MutableSequence[ProblemRow]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self._ranked)
        row = self._made.get(i)
        if row is None:
            problem = self._ranked[i]  # IndexError past the end, as a list's
            row = self._made[i] = ProblemRow(problem, self._items.get(problem.item_id))
        return row

    def __setitem__(self, i: Any, value: Any) -> None:
        raise TypeError("a report's problem rows are not changed in place")

    def __delitem__(self, i: Any) -> None:
        raise TypeError("a report's problem rows are not changed in place")

    def insert(self, index: int, value: ProblemRow) -> None:
        raise TypeError("a report's problem rows are not changed in place")
