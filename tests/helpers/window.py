"""The real window and review page driven as a person would, for every tests/gui file.

One copy of each step: drop folders, scan, wait for the validated review, commit, wait for
the run's end, answer a modal box, read the review's panel and badges. Each waits for the
event or state it needs, never for a fixed time. The fixtures built on these (``open_window``,
``gate``) are in tests/gui/conftest.py.
"""

from __future__ import annotations

import re
import threading
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QTimer, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QFileDialog,
    QGroupBox,
    QLabel,
    QMessageBox,
    QWidget,
)
from pytestqt.qtbot import QtBot

from transcribe_import.engine.planning import planner as planner_module
from transcribe_import.engine.planning import scan as scan_module
from transcribe_import.engine.planning.plan import AdapterMode, PlanItem
from transcribe_import.engine.runs import executor as executor_module
from transcribe_import.engine.runs.executor import EventKind
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.models.plan_items import PlanItemsModel
from transcribe_import.gui.pages.review import ReviewPage
from transcribe_import.gui.session import ImportSession
from transcribe_import.gui.thumbnails import ThumbnailCache
from transcribe_import.gui.values import PlanItemState

TIMEOUT_MS = 30_000
_MNEMONIC = re.compile(r"&([^&\s])")
W = TypeVar("W", bound=QWidget)


# -- the window ------------------------------------------------------------------------------


def drop(window: MainWindow, paths: list[Path]) -> QDropEvent:
    """Drag ``paths`` over the window and drop them, as a file manager would."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    where = window.rect().center()
    args = (
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    try:
        enter = QDragEnterEvent(QPointF(where), *args)
    except TypeError:  # before PySide 6.12 it takes a QPoint (deprecated from 6.12 on)
        enter = QDragEnterEvent(where, *args)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted(), "the window should take folders dropped on it"
    event = QDropEvent(QPointF(where), *args)
    QApplication.sendEvent(window, event)
    return event


def scan(qtbot: QtBot, window: MainWindow, *paths: Path) -> None:
    """Add ``paths`` to the start page, press Scan and wait for the validated review."""
    window.intake.add_paths(list(paths))
    scan_and_validate(qtbot, window)


def scan_and_validate(qtbot: QtBot, window: MainWindow) -> None:
    """Press Scan and wait until the plan is under review and validated."""
    qtbot.mouseClick(window.start_page.scan_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.current_page() is window.review_page, timeout=TIMEOUT_MS)
    wait_validated(qtbot, window)


def into_review(qtbot: QtBot, window: MainWindow, target: str, folder: Path) -> None:
    """Add ``folder`` into the notebook ``target`` on the start page; wait for its validated
    review."""
    start = window.start_page
    qtbot.waitUntil(lambda: start.notebook_combo.count() >= 1, timeout=TIMEOUT_MS)
    window.intake.add_paths([folder])
    start.into_radio.click()
    start.notebook_combo.setCurrentIndex(start.notebook_combo.findData(target))
    assert start.mode() == AdapterMode.into(target)
    scan_and_validate(qtbot, window)


def wait_validated(qtbot: QtBot, window: MainWindow) -> None:
    """Wait until the plan's pages are looked at for rescans (the look pass), the report is
    of the plan as it is now and no validation runs."""

    def validated() -> bool:
        report = window.session.report
        plan = window.session.plan
        return (
            report is not None
            and plan is not None
            and not window.session.looking
            and report.plan_fingerprint == plan.fingerprint
            and not window.flow.is_validating()
        )

    qtbot.waitUntil(validated, timeout=TIMEOUT_MS)


def commit(qtbot: QtBot, window: MainWindow) -> None:
    """Press Commit on a review that allows it; the commit page shows at once."""
    assert window.review_page.can_commit()
    qtbot.mouseClick(window.review_page.commit_button, Qt.MouseButton.LeftButton)
    assert window.current_page() is window.commit_page


def wait_run_end(qtbot: QtBot, window: MainWindow) -> None:
    """Wait until the commit page's run has ended, and its last signals are delivered."""
    qtbot.waitUntil(lambda: not window.commit_page.is_running(), timeout=TIMEOUT_MS)
    QApplication.processEvents()


