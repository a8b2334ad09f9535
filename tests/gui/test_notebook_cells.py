"""The notebooks' list tells each notebook's pages and state as they are, and works them out
off the window's thread (issue #38: the window at 100,000 pages).

A badge reads the report's lines of its notebook: made with the report on the validation's
worker, looked up as the list paints. These tests follow each kind of change through the real
window: a page excluded, undo, redo, a new report, a new plan.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.planning.plan import PlanItem
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.models.plan_items import ItemColumn, PlanItemsModel
from transcribe_import.gui.models.roles import StateRole
from transcribe_import.gui.values import PlanItemState
from transcribe_import.gui.wording import plan_state_words

from helpers.window import scan, show_item, wait_validated
from media_factory import make_jpeg


def cells(model: PlanItemsModel, label: str) -> tuple[str, str, PlanItemState | None]:
    """What the list shows of the notebook ``label``: its Pages, its State's words and badge."""
    row = next(r for r in range(model.rowCount()) if model.item_at(r).label == label)
    pages = model.data(model.index(row, ItemColumn.PAGES), Qt.ItemDataRole.DisplayRole)
    state = model.index(row, ItemColumn.STATE)
    return pages, model.data(state, Qt.ItemDataRole.DisplayRole), model.data(state, StateRole)


@pytest.fixture
def on_the_window(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The items whose badge was worked out on the window's thread from a report."""
    seen: list[str] = []
    real = api.item_state

    def item_state(item: PlanItem, report, **kw):  # noqa: ANN001, ANN003, ANN202
        if report is not None and threading.current_thread() is threading.main_thread():
            seen.append(item.label)
        return real(item, report, **kw)

    monkeypatch.setattr(api, "item_state", item_state)
    return seen


def test_each_notebooks_cells_follow_an_exclusion_undo_redo_and_each_report(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    tmp_path: Path,
    on_the_window: list[str],
) -> None:
    make_jpeg(tmp_path / "shelf" / "one" / "page 1.jpg", label="one 1")
    for n in (1, 2):
        make_jpeg(tmp_path / "shelf" / "two" / f"page {n}.jpg", label=f"two {n}")
    window = open_window()
    scan(qtbot, window, tmp_path / "shelf")
    page, session = window.review_page, window.session
    model = page.items_model
    ready, nothing = PlanItemState.READY, PlanItemState.NOTHING_TO_IMPORT

    def validated_cells(label: str) -> tuple[str, str, PlanItemState | None]:
        wait_validated(qtbot, window)
        return cells(model, label)

    assert validated_cells("one") == ("1", plan_state_words(ready), ready)
    assert cells(model, "two") == ("2", plan_state_words(ready), ready)

    # The single page of "one" left out: its count at once, its badge with the next report.
    show_item(page, "one")
    page.select_rows([0])
    page.exclude_action.trigger()
    assert cells(model, "one")[0] == "0"
    assert validated_cells("one") == ("0", plan_state_words(nothing), nothing)
    assert cells(model, "two") == ("2", plan_state_words(ready), ready)

    session.undo_stack.undo()
    assert cells(model, "one")[0] == "1"
    assert validated_cells("one") == ("1", plan_state_words(ready), ready)

    session.undo_stack.redo()
    assert cells(model, "one")[0] == "0"
    assert validated_cells("one") == ("0", plan_state_words(nothing), nothing)

    # Every badge under a report of the window's validation came made with it.
    assert on_the_window == []
    report = session.report
    assert report is not None
    assert session.report_state(model.item_at(0).item_id) is not None

    # A new plan: its report's badges, never the last plan's.
    assert session.plan is not None
    session.set_plan(session.plan)
    assert session.report is None
    assert session.report_state(model.item_at(0).item_id) is None
    window.flow.validate_plan()
    assert validated_cells("one") == ("0", plan_state_words(nothing), nothing)
    assert on_the_window == []


def test_a_report_made_without_its_badges_has_them_worked_out_as_the_list_asks(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    tmp_path: Path,
    on_the_window: list[str],
) -> None:
    # A commit's own check sets its report alone (``_plan_invalid``): the badges still
    # follow it, read from the report as each row is asked.
    make_jpeg(tmp_path / "shelf" / "one" / "page 1.jpg", label="one 1")
    window = open_window()
    scan(qtbot, window, tmp_path / "shelf")
    session, model = window.session, window.review_page.items_model
    report = session.validate_now()
    assert session.report is report
    assert session.report_state(model.item_at(0).item_id) is None
    assert cells(model, "one")[2] is PlanItemState.READY
    assert on_the_window == ["one"]
