"""One app per user and corpus (issue 13, #13): a second start hands its paths to the running
window and exits; a second window on a corpus another window holds says so."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from transcribe_import.engine import api
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui import app as gui_app
from transcribe_import.gui.main_window import MainWindow

pytestmark = pytest.mark.qt_log_ignore(
    "This plugin does not support propagateSizeHints", "This plugin does not support raise"
)

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


def test_a_second_start_hands_its_folder_to_the_running_window_and_exits(
    qapp: QApplication, data_dir: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "Diary 1998"
    folder.mkdir()
    Image.new("RGB", (40, 56), (200, 190, 180)).save(folder / "p1.png")
    seen: dict[str, object] = {}
    started = time.monotonic()

    def look() -> None:
        window = the_window(qapp)
        if window is None:
            QTimer.singleShot(20, look)
            return
        if "second" not in seen:
            seen["second"] = second_start(data_dir, tmp_path, folder)
        second = seen["second"]
        assert isinstance(second, subprocess.Popen)
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
        window = the_window(qapp)
        if window is None:
            QTimer.singleShot(20, look)
            return
        if "second" not in seen:
            seen["second"] = second_start(data_dir, tmp_path)
        second = seen["second"]
        assert isinstance(second, subprocess.Popen)
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
        seen.append(window.other_window_notice)
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
