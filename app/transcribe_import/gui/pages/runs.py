"""The Runs view: past import runs, newest first, each with its outcomes and history; Resume,
Retry, Cancel, Undo This Import…, the Trash, and *Show What This Import Added* (the Corpus
view's library on the pages the run put in the corpus).

A run no process executes and that has not ended (the app was killed, or it was
paused) is *interrupted*; Resume hands it to the commit view, which continues it
with the same ids. Listing and loading happen on workers: a corpus may hold many runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QItemSelection, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QListWidget,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from transcribe_import.engine.api import Corpus, NotImported, can_retry, run_history
from transcribe_import.engine.runs.model import RunStatus
from transcribe_import.gui.dialogs import confirm_destructive
from transcribe_import.gui.icons import SP
from transcribe_import.gui.models.outcomes import OutcomeTableModel
from transcribe_import.gui.models.runs import RunColumn, RunTableModel
from transcribe_import.gui.undo_dialog import TrashDialog, UndoDialog
from transcribe_import.gui.values import RunDetail, RunSummary
from transcribe_import.gui.widgets import (
    ButtonRow,
    outcome_view,
    pane,
    push_button,
    run_buttons,
    selectable_text,
    table_view,
)
from transcribe_import.gui.wording import (
    ButtonWords,
    cancel_run_question,
    counts_sentence,
    history_words,
    plural,
    run_state_explanation,
    run_state_words,
    runs_buttons,
)
from transcribe_import.gui.workers import TaskSlot, cancel_interrupted_run, list_runs, load_run


class RunsPage(QWidget):
    """Past runs above, the selected run's items below; Resume and Cancel for interrupted runs."""

    resume_requested = Signal(str)  # run id
    retry_requested = Signal(str)  # run id of an ended run: commit its plan again
    cancel_own_requested = Signal()  # Cancel on the run this window is committing now
    # Set by the window: the id of the run its commit view executes now, or None.
    own_run: Callable[[], str | None] = staticmethod(lambda: None)
    listed = Signal()  # the list was (re)loaded and is shown
    detail_shown = Signal(str)  # run id whose outcomes are shown
    corpus_changed = Signal()  # an undo took notebooks or pages out of the corpus
    added_requested = Signal(str)  # run id: show the pages it added, in the library

    def __init__(self, corpus: Corpus, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.corpus = corpus
        self._detail_wanted: str | None = None
        self._select_after_list: str | None = None
        self._commit_running = False
        self.undo_dialog: UndoDialog | None = None
        self.trash_dialog: TrashDialog | None = None
        # Listing, loading and cancelling: each short, each one at a time.
        self._lists = TaskSlot(self, done=self._listed, failed=self._failed, ended=self._list_ended)
        self._details = TaskSlot(self, done=self._detail_loaded, failed=self._detail_failed)
        self._cancels = TaskSlot(
            self, done=self._cancelled, failed=self._failed, ended=self._update_buttons
        )
        self.model = RunTableModel(parent=self)
        self.table = table_view(self.model, self.tr("Import runs, newest first"))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(RunColumn.FROM, QHeaderView.ResizeMode.Stretch)
        header.resizeSection(RunColumn.STARTED, 140)
        header.resizeSection(RunColumn.STATUS, 210)
        for c in (RunColumn.COMMITTED, RunColumn.SKIPPED, RunColumn.FAILED, RunColumn.NOT_DONE):
            header.resizeSection(c, 85)
        header.resizeSection(RunColumn.PAGES, 70)
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)

        self.empty_label = QLabel(
            self.tr("No imports yet. Runs are listed here once you commit a plan.")
        )
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setAccessibleName(self.tr("No import runs"))

        w = runs_buttons()
        self.refresh_button = push_button(w.refresh, SP.SP_BrowserReload, self.refresh)
        self.resume_button, self.retry_button = run_buttons(
            self._resume_clicked, self._retry_clicked
        )
        self.cancel_run_button = push_button(
            w.cancel_run, SP.SP_DialogCancelButton, self._cancel_clicked
        )
        self.undo_button = push_button(w.undo, SP.SP_TrashIcon, self._undo_clicked)
        self.trash_button = push_button(w.trash, SP.SP_DirIcon, self._trash_clicked)
        self.added_button = push_button(
            ButtonWords(
                self.tr("Show &What This Import Added"),
                self.tr("Show the pages the selected import added"),
                self.tr("Its pages in the corpus now, read-only, notebook by notebook"),
            ),
            SP.SP_FileDialogContentsView,
            self._added_clicked,
        )
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.added_action = QAction(self.added_button.text(), self.table)
        self.added_action.triggered.connect(self._added_clicked)
        self.table.addAction(self.added_action)
        # Wraps onto a second line where the window is narrow (800 px): no button falls off
        # the right edge, and the page asks no more width than its widest button (#34).
        buttons = ButtonRow(trailing=2)
        for button in (
            self.refresh_button,
            self.trash_button,
            self.added_button,
            self.undo_button,
            self.cancel_run_button,
            self.retry_button,
            self.resume_button,
        ):
            buttons.addWidget(button)

        self.detail_label = selectable_text(QLabel())
        self.detail_label.setAccessibleName(self.tr("Selected run"))
        self.detail_model = OutcomeTableModel(parent=self, live=False)
        self.detail_table = outcome_view(self.detail_model, self.tr("Outcomes of the run"))
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("runsSplitter")
        self.problems_label = selectable_text(QLabel())
        self.problems_label.setWordWrap(True)
        self.problems_label.setAccessibleName(self.tr("Run records that cannot be read"))
        self.problems_label.hide()
        self.splitter.addWidget(pane(self.problems_label, (self.table, 1), (self.empty_label, 1)))
        self.history_list = QListWidget()
        self.history_list.setAccessibleName(self.tr("History of the run"))
        self.history_list.setMaximumHeight(110)
        history_label = QLabel(self.tr("Histor&y:"))
        history_label.setBuddy(self.history_list)
        # What its scan found and its plan did not import, each with why: with the pages it
        # landed and the duplicates it skipped, every file found is accounted for.
        self.not_imported_list = QListWidget()
        self.not_imported_list.setAccessibleName(self.tr("Files found and not imported"))
        self.not_imported_list.setMaximumHeight(90)
        self.not_imported_label = QLabel()
        self.not_imported_label.setBuddy(self.not_imported_list)
        self.splitter.addWidget(
            pane(
                self.detail_label,
                (self.detail_table, 1),
                self.not_imported_label,
                self.not_imported_list,
                history_label,
                self.history_list,
            )
        )
        self._show_not_imported(())
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([260, 400])

        layout = QVBoxLayout(self)
        layout.addWidget(self.splitter, 1)
        layout.addLayout(buttons)
        self._show_empty(True)
        self._update_buttons()

    # -- listing ---------------------------------------------------------------------------

    def refresh(self, *, select: str | None = None) -> None:
        """List the runs again (on a worker), then select ``select`` or keep the selection."""
        self._select_after_list = select or self.selected_run_id()
        self._lists.run(list_runs, self.corpus)
        self.refresh_button.setEnabled(not self._lists.is_busy())

    def _listed(self, listed: tuple[list[RunSummary], list[str]]) -> None:
        runs, problems = listed
        wanted = self._select_after_list
        self.model.set_runs(runs)
        self._show_empty(not runs and not problems)
        self.problems_label.setVisible(bool(problems))
        self.problems_label.setText(
            "\n".join(
                [
                    plural(
                        len(problems),
                        self.tr(
                            "1 run record cannot be read, so this list is incomplete. Run "
                            "Check Again in the Corpus view (doctor) to set it aside and see "
                            "what its plan needs:"
                        ),
                        self.tr(
                            "%n run records cannot be read, so this list is incomplete. Run "
                            "Check Again in the Corpus view (doctor) to set them aside and see "
                            "what their plans need:",
                            "",
                            len(problems),
                        ),
                    ),
                    *problems,
                ]
            )
        )
        row = self.model.row_of(wanted) if wanted else None
        if row is None and runs:
            row = 0
        if row is not None:
            self.table.selectRow(row)
        else:
            self._show_detail(None)
        self.listed.emit()

    def _list_ended(self) -> None:
        self.refresh_button.setEnabled(not self._lists.is_busy())

    def _failed(self, message: str) -> None:
        self.detail_label.setText(
            self.tr("Could not read the runs: {message}").format(message=message)
        )

    def _show_empty(self, empty: bool) -> None:
        self.table.setVisible(not empty)
        self.empty_label.setVisible(empty)

    # -- selection and detail --------------------------------------------------------------

    def selected_run(self) -> RunSummary | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.run(rows[0].row()) if rows else None

    def selected_run_id(self) -> str | None:
        run = self.selected_run()
        return run.run_id if run else None

    def select_run(self, run_id: str) -> None:
        """Select a run now if listed, else once the next listing arrives."""
        row = self.model.row_of(run_id)
        if row is None:
            self.refresh(select=run_id)
        else:
            self.table.selectRow(row)

    def _selection_changed(self, *_: QItemSelection) -> None:
        self._update_buttons()
        run = self.selected_run()
        self._show_detail(run)

    def _show_detail(self, run: RunSummary | None) -> None:
        if run is None:
            self.detail_label.setText("")
            self.detail_model.set_rows([])
            self.history_list.clear()
            self._show_not_imported(())
            return
        self.detail_label.setText(self._detail_text(run))
        if run.run_id != self._detail_wanted:
            self._show_not_imported(())  # another run's files, until this one's are read
        self._detail_wanted = run.run_id
        # While another loads, this one waits its turn (the list changed under the load).
        self._details.run(load_run, self.corpus, run.run_id)

    def _detail_loaded(self, detail: RunDetail) -> None:
        if detail.summary.run_id != self._detail_wanted or self._details.superseded():
            # The selection moved on while it loaded, or the same run is loaded again after
            # a newer listing: an older load must not overwrite what that listing said.
            return
        self.detail_model.set_rows(detail.rows)
        self.detail_label.setText(self._detail_text(detail.summary))
        self.history_list.clear()
        self.history_list.addItems(
            [history_words(h, detail.summary) for h in run_history(detail.record)]
        )
        self._show_not_imported(detail.not_imported)
        self.detail_shown.emit(detail.summary.run_id)

    def _show_not_imported(self, found: Sequence[NotImported]) -> None:
        self.not_imported_list.clear()
        self.not_imported_list.addItems([n.sentence for n in found])
        self.not_imported_label.setText(
            plural(
                len(found),
                self.tr("N&ot imported: 1 file its scan found"),
                self.tr("N&ot imported: %n files its scan found", "", len(found)),
            )
        )
        self.not_imported_label.setVisible(bool(found))
        self.not_imported_list.setVisible(bool(found))

    def _detail_failed(self, message: str) -> None:
        self.detail_model.set_rows([])
        self._show_not_imported(())
        self.detail_label.setText(message)

    def _detail_text(self, run: RunSummary) -> str:
        # An undone run holds nothing in the corpus: its explanation says where it went.
        said = "" if run.status is RunStatus.REVERTED else counts_sentence(run)
        # No id: the import is the row selected; a terminal's id is in the row's tooltip.
        return self.tr("<b>{state}</b> — {explanation} {counts}").format(
            state=run_state_words(run),
            explanation=run_state_explanation(run),
            counts=said,
        )

    # -- resume and cancel -----------------------------------------------------------------

    def set_commit_running(self, running: bool) -> None:
        """While the window commits, no second run is started from here."""
        self._commit_running = running
        self._update_buttons()

    def _update_buttons(self) -> None:
        """What the engine allows for the selected run: resume an interrupted one, retry an
        ended one that did not land whole, cancel any that has not ended."""
        run = self.selected_run()
        idle = not self._commit_running
        self.resume_button.setEnabled(run is not None and run.interrupted and idle)
        self.retry_button.setEnabled(run is not None and can_retry(run.status) and idle)
        self.retry_button.setVisible(run is not None and can_retry(run.status))
        self.resume_button.setVisible(not self.retry_button.isVisibleTo(self))
        self.cancel_run_button.setEnabled(
            run is not None and not run.status.terminal and not self._cancels.is_busy()
        )
        self.undo_button.setEnabled(run is not None and run.status.revertible and idle)
        # An undone run holds nothing in the corpus: it added nothing that is there now.
        added = run is not None and run.status is not RunStatus.REVERTED
        self.added_button.setEnabled(added)
        self.added_action.setEnabled(added)

    def _added_clicked(self, *_: object) -> None:
        run = self.selected_run()
        if run is not None and run.status is not RunStatus.REVERTED:
            self.added_requested.emit(run.run_id)

    def _retry_clicked(self) -> None:
        run = self.selected_run()
        if run is not None and can_retry(run.status) and not self._commit_running:
            self.retry_requested.emit(run.run_id)

    def _resume_clicked(self) -> None:
        run = self.selected_run()
        if run is not None and run.interrupted:
            self.resume_requested.emit(run.run_id)

    def _cancel_clicked(self) -> None:
        run = self.selected_run()
        if run is None or run.status.terminal or self._cancels.is_busy():
            return
        if self._commit_running and self.own_run() == run.run_id:
            self.cancel_own_requested.emit()  # the commit view asks and stops its own worker
            return
        if not confirm_destructive(self, cancel_run_question()):
            return
        self._cancels.run(cancel_interrupted_run, self.corpus, run.run_id)
        self._update_buttons()

    def _undo_clicked(self) -> None:
        run = self.selected_run()
        if run is None or not run.status.revertible or self._commit_running:
            return
        self.open_undo(run)

    def open_undo(self, run: RunSummary, parent: QWidget | None = None) -> UndoDialog:
        """Undo This Import…'s preview of ``run``, opened (``parent``: the window, while
        it closes and this view is disabled)."""
        dialog = UndoDialog(self.corpus, run, parent or self)
        dialog.reverted.connect(lambda run_id: self.refresh(select=run_id))
        dialog.reverted.connect(self.corpus_changed)
        self.undo_dialog = dialog  # the tests drive it; one at a time
        dialog.open()
        return dialog

    def _trash_clicked(self) -> None:
        dialog = TrashDialog(self.corpus, self)
        dialog.restored.connect(lambda run_id: self.refresh(select=run_id))
        dialog.restored.connect(self.corpus_changed)
        self.trash_dialog = dialog
        dialog.open()

    def _cancelled(self, run: RunSummary) -> None:
        self.refresh(select=run.run_id)

    # -- closing ---------------------------------------------------------------------------

    def stop_and_wait(self) -> None:
        """Wait for the listing, loading and cancelling threads; each is short."""
        self._detail_wanted = None
        for slot in (self._lists, self._details, self._cancels):
            slot.close()
