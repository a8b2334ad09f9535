"""The Corpus view's fixity panel: the last full audit and its result, each failure in red with
Repair…, an audit started and stopped with a progress bar, and the reminder when it is due.

A view only: the audit, its report and a repair run on worker threads (``TaskSlot``), as the
export does; the engine decides what a failure is, what is due (``api.audit_due``) and what
was repaired, and this panel shows it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator
from pathlib import Path

from PySide6.QtCore import QDateTime, QLocale, QSettings, Qt, QTimeZone
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from transcribe_import.engine import api
from transcribe_import.engine.api import AuditProgress, AuditReport, AuditResult, Corpus
from transcribe_import.engine.audit.model import AuditEnd, RepairRefusal, RepairResult
from transcribe_import.gui.dialogs import FolderKind, choose_folder
from transcribe_import.gui.icons import SP, standard_icon
from transcribe_import.gui.settings_dialog import load_settings
from transcribe_import.gui.widgets import ButtonWords, icon_label, push_button, selectable_text
from transcribe_import.gui.wording import plural
from transcribe_import.gui.workers import ProgressThrottle, TaskSlot

# A failure's line: red, as a person expects damage to be, and dark enough to read.
FAILURE_STYLE = "color: #b3261e;"
# More failures than this are counted, not listed: the panel must not push the notebooks out.
SHOWN_FAILURES = 4


def audit_task(
    corpus: Corpus, should_stop: Callable[[], bool]
) -> Generator[AuditProgress, None, AuditResult]:
    """The rest of the current round (or a new one), its progress throttled for a bar."""
    audit = api.Events(api.run_audit(corpus, api.AuditBudget(), should_stop=should_stop))
    throttle = ProgressThrottle()
    for event in audit:
        if throttle.shows(event.round):
            yield event
    return audit.result


def when(stamp: str) -> str:
    """A log's UTC stamp in the person's own time and format."""
    moment = QDateTime.fromString(stamp[:19], "yyyy-MM-ddTHH:mm:ss")
    moment.setTimeZone(QTimeZone.utc())
    return QLocale().toString(moment.toLocalTime(), QLocale.FormatType.ShortFormat)


class AuditPanel(QGroupBox):
    """Fixity: what the log says, the audit's controls, the failures with Repair…."""

    def __init__(self, corpus: Corpus, settings: QSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Fixity"))
        self.corpus = corpus
        self.settings = settings
        self.report: AuditReport | None = None
        self.last_result: AuditResult | None = None
        self.last_repair: RepairResult | None = None
        self._stop = threading.Event()
        self._report_slot = TaskSlot(self, done=self.show_report, failed=self._failed)
        self._audit_slot = TaskSlot(
            self, progress=self._progress, done=self._audit_done, failed=self._failed
        )
        self._repair_slot = TaskSlot(self, done=self._repair_done, failed=self._failed)
        for slot in (self._audit_slot, self._repair_slot):
            slot.ended.connect(self._task_ended)

        self.summary = selectable_text(QLabel(self.tr("Reading the fixity record…")))
        self.summary.setAccessibleName(self.tr("The last full audit"))
        self.reminder_icon = icon_label()
        icon_size = self.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)
        self.reminder_icon.setFixedSize(icon_size, icon_size)
        self.reminder = selectable_text(QLabel())
        self.reminder.setAccessibleName(self.tr("Audit reminder"))
        self.start_button = push_button(
            ButtonWords(
                self.tr("Start &Audit"),
                self.tr("Start a fixity audit"),
                self.tr(
                    "Re-hash the corpus's files and compare them with their recorded sha256; "
                    "imports go on beside it, and a stopped audit goes on where it stopped"
                ),
            ),
            SP.SP_MediaPlay,
            self.start,
        )
        self.stop_button = push_button(
            ButtonWords(self.tr("S&top Audit"), self.tr("Stop the audit"), ""),
            SP.SP_MediaStop,
            self.stop,
        )
        self.stop_button.hide()
        self.progress_bar = QProgressBar()
        self.progress_bar.setAccessibleName(self.tr("Audit progress"))
        self.progress_bar.hide()
        self.status = selectable_text(QLabel())
        self.status.setAccessibleName(self.tr("What the audit or the repair did"))
        self.status.hide()

        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.progress_bar, 1)
        top.addWidget(self.start_button, 0, Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.stop_button, 0, Qt.AlignmentFlag.AlignTop)
        self.reminder_row = QWidget()
        reminder_layout = QHBoxLayout(self.reminder_row)
        reminder_layout.setContentsMargins(0, 0, 0, 0)
        reminder_layout.addWidget(self.reminder_icon, 0, Qt.AlignmentFlag.AlignTop)
        reminder_layout.addWidget(self.reminder, 1)
        self.reminder_row.hide()
        self.failures_box = QWidget()
        self.failures_layout = QVBoxLayout(self.failures_box)
        self.failures_layout.setContentsMargins(0, 0, 0, 0)
        self.failure_labels: list[QLabel] = []
        self.repair_buttons: list[QPushButton] = []
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.reminder_row)
        layout.addWidget(self.failures_box)
        layout.addWidget(self.status)

    # -- the record --------------------------------------------------------------------

    def refresh(self) -> None:
        """Read the fixity record again (on a worker), unless an audit is writing it now."""
        if not self._audit_slot.is_busy():
            self._report_slot.run(api.audit_report, self.corpus)

    def reminder_days(self) -> int:
        return load_settings(self.settings).audit_reminder_days

    def show_report(self, report: AuditReport) -> None:
        if self._report_slot.superseded():
            return  # read before a newer request (an audit ended, the log changed): moot
        self.report = report
        self.summary.setText(self._summary_words(report))
        days = self.reminder_days()
        due = api.audit_due(report, days)
        self.reminder_row.setVisible(due)
        if due:
            self.reminder_icon.setPixmap(
                standard_icon(SP.SP_MessageBoxWarning).pixmap(self.reminder_icon.size())
            )
            self.reminder.setText(
                self.tr(
                    "No full audit of the corpus has been made yet: start one, so that damage "
                    "a disk does silently is found while a good copy exists."
                )
                if report.last_full_audit is None
                else plural(
                    days,
                    self.tr("The last full audit is older than a day: start one."),
                    self.tr("The last full audit is older than %n days: start one.", "", days),
                )
            )
        self._show_failures(report)

    def _summary_words(self, report: AuditReport) -> str:
        if report.files_total == 0:
            return self.tr("No file to check yet.")
        full = report.last_full_audit
        if full is None:
            said = self.tr("No full audit yet: {checked} of {total} files checked.").format(
                checked=QLocale().toString(report.files_checked),
                total=QLocale().toString(report.files_total),
            )
        elif full.failures:
            said = plural(
                full.failures,
                self.tr("Last full audit finished {when}: 1 file failed."),
                self.tr("Last full audit finished {when}: %n files failed.", "", full.failures),
            ).format(when=when(full.finished_at))
        else:
            said = self.tr(
                "Last full audit finished {when}: every file held its recorded bytes."
            ).format(when=when(full.finished_at))
        if report.round and report.left_in_round:
            left = report.left_in_round
            said += " " + plural(
                left,
                self.tr("1 file left in the audit under way."),
                self.tr("%n files left in the audit under way.", "", left),
            )
        return said

    def _show_failures(self, report: AuditReport) -> None:
        for widget in self.failure_labels + self.repair_buttons:
            widget.deleteLater()
        self.failure_labels, self.repair_buttons = [], []
        while self.failures_layout.count():
            self.failures_layout.takeAt(0)
        words = api.failure_words(report.failures)
        for text in words[:SHOWN_FAILURES]:
            label = selectable_text(QLabel(text))
            label.setStyleSheet(FAILURE_STYLE)
            label.setAccessibleName(self.tr("A file that failed its fixity check"))
            button = push_button(
                ButtonWords(
                    self.tr("Repair…"),
                    self.tr("Repair from a copy"),
                    self.tr(
                        "Choose an exported bag, another corpus's data folder or a backup: each "
                        "failed file is copied back only where its bytes have the recorded sha256"
                    ),
                ),
                None,
                self.choose_and_repair,
            )
            button.setEnabled(not self.is_running())
            row = QHBoxLayout()
            row.addWidget(label, 1)
            row.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
            self.failures_layout.addLayout(row)
            self.failure_labels.append(label)
            self.repair_buttons.append(button)
        if len(words) > SHOWN_FAILURES:
            more = QLabel(
                self.tr(
                    "…and %n more: `transcribe-import audit --report` lists them all.",
                    "",
                    len(words) - SHOWN_FAILURES,
                )
            )
            more.setStyleSheet(FAILURE_STYLE)
            self.failures_layout.addWidget(more)
            self.failure_labels.append(more)

    # -- the audit ---------------------------------------------------------------------

    def is_running(self) -> bool:
        return self._audit_slot.is_busy() or self._repair_slot.is_busy()

    def start(self) -> None:
        if self.is_running():
            return
        self._stop.clear()
        self._set_running(True, stoppable=True)
        self.progress_bar.setRange(0, 0)
        self.status.setText(self.tr("Auditing: reading every file not yet checked in this round…"))
        self.status.show()
        self._audit_slot.run(audit_task, self.corpus, self._stop.is_set)

    def stop(self) -> None:
        """Stop after the file being read; what was checked is recorded."""
        if self._audit_slot.is_busy():
            self._stop.set()
            self.stop_button.setEnabled(False)
            self.status.setText(self.tr("Stopping after the file being read…"))

    def _set_running(self, running: bool, *, stoppable: bool = False) -> None:
        """While an audit (``stoppable``) or a repair runs: its bar, Stop for an audit."""
        self.start_button.setVisible(not running)
        self.stop_button.setVisible(running and stoppable)
        self.stop_button.setEnabled(True)
        self.progress_bar.setVisible(running)
        self.summary.setVisible(not running)
        for button in self.repair_buttons:
            button.setEnabled(not running)

    def _progress(self, event: AuditProgress) -> None:
        self.progress_bar.setRange(0, max(1, event.files_total))
        self.progress_bar.setValue(event.files_done)
        self.progress_bar.setFormat(f"{event.files_done} / {event.files_total}")
        self.status.setText(self.tr("Auditing {current}").format(current=event.current))

    def _audit_done(self, result: AuditResult) -> None:
        self.last_result = result
        done = result.files_checked
        checked = plural(done, self.tr("1 file checked"), self.tr("%n files checked", "", done))
        failed = (
            self.tr("%n failed", "", len(result.failures))
            if result.failures
            else self.tr("all held their recorded bytes")
        )
        if result.end is AuditEnd.ROUND_COMPLETE:
            end = self.tr("The audit is complete: every file of the corpus was checked.")
        else:
            left = result.left_in_round
            end = plural(
                left,
                self.tr("Stopped: 1 file left; Start Audit goes on where it stopped."),
                self.tr("Stopped: %n files left; Start Audit goes on where it stopped.", "", left),
            )
        self.status.setText(f"{checked}, {failed}. {end}")

    def _task_ended(self) -> None:
        self._set_running(False)
        self.refresh()

    def _failed(self, message: str) -> None:
        self.status.setText(message)
        self.status.show()

    # -- repair ------------------------------------------------------------------------

    def choose_and_repair(self) -> None:
        folder = choose_folder(
            self, self.settings, FolderKind.COPIES, self.tr("Repair From a Bag or a Backup")
        )
        if folder is not None:
            self.repair_from(folder)

    def repair_from(self, folder: Path) -> None:
        if self.is_running():
            return
        self._set_running(True)
        self.progress_bar.setRange(0, 0)
        self.status.setText(self.tr("Repairing from {folder}…").format(folder=folder))
        self.status.show()
        self._repair_slot.run(api.repair_from, self.corpus, folder)

    def _repair_done(self, result: RepairResult) -> None:
        self.last_repair = result
        lines = [
            self.tr("Repaired {file} from {copy}.").format(
                file=api.file_words(r.file), copy=r.copied_from
            )
            for r in result.repaired
        ]
        for n in result.not_repaired:
            lines.append(
                self.tr("Not repaired: {file}: {why}.").format(
                    file=api.file_words(n.file), why=self._refusal_words(n.reason, n.copy_seen)
                )
            )
        if not lines:
            lines.append(self.tr("No file failed its last check: nothing to repair."))
        self.status.setText("\n".join(lines))

    def _refusal_words(self, reason: RepairRefusal, seen: str | None) -> str:
        if reason is RepairRefusal.OTHER_BYTES:
            return self.tr("the copy at {copy} has other bytes").format(copy=seen)
        if reason is RepairRefusal.BUSY:
            return self.tr("an import is writing into its notebook; try again when it ends")
        if reason is RepairRefusal.CHANGED:
            return self.tr("its notebook no longer records it with that sha256")
        return self.tr("no file in that folder has its recorded sha256")

    def stop_and_wait(self) -> None:
        """The window is closing: the audit stops after its file; every task is waited for."""
        self._stop.set()
        for slot in (self._audit_slot, self._repair_slot, self._report_slot):
            slot.close()
