"""A plan shown paints before its workers start (#38): the notebooks' order checks and a
large notebook's hints wait for the review's first paint (gui/after_paint.py), then run and
show, once each; a review not on screen has them all the same."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from transcribe_import.engine.planning.planner import build_plan
from transcribe_import.engine.planning.scan import run_scan
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui import after_paint
from transcribe_import.gui.after_paint import PaintGate
from transcribe_import.gui.models import plan_items, plan_pages
from transcribe_import.gui.pages.review import ReviewPage
from transcribe_import.gui.session import ImportSession

from helpers.window import TIMEOUT_MS, wait_states_checked
from helpers.window import open_review_page as open_page
from media_factory import make_jpeg


class Painted(QObject):
    """Appends "paint" to ``events`` at each paint of the widgets it watches."""

    def __init__(self, events: list[str], *widgets: QWidget) -> None:
        super().__init__()
        self.events = events
        for widget in widgets:
            widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.events.append("paint")
        return False


@pytest.fixture
def shelf(tmp_path: Path) -> Path:
    root = tmp_path / "shelf"
    for name in ("diary", "letters"):
        for n in range(1, 4):
            make_jpeg(root / name / f"page{n}.jpg", label=f"{name} {n}")
    return root


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What starts, in order: "hints" (a notebook's hints found on a worker: here every
    notebook is large) and "orders" (a batch of order checks); "paint" added by Painted.
    Held for a paint as long as the test waits: on a loaded machine the paint may come
    after the hold's own end (HELD_AT_MOST_MS), and the order would not be the paint's."""
    events: list[str] = []
    monkeypatch.setattr(after_paint, "HELD_AT_MOST_MS", TIMEOUT_MS)
    monkeypatch.setattr(plan_pages, "HINTS_HERE_AT_MOST", 0)
    real_hints, real_orders = plan_pages.hints_of_task, plan_items.orders_checked

    def hints_of_task(*args: Any) -> Any:
        events.append("hints")
        return real_hints(*args)

    def orders_checked(*args: Any) -> Any:
        events.append("orders")
        return real_orders(*args)

    monkeypatch.setattr(plan_pages, "hints_of_task", hints_of_task)
    monkeypatch.setattr(plan_items, "orders_checked", orders_checked)
    return events


def test_a_plan_shown_paints_before_its_checks_and_hints_start_and_both_come(
    qtbot: QtBot, corpus: Corpus, shelf: Path, counted: list[str]
) -> None:
    session = ImportSession(corpus)
    page = open_page(qtbot, session)
    painted = Painted(counted, page.items_view.viewport(), page.pages_widget().viewport())
    with qtbot.waitSignal(page.pages_model.hints_found, timeout=TIMEOUT_MS):
        session.set_plan(build_plan(corpus, run_scan([shelf])))
        assert "hints" not in counted and "orders" not in counted  # held for the paint
    wait_states_checked(qtbot, page.items_model)
    assert painted.events is counted
    assert counted.index("paint") < counted.index("hints")
    assert counted.index("paint") < counted.index("orders")
    # Each once: the shown notebook's hints, and each notebook's order in one batch.
    assert counted.count("hints") == 1 and counted.count("orders") == 1
    assert page.pages_model.rowCount() == 3


def test_another_notebook_chosen_has_its_hints_after_it_painted(
    qtbot: QtBot, corpus: Corpus, shelf: Path, counted: list[str]
) -> None:
    session = ImportSession(corpus)
    session.set_plan(build_plan(corpus, run_scan([shelf])))
    page = open_page(qtbot, session)
    wait_states_checked(qtbot, page.items_model)
    qtbot.waitUntil(lambda: counted.count("hints") == 1, timeout=TIMEOUT_MS)
    painted = Painted(counted, page.pages_widget().viewport())
    counted.clear()
    assert session.plan is not None
    other = next(it for it in session.plan.items if it.item_id != page.selected_item_id())
    with qtbot.waitSignal(page.pages_model.hints_found, timeout=TIMEOUT_MS):
        assert page.select_item(other.item_id)
        assert counted == []
    assert painted.events is counted and counted.index("paint") < counted.index("hints")
    assert counted.count("hints") == 1 and page.pages_model.item_id() == other.item_id


def test_a_review_not_on_screen_still_has_its_checks_and_hints(
    qtbot: QtBot, corpus: Corpus, shelf: Path, counted: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nothing paints: the hold ends by itself (HELD_AT_MOST_MS), waited for here as an event.
    monkeypatch.setattr(after_paint, "HELD_AT_MOST_MS", 50)
    session = ImportSession(corpus)
    page = ReviewPage(session)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.pages_model.hints_found, timeout=TIMEOUT_MS):
        session.set_plan(build_plan(corpus, run_scan([shelf])))
    page.items_model.state(page.items_model.item_at(0))  # a badge asked, as a view would
    wait_states_checked(qtbot, page.items_model)
    assert counted.count("hints") == 1
    assert not page.paint_gate.is_holding()


def test_the_gate_calls_at_once_unless_held_then_in_order_after_a_paint(qtbot: QtBot) -> None:
    widget = QWidget()
    qtbot.addWidget(widget)
    gate = PaintGate(widget)
    gate.watch(widget)
    calls: list[int] = []
    gate.later(lambda: calls.append(1))
    assert calls == [1]
    gate.hold()
    gate.later(lambda: calls.append(2))
    gate.later(lambda: calls.append(3))
    assert calls == [1]
    widget.show()  # its first paint
    qtbot.waitUntil(lambda: calls == [1, 2, 3], timeout=TIMEOUT_MS)
    assert not gate.is_holding()
    gate.later(lambda: calls.append(4))
    assert calls == [1, 2, 3, 4]


def test_the_gate_holds_past_a_paint_until_the_page_says_it_is_laid_out(qtbot: QtBot) -> None:
    # The grid lays a long notebook out in batches, a paint after each: the starts wait
    # for the paint after its last one.
    widget = QWidget()
    qtbot.addWidget(widget)
    laid_out = [False]
    gate = PaintGate(widget, lambda: laid_out[0], most_ms=TIMEOUT_MS)
    gate.watch(widget)
    calls: list[int] = []
    gate.hold()
    gate.later(lambda: calls.append(1))
    widget.show()
    qtbot.waitExposed(widget)
    widget.repaint()
    QApplication.processEvents()  # the look after the paint: not laid out yet
    assert calls == [] and gate.is_holding()
    laid_out[0] = True
    widget.repaint()
    qtbot.waitUntil(lambda: calls == [1], timeout=TIMEOUT_MS)
    assert not gate.is_holding()
