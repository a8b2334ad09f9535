"""Long work is a generator of typed progress events that returns its result: one loop drives it.

A scan, a bag's verification and an export each yield progress and return what they made
(``StopIteration.value``). ``Events`` is the one place that reads that result: a ``for``
loop over it sees the events, and its ``result`` is the work's once the loop has ended.
``drive`` is the loop every caller (the engine's own, the command line, the window's
workers) runs them with; one that passes some events on (the window's export) loops over
``Events`` itself. None writes its own ``next``/``StopIteration``.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, Generic, TypeVar

E = TypeVar("E")
R = TypeVar("R")


class Events(Generic[E, R]):
    """``work``'s events, for a ``for`` loop; ``result`` is what it returned, after the loop."""

    result: R

    def __init__(self, work: Generator[E, Any, R]) -> None:
        self._work = work

    def __iter__(self) -> Generator[E, Any, None]:
        self.result = yield from self._work


def drive(work: Generator[E, Any, R], on_progress: Callable[[E], object] | None = None) -> R:
    """Run ``work`` to its end, handing each event it yields to ``on_progress``; its result."""
    events = Events(work)
    for event in events:
        if on_progress is not None:
            on_progress(event)
    return events.result
