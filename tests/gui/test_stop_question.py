"""Every sentence the window says about stopping an import, pinned by what it describes.

One 70-page notebook is committed and held once its first checkpoint has landed; the stop
question is then answered through the real window, and the corpus is read afterwards:

- *Stop, Keep What Landed*: the pages that landed stay, the notebook holds them (part way),
  and Retry What Did Not Land imports the rest without doubling a page; the retry's speed
  and end line count only the pages it landed itself, and History says the run was retried.
- *Stop and Undo This Import*: the run ends, the undo's preview opens and takes nothing out
  until Undo Import is pressed, which takes every page of the run out.
- The same answers on closing the window, and Keep Importing, which stops nothing.
- Help › Guide names the button and says what stopping keeps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.runs.executor import EventKind
from transcribe_import.engine.runs.model import HistoryEvent, RunStatus
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.help import guide_html
from transcribe_import.gui.main_window import MainWindow, Section
from transcribe_import.gui.undo_dialog import UndoDialog
from transcribe_import.gui.wording import (
    StopChoice,
    history_words,
    nothing_to_undo_words,
    stop_choice_words,
    stop_on_close_question,
    stop_question,
)

from helpers.shelves import make_png_shelf
from helpers.window import (
    TIMEOUT_MS,
    ExecutorGate,
    click_in_next_box,
    wait_run_end,
)

PAGES = 70


@pytest.fixture
def checkpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[ExecutorGate]:
    """The executor held once the notebook's first checkpoint has landed."""
    held = ExecutorGate(monkeypatch, at=EventKind.PAGES_LANDED)
    yield held
    held.release.set()


@pytest.fixture
def held_part_way(
    tmp_path: Path, checkpoint: ExecutorGate, importing: Callable[..., MainWindow]
) -> MainWindow:
    """The window committing one 70-page notebook, held after its first checkpoint."""
    window = importing(make_png_shelf(tmp_path / "shelf", notebooks=1, pages=PAGES))
    assert checkpoint.reached.wait(TIMEOUT_MS / 1000)
    return window


def _pages_in(corpus: Corpus) -> list[int]:
    return [nb.page_count for nb in corpus.list_notebooks()]


def _undo_dialog(qtbot: QtBot, window: MainWindow) -> UndoDialog:
    """The undo's preview the stop opened, once it has read what the run wrote."""
    qtbot.waitUntil(lambda: window.runs_page.undo_dialog is not None, timeout=TIMEOUT_MS)
    dialog = window.runs_page.undo_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.undo_button.isEnabled(), timeout=TIMEOUT_MS)
    return dialog


def test_stop_keep_what_landed_keeps_the_pages_and_retry_imports_only_the_rest(
    qtbot: QtBot, corpus: Corpus, checkpoint: ExecutorGate, held_part_way: MainWindow
) -> None:
    window = held_part_way
    page = window.commit_page
    assert page.cancel_button.text().replace("&", "") == "Stop Import…"
    seen: list[str] = []
    click_in_next_box("Keep Importing", seen)
    page.cancel_button.click()
    assert page.is_running() and not page.stopping()  # Keep Importing stops nothing

    click_in_next_box(stop_choice_words(StopChoice.KEEP, closing=False), seen)
    page.cancel_button.click()
    words = stop_question()
    assert seen[-1] == f"{words.question} {words.details}"
    assert page.rate_label.text() == "Stopping at the next safe point… the pages already in stay."
    checkpoint.release.set()
    wait_run_end(qtbot, window)

    # "Pages already in the corpus stay there … A notebook stopped part way keeps the pages
    # that landed": the notebook holds them, and the run's count says the same number.
    [first] = RunStore(corpus).list_runs()
    assert first.status is RunStatus.CANCELLED
    [landed] = _pages_in(corpus)
    assert 0 < landed < PAGES
    assert api.run_summary(corpus, first).pages_landed == landed
    assert window.runs_page.undo_dialog is None  # kept: no undo was offered

    # "Retry What Did Not Land imports the rest": the notebook ends whole, no page twice.
    assert page.retry_button.isVisible()
    qtbot.waitUntil(lambda: window.notebook_count_label.text() == "1 notebook")
    counted: list[str] = []  # the status bar's count as each retried checkpoint lands
    page.progressed.connect(lambda: counted.append(window.notebook_count_label.text()))
    page.retry_button.click()
    wait_run_end(qtbot, window)
    assert _pages_in(corpus) == [PAGES]
    # The notebook the stopped run created is not counted again as the retry finishes it.
    assert counted and set(counted) == {"1 notebook"}
    retry = next(r for r in RunStore(corpus).list_runs() if r.run_id != first.run_id)
    assert retry.status is RunStatus.COMPLETE
    # The retry's end line counts only the pages it landed itself.
    assert page.rate_label.text().startswith(f"{PAGES - landed} pages in ")

    # History of the stopped run: the cancel, its end and the retry, naming the new run.
    record = RunStore(corpus).load(first.run_id)
    events = [h.event for h in api.run_history(record)]
    assert HistoryEvent.CANCEL_REQUESTED in events and events[-1] is HistoryEvent.RETRIED
    last = history_words(api.run_history(record)[-1])
    assert "Retried: a new run imports what did not land" in last
    assert last.endswith("(the new import is listed in Runs)")
    assert retry.run_id not in last  # named where it is listed, never by its id


