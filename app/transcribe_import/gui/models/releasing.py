"""Letting a replaced plan go a slice at a time, so its frees never hold the window."""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer

from transcribe_import.engine.planning.plan import PlanItem, PlanSource

# The items of a replaced plan still to be let go, and how long one turn of the event loop
# spends on it. This model holds a plan's items last: left to its reference count, a plan of
# 100,000 sources went in one cascade of frees that held the window for 0.19 s.
_RELEASING: list[PlanItem | PlanSource] = []
RELEASE_BUDGET_S = 0.01


def release_in_slices(items: list[PlanItem]) -> None:
    """Let ``items`` go a few at a time, one slice per turn of the event loop (the ones held
    elsewhere too are only counted down). Each item's sources are queued before it, so an
    item goes before its sources and one notebook of 100,000 pages goes a slice at a time too.
    """
    if items:
        if not _RELEASING:
            QTimer.singleShot(0, _release_slice)
        for item in items:
            _RELEASING.extend(item.sources)
            _RELEASING.append(item)
        items.clear()


def _release_slice() -> None:
    started = time.perf_counter()
    while _RELEASING and time.perf_counter() - started < RELEASE_BUDGET_S:
        del _RELEASING[-64:]
    if _RELEASING:
        QTimer.singleShot(0, _release_slice)
