"""The review page, driven as a person would: order, exclude, rename, covers, decisions, problems.

Plans are made by the engine (a real scan of real files, then ``build_plan``), so every
edit the page makes is checked against the engine's own plan, never against the view.
"""

from __future__ import annotations

import html
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QGuiApplication, QIcon, QPalette
from PySide6.QtWidgets import QApplication, QPushButton
from pytestqt.qtbot import QtBot

from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.plan import PlanItem
from transcribe_import.engine.planning.planner import build_plan
from transcribe_import.engine.planning.problems import unusable_words
from transcribe_import.engine.planning.scan import run_scan
from transcribe_import.engine.planning.validate import ProblemCode
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui import thumbnails as thumbnails_module
from transcribe_import.gui.models.page_drops import SOURCES_MIME_TYPE
from transcribe_import.gui.models.page_rows import PageColumn
from transcribe_import.gui.models.plan_items import ItemColumn
from transcribe_import.gui.models.plan_pages import PageTableModel
from transcribe_import.gui.models.problems import ProblemColumn
from transcribe_import.gui.models.roles import ItemIdRole, SourceIdsRole, StateRole
from transcribe_import.gui.pages import review_edits
from transcribe_import.gui.pages.review import ReviewPage
from transcribe_import.gui.pages.review_grid import PageView
from transcribe_import.gui.session import ImportSession
from transcribe_import.gui.thumbnails import ThumbnailCache, busy_caches
from transcribe_import.gui.values import PlanItemState

from helpers.window import item_state, panel_words, wait_states_checked
from helpers.window import open_review_page as open_page
from helpers.window import show_item as show
from media_factory import make_jpeg, make_multiframe_tiff, make_truncated_jpeg

WAIT_MS = 10_000
CAMERA_TIMES = {9998: "10:00:00", 9999: "10:01:00", 1: "10:02:00", 2: "10:03:00"}


@pytest.fixture(autouse=True)
def no_thumbnail_job_left() -> Iterator[None]:
    """Fail the test if a thumbnail render still runs once the page is closed."""
    yield
    busy = busy_caches()
    for cache in busy:
        cache.shutdown()  # a pool destroyed while its jobs run would take the process down
    if busy:
        pytest.fail(f"thumbnail renders still running after the test: {busy}")


@pytest.fixture
def shelf(tmp_path: Path) -> Path:
    """Three notebooks: a camera whose counter rolled over, a clean diary, one broken file."""
    root = tmp_path / "shelf"
    for number, time in CAMERA_TIMES.items():
        make_jpeg(
            root / "camera" / f"IMG_{number:04}.jpg",
            datetime_original=f"2023:05:01 {time}",
            label=str(number),
        )
    diary = root / "diary"
    make_jpeg(diary / "page1.jpg", label="1")
    make_jpeg(diary / "page2.jpg", label="2")
    make_multiframe_tiff(diary / "page3.tif", 2)
    make_jpeg(diary / "page4.jpg", label="4")
    # Modification times in the reverse of the name order, so sorting by them shows.
    for age, name in enumerate(["page4.jpg", "page3.tif", "page2.jpg", "page1.jpg"]):
        stamp = 1_700_000_000 + 60 * age
        os.utime(diary / name, (stamp, stamp))
    make_jpeg(root / "loose" / "alpha.jpg", label="a")
    make_truncated_jpeg(root / "loose" / "broken.jpg")
    return root


@pytest.fixture
def session(corpus: Corpus, shelf: Path) -> ImportSession:
    session = ImportSession(corpus)
    session.set_plan(build_plan(corpus, run_scan([shelf])))
    return session


@pytest.fixture
def page(qtbot: QtBot, session: ImportSession) -> ReviewPage:
    return open_page(qtbot, session)


def item_named(session: ImportSession, label: str) -> PlanItem:
    assert session.plan is not None
    return next(it for it in session.plan.items if it.label == label)