class ExecutorGate:
    """Holds the commit executor after its first ``at`` event (by default: the first finished
    item) until the test releases it.

    Wraps the engine's ``on_event``, so a test acting "while the commit runs" never races it.
    """

    def __init__(
        self, monkeypatch: pytest.MonkeyPatch, at: EventKind = EventKind.ITEM_FINISHED
    ) -> None:
        self.reached = threading.Event()
        self.release = threading.Event()
        self.kinds: list[EventKind] = []  # every event's kind, as the executor emitted them
        real = executor_module.execute_run

        def gated(corpus: Corpus, run_id: str, *, on_event: Any = None, **kw: Any) -> Any:
            def on(event: Any) -> None:
                self.kinds.append(event.kind)
                on_event(event)
                if event.kind is at and not self.reached.is_set():
                    self.reached.set()
                    self.release.wait(TIMEOUT_MS / 1000)

            return real(corpus, run_id, on_event=on, **kw)

        monkeypatch.setattr(executor_module, "execute_run", gated)


class ScanHold:
    """Holds the engine's scan after its first progress event until the test releases it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.held = threading.Event()
        self.release = threading.Event()
        real = scan_module.scan

        def held_scan(roots: Any, **kw: Any) -> Any:
            gen = real(roots, **kw)
            yield next(gen)
            self.held.set()
            self.release.wait(TIMEOUT_MS / 1000)
            return (yield from gen)

        monkeypatch.setattr(scan_module, "scan", held_scan)


class PlanHold:
    """Holds the making of the plan (the scan has read every file) until the test releases it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.making = threading.Event()
        self.release = threading.Event()
        real = planner_module.build_plan

        def held_build_plan(*args: Any, **kw: Any) -> Any:
            self.making.set()
            self.release.wait(TIMEOUT_MS / 1000)
            return real(*args, **kw)

        monkeypatch.setattr(planner_module, "build_plan", held_build_plan)


def when_modal_opens(kind: type[W], act: Callable[[W], None]) -> None:
    """Once a modal ``kind`` is the active modal widget, call ``act`` on it.

    Call it before the action that opens the box: the box's own event loop then runs the
    check. Qt has no signal for "a modal box is shown", so the check looks again on each
    10 ms timer turn of that loop until the box is there.
    """

    def look() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, kind):
            QTimer.singleShot(10, look)
            return
        act(box)

    QTimer.singleShot(0, look)


def click_in_next_box(button_text: str, seen: list[str]) -> None:
    """Answer the next message box by clicking its button ``button_text``; its words go in
    ``seen``."""

    def click(box: QMessageBox) -> None:
        seen.append(f"{box.text()} {box.informativeText()}")
        [button] = [b for b in box.buttons() if b.text() == button_text]
        button.click()

    when_modal_opens(QMessageBox, click)


