"""The look pass through the real window: the review opens before the JPEG pages' looks are
made, says it is looking, lets no commit through until it is done, then asks its rescans;
an edit and its undo never take a look away."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.media.kinds import JPEG
from transcribe_import.engine.planning import look_pass, ordering
from transcribe_import.engine.planning.plan import PlanItem
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui import import_flow, workers
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.models.plan_items import ItemColumn
from transcribe_import.gui.values import PlanItemState

from helpers.lookalike_set import Rescan, Ruling, notebook_page, rescan_file, save_jpeg
from helpers.runs import imported_diary
from helpers.window import TIMEOUT_MS, item_state, wait_validated
from media_factory import make_png


@pytest.fixture
def hold_looks(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], threading.Event]]:
    """``hold_looks()``: from now on the look pass waits, before each file, until the event
    it returns is set (at the latest when the test ends, so no thread is left waiting)."""
    release = threading.Event()
    real = look_pass.look_job

    def held(job: look_pass.LookJob, **kw: bool) -> look_pass.Looked:
        release.wait(TIMEOUT_MS / 1000)
        return real(job, **kw)

    def hold() -> threading.Event:
        monkeypatch.setattr(look_pass, "look_job", held)
        return release

    yield hold
    release.set()


def _jpeg_looks(item: PlanItem) -> list[str | None]:
    return [p.look for s in item.sources if s.media_type == JPEG for p in s.pages]


def _loose(corpus: Corpus, tmp_path: Path) -> Path:
    imported_diary(corpus, tmp_path)
    rescan_file(2, Rescan.RIGHT, tmp_path / "Loose" / "p1.jpg")
    save_jpeg(notebook_page(77, Ruling.PLAIN, 0.4), tmp_path / "Loose" / "p2.jpg")
    return tmp_path / "Loose"


@pytest.fixture
def scanned_held(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    tmp_path: Path,
    hold_looks: Callable[[], threading.Event],
) -> tuple[MainWindow, threading.Event]:
    """The window's review of the loose folder, its look pass held before the first file."""
    loose = _loose(corpus, tmp_path)
    held_looks = hold_looks()
    window = open_window(workers=1)
    window.intake.add_paths([loose])
    window.start_page.scan_button.click()
    qtbot.waitUntil(lambda: window.current_page() is window.review_page, timeout=TIMEOUT_MS)
    return window, held_looks


def test_the_review_opens_before_the_looks_and_commit_waits_for_them(
    qtbot: QtBot,
    scanned_held: tuple[MainWindow, threading.Event],
) -> None:
    window, held_looks = scanned_held
    session, page = window.session, window.review_page
    # Validated once already, while the pass waits: no error, and still no commit.
    qtbot.waitUntil(
        lambda: session.report is not None and not window.flow.is_validating(),
        timeout=TIMEOUT_MS,
    )
    assert session.looking and session.report.ok
    [item] = session.plan.items
    assert _jpeg_looks(item) == [None, None]
    qtbot.waitUntil(lambda: session.look_progress == (0, 2), timeout=TIMEOUT_MS)
    assert page.problems.summary.text() == (
        "No errors so far. Looking at the pages for rescans: 0 of 2 pages; commit waits for it."
    )
    assert window.statusBar().currentMessage() == (
        "Validated: no errors so far; looking at the pages for rescans."
    )
    # Not called Ready while its rescans are not asked.
    row = page.items_model.row_of(item.item_id)
    state = page.items_model.index(row, ItemColumn.STATE)
    assert state.data() == "Looking for rescans…"
    assert not page.can_commit() and not page.commit_action.isEnabled()

    held_looks.set()
    wait_validated(qtbot, window)
    [item] = session.plan.items
    assert all(_jpeg_looks(item))
    assert item_state(qtbot, page.items_model, item.item_id) is PlanItemState.LOOKS_LIKE
    assert "Looking" not in page.problems.summary.text()
    assert page.items_model.index(row, ItemColumn.STATE).data() == "A rescan?"
    assert page.can_commit() and page.commit_action.isEnabled()


