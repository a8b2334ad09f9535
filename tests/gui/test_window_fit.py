"""The window fits a small screen: 1024x768 and 1366x768, at the default font (issue 13, #5)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtCore import QByteArray, QPoint, QRect, QSettings, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QLabel,
    QScrollArea,
    QStyle,
    QStyleOptionViewItem,
    QTableView,
)
from pytestqt.qtbot import QtBot

from transcribe_import.gui import main_window
from transcribe_import.gui.main_window import MainWindow, Section
from transcribe_import.gui.models.notebooks import NotebookColumn
from transcribe_import.gui.models.page_rows import PageColumn
from transcribe_import.gui.models.plan_items import ItemColumn
from transcribe_import.gui.pages.review_grid import PageView
from transcribe_import.gui.window_geometry import GEOMETRY_KEY

from helpers.shelves import make_png_shelf
from helpers.window import ExecutorGate, scan, wait_run_end, wait_states_checked
from media_factory import make_jpeg

SMALL_SCREENS = [QRect(0, 0, 1024, 768), QRect(0, 0, 1366, 768)]
# A screen with a panel on the left and one on top, as GNOME or KDE leave it.
PANELLED = QRect(64, 32, 960, 736)


@pytest.fixture
def screen(monkeypatch: pytest.MonkeyPatch) -> Callable[[QRect], None]:
    def use(area: QRect) -> None:
        monkeypatch.setattr(main_window, "available_geometry", lambda _w: QRect(area))

    return use


# Titles as long as most shelves have them, and two far longer ones.
TYPICAL_TITLES = ["Lab book 3, soil samples", "Sketchbook, blue cover"]
LONG_TITLES = [f"Parish register of Sankt Margarethen, volume {n}" for n in (1, 2)]


def shelf(root: Path) -> Path:
    """Notebooks with long names and long file names, the widest the review usually gets;
    one file twice (a warning), one file the plan leaves out (the Not imported count)."""
    for n, title in enumerate(TYPICAL_TITLES + LONG_TITLES):
        folder = root / title
        folder.mkdir(parents=True)
        for p in range(14):  # more rows than fit: the table has its vertical scroll bar
            name = f"IMG_20240301_1000{p:02}_page_{p + 1}"
            if n == 0:  # photos with the camera's time
                taken = f"2024:03:01 10:00:{p:02}"
                make_jpeg(folder / f"{name}.jpg", (40, 56), datetime_original=taken, label=f"{p}")
            else:
                Image.new("RGB", (40, 56), (n * 40, p * 30, 200)).save(folder / f"{name}.png")
    first = root / TYPICAL_TITLES[0]
    # The same bytes again under the next page number: a duplicate skipped, not a question.
    shutil.copyfile(
        first / "IMG_20240301_100000_page_1.jpg", first / "IMG_20240301_100014_page_15.jpg"
    )
    (first / "captions.txt").write_text("soil samples, March\n")
    return root


def shown_whole(view: QTableView, row: int, column: int) -> bool:
    """Whether the cell's text is drawn whole: on one line, or wrapped in the row's height."""
    text = str(view.model().index(row, column).data() or "")
    margin = 2 * (view.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) + 1)
    width = view.horizontalHeader().sectionSize(column) - margin
    icon = view.model().index(row, column).data(Qt.ItemDataRole.DecorationRole)
    if icon is not None:
        width -= view.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize) + margin
    metrics = view.fontMetrics()
    if not view.wordWrap():
        return metrics.horizontalAdvance(text) <= width
    flags = Qt.TextFlag.TextWordWrap | Qt.TextFlag.TextWrapAnywhere
    needed = metrics.boundingRect(QRect(0, 0, width, 10_000), flags, text).height()
    return needed <= view.rowHeight(row)


def assert_inside(window: MainWindow, area: QRect) -> None:
    frame = window.frameGeometry()
    assert area.contains(frame), f"{frame} is not inside the screen's free area {area}"


def assert_no_sideways_scroll(qtbot: QtBot, window: MainWindow, page: str) -> None:
    QApplication.processEvents()
    scroll: QScrollArea = window.sections_scroll
    bar = scroll.horizontalScrollBar()
    assert bar.maximum() == 0, f"{page}: the window scrolls sideways by {bar.maximum()} px"
    # Every visible button lies inside the window, where a click reaches it.
    inside = window.rect()
    for button in window.findChildren(QAbstractButton):
        if not button.isVisibleTo(window) or not button.isVisible():
            continue
        top_left = button.mapTo(window, QPoint(0, 0))
        rect = QRect(top_left, button.size())
        assert inside.contains(rect), f"{page}: {button.text()!r} at {rect} is outside {inside}"


@pytest.mark.parametrize("area", SMALL_SCREENS, ids=["1024x768", "1366x768"])
def test_the_window_opens_inside_a_small_screen_with_every_control_reachable(
    qtbot: QtBot,
    open_window: Callable[[], MainWindow],
    screen: Callable[[QRect], None],
    tmp_path: Path,
    area: QRect,
) -> None:
    screen(area)
    window = open_window()
    assert_inside(window, area)
    assert window.width() <= area.width() and window.height() <= area.height()
    assert_no_sideways_scroll(qtbot, window, "start")

    scan(qtbot, window, shelf(tmp_path / "shelf"))
    assert_no_sideways_scroll(qtbot, window, "review")
    # The grid (what a review shows first) wraps its cells: it never scrolls sideways.
    assert window.review_page.grid.horizontalScrollBar().maximum() == 0
    window.review_page.show_view(PageView.DETAILS, remember=False)
    QApplication.processEvents()
    table = window.review_page.page_view
    # The page table's key columns are all in view without scrolling sideways.
    assert table.horizontalScrollBar().maximum() == 0
    viewport = table.viewport().width()
    header = table.horizontalHeader()
    for column in (PageColumn.FILE, PageColumn.WARNING):
        right = header.sectionViewportPosition(column) + header.sectionSize(column)
        assert not header.isSectionHidden(column)
        assert right <= viewport, f"column {column} ends at {right}, past {viewport}"
    # ...and what they say is not cut: the file names, the capture times, the warnings.
    review = window.review_page
    items = review.items_model
    review.select_item(next(it.item_id for it in items.rows() if it.label == TYPICAL_TITLES[0]))
    QApplication.processEvents()
    pages = table.model()
    assert any(pages.index(r, PageColumn.WARNING).data() for r in range(pages.rowCount()))
    for row in range(table.model().rowCount()):
        for column in (PageColumn.FILE, PageColumn.CAPTURED, PageColumn.WARNING):
            assert shown_whole(table, row, column), (row, column)
    # The notebooks: a usual title whole, with its count of files not imported; a far
    # longer one cut in the middle, so "volume 1" and "volume 2" stay apart.
    names = review.items_view
    for row in range(items.rowCount()):
        title = items.item_at(row).label
        if title in TYPICAL_TITLES:
            assert shown_whole(names, row, ItemColumn.NOTEBOOK), (
                title,
                [names.horizontalHeader().sectionSize(c) for c in ItemColumn],
                [items.index(row, c).data() for c in ItemColumn],
            )
    wait_states_checked(qtbot, items)  # the badges' words, not "Checking…"
    for column in (ItemColumn.PAGES, ItemColumn.NOT_IMPORTED, ItemColumn.STATE):
        assert not names.isColumnHidden(column)
        assert all(shown_whole(names, r, column) for r in range(items.rowCount())), column
    assert names.isColumnHidden(ItemColumn.ACTION)  # every notebook is a new one
    option = QStyleOptionViewItem()
    names.itemDelegateForColumn(ItemColumn.NOTEBOOK).initStyleOption(
        option, items.index(0, ItemColumn.NOTEBOOK)
    )
    assert option.textElideMode == Qt.TextElideMode.ElideMiddle
    assert names.horizontalScrollBar().maximum() == 0

    for section, name in ((Section.RUNS, "runs"), (Section.CORPUS, "corpus")):
        window.show_section(section)
        assert_no_sideways_scroll(qtbot, window, name)


def test_a_window_remembered_on_a_larger_monitor_is_brought_onto_this_screen(
    qtbot: QtBot,
    open_window: Callable[[], MainWindow],
    screen: Callable[[QRect], None],
    settings: QSettings,
) -> None:
    screen(QRect(0, 0, 1920, 1200))
    big = open_window()
    big.setGeometry(1400, 900, 1500, 1000)
    big.close()
    assert isinstance(settings.value(GEOMETRY_KEY), QByteArray)

    screen(PANELLED)
    window = open_window()
    assert_inside(window, PANELLED)


def test_the_fit_keeps_a_window_that_already_fits(
    open_window: Callable[[], MainWindow], screen: Callable[[QRect], None]
) -> None:
    screen(QRect(0, 0, 1920, 1080))
    window = open_window()
    assert (window.width(), window.height()) == main_window.DEFAULT_SIZE


def test_at_800_by_600_every_view_fits_and_the_runs_buttons_wrap(
    qtbot: QtBot,
    open_window: Callable[[], MainWindow],
    screen: Callable[[QRect], None],
    tmp_path: Path,
) -> None:
    """#34: the Runs view's row of seven buttons asked 771 px, so below 1024 they fell off
    the right edge; it wraps now, and no view scrolls sideways at 800x600."""
    area = QRect(0, 0, 800, 600)
    screen(area)
    window = open_window()
    assert_inside(window, area)
    assert_no_sideways_scroll(qtbot, window, "start")
    scan(qtbot, window, shelf(tmp_path / "shelf"))
    assert_no_sideways_scroll(qtbot, window, "review")
    for section, name in ((Section.RUNS, "runs"), (Section.CORPUS, "corpus")):
        window.show_section(section)
        assert_no_sideways_scroll(qtbot, window, name)
    runs = window.runs_page
    window.show_section(Section.RUNS)
    QApplication.processEvents()
    assert runs.minimumSizeHint().width() < 500
    tops = {b.mapTo(runs, QPoint(0, 0)).y() for b in (runs.refresh_button, runs.resume_button)}
    assert len(tops) == 2  # on two lines: the row wrapped instead of clipping


def test_at_800_by_600_the_corpus_view_shows_a_title_whole(
    qtbot: QtBot,
    open_window: Callable[[], MainWindow],
    screen: Callable[[QRect], None],
    make_notebook: Callable[..., str],
) -> None:
    """#34: the Corpus table squeezed titles to "Let…nna" at 800x600; the title takes the
    room the other columns (sized to what they hold) leave."""
    title = "Letters to Johanna 2"
    assert len(title) == 20
    make_notebook(title, 1)
    area = QRect(0, 0, 800, 600)
    screen(area)
    window = open_window()
    window.show_section(Section.CORPUS)
    table = window.corpus_page.notebook_table
    model = table.model()
    qtbot.waitUntil(lambda: model.rowCount() == 1, timeout=10_000)
    qtbot.waitUntil(lambda: bool(model.index(0, NotebookColumn.SOURCE).data()), timeout=10_000)
    QApplication.processEvents()
    assert model.index(0, NotebookColumn.TITLE).data() == title
    assert shown_whole(table, 0, NotebookColumn.TITLE)
    # The title has the room the other columns leave, not a share of it with the source.
    header = table.horizontalHeader()
    assert header.sectionSize(NotebookColumn.TITLE) > header.sectionSize(NotebookColumn.SOURCE)
    assert_no_sideways_scroll(qtbot, window, "corpus")


@pytest.mark.parametrize(
    "area", [QRect(0, 0, 800, 600), *SMALL_SCREENS], ids=["800x600", "1024x768", "1366x768"]
)
def test_the_corpus_view_fits_without_scrolling_and_its_words_are_whole(
    qtbot: QtBot,
    open_window: Callable[[], MainWindow],
    screen: Callable[[QRect], None],
    make_notebook: Callable[..., str],
    area: QRect,
) -> None:
    """#34: at 800x600 the Corpus view scrolled up and down: the window's scroll area made
    it as tall as it would like (the table and four rows of findings at full height). It
    fits now; the table and the findings, which scroll themselves, give up the room, and
    every wrapped line is whole. Two long findings: the notebooks share pages' bytes."""
    for title in ("Diary 1931", "Parish register of Sankt Margarethen, volume 1", "Letters"):
        make_notebook(title, 2)
    screen(area)
    window = open_window()
    window.show_section(Section.CORPUS)
    page = window.corpus_page
    qtbot.waitUntil(lambda: page.findings_view.rowCount() == 2, timeout=10_000)
    QApplication.processEvents()
    assert_inside(window, area)
    assert window.sections_scroll.verticalScrollBar().maximum() == 0
    assert_no_sideways_scroll(qtbot, window, "corpus")
    for view in (page.notebook_table, page.findings_view):
        assert view.isVisible() and view.height() >= view.minimumSizeHint().height()
    wrapped = [w for w in page.findChildren(QLabel) if w.wordWrap() and w.isVisible()]
    assert page.health_summary in wrapped

    def clipped() -> list[str]:
        return [w.text() for w in wrapped if w.height() < w.heightForWidth(w.width())]

    # Wrapping, not clipping, once the layouts have taken in the audit's words.
    qtbot.waitUntil(lambda: not clipped(), timeout=5_000)
    assert window.sections_scroll.verticalScrollBar().maximum() == 0


