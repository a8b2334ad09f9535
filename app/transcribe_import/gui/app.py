"""The `gui` command: start Qt, open the corpus, show the main window until it is closed."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication, QMessageBox

from transcribe_import import __version__
from transcribe_import.engine.corpus import Corpus
from transcribe_import.engine.errors import ErrorCode, TranscribeError
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.resources import app_icon

APP_NAME = "Transcribe Import"
ORG_NAME = "Transcribe"
# The same exit codes as the CLI's (cli.md): 5 when another process holds the corpus.
EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_LOCKED = 5


def application() -> QApplication:
    """The process's QApplication, named so QSettings and the desktop know what it is."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv)
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(ORG_NAME)
    app.setApplicationVersion(__version__)
    icon = app_icon()
    if not icon.isNull():
        app.setWindowIcon(icon)
    return app


def run_gui(data_dir: Path, paths: list[Path]) -> int:
    """Open the window on the corpus in ``data_dir``; returns the process exit code.

    ``paths`` (files given on the command line) are accepted for the import window
    that will take them; this window does not import anything yet.
    """
    del paths
    app = application()
    try:
        corpus = Corpus.open(data_dir)
    except TranscribeError as exc:
        QMessageBox.critical(None, APP_NAME, str(exc))
        return EXIT_LOCKED if exc.code == ErrorCode.CORPUS_BUSY else EXIT_PROBLEMS
    window = MainWindow(corpus)
    window.show()
    return app.exec()