def names(item: PlanItem) -> list[str]:
    return [s.name for s in item.sources]


def shown_files(page: ReviewPage) -> list[str]:
    model = page.pages_model
    return [model.index(r, PageColumn.FILE).data() for r in range(model.rowCount())]


def select_rows(page: ReviewPage, *rows: int) -> None:
    page.select_rows(list(rows))
    assert page.selected_rows() == sorted(rows)


def press(qtbot: QtBot, page: ReviewPage, key: Qt.Key, modifier=Qt.KeyboardModifier.NoModifier):
    """A key pressed in the page table, with the window active as a person's would be."""
    page.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is page, timeout=WAIT_MS)
    page.page_view.setFocus()
    qtbot.keyClick(page.page_view, key, modifier)


# -- the models ----------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["items_model", "pages_model", "problems_model"])
def test_models_stay_well_behaved_through_edits(
    qtbot: QtBot, qtmodeltester, page: ReviewPage, session: ImportSession, which: str
) -> None:
    qtmodeltester.check(getattr(page, which))
    session.validate_now()
    diary = show(page, "diary")
    select_rows(page, 3)
    page.edits.move_up()
    page.edits.exclude()
    session.undo_stack.undo()
    session.undo_stack.redo()
    page.edits.sort_by_mtime()
    session.validate_now()
    show(page, "camera")
    page.edits.resolve("capture_time")
    session.undo_stack.undo()
    session.set_plan(session.plan)  # a new plan: everything is reset
    assert page.selected_item_id() == item_named(session, "camera").item_id
    assert diary.item_id in {it.item_id for it in session.plan.items}


def test_items_list_shows_action_pages_files_not_imported_and_a_state_badge(
    qtbot: QtBot, page: ReviewPage, session: ImportSession
) -> None:
    model = page.items_model
    wait_states_checked(qtbot, model)  # each badge's words, not "Checking…"
    rows = {
        model.index(r, ItemColumn.NOTEBOOK).data(): [model.index(r, c).data() for c in ItemColumn]
        for r in range(model.rowCount())
    }
    assert rows == {
        "camera": ["camera", "New notebook", "4", "", "Needs a decision"],
        "diary": ["diary", "New notebook", "5", "", "Ready"],
        "loose": ["loose", "New notebook", "1", "1", "Ready"],  # its broken file
    }
    state_index = model.index(0, ItemColumn.STATE)
    assert isinstance(state_index.data(Qt.ItemDataRole.DecorationRole), QIcon)
    assert state_index.data(StateRole) == PlanItemState.NEEDS_ORDER_DECISION

    session.validate_now()  # the broken file is an error only validation knows about
    loose_row = model.row_of(item_named(session, "loose").item_id)
    assert model.index(loose_row, 0).data(StateRole) == PlanItemState.ERROR
    assert model.index(loose_row, ItemColumn.STATE).data() == "Error"


def test_page_table_shows_file_page_in_file_capture_time_size(page: ReviewPage) -> None:
    show(page, "diary")
    model = page.pages_model
    assert shown_files(page) == ["page1.jpg", "page2.jpg", "page3.tif", "page3.tif", "page4.jpg"]
    assert [model.index(r, PageColumn.SOURCE_PAGE).data() for r in range(5)] == [
        "",
        "",
        "p. 1 of 2",
        "p. 2 of 2",
        "",
    ]
    # A file's size is said once, on its first page.
    assert model.index(2, PageColumn.SIZE).data().endswith("KiB")
    assert model.index(3, PageColumn.SIZE).data() == ""
    assert (
        model.index(0, PageColumn.FILE)
        .data(Qt.ItemDataRole.ToolTipRole)
        .endswith("diary/page1.jpg")
    )
    assert [model.headerData(r, Qt.Orientation.Vertical) for r in range(5)] == list("12345")

    show(page, "camera")
    # The camera's clock as it was, never shifted to another zone.
    assert model.index(0, PageColumn.CAPTURED).data() == "2023-05-01 10:02:00"
    assert model.index(0, PageColumn.WARNING).data() == "Order in question"