def assert_in_view(window: MainWindow, *buttons: QAbstractButton) -> None:
    """Each of ``buttons`` is shown whole inside the part of the page the window shows."""
    viewport = window.sections_scroll.viewport()
    for button in buttons:
        assert button.isVisible(), f"{button.text()!r} is hidden"
        rect = QRect(button.mapTo(viewport, QPoint(0, 0)), button.size())
        assert viewport.rect().contains(rect), f"{button.text()!r} at {rect} is out of view"


@pytest.mark.parametrize(
    "area", [QRect(0, 0, 800, 600), *SMALL_SCREENS], ids=["800x600", "1024x768", "1366x768"]
)
def test_the_commit_view_fits_without_scrolling_and_stop_is_in_reach(
    qtbot: QtBot,
    screen: Callable[[QRect], None],
    gated_import: Callable[..., tuple[MainWindow, ExecutorGate]],
    tmp_path: Path,
    area: QRect,
) -> None:
    """#34: at 800x600 the Commit view scrolled by about 246 px while an import ran, with
    Pause and Stop Import… below the window's edge, and it ended scrolled down on an empty
    table. The outcome list, which scrolls itself, gives up the room now."""
    screen(area)
    window, gate = gated_import(make_png_shelf(tmp_path / "shelf", notebooks=3))
    page = window.commit_page
    # A hidden page taller than the window (the Start view with many notices, as after a
    # few stopped imports) no longer makes the page shown scroll.
    window.start_page.setMinimumHeight(2 * area.height())
    QApplication.processEvents()
    assert_inside(window, area)
    assert window.sections_scroll.verticalScrollBar().maximum() == 0
    assert_no_sideways_scroll(qtbot, window, "commit")
    assert_in_view(window, page.pause_button, page.cancel_button)
    assert page.table.height() >= page.table.minimumSizeHint().height()

    gate.release.set()
    wait_run_end(qtbot, window)
    QApplication.processEvents()
    assert window.sections_scroll.verticalScrollBar().value() == 0
    assert window.sections_scroll.verticalScrollBar().maximum() == 0
    assert_in_view(window, page.new_import_button, page.show_run_button)
    assert page.table.isVisible() and page.table.height() >= page.table.minimumSizeHint().height()
