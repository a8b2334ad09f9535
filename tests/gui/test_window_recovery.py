"""Issue 13 through the real window: mnemonics and focus, Retry What Did Not Land, the words
and states of runs, the Corpus view kept fresh, and Settings' corpus-wide duplicate check."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale, QSettings, Qt
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)
from pytestqt.qtbot import QtBot

from transcribe_import.engine.planning.plan import AdapterMode, DedupeScope
from transcribe_import.engine.runs.store import RunStatus, RunStore
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow, Section
from transcribe_import.gui.models.base import STATE_ROLE
from transcribe_import.gui.models.notebooks import NotebookColumn
from transcribe_import.gui.pages import runs as runs_page
from transcribe_import.gui.settings_dialog import DEDUPE_CORPUS_KEY, SettingsDialog
from transcribe_import.gui.values import PlanItemState, RunDetail
from transcribe_import.gui.workers import load_run

from helpers.runs import imported_diary
from helpers.shelves import make_png_shelf
from helpers.window import (
    TIMEOUT_MS,
    ExecutorGate,
    assert_no_clash,
    commit,
    item_state,
    mnemonic_clashes,
    mnemonic_letters,
    scan,
    wait_run_end,
    wait_validated,
    when_modal_opens,
)

# -- mnemonics and focus (finding 9) ---------------------------------------------------------


def test_the_mnemonic_check_finds_a_clash(qtbot: QtBot) -> None:
    """The check itself: two visible buttons with one Alt letter are reported."""
    top = QWidget()
    qtbot.addWidget(top)
    layout = QVBoxLayout(top)
    layout.addWidget(QPushButton("&Resume"))
    layout.addWidget(QPushButton("Show in &Runs"))
    top.show()
    assert mnemonic_clashes(top) == {"r": ["&Resume", "Show in &Runs"]}


def test_no_two_visible_controls_share_an_alt_letter_on_any_page(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    tmp_path: Path,
    gate: ExecutorGate,
    settings: QSettings,
) -> None:
    make_png_shelf(tmp_path / "shelf", notebooks=3)
    (tmp_path / "shelf" / "Notebook 01" / "notes.txt").write_text("a file left out")
    window = open_window(workers=1)
    assert_no_clash(window, "start, empty")
    # Every menu's own items, each menu alone.
    for action in window.menuBar().actions():
        menu = action.menu()
        assert isinstance(menu, QMenu)
        letters = mnemonic_letters([item.text() for item in menu.actions()])
        assert {k: v for k, v in letters.items() if len(v) > 1} == {}, action.text()

    scan(qtbot, window, tmp_path / "shelf")
    assert window.review_page.not_imported_box.isVisible()  # its label has a letter too
    assert_no_clash(window, "review")
    # Folders dropped while reviewing: the start page with its list and Back to Review.
    window.intake.add_paths([tmp_path / "shelf" / "Notebook 01"])
    assert window.start_page.review_button.isVisible()
    assert_no_clash(window, "start, with sources and a plan waiting")
    window.show_import_page(window.review_page)

    commit(qtbot, window)
    qtbot.waitUntil(lambda: gate.reached.is_set(), timeout=TIMEOUT_MS)
    assert_no_clash(window, "commit, running")
    window.commit_page.pause_button.click()
    gate.release.set()
    wait_run_end(qtbot, window)
    assert window.commit_page.resume_button.isVisible()
    assert window.commit_page.show_run_button.isVisible()
    assert_no_clash(window, "commit, paused")

    window.show_section(Section.CORPUS)
    assert_no_clash(window, "corpus")
    # The Runs view's buttons follow its list, which is read again on each visit.
    with qtbot.waitSignal(window.runs_page.listed, timeout=TIMEOUT_MS):
        window.show_section(Section.RUNS)
    assert_no_clash(window, "runs")

    dialog = SettingsDialog(window.import_settings, window.corpus.data_dir, window)
    qtbot.addWidget(dialog)
    dialog.show()
    QApplication.processEvents()
    assert mnemonic_clashes(dialog) == {}


def test_choosing_one_new_notebook_puts_the_typing_in_its_title(
    qtbot: QtBot, open_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    window = open_window(workers=1)
    window.intake.add_paths([make_png_shelf(tmp_path / "shelf", notebooks=1)])
    start = window.start_page
    window.activateWindow()
    qtbot.mouseClick(start.single_radio, Qt.MouseButton.LeftButton)
    assert start.single_radio.isChecked()
    assert start.title_edit.hasFocus() or QApplication.focusWidget() is start.title_edit
    qtbot.keyClicks(QApplication.focusWidget(), "Diary 1998")
    assert start.title_edit.text() == "Diary 1998"
    assert start.title() == "Diary 1998"


# -- retry what did not land (finding 3) -----------------------------------------------------


def test_a_partial_run_is_retried_with_a_button_and_no_page_is_doubled(
    qtbot: QtBot,
    corpus: Corpus,
    tmp_path: Path,
    gated_import: Callable[..., tuple[MainWindow, ExecutorGate]],
) -> None:
    shelf = make_png_shelf(tmp_path / "shelf", notebooks=3)
    window, gate = gated_import(shelf)
    # While the first notebook has landed, a page file of another goes away (an unplugged
    # drive): that notebook fails, the others land.
    [missing] = [
        shelf / f"Notebook 0{n}" / "p1.png"
        for n in (1, 2, 3)
        if f"Notebook 0{n}" not in {nb.title for nb in corpus.list_notebooks()}
    ][:1]
    aside = tmp_path / "aside.png"
    missing.rename(aside)
    gate.release.set()
    wait_run_end(qtbot, window)

    page = window.commit_page
    assert page.result is not None and page.result.status is RunStatus.PARTIAL
    assert page.headline.text() == "Partly imported"
    assert "Retry What Did Not Land" in page.summary_label.text()
    assert page.retry_button.isVisible() and page.retry_button.isEnabled()
    assert not page.resume_button.isVisible()
    # The bar does not end full: its words name the pages that failed.
    assert page.progress_bar.text() == "4 of 6 pages landed, 2 not landed (their notebook failed)"
    assert page.progress_bar.value() == 4 and page.progress_bar.maximum() == 6
    assert page.rate_label.text().startswith("4 pages in ")  # what went in, not what failed
    # The list followed the work to its end: the notebook that failed is the one shown.
    [shown] = page.table.selectionModel().selectedRows()
    assert shown.data(STATE_ROLE) == "failed"
    first_run = page.run_id
    assert first_run is not None and first_run not in page.summary_label.text()
    assert sum(nb.page_count or 0 for nb in corpus.list_notebooks()) == 4

    aside.rename(missing)  # the drive is back: same bytes, same size and time
    qtbot.mouseClick(page.retry_button, Qt.MouseButton.LeftButton)
    assert window.current_page() is page
    wait_run_end(qtbot, window)

    assert page.result is not None and page.result.status is RunStatus.COMPLETE
    assert page.run_id != first_run
    notebooks = corpus.list_notebooks()
    assert sorted(nb.title for nb in notebooks) == ["Notebook 01", "Notebook 02", "Notebook 03"]
    assert sum(nb.page_count or 0 for nb in notebooks) == 6  # every page exactly once
    runs = {r.run_id: r for r in RunStore(corpus).list_runs()}
    assert runs[page.run_id].doc["history"][0].get("retry_of") == first_run
    # The status bar and the Corpus view follow: three notebooks, checked again.
    qtbot.waitUntil(lambda: window.notebook_count_label.text() == "3 notebooks", timeout=TIMEOUT_MS)
    qtbot.waitUntil(lambda: not window.health.is_checking(), timeout=TIMEOUT_MS)
    assert "3 notebooks checked" in window.corpus_page.health_summary.text()

    # The Runs view offers the same button for the partial run; retrying it again finds the
    # plan already imported and imports nothing.
    window.show_section(Section.RUNS)
    runs_page = window.runs_page
    qtbot.waitUntil(lambda: runs_page.model.rowCount() == 2, timeout=TIMEOUT_MS)
    runs_page.select_run(first_run)
    assert runs_page.retry_button.isVisible() and runs_page.retry_button.isEnabled()
    assert not runs_page.resume_button.isVisible()
    qtbot.mouseClick(runs_page.retry_button, Qt.MouseButton.LeftButton)
    wait_run_end(qtbot, window)
    assert page.headline.text() == "Already imported"
    assert sum(nb.page_count or 0 for nb in corpus.list_notebooks()) == 6


def test_a_retry_refused_for_a_file_still_gone_offers_scan_again(
    qtbot: QtBot,
    corpus: Corpus,
    tmp_path: Path,
    gated_import: Callable[..., tuple[MainWindow, ExecutorGate]],
) -> None:
    """The page file stays gone: Retry is refused (the plan no longer validates) and says
    so; Scan Again reviews the folders as they are now: the notebook that landed reads
    Already imported, the one that failed (none of it landed) is ready without its page."""
    shelf = make_png_shelf(tmp_path / "shelf", notebooks=2, pages=3)
    window, gate = gated_import(shelf)
    landed = {nb.title for nb in corpus.list_notebooks()}
    [other] = [n for n in ("Notebook 01", "Notebook 02") if n not in landed]
    (shelf / other / "p3.png").unlink()
    gate.release.set()
    wait_run_end(qtbot, window)
    page = window.commit_page
    assert page.result is not None and page.result.status is RunStatus.PARTIAL
    retried = page.result.run_id

    qtbot.mouseClick(page.retry_button, Qt.MouseButton.LeftButton)
    # The refusal comes first, the worker's end (its buttons) just after: wait for both.
    qtbot.waitUntil(
        lambda: page.scan_again_button.isVisible() and page.show_run_button.isVisible(),
        timeout=TIMEOUT_MS,
    )
    assert page.headline.text() == "The plan needs another look"
    assert "Scan Again: what is imported already is recognised" in page.summary_label.text()
    # Nothing was attempted: no empty outcome list, no bar at 0 %.
    assert not page.table.isVisible() and not page.progress_bar.isVisible()
    assert_no_clash(window, "a retry refused")
    # The retry made no run; Show in Runs shows the run it was of, which is in Runs.
    assert page.show_run_button.isVisible() and page.show_run_button.isEnabled()
    qtbot.mouseClick(page.show_run_button, Qt.MouseButton.LeftButton)
    assert window.current_page() is window.runs_page
    qtbot.waitUntil(lambda: window.runs_page.selected_run_id() == retried, timeout=TIMEOUT_MS)
    window.show_import_page(page)

    qtbot.mouseClick(page.scan_again_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.current_page() is window.review_page, timeout=TIMEOUT_MS)
    wait_validated(qtbot, window)
    states = {
        it.label: item_state(qtbot, window.review_page.items_model, it.item_id)
        for it in window.session.plan.items
    }
    [whole] = landed
    assert states == {whole: PlanItemState.ALREADY_IMPORTED, other: PlanItemState.READY}
    [again] = [it for it in window.session.plan.items if it.label == other]
    assert again.imported_page_count() == 2
    # The next commit shows its outcomes again.
    commit(qtbot, window)
    assert page.table.isVisible() and page.progress_bar.isVisible()
    wait_run_end(qtbot, window)


def test_pause_reads_apart_from_a_crash_and_cancel_works_from_runs(
    qtbot: QtBot,
    tmp_path: Path,
    gated_import: Callable[..., tuple[MainWindow, ExecutorGate]],
) -> None:
    window, gate = gated_import(make_png_shelf(tmp_path / "shelf", notebooks=3))

    try:
        # While it runs, the Runs view says it runs, and Cancel there is the commit's own Cancel.
        window.show_section(Section.RUNS)
        runs = window.runs_page
        qtbot.waitUntil(lambda: runs.model.rowCount() == 1, timeout=TIMEOUT_MS)
        runs.table.selectRow(0)
        assert runs.model.index(0, 1).data() == "Running now"
        qtbot.waitUntil(lambda: "Running now" in runs.detail_label.text(), timeout=TIMEOUT_MS)
        assert "stopped before its end" not in runs.detail_label.text()
        assert "is running" in runs.detail_label.text()
        assert runs.cancel_run_button.isEnabled()
        assert not runs.resume_button.isEnabled()
        asked: list[str] = []

        def keep_importing(box: QWidget) -> None:
            asked.append(box.windowTitle())
            assert isinstance(box, QDialog)
            box.reject()

        when_modal_opens(QWidget, keep_importing)
        runs.cancel_run_button.click()
        assert asked == ["Stop Import"]
        assert window.commit_page.is_running()
    finally:
        window.commit_page.pause()
        gate.release.set()
        wait_run_end(qtbot, window)
    runs.refresh()
    qtbot.waitUntil(
        lambda: runs.model.rowCount() == 1 and not runs._lists.is_busy(), timeout=TIMEOUT_MS
    )
    window.show_section(Section.RUNS)
    runs.table.selectRow(0)
    assert runs.model.index(0, 1).data() == "Paused, resumable"
    assert "paused" in runs.detail_label.text()
    assert runs.resume_button.isEnabled() and runs.cancel_run_button.isEnabled()
    qtbot.waitUntil(lambda: bool(window.start_page.notice_texts()), timeout=TIMEOUT_MS)
    notices = window.start_page.notice_texts()
    assert any("An import is paused" in n for n in notices)


def test_an_older_load_of_a_run_never_overwrites_what_a_newer_listing_says(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A run read while it was still running (its load held here) comes back after a newer
    listing has selected the same run again: the detail says what the newer listing says."""
    imported_diary(corpus, tmp_path / "shelf")
    held = threading.Event()
    loads: list[str] = []

    def load(corpus: Corpus, run_id: str) -> RunDetail:
        detail = load_run(corpus, run_id)
        loads.append(run_id)
        if len(loads) == 1:
            assert held.wait(TIMEOUT_MS / 1000)
            # As it read before the run ended: running, and nobody holding it.
            return replace(
                detail,
                summary=replace(detail.summary, status=RunStatus.RUNNING, interrupted=True),
            )
        return detail

    monkeypatch.setattr(runs_page, "load_run", load)
    window = open_window()
    try:
        window.show_section(Section.RUNS)
        runs = window.runs_page
        qtbot.waitUntil(lambda: len(loads) == 1, timeout=TIMEOUT_MS)
        runs.refresh()
        qtbot.waitUntil(runs._details.superseded, timeout=TIMEOUT_MS)
    finally:
        held.set()
    with qtbot.waitSignal(runs.detail_shown, timeout=TIMEOUT_MS):
        pass
    assert len(loads) == 2
    assert runs.model.index(0, 1).data() == "Complete"
    assert runs.detail_label.text().startswith("<b>Complete</b>")