# -- ordering ------------------------------------------------------------------------------


def test_drag_and_drop_moves_the_sources_in_the_engine_plan(
    qtmodeltester, page: ReviewPage, session: ImportSession
) -> None:
    diary = show(page, "diary")
    model = page.pages_model
    qtmodeltester.check(model)

    data = model.mimeData([model.index(4, PageColumn.FILE)])  # page4.jpg
    assert data.hasFormat(SOURCES_MIME_TYPE)
    assert model.canDropMimeData(data, Qt.DropAction.MoveAction, 0, 0, QModelIndex())
    assert model.dropMimeData(data, Qt.DropAction.MoveAction, 0, 0, QModelIndex())
    moved = session.item(diary.item_id)
    assert names(moved) == ["page4.jpg", "page1.jpg", "page2.jpg", "page3.tif"]
    assert moved.ordering.resolved  # an order a person gave is a decision
    assert shown_files(page) == ["page4.jpg", "page1.jpg", "page2.jpg", "page3.tif", "page3.tif"]

    # One page of the TIFF moves only among its pages (#22): out of the file, refused.
    data = model.mimeData([model.index(4, PageColumn.FILE)])  # page3.tif, page 2
    assert not model.dropMimeData(data, Qt.DropAction.MoveAction, 0, 0, QModelIndex())
    assert names(session.item(diary.item_id))[0] == "page4.jpg"
    # Both its pages move the file whole; a drop inside a file lands before the whole file.
    data = model.mimeData([model.index(r, PageColumn.FILE) for r in (3, 4)])
    assert model.dropMimeData(data, Qt.DropAction.MoveAction, 0, 0, QModelIndex())
    assert names(session.item(diary.item_id))[0] == "page3.tif"
    data = model.mimeData([model.index(2, PageColumn.FILE)])  # page4.jpg
    assert model.dropMimeData(data, Qt.DropAction.MoveAction, 1, 0, QModelIndex())
    assert names(session.item(diary.item_id)) == [
        "page4.jpg",
        "page3.tif",
        "page1.jpg",
        "page2.jpg",
    ]
    # Dropped past the last row (or on empty space): to the end.
    data = model.mimeData([model.index(0, PageColumn.FILE)])
    assert model.dropMimeData(data, Qt.DropAction.MoveAction, -1, -1, QModelIndex())
    assert names(session.item(diary.item_id))[-1] == "page4.jpg"


def test_a_drag_from_another_notebook_is_refused(
    qtbot: QtBot, page: ReviewPage, session: ImportSession
) -> None:
    other = PageTableModel(session)
    other.set_item(item_named(session, "camera").item_id)
    data = other.mimeData([other.index(0, PageColumn.FILE)])
    diary = show(page, "diary")
    before = session.item(diary.item_id)

    assert not page.pages_model.canDropMimeData(data, Qt.DropAction.MoveAction, 0, 0, QModelIndex())
    assert not page.pages_model.dropMimeData(data, Qt.DropAction.MoveAction, 0, 0, QModelIndex())
    assert session.item(diary.item_id) is before


