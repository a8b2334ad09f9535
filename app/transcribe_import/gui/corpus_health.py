"""The corpus's health and listing kept current: doctor and the listing on QThreads.

The window holds one ``CorpusHealth`` (``window.health``): it runs doctor when the window
opens, after a commit and after an undo, lists the notebooks again, and shows both on the
Start and Corpus views and the notebook count in the status bar, which moves as a commit
lands notebooks. What it uses of the window is named in ``HealthHost``, so the window
imports it and it never imports the window.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel

from transcribe_import.engine.api import Corpus, NotebookSummary
from transcribe_import.engine.base.findings import DoctorReport
from transcribe_import.gui.values import CorpusCheck
from transcribe_import.gui.window_pages import WindowPages
from transcribe_import.gui.wording import set_notebook_titles
from transcribe_import.gui.workers import TaskSlot, check_corpus, list_notebooks


class HealthHost(WindowPages, Protocol):
    """What the health check uses of the window that holds it."""

    @property
    def corpus(self) -> Corpus: ...
    def is_closing(self) -> bool: ...


class CorpusHealth(QObject):
    """Doctor and the notebook listing, each kind one at a time, and what they found shown."""

    # Emitted on the GUI thread once a health check has ended and the window shows its result.
    checked = Signal()

    def __init__(self, host: HealthHost, count_label: QLabel, parent: QObject) -> None:
        super().__init__(parent)
        self._host = host
        self._count_label = count_label
        self._listed_count = 0
        self._count_before_commit = 0
        # The window's one-call work, each kind one at a time: doctor, listing.
        self._checks = TaskSlot(
            self,
            progress=self._show_notebooks,
            done=self._checked,
            failed=host.corpus_page.show_failure,
            ended=self._check_ended,
        )
        self._listings = TaskSlot(self, done=self._show_notebooks)

    def check(self, *, list_first: bool = False) -> None:
        """Run doctor off the GUI thread; the notebooks are listed again when it is done."""
        host = self._host
        if self._checks.is_busy() or host.commit_page.is_running() or host.is_closing():
            return
        host.corpus_page.set_checking(True)
        self._checks.run(check_corpus, host.corpus, list_first)

    def is_checking(self) -> bool:
        return self._checks.is_busy()

    def list_notebooks(self) -> None:
        if not self._host.is_closing():
            self._listings.run(list_notebooks, self._host.corpus)

    def corpus_changed(self) -> None:
        """An import or an undo changed the corpus: the health and the listing follow."""
        self.check()
        if not self._checks.is_busy():
            self.list_notebooks()

    def commit_running_changed(self, running: bool) -> None:
        """A commit starts: its notebooks are counted on top of those listed before it."""
        if running:
            self._count_before_commit = self._listed_count

    def commit_progressed(self) -> None:
        """The status bar's count moves as new notebooks land, not only when the run ends."""
        self._show_notebook_count(
            self._count_before_commit + self._host.commit_page.notebooks_created()
        )

    def close(self) -> None:
        """The window is closing: wait for the listing and doctor (no cancel point; its checks
        read metadata only, so waiting is short)."""
        self._listings.close()
        if self._checks.is_busy():
            self._host.corpus_page.health_summary.setText(
                self.tr("Finishing the check before closing…")
            )
        self._checks.close()

    def _checked(self, check: CorpusCheck) -> None:
        # The listing first: the findings name notebooks by the titles it sets.
        self._show_notebooks(check.notebooks)
        self._show_report(check.report)
        self._host.start_page.set_interrupted_runs(check.interrupted)

    def _check_ended(self) -> None:
        self._host.corpus_page.set_checking(False)
        self.checked.emit()

    def _show_notebooks(self, notebooks: Sequence[NotebookSummary]) -> None:
        host = self._host
        host.corpus_page.show_notebooks(notebooks)
        host.start_page.set_notebooks(notebooks)
        set_notebook_titles({nb.notebook_id: nb.title for nb in notebooks})
        self._listed_count = len(notebooks)
        n = self._listed_count
        if host.commit_page.is_running():
            n = max(n, self._count_before_commit + host.commit_page.notebooks_created())
        self._show_notebook_count(n)

    def _show_notebook_count(self, n: int) -> None:
        self._count_label.setText(
            self.tr("1 notebook") if n == 1 else self.tr("%n notebooks", "", n)
        )

    def _show_report(self, report: DoctorReport) -> None:
        self._host.corpus_page.show_report(report)
        self._host.start_page.set_doctor_report(report)
