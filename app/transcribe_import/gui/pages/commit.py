"""The commit step: a worker drives execute_run while a live table shows every item's outcome.

The executor reports from its own threads; the worker queues the events and the page
takes them in time-budgeted batches (about 50 ms of work per turn of the event loop,
as Picard applies results), so a burst of outcomes never freezes the window. Pause and
Cancel only ask the engine (RunControl); what the run ended as is the engine's word.
"""

from __future__ import annotations

import collections
import enum
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QStyle,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from transcribe_import.engine.media.decode import RenderSettings
from transcribe_import.engine.planning.plan import ImportPlan, Op
from transcribe_import.engine.runs.executor import EventKind, RunEvent, RunResult
from transcribe_import.engine.runs.store import ItemOutcome, ItemState, RunStatus
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.dialogs import confirm_destructive
from transcribe_import.gui.workers import CommitStart, CommitWorker, OutcomeRow

# How long one turn of the event loop may spend applying outcomes before it lets the
# window paint and take input again.
BATCH_BUDGET_S = 0.05

# What the tests and the Runs view read: the raw state, not the words.
STATE_ROLE = Qt.ItemDataRole.UserRole + 1
ITEM_ID_ROLE = Qt.ItemDataRole.UserRole + 2

_Index = QModelIndex | QPersistentModelIndex


def plural(n: int, one: str, many: str) -> str:
    """``one`` when n is 1, else ``many``: right in English with no translation loaded.

    Both texts come from tr() at the call site (so lupdate finds them); ``many`` is given
    n, so a translation's own plural forms still apply to it.
    """
    return one if n == 1 else many


def counts_sentence(counts: dict[str, int], pages: int) -> str:
    """What a run committed, skipped, failed and left undone, in one sentence."""
    t = QCoreApplication.translate
    c = counts["committed"]
    parts = [
        plural(
            c,
            t("RunCounts", "1 notebook committed"),
            t("RunCounts", "%Ln notebooks committed", "", c),
        )
        + " ("
        + plural(pages, t("RunCounts", "1 page"), t("RunCounts", "%Ln pages", "", pages))
        + ")"
    ]
    if counts["skipped"]:
        parts.append(t("RunCounts", "%Ln skipped", "", counts["skipped"]))
    if counts["failed"]:
        parts.append(t("RunCounts", "%Ln failed", "", counts["failed"]))
    if counts["cancelled_pending"]:
        parts.append(
            t("RunCounts", "%Ln cancelled before they started", "", counts["cancelled_pending"])
        )
    if counts["pending"]:
        parts.append(t("RunCounts", "%Ln not done yet", "", counts["pending"]))
    return ", ".join(parts) + "."


def status_words(status: RunStatus) -> str:
    """A run's status in words; ``cancelled`` and ``cancelled_with_commits`` never read alike."""
    t = QCoreApplication.translate
    return {
        RunStatus.COMPLETE: t("RunStatus", "Complete"),
        RunStatus.PARTIAL: t("RunStatus", "Partly imported"),
        RunStatus.FAILED: t("RunStatus", "Failed"),
        RunStatus.CANCELLED: t("RunStatus", "Cancelled, nothing committed"),
        RunStatus.CANCELLED_WITH_COMMITS: t("RunStatus", "Cancelled after some commits"),
        RunStatus.RUNNING: t("RunStatus", "Running"),
        RunStatus.PENDING: t("RunStatus", "Not started"),
    }[status]


def status_explanation(status: RunStatus) -> str:
    """One sentence on what the status means for the corpus."""
    t = QCoreApplication.translate
    return {
        RunStatus.COMPLETE: t("RunStatus", "Every notebook was committed, or skipped as planned."),
        RunStatus.PARTIAL: t(
            "RunStatus",
            "Some notebooks were committed and some failed; committing the same plan again "
            "retries only what did not land.",
        ),
        RunStatus.FAILED: t("RunStatus", "Nothing was committed."),
        RunStatus.CANCELLED: t(
            "RunStatus",
            "The import was cancelled before anything was committed: the corpus is unchanged.",
        ),
        RunStatus.CANCELLED_WITH_COMMITS: t(
            "RunStatus",
            "The import was cancelled; the notebooks committed before the cancel stay in the "
            "corpus.",
        ),
        RunStatus.RUNNING: t(
            "RunStatus", "The run stopped before its end; resume it to finish with the same ids."
        ),
        RunStatus.PENDING: t("RunStatus", "The run has not started."),
    }[status]


