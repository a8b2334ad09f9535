"""File › Watch a Folder…: hot folders the window polls while it is open, shown in the status bar.

Each pass is ``api.watch_pass`` on a worker (one at a time, on a timer): a drop whole and clear
is committed, one that needs a decision is kept as a draft, which the start page then offers
among the plans to review (the import flow lists the drafts again), with a desktop
notification when the window is not the active one. The folders are watched until Stop
Watching or the window closes; closing pauses a run being committed at its next safe point,
which the next watch (here or ``transcribe-import watch``) takes up.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from transcribe_import.engine import api
from transcribe_import.engine.api import Corpus
from transcribe_import.engine.runs.model import RunControl
from transcribe_import.gui.desktop import Notifier
from transcribe_import.gui.wording import format_local
from transcribe_import.gui.workers import TaskSlot


@dataclass(frozen=True)
class WatchPassed:
    """What one pass did (handed from the worker): its records, and how many drops wait."""

    result: api.PassResult
    waiting: int  # drops whose latest record says needs_review

    def recorded(self, state: api.DropState) -> list[api.DropRecord]:
        return [r for r in self.result.records if r.state is state]


def watch_pass(
    corpus: Corpus, folders: tuple[Path, ...], settings: api.WatchSettings, control: RunControl
) -> WatchPassed:
    """One pass over ``folders`` (on a worker), and the queue's length after it."""
    result = api.watch_pass(corpus, folders, settings, control=control)
    return WatchPassed(result, len(api.drop_queue(corpus)))


class FolderWatch(QObject):
    """The folders this window watches, a pass every ``interval_s`` seconds."""

    passed = Signal(object)  # WatchPassed, on the GUI thread
    imported = Signal()  # a pass imported something: the corpus changed
    review_waiting = Signal()  # a pass queued a drop for review: its draft is new
    changed = Signal()  # the folders watched changed

    def __init__(
        self,
        corpus: Corpus,
        parent: QWidget,
        interval_s: float = api.DEFAULT_INTERVAL_SECONDS,
        settings: api.WatchSettings | None = None,
        notifier: Notifier | None = None,
    ) -> None:
        super().__init__(parent)
        self._window = parent
        self.notifier = notifier
        self.corpus = corpus
        self.settings = settings or api.WatchSettings()
        self._folders: tuple[Path, ...] = ()
        self._control = RunControl()
        self._waiting = 0
        self._timer = QTimer(self)
        self._timer.setInterval(int(interval_s * 1000))
        self._timer.timeout.connect(self.poll)
        self._passes = TaskSlot(self, done=self._passed, failed=self._failed)
        self.label = QLabel()
        self.label.setAccessibleName(self.tr("Watched folders"))
        self.label.setContentsMargins(0, 0, 12, 0)  # apart from the notebook count beside it
        self.label.hide()
        self.last_failure = ""

    def folders(self) -> tuple[Path, ...]:
        return self._folders

    def watch(self, folder: Path) -> None:
        """Watch ``folder`` too, starting with a pass now."""
        folder = folder.absolute()
        if folder not in self._folders:
            self._folders = (*self._folders, folder)
        self._control = RunControl()
        self._timer.start()
        self._show()
        self.changed.emit()
        self.poll()

    def stop(self) -> None:
        """Watch nothing more; a run being committed pauses at its next safe point."""
        self._folders = ()
        self._timer.stop()
        self._control.pause()
        self._show()
        self.changed.emit()

    def close(self) -> None:
        """The window closes: stop, and wait for the pass in flight (it stops when asked)."""
        self.stop()
        self._passes.close()

    def is_passing(self) -> bool:
        return self._passes.is_busy()

    def poll(self) -> None:
        """A pass now, unless one is running (the timer's next tick comes after it)."""
        if self._folders and not self._passes.is_busy():
            self._passes.run(watch_pass, self.corpus, self._folders, self.settings, self._control)

    def _passed(self, passed: WatchPassed) -> None:
        self._waiting = passed.waiting
        stalled = passed.result.stalled
        self.last_failure = f"{stalled[0][0].name}: {stalled[0][1]}" if stalled else ""
        self._show()
        if passed.recorded(api.DropState.IMPORTED):
            self.imported.emit()
        if passed.recorded(api.DropState.NEEDS_REVIEW):
            self.review_waiting.emit()
            told = self.notification(passed)
            if told is not None and self.notifier is not None and not self._window.isActiveWindow():
                self.notifier.notify(*told)
        self.passed.emit(passed)

    def _failed(self, message: str) -> None:
        self.last_failure = message
        self._show()

    def _show(self) -> None:
        if not self._folders:
            self.label.hide()
            return
        names = ", ".join(str(f) for f in self._folders)
        text = self.tr("Watching {folders}").format(folders=names)
        if self._waiting:
            text += (
                self.tr(" — 1 drop waiting for review")
                if self._waiting == 1
                else self.tr(" — %n drops waiting for review", "", self._waiting)
            )
        if self.last_failure:
            text += self.tr(" — the last pass failed: {why}").format(why=self.last_failure)
        self.label.setText(text)
        self.label.setToolTip(
            self.tr("Polled every {seconds:g} s; what is dropped there is imported").format(
                seconds=self._timer.interval() / 1000
            )
        )
        self.label.show()

    def notification(self, passed: WatchPassed) -> tuple[str, str] | None:
        """The desktop notification for a pass that queued drops (title, body), or None."""
        queued = passed.recorded(api.DropState.NEEDS_REVIEW)
        if not queued:
            return None
        names = ", ".join(r.name for r in queued)
        return (
            self.tr("A dropped folder needs a decision"),
            self.tr("{names}: open Transcribe Import to review its plan.").format(names=names),
        )


