"""A plan shown in the review: each notebook's order cues found once, a replaced plan let go."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.planner import build_plan
from transcribe_import.engine.planning.scan import run_scan
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.models import order_cues
from transcribe_import.gui.models.order_cues import ambiguities_of
from transcribe_import.gui.models.plan_items import PlanItemsModel
from transcribe_import.gui.models.plan_pages import PageTableModel
from transcribe_import.gui.session import ImportSession

from media_factory import make_jpeg


def _shelf(root: Path, notebooks: int = 3) -> Path:
    for n in range(notebooks):
        for counter in (9999, 1):  # a camera counter that rolled over: an order decision
            make_jpeg(root / f"camera {n}" / f"IMG_{counter:04}.jpg", label=str(counter))
    return root


def test_a_notebooks_order_cues_are_found_once_for_every_view_that_asks(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan = build_plan(corpus, run_scan([_shelf(tmp_path / "shelf")]))
    found: list[str] = []
    real = ordering.find_ambiguities

    def counted(item):  # type: ignore[no-untyped-def]
        found.append(item.item_id)
        return real(item)

    monkeypatch.setattr(order_cues.ordering, "find_ambiguities", counted)
    first = plan.items[0]
    cues = ambiguities_of(first)
    assert cues == real(first) and cues  # the rolled-over counter
    assert ambiguities_of(first) is cues
    assert found == [first.item_id]
    # An edited notebook is another object: its cues are found again.
    edited = ordering.move(first, [0], 2)
    assert ambiguities_of(edited) == real(edited)
    assert found == [first.item_id, first.item_id]


def test_a_replaced_plan_is_let_go_over_later_turns_of_the_event_loop(
    qtbot: QtBot, corpus: Corpus, tmp_path: Path
) -> None:
    shelf = _shelf(tmp_path / "shelf")
    session = ImportSession(corpus)
    items = PlanItemsModel(session)
    pages = PageTableModel(session)
    session.set_plan(build_plan(corpus, run_scan([shelf])))
    assert session.plan is not None
    pages.set_item(session.plan.items[0].item_id)
    old = [weakref.ref(item) for item in session.plan.items]
    session.set_plan(build_plan(corpus, run_scan([shelf])))
    assert items.rowCount() == 3
    # Held by the model's queue of items to let go (not freed inside set_plan, in one
    # cascade), then freed a slice a turn, by their reference counts alone.
    assert any(ref() is not None for ref in old)
    gc.disable()
    try:
        qtbot.waitUntil(lambda: all(ref() is None for ref in old))
    finally:
        gc.enable()
