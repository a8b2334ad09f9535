"""File › Export Notebooks… through the real window: the Corpus view's selection becomes a valid
bag; with no selection the dialog lets a person choose; Cancel leaves a folder that says it is
incomplete; closing the window stops the export."""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import bagit
import pytest
from PySide6.QtCore import QItemSelectionModel, Qt
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.export.model import ExportStatus
from transcribe_import.gui.export_dialog import ExportDialog
from transcribe_import.gui.main_window import MainWindow, Section

from helpers.window import TIMEOUT_MS


@pytest.fixture
def window(
    qtbot: QtBot, open_window: Callable[..., MainWindow], make_notebook: Callable[..., str]
) -> MainWindow:
    """A window on a corpus of three small notebooks, with its first check done."""
    for title, pages in (("Field notes", 3), ("Letters", 2), ("Sketches", 1)):
        make_notebook(title, pages)
    w = open_window()
    qtbot.waitUntil(
        lambda: w.corpus_page.notebook_table.model().rowCount() == 3, timeout=TIMEOUT_MS
    )
    return w


def select_titles(window: MainWindow, *titles: str) -> None:
    window.show_section(Section.CORPUS)
    table = window.corpus_page.notebook_table
    model = table.model()
    selection = table.selectionModel()
    selection.clearSelection()
    for row in range(model.rowCount()):
        if model.index(row, 0).data() in titles:
            selection.select(
                model.index(row, 0),
                QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows,
            )


def _export_dialog(window: MainWindow, dest: Path, *titles: str) -> tuple[ExportDialog, Path]:
    """File › Export… on the notebooks titled ``titles``, into ``dest``: the dialog, and dest."""
    select_titles(window, *titles)
    window.export_action.trigger()
    dialog = window.dialogs.export_dialog
    assert dialog is not None
    dialog.set_destination(dest)
    return dialog, dest


def test_export_the_selection_into_a_valid_bag(qtbot: QtBot, window: MainWindow, tmp_path):
    select_titles(window, "Field notes", "Sketches")
    window.export_action.trigger()
    dialog = window.dialogs.export_dialog
    assert dialog is not None and dialog.isVisible()
    assert "2 notebooks" in dialog.summary.text()
    assert str(window.corpus.data_dir / "exports") in dialog.destination_label.text()
    dest = tmp_path / "bag"
    dialog.set_destination(dest)

    with qtbot.waitSignal(dialog.ended, timeout=TIMEOUT_MS) as ended:
        qtbot.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)

    result = ended.args[0]
    assert result is not None and result.status is ExportStatus.COMPLETE
    assert result.destination == dest
    assert sorted(n.title for n in result.notebooks) == ["Field notes", "Sketches"]
    bagit.Bag(str(dest)).validate()
    qtbot.waitUntil(lambda: dialog.close_button.isVisible(), timeout=TIMEOUT_MS)
    assert "Exported." in dialog.status_label.text()
    assert dialog.show_folder_button.isVisible() and not dialog.export_button.isVisible()
    assert dialog.progress_bar.value() == dialog.progress_bar.maximum()
    qtbot.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()


def test_export_into_the_default_folder(qtbot: QtBot, window: MainWindow):
    select_titles(window, "Letters")
    window.export_action.trigger()
    dialog = window.dialogs.export_dialog
    assert dialog is not None
    with qtbot.waitSignal(dialog.ended, timeout=TIMEOUT_MS) as ended:
        dialog.start()
    result = ended.args[0]
    assert result.destination.parent == window.corpus.data_dir / "exports"
    day = result.destination.name.rsplit(" – ", 1)[1]
    assert result.destination.name == f"Letters – {day}"  # the title and the date
    assert str(result.destination) in dialog.status_label.text()
    bagit.Bag(str(result.destination)).validate()


def test_without_a_selection_the_dialog_opens_to_choose_in(qtbot: QtBot, window: MainWindow):
    window.show_section(Section.IMPORT)
    window.corpus_page.notebook_table.selectionModel().clearSelection()
    window.export_action.trigger()
    dialog = window.dialogs.export_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.summary.text() == "Choose the notebooks to export as a BagIt bag."
    assert not dialog.export_button.isEnabled()
    listed = [dialog.choice_list.item(r).text() for r in range(dialog.choice_list.count())]
    assert [t.split(" · ")[0] for t in listed] == ["“Field notes”", "“Letters”", "“Sketches”"]

    letters = window.corpus_page.notebook_model.rows()[1].notebook_id
    dialog.set_chosen([letters])
    assert dialog.summary.text() == "Export 1 notebook (“Letters”) as a BagIt bag."
    assert dialog.export_button.isEnabled()
    with qtbot.waitSignal(dialog.ended, timeout=TIMEOUT_MS) as ended:
        qtbot.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    result = ended.args[0]
    assert [n.title for n in result.notebooks] == ["Letters"]
    qtbot.waitUntil(lambda: dialog.close_button.isVisible(), timeout=TIMEOUT_MS)
    # Said in the dialog, whole: the label's wrapped text fits in the height it was given.
    label = dialog.status_label
    assert str(result.destination) in label.text()
    assert label.height() >= label.heightForWidth(label.width())
    assert window.statusBar().currentMessage() == ""


def _gated(gate: threading.Event) -> Callable[..., Generator[Any, None, Any]]:
    """api.export_notebooks, held after its first event until ``gate`` is set."""
    real = api.export_notebooks

    def export(*args: Any, **kw: Any) -> Generator[Any, None, Any]:
        gen = real(*args, **kw)
        yield next(gen)
        gate.wait(TIMEOUT_MS / 1000)
        return (yield from gen)

    return export


def test_cancel_leaves_a_folder_that_says_it_is_incomplete(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    gate = threading.Event()
    monkeypatch.setattr(api, "export_notebooks", _gated(gate))
    dialog, dest = _export_dialog(window, tmp_path / "bag", "Field notes", "Letters", "Sketches")
    with qtbot.waitSignal(dialog._slot.progress, timeout=TIMEOUT_MS):
        qtbot.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
    assert dialog.is_running() and dialog.cancel_button.text() == "&Cancel Export"

    with qtbot.waitSignal(dialog.ended, timeout=TIMEOUT_MS) as ended:
        qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)  # Cancel Export
        gate.set()

    assert ended.args[0].status is ExportStatus.CANCELLED
    assert "Export cancelled" in dialog.status_label.text()
    assert "cancelled" in (dest / "EXPORT-INCOMPLETE.txt").read_text()
    with pytest.raises(bagit.BagError):
        bagit.Bag(str(dest)).validate()
    qtbot.waitUntil(lambda: not dialog.is_running(), timeout=TIMEOUT_MS)
    assert dialog.isVisible()  # it says what happened until the person closes it


def test_closing_the_window_during_an_export_stops_it(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    gate = threading.Event()
    monkeypatch.setattr(api, "export_notebooks", _gated(gate))
    dialog, dest = _export_dialog(window, tmp_path / "bag", "Field notes")
    with qtbot.waitSignal(dialog._slot.progress, timeout=TIMEOUT_MS):
        dialog.start()
    threading.Timer(0.2, gate.set).start()  # the export goes on while the window waits for it
    window.close()
    assert not dialog.is_running()
    assert (dest / "EXPORT-INCOMPLETE.txt").exists() and not (dest / ".export.lock").exists()