class FileDialogs:
    """The file dialogs answered as a person would, each with ``answer`` ("" is Cancel): each
    records its title and the folder it opened in."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.asked: list[str] = []
        self.opened_in: list[str] = []
        self.answer = ""

        def folder(_parent: object, title: str, start: str = "") -> str:
            self.asked.append(title)
            self.opened_in.append(start)
            return self.answer

        def files(_parent: object, title: str, start: str = "", _f: str = "") -> Any:
            self.asked.append(title)
            self.opened_in.append(start)
            return ([self.answer] if self.answer else [], "")

        def file(_parent: object, title: str, start: str = "", _f: str = "") -> Any:
            self.asked.append(title)
            self.opened_in.append(start)
            return (self.answer, "")

        monkeypatch.setattr(QFileDialog, "getExistingDirectory", folder)
        monkeypatch.setattr(QFileDialog, "getOpenFileNames", files)
        monkeypatch.setattr(QFileDialog, "getOpenFileName", file)
        monkeypatch.setattr(QFileDialog, "getSaveFileName", file)


# -- Alt letters -----------------------------------------------------------------------------


def mnemonic_clashes(top: QWidget, extra: dict[str, list[str]] | None = None) -> dict[str, list]:
    """Alt letters two visible controls of ``top`` share (menu titles included)."""
    seen: dict[str, list[str]] = defaultdict(list)
    for letter, names in (extra or {}).items():
        seen[letter] += names
    for widget in top.findChildren(QWidget):
        if not widget.isVisible() or widget.window() is not top:
            continue
        if (
            isinstance(widget, QAbstractButton)
            or isinstance(widget, QLabel)
            and widget.buddy() is not None
        ):
            text = widget.text()
        elif isinstance(widget, QGroupBox):
            text = widget.title()
        else:
            continue
        match = _MNEMONIC.search(text)
        if match:
            seen[match.group(1).lower()].append(text)
    return {letter: names for letter, names in seen.items() if len(names) > 1}


def mnemonic_letters(texts: list[str]) -> dict[str, list[str]]:
    """The texts by their Alt letter (texts without one left out)."""
    letters: dict[str, list[str]] = defaultdict(list)
    for text in texts:
        match = _MNEMONIC.search(text)
        if match:
            letters[match.group(1).lower()].append(text)
    return letters


def assert_no_clash(window: MainWindow, where: str) -> None:
    """No two visible controls of ``window`` (its menu titles included) share an Alt letter."""
    QApplication.processEvents()
    titles = mnemonic_letters([action.text() for action in window.menuBar().actions()])
    clashes = mnemonic_clashes(window, titles)
    assert clashes == {}, f"{where}: controls share an Alt letter: {clashes}"


# -- the review page -------------------------------------------------------------------------


def open_review_page(
    qtbot: QtBot,
    session: ImportSession,
    cache: ThumbnailCache | None = None,
    size: tuple[int, int] = (1100, 700),
) -> ReviewPage:
    """A review page of ``session``, shown and exposed."""
    page = ReviewPage(session, cache)
    qtbot.addWidget(page)
    page.resize(*size)
    page.show()
    qtbot.waitExposed(page)
    return page


def show_item(page: ReviewPage, label: str) -> PlanItem:
    """Select the notebook labelled ``label`` in the review; its pages show."""
    assert page.session.plan is not None
    item = next(it for it in page.session.plan.items if it.label == label)
    assert page.select_item(item.item_id)
    assert page.selected_item_id() == item.item_id
    return item


def panel_words(page: ReviewPage) -> str:
    """The words the decision panel shows, in one string."""
    return " ".join(
        label.text()
        for label in page.decision_panel.findChildren(QLabel)
        if label.isVisibleTo(page)
    )


def item_state(qtbot: QtBot, model: PlanItemsModel, item_id: str) -> PlanItemState:
    """The notebook's badge, once its page order is checked.

    The model checks page orders within a time budget per turn of the event loop and leaves
    the rest "Checking…" (state None) for the next turn: on a busy machine that is any item.
    """
    states: list[PlanItemState] = []

    def checked() -> bool:
        row = model.row_of(item_id)
        assert row is not None, f"no row for {item_id}"
        state = model.state(model.item_at(row))
        states[:] = [] if state is None else [state]
        return bool(states)

    qtbot.waitUntil(checked, timeout=TIMEOUT_MS)
    return states[0]


def wait_states_checked(qtbot: QtBot, model: PlanItemsModel) -> None:
    """Wait until every notebook's page order is checked (see item_state)."""
    qtbot.waitUntil(
        lambda: all(model.state(model.item_at(r)) is not None for r in range(model.rowCount())),
        timeout=TIMEOUT_MS,
    )
