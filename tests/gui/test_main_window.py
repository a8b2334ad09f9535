"""The main window, driven as a user would: its notebook list, health panel, menus and closing."""

from __future__ import annotations

import html
import threading
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QLocale, QModelIndex, QSettings, Qt, QTimer, QUrl
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.findings import DoctorReport, FindingCode
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui import app as gui_app
from transcribe_import.gui import main_window, window_dialogs
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.models.notebooks import NotebookColumn, NotebookTableModel
from transcribe_import.gui.window_geometry import FRAME_ALLOWANCE, GEOMETRY_KEY
from transcribe_import.gui.wording import format_local
from transcribe_import.gui.workers import running_workers

from helpers.window import TIMEOUT_MS

OpenWindow = Callable[..., MainWindow]


def table_text(window: MainWindow) -> list[list[str]]:
    """What the table shows, row by row, in the order the user sees it."""
    model = window.corpus_page.notebook_table.model()
    return [
        [model.index(r, c).data() for c in range(model.columnCount())]
        for r in range(model.rowCount())
    ]


def findings_text(window: MainWindow) -> list[str]:
    view = window.corpus_page.findings_view
    return [view.item(row, 0).text() for row in range(view.rowCount())]


def test_empty_corpus_says_so_and_where_it_is(open_window: OpenWindow, corpus: Corpus) -> None:
    window = open_window()

    assert window.corpus_page.notebook_stack.currentWidget() is window.corpus_page.empty_label
    assert (
        f"No notebooks in {html.escape(str(corpus.root))} yet."
        in window.corpus_page.empty_label.text()
    )
    assert window.corpus_page.notebook_model.rowCount() == 0
    assert str(corpus.root) in window.corpus_path_label.text()
    assert window.notebook_count_label.text() == "0 notebooks"


def test_table_lists_notebooks_with_titles_and_page_counts(
    qtbot: QtBot,
    open_window: OpenWindow,
    corpus: Corpus,
    make_notebook: Callable[..., str],
    tmp_path: Path,
) -> None:
    make_notebook("Field notes, spring", pages=2)
    make_notebook("Lab book")
    make_notebook("Diary 1998", pages=3)

    window = open_window()

    assert window.corpus_page.notebook_stack.currentWidget() is window.corpus_page.notebook_table
    listed = corpus.list_notebooks()
    created = [format_local(n.created_at) for n in listed]
    ids = [n.notebook_id[:8] for n in listed]
    scans = str(tmp_path / "scans")  # where make_notebook's pages come from
    # The Source column is read after the listing: the folders each notebook's files came from.
    qtbot.waitUntil(lambda: table_text(window)[0][5] == scans, timeout=TIMEOUT_MS)
    assert table_text(window) == [
        ["Field notes, spring", "2", created[0], "Complete", ids[0], scans],
        ["Lab book", "0", created[1], "Complete", ids[1], ""],
        ["Diary 1998", "3", created[2], "Complete", ids[2], scans],
    ]
    assert window.notebook_count_label.text() == "3 notebooks"


def test_clicking_a_header_sorts_by_that_column(
    qtbot: QtBot, open_window: OpenWindow, make_notebook: Callable[..., str]
) -> None:
    make_notebook("b", pages=10)
    make_notebook("a", pages=9)
    window = open_window()

    window.corpus_page.notebook_table.sortByColumn(
        NotebookColumn.PAGES, Qt.SortOrder.AscendingOrder
    )
    # By number, not by text: "10" comes after "9".
    assert [row[1] for row in table_text(window)] == ["9", "10"]
    window.corpus_page.notebook_table.sortByColumn(
        NotebookColumn.TITLE, Qt.SortOrder.AscendingOrder
    )
    assert [row[0] for row in table_text(window)] == ["a", "b"]


def test_clean_corpus_has_nothing_to_report(
    open_window: OpenWindow, make_notebook: Callable[..., str]
) -> None:
    make_notebook("Lab book", pages=1)

    window = open_window()

    assert window.corpus_page.health_summary.text().startswith(
        "Nothing to report: the corpus is whole"
    )
    assert "1 notebook checked" in window.corpus_page.health_summary.text()
    assert window.corpus_page.findings_view.isHidden()
    assert window.corpus_page.check_again_button.isEnabled()
    assert not window.health.is_checking()


