"""The commit step: a worker drives execute_run while a live table shows every item's outcome.

The executor reports from its own threads; the worker queues the events and the page
takes them in time-budgeted batches (about 50 ms of work per turn of the event loop,
as Picard applies results), so a burst of outcomes never freezes the window. Pause and
Stop only ask the engine (RunControl); what the run ended as is the engine's word. *Stop and
Undo This Import* asks, once the run has ended, for its undo (``undo_requested``): the
window opens the undo's preview, and nothing is taken out before the person confirms it.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Iterable
from dataclasses import replace

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QVBoxLayout,
    QWidget,
)

from transcribe_import.engine.api import AttemptPace, Corpus, PaceStart, can_retry
from transcribe_import.engine.media.kinds import RenderSettings
from transcribe_import.engine.planning.plan import ImportPlan, Op
from transcribe_import.engine.planning.problems import ValidationReport
from transcribe_import.engine.runs.model import EventKind, ItemState, RunEvent, RunResult
from transcribe_import.gui.icons import SP
from transcribe_import.gui.models.outcomes import OutcomeColumn, OutcomeTableModel
from transcribe_import.gui.pages.base import WorkerPage
from transcribe_import.gui.stopping import ask_stop
from transcribe_import.gui.values import CommitStart, OutcomeRow, PageTally, RunSummary
from transcribe_import.gui.widgets import (
    headline_label,
    outcome_view,
    push_button,
    run_buttons,
    selectable_text,
)
from transcribe_import.gui.wording import (
    StopChoice,
    commit_buttons,
    counts_sentence,
    elapsed_words,
    format_duration,
    nothing_to_undo_words,
    plural,
    progress_words,
    run_state_explanation,
    run_state_words,
    stopping_words,
    undo_not_possible_words,
    waiting_for_answer_words,
    waiting_for_corpus_words,
)
from transcribe_import.gui.workers import CommitWorker

# How long one turn of the event loop may spend applying outcomes before it lets the
# window paint and take input again.
BATCH_BUDGET_S = 0.05


def page_tally(rows: Iterable[OutcomeRow]) -> PageTally:
    """What became of a run's pages so far, from its items' outcomes (as they land)."""
    total = landed = skipped = failed = cancelled = 0
    for row in rows:
        o = row.outcome
        total += row.pages_planned
        # This run's pages (a committed item's page_count: pages_landed equals it then); a
        # retry's item finds pages an earlier run landed in the corpus already.
        landed += o.page_count if o.state is ItemState.COMMITTED else o.pages_landed
        here = o.pages_landed + o.pages_already_in
        if o.state is ItemState.COMMITTED:
            skipped += max(0, row.pages_planned - o.page_count)  # duplicates, earlier runs'
        elif o.state is ItemState.SKIPPED:
            skipped += row.pages_planned
        else:
            skipped += o.pages_already_in
        if o.state is ItemState.FAILED:
            failed += max(0, row.pages_planned - here)
        elif o.state is ItemState.CANCELLED_PENDING:
            cancelled += max(0, row.pages_planned - here)
    return PageTally(total, landed, skipped, failed, cancelled)


def with_pages_in(rows: Iterable[OutcomeRow], start: PaceStart) -> list[OutcomeRow]:
    """``rows`` with each unfinished item's pages that an earlier run landed counted as in
    already, from the first moment: the engine's outcome says so only once the item starts."""
    seeded = []
    for row in rows:
        o = row.outcome
        earlier = start.in_corpus.get(row.item_id, 0) - o.pages_landed
        if earlier > o.pages_already_in and not o.state.final:
            row = replace(row, outcome=replace(o, pages_already_in=earlier))
        seeded.append(row)
    return seeded


def unfinished_rows(rows: Iterable[OutcomeRow], start: PaceStart) -> tuple[OutcomeRow, ...]:
    """A retry's rows without the items whose pages an earlier run landed all already."""
    return tuple(
        row
        for row in rows
        if not (row.pages_planned and start.in_corpus.get(row.item_id, 0) >= row.pages_planned)
    )


