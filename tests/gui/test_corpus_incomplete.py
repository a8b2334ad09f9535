"""An incomplete notebook in the Corpus view, through the real window: its mark, and its two
actions, Finish Import (a retry of a cancelled run, a resume of a paused one) and Undo This
Import… (the undo dialog's preview, then the undo)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.base.findings import FindingCode, Remedy
from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.runs.executor import EventKind, RunControl, RunEvent
from transcribe_import.engine.runs.model import RunStatus
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow, Section
from transcribe_import.gui.models.notebooks import NotebookColumn

from helpers import holding
from helpers.cli import Exit, ok, run_cli, start_cli
from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_shelf
from helpers.window import TIMEOUT_MS, ExecutorGate, assert_no_clash, wait_run_end

PAGES = 70


def _stopped_part_way(corpus: Corpus, tmp_path: Path, *, cancel: bool) -> tuple[str, str]:
    """A 70-page notebook's import stopped once its first checkpoint landed: cancelled (the
    run ends) or paused (it can be resumed). Its run id and the notebook's id."""
    shelf = make_shelf(tmp_path / "shelf", 1, PAGES, folder="Register", size=(120, 160))
    plan = plan_for(corpus, shelf)
    control = RunControl()

    def stop(event: RunEvent) -> None:
        if event.kind is EventKind.PAGES_LANDED:
            (control.cancel if cancel else control.pause)()

    result = commit_plan(corpus, plan, control=control, workers=1, on_event=stop)
    assert result.status is (RunStatus.CANCELLED if cancel else RunStatus.RUNNING)
    return result.run_id, plan.items[0].notebook_id


def _pages_in(corpus: Corpus, notebook_id: str) -> int:
    doc = orjson.loads((corpus.notebook_dir(notebook_id) / "project.json").read_bytes())
    return len(doc["pages"])


def _state_cell(window: MainWindow) -> str:
    model = window.corpus_page.notebook_model
    return str(model.index(0, NotebookColumn.STATE).data())


def _select_the_notebook(qtbot: QtBot, window: MainWindow) -> None:
    window.show_section(Section.CORPUS)
    window.corpus_page.notebook_table.selectRow(0)
    qtbot.waitUntil(window.corpus_page.unfinished_panel.isVisible, timeout=TIMEOUT_MS)


def _assert_marked(window: MainWindow, landed: int, *, retry: bool) -> None:
    assert 0 < landed < PAGES, "the stop should come between two checkpoints"
    assert _state_cell(window) == f"Incomplete: {landed} of {PAGES} pages"
    page = window.corpus_page
    words = page.unfinished_label.text()
    assert f"“Register” is incomplete: {landed} of its {PAGES} pages landed" in words
    how = "Finish Import retries it" if retry else "Finish Import resumes it where it stopped"
    assert how in words
    assert page.finish_button.isEnabled() and page.undo_button.isEnabled()
    assert_no_clash(window, "Corpus view with an incomplete notebook")


@pytest.mark.parametrize("cancel", [True, False], ids=["cancelled-retry", "paused-resume"])
def test_finish_import_completes_the_notebook_and_the_mark_goes(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    tmp_path: Path,
    cancel: bool,
    gate: ExecutorGate,
) -> None:
    run_id, notebook_id = _stopped_part_way(corpus, tmp_path, cancel=cancel)
    window = open_window()
    landed = _pages_in(corpus, notebook_id)
    health = window.corpus_page.health_summary.text()
    if cancel:  # never "the corpus is whole" while a notebook holds part of its import
        assert health.startswith("Nothing is damaged, but 1 notebook holds only part of")
    else:  # a paused run is a problem of its own (interrupted), told as such
        assert health.startswith("1 needs attention")
    _select_the_notebook(qtbot, window)
    _assert_marked(window, landed, retry=cancel)

    qtbot.mouseClick(window.corpus_page.finish_button, Qt.MouseButton.LeftButton)
    assert window.current_page() is window.commit_page
    assert (window.commit_page.run_id == run_id) is not cancel  # a retry is a run of its own
    qtbot.waitUntil(gate.reached.is_set, timeout=TIMEOUT_MS)  # the item is in, the run not over
    page = window.corpus_page
    assert not page.finish_button.isEnabled() and not page.undo_button.isEnabled()
    gate.release.set()
    wait_run_end(qtbot, window)
    assert page.finish_button.isEnabled() and page.undo_button.isEnabled()
    qtbot.waitUntil(lambda: _state_cell(window) == "Complete", timeout=TIMEOUT_MS)
    assert _pages_in(corpus, notebook_id) == PAGES
    assert window.corpus_page.notebook_model.index(0, NotebookColumn.PAGES).data() == str(PAGES)
    assert not window.corpus_page.unfinished_panel.isVisibleTo(window.corpus_page)
    statuses = [r.status for r in RunStore(corpus).list_runs()]
    assert statuses[0] is RunStatus.COMPLETE  # the newest: the retry, or the resumed run


