"""The `gui` command: start Qt, open the corpus, show the main window until it is closed.

One app per user and corpus: the first start listens on a local socket named after the
user and the corpus (QLocalServer); a second start with the same corpus hands its paths
to the running window over that socket and exits, so `transcribe-import gui PATH` while
the window is open scans PATH there. A window of another user, or one that does not
answer, is told of by the corpus's advisory window lock: the second window says so.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import os
import sys
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path

from PySide6.QtCore import (
    QByteArray,
    QLibraryInfo,
    QLocale,
    QObject,
    QSettings,
    QTimer,
    QTranslator,
    Signal,
)
from PySide6.QtNetwork import QLocalServer, QLocalSocket
from PySide6.QtWidgets import QApplication, QMessageBox

from transcribe_import import __version__
from transcribe_import.engine.api import (
    ENV_DATA_DIR,
    ExitCode,
    WindowClaim,
    exit_code_for_error,
    open_corpus,
    resolve_data_dir,
    run_below,
)
from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.resources import RESOURCES_DIR, app_icon
from transcribe_import.gui.settings_dialog import load_settings

APP_NAME = "Transcribe Import"
ORG_NAME = "Transcribe"

TRANSLATIONS_DIR = RESOURCES_DIR / "translations"
# The desktop entry's name (packaging/linux): Wayland finds the window's icon by it.
DESKTOP_FILE_NAME = "transcribe-import"
# How long a second start waits for the running window to take its paths.
FORWARD_TIMEOUT_MS = 2000


# 0.1 ms: measured on a quiet machine (bench/RESULTS.md's history, `git log -p`, "Issue #26,
# session 7 (the lead engineer)"): at 1 ms the window's thread, asking for the GIL at each
# event PySide hands to Python, waited its turn behind the validation's Python for 100-660 ms
# at a time.
GIL_SWITCH_S = 0.0001
# How many steps of niceness the window's worker threads and the engine's worker processes
# run below the window's thread (engine/base/background.py): on a busy machine the scheduler
# gives its core to the window first, and the work keeps every core the window leaves idle.
BACKGROUND_STEPS = 5


def application() -> QApplication:
    """The process's QApplication, named so QSettings and the desktop know what it is."""
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv)
        _install_translators(app)
        # The window's thread asks for the GIL while a scan or a validation works on two or
        # three threads; handed round every GIL_SWITCH_S instead of Python's 5 ms, it gets
        # it back in time to paint (bench/bench_gui.py). The workers' own calls (decoding,
        # hashing, encoding) let the GIL go whatever the interval.
        sys.setswitchinterval(GIL_SWITCH_S)
        run_below(BACKGROUND_STEPS)
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(ORG_NAME)
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(DESKTOP_FILE_NAME)
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


def instance_key(data_dir: Path) -> str:
    """The local socket's name: one per user and corpus (a name, not a path, short enough)."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container): its number will do
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    corpus = hashlib.sha256(str(data_dir.expanduser().absolute()).encode()).hexdigest()[:16]
    safe_user = "".join(c for c in user if c.isalnum())[:24] or "user"
    return f"transcribe-import-{safe_user}-{corpus}"


def forward_to_running(key: str, paths: Sequence[Path]) -> bool:
    """Hand ``paths`` to the window already running under ``key``; False if none answers."""
    socket = QLocalSocket()
    socket.connectToServer(key)
    if not socket.waitForConnected(FORWARD_TIMEOUT_MS):
        return False
    message = json.dumps({"paths": [str(Path(p).expanduser().absolute()) for p in paths]})
    socket.write(QByteArray(message.encode() + b"\n"))
    if not socket.waitForBytesWritten(FORWARD_TIMEOUT_MS):
        return False
    # The window answers once it has taken the paths: a window closing just now does not.
    answered = socket.waitForReadyRead(FORWARD_TIMEOUT_MS) and bytes(socket.readAll().data())
    socket.disconnectFromServer()
    return bool(answered)


class InstanceServer(QObject):
    """Listens for later starts of the app and emits the paths each one hands over."""

    paths_received = Signal(list)  # list[Path]; may be empty (the user started it again)

    def __init__(self, key: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        if not self.server.listen(key):
            # A socket file left by a process that died: no one answers it (forwarding failed).
            QLocalServer.removeServer(key)
            self.server.listen(key)
        self.server.newConnection.connect(self._connected)

    def is_listening(self) -> bool:
        return self.server.isListening()

    def _connected(self) -> None:
        while self.server.hasPendingConnections():
            socket = self.server.nextPendingConnection()
            socket.readyRead.connect(self._read)
            socket.disconnected.connect(socket.deleteLater)

    def _read(self) -> None:
        socket = self.sender()
        if not isinstance(socket, QLocalSocket) or not socket.canReadLine():
            return
        line = bytes(socket.readLine().data())
        try:
            doc = json.loads(line)
            paths = [Path(p) for p in doc.get("paths", []) if isinstance(p, str)]
        except (ValueError, AttributeError):
            paths = []  # not ours: say nothing, take nothing
            socket.disconnectFromServer()
            return
        socket.write(QByteArray(b"ok\n"))
        socket.flush()
        # Handed on once this handler has returned: taking the paths may ask a question (a
        # modal dialog's own event loop), in which the other start's disconnect deletes
        # this socket, and Qt would go on reading from it after the handler (a crash).
        QTimer.singleShot(0, self, partial(self.paths_received.emit, paths))


def missing_display(env: Mapping[str, str], platform: str = sys.platform) -> str | None:
    """Why no window can open here, in words, or None.

    On Linux with neither an X nor a Wayland display, and no Qt platform chosen by hand,
    QApplication would abort the process with Qt's own advice about libxcb packages, which
    is not the cause; this says what is.
    """
    if not platform.startswith("linux"):
        return None
    if any(env.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")):
        return None
    return (
        "there is no display to open the window on (neither DISPLAY nor WAYLAND_DISPLAY is "
        "set). Start it from a desktop session, or use the commands without a window: "
        "`transcribe-import --help` lists them."
    )


def run_gui(data_dir: Path, paths: Sequence[Path]) -> int:
    """Open the window on the corpus in ``data_dir``; returns the process exit code.

    ``paths`` (folders and files given on the command line) are scanned at once with the
    default mapping, one notebook per folder. With no display it says so and exits 2.
    """
    no_display = missing_display(os.environ)
    if no_display is not None:
        print(f"transcribe-import: {no_display}", file=sys.stderr)
        return ExitCode.USAGE
    app = application()
    data_dir = chosen_data_dir(data_dir, QSettings())
    key = instance_key(data_dir)
    if forward_to_running(key, paths):
        return 0  # the running window has the paths and comes to the front
    try:
        corpus = open_corpus(data_dir)
    except TranscribeError as exc:
        QMessageBox.critical(None, APP_NAME, str(exc))
        # The CLI's exit codes (docs/cli.md): LOCKED when another process holds the corpus.
        return exit_code_for_error(exc)
    server = InstanceServer(key, app)
    claim = WindowClaim(corpus)
    window = MainWindow(corpus)
    server.paths_received.connect(window.intake.open_forwarded)
    window.show()
    if not claim.held:
        window.dialogs.tell_other_window()
    if paths:
        window.flow.prescan([Path(p) for p in paths])
    try:
        return app.exec()
    finally:
        server.server.close()
        claim.release()
