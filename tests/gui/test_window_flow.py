"""The import window driven end to end, as an operator would: drop, scan, review, validate, commit.

Everything goes through the real MainWindow and the real engine on real files: a
folder dropped with a QDropEvent, an ambiguous page order resolved with a row move
in the review table (and undone and redone), a commit whose outcomes are read from
the live table, cancel and pause while a commit runs, resume from the Runs view,
and resume of a run whose process was SIGKILLed. Where a test must act "while the
commit runs", the executor is held at a known point (after its first outcome) by
wrapping the engine's ``on_event``, so the test never races the import.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from PySide6.QtCore import QModelIndex, QSettings, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDialog,
    QHeaderView,
    QLineEdit,
    QWidget,
)
from pytestqt.qtbot import QtBot

from transcribe_import.engine.api import interrupted_runs, list_drafts, validate_plan
from transcribe_import.engine.planning import scan as scan_module
from transcribe_import.engine.planning.plan import (
    DEFAULT_MODE,
    AdapterMode,
    ModeName,
    load_plan,
)
from transcribe_import.engine.planning.planner import build_plan
from transcribe_import.engine.planning.scan import ScanPhase, ScanProgress, ScanResult, run_scan
from transcribe_import.engine.runs.executor import EventKind
from transcribe_import.engine.runs.model import SkipReason
from transcribe_import.engine.runs.store import ItemOutcome, ItemState, RunStatus, RunStore
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui import app as gui_app
from transcribe_import.gui import dialogs, import_flow, main_window, window_dialogs
from transcribe_import.gui import workers as workers_module
from transcribe_import.gui.import_flow import ask_unsaved_review
from transcribe_import.gui.main_window import MainWindow, Section
from transcribe_import.gui.models.base import STATE_ROLE
from transcribe_import.gui.models.outcomes import OutcomeTableModel
from transcribe_import.gui.models.page_rows import PageColumn
from transcribe_import.gui.models.plan_items import ItemColumn
from transcribe_import.gui.models.runs import RunTableModel
from transcribe_import.gui.pages import commit as commit_page_module
from transcribe_import.gui.settings_dialog import (
    MAX_SIDE_KEY,
    POLICY_KEY,
    WORKERS_KEY,
    ImportSettings,
    load_settings,
)
from transcribe_import.gui.values import OutcomeRow, RunSummary
from transcribe_import.gui.wording import StopChoice
from transcribe_import.gui.workers import running_workers

from helpers.runs import killed_commit
from helpers.shelves import make_png_shelf
from helpers.window import (
    TIMEOUT_MS,
    ExecutorGate,
    ScanHold,
    click_in_next_box,
    commit,
    drop,
    scan_and_validate,
    wait_run_end,
    wait_validated,
)
from media_factory import make_jpeg

ROLLOVER = ["IMG_9998.jpg", "IMG_9999.jpg", "IMG_0001.jpg", "IMG_0002.jpg"]


# -- page files ------------------------------------------------------------------------------


def make_rollover_folder(folder: Path) -> Path:
    """A camera counter that rolled over: 9998, 9999, 0001, 0002, taken a minute apart."""
    for minute, name in enumerate(ROLLOVER):
        make_jpeg(folder / name, (48, 64), datetime_original=f"2024:03:01 10:0{minute}:00")
    return folder


# -- driving the window ----------------------------------------------------------------------


def outcome_states(model: OutcomeTableModel) -> list[str]:
    return [model.index(r, 0).data(STATE_ROLE) for r in range(model.rowCount())]


def column_text(model: Any, column: int) -> list[str]:
    return [model.index(r, column).data() for r in range(model.rowCount())]


def page_files(window: MainWindow) -> list[str]:
    """The review table's File column, top to bottom: what the person sees."""
    return column_text(window.review_page.pages_model, PageColumn.FILE)


@pytest.fixture
def held_commit(
    qtbot: QtBot, tmp_path: Path, gate: ExecutorGate, importing: Callable[..., MainWindow]
) -> Callable[[int], MainWindow]:
    """A commit of ``notebooks`` PNG notebooks, held by ``gate`` once its first notebook is
    shown committed."""

    def start(notebooks: int) -> MainWindow:
        window = importing(make_png_shelf(tmp_path / "shelf", notebooks=notebooks))
        model = window.commit_page.model
        qtbot.waitUntil(lambda: ItemState.COMMITTED in outcome_states(model), timeout=TIMEOUT_MS)
        return window

    return start


# -- the whole flow --------------------------------------------------------------------------


