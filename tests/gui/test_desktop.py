"""Long imports as desktop apps do them: the system kept awake while a commit runs, and a long
commit's end notified when the window is not in front, in the end screen's own words.

Driven through the real window and engine with a recording backend in place of the
platform's. The Linux backends are checked against stand-ins on a private D-Bus: logind's
lock held by its descriptor until released, a missing bus logged once, and a notification
through a desktop's tray arriving at its notification server.
"""

from __future__ import annotations

import logging
import os
import select
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtDBus import QDBusConnection
from PySide6.QtWidgets import QSystemTrayIcon
from pytestqt.qtbot import QtBot

from transcribe_import.gui import desktop
from transcribe_import.gui.desktop import DesktopBackend, Login1Awake, login1_inhibit_call
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.wording import StopChoice, stop_choice_words

from helpers.shelves import make_png_shelf
from helpers.window import (
    TIMEOUT_MS,
    ExecutorGate,
    click_in_next_box,
    commit,
    drop,
    scan_and_validate,
    wait_run_end,
)


class Recording:
    """Both halves of a backend, writing down what the window asked, and whether a commit
    ran at that moment."""

    def __init__(self, window: MainWindow) -> None:
        self._window = window
        self.calls: list[tuple[str, ...]] = []

    def _running(self) -> str:
        return "running" if self._window.commit_page.is_running() else "ended"

    def hold(self, why: str) -> bool:
        self.calls.append(("hold", why, self._running()))
        return True

    def release(self) -> None:
        self.calls.append(("release", self._running()))

    def notify(self, title: str, body: str) -> bool:
        self.calls.append(("notify", title, body))
        return True


ReadyToCommit = Callable[..., tuple[MainWindow, Recording]]