def state_words(row: OutcomeRow, live: bool = True) -> str:
    """The outcome in words; a pending item is "waiting" in a live run, "not done" in a record."""
    t = QCoreApplication.translate
    if row.state is ItemState.PENDING:
        if row.started:
            return t("ItemState", "Importing…")
        return t("ItemState", "Waiting") if live else t("ItemState", "Not done yet")
    return {
        ItemState.COMMITTED: t("ItemState", "Committed"),
        ItemState.SKIPPED: t("ItemState", "Skipped"),
        ItemState.FAILED: t("ItemState", "Failed"),
        ItemState.CANCELLED_PENDING: t("ItemState", "Cancelled"),
    }[row.state]


def outcome_details(row: OutcomeRow) -> str:
    """Why an item ended as it did: the skip reason, the failure message, what landed."""
    t = QCoreApplication.translate
    o: ItemOutcome = row.outcome
    dups = len(o.skipped_sources)
    if o.state is ItemState.COMMITTED:
        where = (
            t("ItemState", "into a new notebook")
            if row.op is Op.CREATE_NOTEBOOK
            else t("ItemState", "into the existing notebook")
        )
        pages = plural(
            o.page_count, t("ItemState", "1 page"), t("ItemState", "%Ln pages", "", o.page_count)
        )
        text = f"{pages} {where}"
        if dups:
            text += "; " + plural(
                dups,
                t("ItemState", "1 duplicate file skipped"),
                t("ItemState", "%Ln duplicate files skipped", "", dups),
            )
        return text
    if o.state is ItemState.SKIPPED:
        if o.skip_classification == "all_duplicates":
            return t("ItemState", "Every file is already in the corpus")
        return t("ItemState", "Nothing to import: every file was left out")
    if o.state is ItemState.FAILED:
        return o.failure_message or (o.failure_code or "")
    if o.state is ItemState.CANCELLED_PENDING:
        return t("ItemState", "Not imported: the run was cancelled before it started")
    if row.started:
        return plural(
            row.pages_planned,
            t("ItemState", "1 page being imported"),
            t("ItemState", "%Ln pages being imported", "", row.pages_planned),
        )
    return ""


class OutcomeColumn(enum.IntEnum):
    NOTEBOOK = 0
    PAGES = 1
    OUTCOME = 2
    DETAILS = 3


_STATE_ICON = {
    ItemState.COMMITTED: QStyle.StandardPixmap.SP_DialogApplyButton,
    ItemState.SKIPPED: QStyle.StandardPixmap.SP_MessageBoxInformation,
    ItemState.FAILED: QStyle.StandardPixmap.SP_MessageBoxCritical,
    ItemState.CANCELLED_PENDING: QStyle.StandardPixmap.SP_DialogCancelButton,
}


