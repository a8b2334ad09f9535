"""The Corpus view's fixity panel through the real window: the reminder, an audit started and
stopped with its progress bar, a failure as a red line with its notebook's title and Repair…,
the repair from a folder, and the reminder's setting."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.audit import log
from transcribe_import.engine.audit.model import AuditEnd
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow, Section
from transcribe_import.gui.pages.audit_panel import FAILURE_STYLE, AuditPanel
from transcribe_import.gui.settings_dialog import AUDIT_REMINDER_KEY, SettingsDialog

from helpers.window import TIMEOUT_MS, FileDialogs, assert_no_clash, when_modal_opens


def _panel(qtbot: QtBot, window: MainWindow) -> AuditPanel:
    window.show_section(Section.CORPUS)
    panel = window.corpus_page.audit_panel
    qtbot.waitUntil(lambda: panel.report is not None, timeout=TIMEOUT_MS)
    return panel


def _audit(qtbot: QtBot, panel: AuditPanel) -> None:
    before = panel.last_result
    qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    assert panel.progress_bar.isVisible() and panel.stop_button.isVisible()
    qtbot.waitUntil(
        lambda: panel.last_result is not before and not panel.is_running(), timeout=TIMEOUT_MS
    )
    _reread(qtbot, panel)


def _reread(qtbot: QtBot, panel: AuditPanel) -> None:
    """Wait for the record read again after a task (the panel asks for it when one ends)."""
    panel.report = None
    panel.refresh()
    qtbot.waitUntil(lambda: panel.report is not None, timeout=TIMEOUT_MS)


def _sources(corpus: Corpus, notebook_id: str) -> list[Path]:
    return sorted((corpus.notebook_dir(notebook_id) / "sources").iterdir())


def test_a_full_audit_is_started_here_and_the_reminder_goes(
    qtbot: QtBot, open_window: Callable[..., MainWindow], make_notebook: Callable[..., str]
):
    make_notebook("Field notes 1987", pages=3)
    window = open_window()
    panel = _panel(qtbot, window)
    assert panel.reminder_row.isVisible()
    assert "No full audit of the corpus has been made yet" in panel.reminder.text()
    assert panel.summary.text() == "No full audit yet: 0 of 6 files checked."

    _audit(qtbot, panel)

    assert panel.last_result is not None and panel.last_result.files_checked == 6
    assert panel.status.text() == (
        "6 files checked, all held their recorded bytes. The audit is complete: every file of "
        "the corpus was checked."
    )
    assert panel.summary.text().startswith("Last full audit finished ")
    assert panel.summary.text().endswith(": every file held its recorded bytes.")
    assert not panel.reminder_row.isVisible() and not panel.failure_labels
    assert_no_clash(window, "Corpus view with the fixity panel")


def test_a_failure_is_a_red_line_with_the_notebook_s_title_and_repair_restores_it(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    make_notebook: Callable[..., str],
    corpus: Corpus,
    tmp_path: Path,
    file_dialogs: FileDialogs,
):
    nbid = make_notebook("Field notes 1987", pages=2)
    damaged = next(
        f
        for f in api.audit_report(corpus).files
        if f.file.kind == "source" and f.file.pages == (1,)
    )
    path = corpus.notebook_dir(nbid) / damaged.file.path
    good = path.read_bytes()
    path.write_bytes(good[:-1] + bytes([good[-1] ^ 1]))
    window = open_window()
    panel = _panel(qtbot, window)

    _audit(qtbot, panel)

    [line] = panel.failure_labels
    assert line.text().startswith(f"“Field notes 1987”, page 1 (source {damaged.file.path}): ")
    assert "its bytes changed" in line.text()
    assert line.styleSheet() == FAILURE_STYLE
    assert panel.status.text().startswith("4 files checked, 1 failed. The audit is complete")
    assert panel.summary.text().endswith(": 1 file failed.")
    [repair] = panel.repair_buttons
    assert repair.text() == "Repair…" and repair.isEnabled()

    # Repair… asks for a folder: the scans the notebook was imported from hold the bytes.
    scans = tmp_path / "scans"
    file_dialogs.answer = str(scans)
    qtbot.mouseClick(repair, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: panel.last_repair is not None and not panel.is_running(), timeout=TIMEOUT_MS
    )
    _reread(qtbot, panel)

    assert path.read_bytes() == good
    assert panel.status.text().startswith(
        f"Repaired “Field notes 1987”, page 1 (source {damaged.file.path}) from {scans}"
    )
    assert not panel.failure_labels and not api.audit_report(corpus).failures


def test_an_audit_stopped_here_goes_on_where_it_stopped(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    make_notebook: Callable[..., str],
    monkeypatch: pytest.MonkeyPatch,
):
    make_notebook("Field notes 1987", pages=3)
    real = api.run_audit
    reached, release = threading.Event(), threading.Event()

    def held(corpus, budget, *, should_stop):  # the first file checked, then held there
        work = real(corpus, budget, should_stop=should_stop)
        first = next(work)
        reached.set()
        release.wait(TIMEOUT_MS / 1000)
        yield first
        return (yield from work)

    monkeypatch.setattr(api, "run_audit", held)
    window = open_window()
    panel = _panel(qtbot, window)
    qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(reached.is_set, timeout=TIMEOUT_MS)
    assert panel.stop_button.isVisible() and panel.progress_bar.isVisible()

    qtbot.mouseClick(panel.stop_button, Qt.MouseButton.LeftButton)
    assert not panel.stop_button.isEnabled()
    release.set()
    qtbot.waitUntil(
        lambda: panel.last_result is not None and not panel.is_running(), timeout=TIMEOUT_MS
    )

    stopped = panel.last_result
    assert stopped is not None and stopped.end is AuditEnd.STOPPED
    assert stopped.files_checked == 1 and stopped.left_in_round == 5
    assert panel.status.text() == (
        "1 file checked, all held their recorded bytes. Stopped: 5 files left; Start Audit "
        "goes on where it stopped."
    )
    assert panel.start_button.isVisible() and not panel.progress_bar.isVisible()
    monkeypatch.setattr(api, "run_audit", real)
    _audit(qtbot, panel)
    assert panel.last_result is not None and panel.last_result.files_checked == 5
    assert panel.last_result.end is AuditEnd.ROUND_COMPLETE


def test_the_reminder_follows_the_setting(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    make_notebook: Callable[..., str],
    corpus: Corpus,
):
    make_notebook("Field notes 1987", pages=1)
    window = open_window()
    panel = _panel(qtbot, window)
    _audit(qtbot, panel)
    assert not panel.reminder_row.isVisible()
    # The record says the audit was made 200 days ago (the log rewritten by the test alone).
    path = log.log_path(corpus)
    then = (datetime.now(UTC) - timedelta(days=200)).strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    events = [json.loads(line) for line in path.read_bytes().splitlines()]
    path.write_bytes(b"".join(json.dumps({**e, "at": then}).encode() + b"\n" for e in events))

    _reread(qtbot, panel)
    assert panel.reminder_row.isVisible()
    assert panel.reminder.text() == "The last full audit is older than 90 days: start one."

    # Settings…: a year between full audits; the reminder goes at once.
    def a_year(dialog: SettingsDialog) -> None:
        assert dialog.reminder_spin.value() == 90
        dialog.reminder_spin.setValue(365)
        dialog.accept()

    panel.report = None
    when_modal_opens(SettingsDialog, a_year)
    window.settings_action.trigger()
    qtbot.waitUntil(lambda: panel.report is not None, timeout=TIMEOUT_MS)
    assert not panel.reminder_row.isVisible()
    assert window.settings().value(AUDIT_REMINDER_KEY) in (365, "365")


def test_doctor_s_finding_of_a_failure_points_at_the_panel_s_repair(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    make_notebook: Callable[..., str],
    corpus: Corpus,
):
    nbid = make_notebook("Field notes 1987", pages=1)
    source = next((corpus.notebook_dir(nbid) / "sources").iterdir())
    source.write_bytes(source.read_bytes()[:-1] + b"\0")
    api.drive(api.run_audit(corpus, api.AuditBudget()))
    window = open_window()
    window.show_section(Section.CORPUS)

    words = [
        window.corpus_page.findings_view.item(row, 0).text()
        for row in range(window.corpus_page.findings_view.rowCount())
    ]

    [finding] = [w for w in words if w.startswith("The fixity audit found")]
    assert "“Field notes 1987”, page 1" in finding
    assert finding.endswith(
        "To repair it, choose Repair… beside it in the Fixity panel below, and a bag, another "
        "corpus's data folder or a backup that holds a copy."
    )
    assert "transcribe-import" not in finding


def test_repair_says_what_it_could_not_repair_and_the_red_line_stays(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    make_notebook: Callable[..., str],
    corpus: Corpus,
    tmp_path: Path,
):
    nbid = make_notebook("Field notes 1987", pages=1)
    source = next((corpus.notebook_dir(nbid) / "sources").iterdir())
    source.write_bytes(source.read_bytes()[:-1] + b"\0")
    api.drive(api.run_audit(corpus, api.AuditBudget()))
    empty = tmp_path / "empty"
    empty.mkdir()
    window = open_window()
    panel = _panel(qtbot, window)
    [line] = panel.failure_labels

    panel.repair_from(empty)
    assert panel.progress_bar.isVisible() and not panel.stop_button.isVisible()
    qtbot.waitUntil(
        lambda: panel.last_repair is not None and not panel.is_running(), timeout=TIMEOUT_MS
    )
    _reread(qtbot, panel)

    assert panel.status.text() == (
        f"Not repaired: “Field notes 1987”, page 1 (source sources/{source.name}): no file in "
        "that folder has its recorded sha256."
    )
    assert len(panel.failure_labels) == 1 and panel.repair_buttons[0].isEnabled()
