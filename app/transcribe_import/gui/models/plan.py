"""Qt models of the plan under review: its notebooks, and one notebook's pages.

Thin adapters over the session's frozen engine values. They hold no plan state of their
own (they re-read the session's plan when it says it changed) and make no import
decision: a state badge is read off ``ordering.find_ambiguities`` and the validation
report, and a drop becomes ``ordering.move`` through ``session.edit_item``. The report's
problems are problems.py's model.
"""

from __future__ import annotations

import collections
import enum
import time
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any

import orjson
from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QByteArray,
    QCoreApplication,
    QMimeData,
    QModelIndex,
    QObject,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QColor, QGuiApplication, QPalette

from transcribe_import.engine import api
from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.plan import PlanItem, PlanPage, PlanSource
from transcribe_import.engine.planning.problems import ProblemCode, ProblemSeverity
from transcribe_import.gui.icons import (
    badge_icon,
    not_imported_icon,
    turned,
    untinted,
)
from transcribe_import.gui.models import page_moves
from transcribe_import.gui.models.base import RIGHT, Column, ColumnTableModel, Index
from transcribe_import.gui.models.page_rows import (
    PAGE_COLUMNS,
    Note,
    PageColumn,
    PageRow,
    replaced_words,
)
from transcribe_import.gui.models.releasing import release_in_slices
from transcribe_import.gui.session import ImportSession
from transcribe_import.gui.thumbnails import ThumbnailCache
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

Role = Qt.ItemDataRole

# Custom roles; Qt.UserRole itself is models.base.SORT_ROLE.
ItemIdRole = Role.UserRole + 1  # str: the plan item a row concerns
StateRole = Role.UserRole + 2  # PlanItemState of a plan item (None: being checked)
SourceIdsRole = Role.UserRole + 3  # tuple[str, ...]: the sources a problem concerns
SeverityRole = Role.UserRole + 4  # validate.ProblemSeverity of a problem

SOURCES_MIME_TYPE = "application/x-transcribe-import-plan-sources"

# How long one turn of the event loop may spend checking notebooks' page orders for their
# badges before it lets the window paint and take input. A check is 3-5 ms alone, and up to
# twice that while workers run Python: 10 ms a turn kept a plan's first look of 2,000
# notebooks under the 100 ms a window may go unanswered (bench/bench_gui.py), where 20 ms,
# with the turn that showed the plan checking too, went over.
STATE_CHECK_BUDGET_S = 0.01


def _tr(context: str, text: str) -> str:
    return QCoreApplication.translate(context, text)


def _gone() -> ValueError:
    """A move of pages an undo or another edit has taken away meanwhile."""
    return ValueError(_tr("PageTableModel", "Those pages are no longer in this notebook."))


def _disabled_text() -> QColor:
    return QGuiApplication.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)


# -- the notebooks of the plan -------------------------------------------------------------


# The last notebooks' page-order cues, each kept with the item it was found in (an item is
# frozen: the same object, the same cues). Finding them reads every name of a notebook (5 ms
# for 50 pages, 0.1 s for 1,000), and a plan shown asks for the same notebook's up to five
# times in one turn (its row's state, its pages' notes, the decisions panel, twice more for
# the two reports a new plan sends): each view asks here, the first one finds them.
_RECENT_CUES: collections.OrderedDict[str, tuple[PlanItem, list[ordering.Ambiguity]]] = (
    collections.OrderedDict()
)
_RECENT_CUES_KEPT = 8