def test_move_up_and_down_by_keyboard_keep_the_pages_selected(
    qtbot: QtBot, page: ReviewPage, session: ImportSession
) -> None:
    diary = show(page, "diary")
    select_rows(page, 3)  # the TIFF's second page: it moves among the TIFF's pages (#22)
    press(qtbot, page, Qt.Key.Key_Up, Qt.KeyboardModifier.ControlModifier)
    tiff = session.item(diary.item_id).sources[2]
    assert [p.page_index for p in tiff.pages] == [1, 0]
    assert page.selected_rows() == [2] and not page.move_up_action.isEnabled()
    press(qtbot, page, Qt.Key.Key_Down, Qt.KeyboardModifier.ControlModifier)
    select_rows(page, 2, 3)  # the whole TIFF: the file moves

    press(qtbot, page, Qt.Key.Key_Up, Qt.KeyboardModifier.ControlModifier)
    assert names(session.item(diary.item_id)) == [
        "page1.jpg",
        "page3.tif",
        "page2.jpg",
        "page4.jpg",
    ]
    # The selection followed the pages it was on.
    assert page.selected_rows() == [1, 2]
    assert page.pages_model.index(2, PageColumn.SOURCE_PAGE).data() == "p. 2 of 2"

    press(qtbot, page, Qt.Key.Key_Down, Qt.KeyboardModifier.ControlModifier)
    press(qtbot, page, Qt.Key.Key_Down, Qt.KeyboardModifier.ControlModifier)
    assert names(session.item(diary.item_id)) == [
        "page1.jpg",
        "page2.jpg",
        "page4.jpg",
        "page3.tif",
    ]
    assert page.selected_rows() == [3, 4]
    assert not page.move_down_action.isEnabled()  # already last


