"""Health after a kill -9 (#34): the undone checkpoint is named by its notebook's title and
offers Resume, the button that imports its pages again, not a command or "import again"."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow

from helpers.runs import killed_commit
from helpers.shelves import make_pages
from helpers.window import TIMEOUT_MS


@pytest.mark.crash
def test_health_after_a_kill_names_the_notebook_and_offers_resume(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    make_pages(tmp_path / "shelf" / "Parish register", 40, size=(120, 160))
    # Killed at its second checkpoint (of 32 pages: helpers.cli's environment), staging.
    plan = killed_commit(corpus, tmp_path / "shelf", "ingest.after_claim:2")

    window = open_window()
    view = window.corpus_page.findings_view
    qtbot.waitUntil(lambda: view.rowCount() > 0, timeout=TIMEOUT_MS)
    said = [view.item(row, 0).text() for row in range(view.rowCount())]
    [undone] = [s for s in said if "an interrupted import of" in s]
    assert undone.startswith("“Parish register”: an interrupted import of ")
    assert "was undone because" in undone and "Import those pages again" not in undone
    assert undone.endswith("To finish it, select it in Runs and choose Resume.")
    assert all(plan.items[0].notebook_id not in s for s in said)  # a title, never its id
    assert [s for s in said if "transcribe-import" in s] == []