def _drop_log(corpus: Corpus) -> tuple[list[api.DropRecord], Callable[[str], str]]:
    """The drop records and how the window names their runs (as the Runs view does: the
    short id, longer where two runs share a start), both read from disk on a worker."""
    return api.drop_log(corpus), api.run_short_ids(corpus)


class DropLogDialog(QDialog):
    """File › Watch Log…: every drop the watches saw (here or ``transcribe-import watch``),
    newest first, and what became of it: the corpus's drop records, read on a worker."""

    def __init__(self, corpus: Corpus, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Watch Log"))
        self.resize(720, 380)
        self.headline = QLabel()
        self.headline.setWordWrap(True)
        self.list = QListWidget()
        self.list.setAccessibleName(self.tr("Dropped folders and what became of them"))
        self.list.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.headline)
        layout.addWidget(self.list, 1)
        layout.addWidget(buttons)
        self._task = TaskSlot(self, done=self._listed, failed=self.headline.setText)
        # Until the log is read: each run's 8 characters.
        self._run_name: Callable[[str], str] = api.short_id
        self._task.run(_drop_log, corpus)

    def lines(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]

    def is_reading(self) -> bool:
        return self._task.is_busy()

    def done(self, result: int) -> None:
        self._task.close()  # the read is short: waited for, never left running
        super().done(result)

    def _listed(self, read: tuple[list[api.DropRecord], Callable[[str], str]]) -> None:
        log, self._run_name = read
        self.list.clear()
        for r in reversed(log):
            item = QListWidgetItem(
                self.tr("{when} — “{name}” in {folder}: {what}").format(
                    when=format_local(r.at), name=r.name, folder=r.folder, what=self.words(r)
                )
            )
            self.list.addItem(item)
        self.headline.setText(
            self.tr("Everything dropped in a watched folder, newest first, and what became of it.")
            if log
            else self.tr("Nothing has been dropped in a watched folder yet.")
        )

    def words(self, r: api.DropRecord) -> str:
        """What a drop record says, in the window's words."""
        state = r.state
        if state is api.DropState.FOUND:
            return self.tr("found; taken once it is whole")
        if state is api.DropState.WAITING and r.code is not None:
            return self.tr("its check refused it ({why}); refused if it stays so").format(
                why=r.message
            )
        if state is api.DropState.WAITING:
            return self.tr("still changing; waiting")
        if state is api.DropState.COMMITTING:
            return self.tr("whole and clear; importing it")
        if state is api.DropState.IMPORTED and r.moved_to:
            return self.tr("imported as run {run}; moved to {where}").format(
                run=self._run_name(r.run_id or ""), where=r.moved_to
            )
        if state is api.DropState.IMPORTED:
            return self.tr("imported as run {run}; left where it is").format(
                run=self._run_name(r.run_id or "")
            )
        if state is api.DropState.NEEDS_REVIEW:
            return self.tr("needs a decision: {why}").format(why=r.message)
        if state is api.DropState.REFUSED:
            return self.tr("refused: {why}; moved to {where} with a README").format(
                why=r.message, where=r.moved_to
            )
        return self.tr("another corpus's watcher took it; left alone")
