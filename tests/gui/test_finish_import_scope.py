"""Finish Import shows the notebook being finished (#34): not the whole run replayed, with
"0 pages into the existing notebook" for the notebooks an earlier run had finished."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from transcribe_import.engine.runs.executor import EventKind, RunControl, RunEvent
from transcribe_import.engine.runs.model import RunStatus
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow, Section
from transcribe_import.gui.models.outcomes import OutcomeColumn

from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_pages
from helpers.window import TIMEOUT_MS, wait_run_end

BIG = 70


def test_finish_import_shows_only_the_notebook_it_finishes(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    shelf = tmp_path / "shelf"
    make_pages(shelf / "A Diary", 3, size=(120, 160), tag="A")
    make_pages(shelf / "B Register", BIG, size=(120, 160), tag="B")
    plan = plan_for(corpus, shelf)
    assert [it.title for it in plan.items] == ["A Diary", "B Register"]
    register = plan.items[1].item_id
    control = RunControl()

    def stop(event: RunEvent) -> None:
        if event.kind is EventKind.PAGES_LANDED and event.item_id == register:
            control.cancel()

    result = commit_plan(corpus, plan, control=control, workers=1, on_event=stop)
    assert result.status is RunStatus.CANCELLED_WITH_COMMITS
    landed = result.record.outcomes()[register].pages_landed
    assert 0 < landed < BIG

    window = open_window()
    window.show_section(Section.CORPUS)
    table = window.corpus_page.notebook_table
    row = next(
        r
        for r in range(table.model().rowCount())
        if "Register" in str(table.model().index(r, 0).data())
    )
    table.selectRow(row)
    qtbot.waitUntil(window.corpus_page.unfinished_panel.isVisible, timeout=TIMEOUT_MS)
    qtbot.mouseClick(window.corpus_page.finish_button, Qt.MouseButton.LeftButton)
    page = window.commit_page
    wait_run_end(qtbot, window)
    assert page.model.rowCount() == 1  # the Register alone; the Diary was finished before
    assert page.headline.text() != "Importing 2 notebooks"
    details = str(page.model.index(0, OutcomeColumn.DETAILS).data())
    rest = BIG - landed
    assert details == (
        f"{rest} pages into the existing notebook; {landed} pages were in from an earlier run"
    )
    assert page.progress_bar.format() == (
        f"{rest} of {BIG} pages landed, {landed} already in the corpus"
    )
    assert page.headline.text() == "Finished"
    assert page.summary_label.text() == (
        f"“B Register” is whole now: {rest} pages landed, {landed} pages were in from an "
        "earlier run."
    )