class OutcomeTableModel(QAbstractTableModel):
    """A run's items, one row each, with their outcome as the engine recorded it."""

    def __init__(
        self, rows: Sequence[OutcomeRow] = (), parent: QObject | None = None, *, live: bool = True
    ) -> None:
        super().__init__(parent)
        self._live = live  # a run being executed now, not one read from its record
        self._rows: list[OutcomeRow] = list(rows)
        self._row_of = {r.item_id: i for i, r in enumerate(self._rows)}
        self._icons: dict[Any, QIcon] = {}

    def set_rows(self, rows: Sequence[OutcomeRow]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self._row_of = {r.item_id: i for i, r in enumerate(self._rows)}
        self.endResetModel()

    def rows(self) -> list[OutcomeRow]:
        return list(self._rows)

    def row(self, i: int) -> OutcomeRow:
        return self._rows[i]

    def row_of(self, item_id: str) -> int | None:
        return self._row_of.get(item_id)

    def update_rows(self, changed: Sequence[OutcomeRow]) -> None:
        """Replace rows by item id; one dataChanged for the span they cover."""
        touched = []
        for row in changed:
            i = self._row_of.get(row.item_id)
            if i is not None:
                self._rows[i] = row
                touched.append(i)
        if touched:
            self.dataChanged.emit(
                self.index(min(touched), 0), self.index(max(touched), len(OutcomeColumn) - 1)
            )

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(OutcomeColumn)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(OutcomeColumn):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            t = QCoreApplication.translate
            return (
                t("OutcomeTableModel", "Notebook"),
                t("OutcomeTableModel", "Pages"),
                t("OutcomeTableModel", "Outcome"),
                t("OutcomeTableModel", "Details"),
            )[section]
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _alignment(OutcomeColumn(section))
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        column = OutcomeColumn(index.column())
        if role == Qt.ItemDataRole.DisplayRole:
            if column == OutcomeColumn.NOTEBOOK:
                return row.label
            if column == OutcomeColumn.PAGES:
                done = row.outcome.page_count
                if row.state is ItemState.COMMITTED and done != row.pages_planned:
                    return f"{done} / {row.pages_planned}"
                return str(row.pages_planned)
            if column == OutcomeColumn.OUTCOME:
                return state_words(row, self._live)
            return outcome_details(row)
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == OutcomeColumn.DETAILS:
                return outcome_details(row) or None
            if column == OutcomeColumn.NOTEBOOK:
                return QCoreApplication.translate("OutcomeTableModel", "Notebook id: {id}").format(
                    id=row.notebook_id
                )
            return None
        if role == Qt.ItemDataRole.DecorationRole and column == OutcomeColumn.OUTCOME:
            return self._icon(row)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _alignment(column)
        if role == Qt.ItemDataRole.AccessibleTextRole and column == OutcomeColumn.OUTCOME:
            details = outcome_details(row)
            words = state_words(row, self._live)
            return f"{words}: {details}" if details else words
        if role == STATE_ROLE:
            return str(row.state)
        if role == ITEM_ID_ROLE:
            return row.item_id
        return None

    def _icon(self, row: OutcomeRow) -> QIcon | None:
        key: Any = "started" if row.started and row.state is ItemState.PENDING else row.state
        pixmap = (
            QStyle.StandardPixmap.SP_MediaPlay if key == "started" else _STATE_ICON.get(row.state)
        )
        if pixmap is None:
            return None
        if key not in self._icons:
            self._icons[key] = QApplication.style().standardIcon(pixmap)
        return self._icons[key]


def _alignment(column: OutcomeColumn) -> Qt.AlignmentFlag:
    if column == OutcomeColumn.PAGES:
        return Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
    return Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter


def make_outcome_view(model: OutcomeTableModel, name: str) -> QTableView:
    """A read-only table of outcomes, sized for reading, shared by the commit and runs views."""
    view = QTableView()
    view.setModel(model)
    view.setAccessibleName(name)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    view.verticalHeader().hide()
    header = view.horizontalHeader()
    header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    header.setSectionResizeMode(OutcomeColumn.DETAILS, QHeaderView.ResizeMode.Stretch)
    header.resizeSection(OutcomeColumn.NOTEBOOK, 240)
    header.resizeSection(OutcomeColumn.PAGES, 70)
    header.resizeSection(OutcomeColumn.OUTCOME, 130)
    return view


def format_duration(seconds: float) -> str:
    t = QCoreApplication.translate
    seconds = max(0, round(seconds))
    if seconds < 60:
        return t("CommitPage", "%n s", "", seconds)
    minutes = round(seconds / 60)
    if minutes < 60:
        return t("CommitPage", "%n min", "", minutes)
    return t("CommitPage", "{h} h {m} min").format(h=minutes // 60, m=minutes % 60)


def confirm_cancel(parent: QWidget) -> bool:
    """Ask before cancelling; says plainly that committed notebooks stay."""
    return confirm_destructive(
        parent,
        parent.tr("Cancel Import"),
        parent.tr("Cancel this import?"),
        parent.tr(
            "Notebooks not started yet will not be imported, and the one being imported now "
            "is rolled back. Notebooks already committed stay in the corpus: cancelling never "
            "removes them."
        ),
        parent.tr("Cancel Import"),
        parent.tr("Keep Importing"),
    )


class CommitPage(QWidget):
    """Commit or resume one run, show its items' outcomes live, and end in the engine's words."""

    running_changed = Signal(bool)
    run_finished = Signal(object)  # RunResult, or None when the run stopped on an error
    plan_invalid = Signal(object)  # ValidationReport: back to review
    show_run_requested = Signal(str)  # run id
    new_import_requested = Signal()
    open_corpus_requested = Signal()
    resume_requested = Signal(str)  # run id; resuming needs the window's settings

    def __init__(self, corpus: Corpus, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.corpus = corpus
        self.run_id: str | None = None
        self.result: RunResult | None = None
        self._worker: CommitWorker | None = None
        self._backlog: collections.deque[RunEvent] = collections.deque()
        self._drain_scheduled = False
        self._pages_done = 0
        self._pages_total = 0
        self._pages_at_start = 0
        self._started_at = 0.0
        self._ended_at = 0.0
        self._stopping = ""
        self.batches_applied = 0  # how many time-budgeted batches ran (the bench reads it)

        self.headline = QLabel()
        self.headline.setAccessibleName(self.tr("Import status"))
        font = self.headline.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.headline.setFont(font)
        self.summary_label = QLabel()
        self.summary_label.setWordWrap(True)
        self.summary_label.setAccessibleName(self.tr("Import summary"))
        self.summary_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.progress_bar = QProgressBar()
        self.progress_bar.setAccessibleName(self.tr("Pages imported"))
        self.progress_bar.setTextVisible(True)
        self.rate_label = QLabel()
        self.rate_label.setAccessibleName(self.tr("Import speed and time left"))

        self.model = OutcomeTableModel(parent=self)
        self.table = make_outcome_view(self.model, self.tr("Item outcomes"))

        style = self.style()
        self.pause_button = QPushButton(
            style.standardIcon(QStyle.StandardPixmap.SP_MediaPause), self.tr("&Pause")
        )
        self.pause_button.setAccessibleName(self.tr("Pause the import"))
        self.pause_button.setToolTip(
            self.tr("Stop at the next safe point; the run can be resumed from Runs")
        )
        self.pause_button.clicked.connect(self.pause)
        self.cancel_button = QPushButton(
            style.standardIcon(QStyle.StandardPixmap.SP_MediaStop), self.tr("&Cancel Import…")
        )
        self.cancel_button.setAccessibleName(self.tr("Cancel the import"))
        self.cancel_button.setToolTip(
            self.tr("Stop importing; notebooks already committed stay in the corpus")
        )
        self.cancel_button.clicked.connect(self.ask_cancel)
        self.resume_button = QPushButton(
            style.standardIcon(QStyle.StandardPixmap.SP_MediaPlay), self.tr("&Resume")
        )
        self.resume_button.setAccessibleName(self.tr("Resume the paused import"))
        self.resume_button.clicked.connect(self._resume_clicked)
        self.open_folder_button = QPushButton(
            style.standardIcon(QStyle.StandardPixmap.SP_DirOpenIcon),
            self.tr("&Open Corpus Folder"),
        )
        self.open_folder_button.setAccessibleName(self.tr("Open the corpus folder"))
        self.open_folder_button.clicked.connect(self.open_corpus_requested)
        self.show_run_button = QPushButton(
            style.standardIcon(QStyle.StandardPixmap.SP_FileDialogDetailedView),
            self.tr("Show in &Runs"),
        )
        self.show_run_button.setAccessibleName(self.tr("Show this run in the Runs view"))
        self.show_run_button.clicked.connect(self._show_run_clicked)
        self.new_import_button = QPushButton(
            style.standardIcon(QStyle.StandardPixmap.SP_FileDialogNewFolder),
            self.tr("&New Import"),
        )
        self.new_import_button.setAccessibleName(self.tr("Start a new import"))
        self.new_import_button.clicked.connect(self.new_import_requested)

        buttons = QHBoxLayout()
        for b in (self.pause_button, self.resume_button, self.cancel_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        for b in (self.open_folder_button, self.show_run_button, self.new_import_button):
            buttons.addWidget(b)

        layout = QVBoxLayout(self)
        layout.addWidget(self.headline)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.progress_bar)
        layout.addWidget(self.rate_label)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)

        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self._show_progress)
        self._set_buttons(running=False, finished=False)

    # -- starting --------------------------------------------------------------------------

    def is_running(self) -> bool:
        return self._worker is not None

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

    def _start(self, worker: CommitWorker) -> None:
        assert self._worker is None, "one commit at a time"
        self.result = None
        self.run_id = worker.run_id
        self._stopping = ""
        self._backlog.clear()
        self.model.set_rows([])
        self.progress_bar.setRange(0, 0)  # busy until the run says how many pages
        self.rate_label.clear()
        worker.prepared.connect(self._prepared)
        worker.events_ready.connect(self._events_ready)
        worker.invalid.connect(self._invalid)
        worker.run_ended.connect(self._run_ended)
        worker.failed.connect(self._failed)
        worker.finished.connect(self._worker_finished)
        self._worker = worker
        self._set_buttons(running=True, finished=False)
        self.running_changed.emit(True)
        worker.start()

    def _prepared(self, start: CommitStart) -> None:
        self.run_id = start.run_id
        self.model.set_rows(start.rows)
        self._pages_done = self._pages_at_start = start.pages_done
        self._pages_total = start.pages_total
        self._started_at = time.monotonic()
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
            self.tr("Import run {run}. Each notebook is committed whole or not at all.").format(
                run=start.run_id
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
        self.batches_applied += 1
        self._show_progress()
        if self._backlog and not self._drain_scheduled:
            self._drain_scheduled = True
            QTimer.singleShot(0, self._apply_backlog)

    def _apply(self, event: RunEvent, changed: dict[str, OutcomeRow]) -> None:
        if event.pages_total:
            self._pages_done = event.pages_done
            self._pages_total = event.pages_total
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
        elif event.kind is EventKind.ITEM_FINISHED and event.outcome is not None:
            changed[event.item_id] = current.with_outcome(event.outcome)

    def _show_progress(self) -> None:
        total = max(self._pages_total, 0)
        if total == 0 and self._worker is not None and not self.model.rowCount():
            return  # still busy: the run has not said how many pages
        self.progress_bar.setRange(0, max(total, 1))
        self.progress_bar.setValue(min(self._pages_done, max(total, 1)) if total else 1)
        self.progress_bar.setFormat(
            self.tr("%v of %m pages") if total else self.tr("No pages to import")
        )
        if self._worker is None or self._stopping or self.result is not None:
            return  # the end says how long it took instead
        elapsed = time.monotonic() - self._started_at
        done_now = self._pages_done - self._pages_at_start
        if done_now <= 0 or elapsed <= 0:
            self.rate_label.setText(self.tr("Starting…"))
            return
        rate = done_now / elapsed
        left = (total - self._pages_done) / rate if rate > 0 else 0
        self.rate_label.setText(
            self.tr("{rate} pages/s · about {left} left").format(
                rate=f"{rate:.1f}", left=format_duration(left)
            )
        )

    # -- pause and cancel ------------------------------------------------------------------

    def pause(self) -> None:
        """Stop at the next safe point; the run stays resumable."""
        if self._worker is None or self._stopping:
            return
        self._worker.pause()
        self._show_stopping(self.tr("Pausing at the next safe point…"))

    def ask_cancel(self) -> None:
        if self._worker is None or self._stopping:
            return
        if confirm_cancel(self):
            self.cancel()

    def cancel(self) -> None:
        """Cancel without asking (the window asked already)."""
        if self._worker is None:
            return
        self._worker.cancel()
        self._show_stopping(self.tr("Cancelling… items in progress are rolled back."))

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

    def _run_ended(self, result: RunResult) -> None:
        self._ended_at = time.monotonic()
        self._flush()
        self.result = result
        # The record is the truth: rows show what it says, not what events we saw.
        outcomes = result.record.outcomes()
        self.model.update_rows(
            [
                r.with_outcome(outcomes[r.item_id])
                for r in self.model.rows()
                if r.item_id in outcomes
            ]
        )
        counts = result.record.counts()
        pages = result.record.summary()["pages_committed"]
        if result.already_done:
            self.headline.setText(self.tr("Already imported"))
            summary = self.tr(
                "This plan was imported before (run {run}, {status}); nothing was done."
            ).format(run=result.run_id, status=status_words(result.status).lower())
        elif result.paused or result.superseded or not result.status.terminal:
            self.headline.setText(self.tr("Paused"))
            summary = self.tr(
                "The import stopped at a safe point. Resume it here or from Runs; it continues "
                "with the same ids."
            )
        else:
            self.headline.setText(status_words(result.status))
            summary = status_explanation(result.status)
        summary += " " + self._counts_sentence(counts, pages)
        for problem in result.verification_problems:
            summary += "\n" + problem
        self.summary_label.setText(summary)
        self.rate_label.setText(self._elapsed_sentence())
        self._show_progress()

    def _counts_sentence(self, counts: dict[str, int], pages: int) -> str:
        return counts_sentence(counts, pages)

    def last_run_pages(self) -> tuple[int, float]:
        """Pages committed by this attempt and the seconds it took (the benchmark reads it)."""
        end = self._ended_at or time.monotonic()
        return self._pages_done - self._pages_at_start, max(0.0, end - self._started_at)

    def _elapsed_sentence(self) -> str:
        if not self._started_at:
            return ""
        done, elapsed = self.last_run_pages()
        rate = done / elapsed if elapsed > 0 else 0.0
        return self.tr("{pages} pages in {time} ({rate} pages/s).").format(
            pages=done, time=format_duration(elapsed), rate=f"{rate:.1f}"
        )

    def _invalid(self, report: object) -> None:
        self.headline.setText(self.tr("The plan needs another look"))
        self.summary_label.setText(
            self.tr("Files changed since the plan was checked; nothing was committed.")
        )
        self.plan_invalid.emit(report)

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

    def _worker_finished(self) -> None:
        worker, self._worker = self._worker, None
        if worker is None:
            return
        worker.wait()  # `finished` comes just before the thread ends
        self._tick.stop()
        self._stopping = ""
        paused = self.result is not None and not self.result.status.terminal
        self._set_buttons(running=False, finished=True, resumable=paused or self.result is None)
        self.running_changed.emit(False)
        self.run_finished.emit(self.result)

    def wait(self) -> None:
        """Block until the worker has ended (closing, tests); it must have been told to stop."""
        if self._worker is not None:
            self._worker.wait()
            self._worker_finished()

    def _set_buttons(self, *, running: bool, finished: bool, resumable: bool = False) -> None:
        self.pause_button.setVisible(running)
        self.cancel_button.setVisible(running)
        self.pause_button.setEnabled(running)
        self.cancel_button.setEnabled(running)
        self.resume_button.setVisible(finished and resumable and self.run_id is not None)
        for b in (self.open_folder_button, self.show_run_button, self.new_import_button):
            b.setVisible(finished)
        self.show_run_button.setEnabled(self.run_id is not None)
        if running:
            self.pause_button.setFocus()
        elif finished:
            self.new_import_button.setDefault(True)

    def _show_run_clicked(self) -> None:
        if self.run_id is not None:
            self.show_run_requested.emit(self.run_id)

    def _resume_clicked(self) -> None:
        if self.run_id is not None:
            self.resume_requested.emit(self.run_id)