def test_notebook_without_manifest_is_reported_in_panel_and_table(
    open_window: OpenWindow, corpus: Corpus, make_notebook: Callable[..., str]
) -> None:
    make_notebook("Intact", pages=1)  # with a page: an empty notebook is told as well
    broken = make_notebook("Lost manifest", pages=1)
    (corpus.notebook_dir(broken) / "project.json").unlink()

    window = open_window()

    assert window.corpus_page.health_summary.text().startswith("1 needs attention")
    assert not window.corpus_page.findings_view.isHidden()
    [message] = findings_text(window)
    assert "Lost manifest" in message and broken in message
    item = window.corpus_page.findings_view.item(0, 0)
    assert FindingCode.REGISTERED_WITHOUT_MANIFEST in item.toolTip()
    assert item.data(Qt.ItemDataRole.AccessibleTextRole).startswith("Needs attention: ")
    assert not item.icon().isNull()

    rows = table_text(window)
    assert rows[1][:2] == ["Lost manifest", "?"]
    model = window.corpus_page.notebook_table.model()
    assert "project.json does not exist" in model.index(1, NotebookColumn.PAGES).data(
        Qt.ItemDataRole.ToolTipRole
    )
    assert model.index(1, NotebookColumn.TITLE).data(Qt.ItemDataRole.DecorationRole) is not None
    assert model.index(0, NotebookColumn.TITLE).data(Qt.ItemDataRole.DecorationRole) is None


def test_check_again_runs_doctor_again_and_shows_the_new_result(
    qtbot: QtBot, open_window: OpenWindow, corpus: Corpus, make_notebook: Callable[..., str]
) -> None:
    notebook_id = make_notebook("Lab book", pages=1)  # an empty one is told as well
    window = open_window()
    assert window.corpus_page.findings_view.isHidden()

    (corpus.notebook_dir(notebook_id) / "project.json").unlink()
    with qtbot.waitSignal(window.health.checked, timeout=TIMEOUT_MS):
        qtbot.mouseClick(window.corpus_page.check_again_button, Qt.MouseButton.LeftButton)
        # Until the check ends the button cannot start a second one.
        assert not window.corpus_page.check_again_button.isEnabled()
        assert window.corpus_page.health_summary.text() == "Checking the corpus…"

    assert window.corpus_page.check_again_button.isEnabled()
    assert len(findings_text(window)) == 1
    assert table_text(window)[0][1] == "?"


def test_notebooks_are_listed_again_after_doctor_registers_one(
    open_window: OpenWindow, corpus: Corpus, make_notebook: Callable[..., str]
) -> None:
    make_notebook("Never registered", pages=1)
    # As if the process died between the rename into place and the index append.
    corpus.index_path.write_bytes(b"")

    window = open_window()

    assert window.corpus_page.health_summary.text().startswith("1 repaired")
    assert [row[:2] for row in table_text(window)] == [["Never registered", "1"]]
    assert window.corpus_page.notebook_stack.currentWidget() is window.corpus_page.notebook_table


