"""Background threads that run engine calls and hand their results to the window as signals.

A worker is given the engine objects it needs and emits plain values (frozen
summaries, reports); it never touches a widget. Its signals are emitted from the
worker thread and, since the window lives on the GUI thread, arrive there queued.
"""

from __future__ import annotations

import logging
import weakref

import shiboken6
from PySide6.QtCore import QObject, QThread, Signal

from transcribe_import.engine.corpus import Corpus
from transcribe_import.engine.doctor import doctor
from transcribe_import.engine.errors import TranscribeError

log = logging.getLogger(__name__)

# Every worker made in this process, so quitting (and the tests) can tell whether one still runs.
_workers: weakref.WeakSet[QThread] = weakref.WeakSet()


def running_workers() -> list[QThread]:
    """The workers whose thread is running now."""
    return [w for w in list(_workers) if shiboken6.isValid(w) and w.isRunning()]


class DoctorWorker(QThread):
    """Runs ``doctor`` on the corpus, then lists its notebooks (doctor may have registered some).

    With ``list_first`` it lists the notebooks before doctor too, so a window that has
    just opened can show them without waiting for the whole check.
    """

    notebooks_listed = Signal(object)  # list[NotebookSummary]
    report_ready = Signal(object)  # DoctorReport
    failed = Signal(str)  # a message a person can act on

    def __init__(
        self, corpus: Corpus, *, list_first: bool = False, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._corpus = corpus
        self._list_first = list_first
        _workers.add(self)

    def run(self) -> None:
        try:
            if self._list_first:
                self.notebooks_listed.emit(self._corpus.list_notebooks())
            self.report_ready.emit(doctor(self._corpus))
            self.notebooks_listed.emit(self._corpus.list_notebooks())
        except TranscribeError as exc:
            self.failed.emit(str(exc))
        except OSError as exc:
            self.failed.emit(f"{exc.filename or self._corpus.root}: {exc.strerror or exc}")
        except Exception as exc:  # noqa: BLE001 - an uncaught error would end the thread silently
            log.exception("doctor failed unexpectedly")
            self.failed.emit(f"unexpected error: {exc!r}")
