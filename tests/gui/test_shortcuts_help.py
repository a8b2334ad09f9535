"""Help › Keyboard Shortcuts lists every page's keys under where they work: the review's and
an open notebook's Turn Right and Turn Left (#39)."""

from __future__ import annotations

import re
from collections.abc import Callable

from pytestqt.qtbot import QtBot

from transcribe_import.gui.main_window import MainWindow


def test_the_shortcuts_list_the_library_turn_keys(
    qtbot: QtBot, open_window: Callable[..., MainWindow]
) -> None:
    window = open_window()
    window.shortcuts_action.trigger()
    box = window.dialogs.help_box
    qtbot.waitUntil(box.isVisible)

    text = box.text()
    rows = re.findall(r"<tr><td(?: colspan='2')?>(.*?)</td>(?:<td><b>(.*?)</b></td>)?</tr>", text)
    review = rows.index(("<b>On the review page</b>", ""))
    library = rows.index(("<b>In a notebook opened under Corpus</b>", ""))
    assert review < library
    assert rows[library + 1 :] == [("Turn Right", "Ctrl+R"), ("Turn Left", "Ctrl+Shift+R")]
    assert ("Turn right", "Ctrl+R") in rows[review + 1 : library]
    assert ("Guide", "F1") in rows[:review]  # the menus' keys first, as before
    assert "A page's keys work while it has the focus." in text
    # The keys listed are the ones the open notebook's actions carry.
    library_view = window.corpus_page.library
    assert library_view.turn_right_action.shortcut().toString() == "Ctrl+R"
    assert library_view.turn_left_action.shortcut().toString() == "Ctrl+Shift+R"
    box.close()
