"""The window's smaller faults of issue 23, each through the real window."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pytestqt.qtbot import QtBot

from transcribe_import.gui.main_window import MainWindow

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support propagateSizeHints")


def test_the_window_opens_where_it_was_closed_at_every_start(
    qtbot: QtBot, open_window: Callable[[], MainWindow]
) -> None:
    """Each start used to open it a title bar lower, until its status bar left the screen.

    On the test's own screen (the offscreen platform's, framed by 2-pixel borders): Qt
    itself cuts a remembered geometry to the real screen, which a patched one is not.
    """
    first = open_window()
    placed = first.geometry()
    framed = first.frameGeometry()
    assert framed != placed, "the platform frames the window, as a window manager would"
    first.close()
    for _start in range(4):
        window = open_window()
        assert (window.geometry(), window.frameGeometry()) == (placed, framed)
        window.close()
