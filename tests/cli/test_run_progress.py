"""The CLI's live line: during a commit the item's count moves as its pages are staged; during
a validation each part's checks are counted."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from transcribe_import.cli import main
from transcribe_import.cli.runs import progress_line
from transcribe_import.engine.runs.model import EventKind, ItemOutcome, ItemState, RunEvent

from helpers.shelves import make_shelf


def _event(kind: EventKind, landed: int, staged: int = 0) -> RunEvent:
    outcome = ItemOutcome("item-0123456789", ItemState.PENDING, "nb", (), 0, pages_landed=landed)
    return RunEvent(kind, "run", "item-0123456789", outcome, 64, 500, pages_staged=staged)


def test_the_line_tells_the_staged_pages_then_the_landed_ones() -> None:
    staged = progress_line(_event(EventKind.PAGES_STAGED, 32, 7), 2.0)
    assert staged == "64/500 pages, 2.0 pages/s — item item-012 32 pages in, 7 more staged"
    landed = progress_line(_event(EventKind.PAGES_LANDED, 64), 2.0)
    assert landed == "64/500 pages, 2.0 pages/s — item item-012 64 pages in"
    assert progress_line(_event(EventKind.ITEM_STARTED, 0), 1.0) is None


class _Terminal(io.StringIO):
    """Standard error as a terminal: where the live line is drawn."""

    def isatty(self) -> bool:
        return True


def test_validate_on_a_terminal_tells_its_checks_and_clears_the_line(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A shelf's first validation verifies its rescans for minutes: the live line says how far
    # each part of it is, and is cleared before the report is printed.
    plan = tmp_path / "plan.json"
    shelf = make_shelf(tmp_path / "shelf", notebooks=2, pages=3)
    assert main(["--data-dir", str(data_dir), "plan", str(shelf), "-o", str(plan)]) == 0
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["--data-dir", str(data_dir), "validate", str(plan)]) == 0
    drawn = terminal.getvalue()
    assert "\r\x1b[Kvalidating the plan: 6 of 6 checked" in drawn
    assert drawn.endswith("\r\x1b[K")  # the line taken back: the report is on stdout


def test_plan_and_validate_rest_the_collector_and_wake_it_after(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cyclic garbage collector rests while `plan` and `validate` validate (its passes
    over a shelf's short-lived objects found nothing: bench/RESULTS.md) and is on again
    when each command returns; one that was off stays off."""
    import gc

    from transcribe_import.engine import api

    seen: list[bool] = []
    real = api.validate_plan

    def validate_plan(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(api, "validate_plan", validate_plan)
    plan = tmp_path / "plan.json"
    shelf = make_shelf(tmp_path / "shelf", notebooks=2, pages=3)
    assert gc.isenabled()
    assert main(["--data-dir", str(data_dir), "plan", str(shelf), "-o", str(plan)]) == 0
    assert gc.isenabled()
    assert main(["--data-dir", str(data_dir), "validate", str(plan)]) == 0
    assert gc.isenabled()
    assert seen == [False, False]
    gc.disable()
    try:
        assert main(["--data-dir", str(data_dir), "validate", str(plan)]) == 0
        assert not gc.isenabled()
    finally:
        gc.enable()
