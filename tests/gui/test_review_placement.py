"""Late pages and rescans through the real window: place the pages, mark a rescan, commit.

The window's review page sets where an "into an existing notebook" item's pages go and
which notebook page a rescan replaces, each an undoable engine edit; a placement problem
validate finds is shown with its buttons, and one click settles it; the commit lands the
pages where the window said, every other page keeping its id.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QInputDialog, QPushButton
from pytestqt.qtbot import QtBot

from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.ingest.placement import Placement
from transcribe_import.engine.ingest.transaction import IngestRequest, PageSpec, SourceSpec, ingest
from transcribe_import.engine.planning.validate import ProblemCode
from transcribe_import.engine.storage import fsio, project
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.pages.placement import AT_POSITION

from helpers.window import (
    TIMEOUT_MS,
    assert_no_clash,
    commit,
    into_review,
    wait_run_end,
    wait_validated,
)


def late_pages(folder: Path) -> Path:
    """Two page files to add: p1.png (a page found late) and p2.png (a rescan)."""
    folder.mkdir(parents=True)
    for i in (1, 2):
        Image.new("RGB", (40, 56), (10 * i, 120, 90)).save(folder / f"p{i}.png")
    return folder


@pytest.fixture
def reviewing(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    make_notebook: Callable[..., str],
    corpus: Corpus,
    tmp_path: Path,
) -> Callable[[str, int], tuple[MainWindow, str, list[str]]]:
    """A notebook of some pages, and the window reviewing two files to add into it:
    ``reviewing(title, pages)`` gives (window, notebook id, its page ids)."""

    def review(title: str, pages: int) -> tuple[MainWindow, str, list[str]]:
        target = make_notebook(title, pages=pages)
        held = [p["id"] for p in project.read(corpus.notebook_dir(target), target)["pages"]]
        window = open_window()
        into_review(qtbot, window, target, late_pages(tmp_path / "late"))
        return window, target, held

    return review


def answer_replace_dialog(choice_prefix: str) -> None:
    """Pick the entry starting with ``choice_prefix`` in the open replace dialog, then OK."""
    dialog = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QInputDialog))
    match = next(c for c in dialog.comboBoxItems() if c.startswith(choice_prefix))
    dialog.setTextValue(match)
    dialog.accept()


def the_item(window: MainWindow):
    assert window.session.plan is not None
    [item] = window.session.plan.items
    return item


def test_place_and_replace_in_the_window_then_commit(
    qtbot: QtBot, reviewing: Callable[..., tuple[MainWindow, str, list[str]]], corpus: Corpus
) -> None:
    window, target, held = reviewing("Diary 1998", 4)
    review = window.review_page
    bar = review.placement_bar
    assert bar.isVisible() and bar.title() == "Where the new pages go in “Diary 1998”"
    assert bar.mode_combo.currentText() == "At the end"
    assert_no_clash(window, "review, into a notebook")

    # At position 2: an undoable engine edit of the plan, not a widget's own state.
    bar.mode_combo.setCurrentIndex(AT_POSITION)
    assert the_item(window).placement == Placement(at=1)  # the spin box's first value
    bar.position_spin.setValue(2)
    assert the_item(window).placement == Placement(at=2)
    assert bar.position_spin.maximum() == 5  # one past the last page: the end
    review.undo_action.trigger()
    assert the_item(window).placement == Placement(at=1)
    review.redo_action.trigger()
    assert the_item(window).placement == Placement(at=2)

    # p2.png replaces the notebook's third page, chosen in the dialog the action opens.
    review.select_rows([1])
    assert review.replace_action.isEnabled()
    QTimer.singleShot(0, lambda: answer_replace_dialog("Page 3"))
    review.replace_action.trigger()
    item = the_item(window)
    rescan = item.sources[1].pages[0].page_id
    assert item.replacements == ((rescan, held[2]),)
    assert "Replaces page 3" in review.pages_model.index(1, 5).data()

    wait_validated(qtbot, window)
    assert window.session.report is not None and window.session.report.ok
    commit(qtbot, window)
    wait_run_end(qtbot, window)
    doc = project.read(corpus.notebook_dir(target), target)
    added = item.sources[0].pages[0].page_id
    assert [p["id"] for p in doc["pages"]] == [held[0], added, held[1], rescan, held[3]]
    assert [e["page"]["id"] for e in doc["replaced_pages"]] == [held[2]]


def test_a_placement_problem_is_settled_with_its_button(
    qtbot: QtBot,
    reviewing: Callable[..., tuple[MainWindow, str, list[str]]],
    corpus: Corpus,
    tmp_path: Path,
) -> None:
    """The page a rescan was to replace is replaced by another import meanwhile: validate
    says so in the decision panel, and "Add it as a new page instead" settles it."""
    window, target, held = reviewing("Ledger", 3)
    review = window.review_page
    review.select_rows([1])
    review.edits.replace_selected_with(held[1])
    wait_validated(qtbot, window)
    assert window.session.report is not None and window.session.report.ok

    # Another import replaces that page first.
    other = tmp_path / "other.png"
    Image.new("RGB", (40, 56), (1, 2, 3)).save(other)
    page = PageSpec(new_id(), new_id(), 0)
    spec = SourceSpec(new_id(), other, fsio.hash_file(other)[0], "image/png", (page,))
    ingest(corpus, IngestRequest(target, (spec,), replaces=((page.page_id, held[1]),)))

    review.validate_action.trigger()
    qtbot.waitUntil(
        lambda: (
            window.session.report is not None
            and any(
                p.code == ProblemCode.REPLACED_PAGE_NOT_FOUND for p in window.session.report.errors
            )
        ),
        timeout=TIMEOUT_MS,
    )
    assert not review.can_commit()
    assert review.decision_panel.title() == "Where the pages go needs a decision"
    [button] = [b for b in review.decision_buttons() if b.text() == "Add it as a new page instead"]
    assert isinstance(button, QPushButton)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert the_item(window).replacements == ()
    wait_validated(qtbot, window)
    assert window.session.report is not None and window.session.report.ok
