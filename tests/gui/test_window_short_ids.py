"""Ids in the window are named as `runs`, `notebooks` and `trash` name them (base/ids.short_id):
8 characters, more where two ids of a kind share them, so that what the window shows is a
prefix every command takes back as that id alone. Two run records sharing 9 characters are
written by hand, as tests/cli do: ids are random."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from test_library import pages_folder

from transcribe_import.engine import api
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow, Section
from transcribe_import.gui.models.notebooks import NotebookColumn, NotebookTableModel
from transcribe_import.gui.models.runs import RunColumn

from helpers.runs import commit_plan, plan_for, twin_run
from helpers.window import TIMEOUT_MS


def test_the_runs_tooltip_and_the_library_name_twin_runs_apart(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    pages_folder(tmp_path / "shelf" / "Diary", ("p1.png", "p2.png"), 100)
    run_id = commit_plan(corpus, plan_for(corpus, tmp_path / "shelf")).run_id
    twin = twin_run(corpus, run_id)
    apart = len(os.path.commonprefix([run_id, twin])) + 1
    assert apart >= 10 and api.run_short_ids(corpus)(run_id) == run_id[:apart]

    window = open_window()
    runs = window.runs_page
    window.show_section(Section.RUNS)
    runs.refresh()
    qtbot.waitUntil(lambda: runs.model.rowCount() == 2, timeout=TIMEOUT_MS)
    tips = {
        runs.model.run(r).run_id: runs.model.index(r, RunColumn.STARTED).data(
            Qt.ItemDataRole.ToolTipRole
        )
        for r in range(2)
    }
    assert tips == {
        run_id: f"In a terminal, this import is run {run_id[:apart]}",
        twin: f"In a terminal, this import is run {twin[:apart]}",
    }

    library = window.corpus_page.library
    with qtbot.waitSignal(library.shown, timeout=TIMEOUT_MS):
        window.show_added(run_id)  # what the Runs view's button asks for
    assert library.run_label.text() == f"Import {run_id[:apart]} added 2 pages to this notebook."


def test_the_id_column_names_twin_notebooks_apart(
    qtbot: QtBot, open_window: Callable[..., MainWindow], make_notebook: Callable[..., str]
) -> None:
    make_notebook("Diary", 1)
    window = open_window()
    listed = window.corpus_page.notebook_model
    qtbot.waitUntil(lambda: listed.rowCount() == 1, timeout=TIMEOUT_MS)
    [nb] = listed.rows()
    assert listed.index(0, NotebookColumn.ID).data() == nb.notebook_id[:8]

    # A twin sharing 9 characters (as the listing of a corpus holding both gives it).
    twin = replace(nb, notebook_id=nb.notebook_id[:9] + "0000-4000-8000-000000000000")
    model = NotebookTableModel([nb, twin])
    apart = len(os.path.commonprefix([nb.notebook_id, twin.notebook_id])) + 1
    shown = [model.index(r, NotebookColumn.ID).data() for r in range(2)]
    assert apart >= 10 and shown == [nb.notebook_id[:apart], twin.notebook_id[:apart]]
    tips = [model.index(r, NotebookColumn.ID).data(Qt.ItemDataRole.ToolTipRole) for r in (0, 1)]
    assert tips == [nb.notebook_id, twin.notebook_id]
