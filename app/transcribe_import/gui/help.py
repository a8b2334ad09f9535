"""The Help menu: the guide, the keyboard shortcuts, About, and the box that shows them."""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar, QMessageBox, QWidget

from transcribe_import import __version__

_t = QCoreApplication.translate


def guide_html() -> str:
    """The short guide Help › Guide shows (words in one place: here, through tr)."""
    tr = QCoreApplication.translate
    return tr(
        "Guide",
        "<h3>Importing scanned notebooks</h3>"
        "<ol>"
        "<li><b>Choose</b>: drop folders of page photos, PDFs or TIFFs on the window, or use "
        "Add Folder. Say how they become notebooks: one per folder, all into one new "
        "notebook, or into one the corpus has.</li>"
        "<li><b>Scan</b>: the files are read and a plan is proposed. Nothing is imported "
        "yet.</li>"
        "<li><b>Review</b>: check each notebook's page order. Where the order is in doubt "
        "(a page number twice, a camera counter that rolled over) the window asks you to "
        "decide. Leave out pages you do not want, rename, choose the cover. Commit is "
        "possible once validation finds no error. Pages worth a second look (blank, too "
        "small, too dark or light, blurred, sideways) are badged and noted in Problems, "
        "never in the way; a sideways page's note, Turn it?, has a button beside Validate "
        "that turns it as it says, and nothing is turned without it.</li>"
        "<li><b>Commit</b>: pages land in the corpus a few at a time, and however the "
        "import stops (Pause, Stop Import…, a crash) the pages already in stay. Pause stops "
        "at a safe point; the run can be resumed, after a crash too. Stop Import… asks "
        "whether to keep what landed (Retry What Did Not Land then imports the rest, never "
        "doubling a page) or to undo the import, which first shows what it takes out.</li>"
        "</ol>"
        "<p><b>Runs</b> lists every import and its outcomes (Show What This Import Added "
        "shows the pages it put in the corpus); <b>Corpus</b> lists the notebooks, opens one "
        "to show its pages in order (double-click or Open), where Turn (Ctrl+R, "
        "Ctrl+Shift+R) sets pages scanned sideways upright, the page as it was kept under "
        "History and Undo Turn… putting it back; it exports them, and checks the "
        "corpus's health. Nothing is ever written next to your source files.</p>",
    )


def shortcuts_html(menu_bar: QMenuBar, pages: Sequence[tuple[str, Iterable[QAction]]]) -> str:
    """Every key, read from the menus' actions and then each page's own: ``pages`` pairs
    where they work (a heading) with that page's actions."""
    menus: list[tuple[str, str]] = []
    for menu_action in menu_bar.actions():
        menu = menu_action.menu()
        if not isinstance(menu, QMenu):  # QAction.menu() is typed QObject
            continue
        menus += _keyed(menu.actions(), [])
    menus.append(
        (_t("Help", "A button or field with an underlined letter"), _t("Help", "Alt+letter"))
    )
    table = _rows(menus)
    for where, actions in pages:
        keyed = _keyed(actions, menus)
        if keyed:
            table += f"<tr><td colspan='2'><b>{html.escape(where)}</b></td></tr>" + _rows(keyed)
    return (
        _t("Help", "<p>A page's keys work while it has the focus.</p>")
        + f"<table cellspacing='6'>{table}</table>"
    )


def _keyed(actions: Iterable[QAction], listed: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The actions that have a key, as (their text, the key), but those ``listed`` already."""
    rows: list[tuple[str, str]] = []
    for action in actions:
        keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        text = action.text().replace("&", "")
        if keys and all(text != known for known, _ in [*listed, *rows]):
            rows.append((text, keys))
    return rows


def _rows(rows: list[tuple[str, str]]) -> str:
    return "".join(
        f"<tr><td>{html.escape(text)}</td><td><b>{html.escape(keys)}</b></td></tr>"
        for text, keys in rows
    )


def about_html(root: Path) -> str:
    """Help › About: the version, what the app is for, and the corpus open."""
    return _t(
        "Help",
        "<p><b>Transcribe Import {version}</b></p>"
        "<p>Brings scanned notebooks into a local Transcribe corpus, safely.</p>"
        "<p>Corpus: {root}</p>",
    ).format(version=__version__, root=html.escape(str(root)))


def help_box(parent: QWidget, title: str, text: str) -> QMessageBox:
    """A rich-text box that does not block the window (opened, not run), with Close."""
    box = QMessageBox(parent)
    box.setWindowTitle(title)
    box.setIcon(QMessageBox.Icon.Information)
    box.setTextFormat(Qt.TextFormat.RichText)
    box.setText(text)
    box.setStandardButtons(QMessageBox.StandardButton.Close)
    box.open()
    return box
