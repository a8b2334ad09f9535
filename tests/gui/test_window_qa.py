"""Faults an archivist saw driving the window (#23 QA), pinned through the real window: the
pages of a folder imported already are duplicates, not pages "In question"; a New Import
starts from one notebook per folder, not into the notebook the last import went into; the
stop question closes itself when the import it asks about ends meanwhile."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.planning.plan import DEFAULT_MODE, AdapterMode
from transcribe_import.engine.runs.executor import EventKind
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.models.page_grid import Badge, badges
from transcribe_import.gui.values import PlanItemState

from helpers.runs import commit_plan
from helpers.shelves import make_png_shelf
from helpers.window import (
    TIMEOUT_MS,
    ExecutorGate,
    item_state,
    scan,
    show_item,
    wait_run_end,
    when_modal_opens,
)


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
    assert start.mode() == AdapterMode.into(target)
    window.new_import_action.trigger()
    assert window.current_page() is start and start.mode() == DEFAULT_MODE


def test_the_stop_question_closes_itself_when_the_import_ends(
    qtbot: QtBot,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    importing: Callable[..., MainWindow],
) -> None:
    gate = ExecutorGate(monkeypatch, at=EventKind.PAGES_LANDED)
    window = importing(make_png_shelf(tmp_path / "shelf", notebooks=1, pages=3))
    qtbot.waitUntil(gate.reached.is_set, timeout=TIMEOUT_MS)
    asked: list[str] = []
    released: list[float] = []

    def let_it_end(box: QMessageBox) -> None:
        asked.append(box.text())
        released.append(time.monotonic())
        gate.release.set()  # the import ends while the question is on screen
        # A box the end did not close is closed later by this timer, so the test never hangs.
        timer = QTimer(box)
        timer.setSingleShot(True)
        timer.timeout.connect(box.reject)
        timer.start(TIMEOUT_MS // 2)

    when_modal_opens(QMessageBox, let_it_end)
    qtbot.mouseClick(window.commit_page.cancel_button, Qt.MouseButton.LeftButton)
    closed = time.monotonic()
    assert asked == ["Stop this import?"]
    assert closed - released[0] < 5  # closed by the end (a second or two), not by the timer
    wait_run_end(qtbot, window)
    assert window.commit_page.headline.text() == "Complete"  # nothing stopped it
