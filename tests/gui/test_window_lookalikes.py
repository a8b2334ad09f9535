"""Rescans recognised by their look, through the real window (#22): a page like one already
imported, or like another of the same folder, is asked about in the decision panel, its
notebook badged "A rescan?", and each of the three answers does what it says."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.planning.plan import DedupeScope
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.pages.review import ReviewPage
from transcribe_import.gui.values import PlanItemState

from helpers.lookalike_set import (
    Rescan,
    Ruling,
    notebook_page,
    notebook_scan,
    rescan_file,
    save_jpeg,
)
from helpers.runs import commit_plan
from helpers.window import (
    commit,
    item_state,
    panel_words,
    scan,
    show_item,
    wait_run_end,
    wait_validated,
)

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


def imported_diary(corpus: Corpus, root: Path) -> str:
    """“Diary 1931”, pages 01.jpg to 04.jpg, imported: its notebook id."""
    for k in range(1, 5):
        save_jpeg(notebook_scan(k), root / "Diary" / f"{k:02d}.jpg")
    plan = api.plan_paths(corpus, api.PlanRequest((root / "Diary",))).plan
    plan = replace(plan, items=(replace(plan.items[0], title="Diary 1931"),))
    assert commit_plan(corpus, plan).status == "complete"
    return plan.items[0].notebook_id


def buttons(page: ReviewPage) -> dict[str, QPushButton]:
    return {b.text(): b for b in page.decision_panel.buttons()}


def click(qtbot: QtBot, window: MainWindow, button: QPushButton) -> None:
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    wait_validated(qtbot, window)


def test_a_rescan_of_an_imported_page_is_asked_about_and_kept_both(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    imported_diary(corpus, tmp_path)
    rescan_file(2, Rescan.RIGHT, tmp_path / "Loose" / "p1.jpg")
    save_jpeg(notebook_page(77, Ruling.PLAIN, 0.4), tmp_path / "Loose" / "p2.jpg")
    window = open_window(workers=1)
    scan(qtbot, window, tmp_path / "Loose")
    page = window.review_page
    model = page.items_model
    [item] = window.session.plan.items
    assert item_state(qtbot, model, item.item_id) is PlanItemState.LOOKS_LIKE
    show_item(page, item.label)
    words = panel_words(page)
    assert "Loose/p1.jpg looks like page 2 of “Diary 1931”, turned" in words
    assert "a rescan?" in words
    assert page.decision_panel.title() == "Pages that look like pages already there: rescans?"
    # A new notebook cannot take an old page's place: Replace is not offered.
    assert list(buttons(page)) == ["Keep Both", "Leave Out"]
    assert page.can_commit()  # a question, not an error

    click(qtbot, window, buttons(page)["Keep Both"])
    assert page.session.undo_stack.undoText() == "Keep both pages"
    assert item_state(qtbot, model, item.item_id) is PlanItemState.READY
    assert not page.decision_panel.buttons()

    commit(qtbot, window)
    wait_run_end(qtbot, window)
    pages = sorted(len(api.notebook_pages(corpus, n)) for n in corpus.index_entries())
    assert pages == [2, 4]  # both kept
    # Remembered: the same rescan scanned again (as a second copy) is not asked about.
    again = api.plan_paths(
        corpus, api.PlanRequest((tmp_path / "Loose",), dedupe_scope=DedupeScope.NOTEBOOK)
    ).plan
    report = api.validate_plan(corpus, again)
    assert not [p for p in report.problems if p.code == "looks_like"]


def test_a_rescan_beside_its_page_is_replaced_or_left_out(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    folder = tmp_path / "Box"
    for k in (1, 2):
        save_jpeg(notebook_scan(k), folder / f"p{k}.jpg")
    rescan_file(2, Rescan.TILT, folder / "p3.jpg")
    window = open_window(workers=1)
    scan(qtbot, window, folder)
    page = window.review_page
    model = page.items_model
    [item] = window.session.plan.items
    assert item_state(qtbot, model, item.item_id) is PlanItemState.LOOKS_LIKE
    show_item(page, item.label)
    assert "Box/p3.jpg looks like Box/p2.jpg in this import: a rescan?" in panel_words(page)
    assert list(buttons(page)) == ["Replace", "Keep Both", "Leave Out"]

    click(qtbot, window, buttons(page)["Replace"])
    assert page.session.undo_stack.undoText() == "Replace a page by its rescan"
    excluded = [s.name for s in window.session.plan.item(item.item_id).sources if s.excluded]
    assert excluded == ["p2.jpg"]
    assert item_state(qtbot, model, item.item_id) is PlanItemState.READY

    page.session.undo_stack.undo()
    wait_validated(qtbot, window)
    assert item_state(qtbot, model, item.item_id) is PlanItemState.LOOKS_LIKE
    click(qtbot, window, buttons(page)["Leave Out"])
    assert page.session.undo_stack.undoText() == "Leave out a rescan"
    excluded = [s.name for s in window.session.plan.item(item.item_id).sources if s.excluded]
    assert excluded == ["p3.jpg"]
    assert item_state(qtbot, model, item.item_id) is PlanItemState.READY
