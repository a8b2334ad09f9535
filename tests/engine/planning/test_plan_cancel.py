"""A scan cancelled while its plan is being made ends there: no plan, at the next notebook."""

from __future__ import annotations

from pathlib import Path

import pytest

from transcribe_import.engine import api
from transcribe_import.engine.planning import planner

from helpers.shelves import make_png_shelf


def test_a_stop_asked_while_the_plan_is_made_ends_it_at_the_next_notebook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shelf = make_png_shelf(tmp_path / "shelf", notebooks=5)
    planned: list[str] = []
    real = planner._item_for
    stop = False

    def item_for(group: planner.Group, *args: object) -> object:
        nonlocal stop
        planned.append(group.label)
        stop = True  # Cancel Scan pressed while the first notebook is planned
        return real(group, *args)

    monkeypatch.setattr(planner, "_item_for", item_for)
    result = api.plan_paths(None, api.PlanRequest((shelf,)), should_stop=lambda: stop)
    assert result is None
    assert len(planned) == 1  # the other four notebooks were never planned


def test_a_plan_no_stop_was_asked_for_is_whole(tmp_path: Path) -> None:
    shelf = make_png_shelf(tmp_path / "shelf", notebooks=5)
    result = api.plan_paths(None, api.PlanRequest((shelf,)), should_stop=lambda: False)
    assert result is not None and len(result.plan.items) == 5
