"""The window's import session: the plan under review, its validation, and undoable edits.

A thin Qt adapter over engine values: the plan is an immutable ``ImportPlan``; every
edit is an engine function (ordering.*, edits.*) applied to one item and pushed on a
``QUndoStack`` as the pair (item before, item after), so undo and redo swap frozen
items and never re-run import logic. Views listen to the signals; they never hold
plan state of their own.

The JPEG and PDF pages' looks (for finding rescans) arrive after the plan, from the look
pass (gui/look_pass.py): ``add_looks`` puts the items it stamped them on in the plan, and
every item an edit or an undo puts back gets them too, so no step of the undo stack takes a
look away. While the
pass runs (``looking``) the plan cannot be committed: its rescans are not all asked yet.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from transcribe_import.engine import api
from transcribe_import.engine.api import Corpus, PlanItemState
from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.planning.plan import ImportPlan, PlanItem
from transcribe_import.engine.planning.problems import ValidationReport
from transcribe_import.gui.workers import StepPace, keep_from_the_collector


class _ItemEdit(QUndoCommand):
    def __init__(self, session: ImportSession, before: PlanItem, after: PlanItem, text: str):
        super().__init__(text)
        self._session = session
        self._before = before
        self._after = after

    def redo(self) -> None:
        self._session._replace_item(self._after)

    def undo(self) -> None:
        self._session._replace_item(self._before)


class ImportSession(QObject):
    """Holds the plan being reviewed; every change goes through ``edit_item``."""

    # A new plan (or none): rebuild everything. ``validation_changed`` always follows it
    # (the report is gone): the review builds its decision panel then, once.
    plan_changed = Signal()
    item_changed = Signal(str)  # item_id: one item was edited (or undone)
    validation_changed = Signal()  # ``report`` was recomputed
    # The look pass moved on (``look_progress``); True: looks were stamped on the plan.
    looks_changed = Signal(bool)

    def __init__(self, corpus: Corpus, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.corpus = corpus
        self.plan: ImportPlan | None = None
        self.report: ValidationReport | None = None
        self.undo_stack = QUndoStack(self)
        # The pages worth a second look told (badges, Problems): the settings' choice.
        self.hints: frozenset[api.Hint] = api.ALL_HINTS
        # The pages of the notebooks the plan imports into, read when first asked (one
        # project.json each) and again after each validation: the notebook may change.
        self._notebook_pages: dict[str, list[api.NotebookPage]] = {}
        # The looks the pass found for this plan (page key → look, None: it has none).
        self.looks: dict[str, str | None] = {}
        self.looking = False  # the look pass of this plan has not ended
        self.look_progress: tuple[int, int] = (0, 0)  # pages looked at, of how many
        # The seconds the look pass has left at its pace so far (None: not known yet).
        self.look_seconds_left: float | None = None
        self._look_pace = StepPace()
        # Every item's badge under a report, made with it (``report_state``).
        self._report_states: tuple[ValidationReport | None, Mapping[str, PlanItemState]] = (
            None,
            {},
        )
        # The items an edit or an undo put back since the plan was set: the look pass did
        # not stamp these, so ``add_looks`` stamps them itself.
        self._edited: set[str] = set()

    def set_plan(self, plan: ImportPlan | None) -> None:
        self.plan = plan
        self.report = None
        self._report_states = (None, {})  # the last report not kept alive by its badges
        self.looks = {}
        self.looking = False  # until a look pass begins (gui/look_pass.py, on plan_changed)
        self.look_progress = (0, 0)
        self.look_seconds_left = None
        self._look_pace.restart()
        self._edited = set()
        self._notebook_pages.clear()
        self.undo_stack.clear()
        if plan is not None:
            keep_from_the_collector()
        self.plan_changed.emit()
        self.validation_changed.emit()

    def set_hints(self, hints: frozenset[api.Hint]) -> None:
        """Tell only these pages worth a second look (the settings' choice): the pages'
        badges follow at once; the report's lines with the next validation."""
        if hints == self.hints:
            return
        self.hints = hints
        self.validation_changed.emit()

    def item(self, item_id: str) -> PlanItem:
        assert self.plan is not None
        return self.plan.item(item_id)

    def edit_item(self, item_id: str, change: Callable[[PlanItem], PlanItem], text: str) -> bool:
        """Apply an engine edit to one item as an undoable step.

        ``change`` raises ValueError when the edit is refused (the message is for a
        person); an edit that changes nothing is not recorded. Returns whether it applied.
        """
        before = self.item(item_id)
        after = change(before)
        if after == before:
            return False
        self.undo_stack.push(_ItemEdit(self, before, after, text))
        return True

    def edit_plan(self, change: Callable[[ImportPlan], ImportPlan], text: str) -> bool:
        """Apply an engine edit of the whole plan as one undoable step (one per item it
        changes, in one macro); whether it changed anything."""
        assert self.plan is not None
        before = self.plan
        changed = [
            new for new, old in zip(change(before).items, before.items, strict=True) if new != old
        ]
        if not changed:
            return False
        self.undo_stack.beginMacro(text)
        for new in changed:
            self.undo_stack.push(_ItemEdit(self, before.item(new.item_id), new, text))
        self.undo_stack.endMacro()
        return True

    def begin_looks(self) -> None:
        """A look pass of the plan begins: no commit until it has ended."""
        self.looking = True
        self.look_seconds_left = None
        self._look_pace.restart()
        self.looks_changed.emit(False)

    def add_looks(
        self,
        looks: Mapping[str, str | None],
        items: Mapping[str, tuple[PlanItem, PlanItem]],
        *,
        done: int,
        total: int,
        finished: bool,
    ) -> None:
        """The look pass found ``looks`` and has looked at ``done`` pages of ``total``
        (``finished``: all). Stamped on the plan: ``items`` are the plan's items the pass
        stamped them on (item id → (before, after), ``api.look_stamps``), each put in the
        plan where it still holds ``before``; an item edited since is stamped here. Once
        the pass has ended the report is of the past (the next validation asks the
        rescans)."""
        self.looks.update(looks)
        self.look_progress = (done, total)
        self.looking = not finished
        self.look_seconds_left = None if finished else self._look_pace.seconds_left(done, total)
        stamped = False
        if self.plan is not None and looks:
            plan = self._stamped(self.plan, looks, items)
            stamped = plan is not self.plan
            self.plan = plan
        if finished and stamped:
            self.report = None
            self._report_states = (None, {})
        self.looks_changed.emit(stamped)
        if finished and stamped:
            self.validation_changed.emit()

    def _stamped(
        self,
        plan: ImportPlan,
        looks: Mapping[str, str | None],
        items: Mapping[str, tuple[PlanItem, PlanItem]],
    ) -> ImportPlan:
        """``plan`` with ``looks``: the pass's items where ``plan`` holds the item they were
        stamped from; any other item they name, or one edited since the plan was set,
        stamped here (an item at a time: never a walk of every page of the plan)."""
        out = []
        changed = False
        for item in plan.items:
            pair = items.get(item.item_id)
            if pair is not None and item is pair[0]:
                new = pair[1]
            elif pair is not None or item.item_id in self._edited:
                new = api.item_with_looks(item, looks)
            else:
                new = item
            changed = changed or new is not item
            out.append(new)
        return replace(plan, items=tuple(out)) if changed else plan

    def end_looks(self) -> None:
        """The look pass could not go on: the plan's pages without a look are not compared."""
        self.looking = False
        self.looks_changed.emit(False)

    def _replace_item(self, item: PlanItem) -> None:
        assert self.plan is not None
        item = api.item_with_looks(item, self.looks)  # an undo never takes a look away
        self._edited.add(item.item_id)
        self.plan = self.plan.with_item(item)
        self.report = None  # stale until validated again
        self._report_states = (None, {})
        self.item_changed.emit(item.item_id)
        self.validation_changed.emit()

    def validate_now(self) -> ValidationReport:
        """Validate on the calling thread (small plans, tests); the window uses a worker."""
        assert self.plan is not None
        self.set_report(api.validate_plan(self.corpus, self.plan, hints=self.hints))
        assert self.report is not None
        return self.report

    def set_report(
        self, report: ValidationReport, states: Mapping[str, PlanItemState] | None = None
    ) -> None:
        """Accept a validation result only if it is about the plan as it is now; ``states``:
        every item's badge under it (``api.item_states``), when made where it was."""
        if self.plan is not None and report.plan_fingerprint == self.plan.fingerprint:
            self.report = report
            self._report_states = (report, states or {})
            self._notebook_pages.clear()
            self.validation_changed.emit()

    def report_state(self, item_id: str) -> PlanItemState | None:
        """The item's badge under the report as made with it (None: not made with it).

        Kept with the report it is of, so it is never read under another: an edit, a new
        plan or the looks stamped set ``report`` anew, and with it what this answers.
        """
        report, states = self._report_states
        if report is None or report is not self.report:
            return None
        return states.get(item_id)

    def notebook_pages(self, notebook_id: str) -> list[api.NotebookPage]:
        """The pages of a notebook of the corpus, as the engine lists them ([]: unreadable,
        which validation reports)."""
        if notebook_id not in self._notebook_pages:
            try:
                self._notebook_pages[notebook_id] = api.notebook_pages(self.corpus, notebook_id)
            except TranscribeError:
                return []
        return self._notebook_pages[notebook_id]