def test_a_failed_check_is_shown_and_can_be_retried(
    qtbot: QtBot, open_window: OpenWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    def busy(corpus: Corpus, **kw: Any) -> DoctorReport:
        raise TranscribeError(ErrorCode.CORPUS_BUSY, "The corpus is busy; try again.")

    monkeypatch.setattr(api, "check_corpus", busy)
    window = open_window()

    assert window.corpus_page.health_summary.text() == (
        "The check could not finish: The corpus is busy; try again."
    )
    assert window.corpus_page.check_again_button.isEnabled()


def test_closing_during_a_check_waits_for_the_thread(
    qtbot: QtBot,
    corpus: Corpus,
    settings: QSettings,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_check = api.check_corpus
    started, release = threading.Event(), threading.Event()

    def held_check(c: Corpus, **kw: Any) -> DoctorReport:
        started.set()
        release.wait(TIMEOUT_MS / 1000)
        return real_check(c, **kw)

    monkeypatch.setattr(api, "check_corpus", held_check)
    window = MainWindow(corpus, settings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(started.is_set, timeout=TIMEOUT_MS)
    assert running_workers(), "the check should still be running"
    real_close = window.health._checks.close

    def release_then_wait() -> None:
        release.set()  # the check ends only once the closing window waits for it
        real_close()

    monkeypatch.setattr(window.health._checks, "close", release_then_wait)

    assert window.close()

    assert running_workers() == []


def test_window_remembers_its_geometry(
    qtbot: QtBot, open_window: OpenWindow, settings: QSettings
) -> None:
    first = open_window()
    # The default size, cut to the free area of the (offscreen, 800x800) screen.
    free = main_window.available_geometry(first)
    allowance = FRAME_ALLOWANCE
    assert (first.width(), first.height()) == (
        min(main_window.DEFAULT_SIZE[0], free.width() - allowance[0]),
        min(main_window.DEFAULT_SIZE[1], free.height() - allowance[1]),
    )
    first.resize(700, 480)
    first.close()
    assert settings.value(GEOMETRY_KEY)

    second = open_window()
    assert (second.width(), second.height()) == (700, 480)


def test_quit_closes_the_window(open_window: OpenWindow) -> None:
    window = open_window()
    assert window.quit_action.shortcut() == QKeySequence("Ctrl+Q")

    window.quit_action.trigger()

    assert not window.isVisible()


def test_open_corpus_folder_asks_the_desktop_to_show_it(
    open_window: OpenWindow, corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[QUrl] = []

    class FakeDesktop:
        @staticmethod
        def openUrl(url: QUrl) -> bool:  # noqa: N802 - Qt's name
            opened.append(url)
            return True

    monkeypatch.setattr(window_dialogs, "QDesktopServices", FakeDesktop)
    window = open_window()

    window.open_folder_action.trigger()

    assert opened == [QUrl.fromLocalFile(str(corpus.root))]


def test_notebook_model_is_a_well_behaved_qt_model(
    qtmodeltester, corpus: Corpus, make_notebook: Callable[..., str]
) -> None:
    model = NotebookTableModel()
    qtmodeltester.check(model)

    make_notebook("One", pages=2)
    broken = make_notebook("Two")
    (corpus.notebook_dir(broken) / "project.json").unlink()
    model.set_notebooks(corpus.list_notebooks())
    qtmodeltester.check(model)
    assert model.rowCount() == 2
    assert model.rowCount(model.index(0, 0)) == 0
    assert model.data(QModelIndex()) is None


@pytest.fixture
def locale(request: pytest.FixtureRequest) -> Iterator[None]:
    """Run with QLocale's default set to the named locale, and put the old one back."""
    before = QLocale()
    QLocale.setDefault(QLocale(request.param))
    yield
    QLocale.setDefault(before)


@pytest.mark.parametrize(
    ("locale", "strftime"),
    [("C", "%Y-%m-%d %H:%M"), ("en_GB", "%d/%m/%Y %H:%M")],
    indirect=["locale"],
)
def test_created_is_shown_in_local_time_and_locale(locale: None, strftime: str) -> None:
    # Midnight UTC on New Year is still the old year west of Greenwich, the new one east of it.
    local = datetime.fromisoformat("2026-01-01T00:00:00+00:00").astimezone()
    assert format_local("2026-01-01T00:00:00.000000Z") == local.strftime(strftime)
    assert format_local("not a time") == "not a time"


# -- run_gui ---------------------------------------------------------------------------------


class _RecordingMessageBox:
    shown: list[str] = []

    @classmethod
    def critical(cls, parent: object, title: str, text: str) -> None:
        cls.shown.append(text)


@pytest.mark.parametrize(
    ("code", "exit_code"), [(ErrorCode.CORPUS_BUSY, 5), (ErrorCode.CORPUS_INVALID, 1)]
)
def test_run_gui_reports_a_corpus_it_cannot_open(
    qapp: QApplication,
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    code: ErrorCode,
    exit_code: int,
) -> None:
    def refuse(path: Path) -> Corpus:
        raise TranscribeError(code, f"Cannot open {path}.")

    monkeypatch.setattr(gui_app, "open_corpus", refuse)
    monkeypatch.setattr(gui_app, "QMessageBox", _RecordingMessageBox)
    _RecordingMessageBox.shown = []

    assert gui_app.run_gui(data_dir, []) == exit_code
    assert _RecordingMessageBox.shown == [f"Cannot open {data_dir}."]


def test_run_gui_opens_the_window_and_returns_when_it_closes(
    qapp: QApplication, data_dir: Path
) -> None:
    seen: list[MainWindow] = []

    def close_window() -> None:
        [window] = [
            w for w in qapp.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()
        ]
        seen.append(window)
        window.close()

    QTimer.singleShot(0, close_window)
    assert gui_app.run_gui(data_dir, [Path("ignored.pdf")]) == 0

    [window] = seen
    assert window.corpus.root == data_dir / "corpus"
    assert qapp.applicationName() == "Transcribe Import"
    assert qapp.organizationName() == "Transcribe"
    assert not qapp.windowIcon().isNull()
    window.deleteLater()