@pytest.fixture
def ready_to_commit(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> ReadyToCommit:
    """``ready_to_commit(notebooks=2, notify_after_s=0.0, active=False)``: a window whose
    review is validated, with a recording backend, and in front or not."""

    def ready(
        *, notebooks: int = 2, notify_after_s: float = 0.0, active: bool = False
    ) -> tuple[MainWindow, Recording]:
        make_png_shelf(tmp_path / "shelf", notebooks=notebooks)
        window = open_window(workers=1)
        recording = Recording(window)
        long_imports = window.flow.long_imports
        long_imports.backend = DesktopBackend(recording, recording)
        long_imports.notify_after_s = notify_after_s
        monkeypatch.setattr(window, "isActiveWindow", lambda: active)
        drop(window, [tmp_path / "shelf"])
        scan_and_validate(qtbot, window)
        return window, recording

    return ready


def end_words(window: MainWindow) -> tuple[str, str, str]:
    page = window.commit_page
    return ("notify", page.headline.text(), page.summary_label.text())


def test_a_commit_keeps_the_system_awake_until_it_ends_then_notifies_in_the_end_words(
    qtbot: QtBot,
    ready_to_commit: ReadyToCommit,
) -> None:
    window, recording = ready_to_commit()
    assert recording.calls == []  # scanning and reviewing hold nothing

    commit(qtbot, window)
    assert recording.calls == [("hold", "Importing pages into the corpus", "running")]
    wait_run_end(qtbot, window)

    assert window.commit_page.headline.text() == "Complete"
    assert "2 notebooks committed; 4 pages landed." in window.commit_page.summary_label.text()
    assert recording.calls[1:] == [("release", "ended"), end_words(window)]


@pytest.mark.parametrize(
    ("active", "notify_after_s"), [(True, 0.0), (False, desktop.NOTIFY_AFTER_S)]
)
def test_no_notification_when_the_window_is_in_front_or_the_commit_was_short(
    qtbot: QtBot,
    active: bool,
    notify_after_s: float,
    ready_to_commit: ReadyToCommit,
) -> None:
    window, recording = ready_to_commit(active=active, notify_after_s=notify_after_s)
    commit(qtbot, window)
    wait_run_end(qtbot, window)

    assert window.commit_page.headline.text() == "Complete"
    assert [c[0] for c in recording.calls] == ["hold", "release"]


def _pause(window: MainWindow) -> None:
    window.commit_page.pause_button.click()


def _cancel_keeping_what_landed(window: MainWindow) -> None:
    click_in_next_box(stop_choice_words(StopChoice.KEEP, closing=False), [])
    window.commit_page.cancel_button.click()


@pytest.mark.parametrize(
    ("stop", "headline"),
    [(_pause, "Paused"), (_cancel_keeping_what_landed, "Cancelled after some commits")],
)
def test_a_stopped_commit_lets_the_system_sleep_and_says_how_it_ended(
    qtbot: QtBot,
    gate: ExecutorGate,
    ready_to_commit: ReadyToCommit,
    stop: Callable[[MainWindow], None],
    headline: str,
) -> None:
    window, recording = ready_to_commit(notebooks=3)
    commit(qtbot, window)
    qtbot.waitUntil(gate.reached.is_set, timeout=TIMEOUT_MS)
    stop(window)
    assert [c[0] for c in recording.calls] == ["hold"]  # held until the worker has ended
    gate.release.set()
    wait_run_end(qtbot, window)

    assert window.commit_page.headline.text() == headline
    assert recording.calls[1:] == [("release", "ended"), end_words(window)]


def test_the_window_uses_the_platform_backend_by_default(
    open_window: Callable[..., MainWindow],
) -> None:
    long_imports = open_window().flow.long_imports
    assert isinstance(long_imports.backend.awake, Login1Awake)  # the tests run on Linux
    assert isinstance(long_imports.backend.notifier, desktop.TrayNotifier)
    assert long_imports.notify_after_s == 30  # as the README says


def test_the_login1_call_blocks_sleep_and_idle() -> None:
    message = login1_inhibit_call("Importing pages into the corpus")
    assert (message.service(), message.path(), message.interface(), message.member()) == (
        "org.freedesktop.login1",
        "/org/freedesktop/login1",
        "org.freedesktop.login1.Manager",
        "Inhibit",
    )
    what, who, why, mode = message.arguments()
    assert (what, why, mode) == ("sleep:idle", "Importing pages into the corpus", "block")
    assert who  # the application's name, which the system shows in its list of inhibitors


def test_no_bus_means_not_available_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    bus = QDBusConnection.connectToBus("unix:path=/nonexistent/bus", "awake-test-no-bus")
    try:
        assert not bus.isConnected()
        awake = Login1Awake(bus)
        with caplog.at_level(logging.INFO, logger=desktop.__name__):
            assert awake.hold("Importing") is False
            assert awake.hold("Importing") is False
            awake.release()  # nothing held: nothing to do, no error
        [record] = caplog.records
        assert "Keeping the system awake (systemd-logind): not available" in record.message
    finally:
        QDBusConnection.disconnectFromBus("awake-test-no-bus")


# A stand-in for systemd-logind: it answers Inhibit with one end of a pipe, says what it was
# asked, and says "released" once every copy of that end is closed (as logind drops the lock).
FAKE_LOGIN1 = """
import os, sys
from PySide6.QtCore import ClassInfo, QCoreApplication, QObject, QSocketNotifier, Slot
from PySide6.QtDBus import QDBusConnection, QDBusUnixFileDescriptor

app = QCoreApplication([])
bus = QDBusConnection.connectToBus(sys.argv[1], "fake-login1")


@ClassInfo({"D-Bus Interface": "org.freedesktop.login1.Manager"})
class Manager(QObject):
    @Slot(str, str, str, str, result=QDBusUnixFileDescriptor)
    def Inhibit(self, what, who, why, mode):
        read_end, write_end = os.pipe()
        self.watch = QSocketNotifier(read_end, QSocketNotifier.Type.Read)
        self.watch.activated.connect(lambda: print("released", os.read(read_end, 1), flush=True))
        print("inhibit", what, why, mode, sep="|", flush=True)
        held = QDBusUnixFileDescriptor(write_end)  # a copy goes to the caller
        os.close(write_end)
        return held


manager = Manager()
every_slot = QDBusConnection.RegisterOption.ExportAllSlots
bus.registerObject("/org/freedesktop/login1", manager, every_slot)
print("ready", bus.registerService("org.freedesktop.login1"), flush=True)
app.exec()
"""


@pytest.mark.skipif(shutil.which("dbus-daemon") is None, reason="needs dbus-daemon")
def test_logind_holds_the_lock_until_released() -> None:
    daemon = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address=1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert daemon.stdout is not None
    address = daemon.stdout.readline().strip()
    service = subprocess.Popen(
        [sys.executable, "-c", FAKE_LOGIN1, address],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert service.stdout is not None
    bus = QDBusConnection.connectToBus(address, "awake-test-bus")
    try:
        assert service.stdout.readline() == "ready True\n"
        awake = Login1Awake(bus)
        assert awake.hold("Importing pages into the corpus") is True
        assert (
            service.stdout.readline()
            == "inhibit|sleep:idle|Importing pages into the corpus|block\n"
        )
        assert awake.hold("Importing pages into the corpus") is True  # held once, not twice
        awake.release()
        assert service.stdout.readline() == "released b''\n"  # logind sees the lock dropped
    finally:
        QDBusConnection.disconnectFromBus("awake-test-bus")
        for process in (service, daemon):
            process.terminate()
            process.wait()
            if process.stdout is not None:
                process.stdout.close()


def test_no_tray_means_no_notification_logged_once(
    open_window: Callable[..., MainWindow], caplog: pytest.LogCaptureFixture
) -> None:
    notifier = desktop.TrayNotifier(open_window())
    assert not QSystemTrayIcon.isSystemTrayAvailable()  # the offscreen platform has none
    with caplog.at_level(logging.INFO, logger=desktop.__name__):
        assert notifier.notify("Complete", "2 notebooks committed (4 pages).") is False
        assert notifier.notify("Complete", "2 notebooks committed (4 pages).") is False
    [record] = caplog.records
    assert "Desktop notifications (no system tray): not available" in record.message


# A stand-in for a Linux desktop's tray and notification server (KDE's, or GNOME's with the
# AppIndicator extension): a StatusNotifierWatcher with a host, and a Notify that says what
# it was asked.
TRAY_AND_NOTIFICATIONS = """
import sys
from PySide6.QtCore import ClassInfo, Property, QCoreApplication, QObject, Slot
from PySide6.QtDBus import QDBusConnection

app = QCoreApplication([])
bus = QDBusConnection.connectToBus(sys.argv[1], "fake-desktop")


@ClassInfo({"D-Bus Interface": "org.kde.StatusNotifierWatcher"})
class Watcher(QObject):
    IsStatusNotifierHostRegistered = Property(bool, lambda self: True)
    ProtocolVersion = Property(int, lambda self: 0)

    @Slot(str)
    def RegisterStatusNotifierItem(self, service):
        pass


@ClassInfo({"D-Bus Interface": "org.freedesktop.Notifications"})
class Notifications(QObject):
    @Slot(str, "uint", str, str, str, "QStringList", "QVariantMap", int, result="uint")
    def Notify(self, app_name, replaces_id, icon, summary, body, actions, hints, timeout):
        print("notify", summary, body, sep="|", flush=True)
        return 1


watcher, notifications = Watcher(), Notifications()
option = QDBusConnection.RegisterOption
every = option.ExportAllSlots | option.ExportAllProperties
bus.registerObject("/StatusNotifierWatcher", watcher, every)
bus.registerObject("/org/freedesktop/Notifications", notifications, every)
print(
    "ready",
    bus.registerService("org.kde.StatusNotifierWatcher"),
    bus.registerService("org.freedesktop.Notifications"),
    flush=True,
)
app.exec()
"""

NOTIFY_THROUGH_THE_TRAY = """
import sys
from PySide6.QtWidgets import QApplication, QWidget
from transcribe_import.gui.desktop import TrayNotifier

app = QApplication([])
window = QWidget()
window.show()
notifier = TrayNotifier(window)
print("sent", notifier.notify(sys.argv[1], sys.argv[2]), notifier.tray_shown(), flush=True)
app.exec()  # until the test has seen the notification arrive, and ends this
"""


def line_within(process: subprocess.Popen[str], seconds: float = TIMEOUT_MS / 1000) -> str:
    """The process's next line of output, or "" when none comes in time."""
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], seconds)
    return process.stdout.readline() if ready else ""


