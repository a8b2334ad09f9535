"""The Qt model of one plan notebook's pages under review, in notebook order.

A thin adapter over the session's frozen engine values: a row is a page (page_rows.py), its
notes are the page-order cues (``order_cues``) and the report's problems, and a drop of
rows (page_drops.py) becomes ``ordering.move`` through ``session.edit_item``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, MutableSequence, Sequence
from operator import attrgetter
from typing import Any, overload

from PySide6.QtCore import QCoreApplication, QMimeData, QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette

from transcribe_import.engine import api
from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.plan import PlanItem, PlanPage, PlanSource
from transcribe_import.engine.planning.problems import ProblemCode, ProblemSeverity
from transcribe_import.gui.after_paint import Later, at_once
from transcribe_import.gui.icons import turned, untinted
from transcribe_import.gui.models import page_drops, page_moves
from transcribe_import.gui.models.base import ColumnTableModel, Index
from transcribe_import.gui.models.order_cues import ambiguities_of
from transcribe_import.gui.models.page_rows import (
    PAGE_COLUMNS,
    Note,
    PageColumn,
    PageRow,
    replaced_words,
)
from transcribe_import.gui.models.roles import ItemIdRole, SourceIdsRole
from transcribe_import.gui.session import ImportSession
from transcribe_import.gui.thumbnails import ThumbnailCache
from transcribe_import.gui.workers import TaskSlot

Role = Qt.ItemDataRole


def _tr(context: str, text: str) -> str:
    return QCoreApplication.translate(context, text)


def _gone() -> ValueError:
    """A move of pages an undo or another edit has taken away meanwhile."""
    return ValueError(_tr("PageTableModel", "Those pages are no longer in this notebook."))


def _disabled_text() -> QColor:
    return QGuiApplication.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)


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


# A notebook's pages worth a "Turn it?" and their likely turn; its pages' hints: by page id.
_Sideways = dict[str, api.Sideways]
_Hinted = dict[str, list[api.PageHint]]


# A notebook of more files than this has its hints found on a worker (see ``_hints``). The
# first time a plan's pages are read (a plan just opened), 500 files were 35-120 ms of the
# window's thread (bench/RESULTS.md), as a plan of 100,000 pages was shown; 50, a few.
HINTS_HERE_AT_MOST = 50


def hints_of(item: PlanItem, hints: frozenset[api.Hint]) -> tuple[_Sideways, _Hinted]:
    """The item's pages worth a "Turn it?" and its pages' hints, by page id."""
    hinted: _Hinted = {}
    for found in api.page_hints(item, hints):
        hinted.setdefault(found.page_id, []).append(found)
    return api.sideways_turns(item, hints), hinted


def hints_of_task(
    item: PlanItem, hints: frozenset[api.Hint]
) -> tuple[PlanItem, frozenset[api.Hint], _Sideways, _Hinted]:
    """``hints_of`` on a worker, with what they are of."""
    return (item, hints, *hints_of(item, hints))


_Key = tuple[str, int]  # a row's key: its source's id, the page's index in its file


def _no_row(pos: int, page_pos: int) -> PageRow:
    """The maker of no notebook's rows (there are none to make)."""
    raise IndexError(f"no notebook is shown: no page {page_pos} of file {pos}")


class LazyPageRows(MutableSequence[PageRow]):
    """One notebook's rows in order, each made the first time it is read.

    Choosing a notebook, a new report and a look stamped on it used to build every row of
    it on the window's thread (5,000 pages: 0.1-0.45 s each time, bench_gui_shelf.py); a
    view reads only the rows on screen, so only those are made. ``where`` says for each
    row its source's place in the item and the page's place in that file; ``make`` makes
    the row from them.
    """

    def __init__(
        self,
        where: list[tuple[int, int] | None],
        keys: list[_Key],
        make: Callable[[int, int], PageRow],
        sources: object = None,
    ) -> None:
        self.where = where
        self.keys = keys  # every row's key, in order, without making the rows
        self.sources = sources  # the item's sources they were read from
        self._make = make
        self._made: list[PageRow | None] = [None] * len(where)
        self.made = 0  # rows made so far: what a test counts

    def __len__(self) -> int:
        return len(self._made)

    @overload
    def __getitem__(self, i: int) -> PageRow: ...

    @overload
    def __getitem__(self, i: slice) -> list[PageRow]: ...

    def __getitem__(self, i: int | slice) -> PageRow | list[PageRow]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        row = self._made[i]
        if row is None:
            where = self.where[i]
            assert where is not None  # a row put in is made already
            row = self._made[i] = self._make(*where)
            self.made += 1
        return row

    @overload
    def __setitem__(self, i: int, row: PageRow) -> None: ...

    @overload
    def __setitem__(self, i: slice, row: Iterable[PageRow]) -> None: ...

    def __setitem__(self, i: int | slice, row: PageRow | Iterable[PageRow]) -> None:
        if isinstance(i, slice) or not isinstance(row, PageRow):
            raise TypeError("page rows are replaced one at a time")
        self._made[i] = row
        self.keys[i] = row.key

    def __delitem__(self, i: int | slice) -> None:
        del self._made[i]
        del self.where[i]
        del self.keys[i]

    def insert(self, i: int, row: PageRow) -> None:
        self._made.insert(i, row)
        self.where.insert(i, None)
        self.keys.insert(i, row.key)