def test_drop_scan_resolve_the_order_validate_and_commit(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    shelf = tmp_path / "shelf"
    make_rollover_folder(shelf / "Field notes")
    make_png_shelf(shelf, notebooks=2)
    window = open_window()
    assert window.current_page() is window.start_page
    assert not window.start_page.scan_button.isEnabled()

    drop(window, [shelf])
    assert window.start_page.paths() == [shelf]
    assert window.start_page.mode() == DEFAULT_MODE

    scan_and_validate(qtbot, window)

    # The rolled-over counter is a validate error: commit stays disabled until it is resolved.
    plan = window.session.plan
    assert plan is not None and [it.label for it in plan.items] == [
        "Field notes",
        "Notebook 01",
        "Notebook 02",
    ]
    report = window.session.report
    assert report is not None and not report.ok
    [problem] = report.errors
    assert problem.code == "conflicting_cues" and "rolled over" in problem.message
    assert not window.review_page.can_commit()
    assert not window.review_page.commit_button.isEnabled()

    field_notes = plan.items[0].item_id
    assert window.review_page.select_item(field_notes)
    natural = ["IMG_0001.jpg", "IMG_0002.jpg", "IMG_9998.jpg", "IMG_9999.jpg"]
    assert page_files(window) == natural

    # Drag 9998 and 9999 above 0001 in the page table: one undoable engine edit.
    pages = window.review_page.pages_model
    dragged = pages.mimeData([pages.index(2, PageColumn.FILE), pages.index(3, PageColumn.FILE)])
    assert pages.dropMimeData(dragged, Qt.DropAction.MoveAction, 0, 0, QModelIndex())
    assert page_files(window) == ROLLOVER

    window.review_page.undo_action.trigger()
    assert page_files(window) == natural
    window.review_page.redo_action.trigger()
    assert page_files(window) == ROLLOVER

    # Validated again by itself, once the edits have settled.
    wait_validated(qtbot, window)
    assert window.session.report is not None and window.session.report.ok
    assert window.review_page.can_commit()

    commit(qtbot, window)
    wait_run_end(qtbot, window)

    page = window.commit_page
    assert outcome_states(page.model) == ["committed"] * 3
    assert page.headline.text() == "Complete"
    assert "Every notebook was committed" in page.summary_label.text()
    assert "3 notebooks committed; 8 pages landed." in page.summary_label.text()
    assert page.progress_bar.value() == page.progress_bar.maximum() == 8
    assert column_text(page.model, 2) == ["Committed"] * 3
    assert column_text(page.model, 3)[0] == "4 pages into a new notebook"
    assert page.open_folder_button.isVisible() and page.new_import_button.isVisible()
    assert not page.pause_button.isVisible()

    # The plan is frozen in its run now: the review is emptied.
    assert window.session.plan is None

    # The engine's record agrees, and the notebook holds the pages in the resolved order.
    [run] = RunStore(corpus).list_runs()
    assert run.status is RunStatus.COMPLETE and run.run_id == page.run_id
    titles = {nb.title: nb for nb in corpus.list_notebooks()}
    assert titles["Field notes"].page_count == 4
    project = (titles["Field notes"].directory / "project.json").read_text()
    positions = [project.index(name) for name in ROLLOVER]
    assert positions == sorted(positions)

    # The corpus view lists them, and the Runs view shows the run, newest first.
    qtbot.waitUntil(lambda: window.corpus_page.notebook_model.rowCount() == 3, timeout=TIMEOUT_MS)
    page.show_run_button.click()
    assert window.current_page() is window.runs_page
    qtbot.waitUntil(lambda: window.runs_page.model.rowCount() == 1, timeout=TIMEOUT_MS)
    assert window.runs_page.model.index(0, 1).data() == "Complete"


def test_commit_waits_for_a_validation_of_the_plan_as_it_is(
    qtbot: QtBot,
    tmp_path: Path,
    importing: Callable[..., MainWindow],
) -> None:
    make_rollover_folder(tmp_path / "Field notes")
    window = importing(tmp_path / "Field notes", workers=None, commit=False)
    assert not window.review_page.can_commit()

    # Asking to commit an invalid plan starts nothing.
    window.flow.commit_plan()
    assert not window.commit_page.is_running()
    assert window.current_page() is window.review_page

    # A folder dropped while reviewing goes to the start view, which offers the way back.
    drop(window, [tmp_path / "Field notes"])
    assert window.current_page() is window.start_page
    assert window.start_page.review_button.isVisibleTo(window)
    window.start_page.review_button.click()
    assert window.current_page() is window.review_page

    # Accept the order: the report is stale until validated again (debounced), then commit.
    [button] = [b for b in window.review_page.decision_buttons() if b.text() == "Accept this order"]
    button.click()
    assert window.session.report is None and not window.review_page.can_commit()
    assert window.flow.is_validating()
    wait_validated(qtbot, window)
    assert window.review_page.can_commit()


def test_a_file_changed_after_validation_sends_the_plan_back_to_review(
    qtbot: QtBot,
    corpus: Corpus,
    tmp_path: Path,
    importing: Callable[..., MainWindow],
) -> None:
    window = importing(make_png_shelf(tmp_path / "shelf", notebooks=1), workers=None, commit=False)
    assert window.review_page.can_commit()

    changed = tmp_path / "shelf" / "Notebook 01" / "p1.png"
    Image.new("RGB", (40, 56), (1, 2, 3)).save(changed)
    commit(qtbot, window)
    wait_run_end(qtbot, window)

    assert window.current_page() is window.review_page
    report = window.session.report
    assert report is not None and [p.code for p in report.errors] == ["source_changed"]
    assert RunStore(corpus).list_runs() == []
    assert corpus.list_notebooks() == []


# -- cancel, pause, resume -------------------------------------------------------------------


def test_cancel_during_a_commit_asks_first_and_ends_cancelled_with_commits(
    qtbot: QtBot,
    corpus: Corpus,
    gate: ExecutorGate,
    held_commit: Callable[[int], MainWindow],
) -> None:
    window = held_commit(6)
    page = window.commit_page
    assert page.pause_button.isEnabled() and page.cancel_button.isEnabled()

    # First say no: the import goes on.
    seen: list[str] = []
    click_in_next_box("Keep Importing", seen)
    page.cancel_button.click()
    assert page.is_running() and not page.stopping()

    click_in_next_box("Stop, Keep What Landed", seen)
    page.cancel_button.click()
    assert "Pages already in the corpus stay there" in seen[-1]
    assert page.headline.text() == "Stopping…"
    assert not page.cancel_button.isEnabled()
    gate.release.set()
    wait_run_end(qtbot, window)

    states = outcome_states(page.model)
    assert states == ["committed"] + ["cancelled_pending"] * 5
    assert page.headline.text() == "Cancelled after some commits"
    summary = page.summary_label.text()
    assert "every page that landed before the cancel stays in the corpus" in summary
    assert "1 notebook committed, 5 cancelled before they started; 2 pages landed." in summary
    assert "5 cancelled before they started" in summary
    assert column_text(page.model, 2)[1] == "Cancelled"
    [run] = RunStore(corpus).list_runs()
    assert run.status is RunStatus.CANCELLED_WITH_COMMITS
    assert len(corpus.list_notebooks()) == 1
    assert not page.resume_button.isVisible()  # a finished run is never reopened


def test_pause_then_resume_from_the_runs_view(
    qtbot: QtBot,
    corpus: Corpus,
    gate: ExecutorGate,
    held_commit: Callable[[int], MainWindow],
) -> None:
    window = held_commit(4)
    page = window.commit_page

    page.pause_button.click()
    assert page.rate_label.text() == "Pausing at the next safe point…"
    gate.release.set()
    wait_run_end(qtbot, window)

    assert page.headline.text() == "Paused"
    assert "Resume it here or from Runs" in page.summary_label.text()
    assert outcome_states(page.model) == ["committed", "pending", "pending", "pending"]
    assert page.resume_button.isVisible()
    [record] = RunStore(corpus).list_runs()
    assert record.status is RunStatus.RUNNING
    assert [r.run_id for r in interrupted_runs(corpus)] == [record.run_id]

    # The Runs view, by keyboard: the paused run is interrupted and resumable.
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    runs = window.runs_page
    assert window.current_page() is runs
    qtbot.waitUntil(lambda: runs.model.rowCount() == 1, timeout=TIMEOUT_MS)
    # A person's Pause, not a crash: it says so. On a loaded machine a listing asked for while
    # the run still held its lock can end after it, and reads "Running now"; the listing the
    # view asked for on being shown waits behind it and follows at once.
    qtbot.waitUntil(
        lambda: runs.model.index(0, 1).data() == "Paused, resumable", timeout=TIMEOUT_MS
    )
    qtbot.waitUntil(lambda: runs.detail_model.rowCount() == 4, timeout=TIMEOUT_MS)
    assert outcome_states(runs.detail_model) == ["committed", "pending", "pending", "pending"]
    assert runs.resume_button.isEnabled()
    # The start view tells of it too.
    assert [r.run_id for r in window.start_page.interrupted_runs()] == [record.run_id]

    runs.resume_button.click()
    assert window.current_page() is window.commit_page
    assert not runs.resume_button.isEnabled()  # no second commit while one runs
    wait_run_end(qtbot, window)

    assert outcome_states(page.model) == ["committed"] * 4
    assert page.headline.text() == "Complete"
    [record] = RunStore(corpus).list_runs()
    assert record.status is RunStatus.COMPLETE and record.attempt == 2
    assert sum(nb.page_count or 0 for nb in corpus.list_notebooks()) == 8
    qtbot.waitUntil(lambda: not window.start_page.interrupted_runs(), timeout=TIMEOUT_MS)


def _kill_a_commit(corpus: Corpus, tmp_path: Path, *, notebooks: int, crash_at: str) -> None:
    """A real `commit` of a shelf of ``notebooks`` killed (SIGKILL) at ``crash_at``."""
    killed_commit(corpus, make_png_shelf(tmp_path / "shelf", notebooks=notebooks), crash_at)


@pytest.mark.crash
def test_the_start_notice_counts_one_notebook_in_the_singular(
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    tmp_path: Path,
) -> None:
    _kill_a_commit(corpus, tmp_path, notebooks=1, crash_at="ingest.after_claim:1")

    [text] = open_window().start_page.notice_texts()
    assert "0 of 1 notebook done" in text, text


@pytest.mark.crash
def test_resume_a_run_whose_process_was_killed(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    tmp_path: Path,
) -> None:
    _kill_a_commit(corpus, tmp_path, notebooks=4, crash_at="ingest.after_claim:2")

    window = open_window()

    # The start view tells of the interrupted run and offers to resume it.
    start = window.start_page
    assert window.current_page() is start
    [run] = start.interrupted_runs()
    [text] = start.notice_texts()
    assert "An import was interrupted" in text and "1 of 4 notebooks done" in text
    [resume] = start.notice_buttons("Resume")
    assert resume.isVisible()
    resume.click()

    assert window.current_page() is window.commit_page
    wait_run_end(qtbot, window)
    page = window.commit_page
    assert page.run_id == run.run_id
    assert outcome_states(page.model) == ["committed"] * 4
    assert page.headline.text() == "Complete"
    record = RunStore(corpus).load(run.run_id)
    assert record.status is RunStatus.COMPLETE
    assert sorted(nb.page_count for nb in corpus.list_notebooks()) == [2, 2, 2, 2]
    qtbot.waitUntil(lambda: not start.notices.isVisibleTo(window), timeout=TIMEOUT_MS)


# -- closing ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "status"),
    [(StopChoice.PAUSE, RunStatus.RUNNING), (StopChoice.KEEP, RunStatus.CANCELLED_WITH_COMMITS)],
)
def test_closing_during_a_commit_stops_it_and_waits(
    qtbot: QtBot,
    corpus: Corpus,
    gate: ExecutorGate,
    monkeypatch: pytest.MonkeyPatch,
    answer: StopChoice,
    status: RunStatus,
    held_commit: Callable[[int], MainWindow],
) -> None:
    window = held_commit(3)

    asked: list[bool] = []

    def ask(parent: QWidget, *, closing: bool, ended: object = None) -> StopChoice:
        assert closing and ended is None  # on closing, the question waits for its answer
        asked.append(True)
        return StopChoice.CONTINUE if len(asked) == 1 else answer

    monkeypatch.setattr(commit_page_module, "ask_stop", ask)
    assert not window.close()  # "keep importing"
    assert window.isVisible() and not window.is_stopping()

    assert not window.close()
    assert window.is_stopping()
    assert window.windowTitle().startswith("Stopping…")
    assert window.commit_page.headline.text() == "Stopping…"
    assert not window.close()  # asked once; the window is already stopping
    assert len(asked) == 2
    assert window.isVisible()

    gate.release.set()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=TIMEOUT_MS)
    assert running_workers() == []
    [record] = RunStore(corpus).list_runs()
    assert record.status is status
    assert record.counts()["committed"] == 1
    if status is RunStatus.RUNNING:
        assert [r.run_id for r in interrupted_runs(corpus)] == [record.run_id]