class CommitPage(WorkerPage[CommitWorker]):
    """Commit or resume one run, show its items' outcomes live, and end in the engine's words."""

    run_finished = Signal(object)  # RunResult, or None when the run stopped on an error
    plan_invalid = Signal(object)  # ValidationReport: back to review
    scan_again_requested = Signal(str)  # run id: a new review of its folders
    show_run_requested = Signal(str)  # run id
    new_import_requested = Signal()
    open_corpus_requested = Signal()
    resume_requested = Signal(str)  # run id; resuming needs the window's settings
    retry_requested = Signal(str)  # run id of an ended run whose plan is committed again
    progressed = Signal()  # outcomes were applied: counts may have moved
    # Stop and Undo This Import: the run has ended; its RunSummary, to open the undo's preview.
    undo_requested = Signal(object)

    def __init__(self, corpus: Corpus, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.corpus = corpus
        self.run_id: str | None = None
        self.result: RunResult | None = None
        self._backlog: collections.deque[RunEvent] = collections.deque()
        self._drain_scheduled = False
        # This attempt's own pages: its speed, time left and end line count only them.
        self._pace = AttemptPace(PaceStart(), 0.0)
        self._started_at = 0.0
        self._ended_at = 0.0
        self._stopping = ""
        self._asking = False  # the stop question is open: the run is held
        self._undo_after_stop = False  # Stop and Undo This Import was chosen
        self._undo_follows = False  # the run ended undoable: undo_requested comes next
        self._ended_run: RunSummary | None = None
        self._retrying = False
        self._retried: str | None = None  # the ended run a retry was asked of
        self._landed_before: set[str] = set()  # items in the corpus when the attempt began
        self.batches_applied = 0  # how many time-budgeted batches ran (the bench reads it)

        self.headline = headline_label(self.tr("Import status"))
        self.summary_label = selectable_text(QLabel())
        self.summary_label.setAccessibleName(self.tr("Import summary"))

        self.progress_bar = QProgressBar()
        self.progress_bar.setAccessibleName(self.tr("Pages imported"))
        self.progress_bar.setTextVisible(True)
        self.rate_label = QLabel()
        self.rate_label.setAccessibleName(self.tr("Import speed and time left"))

        self.model = OutcomeTableModel(parent=self)
        self.table = outcome_view(self.model, self.tr("Item outcomes"))
        # The list follows the notebook being imported until the person picks a row.
        self._working_on: str | None = None
        self._following = True
        self._moving_selection = False
        self.table.selectionModel().selectionChanged.connect(self._selection_moved)
        # The selected row's details in full: the column cuts a long one off at 1024 px.
        self.details_label = selectable_text(QLabel())
        self.details_label.setAccessibleName(self.tr("Details of the selected notebook"))

        w = commit_buttons()
        self.pause_button = push_button(w.pause, SP.SP_MediaPause, self.pause)
        self.cancel_button = push_button(w.cancel, SP.SP_MediaStop, self.ask_cancel)
        self.resume_button, self.retry_button = run_buttons(
            self._resume_clicked, self._retry_clicked
        )
        self.open_folder_button = push_button(
            w.open_folder, SP.SP_DirOpenIcon, self.open_corpus_requested
        )
        self.show_run_button = push_button(
            w.show_run, SP.SP_FileDialogDetailedView, self._show_run_clicked
        )
        self.new_import_button = push_button(
            w.new_import, SP.SP_FileDialogNewFolder, self.new_import_requested
        )
        # A retry refused because files changed: a new review of that run's folders.
        self.scan_again_button = push_button(w.scan_again, SP.SP_BrowserReload, self._scan_again)
        self.scan_again_button.hide()

        buttons = QHBoxLayout()
        for b in (self.pause_button, self.resume_button, self.retry_button, self.cancel_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        for b in (
            self.open_folder_button,
            self.show_run_button,
            self.scan_again_button,
            self.new_import_button,
        ):
            buttons.addWidget(b)

        layout = QVBoxLayout(self)
        layout.addWidget(self.headline)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.progress_bar)
        layout.addWidget(self.rate_label)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.details_label)
        # Takes the room the outcome list leaves when it is hidden (a refused retry); while
        # the list shows, its stretch takes it all.
        layout.addStretch(0)
        layout.addLayout(buttons)

        self._tick = QTimer(self, interval=1000)
        self._tick.timeout.connect(self._show_progress)
        self._set_buttons(running=False, finished=False)

    # -- starting --------------------------------------------------------------------------

    def commit_plan(self, plan: ImportPlan, *, settings: RenderSettings, workers: int) -> None:
        """Validate ``plan`` once more, create its ImportRun and execute it."""
        self._start(CommitWorker(self.corpus, plan=plan, settings=settings, workers=workers))
        n = len(plan.items)
        self.headline.setText(self.tr("Checking the plan once more…"))
        self.summary_label.setText(
            plural(n, self.tr("1 notebook to import."), self.tr("%Ln notebooks to import.", "", n))
            + " "
            + self.tr("The files are checked against the plan first.")
        )

    def resume(self, run_id: str, *, settings: RenderSettings, workers: int) -> None:
        """Resume an interrupted run with its frozen plan and ids."""
        self._start(CommitWorker(self.corpus, run_id=run_id, settings=settings, workers=workers))
        self.headline.setText(self.tr("Resuming the import…"))
        self.summary_label.setText(
            self.tr("Work left half-done by the interrupted attempt is finished or undone first.")
        )

    def retry(self, run_id: str, *, settings: RenderSettings, workers: int) -> None:
        """Commit an ended run's plan again: what landed is recognised, the rest imported."""
        self._start(CommitWorker(self.corpus, retry_of=run_id, settings=settings, workers=workers))
        self._retrying = True
        self._retried = run_id
        self.headline.setText(self.tr("Retrying what did not land…"))
        self.summary_label.setText(
            self.tr(
                "The same plan is checked against the files again; pages already in the corpus "
                "are recognised and not imported twice."
            )
        )

    def _start(self, worker: CommitWorker) -> None:
        assert self._worker is None, "one commit at a time"
        self.result = None
        self._retrying = False
        self._retried = None
        self.scan_again_button.hide()
        self._show_outcomes(True)
        self.run_id = worker.run_id
        self._stopping = ""
        self._undo_after_stop = False
        self._ended_run = None
        self._backlog.clear()
        self._working_on = None
        self._following = True
        self._moving_selection = True  # emptied by the page, not by the person
        self.model.set_rows([])
        self._moving_selection = False
        self._show_details()
        self.progress_bar.setRange(0, 0)  # busy until the run says how many pages
        self.rate_label.clear()
        worker.prepared.connect(self._prepared)
        worker.events_ready.connect(self._events_ready)
        worker.invalid.connect(self._invalid)
        worker.run_ended.connect(self._run_ended)
        worker.failed.connect(self._failed)
        self._set_buttons(running=True, finished=False)
        self._start_worker(worker)

    def _prepared(self, start: CommitStart) -> None:
        self.run_id = start.run_id
        if self._retrying:
            # Finish Import: the notebooks the earlier run finished are not this run's work
            # (their pages are all in): shown, they replay the whole run with "0 pages".
            start = replace(start, rows=unfinished_rows(start.rows, start.pace))
        self._moving_selection = True
        self.model.set_rows(with_pages_in(start.rows, start.pace))
        self._moving_selection = False
        # Items committed before this attempt, or whose notebook held pages of theirs when it
        # began (Finish Import: the notebook an earlier run created is not created again).
        self._landed_before = {
            r.item_id
            for r in start.rows
            if r.state is ItemState.COMMITTED or start.pace.in_corpus.get(r.item_id, 0)
        }
        self._started_at = time.monotonic()
        self._pace = AttemptPace(start.pace, self._started_at)
        if self._asking:  # Stop was pressed before the run's start reached the window
            self._pace.asked(self._started_at)
        self._ended_at = 0.0
        n = len(start.rows)
        self.headline.setText(
            plural(n, self.tr("Resuming 1 notebook"), self.tr("Resuming %Ln notebooks", "", n))
            if start.continued
            else plural(
                n, self.tr("Importing 1 notebook"), self.tr("Importing %Ln notebooks", "", n)
            )
        )
        self.summary_label.setText(
            self.tr(
                "Pages are committed a few at a time as they are ready: pausing or stopping "
                "keeps every page already in."
            )
        )
        self._tick.start()
        self._show_progress()

    # -- live outcomes ---------------------------------------------------------------------

    def _events_ready(self) -> None:
        if self._worker is not None:
            self._backlog.extend(self._worker.take_events())
        self._apply_backlog()

    def _apply_backlog(self) -> None:
        """Apply queued events for at most BATCH_BUDGET_S, then let the event loop run."""
        self._drain_scheduled = False
        deadline = time.perf_counter() + BATCH_BUDGET_S
        changed: dict[str, OutcomeRow] = {}
        while self._backlog and time.perf_counter() < deadline:
            self._apply(self._backlog.popleft(), changed)
        self.model.update_rows(list(changed.values()))
        self._show_details()
        self.batches_applied += 1
        self._show_progress()
        self._follow_the_work()
        if changed:
            self.progressed.emit()
        if self._backlog and not self._drain_scheduled:
            self._drain_scheduled = True
            QTimer.singleShot(0, self._apply_backlog)

    def _apply(self, event: RunEvent, changed: dict[str, OutcomeRow]) -> None:
        self._pace.observe(event)
        if event.kind is EventKind.WAITING_FOR_CORPUS:
            self.summary_label.setText(waiting_for_corpus_words())
        if event.item_id is None:
            return
        current = changed.get(event.item_id)
        if current is None:
            i = self.model.row_of(event.item_id)
            if i is None:
                return
            current = self.model.row(i)
        if event.kind is EventKind.ITEM_STARTED:
            changed[event.item_id] = replace(current, started=True)
            self._working_on = event.item_id
        elif event.kind is EventKind.PAGES_LANDED and event.outcome is not None:
            # A checkpoint of it landed: its row counts those pages, and it is still going.
            changed[event.item_id] = replace(
                current, outcome=event.outcome, started=True, pages_staged=0
            )
            self._working_on = event.item_id
        elif event.kind is EventKind.PAGES_STAGED and event.outcome is not None:
            # Pages of its checkpoint in flight were staged: they land with it.
            changed[event.item_id] = replace(
                current, outcome=event.outcome, started=True, pages_staged=event.pages_staged
            )
            self._working_on = event.item_id
        elif event.kind is EventKind.ITEM_FINISHED and event.outcome is not None:
            changed[event.item_id] = current.with_outcome(event.outcome)

    def tally(self) -> PageTally:
        """What became of the run's pages so far, as the rows show it."""
        return page_tally(self.model.rows())

    def _show_progress(self) -> None:
        if self._worker is not None and not self.model.rowCount():
            return  # still busy: the run has not said how many pages
        # Filled by the pages that landed (or were found in the corpus already): a run
        # whose pages failed never ends on a full bar, and its words say how many failed.
        tally = self.tally()
        self.progress_bar.setRange(0, max(tally.total, 1))
        self.progress_bar.setValue(tally.done if tally.total else 1)
        self.progress_bar.setFormat(progress_words(tally).replace("%", "%%"))
        if self._worker is None or self._stopping or self.result is not None or self._asking:
            return  # the end says how long it took instead; held, it has no time left
        now = time.monotonic()
        left = self._pace.seconds_left(now)
        if left is None:
            self.rate_label.setText(self.tr("Starting…"))
            return
        self.rate_label.setText(
            self.tr("{rate} pages/s · about {left} left").format(
                rate=f"{self._pace.rate(now):.1f}", left=format_duration(left)
            )
        )

    def _follow_the_work(self) -> None:
        """Keep the notebook being imported in view, selected, until the person picks a row."""
        row = None if self._working_on is None else self.model.row_of(self._working_on)
        if not self._following or row is None:
            return
        self._moving_selection = True
        try:
            self.table.selectRow(row)
            self.table.scrollTo(self.model.index(row, 0))
        finally:
            self._moving_selection = False

    def _selection_moved(self) -> None:
        if not self._moving_selection:
            self._following = False  # the person looks at a row of their own choosing
        self._show_details()

    def _show_details(self) -> None:
        """The selected row's details under the table, wrapped (none selected: none shown)."""
        rows = self.table.selectionModel().selectedRows()
        details = "" if not rows else self.model.index(rows[0].row(), OutcomeColumn.DETAILS).data()
        self.details_label.setText(details or "")
        self.details_label.setVisible(bool(details))

    def is_following(self) -> bool:
        """Whether the outcome list still follows the work (no row picked by hand)."""
        return self._following

    # -- pause and cancel ------------------------------------------------------------------

    def pause(self) -> None:
        """Stop at the next safe point; the run stays resumable."""
        if self._worker is None or self._stopping:
            return
        self._worker.pause()
        self._show_stopping(stopping_words(StopChoice.PAUSE))

    def ask_cancel(self) -> None:
        """Stop Import…: keep what landed, or undo the import once it has stopped."""
        self.ask_stop(closing=False)

    def ask_stop(self, *, closing: bool) -> StopChoice:
        """Ask how to stop the running import (Stop Import…, or closing the window) and do
        what the answer says; the answer (``CONTINUE``: nothing to stop, or kept importing).

        The run is held while the question is open: no notebook starts, and the one being
        imported waits after its next checkpoint, so the notebooks the question says are
        not imported are still not started when it is answered. From the commit view, an
        import that ends meanwhile closes the question; on closing it stays open, and the
        window acts on the answer (``MainWindow.closeEvent``).
        """
        worker = self._worker
        if worker is None or self._stopping:
            return StopChoice.CONTINUE
        worker.hold()
        self._pace.asked(time.monotonic())  # its time is not the import's
        self._asking = True  # the speed and the time left mean nothing while it waits
        self.rate_label.setText(waiting_for_answer_words())
        try:
            choice = ask_stop(self, closing=closing, ended=None if closing else self.run_finished)
            if choice is StopChoice.PAUSE:
                self.pause()
            elif choice is not StopChoice.CONTINUE:
                self.cancel(undo=choice is StopChoice.UNDO)
        finally:
            worker.release()  # after the stop was asked for: no notebook starts in between
            self._pace.answered(time.monotonic(), worker.landed_at)
            self._asking = False
        return choice

    def ended_run(self) -> RunSummary | None:
        """The run the last worker ended, as the end screen shows it."""
        return self._ended_run

    def cancel(self, *, undo: bool = False) -> None:
        """End the run without asking (the window asked already): what landed stays; with
        ``undo``, the undo's preview is asked for once the run has ended."""
        if self._worker is None:
            return
        self._worker.cancel()
        self._undo_after_stop = undo
        self._show_stopping(stopping_words(StopChoice.UNDO if undo else StopChoice.KEEP))

    def undo_follows(self) -> bool:
        """The run has ended and its undo's preview is asked for next (``undo_requested``)."""
        return self._undo_follows

    def _show_stopping(self, text: str) -> None:
        self._stopping = text
        self.headline.setText(self.tr("Stopping…"))
        self.rate_label.setText(text)
        self.pause_button.setEnabled(False)
        self.cancel_button.setEnabled(False)

    def stopping(self) -> bool:
        return bool(self._stopping)

    # -- the end ---------------------------------------------------------------------------

    def _flush(self) -> None:
        if self._worker is not None:
            self._backlog.extend(self._worker.take_events())
        changed: dict[str, OutcomeRow] = {}
        while self._backlog:
            self._apply(self._backlog.popleft(), changed)
        self.model.update_rows(list(changed.values()))

    def _finished_words(self) -> str | None:
        """Finish Import's end, when every notebook it shows is committed: each finished
        notebook, the pages this run landed and those an earlier run had (None otherwise)."""
        rows = self.model.rows()
        if not rows or any(r.state is not ItemState.COMMITTED for r in rows):
            return None
        landed = sum(r.outcome.page_count for r in rows)
        earlier = sum(r.outcome.pages_already_in for r in rows)
        names = ", ".join(f"“{r.label}”" for r in rows)
        said = plural(
            len(rows),
            self.tr("{names} is whole now:"),
            self.tr("{names} are whole now:", "", len(rows)),
        ).format(names=names)
        said += " " + plural(
            landed, self.tr("1 page landed"), self.tr("%Ln pages landed", "", landed)
        )
        if earlier:
            said += ", " + plural(
                earlier,
                self.tr("1 page was in from an earlier run"),
                self.tr("%Ln pages were in from an earlier run", "", earlier),
            )
        return said + "."

    def _run_ended(self, result: RunResult, run: RunSummary) -> None:
        self._ended_at = time.monotonic()
        self._flush()
        if self._worker is not None:  # a question still open kept nothing waiting since
            self._pace.answered(self._ended_at, self._worker.landed_at)
        self.result = result
        self._ended_run = run
        # The record is the truth: rows show what it says, not what events we saw.
        outcomes = result.record.outcomes()
        self.model.update_rows(
            [
                r.with_outcome(outcomes[r.item_id])
                for r in self.model.rows()
                if r.item_id in outcomes
            ]
        )
        whole_run = True
        if result.already_done:
            self.headline.setText(self.tr("Already imported"))
            summary = self.tr("This plan was imported before ({status}); nothing was done.").format(
                status=run_state_words(run).lower()
            )
        elif result.stopped_by is not None:
            self.headline.setText(self.tr("Stopped"))
            summary = self.tr(
                "The import stopped: {why} The pages already in stay; resume it here or "
                "from Runs once that is fixed, with the same ids."
            ).format(why=result.stopped_by)
        elif result.paused or result.superseded or not result.status.terminal:
            self.headline.setText(self.tr("Paused"))
            summary = self.tr(
                "The import stopped at a safe point. Resume it here or from Runs; it continues "
                "with the same ids."
            )
        elif self._retrying and (finished := self._finished_words()) is not None:
            # Finish Import: told of the notebooks it finished, not of the whole run again.
            self.headline.setText(self.tr("Finished"))
            summary, whole_run = finished, False
        else:
            self.headline.setText(run_state_words(run))
            summary = run_state_explanation(run)
        if whole_run:
            summary += " " + counts_sentence(run)  # the whole run's: a finish says its own
        for problem in result.verification_problems:
            summary += "\n" + problem
        self.summary_label.setText(summary)
        self.rate_label.setText(self._elapsed_sentence())
        self._show_progress()
        # Followed to the end: the first notebook that did not land is the one to look at.
        unfinished = [
            r.item_id
            for r in self.model.rows()
            if r.state in (ItemState.FAILED, ItemState.CANCELLED_PENDING)
        ]
        if unfinished:
            self._working_on = unfinished[0]
        self._follow_the_work()
        self._show_details()

    def current_run_id(self) -> str | None:
        """The run this page executes now (None before the engine has prepared it)."""
        return self.run_id if self.is_running() else None

    def notebooks_created(self) -> int:
        """New notebooks this attempt has committed so far (the status bar's count adds them)."""
        return sum(
            r.op is Op.CREATE_NOTEBOOK
            and r.state is ItemState.COMMITTED
            and r.item_id not in self._landed_before
            for r in self.model.rows()
        )

    def last_run_pages(self) -> tuple[int, float]:
        """Pages this attempt landed itself and the seconds it ran (the benchmark reads it):
        neither pages that failed nor those found in the corpus already count, nor the time
        the stop question waited for its answer."""
        return self._pace.landed, self._pace.seconds(self._ended_at or time.monotonic())

    def _elapsed_sentence(self) -> str:
        if not self._started_at:
            return ""
        return elapsed_words(*self.last_run_pages())

    def _invalid(self, report: ValidationReport) -> None:
        self.headline.setText(self.tr("The plan needs another look"))
        if self._retrying:
            self.scan_again_button.setVisible(self._retried is not None)
            # Nothing was attempted: an empty outcome list and a bar at 0 % would say nothing.
            self._show_outcomes(False)
            # The ended run's plan is frozen: its problems are told here, not under review.
            errors = report.errors
            lines = [p.message for p in errors[:5]]  # the engine's words, as they are
            if len(errors) > 5:
                lines.append(self.tr("…and %Ln more.", "", len(errors) - 5))
            self.summary_label.setText(
                self.tr(
                    "Files changed since that run, so its plan no longer validates; nothing "
                    "was committed. Put the files back as they were and retry, or Scan Again: "
                    "what is imported already is recognised, and the rest is offered to "
                    "complete the same notebooks."
                )
                + "\n"
                + "\n".join(lines)
            )
            return
        self.summary_label.setText(
            self.tr("Files changed since the plan was checked; nothing was committed.")
        )
        self.plan_invalid.emit(report)

    def _show_outcomes(self, shown: bool) -> None:
        for w in (self.progress_bar, self.rate_label, self.table, self.details_label):
            w.setVisible(shown)

    def _failed(self, message: str) -> None:
        self._flush()
        self.headline.setText(self.tr("The import stopped"))
        self.summary_label.setText(
            self.tr(
                "{message} Nothing committed is lost; once the cause is fixed, resume the run "
                "from Runs."
            ).format(message=message)
        )
        self.rate_label.clear()

    def _worker_ended(self) -> None:
        self._tick.stop()
        self._stopping = ""
        paused = self.result is not None and not self.result.status.terminal
        self._set_buttons(
            running=False,
            finished=True,
            resumable=paused or self.result is None,
            retryable=self.result is not None and can_retry(self.result.status),
        )
        run = self._ended_run
        # Undone only once ended, and only when it left something: a run stopped before its
        # first page landed has nothing to undo, and its preview would only say so.
        ended = run is not None and run.status.revertible
        self._undo_follows = self._undo_after_stop and ended and bool(run and run.pages_landed)
        if self._undo_after_stop and not self._undo_follows:
            said = nothing_to_undo_words() if ended else undo_not_possible_words()
            self.summary_label.setText(self.summary_label.text() + "\n" + said)
        self._undo_after_stop = False
        super()._worker_ended()
        self.run_finished.emit(self.result)
        if self._undo_follows:
            self._undo_follows = False
            self.undo_requested.emit(run)

    def wait(self) -> None:
        """Block until the worker has ended (closing, tests); it must have been told to stop."""
        self._workers.wait()

    def _set_buttons(
        self, *, running: bool, finished: bool, resumable: bool = False, retryable: bool = False
    ) -> None:
        self.pause_button.setVisible(running)
        self.cancel_button.setVisible(running)
        self.pause_button.setEnabled(running)
        self.cancel_button.setEnabled(running)
        self.resume_button.setVisible(finished and resumable and self.run_id is not None)
        self.retry_button.setVisible(finished and retryable and self.run_id is not None)
        for b in (self.open_folder_button, self.show_run_button, self.new_import_button):
            b.setVisible(finished)
        self.show_run_button.setEnabled(self._run_to_show() is not None)
        if running:
            self.pause_button.setFocus()
        elif finished:
            self.new_import_button.setDefault(True)
            if self.retry_button.isVisibleTo(self):
                self.retry_button.setFocus()

    def _scan_again(self) -> None:
        if self._retried is not None:
            self.scan_again_requested.emit(self._retried)

    def _run_to_show(self) -> str | None:
        """The run *Show in Runs* shows: this attempt's, or the ended run a refused retry
        was of (the retry made no run of its own, and the run it tried is in Runs)."""
        return self.run_id if self.run_id is not None else self._retried

    def _show_run_clicked(self) -> None:
        run_id = self._run_to_show()
        if run_id is not None:
            self.show_run_requested.emit(run_id)

    def _retry_clicked(self) -> None:
        if self.run_id is not None:
            self.retry_requested.emit(self.run_id)

    def _resume_clicked(self) -> None:
        if self.run_id is not None:
            self.resume_requested.emit(self.run_id)
