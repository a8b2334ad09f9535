"""One app per user and corpus (issue 13, #13): a second start hands its paths to the running
window and exits; a second window on a corpus another window holds says so."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtNetwork import QLocalSocket
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui import app as gui_app
from transcribe_import.gui.main_window import MainWindow

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support raise")

REPO = Path(__file__).resolve().parents[2]
DEADLINE_S = 60


def the_window(qapp: QApplication) -> MainWindow | None:
    windows = [w for w in qapp.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
    return windows[0] if windows else None


def second_start(data_dir: Path, tmp_path: Path, *paths: Path) -> subprocess.Popen[bytes]:
    """`transcribe-import --data-dir DIR gui PATH...` as a person would type it, offscreen."""
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO / "app"),
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_CONFIG_HOME": str(tmp_path / "second-config"),  # never the user's settings
    }
    with (tmp_path / "second-stderr.txt").open("wb") as stderr:  # the child keeps its copy
        return subprocess.Popen(
            [sys.executable, "-m", "transcribe_import", "--data-dir", str(data_dir), "gui"]
            + [str(p) for p in paths],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )


def window_and_second(
    qapp: QApplication,
    seen: dict[str, object],
    look: Callable[[], None],
    data_dir: Path,
    tmp_path: Path,
    *paths: Path,
) -> tuple[MainWindow, subprocess.Popen[bytes]] | None:
    """Once the first window is shown: it, and a second start (begun at the first call,
    kept in ``seen``); until then None, and ``look`` is called again in 20 ms."""
    window = the_window(qapp)
    if window is None:
        QTimer.singleShot(20, look)
        return None
    if "second" not in seen:
        seen["second"] = second_start(data_dir, tmp_path, *paths)
    second = seen["second"]
    assert isinstance(second, subprocess.Popen)
    return window, second


def test_a_second_start_hands_its_folder_to_the_running_window_and_exits(
    qapp: QApplication, data_dir: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "Diary 1998"
    folder.mkdir()
    Image.new("RGB", (40, 56), (200, 190, 180)).save(folder / "p1.png")
    seen: dict[str, object] = {}
    started = time.monotonic()

    def look() -> None:
        both = window_and_second(qapp, seen, look, data_dir, tmp_path, folder)
        if both is None:
            return
        window, second = both
        arrived = folder in window.start_page.paths()
        if (second.poll() is None or not arrived) and time.monotonic() - started < DEADLINE_S:
            QTimer.singleShot(20, look)
            return
        seen["code"] = second.wait()
        seen["stderr"] = (tmp_path / "second-stderr.txt").read_text()
        seen["paths"] = window.start_page.paths()
        seen["windows"] = len([w for w in qapp.topLevelWidgets() if isinstance(w, MainWindow)])
        window.scan_page.stop_and_wait()
        window.close()

    QTimer.singleShot(0, look)
    assert gui_app.run_gui(data_dir, []) == 0
    assert seen["code"] == 0, seen["stderr"]
    assert seen["paths"] == [folder]  # forwarded, and taken by the one window
    assert seen["windows"] == 1


def test_a_second_start_with_nothing_to_hand_over_exits_too(
    qapp: QApplication, data_dir: Path, tmp_path: Path
) -> None:
    seen: dict[str, object] = {}

    def look() -> None:
        both = window_and_second(qapp, seen, look, data_dir, tmp_path)
        if both is None:
            return
        window, second = both
        if second.poll() is None:
            QTimer.singleShot(20, look)
            return
        seen["code"] = second.returncode
        window.close()

    QTimer.singleShot(0, look)
    assert gui_app.run_gui(data_dir, []) == 0
    assert seen["code"] == 0


def test_a_window_on_a_corpus_another_window_holds_says_so(
    qapp: QApplication, data_dir: Path
) -> None:
    other = api.WindowClaim(Corpus.open(data_dir))  # another user's window, say
    assert other.held
    seen: list[str] = []

    def look() -> None:
        window = the_window(qapp)
        if window is None:
            QTimer.singleShot(20, look)
            return
        seen.append(window.dialogs.other_window_notice)
        seen.append(window.statusBar().currentMessage())
        window.close()

    QTimer.singleShot(0, look)
    try:
        assert gui_app.run_gui(data_dir, []) == 0
    finally:
        other.release()
    notice, status = seen
    assert "Another Transcribe Import window has this corpus open" in notice
    assert status == notice


def test_the_app_names_its_desktop_file(qapp: QApplication) -> None:
    gui_app.application()
    assert qapp.desktopFileName() == gui_app.DESKTOP_FILE_NAME
    entries = list((REPO / "packaging").rglob(f"{gui_app.DESKTOP_FILE_NAME}.desktop"))
    assert entries, "the desktop entry the name points to is in packaging/"


def test_paths_handed_over_are_taken_after_the_socket_is_done_with(
    qtbot: QtBot, tmp_path: Path
) -> None:
    """Taking handed paths may ask a question (a modal dialog runs its own event loop), in
    which the other start disconnects and its socket is deleted: the paths are handed on
    after the socket's handler has returned, so Qt never reads a deleted socket (this
    crashed the window: "Replace the List" after `gui FOLDER` over a review)."""
    key = f"transcribe-import-test-{os.getpid()}-{tmp_path.name}"[:100]
    server = gui_app.InstanceServer(key)
    assert server.is_listening()
    code = (
        "import sys; from pathlib import Path; from transcribe_import.gui import app; "
        "sys.exit(0 if app.forward_to_running(sys.argv[1], [Path(sys.argv[2])]) else 1)"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO / "app"), "QT_QPA_PLATFORM": "offscreen"}
    other = subprocess.Popen([sys.executable, "-c", code, key, str(tmp_path / "Box")], env=env)
    taken: list[list[Path]] = []

    def take(paths: list[Path]) -> None:
        # Not from inside the socket's readyRead handler, which Qt goes on with afterwards.
        assert "_read" not in [frame.function for frame in inspect.stack()]
        # As a question would: an event loop of its own (QDialog.exec), run until the other
        # start has gone and the window's end of its socket has been deleted in it.
        loop = QEventLoop()
        deadline = time.monotonic() + DEADLINE_S

        def look() -> None:
            if server.server.findChildren(QLocalSocket) and time.monotonic() < deadline:
                QTimer.singleShot(10, look)
            else:
                loop.quit()

        QTimer.singleShot(10, look)
        loop.exec()
        assert not server.server.findChildren(QLocalSocket)
        taken.append(paths)

    server.paths_received.connect(take)
    try:
        qtbot.waitUntil(lambda: bool(taken), timeout=DEADLINE_S * 1000)
    finally:
        other.wait(DEADLINE_S)
        server.server.close()
    assert other.returncode == 0  # answered: the window took them
    assert taken == [[tmp_path / "Box"]]
