"""Closing the window safely, and stopping a commit (with its undo) on the way.

Closing during a commit asks how to stop it (gui/stopping.py), tells the worker, and waits
for it showing "Stopping…" before the window closes (after the undo's preview, when the
import is to be undone); with a review open, its decisions are offered to be kept first;
then every worker is waited for, since a QThread destroyed while running aborts the process.
The window holds one ``WindowClosing`` (``window.closing``) and hands it its close events.
What it uses of the window is named in ``ClosingHost``, so the window imports it and it
never imports the window.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QListWidget, QMenuBar, QStackedWidget, QStatusBar, QWidget

from transcribe_import.gui.corpus_health import CorpusHealth
from transcribe_import.gui.import_flow import ImportFlow
from transcribe_import.gui.values import RunSummary
from transcribe_import.gui.watching import FolderWatch
from transcribe_import.gui.window_dialogs import WindowDialogs
from transcribe_import.gui.window_pages import WindowPages
from transcribe_import.gui.wording import StopChoice


class ClosingHost(WindowPages, Protocol):
    """What closing uses of the window that holds it."""

    @property
    def flow(self) -> ImportFlow: ...
    @property
    def health(self) -> CorpusHealth: ...
    @property
    def dialogs(self) -> WindowDialogs: ...
    @property
    def folder_watch(self) -> FolderWatch: ...
    @property
    def sections(self) -> QStackedWidget: ...
    @property
    def nav(self) -> QListWidget: ...
    def window(self) -> QWidget: ...  # Qt's: the window itself, the parent of the undo dialog
    def close(self) -> bool: ...
    def setWindowTitle(self, title: str) -> None: ...
    def statusBar(self) -> QStatusBar: ...
    def menuBar(self) -> QMenuBar: ...
    def show_import_page(self, page: QWidget) -> None: ...
    def show_run(self, run_id: str) -> None: ...
    def save_state(self) -> None: ...


class WindowClosing(QObject):
    """Whether the window may close now, and the stop and the waits before it does."""

    def __init__(self, host: ClosingHost, parent: QObject) -> None:
        super().__init__(parent)
        self._host = host
        self._close_when_stopped = False
        self._closing = False

    def is_stopping(self) -> bool:
        return self._close_when_stopped

    def is_closing(self) -> bool:
        return self._closing

    def close_event(self, event: QCloseEvent) -> bool:
        """Whether the window closes now; if not, ``event`` is ignored and the stop (or the
        question that cancelled it) is under way."""
        host = self._host
        if host.commit_page.is_running():
            event.ignore()
            if self._close_when_stopped:
                return False  # already stopping; the window closes when the worker has ended
            # The run is held while asked, and stopped as the answer says.
            how = host.commit_page.ask_stop(closing=True)
            if how is StopChoice.CONTINUE:
                return False
            self._close_when_stopped = True
            if not host.commit_page.is_running():
                self._close_after_ended(how)
                return False
            # Visible while the worker finishes the item it is on; nothing else can be started.
            host.setWindowTitle(self.tr("Stopping… — Transcribe Import"))
            host.statusBar().showMessage(
                self.tr("Stopping the import at a safe point before closing…")
            )
            host.sections.setEnabled(False)
            host.nav.setEnabled(False)
            host.menuBar().setEnabled(False)
            host.show_import_page(host.commit_page)
            return False
        if not self._closing and not host.flow.review_may_close():
            event.ignore()  # Cancel, or Save Plan As… cancelled or failed: nothing is closed
            return False
        self._closing = True
        host.save_state()
        # The other workers are short or stop within milliseconds when asked; a QThread
        # destroyed while running aborts the process, so each is waited for.
        host.scan_page.stop_and_wait()
        host.runs_page.stop_and_wait()
        host.corpus_page.stop_and_wait()
        host.flow.close()
        host.folder_watch.close()
        host.dialogs.stop_export()
        host.health.close()
        host.review_page.shutdown()
        return True

    def commit_ended(self) -> None:
        """The commit's worker has ended and its thread is gone: nothing is half-written now,
        and a window waiting for it closes (unless the undo's preview comes first)."""
        if self._close_when_stopped and not self._host.commit_page.undo_follows():
            QTimer.singleShot(0, self._host.close)

    def _close_after_ended(self, how: StopChoice) -> None:
        """The import ended while the close question was open: there is nothing left to
        stop, so the window closes; with Stop and Undo, once the undo's preview of the run
        that ended is done (undone or kept), as when the stop ended it."""
        run = self._host.commit_page.ended_run()
        undoable = run is not None and run.status.revertible and run.pages_landed > 0
        if how is StopChoice.UNDO and run is not None and undoable:
            self.undo_stopped_run(run)
        else:
            QTimer.singleShot(0, self._host.close)

    def undo_stopped_run(self, run: RunSummary) -> None:
        """Stop and Undo This Import: the run has ended; its undo's preview opens over Runs,
        and a window closing closes once that dialog is done (undone or kept)."""
        host = self._host
        host.show_run(run.run_id)
        dialog = host.runs_page.open_undo(run, host.window() if self._close_when_stopped else None)
        if self._close_when_stopped:
            dialog.finished.connect(host.close)
