"""The scan step: files found and the folder being read, while a worker scans and plans.

Progress arrives at most ten times a second (the worker throttles what the engine
yields), and each update only sets a few labels, so a tree of 100,000 files keeps
the window responsive. Cancel asks the engine's scan to stop; nothing is planned.
"""

from __future__ import annotations

from PySide6.QtCore import QLocale, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QSizePolicy,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from transcribe_import.engine import api
from transcribe_import.engine.api import Corpus
from transcribe_import.engine.planning.scan_progress import ScanPhase, ScanProgress
from transcribe_import.gui.icons import SP
from transcribe_import.gui.pages.base import WorkerPage
from transcribe_import.gui.values import ScanOutcome
from transcribe_import.gui.widgets import headline_label, push_button
from transcribe_import.gui.wording import cancel_scan_words, plural, time_left_words
from transcribe_import.gui.workers import ScanWorker, StepPace


class ElidedLabel(QLabel):
    """One line of text that is shortened in the middle to fit, with the whole of it as tooltip.

    Paths are told apart by their ends ("…/box 3/notebook 12"), so the middle goes.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

    def set_full_text(self, text: str) -> None:
        self._full = text
        self.setToolTip(text)
        self._elide()

    def full_text(self) -> str:
        return self._full

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        metrics = self.fontMetrics()
        self.setText(metrics.elidedText(self._full, Qt.TextElideMode.ElideMiddle, self.width()))


class ScanPage(WorkerPage[ScanWorker]):
    """Shows one scan's progress; emits ``planned`` with the plan, or ``cancelled``/``failed``."""

    planned = Signal(object)  # ScanOutcome
    cancelled = Signal()
    failed = Signal(str)

    def __init__(self, corpus: Corpus, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.corpus = corpus
        self._closed = False
        # Cancel was pressed: a plan that arrives after it (made, or already on its way to
        # this thread, when the worker was told) is dropped, never opened for review.
        self._cancel_asked = False
        self.updates = 0  # progress updates shown (the tests check the throttle with it)
        # The reading of the files found: how long it has left (100,000 files: a minute).
        self._reading_pace = StepPace()

        self.headline = headline_label(self.tr("Scan status"))
        self.roots_label = ElidedLabel()
        self.roots_label.setAccessibleName(self.tr("Folders and files being scanned"))

        self.found_label = QLabel()
        self.found_label.setAccessibleName(self.tr("Page files found"))
        self.progress_bar = QProgressBar()
        self.progress_bar.setAccessibleName(self.tr("Scan progress"))
        self.current_caption = QLabel(self.tr("Reading:"))
        self.current_label = ElidedLabel()
        self.current_label.setAccessibleName(self.tr("Folder being read"))
        self.current_caption.setBuddy(self.current_label)

        self.cancel_button = push_button(cancel_scan_words(), SP.SP_MediaStop, self.cancel)

        current_row = QHBoxLayout()
        current_row.addWidget(self.current_caption)
        current_row.addWidget(self.current_label, 1)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)

        # A column of readable width in the middle of the page, not a bar across a wide window.
        column = QWidget()
        column.setMaximumWidth(720)
        column_layout = QVBoxLayout(column)
        icon = QLabel()
        icon.setPixmap(self.style().standardIcon(QStyle.StandardPixmap.SP_DirOpenIcon).pixmap(48))
        column_layout.addWidget(icon)
        column_layout.addWidget(self.headline)
        column_layout.addWidget(self.roots_label)
        column_layout.addSpacing(12)
        column_layout.addWidget(self.found_label)
        column_layout.addWidget(self.progress_bar)
        column_layout.addLayout(current_row)
        middle = QHBoxLayout()
        middle.addStretch(1)
        middle.addWidget(column, 3)
        middle.addStretch(1)

        layout = QVBoxLayout(self)
        layout.addStretch(1)
        layout.addLayout(middle)
        layout.addStretch(2)
        layout.addLayout(buttons)

    def start(self, request: api.PlanRequest) -> None:
        assert self._worker is None, "one scan at a time"
        if self._closed:
            return
        worker = ScanWorker(self.corpus, request)
        worker.progress.connect(self._progress)
        worker.planned.connect(self._planned)
        worker.cancelled.connect(self.cancelled)
        worker.failed.connect(self.failed)
        self.updates = 0
        self._reading_pace.restart()
        self._cancel_asked = False
        names = ", ".join(str(r) for r in request.roots)
        self.headline.setText(self.tr("Looking for page files…"))
        self.roots_label.set_full_text(self.tr("In {names}").format(names=names))
        self.found_label.setText(self.tr("No page files found yet"))
        self.progress_bar.setRange(0, 0)  # busy: the walk does not know the total
        self.current_label.set_full_text("")
        self.cancel_button.setEnabled(True)
        self.cancel_button.setFocus()
        self._start_worker(worker)

    def cancel(self) -> None:
        if self._worker is not None:
            self._cancel_asked = True
            self._worker.stop()
            self.cancel_button.setEnabled(False)
            self.headline.setText(self.tr("Stopping the scan…"))

    def _planned(self, outcome: ScanOutcome) -> None:
        if self._cancel_asked:
            self.cancelled.emit()
        else:
            self.planned.emit(outcome)

    def stop_and_wait(self) -> None:
        """Stop the scan and wait for its thread (closing the window); it ends within ms."""
        self._closed = True
        if self._worker is not None:
            self._worker.stop()
        self._workers.wait()

    def _progress(self, event: ScanProgress) -> None:
        self.updates += 1
        locale = QLocale()
        found = locale.toString(event.found)
        if event.phase is ScanPhase.WALKING:
            if not self.cancel_button.isEnabled():
                return  # stopping: keep saying so
            self.headline.setText(self.tr("Looking for page files…"))
            self.found_label.setText(
                plural(
                    event.found,
                    self.tr("1 page file found"),
                    self.tr("%Ln page files found", "", event.found),
                )
            )
            self.progress_bar.setRange(0, 0)
        else:
            if self.cancel_button.isEnabled():
                self.headline.setText(self.tr("Reading the page files…"))
            read = self.tr("{inspected} of {found} page files read (size, pages, fingerprint)")
            text = read.format(inspected=locale.toString(event.inspected), found=found)
            left = self._reading_pace.seconds_left(event.inspected, event.found)
            if left is not None:
                text += " · " + time_left_words(left)
            self.found_label.setText(text)
            self.progress_bar.setRange(0, max(event.found, 1))
            self.progress_bar.setValue(event.inspected)
        if event.current:  # the last event of a phase names nothing: keep the last name
            self.current_label.set_full_text(event.current)

    def last_outcome_text(self, outcome: ScanOutcome) -> str:
        """A line for the status bar once the plan is made."""
        pages = outcome.pages
        n = len(outcome.plan.items)
        return self.tr("Scanned {files} in {seconds} s: {notebooks}, {pages}.").format(
            files=plural(
                outcome.files,
                self.tr("1 page file"),
                self.tr("%Ln page files", "", outcome.files),
            ),
            seconds=f"{outcome.seconds:.1f}",
            notebooks=plural(n, self.tr("1 notebook"), self.tr("%Ln notebooks", "", n)),
            pages=plural(pages, self.tr("1 page"), self.tr("%Ln pages", "", pages)),
        )