def test_undo_this_import_previews_then_takes_the_incomplete_notebook_out(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    run_id, notebook_id = _stopped_part_way(corpus, tmp_path, cancel=True)
    window = open_window()
    landed = _pages_in(corpus, notebook_id)
    _select_the_notebook(qtbot, window)
    _assert_marked(window, landed, retry=True)

    page = window.corpus_page
    with qtbot.waitSignal(window.health.checked, timeout=TIMEOUT_MS):
        qtbot.mouseClick(window.corpus_page.check_again_button, Qt.MouseButton.LeftButton)
    assert page.unfinished_panel.isVisible()  # a new listing keeps the selection
    assert [nb.notebook_id for nb in page.selected_notebooks()] == [notebook_id]

    qtbot.mouseClick(page.undo_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.undo_dialog is not None, timeout=TIMEOUT_MS)
    dialog = page.undo_dialog
    assert dialog is not None and dialog.run.run_id == run_id
    qtbot.waitUntil(dialog.undo_button.isEnabled, timeout=TIMEOUT_MS)  # the preview is in
    taken = "1 page is" if landed == 1 else f"{landed} pages are"
    assert f"{taken} taken out of the corpus" in dialog.headline.text()
    assert corpus.is_registered(notebook_id)  # a preview changes nothing

    with qtbot.waitSignal(dialog.reverted, timeout=TIMEOUT_MS):
        qtbot.mouseClick(dialog.undo_button, Qt.MouseButton.LeftButton)
    dialog.accept()
    assert not corpus.is_registered(notebook_id)
    assert RunStore(corpus).load(run_id).status is RunStatus.REVERTED
    qtbot.waitUntil(
        lambda: window.corpus_page.notebook_stack.currentWidget() is window.corpus_page.empty_label,
        timeout=TIMEOUT_MS,
    )
    assert not page.unfinished_panel.isVisibleTo(page)
    qtbot.waitUntil(
        lambda: window.corpus_page.health_summary.text().startswith(
            "Nothing to report: the corpus is whole"
        ),
        timeout=TIMEOUT_MS,
    )


def test_a_notebook_another_process_is_importing_offers_no_action(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    shelf = make_shelf(tmp_path / "shelf", 1, PAGES, folder="Register", size=(120, 160))
    data, plan = corpus.data_dir, tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
    env = holding.stop_at("ingest.between_checkpoints")
    commit = start_cli(data, "commit", str(plan), "--workers", "1", env=env)
    try:
        holding.wait_stopped(commit)  # a real `commit`, held with its first checkpoint landed
        window = open_window()
        _select_the_notebook(qtbot, window)
        page = window.corpus_page
        assert _state_cell(window).startswith("Incomplete: ")
        assert "is being imported by another process" in page.unfinished_label.text()
        assert not page.finish_button.isEnabled() and not page.undo_button.isEnabled()
        holding.go_on(commit)
    finally:
        _out, err = holding.finish(commit)
    assert commit.returncode == Exit.OK, err


@pytest.mark.parametrize("cancel", [True, False], ids=["cancelled", "paused"])
def test_health_findings_name_the_windows_actions_not_commands(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    tmp_path: Path,
    cancel: bool,
) -> None:
    """The Corpus health findings of an incomplete notebook (and of its interrupted run, when
    paused) say the window's buttons; doctor's message for the CLI keeps its commands."""
    run_id, _notebook_id = _stopped_part_way(corpus, tmp_path, cancel=cancel)
    by_code = {f.code: f for f in api.check_corpus(corpus).findings}
    expected = {FindingCode.NOTEBOOK_INCOMPLETE: (Remedy.FINISH_IMPORT, Remedy.UNDO_IMPORT)}
    if not cancel:
        expected[FindingCode.INTERRUPTED_RUN] = (Remedy.RESUME_RUN, Remedy.CANCEL_RUN)
    assert {code: by_code[code].remedies for code in expected} == expected
    assert all(by_code[code].run_id == run_id for code in expected)
    finish = "commit" if cancel else "resume"
    assert f"`transcribe-import {finish} " in by_code[FindingCode.NOTEBOOK_INCOMPLETE].message
    assert "run_id" not in by_code[FindingCode.NOTEBOOK_INCOMPLETE].to_json()  # JSON as it was

    window = open_window()
    view = window.corpus_page.findings_view
    qtbot.waitUntil(lambda: view.rowCount() == len(by_code), timeout=TIMEOUT_MS)
    rows = [view.item(row, 0) for row in range(view.rowCount())]
    said = [item.text() for item in rows]
    heard = [str(item.data(Qt.ItemDataRole.AccessibleTextRole)) for item in rows]
    assert [s for s in said + heard if "transcribe-import" in s] == []
    incomplete = next(s for s in said if "is incomplete:" in s)
    assert incomplete.endswith(
        "To finish it, select the notebook in Corpus and choose Finish Import. Undo This "
        "Import shows what undoing it would take out, then does it."
    )
    assert incomplete.startswith("Notebook “") and "of its import landed." in incomplete
    assert run_id not in incomplete and _notebook_id not in incomplete  # titles, not ids
    if not cancel:
        interrupted = next(s for s in said if "was interrupted with" in s)
        assert interrupted.startswith("The import into “") and run_id not in interrupted
        assert interrupted.endswith(
            "To finish it, select it in Runs and choose Resume. To end it, select it in Runs "
            "and choose Cancel Run; the pages it landed stay."
        )


def test_an_untracked_run_is_finished_through_open_plan_as_its_finding_says(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    """A run whose record was lost (quarantined) leaves its frozen plan: the health finding
    says the window's way, File › Open Plan… and Commit, and doing so lands the rest once."""
    run_id, notebook_id = _stopped_part_way(corpus, tmp_path, cancel=True)
    landed = _pages_in(corpus, notebook_id)
    store = RunStore(corpus)
    store.record_path(run_id).write_bytes(b"{ not a record")
    frozen = store.plan_path(run_id)
    findings = api.check_corpus(corpus).findings
    (untracked,) = [f for f in findings if f.code is FindingCode.RUN_UNTRACKED]
    assert untracked.remedies == (Remedy.OPEN_PLAN,)
    assert f"`transcribe-import commit {frozen}`" in untracked.message  # the CLI's as it was
    empty = new_id()
    corpus.create_notebook(empty, "Left empty")  # its finding has no button of the window

    window = open_window()
    view = window.corpus_page.findings_view
    qtbot.waitUntil(lambda: view.rowCount() >= 1, timeout=TIMEOUT_MS)
    said = [view.item(row, 0).text() for row in range(view.rowCount())]
    told = next(s for s in said if f"Import run {run_id[:8]} has no record" in s)
    assert told.endswith(
        "To import what did not land, open that plan with File › Open Plan… and commit it: "
        "what landed is recognised and not imported twice. To give it up instead, move the "
        "plan file out of the corpus folder."
    )
    assert "transcribe-import" not in told
    # A finding with no button of the window says its command is for a terminal.
    left_empty = next(s for s in said if "“Left empty”" in s)
    assert f"`transcribe-import doctor --remove-empty {empty}`" in left_empty
    assert left_empty.endswith(
        "(A command in `quotes` is typed in a terminal; the window has no button for it.)"
    )

    assert window.flow.open_plan(frozen)  # File › Open Plan… of it, as the finding says
    qtbot.waitUntil(lambda: window.current_page() is window.review_page, timeout=TIMEOUT_MS)
    qtbot.waitUntil(window.review_page.can_commit, timeout=TIMEOUT_MS)
    window.review_page.commit_button.click()
    qtbot.waitUntil(lambda: window.current_page() is window.commit_page, timeout=TIMEOUT_MS)
    wait_run_end(qtbot, window)
    assert landed < PAGES and _pages_in(corpus, notebook_id) == PAGES
    assert set(corpus.index_entries()) == {notebook_id, empty}  # the rest landed in the same


def test_the_start_page_tells_an_incomplete_notebook_and_finishes_it(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    tmp_path: Path,
) -> None:
    """Coming back to the app after an import that ended part way (cancelled, or failed on a
    vanished file): the start page says which notebook is incomplete, and Finish Import
    there retries what did not land; the notice goes once the notebook is whole."""
    _run_id, notebook_id = _stopped_part_way(corpus, tmp_path, cancel=True)
    window = open_window()
    start = window.start_page
    landed = _pages_in(corpus, notebook_id)
    qtbot.waitUntil(lambda: bool(start.notice_texts()), timeout=TIMEOUT_MS)
    assert start.notice_texts() == [
        f"<b>A notebook is incomplete</b>: “Register”, {landed} of its {PAGES} pages landed "
        "before its import stopped. Finish Import imports only what did not land."
    ]
    assert_no_clash(window, "start page with an incomplete notebook")
    [show] = start.notice_buttons("Show Notebook")
    qtbot.mouseClick(show, Qt.MouseButton.LeftButton)
    assert window.nav.currentRow() == Section.CORPUS
    assert window.corpus_page.library.isVisible()  # the notebook, opened
    window.show_section(Section.IMPORT)

    [finish_import] = start.notice_buttons("Finish Import")
    qtbot.mouseClick(finish_import, Qt.MouseButton.LeftButton)
    assert window.current_page() is window.commit_page
    wait_run_end(qtbot, window)
    assert _pages_in(corpus, notebook_id) == PAGES
    qtbot.waitUntil(lambda: not start.notice_texts(), timeout=TIMEOUT_MS)
