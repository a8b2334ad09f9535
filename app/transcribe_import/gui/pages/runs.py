"""The Runs view: past import runs, newest first, each with its per-item outcomes, and Resume.

A run no process executes and that has not ended (the app was killed, or it was
paused) is *interrupted*; Resume hands it to the commit view, which continues it
with the same ids. Listing and loading happen on workers: a corpus may hold many runs.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QItemSelection,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QStyle,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from transcribe_import.engine.runs.store import RunStatus
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.dialogs import confirm_destructive
from transcribe_import.gui.models.base import format_local
from transcribe_import.gui.pages.commit import (
    OutcomeTableModel,
    counts_sentence,
    make_outcome_view,
    status_explanation,
    status_words,
)
from transcribe_import.gui.workers import (
    CancelRunWorker,
    RunDetail,
    RunDetailWorker,
    RunSummary,
    RunsWorker,
    Worker,
)

RUN_ID_ROLE = Qt.ItemDataRole.UserRole + 1
STATUS_ROLE = Qt.ItemDataRole.UserRole + 2
SORT_ROLE = Qt.ItemDataRole.UserRole

_Index = QModelIndex | QPersistentModelIndex


class RunColumn(enum.IntEnum):
    STARTED = 0
    STATUS = 1
    COMMITTED = 2
    SKIPPED = 3
    FAILED = 4
    NOT_DONE = 5
    PAGES = 6
    FROM = 7


def run_state_words(run: RunSummary) -> str:
    """A run's state as the list shows it: a live run and an interrupted one differ."""
    t = QCoreApplication.translate
    if run.interrupted:
        return t("RunTableModel", "Interrupted, resumable")
    if not run.status.terminal:
        return t("RunTableModel", "Running now")
    return status_words(run.status)


_STATUS_ICON = {
    RunStatus.COMPLETE: QStyle.StandardPixmap.SP_DialogApplyButton,
    RunStatus.PARTIAL: QStyle.StandardPixmap.SP_MessageBoxWarning,
    RunStatus.FAILED: QStyle.StandardPixmap.SP_MessageBoxCritical,
    RunStatus.CANCELLED: QStyle.StandardPixmap.SP_DialogCancelButton,
    RunStatus.CANCELLED_WITH_COMMITS: QStyle.StandardPixmap.SP_DialogCancelButton,
    RunStatus.RUNNING: QStyle.StandardPixmap.SP_MediaPlay,
    RunStatus.PENDING: QStyle.StandardPixmap.SP_MediaPlay,
}