@pytest.mark.slow
@pytest.mark.skipif(
    not (shutil.which("dbus-daemon") and shutil.which("xvfb-run")),
    reason="needs dbus-daemon and xvfb-run",
)
def test_a_linux_tray_delivers_the_notification_to_the_notification_server() -> None:
    daemon = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address=1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    address = line_within(daemon).strip()
    env = {**os.environ, "DBUS_SESSION_BUS_ADDRESS": address, "QT_QPA_PLATFORM": "xcb"}
    desktop_ = subprocess.Popen(
        [sys.executable, "-c", TRAY_AND_NOTIFICATIONS, address], stdout=subprocess.PIPE, text=True
    )
    app: subprocess.Popen[str] | None = None
    try:
        assert line_within(desktop_) == "ready True True\n"
        app = subprocess.Popen(
            ["xvfb-run", "-a", sys.executable, "-c", NOTIFY_THROUGH_THE_TRAY]
            + ["Complete", "2 notebooks committed (4 pages)."],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            start_new_session=True,  # xvfb-run's Xvfb goes with it
        )
        assert line_within(app) == "sent True True\n"
        assert line_within(desktop_) == "notify|Complete|2 notebooks committed (4 pages).\n"
    finally:
        if app is not None:
            os.killpg(app.pid, signal.SIGTERM)
        for process in (p for p in (app, desktop_, daemon) if p is not None):
            process.terminate()
            process.wait()
            if process.stdout is not None:
                process.stdout.close()