def ambiguities_of(item: PlanItem) -> list[ordering.Ambiguity]:
    """``ordering.find_ambiguities(item)``, found once per item object (the list is shared:
    read it, do not change it)."""
    kept = _RECENT_CUES.get(item.item_id)
    if kept is not None and kept[0] is item:
        _RECENT_CUES.move_to_end(item.item_id)
        return kept[1]
    cues = ordering.find_ambiguities(item)
    _RECENT_CUES[item.item_id] = (item, cues)
    _RECENT_CUES.move_to_end(item.item_id)
    while len(_RECENT_CUES) > _RECENT_CUES_KEPT:
        _RECENT_CUES.popitem(last=False)
    return cues


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
# Problems about pages held already: each such page says "Duplicate" itself and the item's
# panel says where they are, so none of them is "In question" for it.
_SAID_BY_THE_ITEM = frozenset(
    {
        ProblemCode.DUPLICATES_SKIPPED,
        ProblemCode.ALREADY_IMPORTED,
        ProblemCode.PARTLY_IMPORTED,
        ProblemCode.COMPLETES,
    }
)


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
        self._turn_started: float | None = None  # when this turn's first order check began
        self._unchecked: set[str] = set()  # asked for, left for the next turn
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

        The check reads every name of the item (5 ms for 50 pages): remembered per item,
        since a new report leaves it as it was, and made for at most STATE_CHECK_BUDGET_S (10 ms)
        per turn of the event loop, and none in the turn that showed the plan, so the first
        look at 2,000 notebooks paints at once and the rows on screen say "Checking…" for a
        moment.
        """
        cached = self._ambiguities.get(item.item_id)
        if cached is not None and cached[0] is item:
            return cached[1]
        if not self._may_check():
            self._unchecked.add(item.item_id)
            return None
        ambiguous = bool(ambiguities_of(item))
        self._ambiguities[item.item_id] = (item, ambiguous)
        return ambiguous

    def _may_check(self) -> bool:
        now = time.perf_counter()
        if self._turn_started is None:
            self._turn_started = now
            QTimer.singleShot(0, self._next_turn)
        return now - self._turn_started < STATE_CHECK_BUDGET_S

    def _next_turn(self) -> None:
        self._turn_started = None
        rows = sorted(r for r in map(self.row_of, self._unchecked) if r is not None)
        self._unchecked.clear()
        if rows:  # asked for again: the views repaint them, checked in this turn's budget
            self.dataChanged.emit(
                self.index(rows[0], ItemColumn.STATE), self.index(rows[-1], ItemColumn.STATE)
            )

    def _state(self, item: PlanItem) -> PlanItemState | None:
        """The engine's badge (api.item_state), with the order check this model paces.

        An item with an error says so before its order is checked, as it did before the
        check was paced; otherwise the badge waits for the check (None: "Checking…").
        """
        report = self._session.report
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
        for item_id, (item, _cues) in list(_RECENT_CUES.items()):
            row = self.row_of(item_id)
            if row is None or self.row(row) is not item:
                del _RECENT_CUES[item_id]  # the cues of the plan replaced go with it
        release_in_slices(replaced)
        # The turn that shows a new plan has spent its time on it (20 ms for 2,000 notebooks):
        # the first checks wait for the next turn, and the first paint says "Checking…".
        self._turn_started = time.perf_counter() - STATE_CHECK_BUDGET_S
        QTimer.singleShot(0, self._next_turn)

    def _on_item_changed(self, item_id: str) -> None:
        self.update_rows([self._session.item(item_id)])

    def _on_validation_changed(self) -> None:
        if self.rowCount():
            last = self.rowCount() - 1
            self.dataChanged.emit(
                self.index(0, ItemColumn.STATE), self.index(last, ItemColumn.STATE)
            )


# -- one notebook's pages ------------------------------------------------------------------


class PageTableModel(ColumnTableModel[PageRow]):
    """The pages of one plan item in notebook order; a multi-page source spans adjacent rows.

    Rows follow the engine item: after an edit the model re-reads it and reports the
    change as a layout change that carries persistent indexes (so a selection follows
    the pages it was on), never by reordering itself. Drops become ``ordering.move``.
    """

    edit_failed = Signal(str)  # a drop the engine refused; the message is for a person

    context = "PageTableModel"
    columns = PAGE_COLUMNS
    row_roles = {
        ItemIdRole: attrgetter("item_id"),
        SourceIdsRole: lambda row: (row.source.source_id,),
        Role.ForegroundRole: lambda row: None if row.source.imported else _disabled_text(),
    }
    key = attrgetter("key")

    def __init__(
        self,
        session: ImportSession,
        thumbnails: ThumbnailCache | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__((), parent)
        self._session = session
        self._thumbnails = thumbnails
        self._item: PlanItem | None = None
        session.plan_changed.connect(self._on_plan_changed)
        session.item_changed.connect(self._on_item_changed)
        session.validation_changed.connect(self._on_validation_changed)
        # Looks stamped on the plan bring the pages' measures: their hints' badges.
        session.looks_changed.connect(self._on_looks_changed)
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
        self._item = self._session.item(item_id) if item_id is not None else None
        self.set_rows(self._page_rows())

    def source_at(self, row: int) -> PlanSource:
        return self.row(row).source

    def page_at(self, row: int) -> PlanPage:
        return self.row(row).page

    def source_position(self, row: int) -> int:
        """Where the row's source stands in ``item.sources`` (what ordering.move counts)."""
        return self.row(row).source_pos

    def rows_of_source(self, source_id: str) -> list[int]:
        return [i for i, row in enumerate(self._rows) if row.source.source_id == source_id]

    def _page_rows(self) -> list[PageRow]:
        """The current item's pages, in order, with their numbers in the notebook (the
        engine's landing) and their files' notes."""
        item = self._item
        if item is None:
            return []
        notes = self._notes(item)
        replaced = dict(item.replacements)
        named = (
            {p.page_id: p.words for p in self._session.notebook_pages(item.notebook_id)}
            if replaced
            else {}
        )
        rows = []
        # Where each page lands in the notebook: a rescan has the number of the page it replaces.
        numbers = api.landing(self._session.corpus, item).numbers
        sideways = api.sideways_turns(item, self._session.hints)
        hinted: dict[str, list[api.PageHint]] = {}
        for found in api.page_hints(item, self._session.hints):
            hinted.setdefault(found.page_id, []).append(found)
        for pos, source in enumerate(item.sources):
            for page_pos, page in enumerate(source.pages):
                rows.append(
                    PageRow(
                        item.item_id,
                        source,
                        page,
                        pos,
                        page_pos,
                        numbers.get(page.page_id) if source.imported else None,
                        page.page_id == item.cover_page_id,
                        tuple(notes.get(source.source_id, ())),
                        replaced_words(replaced.get(page.page_id), named),
                        sideways=page.page_id in sideways,
                        sideways_words=(
                            api.sideways_words(sideways[page.page_id])
                            if page.page_id in sideways
                            else None
                        ),
                        hints=tuple(hinted.get(page.page_id, ())),
                    )
                )
        return rows

    def _notes(self, item: PlanItem) -> dict[str, list[Note]]:
        """Ambiguity codes (live, from the engine) and the report's problems, by source."""
        notes: dict[str, list[Note]] = {}

        def note(source_id: str, code: str, message: str, severity: ProblemSeverity) -> None:
            of_source = notes.setdefault(source_id, [])
            if all(c != code for c, _, _ in of_source):
                of_source.append((code, message, severity))

        for amb in ambiguities_of(item):
            for source_id in amb.source_ids:
                note(source_id, str(amb.code), amb.message, ProblemSeverity.ERROR)
        report = self._session.report
        if report is not None:
            for problem in report.for_item(item.item_id):
                if problem.code in _SAID_BY_THE_ITEM:
                    # Each skipped row says so itself ("Duplicate"); the item's panel says
                    # it was imported already: no page of it is "In question".
                    continue
                for source_id in problem.source_ids:
                    note(source_id, str(problem.code), problem.message, problem.severity)
        return notes

    # -- Qt's model interface --------------------------------------------------------------

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            # Drops land between rows, never on one: a page cannot hold another.
            return Qt.ItemFlag.ItemIsDropEnabled
        return (
            Qt.ItemFlag.ItemIsEnabled
            | Qt.ItemFlag.ItemIsSelectable
            | Qt.ItemFlag.ItemIsDragEnabled
            | Qt.ItemFlag.ItemNeverHasChildren
        )

    def row_header(self, row: int, role: int) -> Any:
        """The page's number in the notebook (excluded and skipped pages have none)."""
        if role not in (Role.DisplayRole, Role.ToolTipRole):
            return None
        page = self.row(row)
        if page.number is None:
            return "–" if role == Role.DisplayRole else None
        if role == Role.ToolTipRole:
            if page.is_cover:
                return _tr("PageTableModel", "Page {n} of the notebook, its cover").format(
                    n=page.number
                )
            return _tr("PageTableModel", "Page {n} of the notebook").format(n=page.number)
        return f"★ {page.number}" if page.is_cover else str(page.number)

    def cell(self, row: PageRow, column: int, role: int) -> Any:
        if column == PageColumn.THUMBNAIL and self._thumbnails is not None:
            if role == Role.DecorationRole:
                pixmap = self._thumbnails.request(row.source, row.page.page_index)
                if pixmap is None:
                    return None
                # A view paints a QPixmap at its own size; an icon is scaled to the view's.
                return untinted(turned(pixmap, row.page.turn))
            if role == Role.ToolTipRole:
                failure = self._thumbnails.failure(row.source.source_id, row.page.page_index)
                if failure is not None:
                    return _tr("PageTableModel", "No preview: {why}").format(why=failure)
                return None
        return super().cell(row, column, role)

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
        self._item = self._session.item(item_id)
        new_rows = self._page_rows()
        old_keys = [r.key for r in self._rows]
        new_keys = [r.key for r in new_rows]
        if sorted(old_keys) != sorted(new_keys):
            self.set_rows(new_rows)  # never from the engine's edits; a safe fallback
            return
        if old_keys != new_keys:
            # Same pages in a new order: move every persistent index (the selection) with its page.
            self.layoutAboutToBeChanged.emit()
            persistent = self.persistentIndexList()
            keys = [self._rows[i.row()].key for i in persistent]
            self._load_rows(new_rows)
            self.changePersistentIndexList(
                persistent,
                [
                    self.index(self._row_of[k], i.column())
                    for k, i in zip(keys, persistent, strict=True)
                ],
            )
            self.layoutChanged.emit()
        else:
            self._load_rows(new_rows)
        self._all_changed()

    def _on_validation_changed(self) -> None:
        if self._item is None:
            return
        self._load_rows(self._page_rows())  # the same pages, with the report's notes
        self._all_changed()

    def _on_looks_changed(self, stamped: bool) -> None:
        plan = self._session.plan
        if not stamped or self._item is None or plan is None:
            return
        item_id = self._item.item_id
        if any(it.item_id == item_id for it in plan.items):
            self._item = plan.item(item_id)  # its pages' looks, and measures, as stamped
            self._on_validation_changed()

    def _all_changed(self) -> None:
        self.rows_changed(0, len(self._rows) - 1)
        self.headerDataChanged.emit(Qt.Orientation.Vertical, 0, max(0, len(self._rows) - 1))

    def _on_thumbnail_ready(self, source_id: str, page_index: int) -> None:
        row = self.row_of((source_id, page_index))
        if row is not None:
            index = self.index(row, PageColumn.THUMBNAIL)
            self.dataChanged.emit(index, index, [Role.DecorationRole])

    # -- drag and drop ---------------------------------------------------------------------

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def mimeTypes(self) -> list[str]:
        return [SOURCES_MIME_TYPE]

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        """The dragged rows: their sources by id (whole files move) and their pages (some
        pages of one PDF move among its pages: page_moves.py)."""
        data = QMimeData()
        if self._item is None:
            return data
        rows = sorted({i.row() for i in indexes if i.isValid() and i.row() < len(self._rows)})
        source_ids = list(dict.fromkeys(self.source_at(r).source_id for r in rows))
        pages = [list(self.row(r).key) for r in rows]
        body = {"item_id": self._item.item_id, "source_ids": source_ids, "pages": pages}
        data.setData(SOURCES_MIME_TYPE, QByteArray(orjson.dumps(body)))
        return data

    def _body(self, data: QMimeData) -> dict[str, Any] | None:
        """What a drag carries, if it comes from this item; None otherwise."""
        if self._item is None or not data.hasFormat(SOURCES_MIME_TYPE):
            return None
        try:
            body = orjson.loads(bytes(data.data(SOURCES_MIME_TYPE).data()))
        except orjson.JSONDecodeError:
            return None
        if not isinstance(body, dict) or body.get("item_id") != self._item.item_id:
            return None
        return body

    def _dragged(self, data: QMimeData) -> list[str] | None:
        """The source ids a drag carries, if it comes from this item; None otherwise."""
        ids = (self._body(data) or {}).get("source_ids")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            return None
        return ids

    def _dragged_pages(self, data: QMimeData) -> list[page_moves.PageKey]:
        """The pages a drag carries, as (source id, index in its file)."""
        pages = (self._body(data) or {}).get("pages")
        if not isinstance(pages, list):
            return []
        return [
            (p[0], p[1])
            for p in pages
            if isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and type(p[1]) is int
        ]

    def canDropMimeData(
        self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: Index
    ) -> bool:
        return action == Qt.DropAction.MoveAction and bool(self._dragged(data))

    def dropMimeData(
        self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: Index
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
        pages = self._dragged_pages(data)
        source = page_moves.part_of_one_file(self._item, pages)
        if source is not None:  # some pages of a PDF: they move among its pages
            return self.move_in_file(source.source_id, [i for _s, i in pages], row)
        # Counted in sources, which is what ordering.move takes.
        target_id = self.source_at(row).source_id if row < len(self._rows) else None
        return self.move_sources(source_ids, target_id)

    def move_in_file(self, source_id: str, picked: list[int], row: int) -> bool:
        """Move those pages of one file to land before ``row`` among the file's pages (one
        undo step); refused in words when ``row`` is outside them."""
        if self._item is None:
            return False
        to = page_moves.place_in_file(self._rows, source_id, row)

        def change(item: PlanItem) -> PlanItem:
            source = next((s for s in item.sources if s.source_id == source_id), None)
            if source is None:
                raise _gone()
            if to is None:
                raise ValueError(page_moves.alone_words(source))
            return page_moves.move_in_file(item, source, picked, to)

        return self._edit(change)

    def _edit(self, change: Callable[[PlanItem], PlanItem]) -> bool:
        """One undoable move of the shown item's pages; a refusal is said, not raised."""
        assert self._item is not None
        try:
            return self._session.edit_item(
                self._item.item_id, change, _tr("PageTableModel", "Move pages")
            )
        except ValueError as exc:
            self.edit_failed.emit(str(exc))
            return False

    def move_sources(self, source_ids: list[str], before_source_id: str | None) -> bool:
        """Move those sources before ``before_source_id`` (None: to the end); one undo step."""
        if self._item is None:
            return False

        def change(item: PlanItem) -> PlanItem:
            position = {s.source_id: i for i, s in enumerate(item.sources)}
            missing = [i for i in source_ids if i not in position]
            if missing or (before_source_id is not None and before_source_id not in position):
                raise _gone()
            to = len(item.sources) if before_source_id is None else position[before_source_id]
            return ordering.move(item, [position[i] for i in source_ids], to)

        return self._edit(change)
