"""Faults found by driving the real window under Xvfb, each pinned through the window: the
words after Finish Import, the counts at the start of a retry, the commit page's details."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from transcribe_import.engine.runs.executor import EventKind, RunControl, RunEvent
from transcribe_import.engine.runs.model import RunStatus
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow, Section
from transcribe_import.gui.models.outcomes import OutcomeColumn
from transcribe_import.gui.wording import StopChoice, stop_choice_words

from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_png_shelf, make_shelf
from helpers.window import TIMEOUT_MS, ExecutorGate, click_in_next_box, wait_run_end

PAGES = 70


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[ExecutorGate]:
    """The commit executor held as its first item starts, before any page of it lands."""
    g = ExecutorGate(monkeypatch, at=EventKind.ITEM_STARTED)
    yield g
    g.release.set()


@pytest.fixture
def checkpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[ExecutorGate]:
    """The executor held once the notebook's first checkpoint has landed."""
    held = ExecutorGate(monkeypatch, at=EventKind.PAGES_LANDED)
    yield held
    held.release.set()


def _cancelled_part_way(corpus: Corpus, tmp_path: Path) -> int:
    """A 70-page notebook's import cancelled once its first checkpoint landed (Stop, Keep What
    Landed): the pages it left in the corpus."""
    shelf = make_shelf(tmp_path / "shelf", 1, PAGES, folder="Register", size=(120, 160))
    control = RunControl()

    def stop(event: RunEvent) -> None:
        if event.kind is EventKind.PAGES_LANDED:
            control.cancel()

    result = commit_plan(corpus, plan_for(corpus, shelf), control=control, workers=1, on_event=stop)
    assert result.status is RunStatus.CANCELLED
    (outcome,) = result.record.outcomes().values()
    landed = outcome.pages_landed
    assert 0 < landed < PAGES
    return landed


def _finish_import(qtbot: QtBot, window: MainWindow) -> None:
    window.show_section(Section.CORPUS)
    window.corpus_page.notebook_table.selectRow(0)
    qtbot.waitUntil(window.corpus_page.unfinished_panel.isVisible, timeout=TIMEOUT_MS)
    qtbot.mouseClick(window.corpus_page.finish_button, Qt.MouseButton.LeftButton)
    assert window.current_page() is window.commit_page


def _details(window: MainWindow) -> str:
    return str(window.commit_page.model.index(0, OutcomeColumn.DETAILS).data())


def test_finish_import_counts_the_earlier_pages_from_the_start_and_adds_to_the_notebook(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    tmp_path: Path,
    started: ExecutorGate,
) -> None:
    landed = _cancelled_part_way(corpus, tmp_path)
    window = open_window()
    _finish_import(qtbot, window)
    page = window.commit_page
    earlier = f"{landed} pages were in from an earlier run"
    try:
        qtbot.waitUntil(started.reached.is_set, timeout=TIMEOUT_MS)
        qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=TIMEOUT_MS)
        # Before any page of the retry landed, the bar and the row say those already in.
        bar = page.progress_bar.format()
        assert bar == f"0 of {PAGES} pages landed, {landed} already in the corpus", bar
        assert page.progress_bar.value() == landed
        being = f"{PAGES - landed} pages being imported; {earlier}"
        qtbot.waitUntil(lambda: _details(window) == being, timeout=TIMEOUT_MS)
    finally:  # a failure above still lets the run end before the window closes
        started.release.set()
        wait_run_end(qtbot, window)
    rest = PAGES - landed
    # The notebook was created by the stopped run; the retry added to it.
    assert _details(window) == f"{rest} pages into the existing notebook; {earlier}"
    assert page.progress_bar.format() == (
        f"{rest} of {PAGES} pages landed, {landed} already in the corpus"
    )


def test_a_stopped_notebooks_details_are_shown_whole_under_the_table(
    qtbot: QtBot,
    corpus: Corpus,
    tmp_path: Path,
    checkpoint: ExecutorGate,
    importing: Callable[..., MainWindow],
) -> None:
    window = importing(make_png_shelf(tmp_path / "shelf", notebooks=1, pages=PAGES))
    window.resize(1024, 768)
    page = window.commit_page
    try:
        assert checkpoint.reached.wait(TIMEOUT_MS / 1000)
        click_in_next_box(stop_choice_words(StopChoice.KEEP, closing=False), [])
        page.cancel_button.click()
    finally:
        checkpoint.release.set()
        wait_run_end(qtbot, window)
    [landed] = [nb.page_count for nb in corpus.list_notebooks()]
    whole = (
        f"Cancelled before it was finished. {landed} pages of it landed and stay in the notebook."
    )
    assert _details(window) == whole
    # The column cuts it at 1024 px; the line under the table, wrapped, shows it whole.
    label = page.details_label
    assert label.isVisible() and label.text() == whole and label.wordWrap()
    qtbot.waitUntil(lambda: label.height() >= label.heightForWidth(label.width()))
    assert label.width() <= page.width()


def test_a_whole_import_is_told_in_words_that_add_up(
    qtbot: QtBot,
    tmp_path: Path,
    importing: Callable[..., MainWindow],
) -> None:
    window = importing(make_png_shelf(tmp_path / "shelf", notebooks=1, pages=12), workers=None)
    wait_run_end(qtbot, window)
    page = window.commit_page
    # Nothing was skipped: the end says only that every notebook was committed.
    assert "Every notebook was committed." in page.summary_label.text()
    assert "skipped" not in page.summary_label.text()
    # The pages, the time as shown and the speed agree with one another.
    said = page.rate_label.text()
    m = re.fullmatch(r"12 pages in (\d+(?:\.\d)?) s \((\d+\.\d) pages/s\)\.", said)
    assert m is not None, said
    seconds, rate = float(m[1]), float(m[2])
    assert seconds < 10 or "." not in m[1]  # a tenth under 10 s, whole seconds above
    assert rate == round(12 / seconds, 1), said

    runs = window.runs_page
    with qtbot.waitSignal(runs.listed, timeout=TIMEOUT_MS):
        window.show_section(Section.RUNS)
        runs.refresh(select=page.run_id)
    qtbot.waitUntil(lambda: runs.history_list.count() > 0, timeout=TIMEOUT_MS)
    history = [runs.history_list.item(i).text() for i in range(runs.history_list.count())]
    assert "Created" in history[0] and "attempt" not in history[0], history
    assert all("attempt 0" not in line for line in history), history
    assert all("attempt" not in line and "(after it was resumed" not in line for line in history)
    # The import is the row selected: named by no id in its details (#34).
    assert page.run_id is not None and page.run_id not in runs.detail_label.text()
    assert "Run " not in runs.detail_label.text()
