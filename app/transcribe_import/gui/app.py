"""The `gui` command: start Qt, open the corpus, show the main window until it is closed."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QLibraryInfo, QLocale, QSettings, QTranslator
from PySide6.QtWidgets import QApplication, QMessageBox

from transcribe_import import __version__
from transcribe_import.engine.api import exit_code_for_error, open_corpus
from transcribe_import.engine.base.config import ENV_DATA_DIR, resolve_data_dir
from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.resources import RESOURCES_DIR, app_icon
from transcribe_import.gui.settings_dialog import load_settings

APP_NAME = "Transcribe Import"
ORG_NAME = "Transcribe"

TRANSLATIONS_DIR = RESOURCES_DIR / "translations"


def application() -> QApplication:
    """The process's QApplication, named so QSettings and the desktop know what it is."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv)
        _install_translators(app)
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(ORG_NAME)
    app.setApplicationVersion(__version__)
    icon = app_icon()
    if not icon.isNull():
        app.setWindowIcon(icon)
    return app


def _install_translators(app: QApplication) -> None:
    """Qt's own strings and ours in the user's language, when a translation is there.

    Every text of the window goes through tr(); a missing translation leaves English.
    """
    locale = QLocale()
    qt = QTranslator(app)
    if qt.load(locale, "qtbase", "_", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(qt)
    ours = QTranslator(app)
    if ours.load(locale, "transcribe-import", "_", str(TRANSLATIONS_DIR)):
        app.installTranslator(ours)


def chosen_data_dir(data_dir: Path, settings: QSettings) -> Path:
    """The data directory to open: the settings dialog's choice ranks below --data-dir and env.

    The documented order (docs/cli.md) is --data-dir, then TRANSCRIBE_DATA_DIR, then the
    platform default; the saved choice replaces only the platform default, which is what
    ``data_dir`` is when neither of the others was given.
    """
    saved = load_settings(settings).data_dir
    if saved and not os.environ.get(ENV_DATA_DIR) and data_dir == resolve_data_dir(None):
        return Path(saved).expanduser().absolute()
    return data_dir


def run_gui(data_dir: Path, paths: Sequence[Path]) -> int:
    """Open the window on the corpus in ``data_dir``; returns the process exit code.

    ``paths`` (folders and files given on the command line) are scanned at once with the
    default mapping, one notebook per folder.
    """
    app = application()
    data_dir = chosen_data_dir(data_dir, QSettings())
    try:
        corpus = open_corpus(data_dir)
    except TranscribeError as exc:
        QMessageBox.critical(None, APP_NAME, str(exc))
        # The CLI's exit codes (docs/cli.md): LOCKED when another process holds the corpus.
        return exit_code_for_error(exc)
    window = MainWindow(corpus)
    window.show()
    if paths:
        window.prescan([Path(p) for p in paths])
    return app.exec()
