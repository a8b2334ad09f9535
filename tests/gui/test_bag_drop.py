"""A bag dropped on the window is recognised as a bag: its notebooks come back with their ids."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow

from helpers.bags import damage, edit_project, foreign_bag
from helpers.cli import cli_json, run_cli
from helpers.shelves import make_shelf
from helpers.window import (
    TIMEOUT_MS,
    commit,
    drop,
    wait_run_end,
    wait_validated,
)

# Each exports a bag through the real command line first (seconds): the whole run only.
pytestmark = pytest.mark.slow
OpenWindow = Callable[..., MainWindow]


def _export(tmp_path: Path) -> tuple[list[dict], Path]:
    """Two notebooks committed in another data directory, exported as one bag."""
    other = tmp_path / "other"
    plan = tmp_path / "plan.json"
    run_cli(other, "plan", str(make_shelf(tmp_path / "shelf", notebooks=2)), "-o", str(plan))
    cli_json(other, "commit", str(plan), "--json")
    bag = tmp_path / "bag"
    cli_json(other, "export", "--all", "--output", str(bag), "--json")
    return cli_json(other, "notebooks", "--json")["notebooks"], bag


def test_a_dropped_bag_imports_with_its_ids(
    qtbot: QtBot,
    corpus: Corpus,
    tmp_path: Path,
    importing: Callable[..., MainWindow],
) -> None:
    notebooks, bag = _export(tmp_path)
    window = importing(bag, workers=None, commit=False)
    plan = window.session.plan
    assert plan is not None
    assert sorted(it.notebook_id for it in plan.items) == sorted(
        n["notebook_id"] for n in notebooks
    )
    commit(qtbot, window)
    wait_run_end(qtbot, window)
    mine = {n.notebook_id: n.page_count for n in corpus.list_notebooks()}
    assert mine == {n["notebook_id"]: n["page_count"] for n in notebooks}


def test_a_bag_mixed_with_folders_is_refused_in_words(
    qtbot: QtBot, open_window: OpenWindow, tmp_path: Path
) -> None:
    _notebooks, bag = _export(tmp_path)
    window = open_window()
    drop(window, [bag, make_shelf(tmp_path / "more", notebooks=1)])
    window.flow.start_scan()
    assert window.current_page() is not window.scan_page
    assert "is a BagIt bag" in window.statusBar().currentMessage()


def test_a_conflicting_notebook_is_settled_in_the_window(
    qtbot: QtBot,
    corpus: Corpus,
    data_dir: Path,
    tmp_path: Path,
    importing: Callable[..., MainWindow],
) -> None:
    """Same id, other content: a decision with both choices; as a copy, it lands beside."""
    notebooks, bag = _export(tmp_path)
    plan = tmp_path / "bag-plan.json"
    run_cli(data_dir, "plan", str(bag), "--mode", "bag", "-o", str(plan))
    cli_json(data_dir, "commit", str(plan), "--json")
    changed = notebooks[0]["notebook_id"]
    edit_project(bag, changed, lambda doc: doc.update(title="Renamed elsewhere"))
    window = importing(bag, workers=None, commit=False)
    assert window.session.plan is not None
    item = next(it for it in window.session.plan.items if it.notebook_id == changed)
    window.review_page.select_item(item.item_id)
    buttons = {b.text(): b for b in window.review_page.decision_buttons()}
    assert set(buttons) >= {"Leave this notebook out", "Import it as a copy (new ids)"}
    buttons["Import it as a copy (new ids)"].click()
    wait_validated(qtbot, window)
    assert window.review_page.can_commit(), window.session.report
    commit(qtbot, window)
    wait_run_end(qtbot, window)
    titles = sorted(n.title for n in corpus.list_notebooks())
    assert titles == ["Renamed elsewhere (copy)", "notebook 1", "notebook 2"]


# -- bags other tools made -------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["standard", "sha512", "0.97-md5", "nested", "nfd", "extra-tags"])
def test_a_dropped_bag_another_tool_made_lands_as_its_folders(
    qtbot: QtBot,
    corpus: Corpus,
    tmp_path: Path,
    kind: str,
    importing: Callable[..., MainWindow],
) -> None:
    bag, notebooks = foreign_bag(tmp_path / "Accession 12", kind)
    window = importing(bag, workers=None, commit=False)
    plan = window.session.plan
    assert plan is not None
    assert {it.title: len(it.sources) for it in plan.items} == notebooks
    commit(qtbot, window)
    wait_run_end(qtbot, window)
    assert {n.title: n.page_count for n in corpus.list_notebooks()} == notebooks


@pytest.mark.parametrize("how", ["holey", "altered", "added", "removed", "outside"])
def test_a_dropped_damaged_bag_is_refused_naming_the_file(
    qtbot: QtBot, open_window: OpenWindow, corpus: Corpus, tmp_path: Path, how: str
) -> None:
    bag, _ = foreign_bag(tmp_path / "bag", "standard")
    named, code = damage(bag, how)
    window = open_window()
    drop(window, [bag])
    qtbot.mouseClick(window.start_page.scan_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.start_page.error_row.isVisible(), timeout=TIMEOUT_MS)
    said = window.start_page.error_label.text()
    assert f"{bag}/{named}" in said and f"(code {code})" in said
    assert window.session.plan is None
    assert list(corpus.index_entries()) == []
