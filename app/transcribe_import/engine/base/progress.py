"""Long work is a generator of typed progress events that returns its result: one loop drives it.

A scan, a bag's verification and an export each yield progress and return what they made
(``StopIteration.value``). ``drive`` is the loop every caller (the engine's own, the command
line, the window's workers) runs them with, so none writes its own ``next``/``StopIteration``.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, TypeVar

E = TypeVar("E")
R = TypeVar("R")


def drive(work: Generator[E, Any, R], on_progress: Callable[[E], object] | None = None) -> R:
    """Run ``work`` to its end, handing each event it yields to ``on_progress``; its result."""
    while True:
        try:
            event = next(work)
        except StopIteration as end:
            result: R = end.value
            return result
        if on_progress is not None:
            on_progress(event)