# -- the Corpus view (finding 10) ------------------------------------------------------------


@pytest.mark.slow
def test_the_corpus_view_searches_and_sorts_many_notebooks(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    make_notebook: Callable[..., str],
) -> None:
    for i in range(1500):
        corpus.create_notebook(f"{i:08x}-0000-4000-8000-000000000000", f"Box {i:04}")
    make_notebook("Letters to Margit")
    window = open_window(workers=1)
    window.show_section(Section.CORPUS)
    page = window.corpus_page
    table = page.notebook_table
    qtbot.waitUntil(lambda: table.model().rowCount() == 1501, timeout=TIMEOUT_MS)
    assert window.notebook_count_label.text() == "1501 notebooks"

    qtbot.keyClicks(page.search_edit, "margit")
    assert table.model().rowCount() == 1
    assert table.model().index(0, NotebookColumn.TITLE).data() == "Letters to Margit"
    assert page.shown_label.text() == f"1 of {QLocale().toString(1501)} shown"
    page.search_edit.clear()
    assert table.model().rowCount() == 1501 and page.shown_label.text() == ""

    table.sortByColumn(NotebookColumn.TITLE, Qt.SortOrder.DescendingOrder)
    assert table.model().index(0, NotebookColumn.TITLE).data() == "Letters to Margit"
    table.sortByColumn(NotebookColumn.CREATED, Qt.SortOrder.DescendingOrder)
    assert table.model().index(0, NotebookColumn.TITLE).data() == "Letters to Margit"