class RunTableModel(QAbstractTableModel):
    """Import runs, one row each, in the order given (newest first, as RunStore lists them)."""

    def __init__(self, runs: Sequence[RunSummary] = (), parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._runs: list[RunSummary] = list(runs)
        self._icons: dict[Any, QIcon] = {}

    def set_runs(self, runs: Sequence[RunSummary]) -> None:
        self.beginResetModel()
        self._runs = list(runs)
        self.endResetModel()

    def run(self, row: int) -> RunSummary:
        return self._runs[row]

    def row_of(self, run_id: str) -> int | None:
        for i, r in enumerate(self._runs):
            if r.run_id == run_id:
                return i
        return None

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._runs)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(RunColumn)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(RunColumn):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            t = QCoreApplication.translate
            return (
                t("RunTableModel", "Started"),
                t("RunTableModel", "Status"),
                t("RunTableModel", "Committed"),
                t("RunTableModel", "Skipped"),
                t("RunTableModel", "Failed"),
                t("RunTableModel", "Not done"),
                t("RunTableModel", "Pages"),
                t("RunTableModel", "From"),
            )[section]
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _alignment(RunColumn(section))
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._runs):
            return None
        run = self._runs[index.row()]
        column = RunColumn(index.column())
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(run, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == RunColumn.STATUS:
                return status_explanation(RunStatus.RUNNING if run.interrupted else run.status)
            if column == RunColumn.FROM:
                return "\n".join(run.roots) or None
            if column == RunColumn.STARTED:
                return QCoreApplication.translate("RunTableModel", "Run {id}").format(id=run.run_id)
            return None
        if role == Qt.ItemDataRole.DecorationRole and column == RunColumn.STATUS:
            return self._icon(run)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _alignment(column)
        if role == RUN_ID_ROLE:
            return run.run_id
        if role == STATUS_ROLE:
            return str(run.status)
        return None

    @staticmethod
    def _display(run: RunSummary, column: RunColumn) -> str:
        if column == RunColumn.STARTED:
            return format_local(run.created_at)
        if column == RunColumn.STATUS:
            return run_state_words(run)
        if column == RunColumn.FROM:
            return ", ".join(r.rstrip("/").rsplit("/", 1)[-1] for r in run.roots)
        value = {
            RunColumn.COMMITTED: run.committed,
            RunColumn.SKIPPED: run.skipped,
            RunColumn.FAILED: run.failed,
            RunColumn.NOT_DONE: run.not_done,
            RunColumn.PAGES: run.pages_committed,
        }[column]
        return str(value)

    def _icon(self, run: RunSummary) -> QIcon:
        key: Any = "interrupted" if run.interrupted else run.status
        if key not in self._icons:
            pixmap = (
                QStyle.StandardPixmap.SP_MediaPause if run.interrupted else _STATUS_ICON[run.status]
            )
            self._icons[key] = QApplication.style().standardIcon(pixmap)
        return self._icons[key]


def _alignment(column: RunColumn) -> Qt.AlignmentFlag:
    if column in (RunColumn.STARTED, RunColumn.STATUS, RunColumn.FROM):
        return Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
    return Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


def confirm_cancel_run(parent: QWidget) -> bool:
    return confirm_destructive(
        parent,
        parent.tr("Cancel Run"),
        parent.tr("End this interrupted import without finishing it?"),
        parent.tr(
            "Its notebooks not yet committed will not be imported. Notebooks already committed "
            "stay in the corpus: cancelling never removes them."
        ),
        parent.tr("Cancel Run"),
        parent.tr("Keep It Resumable"),
    )


class RunsPage(QWidget):
    """Past runs above, the selected run's items below; Resume and Cancel for interrupted runs."""

    resume_requested = Signal(str)  # run id
    listed = Signal()  # the list was (re)loaded and is shown
    detail_shown = Signal(str)  # run id whose outcomes are shown

    def __init__(self, corpus: Corpus, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.corpus = corpus
        self._list_worker: RunsWorker | None = None
        self._list_again = False
        self._detail_worker: RunDetailWorker | None = None
        self._detail_wanted: str | None = None
        self._detail_again = False
        self._cancel_worker: CancelRunWorker | None = None
        self._select_after_list: str | None = None
        self._commit_running = False
        self._closed = False  # once the window closes, queued results start no new thread
        style = self.style()

        self.model = RunTableModel(parent=self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName(self.tr("Import runs, newest first"))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
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

        self.refresh_button = QPushButton(
            style.standardIcon(QStyle.StandardPixmap.SP_BrowserReload), self.tr("Re&fresh")
        )
        self.refresh_button.setAccessibleName(self.tr("List the runs again"))
        self.refresh_button.clicked.connect(self.refresh)
        self.resume_button = QPushButton(
            style.standardIcon(QStyle.StandardPixmap.SP_MediaPlay), self.tr("&Resume")
        )
        self.resume_button.setAccessibleName(self.tr("Resume the selected run"))
        self.resume_button.setToolTip(
            self.tr("Finish the interrupted run with the same ids; what landed is not doubled")
        )
        self.resume_button.clicked.connect(self._resume_clicked)
        self.cancel_run_button = QPushButton(
            style.standardIcon(QStyle.StandardPixmap.SP_DialogCancelButton),
            self.tr("&Cancel Run…"),
        )
        self.cancel_run_button.setAccessibleName(self.tr("Cancel the selected interrupted run"))
        self.cancel_run_button.clicked.connect(self._cancel_clicked)
        buttons = QHBoxLayout()
        buttons.addWidget(self.refresh_button)
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_run_button)
        buttons.addWidget(self.resume_button)

        self.detail_label = QLabel()
        self.detail_label.setWordWrap(True)
        self.detail_label.setAccessibleName(self.tr("Selected run"))
        self.detail_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail_model = OutcomeTableModel(parent=self, live=False)
        self.detail_table = make_outcome_view(self.detail_model, self.tr("Outcomes of the run"))
        detail = QWidget()
        detail_layout = QVBoxLayout(detail)
        detail_layout.setContentsMargins(0, 0, 0, 0)
        detail_layout.addWidget(self.detail_label)
        detail_layout.addWidget(self.detail_table, 1)

        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.table, 1)
        top_layout.addWidget(self.empty_label, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("runsSplitter")
        self.splitter.addWidget(top)
        self.splitter.addWidget(detail)
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
        if self._closed:
            return
        if self._list_worker is not None:
            self._list_again = True
            return
        worker = RunsWorker(self.corpus)
        worker.listed.connect(self._listed)
        worker.failed.connect(self._failed)
        worker.finished.connect(self._list_finished)
        self._list_worker = worker
        self.refresh_button.setEnabled(False)
        worker.start()

    def _listed(self, runs: list[RunSummary]) -> None:
        wanted = self._select_after_list
        self.model.set_runs(runs)
        self._show_empty(not runs)
        row = self.model.row_of(wanted) if wanted else None
        if row is None and runs:
            row = 0
        if row is not None:
            self.table.selectRow(row)
        else:
            self._show_detail(None)
        self.listed.emit()

    def _list_finished(self) -> None:
        worker, self._list_worker = self._list_worker, None
        if worker is None:
            return
        worker.wait()
        self.refresh_button.setEnabled(True)
        if self._list_again:
            self._list_again = False
            self.refresh(select=self._select_after_list)

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
            return
        self.detail_label.setText(self._detail_text(run))
        self._detail_wanted = run.run_id
        if self._detail_worker is None:
            self._load_detail(run.run_id)
        else:
            self._detail_again = True  # the list changed under the load: load it again

    def _load_detail(self, run_id: str) -> None:
        if self._closed:
            return
        worker = RunDetailWorker(self.corpus, run_id)
        worker.loaded.connect(self._detail_loaded)
        worker.failed.connect(self._detail_failed)
        worker.finished.connect(self._detail_finished)
        self._detail_worker = worker
        worker.start()

    def _detail_loaded(self, detail: RunDetail) -> None:
        if detail.summary.run_id != self._detail_wanted:
            return  # the selection moved on while it loaded
        self.detail_model.set_rows(detail.rows)
        self.detail_label.setText(self._detail_text(detail.summary))
        self.detail_shown.emit(detail.summary.run_id)

    def _detail_failed(self, message: str) -> None:
        self.detail_model.set_rows([])
        self.detail_label.setText(message)

    def _detail_finished(self) -> None:
        worker, self._detail_worker = self._detail_worker, None
        if worker is None:
            return
        worker.wait()
        again, self._detail_again = self._detail_again, False
        if again and self._detail_wanted is not None:
            self._load_detail(self._detail_wanted)

    def _detail_text(self, run: RunSummary) -> str:
        status = RunStatus.RUNNING if run.interrupted else run.status
        counts = {
            "committed": run.committed,
            "skipped": run.skipped,
            "failed": run.failed,
            "cancelled_pending": run.not_done if run.status.terminal else 0,
            "pending": 0 if run.status.terminal else run.not_done,
        }
        return self.tr("<b>{state}</b> — {explanation} {counts}<br/>Run {run_id}").format(
            state=run_state_words(run),
            explanation=status_explanation(status),
            counts=counts_sentence(counts, run.pages_committed),
            run_id=run.run_id,
        )

    # -- resume and cancel -----------------------------------------------------------------

    def set_commit_running(self, running: bool) -> None:
        """While the window commits, no second run is started from here."""
        self._commit_running = running
        self._update_buttons()

    def _update_buttons(self) -> None:
        run = self.selected_run()
        can = run is not None and run.interrupted and not self._commit_running
        self.resume_button.setEnabled(can)
        self.cancel_run_button.setEnabled(can and self._cancel_worker is None)

    def _resume_clicked(self) -> None:
        run = self.selected_run()
        if run is not None and run.interrupted:
            self.resume_requested.emit(run.run_id)

    def _cancel_clicked(self) -> None:
        run = self.selected_run()
        if run is None or not run.interrupted or self._closed or not confirm_cancel_run(self):
            return
        worker = CancelRunWorker(self.corpus, run.run_id)
        worker.done.connect(self._cancelled)
        worker.failed.connect(self._failed)
        worker.finished.connect(self._cancel_finished)
        self._cancel_worker = worker
        self._update_buttons()
        worker.start()

    def _cancelled(self, run: RunSummary) -> None:
        self.refresh(select=run.run_id)

    def _cancel_finished(self) -> None:
        worker, self._cancel_worker = self._cancel_worker, None
        if worker is not None:
            worker.wait()
        self._update_buttons()

    # -- closing ---------------------------------------------------------------------------

    def stop_and_wait(self) -> None:
        """Wait for the listing, loading and cancelling threads; each is short."""
        self._closed = True
        workers: list[Worker | None] = [self._list_worker, self._detail_worker, self._cancel_worker]
        self._list_again = False
        self._detail_again = False
        self._detail_wanted = None
        for w in workers:
            if w is not None:
                w.wait()
        self._list_finished()
        self._detail_finished()
        self._cancel_finished()
