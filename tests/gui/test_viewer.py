"""The page viewer: the selected page large enough to read, fitted, zoomed, full-window."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from transcribe_import.engine.planning.plan import ImportPlan
from transcribe_import.engine.planning.planner import build_plan
from transcribe_import.engine.planning.scan import run_scan
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.pages.review import ReviewPage
from transcribe_import.gui.pages.review_grid import PageView
from transcribe_import.gui.session import ImportSession
from transcribe_import.gui.viewer import PREVIEW_SIDE, ViewerDialog

from media_factory import make_jpeg

WAIT_MS = 20_000


def review_of(qtbot: QtBot, corpus: Corpus, shelf: Path) -> tuple[ReviewPage, ImportPlan]:
    """The review page of ``shelf``'s plan, shown at 1366 px, and the plan."""
    session = ImportSession(corpus)
    session.set_plan(build_plan(corpus, run_scan([shelf])))
    page = ReviewPage(session, None)
    qtbot.addWidget(page)
    page.resize(1366, 740)
    page.show()
    qtbot.waitExposed(page)
    plan = session.plan
    assert plan is not None
    return page, plan


@pytest.fixture
def page(qtbot: QtBot, corpus: Corpus, tmp_path: Path) -> ReviewPage:
    for n in (1, 2, 3):
        make_jpeg(tmp_path / "shelf" / "Diary" / f"page {n}.jpg", (1200, 1600), label=str(n))
    page, plan = review_of(qtbot, corpus, tmp_path / "shelf")
    page.select_item(plan.items[0].item_id)
    return page


def shown(qtbot: QtBot, page: ReviewPage, count: int) -> None:
    qtbot.waitUntil(
        lambda: len(page.viewer.pixmaps()) == count and all(page.viewer.pixmaps()),
        timeout=WAIT_MS,
    )


def test_the_selected_page_is_shown_large_beside_the_table(qtbot: QtBot, page: ReviewPage):
    assert page.page_split.sizes()[1] > 300  # open beside the table on a wide window
    page.select_rows([1])
    shown(qtbot, page, 1)
    [pixmap] = page.viewer.pixmaps()
    assert pixmap is not None and max(pixmap.width(), pixmap.height()) == PREVIEW_SIDE
    assert "page 2.jpg" in page.viewer.caption.text()
    # Fitted: the whole page is inside the view, far larger than a 44x56 thumbnail.
    [label] = page.viewer._labels
    drawn = label.pixmap()
    view = page.viewer.scroll_area.viewport().size()
    assert drawn.height() / drawn.devicePixelRatio() <= view.height()
    assert drawn.width() / drawn.devicePixelRatio() > 150


def test_zoom_in_and_out_and_back_to_fit(qtbot: QtBot, page: ReviewPage):
    page.select_rows([0])
    shown(qtbot, page, 1)
    assert page.viewer.zoom is None
    page.viewer.zoom_in()
    first = page.viewer.zoom
    assert first is not None
    page.viewer.zoom_in()
    assert page.viewer.zoom == pytest.approx(first * 1.25)
    page.viewer.zoom_out()
    assert page.viewer.zoom == pytest.approx(first)
    page.viewer.fit()
    assert page.viewer.zoom is None


def test_two_selected_pages_are_side_by_side(qtbot: QtBot, page: ReviewPage):
    page.select_rows([0, 2])
    shown(qtbot, page, 2)
    assert [s.name for s, _ in page.viewer.pages()] == ["page 1.jpg", "page 3.jpg"]


@pytest.mark.parametrize("view", [PageView.GRID, PageView.DETAILS])
def test_space_opens_the_full_window_view_and_closes_it(
    qtbot: QtBot, page: ReviewPage, view: PageView
):
    page.show_view(view, remember=False)
    page.select_rows([2])
    page.pages_widget().setFocus()
    qtbot.keyClick(page.pages_widget(), Qt.Key.Key_Space)
    dialog = page.viewer_dialog
    assert isinstance(dialog, ViewerDialog) and dialog.isVisible()
    qtbot.waitUntil(lambda: all(dialog.viewer.pixmaps()), timeout=WAIT_MS)
    assert dialog.width() > page.viewer.width()
    qtbot.keyClick(dialog, Qt.Key.Key_Space)
    assert not dialog.isVisible()


def test_another_notebook_never_shows_the_page_of_the_one_left(
    qtbot: QtBot, corpus: Corpus, tmp_path: Path
):
    """#34: at 1366 px the preview went on showing a page of the notebook left."""
    for nb in ("A", "B"):
        for n in (1, 2):
            make_jpeg(tmp_path / "shelf" / nb / f"{nb} page {n}.jpg", (600, 800), label=f"{nb}{n}")
    page, plan = review_of(qtbot, corpus, tmp_path / "shelf")
    first, second = plan.items
    page.select_item(first.item_id)
    page.select_rows([1])
    assert page.viewer.caption.text() == "Page 2 of 2 · A page 2.jpg"
    page.select_item(second.item_id)
    assert page.viewer.caption.text() == "Select a page to see it larger."
    assert page.viewer.pixmaps() == []
    page.select_rows([0])
    assert page.viewer.caption.text() == "Page 1 of 2 · B page 1.jpg"