class PageTableModel(ColumnTableModel[PageRow]):
    """The pages of one plan item in notebook order; a multi-page source spans adjacent rows.

    Rows follow the engine item: after an edit the model re-reads it and reports the
    change as a layout change that carries persistent indexes (so a selection follows
    the pages it was on), never by reordering itself. Drops become ``ordering.move``.
    """

    edit_failed = Signal(str)  # a drop the engine refused; the message is for a person
    hints_found = Signal()  # a large notebook's hints came from their worker: in its rows now

    context = "PageTableModel"
    columns = PAGE_COLUMNS
    row_roles = {
        ItemIdRole: attrgetter("item_id"),
        SourceIdsRole: lambda row: (row.source.source_id,),
        Role.ForegroundRole: lambda row: None if row.imported else _disabled_text(),
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
        # The last item's hints (``_hints``): the item, the hints chosen, what was found.
        self._hinted: tuple[PlanItem, frozenset[api.Hint], _Sideways, _Hinted] | None = None
        # The hints being found on a worker: of which item, for which hints chosen.
        self._hinting: tuple[PlanItem, frozenset[api.Hint]] | None = None
        self._hint_slot = TaskSlot(self, done=self._hints_came)
        # How the hints' worker is started: the review holds it until the notebook shown
        # has painted; ``_hints_due`` while a start is held.
        self.later: Later = at_once
        self._hints_due = False
        # What the rows were last built of: the item, the report and the hints chosen.
        self._built: tuple[PlanItem | None, object, frozenset[api.Hint]] | None = None
        # What the row header says (the pages' numbers, the cover, the rows' keys) as the
        # rows were last made, and as the views were last told it (``_all_changed``).
        self._header: tuple[dict[str, int], str | None, list[_Key]] | None = None
        self._header_told: tuple[dict[str, int], str | None, list[_Key]] | None = None
        # The last item's landing: of which item, under which report (``_landing``).
        self._landed: tuple[PlanItem, object, api.Landing] | None = None
        # The pages its notebook holds once committed (the engine's landing; None: unknown).
        self.notebook_pages: int | None = None
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
        self._header_told = self._header  # a reset tells the views every row anew

    def source_at(self, row: int) -> PlanSource:
        return self.row(row).source

    def page_at(self, row: int) -> PlanPage:
        return self.row(row).page

    def source_position(self, row: int) -> int:
        """Where the row's source stands in ``item.sources`` (what ordering.move counts)."""
        return self.row(row).source_pos

    def rows_of_source(self, source_id: str) -> list[int]:
        return [i for i, key in enumerate(self._keys()) if key[0] == source_id]

    def _keys(self) -> list[_Key]:
        rows = self._rows
        return rows.keys if isinstance(rows, LazyPageRows) else [r.key for r in rows]

    def rows_made(self) -> int:
        """How many of the shown notebook's rows have been made (read by a view, a
        command or a test) since they were last set: the rest cost nothing yet."""
        rows = self._rows
        return rows.made if isinstance(rows, LazyPageRows) else len(rows)

    def page_labels(self) -> list[str | None]:
        """Every row's page label, in order, read from the item (no row is made)."""
        item = self._item
        if item is None:
            return []
        return [p.label for s in item.sources for p in (*s.pages, *s.left_out)]

    def _load_rows(self, rows: Iterable[PageRow]) -> None:
        if isinstance(rows, LazyPageRows):
            shown = self._rows
            if not isinstance(shown, LazyPageRows) or shown.keys is not rows.keys:
                self._row_of = {key: i for i, key in enumerate(rows.keys)}
            self._rows = rows
        else:
            super()._load_rows(rows)

    def _page_rows(self) -> LazyPageRows:
        """The current item's pages, in order, with their numbers in the notebook (the
        engine's landing) and their files' notes; each row made when first read."""
        item = self._item
        self._built = (item, self._session.report, self._session.hints)
        if item is None:
            self._hinted = None  # a plan let go is not held here
            self._landed = None
            self._header = None
            return LazyPageRows([], [], _no_row)
        notes = self._notes(item)
        replaced = dict(item.replacements)
        named = (
            {p.page_id: p.words for p in self._session.notebook_pages(item.notebook_id)}
            if replaced
            else {}
        )
        # Where each page lands in the notebook: a rescan has the number of the page it replaces.
        landing = self._landing(item)
        numbers, self.notebook_pages = landing.numbers, landing.total
        sideways, hinted = self._hints(item)
        sources = item.sources

        def make(pos: int, page_pos: int) -> PageRow:
            source = sources[pos]
            # The pages left out of the file follow its imported ones: a page left out never
            # vanishes from the grid or the table (#34), and moves land among the others.
            left_out = page_pos >= len(source.pages)
            page = (
                source.left_out[page_pos - len(source.pages)]
                if left_out
                else source.pages[page_pos]
            )
            page_id = page.page_id
            return PageRow(
                item.item_id,
                source,
                page,
                pos,
                page_pos,
                numbers.get(page_id) if source.imported and not left_out else None,
                page_id == item.cover_page_id,
                tuple(notes.get(source.source_id, ())),
                replaced_words(replaced.get(page_id), named),
                sideways=page_id in sideways,
                sideways_words=(
                    api.sideways_words(sideways[page_id]) if page_id in sideways else None
                ),
                hints=tuple(hinted.get(page_id, ())),
                left_out=left_out,
            )

        shown = self._rows
        if isinstance(shown, LazyPageRows) and shown.sources is sources:
            # The same files (a new report, the hints come): the same rows in the same places.
            self._header = (numbers, item.cover_page_id, shown.keys)
            return LazyPageRows(shown.where, shown.keys, make, sources)
        where: list[tuple[int, int] | None] = [
            (pos, page_pos)
            for pos, source in enumerate(sources)
            for page_pos in range(len(source.pages) + len(source.left_out))
        ]
        keys = [(s.source_id, p.page_index) for s in sources for p in (*s.pages, *s.left_out)]
        self._header = (numbers, item.cover_page_id, keys)
        return LazyPageRows(where, keys, make, sources)

    def _landing(self, item: PlanItem) -> api.Landing:
        """Where the item's pages land, read again for a new item or a new report (a
        validation reads the corpus again); the hints coming read no notebook."""
        report = self._session.report
        kept = self._landed
        if kept is None or kept[0] is not item or kept[1] is not report:
            kept = self._landed = (item, report, api.landing(self._session.corpus, item))
        return kept[2]

    def _hints(self, item: PlanItem) -> tuple[_Sideways, _Hinted]:
        """The item's pages to turn and worth a second look, by page id, found once per
        item object and hints chosen: a report or a look stamped elsewhere changes neither.
        They read every page's measures: a notebook of more than ``HINTS_HERE_AT_MOST``
        files has them found on a worker (5,000 pages: 0.15-0.4 s), its rows without
        them until they come (``hints_found``)."""
        hints = self._session.hints
        kept = self._hinted
        if kept is not None and kept[0] is item and kept[1] is hints:
            return kept[2], kept[3]
        if len(item.sources) <= HINTS_HERE_AT_MOST:
            sideways, hinted = hints_of(item, hints)
            self._hinted = (item, hints, sideways, hinted)
            return sideways, hinted
        asked = self._hinting
        if asked is None or asked[0] is not item or asked[1] is not hints:  # never ==: deep
            self._hinting = (item, hints)
            if not self._hints_due:
                self._hints_due = True
                self.later(self._find_hints)
        return {}, {}

    def _find_hints(self) -> None:
        """Start finding the hints last asked for (one start for all asked while held)."""
        self._hints_due = False
        asked = self._hinting
        if asked is not None:
            self._hint_slot.run(hints_of_task, *asked)

    def _hints_came(self, found: tuple[PlanItem, frozenset[api.Hint], _Sideways, _Hinted]) -> None:
        item, hints, sideways, hinted = found
        if self._hinting is not None and self._hinting[0] is item and self._hinting[1] is hints:
            self._hinting = None
        if item is not self._item or hints is not self._session.hints:
            return  # of a notebook or a choice no longer shown
        self._hinted = found
        # The rows made again as they are read, now with their hints.
        self._load_rows(self._page_rows())
        self._all_changed(thumbnails=False)
        self.hints_found.emit()

    def close(self) -> None:
        """The window closes: wait for the hints being found (a walk of one notebook)."""
        self._hint_slot.close()

    def has_blank(self) -> bool:
        """Whether the notebook shown imports a blank page (told when the hints chosen tell
        blank pages: ``api.blank_page_refs`` of it, from the hints its rows show)."""
        if self._item is None:
            return False
        _sideways, hinted = self._hints(self._item)
        return any(h.hint is api.Hint.BLANK for found in hinted.values() for h in found)

    def _notes(self, item: PlanItem) -> dict[str, list[Note]]:
        """Ambiguity codes (live, from the engine) and the report's problems, by source."""
        notes: dict[str, list[Note]] = {}

        def note(source_id: str, code: str, message: str, severity: ProblemSeverity) -> None:
            of_source = notes.setdefault(source_id, [])
            if all(c != code for c, _, _ in of_source):
                of_source.append((code, message, severity))

        report = self._session.report
        for amb in ambiguities_of(item, report):
            for source_id in amb.source_ids:
                note(source_id, str(amb.code), amb.message, ProblemSeverity.ERROR)
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
        old_keys = self._keys()
        new_keys = new_rows.keys
        if sorted(old_keys) != sorted(new_keys):
            self.set_rows(new_rows)  # never from the engine's edits; a safe fallback
            return
        if old_keys != new_keys:
            # Same pages in a new order: move every persistent index (the selection) with its page.
            self.layoutAboutToBeChanged.emit()
            persistent = self.persistentIndexList()
            keys = [old_keys[i.row()] for i in persistent]
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
        built = (self._item, self._session.report, self._session.hints)
        if self._built is not None and all(a is b for a, b in zip(built, self._built, strict=True)):
            # Nothing its rows show has changed: a plan shown sends this right after the
            # rows were built for it (5,000 pages: twice the window's thread's time).
            return
        self._load_rows(self._page_rows())  # the same pages, with the report's notes
        self._all_changed(thumbnails=False)

    def _on_looks_changed(self, stamped: bool) -> None:
        plan = self._session.plan
        if not stamped or self._item is None or plan is None:
            return
        item_id = self._item.item_id
        if any(it.item_id == item_id for it in plan.items):
            stamped_item = plan.item(item_id)
            if stamped_item is self._item:
                # Stamped on other notebooks: its rows are as they were. Rebuilt at each
                # stamp (every 5 s), a notebook of 5,000 pages took the window's thread
                # 0.3-1 s each time (bench/bench_gui_shelf.py).
                return
            self._item = stamped_item  # its pages' looks, and measures, as stamped
            self._on_validation_changed()

    def _all_changed(self, *, thumbnails: bool = True) -> None:
        """Every row may read differently; ``thumbnails`` False: not their thumbnail cells
        (a report, the hints: only a page's turn changes what those hold). A change of the
        thumbnail column sends the grid through every cell of it (5,000 calls into Python
        for a notebook of 5,000 pages); the grid and the spreads paint their badges again
        at any change of the rows (``GridViews``)."""
        last = len(self._rows) - 1
        if last >= 0:
            first = PageColumn.THUMBNAIL if thumbnails else PageColumn.FILE
            self.dataChanged.emit(self.index(0, first), self.index(last, len(self.columns) - 1))
        # The row header (each page's number, the cover's star) told only when it changed:
        # a view lays every cell out again at any header change, and the grid's batched
        # layout of a long notebook left it scrolled back to its first 200 pages.
        if self._header != self._header_told:
            self._header_told = self._header
            self.headerDataChanged.emit(Qt.Orientation.Vertical, 0, max(0, last))

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
        return [page_drops.SOURCES_MIME_TYPE]

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        """The dragged rows' sources and pages (page_drops.py)."""
        if self._item is None:
            return QMimeData()
        rows = sorted({i.row() for i in indexes if i.isValid() and i.row() < len(self._rows)})
        source_ids = list(dict.fromkeys(self.source_at(r).source_id for r in rows))
        pages = [self.row(r).key for r in rows]
        return page_drops.drag_data(self._item.item_id, source_ids, pages)

    def canDropMimeData(
        self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: Index
    ) -> bool:
        dragged = page_drops.dragged_sources(data, self.item_id())
        return action == Qt.DropAction.MoveAction and bool(dragged)

    def dropMimeData(
        self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: Index
    ) -> bool:
        """Move the dragged sources to land before ``row``'s source, as one undoable edit.

        A drop inside a multi-page source lands before that whole source.
        """
        if action == Qt.DropAction.IgnoreAction:
            return True
        source_ids = (
            page_drops.dragged_sources(data, self.item_id())
            if action == Qt.DropAction.MoveAction
            else None
        )
        if not source_ids or self._item is None:
            return False
        if row < 0:
            row = parent.row() if parent.isValid() else len(self._rows)
        pages = page_drops.dragged_pages(data, self.item_id())
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
