"""Health after a kill -9 (#34): the undone checkpoint is named by its notebook's title and
offers Resume, the button that imports its pages again, not a command or "import again"."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from transcribe_import.engine.planning.plan import save_plan
from transcribe_import.engine.planning.planner import build_plan
from transcribe_import.engine.planning.scan import run_scan
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow

from helpers.cli import Exit, ok, run_cli
from helpers.shelves import make_pages
from helpers.window import TIMEOUT_MS


@pytest.mark.crash
def test_health_after_a_kill_names_the_notebook_and_offers_resume(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    data_dir: Path,
    corpus: Corpus,
    tmp_path: Path,
) -> None:
    make_pages(tmp_path / "shelf" / "Parish register", 40, size=(120, 160))
    plan = build_plan(corpus, run_scan([tmp_path / "shelf"]))
    plan_path = tmp_path / "plan.json"
    save_plan(plan, plan_path)
    # Killed at its second checkpoint (of 32 pages: helpers.cli's environment), staging.
    crash_at = "ingest.after_claim:2"
    ok(
        run_cli(data_dir, "commit", str(plan_path), "--workers", "1", crash_at=crash_at),
        Exit.KILLED,
    )

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
