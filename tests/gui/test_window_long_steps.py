"""A long step in the window says how long it has left, at the pace its progress shows; and the
work a large plan asks of the review is done off the window's thread (issue #38: the window at
100,000 pages, bench/bench_gui_shelf.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.plan import ImportPlan, PlanItem
from transcribe_import.engine.planning.scan_progress import ScanPhase, ScanProgress
from transcribe_import.gui import import_flow, workers
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.models.plan_items import ItemColumn

from helpers.window import TIMEOUT_MS, wait_states_checked, wait_validated
from media_factory import make_jpeg


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The clock a step's pace is read on, set by the test: ``clock[0]`` is now."""
    now = [1000.0]
    monkeypatch.setattr(workers, "pace_clock", lambda: now[0])
    return now


def test_reading_the_files_found_says_how_long_it_has_left(
    open_window: Callable[..., MainWindow], clock: list[float]
) -> None:
    page = open_window().scan_page

    def read(inspected: int, at: float) -> str:
        clock[0] = at
        page._progress(ScanProgress(ScanPhase.INSPECTING, 900, inspected, "box 1"))
        return page.found_label.text()

    # From the first file read on; nothing said until the reading has run 3 s.
    assert read(50, 1000.0) == "50 of 900 page files read (size, pages, fingerprint)"
    assert read(150, 1002.0) == "150 of 900 page files read (size, pages, fingerprint)"
    # 200 files in 4 s since: 50 a second, so the 650 left take 13 s.
    assert read(250, 1004.0) == (
        "250 of 900 page files read (size, pages, fingerprint) · about 13 s left"
    )
    # A slower pace shows at once: 400 in 100 s, the 450 left at 4 a second, 112 s.
    assert read(450, 1100.0).endswith("· about 2 min left")


