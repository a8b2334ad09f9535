"""Faults an archivist saw driving the window (#23 QA), pinned through the real window: the
pages of a folder imported already are duplicates, not pages "In question"; a New Import
starts from one notebook per folder, not into the notebook the last import went into."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.models.page_grid import Badge, badges
from transcribe_import.gui.values import PlanItemState

from helpers.runs import commit_plan
from helpers.shelves import make_png_shelf
from helpers.window import TIMEOUT_MS, item_state, scan, show_item

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


def test_the_pages_of_a_folder_imported_already_are_not_in_question(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    shelf = make_png_shelf(tmp_path / "shelf", notebooks=1, pages=3)
    assert commit_plan(corpus, api.plan_paths(corpus, api.PlanRequest((shelf,))).plan).status == (
        "complete"
    )
    window = open_window(workers=1)
    scan(qtbot, window, shelf)
    page = window.review_page
    [item] = window.session.plan.items
    assert item_state(qtbot, page.items_model, item.item_id) is PlanItemState.ALREADY_IMPORTED
    show_item(page, item.label)
    model = page.pages_model
    shown = [badges(model.row(r)) for r in range(model.rowCount())]
    # Left out, as duplicates of what is in the corpus; the panel above says why. They read
    # "Left out · Duplicate · In question" before, as if something were to be decided.
    assert shown == [(Badge.LEFT_OUT, Badge.DUPLICATE)] * 3


def test_a_new_import_starts_from_one_notebook_per_folder(
    qtbot: QtBot, open_window: Callable[..., MainWindow], make_notebook: Callable[..., str]
) -> None:
    target = make_notebook("Diary 1931", 1)
    window = open_window()
    start = window.start_page
    qtbot.waitUntil(lambda: start.notebook_combo.count() == 1, timeout=TIMEOUT_MS)
    start.into_radio.click()
    assert start.mode() == f"into:{target}"
    window.new_import_action.trigger()
    assert window.current_page() is start and start.mode() == "folders"
