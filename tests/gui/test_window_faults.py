"""The window's smaller faults of issue 23, each through the real window."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect, QSettings, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QProgressBar,
    QTableView,
    QWidget,
)
from pytestqt.qtbot import QtBot

from transcribe_import.gui import main_window
from transcribe_import.gui import workers as workers_module
from transcribe_import.gui.main_window import MainWindow, Section
from transcribe_import.gui.models.problems import ProblemColumn
from transcribe_import.gui.pages.review_parts import SHOWN_PROBLEMS

from helpers.shelves import make_png_shelf
from helpers.window import (
    TIMEOUT_MS,
    FileDialogs,
    PlanHold,
    click_in_next_box,
    scan_and_validate,
    wait_validated,
)

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support raise")


def test_the_window_opens_where_it_was_closed_at_every_start(
    qtbot: QtBot, open_window: Callable[[], MainWindow]
) -> None:
    """Each start used to open it a title bar lower, until its status bar left the screen.

    On the test's own screen (the offscreen platform's, framed by 2-pixel borders): Qt
    itself cuts a remembered geometry to the real screen, which a patched one is not.
    """
    first = open_window()
    placed = first.geometry()
    framed = first.frameGeometry()
    assert framed != placed, "the platform frames the window, as a window manager would"
    first.close()
    for _start in range(4):
        window = open_window()
        assert (window.geometry(), window.frameGeometry()) == (placed, framed)
        window.close()


# -- Cancel Scan -----------------------------------------------------------------------------


def test_a_cancel_pressed_while_the_plan_is_made_opens_no_review(
    qtbot: QtBot, open_window: Callable[..., MainWindow], tmp_path: Path, monkeypatch
) -> None:
    """The scan has read every file and the plan is being made when Cancel is pressed: the
    review used to open anyway. Now the window goes back to the start page, no plan."""
    make_png_shelf(tmp_path / "shelf", notebooks=2)
    hold = PlanHold(monkeypatch)
    window = open_window()
    window.intake.add_paths([tmp_path / "shelf"])
    qtbot.mouseClick(window.start_page.scan_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(hold.making.is_set, timeout=TIMEOUT_MS)
    qtbot.mouseClick(window.scan_page.cancel_button, Qt.MouseButton.LeftButton)
    assert window.scan_page.headline.text() == "Stopping the scan…"
    hold.release.set()
    qtbot.waitUntil(lambda: not window.scan_page.is_running(), timeout=TIMEOUT_MS)
    assert window.current_page() is window.start_page
    assert window.statusBar().currentMessage() == "Scan cancelled; nothing was planned."
    assert window.session.plan is None


def test_a_plan_on_its_way_when_cancel_is_pressed_is_dropped(
    qtbot: QtBot, open_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    """The worker had sent its plan but the window had not taken it yet: Cancel still wins."""
    make_png_shelf(tmp_path / "shelf", notebooks=1)
    window = open_window()
    window.intake.add_paths([tmp_path / "shelf"])
    page = window.scan_page
    reviews: list[object] = []
    page.planned.connect(reviews.append)
    sent = threading.Event()

    def cancel_on_the_way(_outcome: object) -> None:
        sent.set()

    window.start_page.scan_button.click()
    worker = page._worker
    assert worker is not None
    # Told on the worker's thread as it sends the plan; this thread waits without taking
    # events, so the plan's queued delivery to the page is still waiting when Cancel is pressed.
    worker.planned.connect(cancel_on_the_way, Qt.ConnectionType.DirectConnection)
    assert sent.wait(TIMEOUT_MS / 1000)
    page.cancel()
    qtbot.waitUntil(lambda: not page.is_running(), timeout=TIMEOUT_MS)
    assert window.current_page() is window.start_page
    assert reviews == [] and window.session.plan is None


# -- gui PATH with other folders on the list -------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "listed", "scanned"),
    [
        ("&Replace the List", ["new"], True),
        ("&Add to the List", ["old", "new"], True),
        ("Cancel", ["old"], False),
    ],
)
def test_gui_path_with_another_folder_on_the_list_asks_first(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    tmp_path: Path,
    answer: str,
    listed: list[str],
    scanned: bool,
) -> None:
    """A folder added and never scanned is still on the list when ``gui PATH`` hands over
    another: both used to be scanned without a word."""
    old = make_png_shelf(tmp_path / "old", notebooks=1)
    new = make_png_shelf(tmp_path / "new", notebooks=1)
    window = open_window()
    window.intake.add_paths([old])
    seen: list[str] = []
    click_in_next_box(answer, seen)
    window.intake.open_forwarded([new])
    assert seen == [
        "The list to scan already holds “old”. Replace it with “new”? Replace the List takes "
        "“old” off the list; nothing on disk changes. Add to the List keeps them all, to be "
        "scanned together. Cancel leaves the list as it was."
    ]
    assert window.start_page.paths() == [tmp_path / name for name in listed]
    if scanned:
        qtbot.waitUntil(lambda: window.current_page() is window.review_page, timeout=TIMEOUT_MS)
        assert window.session.plan is not None
        assert len(window.session.plan.items) == len(listed)
    else:
        assert window.current_page() is window.start_page
        assert not window.scan_page.is_running() and window.session.plan is None


def test_gui_path_with_only_itself_on_the_list_asks_nothing(
    qtbot: QtBot, open_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    shelf = make_png_shelf(tmp_path / "shelf", notebooks=1)
    window = open_window()
    window.intake.add_paths([shelf])
    window.intake.open_forwarded([shelf])  # a question here would block the test: none is asked
    qtbot.waitUntil(lambda: window.current_page() is window.review_page, timeout=TIMEOUT_MS)
    assert window.start_page.paths() == [shelf]


# -- file dialogs ----------------------------------------------------------------------------


def test_file_dialogs_open_where_the_last_of_their_kind_was_left(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    file_dialogs: FileDialogs,
) -> None:
    """They used to open in the program's folder every time, wherever the scans were."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)  # the program's folder: never where a dialog opens
    shelf = make_png_shelf(tmp_path / "box" / "shelf", notebooks=2)
    dialogs = file_dialogs
    window = open_window()

    dialogs.answer = str(shelf / "Notebook 01")
    window.add_folder_action.trigger()
    dialogs.answer = str(shelf / "Notebook 02" / "p1.png")
    window.add_files_action.trigger()
    assert dialogs.opened_in == [str(home), str(shelf)]  # beside the folder picked
    assert window.start_page.paths() == [shelf / "Notebook 01", shelf / "Notebook 02" / "p1.png"]

    window.start_page.clear_sources()
    window.intake.add_paths([shelf])
    window.start_page.scan_button.click()
    qtbot.waitUntil(lambda: window.current_page() is window.review_page, timeout=TIMEOUT_MS)
    plans = tmp_path / "plans"
    plans.mkdir()
    dialogs.answer = str(plans / "box.json")
    window.save_plan_action.trigger()
    qtbot.waitUntil(lambda: not window.flow.is_saving(), timeout=TIMEOUT_MS)  # on a worker
    assert (plans / "box.json").is_file()
    dialogs.answer = ""  # Cancel
    window.add_folder_action.trigger()
    window.open_plan_action.trigger()
    # Each kind its own folder: the scans where the scans are, the plans where the plans are.
    assert dialogs.opened_in[2:] == [
        str(home / "plan.json"),
        str(shelf / "Notebook 02"),
        str(plans),
    ]
    window.close()

    # Remembered across starts; a remembered folder deleted since: the home folder again.
    shutil.rmtree(plans)
    again = open_window()
    again.add_folder_action.trigger()
    again.open_plan_action.trigger()
    assert dialogs.opened_in[5:] == [str(shelf / "Notebook 02"), str(home)]