# -- scan ------------------------------------------------------------------------------------


def test_scan_can_be_cancelled(
    qtbot: QtBot, open_window: Callable[..., MainWindow], tmp_path: Path, monkeypatch
) -> None:
    make_png_shelf(tmp_path / "shelf", notebooks=2)
    hold = ScanHold(monkeypatch)
    window = open_window()
    drop(window, [tmp_path / "shelf"])
    qtbot.mouseClick(window.start_page.scan_button, Qt.MouseButton.LeftButton)
    assert window.current_page() is window.scan_page
    qtbot.waitUntil(hold.held.is_set, timeout=TIMEOUT_MS)
    qtbot.waitUntil(lambda: window.scan_page.updates >= 1, timeout=TIMEOUT_MS)
    assert window.scan_page.headline.text() == "Looking for page files…"

    window.scan_page.cancel_button.click()
    hold.release.set()
    qtbot.waitUntil(lambda: window.current_page() is window.start_page, timeout=TIMEOUT_MS)
    assert window.statusBar().currentMessage() == "Scan cancelled; nothing was planned."
    assert window.session.plan is None
    assert window.start_page.paths() == [tmp_path / "shelf"]  # nothing lost: scan again


def test_ten_thousand_progress_events_make_a_handful_of_updates(
    qtbot: QtBot, open_window: Callable[..., MainWindow], tmp_path: Path, monkeypatch
) -> None:
    """What keeps the window responsive on 100,000 files: progress is throttled to 10/s."""
    (tmp_path / "shelf").mkdir()

    def busy_scan(roots: Any, **kw: Any) -> Any:
        deadline = time.monotonic() + 0.5
        n = 0
        while time.monotonic() < deadline:
            n += 1
            yield ScanProgress(ScanPhase.WALKING, n, 0, f"box/folder {n}")
        yield ScanProgress(ScanPhase.INSPECTING, n, n, "")
        return ScanResult(tuple(roots), (), ())

    monkeypatch.setattr(scan_module, "scan", busy_scan)
    window = open_window()
    drop(window, [tmp_path / "shelf"])
    qtbot.mouseClick(window.start_page.scan_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.current_page() is window.review_page, timeout=TIMEOUT_MS)

    # 0.5 s of events at 100 ms apart, plus the first of each phase and the final count.
    assert 3 <= window.scan_page.updates <= 9
    assert window.session.plan is not None and window.session.plan.items == ()