def test_stop_and_undo_ends_the_run_then_its_preview_takes_out_only_when_asked(
    qtbot: QtBot, corpus: Corpus, checkpoint: ExecutorGate, held_part_way: MainWindow
) -> None:
    window = held_part_way
    page = window.commit_page
    seen: list[str] = []
    click_in_next_box(stop_choice_words(StopChoice.UNDO, closing=False), seen)
    page.cancel_button.click()
    assert "then what undoing the import takes out is shown" in page.rate_label.text()
    checkpoint.release.set()
    wait_run_end(qtbot, window)

    # "the run ends, then you see what undoing it takes out … before anything is taken out"
    dialog = _undo_dialog(qtbot, window)
    assert window.nav.currentRow() == Section.RUNS
    [run] = RunStore(corpus).list_runs()
    assert run.status is RunStatus.CANCELLED
    [landed] = _pages_in(corpus)
    taken = "1 page is" if landed == 1 else f"{landed} pages are"
    assert f"{taken} taken out" in dialog.headline.text()
    assert _pages_in(corpus) == [landed]  # the preview took nothing out

    with qtbot.waitSignal(dialog.reverted, timeout=TIMEOUT_MS):
        qtbot.mouseClick(dialog.undo_button, Qt.MouseButton.LeftButton)
    assert _pages_in(corpus) == []
    assert RunStore(corpus).load(run.run_id).status is RunStatus.REVERTED
    dialog.accept()


def test_closing_with_stop_and_undo_waits_for_the_undo_then_closes(
    qtbot: QtBot, corpus: Corpus, checkpoint: ExecutorGate, held_part_way: MainWindow
) -> None:
    window = held_part_way
    seen: list[str] = []
    click_in_next_box(stop_choice_words(StopChoice.UNDO, closing=True), seen)
    assert not window.close()
    words = stop_on_close_question()
    assert seen == [f"{words.question} {words.details}"]
    checkpoint.release.set()
    wait_run_end(qtbot, window)

    # "ends the run, then shows what undoing it takes out before the window closes"
    dialog = _undo_dialog(qtbot, window)
    assert window.isVisible() and dialog.isVisible()
    [landed] = _pages_in(corpus)
    assert landed > 0
    with qtbot.waitSignal(dialog.reverted, timeout=TIMEOUT_MS):
        qtbot.mouseClick(dialog.undo_button, Qt.MouseButton.LeftButton)
    assert _pages_in(corpus) == []
    qtbot.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=TIMEOUT_MS)


def test_closing_with_stop_keep_what_landed_closes_and_the_pages_stay(
    qtbot: QtBot, corpus: Corpus, checkpoint: ExecutorGate, held_part_way: MainWindow
) -> None:
    window = held_part_way
    seen: list[str] = []
    click_in_next_box(stop_choice_words(StopChoice.KEEP, closing=True), seen)
    assert not window.close()
    checkpoint.release.set()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=TIMEOUT_MS)

    # "the pages that landed stay in the corpus, a notebook stopped part way included"
    [run] = RunStore(corpus).list_runs()
    assert run.status is RunStatus.CANCELLED
    [landed] = _pages_in(corpus)
    assert 0 < landed < PAGES and api.run_summary(corpus, run).pages_landed == landed
    assert window.runs_page.undo_dialog is None


def test_the_guide_names_the_stop_button_and_says_what_stopping_keeps(
    open_window: Callable[..., MainWindow],
) -> None:
    """The Guide's Commit step: its button is the commit view's, and what it says stopping
    keeps is what the tests above prove."""
    guide = guide_html()
    window = open_window()
    assert window.commit_page.cancel_button.text().replace("&", "") in guide
    assert window.commit_page.retry_button.text().replace("&", "") in guide
    assert "the pages already in stay" in guide
    assert "whole or not at all" not in guide


def test_a_refused_retry_is_told_and_kept_in_the_history_of_the_run_it_would_retry(
    qtbot: QtBot,
    corpus: Corpus,
    tmp_path: Path,
    checkpoint: ExecutorGate,
    held_part_way: MainWindow,
) -> None:
    window = held_part_way
    page = window.commit_page
    click_in_next_box(stop_choice_words(StopChoice.KEEP, closing=False), [])
    page.cancel_button.click()
    checkpoint.release.set()
    wait_run_end(qtbot, window)
    [first] = RunStore(corpus).list_runs()
    [landed] = _pages_in(corpus)
    grown = tmp_path / "shelf" / "Notebook 01" / f"p{PAGES}.png"
    with grown.open("ab") as f:
        f.write(b"\0" * 64)  # a page not landed yet changes: the frozen plan no longer holds

    page.retry_button.click()
    wait_run_end(qtbot, window)
    assert "nothing was committed" in page.summary_label.text()
    assert [r.run_id for r in RunStore(corpus).list_runs()] == [first.run_id]  # no new run
    assert _pages_in(corpus) == [landed]

    entries = api.run_history(RunStore(corpus).load(first.run_id))
    assert entries[-1].event is HistoryEvent.RETRY_REFUSED
    said = history_words(entries[-1])
    assert "Retry refused; no new run began" in said and f"p{PAGES}.png" in said


def test_stop_and_undo_before_any_page_landed_says_there_is_nothing_to_undo(
    qtbot: QtBot,
    corpus: Corpus,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    importing: Callable[..., MainWindow],
) -> None:
    make_png_shelf(tmp_path / "shelf", notebooks=1, pages=PAGES)
    started = ExecutorGate(monkeypatch, at=EventKind.ITEM_STARTED)
    try:
        window = importing(tmp_path / "shelf")
        assert started.reached.wait(TIMEOUT_MS / 1000)
        click_in_next_box(stop_choice_words(StopChoice.UNDO, closing=False), [])
        window.commit_page.cancel_button.click()
    finally:
        started.release.set()
    wait_run_end(qtbot, window)

    [run] = RunStore(corpus).list_runs()
    assert run.status is RunStatus.CANCELLED and _pages_in(corpus) == []
    assert nothing_to_undo_words() in window.commit_page.summary_label.text()
    assert window.runs_page.undo_dialog is None  # no preview of nothing
