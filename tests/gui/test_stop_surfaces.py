"""The window's stops in the table of stops: Close → Stop, Close → Pause, a SIGKILL of the app.

The twin of tests/cli/test_run_state.py for the stops only the window makes. Each stops the
import of one 70-page notebook after its first checkpoint has landed; then the CLI's JSON,
the CLI's words and the window's Runs model and History must tell the run alike, with the
pages the corpus holds from it (helpers/run_surfaces.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from transcribe_import.engine.runs.executor import EventKind
from transcribe_import.engine.runs.model import HistoryEvent
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.wording import StopChoice, stop_choice_words

from helpers.cli import Exit
from helpers.run_surfaces import assert_surfaces_agree, counts
from helpers.shelves import make_png_shelf
from helpers.window import (
    TIMEOUT_MS,
    ExecutorGate,
    click_in_next_box,
)

PAGES = 70

# The real app in a process of its own: the window opens on the corpus, scans the shelf
# given on its command line as `gui PATH` does, and commits once the review allows it.
APP = """
import sys
from pathlib import Path
from PySide6.QtCore import QTimer
from transcribe_import.gui import app as gui_app
from transcribe_import.gui.main_window import MainWindow

application = gui_app.application()
window = MainWindow(gui_app.open_corpus(Path(sys.argv[1])))
window.show()
window.flow.prescan([Path(sys.argv[2])])

def commit_when_ready():
    review = window.review_page
    if window.current_page() is review and review.can_commit():
        review.commit_button.click()
        return
    QTimer.singleShot(20, commit_when_ready)

QTimer.singleShot(0, commit_when_ready)
sys.exit(application.exec())
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("answer", "state", "status", "history"),
    [
        (StopChoice.KEEP, "ended", "cancelled", HistoryEvent.CANCEL_REQUESTED),
        (StopChoice.PAUSE, "paused", "running", HistoryEvent.PAUSED),
    ],
    ids=["close_stop", "close_pause"],
)
def test_closing_during_a_commit_is_told_alike_everywhere(
    qtbot: QtBot,
    corpus: Corpus,
    data_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    answer: StopChoice,
    state: str,
    status: str,
    history: HistoryEvent,
    importing: Callable[..., MainWindow],
) -> None:
    make_png_shelf(tmp_path / "shelf", notebooks=1, pages=PAGES)
    held = ExecutorGate(monkeypatch, at=EventKind.PAGES_LANDED)
    try:
        window = importing(tmp_path / "shelf")
        assert held.reached.wait(TIMEOUT_MS / 1000)
        click_in_next_box(stop_choice_words(answer, closing=True), [])
        assert not window.close()
    finally:
        held.release.set()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=TIMEOUT_MS)

    [run] = RunStore(corpus).list_runs()
    pages = assert_surfaces_agree(
        data_dir,
        run.run_id,
        state=state,
        status=status,
        want_counts=counts(0, 1, 0, 0),
        history=(history,),
    )
    assert 0 < pages < PAGES
    assert sum(nb.page_count for nb in corpus.list_notebooks()) == pages


@pytest.mark.crash
def test_a_sigkill_of_the_app_is_told_alike_everywhere(data_dir: Path, tmp_path: Path) -> None:
    shelf = make_png_shelf(tmp_path / "shelf", notebooks=1, pages=PAGES)
    env = {k: v for k, v in os.environ.items() if k != "TRANSCRIBE_DATA_DIR"}
    env.update(
        QT_QPA_PLATFORM="offscreen",
        TRANSCRIBE_CRASH_AT="ingest.between_checkpoints",
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_STATE_HOME=str(tmp_path / "state"),
    )
    app = subprocess.run(
        [sys.executable, "-c", APP, str(data_dir), str(shelf)],
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_MS / 1000 * 4,
    )
    assert app.returncode == Exit.KILLED, app.stderr

    corpus = Corpus.open(data_dir)
    [run] = RunStore(corpus).list_runs()
    pages = assert_surfaces_agree(
        data_dir, run.run_id, state="interrupted", status="running", want_counts=counts(0, 1, 0, 0)
    )
    assert 0 < pages < PAGES
    assert sum(nb.page_count for nb in corpus.list_notebooks()) == pages
