"""The import flow: scan, review and commit one plan, as a controller the window holds.

It owns the plan's way through the steps: the scan and its outcome, the plan under review
(kept as a draft as it changes, opened from a plan file or a draft, saved to a file), its
validation after each burst of edits, and the commit, resume or retry of a run. The
window holds the pages, menus and status bar it shows them in; the flow moves frozen
engine values between those pages and the workers that call the engine, and keeps the
session's plan as the only plan state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QObject, QSettings, QTimer, Signal
from PySide6.QtWidgets import QMessageBox, QStatusBar, QWidget

from transcribe_import.engine import api
from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.planning.plan import DEFAULT_MODE, ImportPlan, ModeName
from transcribe_import.engine.planning.problems import ValidationReport
from transcribe_import.gui.desktop import LongImports
from transcribe_import.gui.dialogs import (
    Answer,
    FolderKind,
    Role,
    ask,
    choose_file,
    choose_save_file,
)
from transcribe_import.gui.look_pass import LookPass
from transcribe_import.gui.session import ImportSession
from transcribe_import.gui.settings_dialog import ImportSettings
from transcribe_import.gui.values import OpenedPlan, ScanOutcome, Validation
from transcribe_import.gui.window_pages import WindowPages
from transcribe_import.gui.wording import (
    error_text,
    plural,
    time_left_words,
    unsaved_review_answers,
    unsaved_review_words,
)
from transcribe_import.gui.workers import (
    StepPace,
    TaskSlot,
    keep_draft,
    list_drafts,
    read_for_review,
    validate_plan,
    write_plan_file,
)


class ImportHost(WindowPages, Protocol):
    """What the flow uses of the window that holds it (``main_window.MainWindow`` is the one):
    named here, so that the window imports its flow and the flow never imports the window."""

    @property
    def corpus(self) -> api.Corpus: ...
    @property
    def session(self) -> ImportSession: ...
    @property
    def import_settings(self) -> ImportSettings: ...
    def window(self) -> QWidget: ...  # Qt's: the window itself, the parent of the flow's boxes
    def statusBar(self) -> QStatusBar: ...
    def settings(self) -> QSettings: ...
    def show_import_page(self, page: QWidget) -> None: ...
    def is_closing(self) -> bool: ...
    def is_stopping(self) -> bool: ...


# Edits come in bursts (a drag, a few Ctrl+Up); validate once the burst is over.
VALIDATE_DEBOUNCE_MS = 300
DRAFT_DEBOUNCE_MS = 700  # a burst of edits is one write of the draft


def ask_unsaved_review(parent: QWidget, draft_problem: str | None) -> str:
    """Quitting with review decisions in no plan file: "save", "quit" or "cancel".

    ``draft_problem``: why the draft could not be written just now (None: it was, and the
    decisions are offered back on the next start, which the question says).
    """
    kept = draft_problem is None
    save, quit_, cancel = unsaved_review_answers(kept)
    return ask(
        parent,
        *unsaved_review_words(draft_problem),
        (
            Answer("save", save, Role.ActionRole),
            Answer("quit", quit_, Role.AcceptRole if kept else Role.DestructiveRole),
            Answer("cancel", cancel, Role.RejectRole),
        ),
        # Either keeps every decision while the draft is written; else Enter saves.
        default="quit" if kept else "save",
        escape="cancel",
        icon=QMessageBox.Icon.Question if kept else QMessageBox.Icon.Warning,
    )


def confirm_discard_plan(parent: QWidget) -> bool:
    """A plan with edits is about to be replaced: ask first."""
    answer = QMessageBox.question(
        parent,
        parent.tr("Discard the Plan?"),
        parent.tr(
            "The plan under review has changes that were not imported. Discard them and start "
            "again?"
        ),
        QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
        QMessageBox.StandardButton.Cancel,
    )
    return answer == QMessageBox.StandardButton.Discard


class ImportFlow(QObject):
    """Scan → review → commit of one plan at a time, for the window that shows its pages."""

    # Emitted when a validation result was handed to the session (current or stale).
    validation_done = Signal()
    # Emitted once a plan file or a kept draft that was opened is under review.
    plan_opened = Signal()

    def __init__(self, window: ImportHost) -> None:
        super().__init__(window.window())
        self._window = window
        self._parent = window.window()  # the boxes' parent
        self.corpus = window.corpus
        self.session = window.session
        self.start_page = window.start_page
        self.scan_page = window.scan_page
        self.review_page = window.review_page
        self.commit_page = window.commit_page
        self._status = window.statusBar()

        self._validations = TaskSlot(
            self,
            done=self._validated,
            failed=self._validate_failed,
            ended=self.validation_done.emit,
            progress=self._validation_went_on,
        )
        # A validation of 100,000 files takes half a minute: its time left, at its pace.
        self._validation_pace = StepPace()
        self._validate_timer = QTimer(self, singleShot=True, interval=VALIDATE_DEBOUNCE_MS)
        self._validate_timer.timeout.connect(self.validate_plan)
        self.session.item_changed.connect(self._plan_edited)
        # The JPEG and PDF pages' looks, made while the review is shown; each stamp of them
        # on the plan is validated as an edit is (its rescans are asked then).
        self.look_pass = LookPass(
            self.corpus, self.session, lambda: window.import_settings.workers, self
        )
        self.look_pass.failed.connect(self._looks_failed)
        self.validation_done.connect(self.look_pass.validated)  # the pass after the first
        self.session.looks_changed.connect(self._looks_stamped)
        # The plan under review is kept as a draft as it changes (corpus/drafts/), so a
        # quit, a crash or a power cut loses no decision; offered back on the next start.
        self._drafts = TaskSlot(self, done=self._draft_kept, failed=self._draft_failed)
        self._draft_lists = TaskSlot(self, done=self._drafts_listed, failed=self._draft_failed)
        # Plans are read for review off the GUI thread (100,000 sources: about a second).
        self._plan_opens = TaskSlot(
            self, done=self._plan_opened, failed=self._open_failed, progress=self._opening_went_on
        )
        # A plan file of 100,000 sources takes 3-16 s to read: its time left, at its pace.
        self._opening_pace = StepPace()
        # Save Plan As… writes on a worker too (100,000 sources: seconds of JSON).
        self._plan_saves = TaskSlot(self, done=self._plan_saved, failed=self._save_failed)
        self._drafted: ImportPlan | None = None  # the plan the draft holds, as last written
        # Save Plan As… while the look pass ran: where, and of which plan (saved again after).
        self._resave_after_looks: tuple[Path, str] | None = None
        self._draft_timer = QTimer(self, singleShot=True, interval=DRAFT_DEBOUNCE_MS)
        self._draft_timer.timeout.connect(self._keep_draft)
        self.session.item_changed.connect(self._draft_timer.start)
        self.session.plan_changed.connect(self._plan_replaced)

        self.start_page.scan_requested.connect(self.start_scan)
        self.start_page.resume_requested.connect(self.resume_run)
        self.start_page.review_requested.connect(self._back_to_review)
        self.start_page.draft_requested.connect(self.continue_draft)
        self.start_page.draft_discard_requested.connect(self.discard_draft)
        self.scan_page.planned.connect(self._scan_planned)
        self.scan_page.cancelled.connect(self._scan_cancelled)
        self.scan_page.failed.connect(self._scan_failed)
        self.review_page.validate_requested.connect(self.validate_plan)
        self.review_page.commit_requested.connect(self.commit_plan)
        self.commit_page.running_changed.connect(self._commit_running_changed)
        self.commit_page.run_finished.connect(self._run_finished)
        self.commit_page.plan_invalid.connect(self._plan_invalid)
        self.commit_page.scan_again_requested.connect(self.scan_again)
        self.commit_page.new_import_requested.connect(self.new_import)
        self.commit_page.resume_requested.connect(self.resume_run)
        self.commit_page.retry_requested.connect(self.retry_run)
        # The system stays awake while a commit runs; a long one's end is notified.
        self.long_imports = LongImports(self._parent, self.commit_page)
        window.runs_page.resume_requested.connect(self.resume_run)
        window.runs_page.retry_requested.connect(self.retry_run)
        window.corpus_page.resume_requested.connect(self.resume_run)  # Finish Import
        window.corpus_page.retry_requested.connect(self.retry_run)
        self.start_page.retry_requested.connect(self.retry_run)  # an incomplete notebook

    def close(self) -> None:
        """The window closes: no validation, draft or plan read is started or kept running."""
        self._validate_timer.stop()
        self.look_pass.close()
        self._validations.close()
        self._drafts.close()
        self._draft_lists.close()
        self._plan_opens.close()  # a plan being read is dropped with the window
        self._plan_saves.close()  # a plan being written is written whole first

    def _commit_running_changed(self, running: bool) -> None:
        if running:
            # The run holds the plan now (prepare_commit dropped its draft): keep no other.
            self._draft_timer.stop()

    def _run_finished(self, _result: object) -> None:
        if self.commit_page.run_id is not None:
            # The plan is frozen in its run now (resumed from Runs if paused); editing it
            # would only be refused.
            self.session.set_plan(None)

    def start_scan(self) -> None:
        """Scan what the start page lists, with the mapping it shows."""
        if (
            self.scan_page.is_running()
            or self.commit_page.is_running()
            or self._window.is_closing()
        ):
            return
        problem = self.start_page.ready_problem()
        if problem is not None:
            self._status.showMessage(problem, 5000)
            return
        if self._plan_has_edits() and not confirm_discard_plan(self._parent):
            return
        s = self._window.import_settings
        paths = tuple(self.start_page.paths())
        try:
            mode = api.mode_for(paths, self.start_page.mode())
        except ValueError as exc:
            self._status.showMessage(str(exc), 8000)
            return
        self.scan_page.start(
            api.PlanRequest(
                paths,
                mode=mode,
                policy_id=s.policy_id,
                title=None if mode.name is ModeName.BAG else self.start_page.title(),
                dedupe_scope=s.dedupe_scope,
                settings=s.render,
                workers=s.workers,
            )
        )
        self._window.show_import_page(self.scan_page)

    def prescan(self, paths: Sequence[Path]) -> None:
        """Command-line PATHs: add them and scan with the default mapping once the loop runs.

        Deferred so the window is on screen first; a window closed before then scans nothing.
        """
        self.start_page.add_paths(paths)
        self.start_page.set_mode(DEFAULT_MODE)
        QTimer.singleShot(0, self._start_prescan)

    def _start_prescan(self) -> None:
        if self._parent.isVisible() and not self._window.is_closing():
            self.start_scan()

    def _scan_planned(self, outcome: ScanOutcome) -> None:
        self.session.set_plan(outcome.plan)
        self.start_page.set_plan_waiting(False)
        self._window.show_import_page(self.review_page)
        self._status.showMessage(self.scan_page.last_outcome_text(outcome), 8000)
        self.review_page.setFocus()
        # Once the plan is on screen: a validation started at once would compete with the
        # first layout of a large plan for the GIL.
        self._validate_timer.start()

    def _back_to_review(self) -> None:
        if self.session.plan is not None:
            self._window.show_import_page(self.review_page)

    def _scan_cancelled(self) -> None:
        self._window.show_import_page(self.start_page)
        self._status.showMessage(self.tr("Scan cancelled; nothing was planned."), 8000)

    def _scan_failed(self, message: str) -> None:
        self._window.show_import_page(self.start_page)
        self.start_page.show_error(self.tr("The scan stopped: {message}").format(message=message))

    def _plan_replaced(self) -> None:
        # A plan as scanned or opened holds no decision yet: its draft is written with the
        # first edit, or on closing (a draft of 100,000 sources is 0.2 s of JSON encoding,
        # which the first look at a large plan need not wait behind).
        self._draft_timer.stop()
        self.list_drafts()

    def _keep_draft(self) -> None:
        plan = self.session.plan
        if plan is None or self._window.is_closing() or self.commit_page.is_running():
            return
        if self._drafts.is_busy():
            self._draft_timer.start()  # the one being written ends soon; then this one
            return
        self._drafts.run(keep_draft, self.corpus, plan)

    def _draft_kept(self, plan: ImportPlan) -> None:
        self._drafted = plan

    def _keep_draft_now(self) -> str | None:
        """Write the draft of the plan under review now, unless the last one written is it.

        None when the draft holds the plan as it is; else why it could not be written.
        """
        self._draft_timer.stop()
        self._drafts.wait()  # one writer at a time
        plan = self.session.plan
        if plan is None or plan is self._drafted:
            return None
        try:
            api.save_draft(self.corpus, plan)
        except (OSError, TranscribeError) as exc:
            return error_text(exc)
        self._drafted = plan
        return None

    def _draft_failed(self, message: str) -> None:
        self._status.showMessage(
            self.tr("The review could not be kept as a draft: {why}").format(why=message), 15000
        )

    def list_drafts(self) -> None:
        """Offer the kept reviews on the start page (not the one on screen), read on a worker."""
        self._draft_lists.run(list_drafts, self.corpus)

    def _drafts_listed(self, drafts: list[api.Draft]) -> None:
        current = None if self.session.plan is None else self.session.plan.plan_id
        self.start_page.set_drafts([d for d in drafts if d.plan_id != current])

    def continue_draft(self, plan_id: str) -> None:
        self._open_for_review(plan_id)

    def _open_for_review(self, source: Path | str) -> bool:
        """Read a plan file (a Path) or a kept draft (its plan id) on a worker, then review it.

        False when the window cannot take another plan now, or the person kept the one
        under review.
        """
        if self.scan_page.is_running() or self.commit_page.is_running():
            return False
        if self._plan_has_edits() and not confirm_discard_plan(self._parent):
            return False
        self._status.showMessage(self.tr("Opening the plan…"))
        self._plan_opens.run(read_for_review, self.corpus, source)
        return True

    def _plan_opened(self, opened: OpenedPlan) -> None:
        if opened.plan is None:
            self._status.showMessage(opened.problem, 15000)
            return
        if (
            self.scan_page.is_running()
            or self.commit_page.is_running()
            or self._window.is_closing()
        ):
            self._status.clearMessage()
            return  # a scan or a commit began while it was read: that one goes on
        self._status.clearMessage()
        self.session.set_plan(opened.plan)
        if opened.from_draft:
            self._drafted = opened.plan  # the draft on disk is this plan
        self.start_page.set_plan_waiting(False)
        self._window.show_import_page(self.review_page)
        self._validate_timer.start()
        self.plan_opened.emit()

    def _open_failed(self, message: str) -> None:
        self._status.showMessage(message, 15000)

    def open_plan_dialog(self) -> None:
        path = choose_file(
            self._parent,
            self._window.settings(),
            FolderKind.PLANS,
            self.tr("Open Plan"),
            self.tr("Plan files (*.json);;All files (*)"),
        )
        if path is not None:
            self.open_plan(path)

    def open_plan(self, path: Path) -> bool:
        """Review the plan in ``path`` (a file ``plan -o`` or Save Plan wrote), once read.

        Whether it is being read (``plan_opened`` once it is under review; a file that is
        not a plan is told in the status bar and leaves the review as it was).
        """
        return self._open_for_review(path)

    def save_plan_dialog(self, *, wait: bool = True) -> bool:
        """Save Plan As…: ask where, then write; whether the plan was saved (``wait``
        False, the menu's: whether it is being written, on a worker)."""
        if self.session.plan is None:
            return False
        path = choose_save_file(
            self._parent,
            self._window.settings(),
            FolderKind.PLANS,
            self.tr("Save Plan"),
            "plan.json",
            self.tr("Plan files (*.json)"),
        )
        return path is not None and self.save_plan(path, wait=wait)

    def save_plan_as(self) -> None:
        """The menu's Save Plan As…: the plan is written on a worker, the window answering."""
        self.save_plan_dialog(wait=False)

    def save_plan(self, path: Path, *, wait: bool = True) -> bool:
        """Write the plan under review to ``path`` (what `validate PATH` reads); whether it
        was written. ``wait`` False: written on a worker, told in the status bar when it
        is (``is_saving`` until then); whether it is being written."""
        plan = self.session.plan
        if plan is None:
            return False
        if not wait:
            self._status.showMessage(self.tr("Saving the plan to {path}…").format(path=path))
            self._plan_saves.run(write_plan_file, plan, path)
            return True
        try:
            api.save_plan_file(plan, path)
        except (OSError, TranscribeError) as exc:
            self._save_failed(str(exc))
            return False
        self._saved(plan, path)
        return True

    def is_saving(self) -> bool:
        return self._plan_saves.is_busy()

    def _plan_saved(self, saved: tuple[ImportPlan, Path]) -> None:
        self._saved(*saved)

    def _save_failed(self, why: str) -> None:
        self._status.showMessage(self.tr("The plan was not saved: {why}").format(why=why), 15000)

    def _saved(self, plan: ImportPlan, path: Path) -> None:
        """``plan`` is in ``path`` now: its decisions are in a plan file, and the status
        bar says where (and whether the look pass still has pages to stamp on it)."""
        if self.session.plan is plan:
            self.session.undo_stack.setClean()  # every decision so far is in a plan file
        if self.session.looking and self.session.plan is plan:
            # Saved before the look pass ended: saved there again once it has (see
            # _looks_stamped), so the file does not stay short of the rest of its looks.
            self._resave_after_looks = (path, plan.plan_id)
            done, total = self.session.look_progress
            rest = max(total - done, 0)
            self._status.showMessage(
                plural(
                    rest,
                    self.tr(
                        "Plan saved to {path}; 1 page was still to be looked at for rescans: "
                        "the plan is saved there again once it has been."
                    ),
                    self.tr(
                        "Plan saved to {path}; {n} pages were still to be looked at for "
                        "rescans: the plan is saved there again once they have been."
                    ),
                ).format(path=path, n=rest)
            )
            return
        self._resave_after_looks = None
        self._status.showMessage(self.tr("Plan saved to {path}").format(path=path), 8000)

    def _save_again_after_looks(self) -> None:
        """The look pass has ended after Save Plan As…: the file gets the rest of the looks,
        unless the plan was edited since (then closing asks to save it, as for any edit)."""
        wanted, self._resave_after_looks = self._resave_after_looks, None
        plan = self.session.plan
        if wanted is None or plan is None or plan.plan_id != wanted[1]:
            return
        path = wanted[0]
        if not self.session.undo_stack.isClean():
            self._status.showMessage(
                self.tr(
                    "The pages have been looked at for rescans. The plan has changed since it "
                    "was saved to {path}: save it again to keep its changes and its looks."
                ).format(path=path),
                15000,
            )
            return
        if self.save_plan(path):
            done, total = self.session.look_progress
            words = (
                self.tr("Plan saved to {path} again, with every page looked at for rescans.")
                if done >= total
                else self.tr(
                    "Plan saved to {path} again, with the looks found before looking at the "
                    "pages stopped ({done} of {total} pages)."
                )
            )
            self._status.showMessage(words.format(path=path, done=done, total=total), 15000)

    def discard_draft(self, plan_id: str) -> None:
        try:
            api.discard_draft(self.corpus, plan_id)
        except OSError as exc:
            self._draft_failed(str(exc))
        self.list_drafts()

    def rejudge_duplicates(self) -> bool:
        """Judge the review's duplicates again with the duplicates setting as it is now (one
        undoable edit); whether the review changed."""
        scope = self._window.import_settings.dedupe_scope
        if self.session.plan is None:
            return False
        return self.session.edit_plan(
            lambda plan: api.rejudge_duplicates(self.corpus, plan, scope),
            self.tr("Look for duplicates again"),
        )

    def _plan_edited(self, _item_id: str) -> None:
        self._validate_timer.start()  # restarted by every edit: one validation per burst

    def _looks_stamped(self, stamped: bool) -> None:
        if stamped:
            self._validate_timer.start()
        elif (
            not self.session.looking
            and self.session.report is not None
            and self._status.currentMessage() == self._still_looking_words()
        ):
            # The pass ended with nothing new for the plan: the report stands, and the
            # status no longer says the pages are being looked at.
            self._status.showMessage(self._verdict_words(self.session.report), 8000)
        if not self.session.looking and self._resave_after_looks is not None:
            self._save_again_after_looks()

    def _looks_failed(self, message: str) -> None:
        self._status.showMessage(
            self.tr(
                "Looking at the pages for rescans stopped: {message}. The pages it had not "
                "reached are not compared with others; scan again to compare them."
            ).format(message=message),
            15000,
        )

    def validate_plan(self) -> None:
        """Validate the plan as it is now on a worker; a result for an older plan is dropped."""
        self._validate_timer.stop()
        plan = self.session.plan
        if plan is None or self._window.is_closing():
            return
        s = self._window.import_settings
        # While one runs, this one waits its turn.
        hints = self.session.hints
        self._validations.run(validate_plan, self.corpus, plan, s.render, s.workers, hints)
        self._status.showMessage(self.tr("Validating the plan…"))

    def _validation_went_on(self, progress: tuple[int, int]) -> None:
        self._time_left(
            self._validation_pace,
            progress,
            self.tr("Validating the plan… ({left})"),
            self.tr("Validating the plan…"),
        )

    def _opening_went_on(self, progress: tuple[int, int]) -> None:
        self._time_left(
            self._opening_pace,
            progress,
            self.tr("Opening the plan… ({left})"),
            self.tr("Opening the plan…"),
        )

    def _time_left(self, pace: StepPace, progress: tuple[int, int], words: str, plain: str) -> None:
        """A one-call step's line in the status bar with its time left at its pace, once
        known (``words`` says where ``{left}`` goes). Its progress from 0 is the step, or a
        part of it with a pace of its own (a validation's rescans), beginning: the time left
        the part before told is taken back (``plain``) until this one's pace is known."""
        done, total = progress
        if done == 0:
            pace.restart()
            self._status.showMessage(plain)
        left = pace.seconds_left(done, total)
        if left is not None and done < total:
            self._status.showMessage(words.format(left=time_left_words(left)))

    def is_validating(self) -> bool:
        return self._validations.is_busy() or self._validate_timer.isActive()

    def _validated(self, validation: Validation) -> None:
        report = validation.report
        if self.session.plan is not validation.plan:
            # Edited while it ran: the report is about the past. Told by identity, since the
            # fingerprint of a 100,000-source plan takes the GUI thread most of a second.
            self.validate_plan()
            return
        self.session.set_report(report, validation.states)
        if self.session.report is report:
            self._status.showMessage(self._verdict_words(report), 8000)
        else:
            self.validate_plan()  # edited while it ran: this report is about the past

    def _still_looking_words(self) -> str:
        return self.tr("Validated: no errors so far; looking at the pages for rescans.")

    def _verdict_words(self, report: ValidationReport) -> str:
        """What the status bar says of the plan's latest validation."""
        errors, warnings = len(report.errors), len(report.warnings)
        if errors:
            return plural(
                errors,
                self.tr("Validated: 1 error to resolve before commit."),
                self.tr("Validated: %Ln errors to resolve before commit.", "", errors),
            )
        if self.session.looking:  # not ready until its rescans are asked
            return self._still_looking_words()
        if warnings:
            return plural(
                warnings,
                self.tr("Validated: ready to commit, with 1 warning."),
                self.tr("Validated: ready to commit, with %Ln warnings.", "", warnings),
            )
        return self.tr("Validated: ready to commit.")

    def _validate_failed(self, message: str) -> None:
        self._status.showMessage(
            self.tr("Validation could not finish: {message}").format(message=message)
        )

    def commit_plan(self) -> None:
        """Commit the reviewed plan; only when its latest validation found no error."""
        plan = self.session.plan
        if plan is not None and self.review_page.can_commit():
            self._start_run(partial(self._commit_reviewed, plan))

    def _commit_reviewed(self, plan: ImportPlan, **how: Any) -> None:
        self.review_page.thumbnails.cancel()  # the import needs the cores more than the thumbnails
        self.commit_page.commit_plan(plan, **how)

    def resume_run(self, run_id: str) -> None:
        """Resume an interrupted run in the commit view."""
        self._start_run(
            partial(self.commit_page.resume, run_id),
            self.tr("Another import is running; resume this one when it has ended."),
        )

    def retry_run(self, run_id: str) -> None:
        """Retry What Did Not Land: commit an ended run's plan again (never doubling a page)."""
        self._start_run(
            partial(self.commit_page.retry, run_id),
            self.tr("Another import is running; retry this one when it has ended."),
        )

    def _start_run(self, start: Callable[..., None], busy: str = "") -> None:
        """``start(settings=..., workers=...)`` a run in the commit view with the import
        settings; nothing while closing, nor while a scan or an import runs (``busy`` says
        so)."""
        if self._window.is_closing() or self._window.is_stopping():
            return
        if self.commit_page.is_running() or self.scan_page.is_running():
            if busy:
                self._status.showMessage(busy, 8000)
            return
        s = self._window.import_settings
        self._status.clearMessage()
        start(settings=s.render, workers=s.workers)
        self._window.show_import_page(self.commit_page)

    def _plan_invalid(self, report: ValidationReport) -> None:
        self.session.set_report(report)
        self._window.show_import_page(self.review_page)
        self._status.showMessage(
            self.tr("The plan no longer validates; nothing was committed. See the problems."),
            10000,
        )

    def scan_again(self, run_id: str) -> None:
        """Scan Again, when a retry was refused because files changed: a new review of that
        run's folders as they are now (its pages in the corpus are recognised there)."""
        runs = self._window.runs_page.model
        row = runs.row_of(run_id)
        roots = [Path(r) for r in runs.run(row).roots] if row is not None else []
        if not roots:
            self._status.showMessage(
                self.tr("That run's folders are not known; add them to scan them again."), 8000
            )
            self.new_import()
            return
        self.new_import()
        if self.session.plan is None:  # not kept by the person (a review with edits)
            self.prescan(roots)

    def new_import(self) -> None:
        if self.scan_page.is_running() or self.commit_page.is_running():
            return
        if self._plan_has_edits() and not confirm_discard_plan(self._parent):
            return
        if self.session.plan is not None:
            self.discard_draft(self.session.plan.plan_id)  # the person chose to drop it
        self.session.set_plan(None)
        self.start_page.clear_sources()
        # A new import starts from the default mapping: never poured, unasked, into the
        # notebook the last one went into.
        self.start_page.set_mode(DEFAULT_MODE)
        self.start_page.set_plan_waiting(False)
        self._window.show_import_page(self.start_page)

    def _plan_has_edits(self) -> bool:
        return self.session.plan is not None and self.session.undo_stack.count() > 0

    def review_may_close(self) -> bool:
        """Whether closing may go on, as far as the review goes.

        The plan under review is written as a draft first, so a quit loses no decision.
        Decisions in no plan file (edits since the scan, the plan opened, or the last Save
        Plan As: the undo stack is off its clean point) are asked about, in words that say
        the draft keeps them, or that it could not.
        """
        if self.session.plan is None:
            return True
        problem = self._keep_draft_now()
        if self.session.undo_stack.isClean():
            return True
        answer = ask_unsaved_review(self._parent, problem)
        if answer == "save":
            return self.save_plan_dialog()
        return answer == "quit"
