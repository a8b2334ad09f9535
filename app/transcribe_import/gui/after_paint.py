"""Work held back until the window has painted what it was asked to show.

A plan or a notebook shown is one long turn of the window's thread: Qt lays out and paints
the notebooks, the grid and its cells, calling into Python for each. A worker started in
that turn (a notebook's hints, the notebooks' order checks) holds the interpreter between
those calls, and each call waits its turn: the first paint of a plan of 100,000 pages took
the window away for over 100 ms (bench/bench_gui_shelf.py, its last step). ``PaintGate``
holds such starts until a widget it watches has painted and the page says it is laid out
(``settled``: the grid lays 5,000 cells out 200 at a time, a paint after each batch, for
0.1-0.5 s after its first paint), or ``most_ms`` at most (a window not on screen paints
nothing), then makes them in the order they were asked.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

# The longest a start is held: the first paint and layout of a plan on a loaded machine.
HELD_AT_MOST_MS = 1000


Later = Callable[[Callable[[], None]], None]  # what a model is given to start its workers


def at_once(fn: Callable[[], None]) -> None:
    """A model's starts when no view holds them (a model on its own: in the tests)."""
    fn()


class PaintGate(QObject):
    """Starts held from ``hold`` until one of the widgets ``watch`` was given has painted
    and ``settled()`` says so; ``later(fn)`` calls ``fn`` at once when nothing is held."""

    def __init__(
        self,
        parent: QObject,
        settled: Callable[[], bool] = lambda: True,
        most_ms: int | None = None,
    ) -> None:
        super().__init__(parent)
        most_ms = HELD_AT_MOST_MS if most_ms is None else most_ms
        self._settled = settled
        self._watched: list[QWidget] = []
        self._held: list[Callable[[], None]] = []
        self._holding = False
        self._until: tuple[QWidget, ...] = ()  # the widgets whose paint ends this hold
        self._most = QTimer(self, singleShot=True, interval=most_ms)
        self._most.timeout.connect(self._release)

    def watch(self, *widgets: QWidget) -> None:
        """A paint of any of these ends the hold (the parts of the page a change repaints)."""
        for widget in widgets:
            self._watched.append(widget)
            widget.installEventFilter(self)

    def hold(self, *until: QWidget) -> None:
        """Hold what ``later`` is given until a widget watched has painted (the page is
        about to show something new); ``until``: only a paint of one of these ends it (a
        notebook chosen: its pages' views, not the notebooks' list repainting its
        selection)."""
        self._holding = True
        self._until = until
        self._most.start()

    def is_holding(self) -> bool:
        return self._holding

    def later(self, fn: Callable[[], None]) -> None:
        """``fn()`` now, or once the paint held for has ended."""
        if self._holding:
            self._held.append(fn)
        else:
            fn()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            self._holding
            and event.type() == QEvent.Type.Paint
            and watched in (self._until or self._watched)
        ):
            # Its paint is under way: looked at once the whole window's paint has returned.
            QTimer.singleShot(0, self, self._painted)
        return False

    def _painted(self) -> None:
        if self._settled():
            self._release()  # else the next paint looks again (or ``most_ms`` ends it)

    def _release(self) -> None:
        if not self._holding:
            return
        self._holding = False
        self._most.stop()
        held, self._held = self._held, []
        for fn in held:
            fn()
