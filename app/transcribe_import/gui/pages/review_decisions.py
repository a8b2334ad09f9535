"""The review page's decision panel: what the selected notebook needs decided, with the buttons.

One entry per order ambiguity, per notebook conflict or placement problem, and per file
that cannot be used, each with the buttons that settle it the engine's way. A button
asks the page (``resolve_requested``, ``leave_out_requested``), which makes the edit.
A folder imported before is told here too: already imported (nothing to decide, said
so), or partly, with the one action that completes the notebook holding the rest. So is a
page that looks like another (a rescan?), with its three answers: Replace, Keep Both and
Leave Out; their buttons give the page as ``order`` names it (the problem's ``files``). A
new notebook's page like one of an existing notebook is offered Import into “X” instead
first (the problem's ``notebook_id``), after which Replace is offered. The questions come
last, after what stops the commit, under a heading per notebook whose pages they look like
(this one, another of the import, one of the corpus), with Keep Both for All beside a
heading of several, and above the groups when there are several (or more wait); a question
answered keeps its row, marked, until the pointer leaves the panel, so the next one never
moves under the pointer.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QEvent, Qt, Signal, Slot
from PySide6.QtGui import QAction, QResizeEvent
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from transcribe_import.engine import api
from transcribe_import.engine.planning.plan import ImportPlan, PlanItem
from transcribe_import.engine.planning.problems import (
    PlanProblem,
    ProblemCode,
    Resolution,
    ValidationReport,
    unusable_words,
)
from transcribe_import.gui.models.order_cues import ambiguities_of
from transcribe_import.gui.pages.review_parts import ActionButton, WrappingLabel
from transcribe_import.gui.wording import (
    alike_apart_gone_words,
    alike_group_words,
    alike_within_words,
    answered_words,
    complete_words,
    import_into_words,
    keep_both_for_all_words,
    kept_both_for_all_words,
    more_alike_words,
    resolution_words,
)

# Problems of where an into item's pages go: shown with their buttons in the decision panel.
PLACEMENT_CODES = frozenset(
    {
        ProblemCode.PLACEMENT_OUT_OF_RANGE,
        ProblemCode.PLACEMENT_PAGE_NOT_FOUND,
        ProblemCode.REPLACED_PAGE_NOT_FOUND,
        ProblemCode.PAGE_REPLACED_TWICE,
        ProblemCode.PLACEMENT_ON_NEW_NOTEBOOK,
        ProblemCode.REPLACEMENT_LEFT_OUT,
    }
)
# A folder imported before (engine planning/reimport.py): told in the panel, with its action.
RECOGNISED_CODES = frozenset(
    {ProblemCode.ALREADY_IMPORTED, ProblemCode.PARTLY_IMPORTED, ProblemCode.COMPLETES}
)
# The "a rescan?" questions asked at once: a notebook of near-blank pages can raise one a
# page, and a panel of a thousand rows would bury the pages under it (and take the window's
# thread seconds to build). The next ones show as these are answered.
ALIKE_SHOWN = 5
# The least height of the entries' band (about two lines): the person may drag the review's
# splitter down to it, never further; beyond the entries' own height it does not grow.
LEAST = 48
# The key of the None Are Rescans row among the answered questions' (no page is named so).
_APART = "#none-are-rescans"
# The key of the Keep Both for All row of every open question (above the groups).
_ALL = "#keep-both-for-all"


class _Asked:
    """The rescan questions one notebook's panel shows, in the order shown, and those
    answered since: widget state, kept while the notebook is shown."""

    def __init__(self, item_id: str | None) -> None:
        self.item_id = item_id
        self.order: list[str] = []  # the questions' pages (``files[0]``), as shown
        self.problems: dict[str, PlanProblem] = {}  # each one's question, as last asked
        # The questions answered, with the answer given here (None: by another edit).
        self.answered: dict[str, Resolution | None] = {}
        self.waiting = 0  # questions not shown yet ("N more")
        self.within = 0  # questions None Are Rescans answers
        self.apart: bool | None = None  # its row: None not shown, True asked, False answered
        self.apart_words = ""  # its words when last asked
        self.last: Resolution | None = None  # the last answer given here
        self.live: dict[str, PlanProblem] = {}  # the questions open now, shown or waiting
        # The Keep Both for All buttons pressed (a group's heading, or ``_ALL``): their rows
        # say so, as tall as the button was, until the pointer leaves.
        self.all_answered: set[str] = set()


@dataclass(frozen=True)
class _Question:
    """One row of the rescan questions: its page, its question, whether it is answered."""

    key: str
    problem: PlanProblem
    answered: bool
    how: Resolution | None


class DecisionPanel(QGroupBox):
    """The decisions the selected notebook needs; hidden when it needs none."""

    resolve_requested = Signal(str, tuple)  # a Resolution, the source ids the problem names
    leave_out_requested = Signal(str, bool)  # a file's rel; True: take it back
    fitted = Signal()  # the entries' height changed: the page sizes its splitter to it

    def __init__(
        self,
        exclude_action: QAction,
        parent: QWidget | None = None,
        *,
        completion: Callable[[PlanItem], str | None] = lambda _item: None,
    ) -> None:
        """``completion``: the notebook an item can complete (api.completion_target), for the
        words of its Complete button."""
        super().__init__(parent)
        self._completion = completion
        self.setTitle(self.tr("Needs a decision"))
        self.setAccessibleName(self.tr("Decisions this notebook needs"))
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(9, 2, 9, 6)
        # The entries scroll in a band as tall as the review's splitter gives it (the page
        # chooses; the person drags), never taller than they are, never below ``LEAST``.
        self._scroll = QScrollArea()
        self._scroll.setWidgetResizable(True)
        self._scroll.setFrameShape(QFrame.Shape.NoFrame)
        self._scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._layout.addWidget(self._scroll)
        # The Exclude resolution follows the page selection, as the Exclude command does.
        self._exclude_action = exclude_action
        self._box: QWidget | None = None
        self._asked = _Asked(None)
        self._last: tuple[Any, ...] | None = None  # rebuild's arguments, to compact with

    def buttons(self) -> list[QPushButton]:
        """The buttons it shows now (resolutions, Leave out, ...)."""
        return [] if self._box is None else self._box.findChildren(QPushButton)

    def rebuild(
        self,
        item: PlanItem | None,
        report: ValidationReport | None,
        before: QWidget,
        after: QWidget,
        plan: ImportPlan | None = None,
    ) -> None:
        """One entry per ambiguity and per unusable file, each with the buttons that settle it.

        The Tab order runs ``before`` (the notebooks), these buttons, ``after`` (the pages),
        which takes the focus when the panel had it and goes. ``plan``: the plan under
        review, whose notebooks name the groups of the rescan questions.
        """
        self._last = (item, report, before, after, plan)
        old = self._box
        focus = QApplication.focusWidget()
        had_focus = old is not None and focus is not None and old.isAncestorOf(focus)
        focused_row = focus.property("row") if had_focus and focus is not None else None
        focused_question = focus.property("question") if had_focus and focus is not None else None
        scrolled = self._scroll.verticalScrollBar().value()
        same_item = item is not None and item.item_id == self._asked.item_id
        if not same_item:
            self._asked = _Asked(item.item_id if item is not None else None)
        if old is not None:
            # Later, not now: this may run inside the click of one of its own buttons (and
            # taken out first: a scroll area deletes the widget it holds when given another).
            self._scroll.takeWidget()
            old.hide()
            old.deleteLater()
        self._box = None
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        ambiguities = ambiguities_of(item, report) if item is not None else []
        wants_sequence = False
        for amb in ambiguities:
            buttons = []
            for resolution in amb.resolutions:
                if resolution == Resolution.SEQUENCE:
                    wants_sequence = True
                    continue
                buttons.append(self._resolution_button(resolution))
            layout.addLayout(self._row(amb.message, buttons))
        if wants_sequence:
            hint = WrappingLabel(
                self.tr(
                    "Or put the pages in order yourself: drag them, or select pages and use "
                    "Move up and Move down (Ctrl+Up, Ctrl+Down)."
                )
            )
            layout.addWidget(hint)
        problems = report.for_item(item.item_id) if report and item is not None else []
        conflicts = [
            p for p in problems if p.resolutions and p.code is ProblemCode.NOTEBOOK_CONFLICT
        ]
        placed = [p for p in problems if p.code in PLACEMENT_CODES]
        recognised = [p for p in problems if p.code in RECOGNISED_CODES]
        alike = self._questions(item, report, problems)
        for problem in [*recognised, *conflicts, *placed]:
            buttons = [self._resolution_button(r, problem.source_ids) for r in problem.resolutions]
            target = self._completion(item) if item is not None and recognised else None
            for button in buttons:
                if button.property("resolution") == Resolution.COMPLETE and target is not None:
                    button.setText(complete_words(target))
            layout.addLayout(self._row(problem.message, buttons))
        unusable = item.unusable if item is not None else []
        for entry in unusable:
            layout.addLayout(self._unusable_row(item, entry))
        # The rescan questions last, under their headings: what stops the commit comes
        # first, and no other entry sits under a question's heading as if it were one.
        self._add_questions(layout, item, plan, alike)
        answering = alike or self._asked.apart is not None
        if not (ambiguities or unusable or conflicts or placed or recognised or answering):
            self.hide()  # ``box`` has no parent: Python frees it
            if had_focus:
                after.setFocus(Qt.FocusReason.OtherFocusReason)
            return
        self._scroll.setWidget(box)
        self._box = box
        self._fit_height()
        if same_item:  # the answers' rows stay where they were: so does the scroll
            box.adjustSize()
            self._scroll.verticalScrollBar().setValue(scrolled)
        # A folder of a notebook's title that goes on with its page numbers holds none of
        # its files: "part of this folder" would be untrue of it.
        by_title = item is not None and api.completes_by_title(item)
        partly = any(
            p.code in (ProblemCode.PARTLY_IMPORTED, ProblemCode.COMPLETES) for p in recognised
        )
        asking = [row for row in alike if not row.answered]  # an answered row decides nothing
        kinds = (ambiguities, recognised, asking, conflicts, placed, unusable)
        self.setTitle(self._title(partly and not by_title, by_title, *kinds))
        self.show()
        # Keep the Tab order visual: notebooks, this panel's buttons, then the pages.
        previous = before
        for button in box.findChildren(QPushButton):
            QWidget.setTabOrder(previous, button)
            previous = button
        QWidget.setTabOrder(previous, after)
        if had_focus:
            # On to the next question: the first button at or after the row answered (the
            # answered row keeps its place, without its buttons).
            buttons = [b for b in box.findChildren(QPushButton) if b.isEnabled()]
            same = [
                b
                for b in buttons
                if focused_question and b.property("question") == focused_question
            ]
            at = focused_row if isinstance(focused_row, int) else 0
            later = same or [b for b in buttons if (b.property("row") or 0) >= at]
            goes_to: QWidget = after
            if buttons:
                goes_to = (later or buttons)[0]
            goes_to.setFocus(Qt.FocusReason.OtherFocusReason)

    def _questions(
        self,
        item: PlanItem | None,
        report: ValidationReport | None,
        problems: Sequence[PlanProblem],
    ) -> list[_Question]:
        """The rows of the rescan questions, each where it was: a question answered keeps
        its row (marked answered) until the pointer leaves the panel or another notebook is
        shown, so the next question never moves under the pointer; a new one goes below."""
        asked = self._asked
        if item is None:
            return []
        if report is None:
            # Validating after an edit: the questions as they were, the one answered marked.
            live = {k: p for k, p in asked.live.items() if k not in asked.answered}
        else:
            live = {p.files[0]: p for p in problems if p.code is ProblemCode.LOOKS_LIKE}
            for key in live:
                asked.answered.pop(key, None)  # asked again (undone, or the next page alike)
            # A question gone without its own answer: None Are Rescans answered it, when that
            # was the last answer given here; else another edit did (an undo, Leave Out…).
            apart = asked.last if asked.last is Resolution.NONE_ARE_RESCANS else None
            for key in asked.order:
                if key not in live:
                    asked.answered.setdefault(key, apart)
            asked.problems.update(live)
            asked.live = live
            shown = sum(1 for key in asked.order if key in live)
            for key in live:
                if key not in asked.order and shown < ALIKE_SHOWN:
                    asked.order.append(key)
                    shown += 1
            asked.waiting = len(live) - shown
            # Pages alike within this import are answered for all at once (None Are
            # Rescans): asked first, above the questions, where a flood would bury it.
            asked.within = sum(Resolution.NONE_ARE_RESCANS in p.resolutions for p in live.values())
            if asked.within > 1:  # for one, Keep Both says the same
                asked.apart = True
            elif asked.apart:
                asked.apart = False  # answered: its row stays, marked, like the questions'
        return [
            _Question(key, asked.problems[key], key not in live, asked.answered.get(key))
            for key in asked.order
        ]

    def _add_questions(
        self,
        layout: QVBoxLayout,
        item: PlanItem | None,
        plan: ImportPlan | None,
        rows: Sequence[_Question],
    ) -> None:
        """The rescan questions, under a heading per notebook their pages look like."""
        asked = self._asked
        if item is None or not (rows or asked.apart is not None):
            return
        if asked.apart is not None:
            if asked.apart:
                asked.apart_words = alike_within_words(asked.within)
                button = self._resolution_button(Resolution.NONE_ARE_RESCANS)
                button.setProperty("question", _APART)
                layout.addLayout(self._row(asked.apart_words, [button]))
            else:
                # Said as it was asked; answered by its button, or no longer asked since the
                # questions it answered were answered one by one.
                how = asked.answered.get(_APART)
                words = answered_words(how) if how is not None else alike_apart_gone_words()
                layout.addLayout(self._answered_row(asked.apart_words, words))
        groups: dict[str, list[_Question]] = {}
        for row in rows:
            groups.setdefault(self._group_words(row.problem, item, plan), []).append(row)
        if len(groups) > 1 or asked.waiting:
            # Every open question, shown or waiting ("N more"), answered Keep Both at once.
            names = [k for k, p in asked.live.items() if Resolution.KEEP_BOTH in p.resolutions]
            names = [k for k in names if k not in asked.answered]
            layout.addLayout(self._keep_all_row(_ALL, None, names))
        heading = None
        for n, row in enumerate(rows, 1):
            group = self._group_words(row.problem, item, plan)
            if group != heading:
                heading = group
                label = WrappingLabel(f"<b>{html.escape(group)}</b>")
                label.setTextFormat(Qt.TextFormat.RichText)
                label.setProperty("group", group)
                if len(groups[group]) < 2:  # for one, its own Keep Both says the same
                    layout.addWidget(label)
                else:
                    names = [
                        r.key
                        for r in groups[group]
                        if not r.answered and Resolution.KEEP_BOTH in r.problem.resolutions
                    ]
                    layout.addLayout(self._keep_all_row(group, label, names))
            if row.answered:
                layout.addLayout(self._answered_row(row.problem.message, answered_words(row.how)))
                continue
            buttons = [
                self._answer_button(r, row.problem)
                for r in row.problem.resolutions
                if r is not Resolution.NONE_ARE_RESCANS
            ]
            for button in buttons:
                button.setProperty("row", n)
                button.setProperty("question", row.key)
            layout.addLayout(self._row(row.problem.message, buttons))
        if asked.waiting:
            layout.addWidget(WrappingLabel(more_alike_words(asked.waiting)))

    def _keep_all_row(self, key: str, heading: QLabel | None, names: list[str]) -> QHBoxLayout:
        """A group's heading (``heading``; None: every open question) with Keep Both for All
        beside it while a question of it is open, then the answer's words in its place, as
        tall as the button (so that nothing below moves under the pointer)."""
        row = QHBoxLayout()
        if heading is not None:
            row.addWidget(heading, 1)
        # One width whatever it says, so that the heading beside it keeps its lines.
        width = QPushButton(keep_both_for_all_words(88, heading is None)).sizeHint().width()
        if names:
            words = keep_both_for_all_words(len(names), heading is None)
            button = QPushButton(words)
            button.setProperty("resolution", Resolution.KEEP_BOTH)
            button.setProperty("source_ids", names)
            button.setProperty("question", key)
            button.setAccessibleName(
                words if heading is None else f"{words}: {heading.property('group')}"
            )
            button.clicked.connect(self._resolution_clicked)
            button.setFixedWidth(width)
            row.addWidget(button)
        else:
            said = QLabel(
                kept_both_for_all_words()
                if key in self._asked.all_answered
                else answered_words(None)
            )
            said.setProperty("answered", True)
            said.setToolTip(said.text())
            said.setFixedSize(width, QPushButton("Keep Both").sizeHint().height())
            row.addWidget(said)
        if heading is None:
            row.addStretch(1)
        return row

    @staticmethod
    def _group_words(problem: PlanProblem, item: PlanItem, plan: ImportPlan | None) -> str:
        """The heading of a question's group: the notebook holding the page it looks like."""
        if problem.notebook_id is not None:
            return alike_group_words(problem.notebook_id, None)
        other = problem.files[1] if len(problem.files) > 1 else ""
        rel = other.rpartition("#")[0] if "#" in other else other
        holders = [item, *(plan.items if plan is not None else ())]
        for holder in holders:
            if any(s.provenance.rel in (other, rel) for s in holder.sources):
                label = None if holder.item_id == item.item_id else holder.label
                return alike_group_words(None, label)
        return alike_group_words(None, None)

    def _answered_row(self, text: str, answered: str) -> QVBoxLayout:
        """A question answered, in its place: its words greyed, and the answer where its
        buttons were, as tall as they were."""
        row = QVBoxLayout()
        label = WrappingLabel(text)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setEnabled(False)
        row.addWidget(label)
        # One line, as tall as the buttons were, that widens nothing (a long answer is cut
        # at a narrow width rather than push the panel's words onto fewer lines).
        said = QLabel(answered)
        said.setProperty("answered", True)
        said.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        said.setFixedHeight(QPushButton(answered).sizeHint().height())
        said.setToolTip(answered)
        row.addWidget(said)
        return row

    def leaveEvent(self, event: QEvent) -> None:
        """The pointer gone: the answered questions' rows go, and the others close up."""
        super().leaveEvent(event)
        self.compact()

    def compact(self) -> None:
        """Drop the rows of the questions answered (none under the pointer any more)."""
        asked = self._asked
        if not asked.answered and asked.apart is not False and not asked.all_answered:
            return
        asked.order = [key for key in asked.order if key not in asked.answered]
        asked.answered = {}
        asked.all_answered = set()
        if asked.apart is False:
            asked.apart = None
        if self._last is not None:
            self.rebuild(*self._last)

    def _title(self, partly: bool, by_title: bool, *kinds: Sequence[object]) -> str:
        """What the entries are about, when they are of one kind; else that decisions are
        asked (a rescan question is no "file that cannot be imported")."""
        ambiguities, recognised, alike, conflicts, placed, _unusable = kinds
        if sum(1 for kind in kinds if kind) > 1:
            return self.tr("This notebook needs decisions")
        if not any(kinds):  # only answered questions, kept in place until the pointer goes
            return self.tr("Rescan questions answered")
        if ambiguities:
            return self.tr("The page order needs a decision")
        if recognised and by_title:
            return self.tr("This folder goes on with a notebook in the corpus")
        if recognised:
            return (
                self.tr("Part of this folder is in the corpus already")
                if partly
                else self.tr("This folder is in the corpus already")
            )
        if alike:
            return self.tr("Pages that look like other pages: rescans?")
        if conflicts:
            return self.tr("This notebook is already in the corpus, different")
        if placed:
            return self.tr("Where the pages go needs a decision")
        return self.tr("Files that cannot be imported")

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_height()  # a new width wraps the words onto more or fewer lines

    def _fit_height(self) -> None:
        """At most as tall as the entries, at least ``LEAST`` (or the entries, if less);
        the review's splitter chooses in between, and beyond it they scroll."""
        box = self._box
        if box is None:
            return
        width = self._scroll.viewport().width() or self.width()
        layout = box.layout()
        needed = max(
            1,
            layout.heightForWidth(width)
            if layout is not None and layout.hasHeightForWidth()
            else box.sizeHint().height(),
        )
        least = min(needed, LEAST)
        if (self._scroll.minimumHeight(), self._scroll.maximumHeight()) == (least, needed):
            return
        self._scroll.setMinimumHeight(least)
        self._scroll.setMaximumHeight(needed)
        # The title and the margins around the band: the panel is never taller than both.
        chrome = self._layout.totalMinimumSize().height() - least
        self.setMaximumHeight(needed + chrome)
        self.fitted.emit()

    def _unusable_row(self, item: PlanItem | None, entry: dict[str, Any]) -> QVBoxLayout:
        """A file that cannot be used: why, and Leave out (or Take back once left out)."""
        rel = str(entry.get("rel", ""))
        left_out = item is not None and rel in item.acknowledged
        name = rel.rsplit("/", 1)[-1]
        button = QPushButton(self.tr("Take Back") if left_out else self.tr("Leave Out"))
        button.setProperty("rel", rel)
        button.setProperty("take_back", left_out)
        spoken = self.tr("Take back {name}") if left_out else self.tr("Leave out {name}")
        button.setAccessibleName(spoken.format(name=name))
        button.clicked.connect(self._leave_out_clicked)
        if left_out:
            text = self.tr("<b>{name}</b> cannot be used and is left out.").format(
                name=html.escape(name)
            )
        else:
            text = html.escape(unusable_words(entry))  # the scan's words: which file, what is wrong
        return self._row(text, [button], rich=True)

    def _answer_button(self, resolution: Resolution, problem: PlanProblem) -> QPushButton:
        """An answer to "a rescan?": it gives the page as ``order`` names it (the problem's
        ``files``); Import into “X” instead gives the notebook it names."""
        if resolution is Resolution.IMPORT_INTO and problem.notebook_id is not None:
            button = self._resolution_button(resolution, (problem.notebook_id,))
            button.setText(import_into_words(problem.notebook_id))
            button.setAccessibleName(f"{button.text()}: {problem.files[0]}")
            return button
        button = self._resolution_button(resolution, problem.files[:1])
        button.setAccessibleName(f"{resolution_words(resolution)}: {problem.files[0]}")
        return button

    def _resolution_button(self, resolution: str, source_ids: tuple[str, ...] = ()) -> QPushButton:
        if resolution == Resolution.EXCLUDE:
            button: QPushButton = ActionButton(self._exclude_action, resolution_words(resolution))
            return button
        button = QPushButton(resolution_words(resolution))
        button.setProperty("resolution", resolution)
        button.setProperty("source_ids", list(source_ids))
        button.clicked.connect(self._resolution_clicked)
        return button

    @staticmethod
    def _row(text: str, buttons: list[QPushButton], rich: bool = False) -> QVBoxLayout:
        row = QVBoxLayout()
        label = WrappingLabel(text)
        label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
        row.addWidget(label)
        line = QHBoxLayout()
        for button in buttons:
            line.addWidget(button)
        line.addStretch(1)
        row.addLayout(line)
        return row

    @Slot()
    def _resolution_clicked(self) -> None:
        button = self.sender()
        if isinstance(button, QPushButton):
            question = button.property("question")
            ids = button.property("source_ids") or ()
            how = Resolution(button.property("resolution"))
            if question == _ALL or (question and len(ids) > 1):
                # Keep Both for All: each question it answers keeps its row, marked.
                self._asked.all_answered.add(str(question))
                for name in ids:
                    self._asked.answered[str(name)] = how
                self._asked.last = how
            elif question:  # its row stays, marked with this answer (``_questions``)
                self._asked.answered[str(question)] = self._asked.last = how
            self.resolve_requested.emit(str(button.property("resolution")), tuple(ids))

    @Slot()
    def _leave_out_clicked(self) -> None:
        button = self.sender()
        if isinstance(button, QPushButton):
            self.leave_out_requested.emit(
                str(button.property("rel")), bool(button.property("take_back"))
            )
