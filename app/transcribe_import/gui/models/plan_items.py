"""The Qt model of the plan's notebooks under review: one row each, with its state badge.

A thin adapter over the session's frozen engine values: it holds no plan state of its own
(it re-reads the session's plan when it says it changed) and makes no import decision: a
state badge is ``api.item_state``: from the plan's validation when it has one (an ambiguous
page order is one of its errors), else with the page-order check (``order_cues``) made on a
worker, so that a plan of thousands of notebooks, or of one of 5,000 pages, paints at once
and its rows say "Checking…" until their check is back.
"""

from __future__ import annotations

import enum
from operator import attrgetter
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, Qt, QTimer

from transcribe_import.engine import api
from transcribe_import.engine.planning.ordering import Ambiguity
from transcribe_import.engine.planning.plan import PlanItem
from transcribe_import.gui.after_paint import Later, at_once
from transcribe_import.gui.icons import badge_icon, not_imported_icon
from transcribe_import.gui.models.base import RIGHT, Column, ColumnTableModel
from transcribe_import.gui.models.order_cues import forget_replaced, orders_checked, remember
from transcribe_import.gui.models.releasing import release_in_slices
from transcribe_import.gui.models.roles import ItemIdRole, StateRole
from transcribe_import.gui.session import ImportSession
from transcribe_import.gui.values import PlanItemState
from transcribe_import.gui.wording import (
    checking_words,
    looking_badge_words,
    not_imported_header_words,
    not_imported_words,
    op_explanation,
    op_words,
    plan_state_words,
    plural,
)
from transcribe_import.gui.workers import TaskSlot

Role = Qt.ItemDataRole


def _tr(context: str, text: str) -> str:
    return QCoreApplication.translate(context, text)


class ItemColumn(enum.IntEnum):
    NOTEBOOK = 0
    ACTION = 1
    PAGES = 2
    NOT_IMPORTED = 3  # files found beside the notebook's pages that the plan leaves out
    STATE = 4


def _notebook_tooltip(item: PlanItem) -> str:
    """Where the notebook comes from and what it does (the Action column may be hidden)."""
    folder = item.provenance.get("folder")
    return f"{folder}\n{op_explanation(item)}" if folder else op_explanation(item)


def _left_out(item: PlanItem) -> str | None:
    skipped = sum(len(s.pages) for s in item.sources if not s.imported)
    if not skipped:
        return None
    return plural(
        skipped,
        _tr("PlanItemsModel", "1 more page excluded or skipped"),
        QCoreApplication.translate(
            "PlanItemsModel", "%Ln more pages excluded or skipped", "", skipped
        ),
    )


_READY = frozenset({PlanItemState.READY, PlanItemState.DUPLICATE_SKIPS})