# -- the Problems pane -----------------------------------------------------------------------


def shelf_of_warnings(root: Path, notebooks: int = 5) -> Path:
    """Notebooks that each hold one page twice under a long name: a long warning apiece, and
    (their pages have nothing written on them) a "2 blank pages" information apiece."""
    make_png_shelf(root, notebooks=notebooks)
    for folder in sorted(root.iterdir()):
        twice = folder / "the same page scanned a second time, kept by the scanner app.png"
        shutil.copyfile(folder / "p1.png", twice)
    return root


def first_rows_whole(view: QTableView) -> bool:
    """Whether the Problems pane's first rows are in view, each as tall as its wrapped words."""
    for row in range(min(SHOWN_PROBLEMS, view.model().rowCount())):
        index = view.model().index(row, ProblemColumn.MESSAGE)
        cell = view.visualRect(index)
        needed = view.fontMetrics().boundingRect(
            QRect(0, 0, cell.width() - 8, 10_000), Qt.TextFlag.TextWordWrap, str(index.data())
        )
        if not view.viewport().rect().contains(cell) or needed.height() > cell.height():
            return False
    return True


def test_the_problems_pane_shows_its_first_rows_whole_however_it_was_dragged(
    qtbot: QtBot, open_window: Callable[..., MainWindow], tmp_path: Path, settings: QSettings
) -> None:
    """It showed two and a half rows, cut long messages, and a size dragged once carried
    over to squeeze every later review."""
    window = open_window()
    window.intake.add_paths([shelf_of_warnings(tmp_path / "shelf")])
    scan_and_validate(qtbot, window)
    page = window.review_page
    view = page.problems_view
    assert view.model().rowCount() == 2 * 5  # a warning and a blank pages' note a notebook
    page.main_splitter.setSizes([10_000, 1])  # dragged as small as it goes

    qtbot.waitUntil(lambda: first_rows_whole(view), timeout=TIMEOUT_MS)
    message = view.model().index(0, ProblemColumn.MESSAGE)
    assert "the same page scanned a second time" in str(message.data())
    assert str(message.data()) in str(message.data(Qt.ItemDataRole.ToolTipRole))
    window.close()

    assert settings.value("MainWindow/reviewMainSplitter") is None  # not kept for next time
    again = open_window()
    again.intake.add_paths([tmp_path / "shelf"])
    scan_and_validate(qtbot, again)
    qtbot.waitUntil(lambda: first_rows_whole(again.review_page.problems_view), timeout=TIMEOUT_MS)


