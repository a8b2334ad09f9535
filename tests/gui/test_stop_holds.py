"""While the stop question is open, the import waits: what it says is left out stays out.

Asked from Stop Import… or on closing the window, the run is held (RunControl.hold): no
notebook starts, and the one being imported waits after its next checkpoint. Each test
lets the executor go on once the question is open and waits for it to say it is held
(EventKind.HELD) before it reads the corpus and answers. Closing answered after the import
ended meanwhile closes the window, or returns it, by every button.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from transcribe_import.engine.runs.executor import EventKind
from transcribe_import.engine.runs.model import ItemState, RunStatus
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui import workers
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.pages import commit as commit_view
from transcribe_import.gui.wording import (
    StopChoice,
    elapsed_words,
    stop_choice_words,
    stop_on_close_question,
    stop_question,
    waiting_for_answer_words,
)

from helpers.shelves import make_png_shelf
from helpers.window import (
    TIMEOUT_MS,
    ExecutorGate,
    commit,
    drop,
    scan_and_validate,
    wait_run_end,
    when_modal_opens,
)

WAITS = "While you decide, the import waits: no notebook starts, and the one being imported "
WAITS += "stops after its next few pages land."


def _pages_in(corpus: Corpus) -> list[int]:
    return sorted(nb.page_count for nb in corpus.list_notebooks())


def _committing(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    tmp_path: Path,
    gate: ExecutorGate,
    notebooks: int,
    pages: int,
) -> MainWindow:
    make_png_shelf(tmp_path / "shelf", notebooks=notebooks, pages=pages)
    window = open_window(workers=1)
    drop(window, [tmp_path / "shelf"])
    scan_and_validate(qtbot, window)
    commit(qtbot, window)
    assert gate.reached.wait(TIMEOUT_MS / 1000)
    return window


def _answer_once_held(
    qtbot: QtBot, gate: ExecutorGate, corpus: Corpus, button: str, seen: list[object]
) -> None:
    """When the next question opens: let the executor go on, wait until it says it is held,
    note the question's words and the corpus as it is then, and press ``button``."""

    def act(box: QMessageBox) -> None:
        seen.append(box.informativeText())
        gate.release.set()
        qtbot.waitUntil(lambda: EventKind.HELD in gate.kinds, timeout=TIMEOUT_MS)
        seen.append(_pages_in(corpus))
        page = box.parent()
        assert isinstance(page, QWidget)
        window = page.window()
        assert isinstance(window, MainWindow)
        # No speed nor time left while it waits: it says what it waits for.
        assert window.commit_page.rate_label.text() == waiting_for_answer_words()
        [chosen] = [b for b in box.buttons() if b.text() == button]
        chosen.click()

    when_modal_opens(QMessageBox, act)


@pytest.fixture
def after_first_notebook(monkeypatch: pytest.MonkeyPatch) -> Iterator[ExecutorGate]:
    gate = ExecutorGate(monkeypatch, at=EventKind.ITEM_FINISHED)
    yield gate
    gate.release.set()


@pytest.fixture
def after_first_checkpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[ExecutorGate]:
    gate = ExecutorGate(monkeypatch, at=EventKind.PAGES_LANDED)
    yield gate
    gate.release.set()


@pytest.fixture
def before_the_notebook(monkeypatch: pytest.MonkeyPatch) -> Iterator[ExecutorGate]:
    gate = ExecutorGate(monkeypatch, at=EventKind.ITEM_STARTED)
    yield gate
    gate.release.set()


@pytest.mark.parametrize("closing", [False, True], ids=["stop-import", "closing"])
def test_no_notebook_starts_while_the_stop_question_is_open(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    tmp_path: Path,
    after_first_notebook: ExecutorGate,
    closing: bool,
) -> None:
    """ "Notebooks not started are not imported": three wait when Stop is pressed, and the
    import goes on behind the question; none of them is started before it is answered."""
    window = _committing(qtbot, open_window, tmp_path, after_first_notebook, 4, 3)
    seen: list[object] = []
    keep = stop_choice_words(StopChoice.KEEP, closing=closing)
    _answer_once_held(qtbot, after_first_notebook, corpus, keep, seen)
    if closing:
        assert not window.close()
    else:
        window.commit_page.cancel_button.click()
    wait_run_end(qtbot, window)

    words = stop_on_close_question() if closing else stop_question()
    assert seen[0] == words.details and WAITS in words.details
    assert seen[1] == [3]  # held: the first notebook only, while the question was open
    assert _pages_in(corpus) == [3]  # and so it stays once answered
    [run] = RunStore(corpus).list_runs()
    assert run.status is RunStatus.CANCELLED_WITH_COMMITS
    states = sorted(o.state for o in run.outcomes().values())
    assert states == sorted([ItemState.COMMITTED] + [ItemState.CANCELLED_PENDING] * 3)
    kinds = after_first_notebook.kinds
    assert kinds.count(EventKind.ITEM_STARTED) == 1  # none started after the first
    if closing:
        qtbot.waitUntil(lambda: not window.isVisible(), timeout=TIMEOUT_MS)


