"""The window's dialogs: Settings, Export, Watch a Folder and its log, Help, and notices.

The window holds one ``WindowDialogs`` (``window.dialogs``) and its menus call it. What the
dialogs use of the window is named in ``DialogsHost``, so the window imports them and they
never import the window.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject, QSettings, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDialog, QMenuBar, QMessageBox, QStatusBar, QWidget

from transcribe_import.engine.api import Corpus
from transcribe_import.gui.dialogs import FolderKind, choose_folder
from transcribe_import.gui.export_dialog import ExportDialog
from transcribe_import.gui.help import about_html, guide_html, help_box, shortcuts_html
from transcribe_import.gui.import_flow import ImportFlow
from transcribe_import.gui.settings_dialog import ImportSettings, SettingsDialog, save_settings
from transcribe_import.gui.watching import DropLogDialog, FolderWatch
from transcribe_import.gui.window_pages import WindowPages


class DialogsHost(WindowPages, Protocol):
    """What the dialogs use of the window that holds them."""

    @property
    def corpus(self) -> Corpus: ...
    @property
    def flow(self) -> ImportFlow: ...
    @property
    def folder_watch(self) -> FolderWatch: ...

    import_settings: ImportSettings

    def window(self) -> QWidget: ...  # Qt's: the window itself, the parent of the dialogs
    def statusBar(self) -> QStatusBar: ...
    def menuBar(self) -> QMenuBar: ...
    def settings(self) -> QSettings: ...
    def is_closing(self) -> bool: ...


class WindowDialogs(QObject):
    """The dialogs the window's menus open, and the one export that may be running."""

    def __init__(self, host: DialogsHost, parent: QObject) -> None:
        super().__init__(parent)
        self._host = host
        self.export_dialog: ExportDialog | None = None
        self.help_box: QMessageBox | None = None
        self.other_window_notice = ""

    def export_notebooks(self) -> None:
        """File › Export Notebooks… (and Export… in the Corpus view): a dialog that can cancel,
        on the Corpus view's selection or open notebook, where any notebook can be chosen."""
        host, running = self._host, self.export_dialog
        if host.is_closing() or (running is not None and running.is_running()):
            return
        chosen, listed = host.corpus_page.export_choice(), host.corpus_page.notebook_model.rows()
        if self.export_dialog is not None:
            self.export_dialog.deleteLater()
        self.export_dialog = ExportDialog(host.corpus, chosen, host.window(), choices=listed)
        self.export_dialog.open()

    def stop_export(self) -> None:
        """The window is closing: a cancelled export says so in its folder."""
        if self.export_dialog is not None:
            self.export_dialog.stop_and_wait()

    def watch_folder(self) -> None:
        folder = choose_folder(
            self._host.window(),
            self._host.settings(),
            FolderKind.SCANS,
            self.tr("Choose a Folder to Watch"),
        )
        if folder is not None:
            self._host.folder_watch.watch(folder)

    def show_watch_log(self) -> DropLogDialog:
        dialog = DropLogDialog(self._host.corpus, self._host.window())
        dialog.open()
        return dialog

    def open_corpus_folder(self) -> None:
        root = self._host.corpus.root
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(root))):
            QMessageBox.warning(
                self._host.window(),
                self.tr("Open Corpus Folder"),
                self.tr("No file manager could open {root}.").format(root=root),
            )

    def show_settings(self) -> None:
        host = self._host
        dialog = SettingsDialog(host.import_settings, host.corpus.data_dir, host.window())
        if dialog.exec() == QDialog.DialogCode.Accepted:
            values = dialog.values()
            restart = values.data_dir != host.import_settings.data_dir
            host.import_settings = values
            save_settings(host.settings(), values)
            if values.hints != host.flow.session.hints:
                host.flow.session.set_hints(values.hints)
                host.flow.validate_plan()  # Problems' lines of the hints left on
            host.corpus_page.audit_panel.refresh()  # its reminder follows the new setting
            rejudged = host.flow.rejudge_duplicates()  # the review open, by the new setting
            host.statusBar().showMessage(
                self.tr("Settings saved. The data directory applies on the next start.")
                if restart
                else self.tr("Settings saved; the notebooks under review were judged again.")
                if rejudged
                else self.tr("Settings saved; they apply to the next scan or commit."),
                8000,
            )
        dialog.deleteLater()

    def show_guide(self) -> None:
        """Help › Guide: the four steps and what the app promises, in a few lines."""
        self.help_box = help_box(self._host.window(), self.tr("Guide"), guide_html())

    def show_shortcuts(self) -> None:
        """Help › Keyboard Shortcuts: every key, read from the actions that have one: the
        menus', then the review's and an open notebook's (its Turn), each under where."""
        pages = [
            (self.tr("On the review page"), self._host.review_page.actions()),
            (
                self.tr("In a notebook opened under Corpus"),
                self._host.corpus_page.library.actions(),
            ),
        ]
        text = shortcuts_html(self._host.menuBar(), pages)
        self.help_box = help_box(self._host.window(), self.tr("Keyboard Shortcuts"), text)

    def show_about(self) -> None:
        QMessageBox.about(
            self._host.window(),
            self.tr("About Transcribe Import"),
            about_html(self._host.corpus.root),
        )

    def tell_other_window(self) -> None:
        """Another window has this corpus open (another user, or one that did not answer)."""
        self.other_window_notice = self.tr(
            "Another Transcribe Import window has this corpus open. Both can work safely: "
            "each import locks what it writes. But each window shows the other's imports "
            "only after Refresh or Check Again."
        )
        self._host.statusBar().showMessage(self.other_window_notice)
        self.help_box = help_box(
            self._host.window(), self.tr("Corpus Open Elsewhere"), self.other_window_notice
        )
