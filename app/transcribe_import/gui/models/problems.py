"""The validation report of the plan under review as a Qt model: every problem, by notebook."""

from __future__ import annotations

import enum
import html
from dataclasses import dataclass
from operator import attrgetter

from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject, Qt

from transcribe_import.engine.planning.plan import PlanItem
from transcribe_import.engine.planning.problems import PlanProblem, ProblemSeverity
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
        # Pages worth a second look after the problems: information, never in the way.
        problems = () if report is None else report.problems + report.information
        # A stable sort: the report is in plan order already, errors first within an item.
        rank = {ProblemSeverity.ERROR: 0, ProblemSeverity.WARNING: 1, ProblemSeverity.INFO: 2}
        ranked = sorted(problems, key=lambda p: rank[p.severity])
        self.set_rows(ProblemRow(p, items.get(p.item_id)) for p in ranked)