def test_undo_and_redo_restore_exactly_the_earlier_items(
    qtbot: QtBot, page: ReviewPage, session: ImportSession
) -> None:
    diary = show(page, "diary")
    before = session.item(diary.item_id)
    select_rows(page, 0)
    press(qtbot, page, Qt.Key.Key_Down, Qt.KeyboardModifier.ControlModifier)
    after = session.item(diary.item_id)
    assert after != before

    press(qtbot, page, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert session.item(diary.item_id) == before
    assert shown_files(page)[:2] == ["page1.jpg", "page2.jpg"]
    press(
        qtbot,
        page,
        Qt.Key.Key_Z,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert session.item(diary.item_id) == after

    # Undoing an edit of another notebook keeps the one on screen.
    camera = show(page, "camera")
    session.undo_stack.undo()
    assert session.item(diary.item_id) == before
    assert page.selected_item_id() == camera.item_id


def test_sort_by_name_capture_time_and_modification_time(
    page: ReviewPage, session: ImportSession
) -> None:
    diary = show(page, "diary")
    page.sort_mtime_action.trigger()
    assert names(session.item(diary.item_id)) == [
        "page4.jpg",
        "page3.tif",
        "page2.jpg",
        "page1.jpg",
    ]
    page.sort_name_action.trigger()
    assert names(session.item(diary.item_id)) == [
        "page1.jpg",
        "page2.jpg",
        "page3.tif",
        "page4.jpg",
    ]

    camera = show(page, "camera")
    page.sort_capture_action.trigger()
    assert names(session.item(camera.item_id)) == [
        "IMG_9998.jpg",
        "IMG_9999.jpg",
        "IMG_0001.jpg",
        "IMG_0002.jpg",
    ]


def test_rollover_is_explained_and_ordering_by_capture_time_resolves_it(
    qtbot: QtBot, page: ReviewPage, session: ImportSession
) -> None:
    camera = show(page, "camera")
    assert page.decision_panel.isVisible()
    words = panel_words(page)
    assert "IMG_0001.jpg was taken after" in words
    assert "IMG_9999.jpg: the camera counter rolled over" in words
    assert "--" not in words  # no command-line options in the window
    buttons = {b.text(): b for b in page.decision_buttons()}
    assert set(buttons) == {"Order by capture time", "Accept this order"}

    # From the keyboard: focus the button and press Space.
    button = buttons["Order by capture time"]
    page.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is page, timeout=WAIT_MS)
    button.setFocus()
    qtbot.keyClick(button, Qt.Key.Key_Space)

    resolved = session.item(camera.item_id)
    assert ordering.find_ambiguities(resolved) == []
    assert names(resolved) == ["IMG_9998.jpg", "IMG_9999.jpg", "IMG_0001.jpg", "IMG_0002.jpg"]
    assert shown_files(page) == names(resolved)
    assert not page.decision_panel.isVisible()
    # The badge's order check may be left to a later turn of the event loop: wait for it.
    assert item_state(qtbot, page.items_model, camera.item_id) == PlanItemState.READY

    # Undone, the question is back; accepting the name order settles it the other way.
    session.undo_stack.undo()
    assert page.decision_panel.isVisible()
    {b.text(): b for b in page.decision_buttons()}["Accept this order"].click()
    accepted = session.item(camera.item_id)
    assert accepted.ordering.resolved
    assert names(accepted) == names(camera)


def test_a_plan_shown_or_a_notebook_chosen_builds_the_decision_panel_once(
    page: ReviewPage, session: ImportSession
) -> None:
    """Counted, not timed: a plan of 100,000 pages shown built the panel four times over."""
    panel = page.decision_panel
    built: list[str | None] = []
    rebuild = panel.rebuild

    def counted(item: PlanItem | None, *args: object) -> None:
        built.append(None if item is None else item.label)
        rebuild(item, *args)  # type: ignore[arg-type]

    panel.rebuild = counted  # type: ignore[method-assign]
    show(page, "camera")
    session.set_plan(session.plan)  # a new plan: the notebook shown is kept
    assert built == ["camera"]
    assert "IMG_9999.jpg: the camera counter rolled over" in panel_words(page)

    built.clear()
    show(page, "diary")
    assert built == ["diary"]
    assert not panel.isVisible()
    page.show_view(PageView.GRID)
    built.clear()
    page.show_view(PageView.DETAILS)  # its Tab order leads to the other view
    show(page, "camera")
    assert built == ["diary", "camera"]
    assert panel.isVisible()

    built.clear()
    session.set_plan(None)
    assert built == [None]
    assert not panel.isVisible()


def test_the_window_shows_the_engines_words_as_they_are(
    qtbot: QtBot, page: ReviewPage, session: ImportSession, shelf: Path
) -> None:
    """The problems pane, a page's warning tooltip and the not-imported list show the
    engine's messages unchanged: no label cut off, no path swapped for a name."""
    camera = show(page, "camera")
    report = session.validate_now()
    model = page.problems_model
    qtbot.waitUntil(lambda: model.rowCount() == len(report.problems), timeout=WAIT_MS)
    shown = [model.index(r, ProblemColumn.MESSAGE).data() for r in range(model.rowCount())]
    assert sorted(shown) == sorted(p.message for p in report.problems)
    labels = [model.index(r, ProblemColumn.NOTEBOOK).data() for r in range(model.rowCount())]
    assert not any(m.startswith(f"{label}:") for m, label in zip(shown, labels, strict=True))
    unreadable = next(p for p in report.problems if p.code == ProblemCode.SOURCE_UNREADABLE)
    assert unreadable.message.startswith("shelf/loose/broken.jpg is cut short")

    [cue] = ordering.find_ambiguities(camera)
    assert "shelf/camera/IMG_0001.jpg was taken after" in cue.message  # files by their rel
    tips = {
        page.pages_model.index(r, PageColumn.WARNING).data(Qt.ItemDataRole.ToolTipRole)
        for r in range(page.pages_model.rowCount())
    }
    assert f"<p>{html.escape(cue.message)}</p>" in tips

    loose = item_named(session, "loose")
    view = page.not_imported_view
    rows = {view.item(r, 0).text(): view.item(r, 1).text() for r in range(view.rowCount())}
    assert rows["shelf/loose/broken.jpg"] == unusable_words(loose.unusable[0])
    assert str(shelf) not in rows["shelf/loose/broken.jpg"]


def test_exclude_and_include_by_keyboard(
    qtbot: QtBot, page: ReviewPage, session: ImportSession
) -> None:
    diary = show(page, "diary")
    model = page.pages_model
    select_rows(page, 1)  # page2.jpg

    press(qtbot, page, Qt.Key.Key_Delete)
    assert session.item(diary.item_id).sources[1].excluded
    assert model.index(1, PageColumn.WARNING).data() == "Excluded"
    grey = QGuiApplication.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
    assert model.index(1, PageColumn.FILE).data(Qt.ItemDataRole.ForegroundRole) == grey
    assert [model.headerData(r, Qt.Orientation.Vertical) for r in range(5)] == [
        "1",
        "–",
        "2",
        "3",
        "4",
    ]
    row = page.items_model.row_of(diary.item_id)
    assert page.items_model.index(row, ItemColumn.PAGES).data() == "4"
    assert not page.exclude_action.isEnabled()
    assert page.include_action.isEnabled()

    press(qtbot, page, Qt.Key.Key_Insert)
    assert not session.item(diary.item_id).sources[1].excluded
    assert model.index(1, PageColumn.WARNING).data() == ""


def test_rename_asks_for_a_title_and_shows_a_refusal_without_crashing(
    qtbot: QtBot, page: ReviewPage, session: ImportSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    diary = show(page, "diary")
    answers = iter([("Field notes", True), ("   ", True), ("ignored", False)])
    monkeypatch.setattr(review_edits.QInputDialog, "getText", lambda *args, **kwargs: next(answers))

    press(qtbot, page, Qt.Key.Key_F2)
    assert session.item(diary.item_id).title == "Field notes"
    row = page.items_model.row_of(diary.item_id)
    assert page.items_model.index(row, ItemColumn.NOTEBOOK).data() == "Field notes"
    assert "Field notes" in page.pages_label.text()

    press(qtbot, page, Qt.Key.Key_F2)  # a blank title: the engine refuses it
    assert session.item(diary.item_id).title == "Field notes"
    assert page.status_label.isVisible()
    assert "a notebook needs a title" in page.status_label.text()

    press(qtbot, page, Qt.Key.Key_F2)  # cancelled: nothing happens
    assert session.item(diary.item_id).title == "Field notes"
    assert session.undo_stack.count() == 1


def test_set_as_cover_marks_the_page(page: ReviewPage, session: ImportSession) -> None:
    diary = show(page, "diary")
    select_rows(page, 1)
    assert page.cover_action.isEnabled()
    page.cover_action.trigger()

    item = session.item(diary.item_id)
    assert item.cover_page_id == item.sources[1].pages[0].page_id
    assert page.pages_model.headerData(1, Qt.Orientation.Vertical) == "★ 2"
    assert not page.cover_action.isEnabled()  # it is the cover already


# -- unusable files, validation, commit ----------------------------------------------------


def test_leaving_out_a_truncated_file_clears_its_error_and_commit_waits_for_none(
    qtbot: QtBot, page: ReviewPage, session: ImportSession
) -> None:
    loose = show(page, "loose")
    assert page.decision_panel.isVisible()
    words = panel_words(page)
    # The scan's words as they are: the file by its rel (problems.file_name), no path on disk.
    assert words.startswith("shelf/loose/broken.jpg is cut short"), words
    assert html.escape(unusable_words(loose.unusable[0])) in words
    assert str(page.session.corpus.root.parent) not in words
    assert not page.can_commit()
    assert not page.commit_button.isEnabled()

    with qtbot.waitSignal(page.validate_requested):
        page.validate_button.click()
    report = session.validate_now()
    unusable = [p for p in report.errors if p.code == ProblemCode.SOURCE_UNREADABLE]
    assert [p.item_id for p in unusable] == [loose.item_id]
    assert not page.commit_button.isEnabled()

    leave_out = next(b for b in page.decision_buttons() if b.text() == "Leave Out")
    assert leave_out.accessibleName() == "Leave out broken.jpg"
    leave_out.click()
    assert session.item(loose.item_id).acknowledged == ("shelf/loose/broken.jpg",)
    assert session.report is None  # stale: the plan changed
    report = session.validate_now()
    assert not [p for p in report.errors if p.code == ProblemCode.SOURCE_UNREADABLE]
    assert not page.commit_button.isEnabled()  # the camera's order is still undecided

    show(page, "camera")
    page.edits.resolve("capture_time")
    session.validate_now()
    assert page.can_commit()
    assert page.commit_button.isEnabled()
    assert "ready to commit" in page.problems_summary.text()
    with qtbot.waitSignal(page.commit_requested):
        page.commit_button.click()


def test_activating_a_problem_jumps_to_its_notebook_and_page(
    qtbot: QtBot, page: ReviewPage, session: ImportSession
) -> None:
    report = session.validate_now()
    camera = item_named(session, "camera")
    show(page, "diary")
    model = page.problems_model
    row = next(r for r in range(model.rowCount()) if model.problem(r).item_id == camera.item_id)
    index = model.index(row, 1)
    source_ids = index.data(SourceIdsRole)
    assert source_ids and index.data(ItemIdRole) == camera.item_id
    assert "camera counter rolled over" in index.data()
    assert "--sequence" not in index.data()
    assert len(report.problems) == model.rowCount()

    page.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is page, timeout=WAIT_MS)
    page.problems_view.setFocus()
    page.problems_view.setCurrentIndex(index)
    qtbot.keyClick(page.problems_view, Qt.Key.Key_Return)

    assert page.selected_item_id() == camera.item_id
    # The problem's pages are selected (both of a disputed pair), and the viewer beside the
    # table shows them side by side.
    pair = sorted(page.pages_model.rows_of_source(s)[0] for s in source_ids[:2])
    assert page.selected_rows() == pair
    assert [s.source_id for s, _ in page.viewer.pages()] == [
        page.pages_model.source_at(r).source_id for r in pair
    ]
    assert page.pages_widget().hasFocus()

    # A problem about a file that is not a page (the broken one) focuses what settles it.
    loose = item_named(session, "loose")
    row = next(r for r in range(model.rowCount()) if model.problem(r).item_id == loose.item_id)
    page.problems_view.activated.emit(model.index(row, 0))
    assert page.selected_item_id() == loose.item_id
    focused = QApplication.focusWidget()
    assert isinstance(focused, QPushButton) and focused.text() == "Leave Out"


# -- thumbnails ----------------------------------------------------------------------------


@pytest.fixture
def render_log(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The thread of every thumbnail render."""
    calls: list[int] = []
    real = thumbnails_module.api.preview_pixels

    def preview_pixels(*args, **kwargs):
        calls.append(threading.get_ident())
        return real(*args, **kwargs)

    monkeypatch.setattr(thumbnails_module.api, "preview_pixels", preview_pixels)
    return calls


def test_thumbnails_load_off_the_gui_thread_and_come_from_the_cache_after(
    qtbot: QtBot, session: ImportSession, render_log: list[int]
) -> None:
    page = open_page(qtbot, session)
    show(page, "diary")
    model = page.pages_model

    def decorations() -> list[object]:
        return [
            model.index(r, PageColumn.THUMBNAIL).data(Qt.ItemDataRole.DecorationRole)
            for r in range(model.rowCount())
        ]

    qtbot.waitUntil(lambda: all(isinstance(d, QIcon) for d in decorations()), timeout=WAIT_MS)
    assert render_log and threading.get_ident() not in render_log
    rendered = len(render_log)
    assert rendered == 5  # one per page, the TIFF's two included

    assert all(isinstance(d, QIcon) for d in decorations())  # asked again: from the cache
    diary = item_named(session, "diary")
    pixmap = page.thumbnails.request(diary.sources[2], 1)
    assert pixmap is not None and max(pixmap.width(), pixmap.height()) <= 160
    assert len(render_log) == rendered


def test_a_thumbnail_that_fails_is_not_tried_again(
    qtbot: QtBot, session: ImportSession, shelf: Path, render_log: list[int]
) -> None:
    (shelf / "diary" / "page2.jpg").unlink()
    cache = ThumbnailCache()
    source = item_named(session, "diary").sources[1]

    assert cache.request(source, 0) is None
    qtbot.waitUntil(lambda: cache.failure(source.source_id, 0) is not None, timeout=WAIT_MS)
    assert cache.request(source, 0) is None
    assert cache.request(source, 0) is None
    assert len(render_log) == 1
    assert "page2.jpg" in (cache.failure(source.source_id, 0) or "")
    cache.shutdown()


def test_thumbnail_cache_is_bounded(
    qtbot: QtBot, session: ImportSession, render_log: list[int]
) -> None:
    cache = ThumbnailCache(capacity=2)
    sources = item_named(session, "camera").sources[:3]
    for source in sources:
        with qtbot.waitSignal(cache.ready, timeout=WAIT_MS):
            cache.request(source, 0)
    assert cache.request(sources[2], 0) is not None
    assert cache.request(sources[1], 0) is not None
    assert cache.request(sources[0], 0) is None  # the oldest made room, so it is rendered again
    assert cache.wait_idle(WAIT_MS)
    assert len(render_log) == 4
    cache.clear()
    assert cache.request(sources[2], 0) is None
    cache.shutdown()


def test_closing_the_page_leaves_no_render_running(
    qtbot: QtBot, session: ImportSession, render_log: list[int]
) -> None:
    page = open_page(qtbot, session)
    camera = show(page, "camera")
    model = page.pages_model
    for row in range(model.rowCount()):  # what painting the rows does: schedule their renders
        model.index(row, PageColumn.THUMBNAIL).data(Qt.ItemDataRole.DecorationRole)

    page.close()
    assert not page.thumbnails.is_busy()
    rendered = len(render_log)
    assert page.thumbnails.request(camera.sources[0], 0) is None
    assert not page.thumbnails.is_busy()  # a closed page's cache schedules nothing more
    assert page.thumbnails.wait_idle(WAIT_MS)
    assert len(render_log) == rendered


def test_capture_time_order_on_pages_without_capture_times_says_so_and_changes_nothing(
    qtbot: QtBot, corpus: Corpus, tmp_path: Path
) -> None:
    for n in (1, 2, 3):
        make_jpeg(tmp_path / "shelf" / "Undated" / f"page {n}.jpg", label=str(n))
    session = ImportSession(corpus)
    session.set_plan(build_plan(corpus, run_scan([tmp_path / "shelf"])))
    page = ReviewPage(session, None)
    qtbot.addWidget(page)
    page.show()
    plan = session.plan
    assert plan is not None
    page.select_item(plan.items[0].item_id)
    before = session.item(plan.items[0].item_id)
    page.sort_capture_action.trigger()
    assert session.item(before.item_id) == before
    assert session.undo_stack.count() == 0  # no undo step for a change that did not happen
    assert page.status_label.isVisible()
    # The orders that can be had, named as the window's Sort pages menu names them.
    assert page.status_label.text() == (
        "Not changed: none of these pages has a capture time (no EXIF date), so they cannot be "
        "put in the order they were taken; choose Sort pages › By name or Sort pages › By "
        "modification time instead"
    )


def test_one_click_on_a_problem_jumps_and_a_validation_keeps_the_list_where_it_was(
    qtbot: QtBot, page: ReviewPage, session: ImportSession
) -> None:
    session.validate_now()
    camera = item_named(session, "camera")
    show(page, "diary")
    model = page.problems_model
    row = next(r for r in range(model.rowCount()) if model.problem(r).item_id == camera.item_id)
    view = page.problems_view
    view.scrollTo(model.index(row, 1))
    rect = view.visualRect(model.index(row, 1))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert page.selected_item_id() == camera.item_id  # one click, not a double-click

    bar = view.verticalScrollBar()
    page.problems_view.resize(page.problems_view.width(), 60)  # make the list scroll
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=WAIT_MS)
    bar.setValue(bar.maximum())
    kept = bar.value()
    session.validate_now()  # a new report: the model is rebuilt
    qtbot.waitUntil(lambda: bar.value() == kept, timeout=WAIT_MS)