class PlanItemsModel(ColumnTableModel[PlanItem]):
    """The plan's items, one row each: Notebook, Action, Pages, State (icon and words)."""

    context = "PlanItemsModel"
    columns = (
        Column(
            QT_TRANSLATE_NOOP("PlanItemsModel", "Notebook"),
            display=attrgetter("label"),
            tooltip=_notebook_tooltip,
        ),
        Column(
            QT_TRANSLATE_NOOP("PlanItemsModel", "Action"), display=op_words, tooltip=op_explanation
        ),
        Column(
            QT_TRANSLATE_NOOP("PlanItemsModel", "Pages"),
            display=lambda item: str(item.imported_page_count()),
            tooltip=_left_out,
            align=RIGHT,
        ),
        # Counted from the whole plan (api.not_imported): see cell().
        Column(QT_TRANSLATE_NOOP("PlanItemsModel", "Not imported"), align=RIGHT),
        # Its words and badge depend on the report as well as the item: see cell().
        Column(QT_TRANSLATE_NOOP("PlanItemsModel", "State")),
    )
    row_roles = {ItemIdRole: attrgetter("item_id")}
    key = attrgetter("item_id")

    def __init__(self, session: ImportSession, parent: QObject | None = None) -> None:
        super().__init__(self._items_of(session), parent)
        self._session = session
        self._states: dict[str, tuple[PlanItem, object, PlanItemState]] = {}
        self._ambiguities: dict[str, tuple[PlanItem, bool]] = {}
        self._unchecked: set[str] = set()  # asked for, not checked yet
        self._in_check: dict[str, PlanItem] = {}  # the items the running check is of
        # How a check is started: the review holds it until the plan shown has painted.
        self.later: Later = at_once
        # A check asked while one runs waits for its thread to end (``ended``, after ``done``).
        self._checks = TaskSlot(
            self, done=self._checked, failed=self._check_failed, ended=self._check_asked
        )
        self._not_imported: list[api.NotImported] = []
        self._not_imported_of: dict[str | None, list[api.NotImported]] = {}
        self._count_not_imported()
        session.plan_changed.connect(self._on_plan_changed)
        session.item_changed.connect(self._on_item_changed)
        session.validation_changed.connect(self._on_validation_changed)
        session.looks_changed.connect(self._on_validation_changed)  # Ready waits for the looks

    @staticmethod
    def _items_of(session: ImportSession) -> tuple[PlanItem, ...]:
        return () if session.plan is None else session.plan.items

    def item_at(self, row: int) -> PlanItem:
        return self.row(row)

    def not_imported(self) -> list[api.NotImported]:
        """Every file the scan found that the plan does not import (api.not_imported)."""
        return list(self._not_imported)

    def not_imported_of(self, item_id: str | None) -> list[api.NotImported]:
        """Those found beside one notebook's pages (None: beside none of them)."""
        return list(self._not_imported_of.get(item_id, ()))

    def _count_not_imported(self) -> None:
        # Once per plan: an edit never changes what the scan found and left out.
        plan = self._session.plan
        self._not_imported = [] if plan is None else api.not_imported(plan)
        self._not_imported_of = {}
        for entry in self._not_imported:
            self._not_imported_of.setdefault(entry.item_id, []).append(entry)

    def state(self, item: PlanItem) -> PlanItemState | None:
        """The item's badge; None while its page order is not checked yet (see _ambiguous)."""
        # Views ask for every row on each repaint and resize; an item's state only changes
        # with the item (a new frozen object) or the report, so it is remembered per both.
        report = self._session.report
        cached = self._states.get(item.item_id)
        if cached is not None and cached[0] is item and cached[1] is report:
            return cached[2]
        state = self._state(item)
        if state is not None:
            self._states[item.item_id] = (item, report, state)
        return state

    def _ambiguous(self, item: PlanItem) -> bool | None:
        """Whether the item's page order needs a decision; None: not checked yet.

        The check reads every name of the item (5 ms for 50 pages, 0.25 s for 5,000):
        remembered per item, and made on a worker for the rows asked for in one turn of the
        event loop (their rows say "Checking…" meanwhile), never on the window's thread.
        """
        cached = self._ambiguities.get(item.item_id)
        if cached is not None and cached[0] is item:
            return cached[1]
        if self._in_check.get(item.item_id) is item:
            return None  # being checked: its row is told when it is
        if not self._unchecked:
            self.later(lambda: QTimer.singleShot(0, self, self._check_asked))
        self._unchecked.add(item.item_id)
        return None

    def close(self) -> None:
        """The window closes: wait for the check running (it ends within its items)."""
        self._unchecked.clear()
        self._checks.close()

    def _check_asked(self) -> None:
        """Check the orders asked for since the last check, unless one runs (then once its
        thread has ended: ``done`` comes before, while the slot is still busy)."""
        if self._checks.is_busy() or not self._unchecked:
            return
        rows = sorted(r for r in map(self.row_of, self._unchecked) if r is not None)
        self._unchecked.clear()
        if rows:
            items = tuple(self.row(r) for r in rows)
            self._in_check = {it.item_id: it for it in items}
            self._checks.run(orders_checked, items)

    def _check_failed(self, _why: str) -> None:
        self._in_check = {}  # asked again as their rows are painted

    def _checked(self, checked: tuple[tuple[PlanItem, list[Ambiguity]], ...]) -> None:
        self._in_check = {}
        rows = []
        for item, cues in checked:
            self._ambiguities[item.item_id] = (item, bool(cues))
            row = self.row_of(item.item_id)
            if row is not None and self.row(row) is item:
                remember(item, cues)
                rows.append(row)
        if rows:  # the views ask for these rows again: their badges now
            self.dataChanged.emit(
                self.index(min(rows), ItemColumn.STATE), self.index(max(rows), ItemColumn.STATE)
            )

    def _state(self, item: PlanItem) -> PlanItemState | None:
        """The engine's badge (api.item_state), with the order check made on a worker.

        With a report (the session's is always of the plan as it stands), validate has
        checked every order: an ambiguous one is among its errors. Without one, an item
        with an error says so before its order is checked; otherwise the badge waits for
        the check (None: "Checking…").
        """
        report = self._session.report
        if report is not None:
            # Made with the report on its worker (api.item_states); worked out here only
            # for a report that came without them (a commit's check, a test's).
            known = self._session.report_state(item.item_id)
            return known if known is not None else api.item_state(item, report)
        state = api.item_state(item, report, order_ambiguous=False)
        if state is PlanItemState.ERROR:
            return state
        ambiguous = self._ambiguous(item)
        if ambiguous is None:
            return None
        return api.item_state(item, report, order_ambiguous=ambiguous)

    def cell(self, row: PlanItem, column: int, role: int) -> Any:
        if role == StateRole:
            return self.state(row)
        if column == ItemColumn.STATE:
            state = self.state(row) if role in (Role.DisplayRole, Role.DecorationRole) else None
            # Ready, but for the look pass: not called Ready until its rescans are asked.
            looking = self._session.looking and state in _READY
            if role == Role.DisplayRole:
                if looking:
                    return looking_badge_words()
                return checking_words() if state is None else plan_state_words(state)
            if role == Role.DecorationRole:
                return None if state is None or looking else badge_icon(state)
        if column == ItemColumn.NOT_IMPORTED:
            left = self._not_imported_of.get(row.item_id, ())
            if role == Role.DisplayRole:
                return str(len(left)) if left else ""
            if role in (Role.ToolTipRole, Role.AccessibleTextRole):
                return not_imported_words([e.rel for e in left]) if left else None
        return super().cell(row, column, role)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Role.DisplayRole
    ) -> Any:
        # Not imported is a column of small counts: its title is a picture (the one the
        # Not imported list shows), said in words to a screen reader and on hover.
        if orientation == Qt.Orientation.Horizontal and section == ItemColumn.NOT_IMPORTED:
            if role == Role.DisplayRole:
                return ""
            if role == Role.DecorationRole:
                return not_imported_icon()
            if role == Role.AccessibleTextRole:
                return super().headerData(section, orientation, Role.DisplayRole)
            if role == Role.ToolTipRole:
                return not_imported_header_words()
        return super().headerData(section, orientation, role)

    def _on_plan_changed(self) -> None:
        replaced = self.rows()
        self._states.clear()
        self._ambiguities.clear()
        self._unchecked.clear()
        self._count_not_imported()
        self.set_rows(self._items_of(self._session))
        forget_replaced(self._shown)
        release_in_slices(replaced)

    def _shown(self, item_id: str) -> PlanItem | None:
        row = self.row_of(item_id)
        return None if row is None else self.row(row)

    def _on_item_changed(self, item_id: str) -> None:
        self.update_rows([self._session.item(item_id)])

    def _on_validation_changed(self) -> None:
        if self.rowCount():
            last = self.rowCount() - 1
            self.dataChanged.emit(
                self.index(0, ItemColumn.STATE), self.index(last, ItemColumn.STATE)
            )