def test_command_line_paths_are_scanned_at_once(
    qapp: QApplication, data_dir: Path, tmp_path: Path
) -> None:
    make_png_shelf(tmp_path / "shelf", notebooks=2)
    seen: list[tuple[str, int]] = []

    def look() -> None:
        windows = [w for w in qapp.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        if not windows:
            QTimer.singleShot(20, look)
            return
        [window] = windows
        plan = window.session.plan
        if window.current_page() is not window.review_page or plan is None:
            QTimer.singleShot(20, look)
            return
        seen.append((window.start_page.mode(), len(plan.items)))
        window.close()
        window.deleteLater()

    QTimer.singleShot(0, look)
    assert gui_app.run_gui(data_dir, [tmp_path / "shelf"]) == 0
    assert seen == [(DEFAULT_MODE, 2)]


def test_a_scan_of_a_missing_folder_says_so_on_the_start_view(
    qtbot: QtBot, open_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    window = open_window()
    window.intake.add_paths([tmp_path / "gone"])
    qtbot.mouseClick(window.start_page.scan_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.start_page.error_row.isVisibleTo(window), timeout=TIMEOUT_MS)
    assert window.current_page() is window.start_page
    assert "no such file or folder" in window.start_page.error_label.text()


# -- the start view's choices ----------------------------------------------------------------


def test_mapping_choices_become_engine_modes(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    make_notebook: Callable[..., str],
    tmp_path: Path,
) -> None:
    target = make_notebook("Diary 1998", pages=1)
    make_png_shelf(tmp_path / "shelf", notebooks=2)
    window = open_window()
    start = window.start_page
    qtbot.waitUntil(lambda: start.notebook_combo.count() == 1, timeout=TIMEOUT_MS)
    assert start.notebook_combo.itemText(0) == "Diary 1998 (1 page)"

    window.intake.add_paths([tmp_path / "Phone"])
    assert start.title_edit.text() == "Phone"  # named after the first folder until changed
    start.clear_sources()
    window.intake.add_paths([tmp_path / "shelf"])
    assert start.title_edit.text() == "shelf"  # the list changed: it follows
    start.title_edit.setText("Box of letters")  # typed by the person: kept from now on
    window.intake.add_paths([tmp_path / "Other"])
    start.clear_sources()
    window.intake.add_paths([tmp_path / "shelf"])
    assert start.title_edit.text() == "Box of letters"
    start.title_edit.setText("shelf")
    start.single_radio.click()
    start.title_edit.clear()
    assert not start.scan_button.isEnabled()
    assert start.hint_label.text() == "Give the new notebook a title."
    qtbot.keyClicks(start.title_edit, "Letters")
    assert start.mode() == AdapterMode(ModeName.SINGLE) and start.title() == "Letters"
    start.into_radio.click()
    assert start.mode() == AdapterMode.into(target) and start.title() is None

    scan_and_validate(qtbot, window)
    plan = window.session.plan
    assert plan is not None
    [item] = plan.items
    assert item.notebook_id == target and item.op == "import_into_notebook"


def test_dropping_is_refused_while_a_commit_runs(
    qtbot: QtBot,
    tmp_path: Path,
    gate: ExecutorGate,
    held_commit: Callable[[int], MainWindow],
) -> None:
    window = held_commit(2)
    with pytest.raises(AssertionError, match="should take folders"):
        drop(window, [tmp_path / "other"])
    assert not window.new_import_action.isEnabled()
    gate.release.set()
    wait_run_end(qtbot, window)
    assert window.new_import_action.isEnabled()
    window.new_import_action.trigger()
    assert window.current_page() is window.start_page and window.start_page.paths() == []


# -- settings, keyboard, accessibility, remembered layout ------------------------------------


def test_settings_dialog_saves_what_the_engine_is_given(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    settings: QSettings,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    window = open_window()
    shown: list[str] = []

    def fill_in(dialog: QDialog) -> int:
        shown.append(dialog.data_dir_note.text())
        dialog.data_dir_edit.setText(str(tmp_path / "elsewhere"))
        dialog.max_side_spin.setValue(1600)
        dialog.policy_combo.setCurrentIndex(1)
        dialog.workers_spin.setValue(1)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(window_dialogs.SettingsDialog, "exec", fill_in)
    window.settings_action.trigger()

    [note] = shown
    assert note.startswith("Applies the next time Transcribe Import starts")
    assert window.import_settings == ImportSettings(
        str(tmp_path / "elsewhere"), 1600, "transcribe.v1.create_duplicate", 1
    )
    assert window.import_settings.render.max_side == 1600
    assert load_settings(settings) == window.import_settings
    assert int(settings.value(MAX_SIDE_KEY)) == 1600
    assert settings.value(POLICY_KEY) == "transcribe.v1.create_duplicate"
    assert int(settings.value(WORKERS_KEY)) == 1
    assert "applies on the next start" in window.statusBar().currentMessage()


def test_the_saved_data_directory_applies_on_the_next_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    settings.setValue("Import/dataDirectory", str(tmp_path / "chosen"))
    monkeypatch.delenv("TRANSCRIBE_DATA_DIR", raising=False)
    default = gui_app.resolve_data_dir(None)
    assert gui_app.chosen_data_dir(default, settings) == tmp_path / "chosen"
    # --data-dir and TRANSCRIBE_DATA_DIR still win.
    assert gui_app.chosen_data_dir(tmp_path / "given", settings) == tmp_path / "given"
    monkeypatch.setenv("TRANSCRIBE_DATA_DIR", str(tmp_path / "env"))
    assert gui_app.chosen_data_dir(default, settings) == default


def test_views_by_keyboard_and_every_control_has_a_name(
    qtbot: QtBot, open_window: Callable[..., MainWindow]
) -> None:
    window = open_window()
    for key, page in (
        (Qt.Key.Key_3, window.corpus_page),
        (Qt.Key.Key_2, window.runs_page),
        (Qt.Key.Key_1, window.start_page),
    ):
        qtbot.keyClick(window, key, Qt.KeyboardModifier.ControlModifier)
        assert window.current_page() is page

    unnamed = []
    for widget in window.findChildren(QWidget):
        if isinstance(widget, QHeaderView) or widget.objectName().startswith("qt_"):
            continue  # Qt's own parts of a view or scroll area, named by their owner
        if widget.window() is not window:
            continue  # a combo box's popup list, named by its combo box
        if isinstance(widget, QAbstractButton):
            named = bool(widget.accessibleName() or widget.text().replace("&", ""))
        elif isinstance(widget, QAbstractItemView | QLineEdit | QComboBox | QAbstractSpinBox):
            # A combo's or spin box's own line edit is named by its owner.
            if isinstance(widget.parent(), QComboBox | QAbstractSpinBox):
                continue
            named = bool(widget.accessibleName())
        else:
            continue
        if not named:
            unnamed.append(f"{type(widget).__name__} {widget.objectName()!r}")
    assert unnamed == []


def test_splitters_and_size_are_remembered(
    qtbot: QtBot, open_window: Callable[..., MainWindow]
) -> None:
    first = open_window()
    assert first.height() == main_window.DEFAULT_SIZE[1]  # its width is cut to the screen
    first.show_section(Section.RUNS)
    first.splitter.setSizes([220, 880])
    first.runs_page.splitter.setSizes([300, 200])
    nav_width = first.splitter.sizes()[0]
    runs_sizes = first.runs_page.splitter.sizes()
    first.close()

    second = open_window()
    second.show_section(Section.RUNS)
    assert second.splitter.sizes()[0] == nav_width
    # The runs view's own splitter keeps its proportion (its height depends on the layout).
    top, bottom = second.runs_page.splitter.sizes()
    assert top / (top + bottom) == pytest.approx(runs_sizes[0] / sum(runs_sizes), abs=0.02)


# -- models ----------------------------------------------------------------------------------


def _outcome_row(i: int, state: ItemState, **kw: Any) -> OutcomeRow:
    return OutcomeRow(
        item_id=f"item-{i}",
        label=f"Notebook {i}",
        op="create_notebook",  # type: ignore[arg-type]
        notebook_id=f"nb-{i}",
        pages_planned=3,
        outcome=ItemOutcome(f"item-{i}", state, f"nb-{i}", page_count=3, **kw),
    )


def test_outcome_model_is_a_well_behaved_qt_model(qtmodeltester) -> None:
    model = OutcomeTableModel()
    qtmodeltester.check(model)
    rows = [
        _outcome_row(0, ItemState.COMMITTED),
        _outcome_row(1, ItemState.SKIPPED, skip_classification=SkipReason.ALL_DUPLICATES),
        _outcome_row(2, ItemState.FAILED, failure_code="source_changed", failure_message="gone"),
        _outcome_row(3, ItemState.CANCELLED_PENDING),
        replace(_outcome_row(4, ItemState.PENDING), started=True),
        _outcome_row(5, ItemState.PENDING),
    ]
    model.set_rows(rows)
    qtmodeltester.check(model)
    assert column_text(model, 2) == [
        "Committed",
        "Skipped",
        "Failed",
        "Cancelled",
        "Importing…",
        "Waiting",
    ]
    assert column_text(model, 3)[1:3] == ["Every file is already in the corpus", "gone"]
    model.update_rows([rows[5].with_outcome(replace(rows[5].outcome, state=ItemState.COMMITTED))])
    assert model.index(5, 0).data(STATE_ROLE) == "committed"
    qtmodeltester.check(model)


def test_run_model_is_a_well_behaved_qt_model(qtmodeltester) -> None:
    model = RunTableModel()
    qtmodeltester.check(model)

    def summary(status: RunStatus, interrupted: bool = False) -> RunSummary:
        return RunSummary(
            f"run-{status}",
            status,
            interrupted,
            "2026-12-02T10:00:00.000000Z",
            "",
            1,
            2,
            1,
            0,
            0,
            6,
            ("/media/scans/box 3",),
        )

    model.set_runs(
        [
            summary(RunStatus.COMPLETE),
            summary(RunStatus.CANCELLED),
            summary(RunStatus.CANCELLED_WITH_COMMITS),
            summary(RunStatus.RUNNING, interrupted=True),
            summary(RunStatus.RUNNING),
        ]
    )
    qtmodeltester.check(model)
    assert column_text(model, 1) == [
        "Complete",
        "Cancelled, nothing committed",
        "Cancelled after some commits",
        "Interrupted, resumable",
        "Running now",
    ]
    assert column_text(model, 7)[0] == "box 3"


def test_events_are_applied_in_time_budgeted_batches(qtbot: QtBot, corpus: Corpus) -> None:
    """A burst of outcomes is applied a batch per turn of the event loop, never all at once."""
    page = commit_page_module.CommitPage(corpus)
    qtbot.addWidget(page)
    rows = [_outcome_row(i, ItemState.PENDING) for i in range(3000)]
    page.model.set_rows(rows)
    page._pages_total = 9000
    for i, row in enumerate(rows):
        outcome = replace(row.outcome, state=ItemState.COMMITTED)
        page._backlog.append(
            commit_page_module.RunEvent(
                EventKind.ITEM_FINISHED, "run", row.item_id, outcome, 3 * (i + 1), 9000
            )
        )
    slow = commit_page_module.BATCH_BUDGET_S
    commit_page_module.BATCH_BUDGET_S = 0.002  # tiny batches, so several turns are needed
    try:
        page._apply_backlog()
        assert page._backlog  # not everything in one turn
        qtbot.waitUntil(lambda: not page._backlog, timeout=TIMEOUT_MS)
    finally:
        commit_page_module.BATCH_BUDGET_S = slow
    assert page.batches_applied > 1
    assert outcome_states(page.model) == ["committed"] * 3000
    assert page.progress_bar.value() == 9000


def test_a_retried_plan_that_no_longer_validates_lists_the_engines_words(
    qtbot: QtBot, corpus: Corpus, tmp_path: Path
) -> None:
    """The commit page's error list is the engine's messages as they are (files by rel)."""
    for name in ("one", "two"):
        make_jpeg(tmp_path / "shelf" / name / "p1.jpg", label=f"{name} 1")
        make_jpeg(tmp_path / "shelf" / name / "p2.jpg", label=f"{name} 2")
    plan = build_plan(corpus, run_scan([tmp_path / "shelf"]))
    (tmp_path / "shelf" / "one" / "p1.jpg").unlink()
    make_jpeg(tmp_path / "shelf" / "two" / "p2.jpg", label="changed", size=(330, 440))
    report = validate_plan(corpus, plan)
    assert [p.files for p in report.errors] == [("shelf/one/p1.jpg",), ("shelf/two/p2.jpg",)]
    page = commit_page_module.CommitPage(corpus)
    qtbot.addWidget(page)
    page._retrying = True  # the ended run's plan is told here, not sent back to review
    page._invalid(report)
    lines = page.summary_label.text().split("\n")[1:]
    assert lines == [p.message for p in report.errors]
    assert lines[0].startswith("shelf/one/p1.jpg is missing")


def test_the_outcome_list_follows_the_work_and_the_bar_names_failures(
    qtbot: QtBot, corpus: Corpus
) -> None:
    """Each notebook as it starts, or as a checkpoint of it lands, is selected and scrolled
    to, until the person picks a row; failed pages leave the bar short and are named."""
    page = commit_page_module.CommitPage(corpus)
    qtbot.addWidget(page)
    page.resize(900, 500)
    page.show()
    rows = [_outcome_row(i, ItemState.PENDING) for i in range(400)]
    rows = [replace(r, outcome=replace(r.outcome, page_count=0)) for r in rows]
    page.model.set_rows(rows)

    def event(kind: EventKind, i: int, outcome: ItemOutcome | None = None) -> None:
        page._backlog.append(commit_page_module.RunEvent(kind, "run", f"item-{i}", outcome))
        page._apply_backlog()
        QApplication.processEvents()

    def selected() -> int:
        [index] = page.table.selectionModel().selectedRows()
        return index.row()

    def in_view(row: int) -> bool:
        return 0 <= page.table.rowViewportPosition(row) < page.table.viewport().height()

    landed = replace(rows[300].outcome, pages_landed=2)
    event(EventKind.ITEM_STARTED, 300)
    assert selected() == 300 and in_view(300)
    event(EventKind.PAGES_LANDED, 300, landed)
    assert column_text(page.model, 3)[300] == "2 of 3 pages landed so far"
    # The next checkpoint's pages are told as they are staged, then as they land.
    page._backlog.append(
        commit_page_module.RunEvent(
            EventKind.PAGES_STAGED, "run", "item-300", landed, pages_staged=1
        )
    )
    page._apply_backlog()
    assert column_text(page.model, 3)[300] == "2 of 3 pages landed so far, 1 more being saved"
    assert page.progress_bar.value() == 2  # the bar counts only what landed
    event(EventKind.PAGES_LANDED, 300, landed)
    assert column_text(page.model, 3)[300] == "2 of 3 pages landed so far"
    assert page.progress_bar.value() == 2
    assert page.progress_bar.text() == "2 of 1200 pages landed"

    failed = replace(rows[10].outcome, state=ItemState.FAILED, failure_message="p1.png is gone")
    event(EventKind.ITEM_STARTED, 10)
    assert selected() == 10 and in_view(10)
    event(EventKind.ITEM_FINISHED, 10, failed)
    done = replace(rows[300].outcome, state=ItemState.COMMITTED, page_count=3, pages_landed=3)
    event(EventKind.ITEM_FINISHED, 300, done)
    assert page.progress_bar.value() == 3  # the failed pages never fill it
    assert (
        page.progress_bar.text() == "3 of 1200 pages landed, 3 not landed (their notebook failed)"
    )

    # The person picks a row: the list stays there while the work goes on.
    page.table.selectRow(5)
    event(EventKind.ITEM_STARTED, 350)
    assert selected() == 5 and not page.is_following()


def test_a_quarantined_journal_is_told_on_the_start_view(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    make_notebook: Callable[..., str],
) -> None:
    notebook_id = make_notebook("Lab book", pages=1)
    (corpus.notebook_dir(notebook_id) / ".ingest-journal.json").write_bytes(b"{not json")

    window = open_window()

    start = window.start_page
    assert start.notices.isVisibleTo(window)
    [text] = start.notice_texts()
    assert "Doctor moved an unreadable file to quarantine." in text and notebook_id in text
    [show] = start.notice_buttons("Show Corpus Health")
    show.click()
    assert window.current_page() is window.corpus_page
    assert window.corpus_page.findings_view.rowCount() >= 1


def test_an_interrupted_run_can_be_cancelled_from_the_runs_view(
    qtbot: QtBot,
    corpus: Corpus,
    gate: ExecutorGate,
    held_commit: Callable[[int], MainWindow],
) -> None:
    window = held_commit(3)
    window.commit_page.pause_button.click()
    gate.release.set()
    wait_run_end(qtbot, window)

    window.commit_page.show_run_button.click()
    runs = window.runs_page
    qtbot.waitUntil(lambda: runs.cancel_run_button.isEnabled(), timeout=TIMEOUT_MS)
    seen: list[str] = []
    click_in_next_box("Cancel Run", seen)
    runs.cancel_run_button.click()
    assert "Every page already in the corpus stays" in seen[0]
    qtbot.waitUntil(
        lambda: (
            runs.model.rowCount() == 1
            and runs.model.index(0, 1).data() == "Cancelled after some commits"
        ),
        timeout=TIMEOUT_MS,
    )
    qtbot.waitUntil(
        lambda: outcome_states(runs.detail_model) == ["committed"] + ["cancelled_pending"] * 2,
        timeout=TIMEOUT_MS,
    )
    assert not runs.resume_button.isEnabled()
    [record] = RunStore(corpus).list_runs()
    assert record.status is RunStatus.CANCELLED_WITH_COMMITS
    qtbot.waitUntil(lambda: not window.start_page.interrupted_runs(), timeout=TIMEOUT_MS)


def test_closing_during_a_scan_stops_it(
    qtbot: QtBot, open_window: Callable[..., MainWindow], tmp_path: Path, monkeypatch
) -> None:
    make_png_shelf(tmp_path / "shelf", notebooks=2)
    hold = ScanHold(monkeypatch)
    real_stop = workers_module.ScanWorker.stop

    def stop_then_move_on(worker: workers_module.ScanWorker) -> None:
        # The scan notices the stop once it moves on: let it, as soon as close() has asked.
        real_stop(worker)
        hold.release.set()

    monkeypatch.setattr(workers_module.ScanWorker, "stop", stop_then_move_on)
    window = open_window()
    drop(window, [tmp_path / "shelf"])
    window.flow.start_scan()
    qtbot.waitUntil(hold.held.is_set, timeout=TIMEOUT_MS)

    assert window.close()

    assert running_workers() == []
    assert window.session.plan is None


# -- checkpoints: a big notebook lands a few dozen pages at a time ---------------------------


def test_the_bar_counts_pages_as_they_land_and_a_cancel_half_way_keeps_them(
    qtbot: QtBot,
    corpus: Corpus,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    importing: Callable[..., MainWindow],
) -> None:
    """One 70-page notebook: held after its first checkpoint, the bar shows its 32 pages;
    cancelled there, the run is `cancelled` (no notebook finished), and the words say the 32
    pages stay instead of "the corpus is unchanged"."""
    from transcribe_import.engine.ingest.checkpoints import CHECKPOINT_PAGES

    make_png_shelf(tmp_path / "shelf", notebooks=1, pages=70)
    checkpoint = ExecutorGate(monkeypatch, at=EventKind.PAGES_LANDED)
    try:
        window = importing(tmp_path / "shelf")
        page = window.commit_page
        qtbot.waitUntil(lambda: page.progress_bar.value() == CHECKPOINT_PAGES, timeout=TIMEOUT_MS)
        assert page.progress_bar.maximum() == 70
        seen: list[str] = []
        click_in_next_box("Stop, Keep What Landed", seen)
        page.cancel_button.click()
    finally:
        checkpoint.release.set()
    wait_run_end(qtbot, window)

    [run] = RunStore(corpus).list_runs()
    assert run.status is RunStatus.CANCELLED
    assert page.headline.text() == "Cancelled, some pages kept"
    summary = page.summary_label.text()
    assert "unchanged" not in summary and f"{CHECKPOINT_PAGES} pages landed" in summary
    [nb] = corpus.list_notebooks()
    assert nb.page_count == CHECKPOINT_PAGES
    assert f"{CHECKPOINT_PAGES} pages of it landed" in column_text(page.model, 3)[0]


def test_files_the_plan_leaves_out_are_listed_with_their_reasons(
    tmp_path: Path,
    importing: Callable[..., MainWindow],
) -> None:
    folder = tmp_path / "shelf" / "Letters"
    make_jpeg(folder / "page 3.jpg", label="3")
    (folder / "page 1.bmp").write_bytes(b"BM" + b"\0" * 60)
    (folder / "notes.txt").write_text("who wrote these?")
    (folder / "page 2.jpg").write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    make_jpeg(tmp_path / "shelf" / "Diary" / "page 1.jpg", label="d1")
    window = importing(tmp_path / "shelf", workers=None, commit=False)

    review = window.review_page
    rows = {r.rel: r for r in review.not_imported()}
    # The notebooks list counts them per notebook; a notebook with none says nothing.
    items = review.items_model
    assert not review.items_view.isColumnHidden(ItemColumn.NOT_IMPORTED)
    counts = {
        items.item_at(r).label: items.index(r, ItemColumn.NOT_IMPORTED).data()
        for r in range(items.rowCount())
    }
    assert counts == {"Letters": str(len(rows)), "Diary": ""}
    letters = items.index(
        next(r for r in range(items.rowCount()) if items.item_at(r).label == "Letters"),
        ItemColumn.NOT_IMPORTED,
    )
    tip = letters.data(Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith(f"{len(rows)} files found beside these pages are not imported:")
    assert "notes.txt" in tip and "The Not imported list says why." in tip
    header = (Qt.Orientation.Horizontal, Qt.ItemDataRole.AccessibleTextRole)
    assert items.headerData(ItemColumn.NOT_IMPORTED, *header) == "Not imported"
    assert {
        "shelf/Letters/page 1.bmp",
        "shelf/Letters/notes.txt",
        "shelf/Letters/page 2.jpg",
    } <= set(rows)
    assert review.not_imported_box.isVisible()
    view = review.not_imported_view
    shown = {view.item(r, 0).text(): view.item(r, 1).text() for r in range(view.rowCount())}
    assert set(shown) == set(rows) and all(shown.values())  # every file has its reason
    assert {view.item(r, 2).text() for r in range(view.rowCount())} == {"Letters"}
    assert f"{len(rows)} files found" in review.not_imported_label.text()


def test_the_notebooks_list_shows_no_column_that_says_nothing(
    tmp_path: Path,
    importing: Callable[..., MainWindow],
) -> None:
    window = importing(make_png_shelf(tmp_path / "shelf", notebooks=2), workers=None, commit=False)
    review = window.review_page
    # Every notebook is a new one and the scan left nothing out: the names get the room.
    assert review.items_view.isColumnHidden(ItemColumn.ACTION)
    assert review.items_view.isColumnHidden(ItemColumn.NOT_IMPORTED)
    tip = review.items_model.index(0, ItemColumn.NOTEBOOK).data(Qt.ItemDataRole.ToolTipRole)
    assert "Creates a new notebook" in tip
    assert all(it.notebook_id not in tip for it in window.session.plan.items)  # no id (#34)
    # No file of several pages, no capture time: neither column takes room in the pages.
    assert review.page_view.isColumnHidden(PageColumn.SOURCE_PAGE)
    assert review.page_view.isColumnHidden(PageColumn.CAPTURED)
    assert not review.not_imported_box.isVisible()


def test_a_scan_that_finds_nothing_to_import_cannot_be_committed_and_says_why(
    tmp_path: Path,
    importing: Callable[..., MainWindow],
) -> None:
    folder = tmp_path / "shelf" / "Box 3"
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("nothing scanned yet")
    window = importing(tmp_path / "shelf", workers=None, commit=False)

    review = window.review_page
    assert not review.can_commit() and not review.commit_button.isEnabled()
    assert "Nothing to import" in review.problems_summary.text()
    assert "ready to commit" not in review.problems_summary.text()
    assert [r.rel for r in review.not_imported()] == ["shelf/Box 3/notes.txt"]


def test_the_review_is_kept_as_a_draft_and_offered_back_after_a_restart(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    from transcribe_import.engine import api

    make_png_shelf(tmp_path / "shelf", notebooks=2, pages=3)
    first = open_window()
    drop(first, [tmp_path / "shelf"])
    scan_and_validate(qtbot, first)
    review = first.review_page
    plan = first.session.plan
    assert plan is not None
    item = plan.items[0]
    review.select_item(item.item_id)
    review.page_view.selectRow(1)
    review.exclude_action.trigger()  # a decision a person made
    edited = first.session.plan
    assert edited is not None and edited.fingerprint != plan.fingerprint
    first.close()  # at once, before the draft's own timer: the close keeps the last edit

    kept = corpus.runs_dir / "drafts" / f"{plan.plan_id}.json"
    assert kept.is_file()
    second = open_window()
    qtbot.waitUntil(lambda: second.start_page.drafts() != [], timeout=TIMEOUT_MS)  # read off-thread
    [draft] = second.start_page.drafts()
    assert draft.plan_id == plan.plan_id and draft.notebooks == 2 and draft.pages == 5
    assert any("A review was not finished" in t for t in second.start_page.notice_texts())
    continue_kept_review(qtbot, second)
    assert second.current_page() is second.review_page
    restored = second.session.plan
    assert restored is not None and restored.fingerprint == edited.fingerprint
    wait_validated(qtbot, second)

    # Committing it drops the draft (the run holds the plan now): nothing offered again.
    commit(qtbot, second)
    wait_run_end(qtbot, second)
    assert not kept.exists() and api.list_drafts(corpus) == []
    qtbot.waitUntil(lambda: second.start_page.drafts() == [], timeout=TIMEOUT_MS)


def continue_kept_review(qtbot: QtBot, window: MainWindow) -> None:
    """Click Continue Review once the kept reviews are listed; return once it is under review
    (both the listing and the plan are read on workers)."""
    offered = lambda: window.start_page.notice_buttons("Continue Review")  # noqa: E731
    qtbot.waitUntil(lambda: offered() != [], timeout=TIMEOUT_MS)
    [button] = offered()
    with qtbot.waitSignal(window.flow.plan_opened, timeout=TIMEOUT_MS):
        button.click()


def test_a_kept_review_can_be_discarded(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    from transcribe_import.engine import api
    from transcribe_import.engine.planning.planner import build_plan
    from transcribe_import.engine.planning.scan import run_scan

    plan = build_plan(corpus, run_scan([make_png_shelf(tmp_path / "shelf", notebooks=1)]))
    api.save_draft(corpus, plan)
    window = open_window()
    qtbot.waitUntil(lambda: window.start_page.notice_buttons("Discard") != [], timeout=TIMEOUT_MS)
    [button] = window.start_page.notice_buttons("Discard")
    button.click()
    assert api.list_drafts(corpus) == []
    qtbot.waitUntil(lambda: window.start_page.drafts() == [], timeout=TIMEOUT_MS)


def test_quitting_with_decisions_in_no_plan_file_asks_and_says_the_draft_keeps_them(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    importing: Callable[..., MainWindow],
) -> None:
    monkeypatch.setattr(import_flow, "ask_unsaved_review", ask_unsaved_review)  # the real box
    window = importing(
        make_png_shelf(tmp_path / "shelf", notebooks=2, pages=3), workers=None, commit=False
    )
    plan = window.session.plan
    assert plan is not None
    draft = corpus.runs_dir / "drafts" / f"{plan.plan_id}.json"
    review = window.review_page
    review.page_view.selectRow(1)
    review.exclude_action.trigger()  # a decision, in no plan file yet
    edited = window.session.plan
    assert edited is not None

    # Ctrl+Q, then Cancel: the window stays, with the review as it was.
    seen: list[str] = []
    assert window.quit_action.shortcut().toString() == "Ctrl+Q"
    click_in_next_box("Cancel", seen)
    window.quit_action.trigger()
    [words] = seen
    assert words.startswith("The review has decisions that are in no plan file yet.")
    assert "kept as a draft" in words and "Continue Review" in words
    assert window.isVisible() and window.session.plan is edited
    # What it says is so: the draft holds the decision already.
    assert load_plan(draft).fingerprint == edited.fingerprint

    # Save Plan As…, then Cancel in the file dialog: still open.
    chosen: list[str] = [""]
    monkeypatch.setattr(dialogs.QFileDialog, "getSaveFileName", lambda *_a, **_k: (chosen[0], ""))
    click_in_next_box("Save Plan As…", seen)
    assert not window.close()  # the close button
    assert len(seen) == 2 and window.isVisible()

    # Save Plan As… into a file: written as the CLI reads it, and the window closes.
    chosen[0] = str(tmp_path / "reviewed.json")
    click_in_next_box("Save Plan As…", seen)
    assert window.close()
    assert len(seen) == 3 and not window.isVisible()
    assert load_plan(tmp_path / "reviewed.json").fingerprint == edited.fingerprint

    # Offered back; with no new decision the window closes unasked.
    second = open_window()
    continue_kept_review(qtbot, second)
    assert second.session.plan is not None
    assert second.session.plan.fingerprint == edited.fingerprint
    assert second.close() and len(seen) == 3

    # A decision after the save is asked about again; quitting keeps it in the draft.
    third = open_window()
    continue_kept_review(qtbot, third)
    third.review_page.page_view.selectRow(2)
    third.review_page.exclude_action.trigger()
    latest = third.session.plan
    assert latest is not None and latest.fingerprint != edited.fingerprint
    click_in_next_box("Quit, Keep the Draft", seen)
    assert third.close()
    assert len(seen) == 4
    assert load_plan(draft).fingerprint == latest.fingerprint


def test_the_quit_question_says_so_when_the_draft_cannot_be_written(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    importing: Callable[..., MainWindow],
) -> None:
    monkeypatch.setattr(import_flow, "ask_unsaved_review", ask_unsaved_review)
    window = importing(make_png_shelf(tmp_path / "shelf", notebooks=1), workers=None, commit=False)

    def full(_corpus: Corpus, _plan: object) -> None:
        raise OSError(28, "No space left on device", str(tmp_path / "drafts"))

    monkeypatch.setattr(import_flow.api, "save_draft", full)
    window.review_page.page_view.selectRow(0)
    window.review_page.exclude_action.trigger()
    seen: list[str] = []
    click_in_next_box("Cancel", seen)
    assert not window.close()
    [words] = seen
    assert "could not be kept as a draft" in words and "No space left" in words
    assert "quitting now loses them" in words
    click_in_next_box("Quit Without Saving", seen)
    assert window.close()


def test_a_review_with_no_decision_quits_without_a_question(
    corpus: Corpus,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    importing: Callable[..., MainWindow],
) -> None:
    asked: list[str | None] = []
    monkeypatch.setattr(
        import_flow, "ask_unsaved_review", lambda _p, problem: asked.append(problem) or "cancel"
    )
    window = importing(make_png_shelf(tmp_path / "shelf", notebooks=1), workers=None, commit=False)
    window.review_page.page_view.selectRow(0)
    window.review_page.exclude_action.trigger()
    window.review_page.undo_action.trigger()  # back where the scan left it
    assert window.close() and asked == []
    plan = window.session.plan
    assert plan is not None and [d.plan_id for d in list_drafts(corpus)] == [plan.plan_id]


def test_save_plan_writes_what_the_cli_validates_and_open_plan_reads_it_back(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    from helpers.cli import cli_json

    make_png_shelf(tmp_path / "shelf", notebooks=1, pages=3)
    window = open_window()
    assert not window.save_plan_action.isEnabled()  # nothing under review yet
    drop(window, [tmp_path / "shelf"])
    scan_and_validate(qtbot, window)
    plan = window.session.plan
    assert plan is not None and window.save_plan_action.isEnabled()
    saved = tmp_path / "out" / "plan.json"
    saved.parent.mkdir()
    assert window.flow.save_plan(saved)
    report = cli_json(corpus.data_dir, "validate", str(saved), "--json")
    assert report["valid"] and report["plan_fingerprint"] == plan.fingerprint

    window.flow.new_import()
    assert window.session.plan is None
    with qtbot.waitSignal(window.flow.plan_opened, timeout=TIMEOUT_MS):
        assert window.flow.open_plan(saved)  # read on a worker: the window stays responsive
    assert window.current_page() is window.review_page
    reopened = window.session.plan
    assert reopened is not None and reopened.fingerprint == plan.fingerprint
    # A file that is not a plan is refused in words, and the review stays as it was.
    junk = tmp_path / "junk.json"
    junk.write_text("{}")
    assert window.flow.open_plan(junk)
    qtbot.waitUntil(lambda: "junk.json" in window.statusBar().currentMessage(), timeout=TIMEOUT_MS)
    assert window.session.plan is reopened and window.current_page() is window.review_page
