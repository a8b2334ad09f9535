"""The base of the pages that drive one streaming worker at a time: the scan and the commit."""

from __future__ import annotations

from typing import Generic

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from transcribe_import.gui.widgets import settle_busy_bars
from transcribe_import.gui.workers import W, WorkerSlot


class WorkerPage(QWidget, Generic[W]):
    """Runs the page's worker in a WorkerSlot and says so with ``running_changed``.

    A page connects the worker's own signals, then hands it to ``_start_worker``; once its
    thread has ended and been waited for, ``_worker_ended`` puts the page in its ended
    state (a page that does more there calls this one's, which says it no longer runs).
    """

    running_changed = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._workers: WorkerSlot[W] = WorkerSlot(self)
        self._workers.ended.connect(self._worker_ended)

    @property
    def _worker(self) -> W | None:
        return self._workers.worker()

    def is_running(self) -> bool:
        return self._workers.is_busy()

    def _start_worker(self, worker: W) -> None:
        self._workers.start(worker)
        self.running_changed.emit(True)

    def _worker_ended(self) -> None:
        settle_busy_bars(self)  # ended before it knew its total (a failure, a cancel)
        self.running_changed.emit(False)
