"""The CLI's live line during a commit: the item's count moves as its pages are staged."""

from __future__ import annotations

from transcribe_import.cli.runs import progress_line
from transcribe_import.engine.runs.model import EventKind, ItemOutcome, ItemState, RunEvent


def _event(kind: EventKind, landed: int, staged: int = 0) -> RunEvent:
    outcome = ItemOutcome("item-0123456789", ItemState.PENDING, "nb", (), 0, pages_landed=landed)
    return RunEvent(kind, "run", "item-0123456789", outcome, 64, 500, pages_staged=staged)


def test_the_line_tells_the_staged_pages_then_the_landed_ones() -> None:
    staged = progress_line(_event(EventKind.PAGES_STAGED, 32, 7), 2.0)
    assert staged == "64/500 pages, 2.0 pages/s — item item-012 32 pages in, 7 more staged"
    landed = progress_line(_event(EventKind.PAGES_LANDED, 64), 2.0)
    assert landed == "64/500 pages, 2.0 pages/s — item item-012 64 pages in"
    assert progress_line(_event(EventKind.ITEM_STARTED, 0), 1.0) is None
