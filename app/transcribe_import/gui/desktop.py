"""Long imports as desktop apps do them: no sleep while a commit runs, a notification when one ends.

The system is kept awake from the moment a commit (or a resume, or a retry) starts until its
worker has ended, however it ended: complete, paused, cancelled or stopped by an error. The
window cannot close while a commit runs, so that end comes before any close; and the
operating system ties each hold to the process, so a crash lets the machine sleep again.

A commit that took longer than ``NOTIFY_AFTER_S`` and ends while the window is not the
active window is told in a desktop notification, in the commit page's own end words (its
headline and summary), so the notification never says anything the window does not.

Each platform's way is a backend chosen once (``platform_backend``); tests hand
``LongImports`` a backend of their own. Where a platform offers no way, nothing happens and
it is logged once: sleeping or an unseen end is no error to show anyone.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from typing import Protocol

from PySide6.QtCore import QEvent, QObject
from PySide6.QtDBus import QDBus, QDBusConnection, QDBusMessage, QDBusUnixFileDescriptor
from PySide6.QtWidgets import QApplication, QSystemTrayIcon, QWidget

from transcribe_import.gui.pages.commit import CommitPage
from transcribe_import.gui.resources import app_icon

log = logging.getLogger(__name__)

# A commit shorter than this was watched, or over before anyone looked away.
NOTIFY_AFTER_S = 30.0
# A D-Bus call answers in milliseconds; a bus that hangs must not hold the window longer.
DBUS_TIMEOUT_MS = 2000

LOGIN1 = ("org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager")


class Awake(Protocol):
    """Keeps the system from sleeping between ``hold`` and ``release``."""

    def hold(self, why: str) -> bool:
        """Take the hold (whether it was taken); a second hold while held changes nothing."""

    def release(self) -> None:
        """Let the system sleep again; nothing when nothing is held."""


class Notifier(Protocol):
    """Shows a desktop notification; clicking it (where the platform tells) raises the window."""

    def notify(self, title: str, body: str) -> bool:
        """Show it (whether it could be shown)."""


class _Unavailable:
    """A way the system does not offer: nothing happens, and it is logged once."""

    def __init__(self, what: str) -> None:
        self._what = what
        self._logged = False

    def say(self, detail: str = "") -> bool:
        """Log it the first time (with ``detail``, the system's own answer); False."""
        if not self._logged:
            self._logged = True
            log.info(
                "%s: not available on this system; going on without it.%s",
                self._what,
                f" {detail}" if detail else "",
            )
        return False


def login1_inhibit_call(why: str) -> QDBusMessage:
    """systemd-logind's Inhibit: sleep and idle blocked, until the descriptor it returns is
    closed (by ``release``, or by the process ending)."""
    message = QDBusMessage.createMethodCall(*LOGIN1, "Inhibit")
    message.setArguments(["sleep:idle", QApplication.applicationName(), why, "block"])
    return message


class Login1Awake:
    """Linux: an inhibitor lock from systemd-logind on the system bus.

    Its arguments are all strings and its answer a file descriptor, which QtDBus carries as
    they are (the session-bus inhibitors answer a uint cookie to be sent back, and PySide6's
    QtDBus has no way to send a uint).
    """

    def __init__(self, bus: QDBusConnection | None = None) -> None:
        self._bus = bus if bus is not None else QDBusConnection.systemBus()
        self._fd: int | None = None
        self._unavailable = _Unavailable("Keeping the system awake (systemd-logind)")

    def hold(self, why: str) -> bool:
        if self._fd is not None:
            return True
        if not self._bus.isConnected():
            return self._unavailable.say(self._bus.lastError().message())
        reply = self._bus.call(login1_inhibit_call(why), QDBus.CallMode.Block, DBUS_TIMEOUT_MS)
        arguments = reply.arguments()
        if reply.type() is not QDBusMessage.MessageType.ReplyMessage or not arguments:
            return self._unavailable.say(reply.errorMessage())
        descriptor = arguments[0]
        if not isinstance(descriptor, QDBusUnixFileDescriptor) or not descriptor.isValid():
            return self._unavailable.say("systemd-logind answered no file descriptor.")
        self._fd = os.dup(descriptor.fileDescriptor())  # ours to close; Qt closes its own
        return True

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


class WindowsAwake:
    """Windows: the thread's execution state says the system is required until reset."""

    ES_CONTINUOUS = 0x80000000
    ES_SYSTEM_REQUIRED = 0x00000001

    def __init__(self) -> None:
        import ctypes

        self._set = ctypes.windll.kernel32.SetThreadExecutionState  # type: ignore[attr-defined]
        self._held = False

    def hold(self, why: str) -> bool:
        # Set on the window's thread, which lives as long as the process.
        self._held = bool(self._set(self.ES_CONTINUOUS | self.ES_SYSTEM_REQUIRED))
        return self._held

    def release(self) -> None:
        if self._held:
            self._held = False
            self._set(self.ES_CONTINUOUS)


class CaffeinateAwake:
    """macOS: ``caffeinate -i -w PID`` holds an idle-sleep assertion until stopped, or until
    this process ends."""

    def __init__(self) -> None:
        self._child: subprocess.Popen[bytes] | None = None
        self._unavailable = _Unavailable("Keeping the system awake (caffeinate)")

    def hold(self, why: str) -> bool:
        if self._child is not None:
            return True
        try:
            self._child = subprocess.Popen(["/usr/bin/caffeinate", "-i", "-w", str(os.getpid())])
        except OSError as exc:
            return self._unavailable.say(str(exc))
        return True

    def release(self) -> None:
        child, self._child = self._child, None
        if child is not None:
            child.terminate()
            child.wait()


class TrayNotifier(QObject):
    """A notification through the system tray, whose icon shows only until the window is
    active again."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self._window = window
        self._tray: QSystemTrayIcon | None = None
        self._unavailable = _Unavailable("Desktop notifications (no system tray)")
        window.installEventFilter(self)

    def notify(self, title: str, body: str) -> bool:
        if not QSystemTrayIcon.isSystemTrayAvailable():
            return self._unavailable.say()
        if self._tray is None:
            icon = self._window.windowIcon()
            # A tray shows nothing without an icon (the window has the app's, once set).
            self._tray = QSystemTrayIcon(app_icon() if icon.isNull() else icon, self._window)
            self._tray.setToolTip(self._window.windowTitle())
            self._tray.messageClicked.connect(self._raise_window)
        self._tray.show()
        self._tray.showMessage(title, body, QSystemTrayIcon.MessageIcon.Information)
        return True

    def tray_shown(self) -> bool:
        """Whether the tray icon is up (from a notification until the window is active)."""
        return self._tray is not None and self._tray.isVisible()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() is QEvent.Type.WindowActivate and self._tray is not None:
            self._tray.hide()  # the person is back: the tray has nothing more to say
        return False

    def _raise_window(self) -> None:
        self._window.showNormal()
        self._window.raise_()
        self._window.activateWindow()


class DesktopBackend:
    """One platform's way to keep the system awake and to notify."""

    def __init__(self, awake: Awake, notifier: Notifier) -> None:
        self.awake = awake
        self.notifier = notifier


def platform_backend(window: QWidget) -> DesktopBackend:
    """The way this platform offers, chosen once per window."""
    awake: Awake
    if sys.platform == "win32":
        awake = WindowsAwake()
    elif sys.platform == "darwin":
        awake = CaffeinateAwake()
    else:
        awake = Login1Awake()
    return DesktopBackend(awake, TrayNotifier(window))


class LongImports(QObject):
    """Keeps the system awake while ``commit_page`` runs, and tells a long run's end to a
    person who looked away from ``window``."""

    def __init__(
        self,
        window: QWidget,
        commit_page: CommitPage,
        backend: DesktopBackend | None = None,
        notify_after_s: float = NOTIFY_AFTER_S,
    ) -> None:
        super().__init__(window)
        self._window = window
        self._page = commit_page
        self.backend = backend if backend is not None else platform_backend(window)
        self.notify_after_s = notify_after_s
        self._started = 0.0
        commit_page.running_changed.connect(self._running_changed)
        # The commit has ended before the window may close; this covers a quit all the same.
        QApplication.instance().aboutToQuit.connect(self._release)  # type: ignore[union-attr]

    def _running_changed(self, running: bool) -> None:
        if running:
            self._started = time.monotonic()
            self.backend.awake.hold(self.tr("Importing pages into the corpus"))
            return
        self._release()
        took = time.monotonic() - self._started
        if took >= self.notify_after_s and not self._window.isActiveWindow():
            # The end screen's own words: its headline says how it ended, its summary what.
            self.backend.notifier.notify(
                self._page.headline.text(), self._page.summary_label.text()
            )

    def _release(self) -> None:
        self.backend.awake.release()