def test_the_problems_rows_scrolled_to_are_whole_too(
    qtbot: QtBot, open_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    """Rows are fitted to their words as they come into view (fitting all of a plan's
    thousands of rows at every layout held the window's thread for a second)."""
    window = open_window()
    window.intake.add_paths([shelf_of_warnings(tmp_path / "shelf", notebooks=24)])
    scan_and_validate(qtbot, window)
    view = window.review_page.problems_view
    assert view.model().rowCount() == 2 * 24  # a warning and a blank pages' note a notebook
    bar = view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=TIMEOUT_MS)
    bar.setValue(bar.maximum())

    def in_view_whole() -> bool:
        shown = [
            r
            for r in range(view.model().rowCount())
            if view.viewport().rect().intersects(view.visualRect(view.model().index(r, 0)))
        ]
        return (
            bool(shown)
            and shown[-1] == view.model().rowCount() - 1
            and all(whole(view, r) for r in shown)
        )

    qtbot.waitUntil(in_view_whole, timeout=TIMEOUT_MS)


def whole(view: QTableView, row: int) -> bool:
    """Whether the row is as tall as its wrapped message."""
    index = view.model().index(row, ProblemColumn.MESSAGE)
    cell = view.visualRect(index)
    needed = view.fontMetrics().boundingRect(
        QRect(0, 0, cell.width() - 8, 10_000), Qt.TextFlag.TextWordWrap, str(index.data())
    )
    return needed.height() <= cell.height()


# -- no animation on an idle screen ----------------------------------------------------------


