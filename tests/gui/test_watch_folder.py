"""File › Watch a Folder…: drops imported on their own, the one needing review offered to review."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow

from helpers.runs import twin_run
from helpers.shelves import make_pages
from helpers.window import TIMEOUT_MS, FileDialogs


def _share(tmp_path: Path) -> Path:
    """A share with a folder ready to import and one whose page order needs a decision."""
    share = tmp_path / "share"
    make_pages(share / "Box 1", 2)
    make_pages(share / "Box 2", 2, name="{i}.jpg")
    make_pages(share / "Box 2", 1, name="0{i}.jpg", tag="again-")  # 1.jpg and 01.jpg
    for box in ("Box 1", "Box 2"):
        (share / box / ".done").write_bytes(b"")  # whole: taken at the first pass
    return share


def test_watch_a_folder_imports_what_is_clear_and_offers_what_needs_a_decision(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    tmp_path: Path,
    file_dialogs: FileDialogs,
) -> None:
    share = _share(tmp_path)
    file_dialogs.answer = str(share)
    window = open_window()
    watch = window.folder_watch
    assert not watch.label.isVisible() and not window.stop_watching_action.isEnabled()
    with qtbot.waitSignal(watch.passed, timeout=TIMEOUT_MS):
        window.watch_action.trigger()
    assert file_dialogs.asked == ["Choose a Folder to Watch"]
    assert watch.label.isVisible()
    assert watch.label.text() == f"Watching {share} — 1 drop waiting for review"
    assert window.stop_watching_action.isEnabled()
    # Box 1 was clear: committed and moved; Box 2 waits as a plan to review.
    assert [n.title for n in api.list_notebooks(corpus)] == ["Box 1"]
    assert (share / ".imported" / "Box 1").is_dir() and (share / "Box 2").is_dir()
    [queued] = api.drop_queue(corpus)
    qtbot.waitUntil(lambda: window.start_page.drafts() != [], timeout=TIMEOUT_MS)
    assert [d.plan_id for d in window.start_page.drafts()] == [queued.plan_id]
    qtbot.waitUntil(lambda: window.notebook_count_label.text() == "1 notebook", timeout=TIMEOUT_MS)
    [notice] = [t for t in window.start_page.notice_texts() if "dropped folder" in t]
    assert notice.startswith(
        f"<b>A dropped folder needs a decision</b>: “Box 2” in {share}: {queued.message} "
    )
    assert notice.endswith(
        "Review its plan (1 notebook, 3 pages), or discard it (the drop stays where it is)."
    )
    [run_id] = [r.run_id for r in api.drop_log(corpus) if r.state is api.DropState.IMPORTED]
    # A run record sharing 9 characters with it: the log names the run as the Runs view
    # does, as long as it takes for a command to take it back as that run alone.
    twin = twin_run(corpus, run_id)
    log = window.dialogs.show_watch_log()
    qtbot.waitUntil(lambda: not log.is_reading(), timeout=TIMEOUT_MS)
    assert log.headline.text().startswith("Everything dropped in a watched folder")
    run = run_id[: len(os.path.commonprefix([run_id, twin])) + 1]
    moved = share / ".imported" / "Box 1"
    assert [line.split(" — ", 1)[1] for line in log.lines()] == [
        f"“Box 2” in {share}: needs a decision: {queued.message}",
        f"“Box 2” in {share}: found; taken once it is whole",
        f"“Box 1” in {share}: imported as run {run}; moved to {moved}",
        f"“Box 1” in {share}: whole and clear; importing it",
        f"“Box 1” in {share}: found; taken once it is whole",
    ]
    log.reject()
    offered = window.start_page.notice_buttons("Continue Review")
    assert len(offered) == 1
    with qtbot.waitSignal(window.flow.plan_opened, timeout=TIMEOUT_MS):
        offered[0].click()
    plan = window.session.plan
    assert plan is not None and plan.plan_id == queued.plan_id
    assert [it.label for it in plan.items] == ["Box 2"]

    window.stop_watching_action.trigger()
    assert not watch.label.isVisible() and not window.stop_watching_action.isEnabled()
    qtbot.waitUntil(lambda: not watch.is_passing(), timeout=TIMEOUT_MS)
    watch.poll()  # nothing watched: no pass
    assert not watch.is_passing()


def test_a_queued_drop_is_notified_when_the_window_is_not_active(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    share = _share(tmp_path)
    window = open_window()
    told: list[tuple[str, str]] = []

    class Recorder:
        def notify(self, title: str, body: str) -> bool:
            told.append((title, body))
            return True

    window.folder_watch.notifier = Recorder()
    monkeypatch.setattr(window, "isActiveWindow", lambda: False)
    with qtbot.waitSignal(window.folder_watch.passed, timeout=TIMEOUT_MS):
        window.folder_watch.watch(share)
    assert told == [
        ("A dropped folder needs a decision", "Box 2: open Transcribe Import to review its plan.")
    ]
    window.folder_watch.stop()
    qtbot.waitUntil(lambda: not window.folder_watch.is_passing(), timeout=TIMEOUT_MS)


def test_the_watch_log_says_when_nothing_was_dropped_yet(
    qtbot: QtBot, open_window: Callable[..., MainWindow]
) -> None:
    window = open_window()
    log = window.dialogs.show_watch_log()
    qtbot.waitUntil(lambda: not log.is_reading(), timeout=TIMEOUT_MS)
    assert log.headline.text() == "Nothing has been dropped in a watched folder yet."
    assert log.lines() == []
    log.reject()
