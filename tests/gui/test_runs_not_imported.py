"""The Runs view lists what a run's scan found and its plan did not import, each with why
(api.found_not_imported), and nothing for a run that imported every file it found."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pytestqt.qtbot import QtBot

from transcribe_import.engine.planning import ordering
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow, Section

from helpers.runs import commit_plan, plan_for
from helpers.window import TIMEOUT_MS
from media_factory import make_image


def _items(window: MainWindow) -> list[str]:
    found = window.runs_page.not_imported_list
    return [found.item(i).text() for i in range(found.count())]


def test_the_runs_view_lists_the_files_a_run_left_out(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    for k in (1, 2, 3):
        make_image(tmp_path / "Box" / f"p{k}.jpg", f"page {k}")
    (tmp_path / "Box" / "notes.txt").write_text("notes\n", encoding="utf-8")
    plan = plan_for(corpus, tmp_path / "Box")
    plan = plan.with_item(ordering.exclude(plan.items[0], ["p3.jpg"]))
    assert commit_plan(corpus, plan).status == "complete"
    for k in (1, 2):
        make_image(tmp_path / "Whole" / f"q{k}.jpg", f"whole {k}")
    assert commit_plan(corpus, plan_for(corpus, tmp_path / "Whole")).status == "complete"

    window = open_window()
    page = window.runs_page
    with qtbot.waitSignal(page.detail_shown, timeout=TIMEOUT_MS):
        window.show_section(Section.RUNS)
    # The newest first: the whole folder, nothing left out, nothing listed.
    assert page.selected_run().pages_committed == 2
    assert not page.not_imported_list.isVisibleTo(page)
    assert _items(window) == []

    with qtbot.waitSignal(page.detail_shown, timeout=TIMEOUT_MS):
        page.table.selectRow(1)
    assert page.not_imported_label.isVisibleTo(page)
    assert page.not_imported_label.text() == "N&ot imported: 2 files its scan found"
    items = _items(window)
    assert "Box/p3.jpg: left out in the review" in items
    assert len(items) == 2 and any(i.startswith("Box/notes.txt: ") for i in items)