def test_the_notebook_in_flight_waits_after_its_checkpoint_and_keep_importing_goes_on(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    tmp_path: Path,
    after_first_checkpoint: ExecutorGate,
) -> None:
    window = _committing(qtbot, open_window, tmp_path, after_first_checkpoint, 1, 70)
    seen: list[object] = []
    go_on = stop_choice_words(StopChoice.CONTINUE, closing=False)
    _answer_once_held(qtbot, after_first_checkpoint, corpus, go_on, seen)
    window.commit_page.cancel_button.click()
    [held] = seen[1]  # type: ignore[misc]
    assert 0 < held < 70  # the checkpoint that landed, and no page more while asked
    assert not window.commit_page.stopping()
    wait_run_end(qtbot, window)
    assert _pages_in(corpus) == [70]  # Keep Importing went on from there
    [run] = RunStore(corpus).list_runs()
    assert run.status is RunStatus.COMPLETE


@pytest.mark.parametrize("choice", list(StopChoice), ids=[c.value for c in StopChoice])
def test_every_answer_to_the_close_question_ends_after_the_import_ended_meanwhile(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    tmp_path: Path,
    before_the_notebook: ExecutorGate,
    choice: StopChoice,
) -> None:
    """The import ends while "Stop it before closing?" is open: whichever button is then
    pressed, the window closes (Stop and Undo: once its undo's preview is done) or, with
    Keep Importing, is there to use; it is never left greyed out at "Stopping…"."""
    window = _committing(qtbot, open_window, tmp_path, before_the_notebook, 1, 1)
    ended: list[bool] = []

    def act(box: QMessageBox) -> None:
        before_the_notebook.release.set()  # its one checkpoint lands, and the run ends
        qtbot.waitUntil(lambda: not window.commit_page.is_running(), timeout=TIMEOUT_MS)
        ended.append(True)
        [button] = [b for b in box.buttons() if b.text() == stop_choice_words(choice, True)]
        button.click()

    when_modal_opens(QMessageBox, act)
    assert not window.close()
    assert ended == [True]
    [run] = RunStore(corpus).list_runs()
    assert run.status is RunStatus.COMPLETE and _pages_in(corpus) == [1]
    if choice is StopChoice.CONTINUE:
        assert window.isVisible() and window.menuBar().isEnabled() and window.nav.isEnabled()
        assert not window.windowTitle().startswith("Stopping")
        return
    if choice is StopChoice.UNDO:
        qtbot.waitUntil(lambda: window.runs_page.undo_dialog is not None, timeout=TIMEOUT_MS)
        dialog = window.runs_page.undo_dialog
        assert dialog is not None and window.isVisible()
        qtbot.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)  # kept: not undone
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=TIMEOUT_MS)
    assert _pages_in(corpus) == [1]


def test_the_end_screen_counts_only_the_time_the_import_ran(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    tmp_path: Path,
    after_first_notebook: ExecutorGate,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ "64 pages in 23 s" after a Stop counted the time the question was open. The commit
    view's clock is moved ten minutes on while the question waits for its answer: the end
    screen's time is still no more than the import really took."""
    offset = [0.0]

    class Clock:
        perf_counter = staticmethod(time.perf_counter)

        @staticmethod
        def monotonic() -> float:
            return time.monotonic() + offset[0]

    monkeypatch.setattr(commit_view, "time", Clock)
    monkeypatch.setattr(workers, "time", Clock)  # the run's side says when pages landed
    began = time.monotonic()
    window = _committing(qtbot, open_window, tmp_path, after_first_notebook, 4, 3)

    def act(box: QMessageBox) -> None:
        after_first_notebook.release.set()
        qtbot.waitUntil(lambda: EventKind.HELD in after_first_notebook.kinds, timeout=TIMEOUT_MS)
        offset[0] += 600.0  # the person reads the question for ten minutes
        [keep] = [b for b in box.buttons() if b.text() == stop_choice_words(StopChoice.KEEP, False)]
        keep.click()

    when_modal_opens(QMessageBox, act)
    window.commit_page.cancel_button.click()
    wait_run_end(qtbot, window)
    took = time.monotonic() - began

    pages, seconds = window.commit_page.last_run_pages()
    assert pages == 3 == sum(_pages_in(corpus))
    assert 0 < seconds <= took < 600
    assert window.commit_page.rate_label.text() == elapsed_words(pages, seconds)