def test_into_an_existing_notebook_is_named_by_its_title(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    make_notebook: Callable[..., str],
    tmp_path: Path,
) -> None:
    notebook_id = make_notebook("Diary 1998", 1)
    window = open_window(workers=1)
    qtbot.waitUntil(lambda: window.start_page.notebook_combo.count() == 1, timeout=TIMEOUT_MS)
    window.intake.add_paths([make_png_shelf(tmp_path / "shelf", notebooks=1)])
    window.start_page.set_mode(AdapterMode.into(notebook_id))
    scan(qtbot, window, tmp_path / "shelf")
    model = window.review_page.items_model
    texts = [model.index(0, c).data() for c in range(model.columnCount())]
    assert "Into “Diary 1998”" in texts
    assert not any(notebook_id[:8] in str(t) for t in texts)


# -- settings (finding 3) --------------------------------------------------------------------


def test_corpus_wide_duplicates_in_settings_reach_the_plan(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    tmp_path: Path,
    settings: QSettings,
) -> None:
    window = open_window(workers=1)

    def tick(dialog: QDialog) -> None:
        assert isinstance(dialog, SettingsDialog)
        # Checked by default (#22): a folder scanned again is found in any notebook.
        assert dialog.corpus_check.isEnabled() and dialog.corpus_check.isChecked()
        dialog.accept()

    when_modal_opens(SettingsDialog, tick)
    window.settings_action.trigger()
    assert window.import_settings.dedupe_scope is DedupeScope.CORPUS
    assert str(settings.value(DEDUPE_CORPUS_KEY)).lower() == "true"

    # A folder already imported under another title is recognised across the corpus.
    shelf = make_png_shelf(tmp_path / "shelf", notebooks=1)
    scan(qtbot, window, shelf)
    commit(qtbot, window)
    wait_run_end(qtbot, window)
    copy = tmp_path / "copy" / "The same notebook, scanned again"
    copy.mkdir(parents=True)
    for f in (shelf / "Notebook 01").iterdir():
        (copy / f.name).write_bytes(f.read_bytes())
    window.flow.new_import()
    scan(qtbot, window, copy.parent)
    [item] = window.session.plan.items
    assert str(item.dedupe_scope) == "corpus"
    assert all(s.duplicate is not None for s in item.sources)


def test_the_runs_view_tells_a_run_record_it_cannot_read(
    qtbot: QtBot, open_window, corpus: Corpus, tmp_path: Path
) -> None:
    from helpers.runs import commit_plan, plan_for

    run_id = commit_plan(corpus, plan_for(corpus, make_png_shelf(tmp_path / "shelf", 1))).run_id
    window = open_window(workers=1)
    record = corpus.root / "import-runs" / f"{run_id}.json"
    record.write_bytes(b"{ damaged")  # after the window's own health check ran
    runs = window.runs_page
    window.show_section(Section.RUNS)
    runs.refresh()
    qtbot.waitUntil(lambda: runs.problems_label.isVisible(), timeout=TIMEOUT_MS)
    text = runs.problems_label.text()
    assert "1 run record cannot be read" in text and str(record) in text
    assert not runs.empty_label.isVisible()  # never "No imports yet"
