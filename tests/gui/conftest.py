"""GUI test setup: settings in the test's temp folder, corpora to show, no thread left behind.

The window fixtures (``open_window``, ``importing``, ``gate``) are here; the steps that drive
the window are in tests/helpers/window.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtCore import QSettings, QStandardPaths
from pytestqt.qtbot import QtBot

from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.ingest.transaction import IngestRequest, PageSpec, SourceSpec, ingest
from transcribe_import.engine.storage import fsio
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui import import_flow
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.workers import running_workers

from helpers.window import TIMEOUT_MS, ExecutorGate, FileDialogs, drop, scan_and_validate
from helpers.window import commit as press_commit


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path) -> Iterator[None]:
    """Anything that makes a default QSettings writes under the test's folder, never the user's."""
    QStandardPaths.setTestModeEnabled(True)
    for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
        QSettings.setPath(fmt, QSettings.Scope.UserScope, str(tmp_path / "user-settings"))
        QSettings.setPath(fmt, QSettings.Scope.SystemScope, str(tmp_path / "system-settings"))
    yield
    QStandardPaths.setTestModeEnabled(False)


@pytest.fixture(autouse=True)
def no_thread_left_running() -> Iterator[None]:
    """Fail the test if a worker thread still runs once its widgets are closed.

    pytest-qt closes the test's widgets before fixtures are torn down, so this sees
    what a user closing the window would leave behind.
    """
    yield
    left = running_workers()
    for worker in left:
        worker.wait()  # a QThread destroyed while running aborts the whole test process
    if left:
        pytest.fail(f"QThread(s) still running after the test: {left}")


@pytest.fixture(autouse=True)
def quit_keeps_the_draft(monkeypatch: pytest.MonkeyPatch) -> None:
    """A window a test leaves with review decisions in no plan file quits keeping the draft,
    as a person answering the quit question would (a modal box would wait for ever when
    pytest-qt closes the window). The question itself is tested through its real box."""
    monkeypatch.setattr(import_flow, "ask_unsaved_review", lambda _parent, _problem: "quit")


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    """The window's own settings file, so a test can look at what it remembered."""
    return QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def file_dialogs(monkeypatch: pytest.MonkeyPatch) -> FileDialogs:
    """Every file dialog answered with ``file_dialogs.answer`` (Cancel until it is set), its
    title and starting folder recorded."""
    return FileDialogs(monkeypatch)


@pytest.fixture
def make_notebook(corpus: Corpus, tmp_path: Path) -> Callable[..., str]:
    """Create a notebook through the engine, with ``pages`` real page images ingested into it."""
    scans = tmp_path / "scans"
    scans.mkdir()

    def make(title: str, pages: int = 0) -> str:
        notebook_id = new_id()
        corpus.create_notebook(notebook_id, title)
        sources = []
        for i in range(pages):
            path = scans / f"{notebook_id}-{i}.png"
            # A different shade per page, so no two sources have the same bytes.
            Image.new("RGB", (40, 56), (250 - i, 245, 230)).save(path)
            sha256, _size = fsio.hash_file(path)
            page = PageSpec(new_id(), new_id(), 0)
            sources.append(SourceSpec(new_id(), path, sha256, "image/png", (page,)))
        if sources:
            ingest(corpus, IngestRequest(notebook_id, tuple(sources)))
        return notebook_id

    return make


@pytest.fixture
def open_window(
    qtbot: QtBot, corpus: Corpus, settings: QSettings
) -> Iterator[Callable[..., MainWindow]]:
    """Show a window on the test's corpus and wait for its first health check to end.

    ``open_window(workers=n)`` sets the commit's workers (default: the settings' own, 2).
    The windows are kept here until pytest-qt has closed them: it holds them only weakly,
    and a window dropped when the test function returns would be destroyed unclosed, as
    no user can destroy it.
    """
    opened: list[MainWindow] = []

    def open_(workers: int | None = None) -> MainWindow:
        window = MainWindow(corpus, settings)
        if workers is not None:
            window.import_settings = replace(window.import_settings, workers=workers)
        qtbot.addWidget(window)
        opened.append(window)
        with qtbot.waitSignal(window.health.checked, timeout=TIMEOUT_MS):
            window.show()
        return window

    yield open_
    opened.clear()


@pytest.fixture
def importing(qtbot: QtBot, open_window: Callable[..., MainWindow]) -> Callable[..., MainWindow]:
    """The preamble most window tests share: drop -> scan -> validate -> commit.

    ``importing(*paths, workers=1, commit=True)`` opens a window (``workers`` as for
    ``open_window``: None keeps the settings' own), drops ``paths`` on it, scans, waits for the
    validated review and, unless ``commit=False``, presses Commit; it returns the window.
    """

    def start(*paths: Path, workers: int | None = 1, commit: bool = True) -> MainWindow:
        window = open_window(workers=workers)
        drop(window, list(paths))
        scan_and_validate(qtbot, window)
        if commit:
            press_commit(qtbot, window)
        return window

    return start


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[ExecutorGate]:
    """The commit executor held after its first finished item (helpers.window.ExecutorGate)."""
    g = ExecutorGate(monkeypatch)
    yield g
    g.release.set()  # never leave the executor waiting, even when the test failed


@pytest.fixture
def gated_import(
    qtbot: QtBot, gate: ExecutorGate, importing: Callable[..., MainWindow]
) -> Callable[..., tuple[MainWindow, ExecutorGate]]:
    """``gated_import(*paths)``: ``importing(*paths)``, returned with ``gate`` once it holds
    the commit after its first finished notebook (the test releases it)."""

    def start(*paths: Path) -> tuple[MainWindow, ExecutorGate]:
        window = importing(*paths)
        qtbot.waitUntil(gate.reached.is_set, timeout=TIMEOUT_MS)
        return window, gate

    return start
