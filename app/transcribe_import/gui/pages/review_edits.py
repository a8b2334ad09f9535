"""The review page's commands: which undoable engine edit each button, key or decision makes.

Every change is an engine call (``ordering.*``, ``edits.*``, and for an import into an
existing notebook ``api.place``, ``api.replace_page``, ``api.keep_pages``) made through
``ImportSession.edit_item``, so it is undoable and the plan stays the only state; these
only decide which call to make for the command given and the pages selected.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtWidgets import QApplication, QInputDialog, QLineEdit, QTableView, QWidget

from transcribe_import.engine import api
from transcribe_import.engine.media.kinds import Turn
from transcribe_import.engine.planning import edits, ordering
from transcribe_import.engine.planning.plan import (
    ImportPlan,
    Op,
    OrderingRule,
    PageRef,
    PlanItem,
)
from transcribe_import.engine.planning.problems import Resolution
from transcribe_import.gui.models import page_moves
from transcribe_import.gui.pages.placement import AFTER_PAGE, AT_POSITION, ask_replaced_page

if TYPE_CHECKING:
    from transcribe_import.gui.models.plan_pages import PageTableModel
    from transcribe_import.gui.pages.placement import PlacementBar
    from transcribe_import.gui.session import ImportSession


class EditedPage(Protocol):
    """What the edits use of the review page (``review.ReviewPage`` is the one): named here,
    so that the page imports its edits and the edits never import the page."""

    @property
    def session(self) -> ImportSession: ...
    @property
    def pages_model(self) -> PageTableModel: ...
    @property
    def page_view(self) -> QTableView: ...
    @property
    def decision_panel(self) -> QWidget: ...
    @property
    def placement_bar(self) -> PlacementBar: ...
    def current_item(self) -> PlanItem | None: ...
    def pages_widget(self) -> QWidget: ...
    def scroll_to_row(self, row: int) -> None: ...
    def select_item(self, item_id: str) -> bool: ...
    def select_rows(self, rows: list[int]) -> None: ...
    def selected_rows(self) -> list[int]: ...
    def show_error(self, message: str | None) -> None: ...
    def sort_entry(self, resolution: Resolution) -> str: ...


class ReviewEdits(QObject):
    """The edits of the notebook the review page shows, on the pages selected there."""

    def __init__(self, page: EditedPage, window: QWidget) -> None:
        """``window``: the page as a widget, which owns this and parents its questions."""
        super().__init__(window)
        self._page = page
        self._window = window

    def _edit(self, change: Callable[[PlanItem], PlanItem], text: str) -> bool:
        """One undoable engine edit of the current notebook; a refusal is shown, not raised."""
        item = self._page.current_item()
        if item is None:
            return False
        try:
            applied = self._page.session.edit_item(item.item_id, change, text)
        except ordering.NothingToOrderBy as exc:
            self._page.show_error(self._instead(exc))
            return False
        except ValueError as exc:
            self._page.show_error(str(exc))
            return False
        self._page.show_error(None)
        return applied

    def _instead(self, exc: ordering.NothingToOrderBy) -> str:
        """The refusal with the orders that can be had, as the Sort pages menu names them."""
        named = self.tr(" or ").join(self._page.sort_entry(r) for r in exc.instead)
        return self.tr("{refusal}; choose {entries} instead").format(refusal=exc, entries=named)

    def _selected_source_ids(self) -> list[str]:
        rows = self._page.selected_rows()
        return list(dict.fromkeys(self._page.pages_model.source_at(r).source_id for r in rows))

    @staticmethod
    def _positions(item: PlanItem, source_ids: list[str]) -> list[int]:
        if not source_ids:
            # Nothing selected (every notebook shown): no walk of its files, 5,000 of them
            # 7-12 ms of the window's thread as a plan is shown (bench_gui_open.py --big).
            return []
        wanted = set(source_ids)
        return [i for i, s in enumerate(item.sources) if s.source_id in wanted]

    def selected_pages(self) -> list[page_moves.PageKey]:
        """The selected pages, as (source id, index in its file), in notebook order."""
        model = self._page.pages_model
        return [model.row(r).key for r in self._page.selected_rows()]

    def can_move(self, step: int) -> bool:
        """Whether Move up (``step`` -1) or Move down (+1) would move the selection: some
        pages of a PDF within it, else their files among the notebook's files."""
        item = self._page.current_item()
        if item is None:
            return False
        within = page_moves.can_step(item, self.selected_pages(), step)
        if within is not None:
            return within
        positions = self._positions(item, self._selected_source_ids())
        if not positions:
            return False
        return positions[0] > 0 if step < 0 else positions[-1] < len(item.sources) - 1

    @Slot()
    def move_up(self) -> None:
        ids = self._selected_source_ids()
        if ids:
            self._move(ids, -1)

    @Slot()
    def move_down(self) -> None:
        ids = self._selected_source_ids()
        if ids:
            self._move(ids, +1)

    def _move(self, source_ids: list[str], step: int) -> None:
        pages = self.selected_pages()

        def change(item: PlanItem) -> PlanItem:
            source = page_moves.part_of_one_file(item, pages)
            if source is not None:  # some pages of a PDF: a place among its pages
                return page_moves.step_in_file(item, source, [i for _s, i in pages], step)
            positions = self._positions(item, source_ids)
            # move() puts the rows before ``to``: one up is before the row above the first,
            # one down is before the row two below the last.
            to = positions[0] - 1 if step < 0 else positions[-1] + 2
            if not 0 <= to <= len(item.sources):
                return item
            return ordering.move(item, positions, to)

        if self._edit(change, self.tr("Move pages")):
            current = self._page.page_view.currentIndex()
            if current.isValid():
                self._page.scroll_to_row(current.row())

    def _sort(self, rule: OrderingRule, text: str) -> None:
        self._edit(lambda item: ordering.order_by(item, rule), text)

    @Slot()
    def sort_by_name(self) -> None:
        self._sort(OrderingRule.NAME, self.tr("Sort pages by name"))

    @Slot()
    def sort_by_capture_time(self) -> None:
        self._sort(OrderingRule.CAPTURE_TIME, self.tr("Sort pages by capture time"))

    @Slot()
    def sort_by_mtime(self) -> None:
        self._sort(OrderingRule.MTIME, self.tr("Sort pages by modification time"))

    def _selected_names(self) -> list[PageRef]:
        item = self._page.current_item()
        if item is None:
            return []
        wanted = set(self._selected_source_ids())
        # The engine names sources by their path as validate shows it (provenance.rel).
        return [PageRef(s.provenance.rel) for s in item.sources if s.source_id in wanted]

    def _selected_page_names(self) -> list[PageRef]:
        """The selected pages that are some, not all, of a file of several, each with its
        page number in the file: Leave Out leaves those pages out, not the file."""
        model = self._page.pages_model
        rows = [r for r in self._page.selected_rows() if not model.row(r).left_out]
        chosen: dict[str, list[int]] = {}
        for r in rows:
            chosen.setdefault(model.source_at(r).source_id, []).append(r)
        names = []
        for rows_of in chosen.values():
            source = model.source_at(rows_of[0])
            if len(rows_of) < len(source.pages):
                for r in rows_of:
                    names.append(PageRef(source.provenance.rel, model.page_at(r).page_index + 1))
        return names

    @Slot()
    def exclude(self) -> None:
        pages = self._selected_page_names()
        split = {p.file for p in pages}
        # A file whose selected rows are all pages left out already is not left out whole.
        model = self._page.pages_model
        landing = {
            model.source_at(r).provenance.rel
            for r in self._page.selected_rows()
            if not model.row(r).left_out
        }
        whole = [n for n in self._selected_names() if n.file not in split and n.file in landing]
        names = whole + pages
        if names:
            self._edit(lambda item: api.reorder(item, exclude=names), self.tr("Exclude pages"))

    @Slot()
    def include(self) -> None:
        """Include the selected files, and the pages left out of them (a PDF's)."""
        item = self._page.current_item()
        names = self._selected_names()
        if item is None or not names:
            return
        wanted = set(self._selected_source_ids())
        pages = [
            PageRef(s.provenance.rel, p.page_index + 1)
            for s in item.sources
            if s.source_id in wanted
            for p in s.left_out
        ]
        self._edit(lambda it: api.reorder(it, include=names + pages), self.tr("Include pages"))

    @Slot()
    def leave_out_blank(self) -> None:
        """Leave out every blank page of the notebook, as one undoable step."""
        self._edit(api.leave_out_blank, self.tr("Leave out blank pages"))

    @Slot()
    def turn_right(self) -> None:
        self._turn(Turn.QUARTER, self.tr("Turn pages right"))

    @Slot()
    def turn_left(self) -> None:
        self._turn(Turn.THREE_QUARTERS, self.tr("Turn pages left"))

    def turn_as_hinted(self, item_id: str, file: str, resolution: Resolution) -> None:
        """A "Turn it?" answered from its Problems line: the page ``file`` names, in the
        notebook ``item_id`` (shown first), turned as ``resolution`` says: one undoable edit."""
        if not self._page.select_item(item_id):
            return
        self._edit(
            lambda item: api.turn_as_hinted(item, file, resolution),
            self.tr("Turn {file} {angle}").format(
                file=file, angle=api.hinted_turn(resolution).words
            ),
        )

    def _turn(self, step: Turn, text: str) -> None:
        """The selected pages each turned ``step`` further than they are (several at once,
        one undoable edit): the plan keeps the turn, the files stay as they are."""
        model = self._page.pages_model
        turns = {
            page.page_id: page.turn.then(step)
            for page in (model.page_at(r) for r in self._page.selected_rows())
        }
        if turns:
            self._edit(lambda item: api.turn_page_ids(item, turns), text)

    @Slot()
    def rename(self, title: str | None = None) -> None:
        """Rename the new notebook; without ``title``, ask for one."""
        item = self._page.current_item()
        if item is None or item.op is not Op.CREATE_NOTEBOOK:
            return
        if not isinstance(title, str):  # triggered(bool) from the action passes a bool
            title, ok = QInputDialog.getText(
                self._window,
                self.tr("Rename Notebook"),
                self.tr("Title of the new notebook:"),
                QLineEdit.EchoMode.Normal,
                item.title or "",
            )
            if not ok:
                return
        new_title = title
        self._edit(lambda it: edits.rename(it, new_title), self.tr("Rename notebook"))

    @Slot()
    def set_cover(self) -> None:
        rows = self._page.selected_rows()
        if len(rows) != 1:
            return
        page_id = self._page.pages_model.page_at(rows[0]).page_id
        self._edit(lambda item: edits.set_cover(item, page_id), self.tr("Set cover"))

    @Slot(object, object)
    def place(self, at: int | None, after: str | None) -> None:
        corpus = self._page.session.corpus
        self._edit(
            lambda it: api.place(corpus, it, at=at, after=after), self.tr("Place the new pages")
        )

    @Slot()
    def choose_replaced_page(self) -> None:
        """Ask which page of the notebook the selected page (a rescan) replaces."""
        item = self._page.current_item()
        rows = self._page.selected_rows()
        if item is None or len(rows) != 1:
            return
        now = dict(item.replacements).get(self._page.pages_model.page_at(rows[0]).page_id)
        pages = self._page.session.notebook_pages(item.notebook_id)
        asked, page_id = ask_replaced_page(self._window, pages, now)
        if asked:
            self.replace_selected_with(page_id)

    def replace_selected_with(self, page_id: str | None) -> None:
        """The selected page replaces the notebook's page ``page_id`` (None: nothing)."""
        rows = self._page.selected_rows()
        if len(rows) != 1:
            return
        rescan = self._page.pages_model.page_at(rows[0]).page_id
        corpus = self._page.session.corpus
        if page_id is None:
            self._edit(lambda it: api.keep_pages(it, [rescan]), self.tr("Add as a new page"))
        else:
            self._edit(
                lambda it: api.replace_page(corpus, it, rescan, page_id),
                self.tr("Replace a notebook page"),
            )

    def _plan_with(self, item: PlanItem) -> ImportPlan:
        """The plan under review with ``item`` as given (an engine answer reads the plan)."""
        plan = self._page.session.plan
        assert plan is not None  # a review shows a plan
        return plan.with_item(item)

    def _rescans_of(self, item: PlanItem, source_ids: tuple[str, ...]) -> list[str]:
        """The item's rescan pages (replacing a page) of those sources."""
        wanted = set(source_ids)
        of = {p.page_id: s.source_id for s in item.sources for p in s.pages}
        return [new for new, _old in item.replacements if of.get(new) in wanted]

    # The resolutions that are an ordering rule (api.reorder's ``by``); the rest are flags.
    _ORDER_RULES = frozenset(
        {
            Resolution.NAME,
            Resolution.CAPTURE_TIME,
            Resolution.MTIME,
            Resolution.INTERLEAVE,
            Resolution.INTERLEAVE_REVERSED,
        }
    )

    def resolve(self, resolution: str, source_ids: tuple[str, ...] = ()) -> None:
        """Settle the current notebook the way a panel button says: an engine resolution,
        applied as `order` applies it (api.reorder), "exclude" for the selected pages, or
        where an into item's pages go and what its rescans replace (``source_ids``: the
        sources the problem names)."""
        tr = self.tr
        undo_texts: dict[str, str] = {
            Resolution.ACCEPT: tr("Accept the page order"),
            Resolution.CAPTURE_TIME: tr("Order pages by capture time"),
            Resolution.NAME: tr("Order pages by name"),
            Resolution.MTIME: tr("Order pages by modification time"),
            # Two duplex passes woven together; what a person says of a foliated notebook.
            Resolution.INTERLEAVE: tr("Interleave fronts and backs"),
            Resolution.INTERLEAVE_REVERSED: tr("Interleave fronts and reversed backs"),
            Resolution.VERSO_FIRST: tr("Say the first page is a verso"),
            Resolution.VERSOS_BLANK: tr("Say the versos are blank"),
            # A bag's notebook whose id holds another notebook: leave it out, or take a copy.
            Resolution.SKIP: tr("Leave the notebook out"),
            Resolution.AS_COPY: tr("Import the notebook as a copy"),
        }
        # Where an into item's pages go, and what its rescans replace.
        corpus = self._page.session.corpus
        placing: dict[str, tuple[Callable[[PlanItem], PlanItem], str]] = {
            Resolution.AT_END: (lambda it: api.place(corpus, it), tr("Put the pages at the end")),
            Resolution.NO_REPLACE: (
                lambda it: api.keep_pages(it, self._rescans_of(it, source_ids)),
                tr("Add as new pages"),
            ),
            # A folder partly imported: its new pages complete the notebook holding the rest.
            Resolution.COMPLETE: (
                lambda it: api.complete_notebook(corpus, it),
                tr("Complete the notebook"),
            ),
            # Planned to complete it by default: a second notebook of the pages instead.
            Resolution.NEW_NOTEBOOK: (api.as_new_notebook, tr("Make a second notebook")),
            # A page like one of an existing notebook: import into it, where it can replace it.
            Resolution.IMPORT_INTO: (
                lambda it: api.import_into(corpus, it, source_ids[0]),
                tr("Import into an existing notebook"),
            ),
            # Pages of the notebook alike one to another: none is a rescan of another.
            Resolution.NONE_ARE_RESCANS: (
                lambda it: api.none_are_rescans(corpus, self._plan_with(it), it.item_id),
                tr("Say no page is a rescan of another"),
            ),
            Resolution.INCLUDE: (
                lambda it: ordering.include(
                    it, [s.provenance.rel for s in it.sources if s.source_id in source_ids]
                ),
                tr("Include pages"),
            ),
        }
        # A page that looks like another: the answers to "a rescan?". For these the panel
        # gives the page as ``order`` names it (its file, FILE#N), not source ids.
        answers: dict[str, str] = {
            Resolution.RESCAN_REPLACES: tr("Replace a page by its rescan"),
            Resolution.KEEP_BOTH: tr("Keep both pages"),
            Resolution.LEAVE_OUT: tr("Leave out a rescan"),
        }
        if resolution == Resolution.KEEP_BOTH and len(source_ids) > 1:
            # Keep Both for All: the questions named, answered at once, one step to undo.
            names = list(source_ids)

            def kept(it: PlanItem) -> PlanItem:
                plan = self._plan_with(it)
                return api.answer_lookalikes(
                    corpus, plan, it.item_id, names, Resolution.KEEP_BOTH
                ).item

            self._edit(kept, tr("Keep both pages for %n questions", "", len(names)))
        elif resolution in answers and source_ids:
            name, answer = source_ids[0], Resolution(resolution)

            def answered(it: PlanItem) -> PlanItem:
                return api.answer_lookalike(corpus, self._plan_with(it), it.item_id, name, answer)

            self._edit(answered, answers[resolution])
        elif resolution == Resolution.EXCLUDE:
            self.exclude()
        elif resolution in (Resolution.AT, Resolution.AFTER):
            self._page.placement_bar.choose(
                AT_POSITION if resolution == Resolution.AT else AFTER_PAGE
            )
            return
        elif resolution == Resolution.REPLACE:
            item = self._page.current_item()
            rows = [
                r for sid in source_ids[:1] for r in self._page.pages_model.rows_of_source(sid)[:1]
            ]
            if item is not None and rows:
                self._page.select_rows(rows)
                self.choose_replaced_page()
        elif resolution in placing:
            change, text = placing[resolution]
            self._edit(change, text)
        elif resolution in undo_texts:
            how: dict[str, Any] = (
                {"by": resolution} if resolution in self._ORDER_RULES else {resolution: True}
            )
            self._edit(lambda it: api.reorder(it, **how), undo_texts[resolution])
        self._focus_after_answer()

    @Slot(str, bool)
    def leave_out(self, rel: str, take_back: bool) -> None:
        """Leave a file that cannot be used out of the import, or take it back."""
        if take_back:
            self._edit(
                lambda it: edits.unacknowledge_unusable(it, [rel]),
                self.tr("Take back a left-out file"),
            )
        else:
            self._edit(
                lambda it: edits.acknowledge_unusable(it, [rel]), self.tr("Leave out a file")
            )
        self._focus_after_answer()

    def _focus_after_answer(self) -> None:
        """Where the keyboard goes once a decision is answered: the next decision's first
        button while the panel still asks one (it took the focus as it was rebuilt), so
        questions are answered one after the other from the keyboard; else the pages, to
        see what the answer did."""
        focus = QApplication.focusWidget()
        if focus is not None and self._page.decision_panel.isAncestorOf(focus):
            return
        self._page.pages_widget().setFocus(Qt.FocusReason.OtherFocusReason)