def busy_bars(window: MainWindow) -> list[QProgressBar]:
    """The bars on screen that animate: busy, for work of no known size."""
    return [b for b in window.findChildren(QProgressBar) if b.isVisible() and b.maximum() == 0]


def test_a_commit_that_ends_before_it_starts_leaves_no_busy_bar_moving(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def unwritable(*_a: Any, **_k: Any) -> Any:
        raise OSError(30, "Read-only file system", str(tmp_path / "corpus"))

    window = open_window()
    window.intake.add_paths([make_png_shelf(tmp_path / "shelf", notebooks=1)])
    scan_and_validate(qtbot, window)
    monkeypatch.setattr(workers_module.api, "prepare_commit", unwritable)
    window.review_page.commit_button.click()
    qtbot.waitUntil(lambda: not window.commit_page.is_running(), timeout=TIMEOUT_MS)
    assert window.current_page() is window.commit_page
    assert window.commit_page.headline.text() == "The import stopped"
    assert busy_bars(window) == []


# -- 1024 pixels wide ------------------------------------------------------------------------

# A 1024x768 screen, and the same with a dock of 64 pixels beside the window (GNOME, Ubuntu).
NARROW = [QRect(0, 0, 1024, 768), QRect(64, 0, 960, 768)]


def out_of_reach(window: QWidget) -> list[str]:
    """The buttons on screen that a click cannot reach: past the window's edge, or in a page
    taller or wider than the window shows (its scroll area scrolls)."""
    QApplication.processEvents()
    scroll = getattr(window, "sections_scroll", None)
    if scroll is not None and scroll.horizontalScrollBar().maximum() > 0:
        return [f"the page scrolls sideways by {scroll.horizontalScrollBar().maximum()} px"]
    if scroll is not None and scroll.verticalScrollBar().maximum() > 0:
        return [f"the page scrolls up and down by {scroll.verticalScrollBar().maximum()} px"]
    return [
        f"{button.text()!r} at {QRect(button.mapTo(window, QPoint(0, 0)), button.size())}"
        for button in window.findChildren(QAbstractButton)
        if button.isVisible()
        and not window.rect().contains(QRect(button.mapTo(window, QPoint(0, 0)), button.size()))
    ]


@pytest.mark.parametrize("area", NARROW, ids=["1024x768", "1024x768-with-a-dock"])
def test_every_page_keeps_its_buttons_in_reach_at_1024_pixels(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    area: QRect,
) -> None:
    """Below about 1000 pixels the review's command row pushed its last buttons off the
    right edge; every page is checked: start, scan, review, commit, runs, corpus, trash."""
    monkeypatch.setattr(main_window, "available_geometry", lambda _w: QRect(area))
    shelf = make_png_shelf(tmp_path / "shelf", notebooks=2)
    hold = PlanHold(monkeypatch)
    window = open_window()
    assert window.frameGeometry().width() <= area.width()
    assert out_of_reach(window) == [], "start"
    window.intake.add_paths([shelf])
    window.start_page.scan_button.click()
    qtbot.waitUntil(hold.making.is_set, timeout=TIMEOUT_MS)
    assert window.current_page() is window.scan_page
    assert out_of_reach(window) == [], "scan"
    hold.release.set()
    wait_validated(qtbot, window)
    assert out_of_reach(window) == [], "review"
    # Shorter than the review would like to be (a 768-pixel screen, a decision to make):
    # its parts share the room; the page is never made taller than the window to scroll.
    window.resize(window.width(), 540)
    QApplication.processEvents()
    assert window.sections_scroll.viewport().height() < window.review_page.sizeHint().height()
    assert out_of_reach(window) == [], "review, 540 pixels high"
    window.review_page.commit_button.click()
    qtbot.waitUntil(lambda: not window.commit_page.is_running(), timeout=TIMEOUT_MS)
    assert window.current_page() is window.commit_page
    assert out_of_reach(window) == [], "commit"
    window.show_section(Section.RUNS)
    assert out_of_reach(window) == [], "runs"
    window.show_section(Section.CORPUS)
    assert out_of_reach(window) == [], "corpus"