def test_the_look_pass_says_how_long_it_has_left(
    qtbot: QtBot,
    scanned_held: tuple[MainWindow, threading.Event],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    window, _held = scanned_held
    clock = [1000.0]  # the clock a step's pace is read on
    monkeypatch.setattr(workers, "pace_clock", lambda: clock[0])
    session, page = window.session, window.review_page
    # The pass's first report (0 of 2 pages, held before its first file) starts its pace.
    qtbot.waitUntil(
        lambda: session.look_progress == (0, 2) and session.report is not None,
        timeout=TIMEOUT_MS,
    )
    clock[0] = 1001.0
    session.add_looks({}, {}, done=1, total=2, finished=False)
    assert page.problems.summary.text() == (
        "No errors so far. Looking at the pages for rescans: 1 of 2 pages; commit waits for it."
    )
    clock[0] = 1004.0  # one page in 4 s: the one left takes 4 s
    session.add_looks({}, {}, done=1, total=2, finished=False)
    assert page.problems.summary.text() == (
        "No errors so far. Looking at the pages for rescans: 1 of 2 pages, about 4 s left; "
        "commit waits for it."
    )


def test_an_edit_made_while_looking_and_its_undo_keep_the_looks(
    qtbot: QtBot,
    scanned_held: tuple[MainWindow, threading.Event],
) -> None:
    window, held_looks = scanned_held
    session = window.session
    [item] = session.plan.items
    # Left out before its look is made: its look arrives all the same (it may be taken back).
    assert session.edit_item(item.item_id, lambda it: ordering.exclude(it, ["p2.jpg"]), "x")
    held_looks.set()
    wait_validated(qtbot, window)
    [item] = session.plan.items
    assert all(_jpeg_looks(item))
    session.undo_stack.undo()  # the item as it was before the edit, made before the looks
    [item] = session.plan.items
    assert not any(s.excluded for s in item.sources)
    assert all(_jpeg_looks(item))
    session.undo_stack.redo()
    assert all(_jpeg_looks(session.plan.items[0]))


def _saved_looks(path: Path) -> list[str | None]:
    [item] = api.load_plan_file(path).items
    return _jpeg_looks(item)


def test_a_plan_saved_while_looking_is_saved_again_with_every_look(
    qtbot: QtBot,
    tmp_path: Path,
    scanned_held: tuple[MainWindow, threading.Event],
) -> None:
    window, held_looks = scanned_held
    qtbot.waitUntil(lambda: window.session.look_progress == (0, 2), timeout=TIMEOUT_MS)
    path = tmp_path / "plan.json"
    assert window.flow.save_plan(path)
    assert window.statusBar().currentMessage() == (
        f"Plan saved to {path}; 2 pages were still to be looked at for rescans: the plan is "
        "saved there again once they have been."
    )
    assert _saved_looks(path) == [None, None]  # what the file holds now, and says

    said: list[str] = []
    window.statusBar().messageChanged.connect(said.append)
    held_looks.set()
    again = f"Plan saved to {path} again, with every page looked at for rescans."
    qtbot.waitUntil(lambda: again in said, timeout=TIMEOUT_MS)
    assert all(_saved_looks(path))
    assert _saved_looks(path) == _jpeg_looks(window.session.plan.items[0])
    assert window.session.undo_stack.isClean()


def test_a_plan_edited_after_its_save_while_looking_is_not_overwritten(
    qtbot: QtBot,
    tmp_path: Path,
    scanned_held: tuple[MainWindow, threading.Event],
) -> None:
    window, held_looks = scanned_held
    session = window.session
    path = tmp_path / "plan.json"
    assert window.flow.save_plan(path)
    saved = path.read_bytes()
    [item] = session.plan.items
    assert session.edit_item(item.item_id, lambda it: ordering.exclude(it, ["p2.jpg"]), "x")
    held_looks.set()
    qtbot.waitUntil(lambda: not session.looking, timeout=TIMEOUT_MS)
    assert path.read_bytes() == saved  # the edit is not written behind the person's back
    assert not session.undo_stack.isClean()  # closing asks to save it


def test_an_item_given_another_items_file_by_an_edit_while_looking_gets_its_look_too(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    tmp_path: Path,
    hold_looks: Callable[[], threading.Event],
) -> None:
    # The pass stamps its looks, where it runs, on the items it knew held each file; an
    # item edited since is stamped by the session itself, whatever the edit brought in.
    save_jpeg(notebook_page(78, Ruling.PLAIN, 0.4), tmp_path / "Other" / "o1.jpg")
    make_png(tmp_path / "Plain" / "a.png", label="a")  # its look is the scan's: no pass
    held_looks = hold_looks()
    window = open_window(workers=1)
    window.intake.add_paths([tmp_path / "Other", tmp_path / "Plain"])
    window.start_page.scan_button.click()
    qtbot.waitUntil(lambda: window.current_page() is window.review_page, timeout=TIMEOUT_MS)
    session = window.session
    [other] = [it for it in session.plan.items if it.sources[0].name == "o1.jpg"]
    [plain] = [it for it in session.plan.items if it.sources[0].name == "a.png"]
    given = replace(other.sources[0], source_id=other.sources[0].source_id + "-copy")
    assert session.edit_item(
        plain.item_id, lambda it: replace(it, sources=(*it.sources, given)), "x"
    )
    held_looks.set()
    qtbot.waitUntil(lambda: not session.looking, timeout=TIMEOUT_MS)
    [looked] = session.item(other.item_id).sources
    assert looked.pages[0].look is not None
    assert _jpeg_looks(session.item(plain.item_id)) == [looked.pages[0].look]


def test_the_look_pass_starts_once_the_first_validation_has_ended(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first validation and the look pass one after the other, not four busy threads
    at once (the window's thread waited its turn for the GIL among them: bench_gui)."""
    loose = _loose(corpus, tmp_path)
    held = threading.Event()
    real = import_flow.validate_plan

    def held_validation(*args: Any) -> Any:
        assert held.wait(TIMEOUT_MS / 1000)
        return real(*args)

    monkeypatch.setattr(import_flow, "validate_plan", held_validation)
    window = open_window(workers=1)
    try:
        window.intake.add_paths([loose])
        window.start_page.scan_button.click()
        qtbot.waitUntil(lambda: window.flow.is_validating(), timeout=TIMEOUT_MS)
        qtbot.waitUntil(lambda: window.flow._validations.is_busy(), timeout=TIMEOUT_MS)
        session = window.session
        assert session.looking  # commit waits for the looks from the start...
        assert not window.flow.look_pass.is_running()  # ...but the pass waits its turn
        assert session.look_progress == (0, 0)
    finally:
        held.set()
    wait_validated(qtbot, window)
    assert all(_jpeg_looks(window.session.plan.items[0]))


def test_a_look_pass_that_ends_with_nothing_new_takes_back_looking_from_the_status(
    qtbot: QtBot,
    scanned_held: tuple[MainWindow, threading.Event],
) -> None:
    """The status said the pages were being looked at; the pass ends with no look to stamp
    (the report stands, no validation follows): it no longer says so, it says the report's
    verdict."""
    window, _held = scanned_held
    session = window.session
    qtbot.waitUntil(
        lambda: session.report is not None and not window.flow.is_validating(),
        timeout=TIMEOUT_MS,
    )
    assert window.statusBar().currentMessage() == (
        "Validated: no errors so far; looking at the pages for rescans."
    )
    report = session.report
    session.add_looks({}, {}, done=2, total=2, finished=True)
    assert not session.looking and session.report is report and report.ok
    assert window.statusBar().currentMessage() in (
        "Validated: ready to commit.",
        f"Validated: ready to commit, with {len(report.warnings)} warning"
        f"{'s' if len(report.warnings) > 1 else ''}.",
    )