def test_the_notebooks_orders_are_checked_off_the_windows_thread(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Reading every name of a notebook of 5,000 pages is 0.25 s of Python: its badge's
    # check runs on a worker, and once the plan has a report its errors tell the rest.
    on_the_window: list[str] = []  # the items checked on the window's thread
    off_it: list[str] = []
    real = ordering.find_ambiguities

    def find(item: PlanItem) -> list[ordering.Ambiguity]:
        main = threading.current_thread() is threading.main_thread()
        (on_the_window if main else off_it).append(item.label)
        return real(item)

    monkeypatch.setattr(ordering, "find_ambiguities", find)
    for name in ("a", "b"):
        for word in ("front", "inside", "back"):  # no number in any name: an order to decide
            make_jpeg(tmp_path / "shelf" / name / f"{word}.jpg", label=f"{name} {word}")
    window = open_window()
    window.intake.add_paths([tmp_path / "shelf"])
    window.start_page.scan_button.click()
    qtbot.waitUntil(lambda: window.current_page() is window.review_page, timeout=TIMEOUT_MS)
    items = window.review_page.items_model
    wait_states_checked(qtbot, items)
    wait_validated(qtbot, window)
    # The badges' checks, and validate's, on workers; on the window's thread only the
    # notes of the pages shown ("a"'s, before the plan's first report).
    assert set(off_it) == {"a", "b"} and set(on_the_window) <= {"a"}
    states = [items.index(r, ItemColumn.STATE).data() for r in range(items.rowCount())]
    assert states == ["Error"] * 2  # an order to decide is one of the report's errors


def test_save_plan_as_writes_on_a_worker(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A plan of 100,000 sources is seconds of JSON: the menu's Save Plan As… writes it on a
    # worker, says so meanwhile, and says where once it is there.
    for n in (1, 2):
        make_jpeg(tmp_path / "diary" / f"page {n}.jpg", label=f"page {n}")
    window = open_window()
    window.intake.add_paths([tmp_path / "diary"])
    window.start_page.scan_button.click()
    wait_validated(qtbot, window)
    saved = tmp_path / "saved" / "plan.json"
    saved.parent.mkdir()
    monkeypatch.setattr(import_flow, "choose_save_file", lambda *_args: saved)
    written_on: list[bool] = []
    real = api.save_plan_file

    def save(plan: ImportPlan, path: Path) -> None:
        written_on.append(threading.current_thread() is threading.main_thread())
        real(plan, path)

    monkeypatch.setattr(api, "save_plan_file", save)
    window.save_plan_action.trigger()
    status = window.statusBar()
    assert status.currentMessage() == f"Saving the plan to {saved}…"
    qtbot.waitUntil(lambda: not window.flow.is_saving(), timeout=TIMEOUT_MS)
    assert written_on == [False]
    assert status.currentMessage() == f"Plan saved to {saved}"
    assert window.session.undo_stack.isClean()
    assert api.load_plan_file(saved) == window.session.plan


def test_save_plan_as_that_fails_says_why(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    make_jpeg(tmp_path / "diary" / "page 1.jpg")
    window = open_window()
    window.intake.add_paths([tmp_path / "diary"])
    window.start_page.scan_button.click()
    wait_validated(qtbot, window)
    nowhere = tmp_path / "no such folder" / "plan.json"
    monkeypatch.setattr(import_flow, "choose_save_file", lambda *_args: nowhere)
    window.save_plan_action.trigger()
    qtbot.waitUntil(lambda: not window.flow.is_saving(), timeout=TIMEOUT_MS)
    said = window.statusBar().currentMessage()
    assert said.startswith("The plan was not saved: ") and str(nowhere) in said
    assert not nowhere.exists()


def test_a_validation_says_how_long_it_has_left(
    open_window: Callable[..., MainWindow], clock: list[float]
) -> None:
    window = open_window()
    status = window.statusBar()

    def went_on(done: int, at: float) -> str:
        clock[0] = at
        window.flow._validation_went_on((done, 1_000))
        return status.currentMessage()

    window.flow.validate_plan()  # no plan: nothing starts, nothing said
    assert went_on(0, 1000.0) == "Validating the plan…"  # its pace starts at its first report
    assert went_on(100, 1002.0) == "Validating the plan…"  # no time left before 3 s
    # 300 files in 4 s: the 700 left at 75 a second, 9 s.
    assert went_on(300, 1004.0) == "Validating the plan… (about 9 s left)"
    # A new validation, or its next part (the rescans' verification, at a pace of its own),
    # starts its pace again: the time left told at the last pace is taken back until then.
    assert went_on(0, 1010.0) == "Validating the plan…"
    assert went_on(500, 1012.0) == "Validating the plan…"  # not 3 s yet
    assert went_on(900, 1020.0) == "Validating the plan… (about 1 s left)"


def test_open_plan_says_how_long_the_reading_has_left(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A plan file of 100,000 sources takes 3-16 s to read: Open Plan… says its time left, at
    # the pace the reading tells (its sources made into the plan), as a validation does.
    for name in ("a", "b", "c", "d"):
        make_jpeg(tmp_path / "shelf" / name / "page 1.jpg", label=name)
    window = open_window()
    window.intake.add_paths([tmp_path / "shelf"])
    window.start_page.scan_button.click()
    wait_validated(qtbot, window)
    saved = tmp_path / "plan.json"
    assert window.flow.save_plan(saved)
    # Every step of the reading told (the throttle lets through ten a second), each read
    # 2 s after the one before on the pace's clock.
    monkeypatch.setattr(workers, "PROGRESS_INTERVAL_S", 0.0)
    now = [1000.0]

    def two_seconds_on() -> float:
        now[0] += 2.0
        return now[0]

    monkeypatch.setattr(workers, "pace_clock", two_seconds_on)
    told: list[tuple[int, int]] = []
    said: list[str] = []
    window.flow._plan_opens.progress.connect(told.append)
    window.statusBar().messageChanged.connect(said.append)
    opened: list[bool] = []
    window.flow.plan_opened.connect(lambda: opened.append(True))
    assert window.flow.open_plan(saved)
    qtbot.waitUntil(lambda: bool(opened), timeout=TIMEOUT_MS)
    # 4 sources, and the document's checks worth 2 of them: (0, 6), (2, 6), then an item
    # at a time to (6, 6).
    assert told == [(0, 6), (2, 6), (3, 6), (4, 6), (5, 6), (6, 6)]
    opening = [words for words in said if words.startswith("Opening the plan…")]
    # Its pace from (0, 6): nothing said before 3 s; then at (3, 6) after 4 s, 3 left at
    # 0.75 a second; at (4, 6) after 6 s, 2 left at 2/3 a second; at (5, 6), 1 left.
    assert opening == [
        "Opening the plan…",
        "Opening the plan… (about 4 s left)",
        "Opening the plan… (about 3 s left)",
        "Opening the plan… (about 2 s left)",
    ]
    assert window.session.plan is not None and len(window.session.plan.items) == 4
