"""Where the main window opens: the place it was closed at, kept whole on the screen it opens on.

Every position here is the client area's (``geometry()``), never the frame's: before the
window manager has framed a new window, Qt reports its frame as its client area, and a
``move()`` to that point put the frame where the client area had been, one title bar lower
at each start (issue 23), until the status bar was below a 1024x768 screen.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QMargins, QPoint, QRect, QSettings
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

GEOMETRY_KEY = "MainWindow/geometry"
# Room kept for the title bar and borders before the window manager says how large they are.
FRAME_ALLOWANCE = (8, 36)


def available_geometry(window: QWidget) -> QRect:
    """The free area of the screen the window opens on (the tests give a 1024x768 one)."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else QRect()


def frame_margins(window: QWidget) -> QMargins:
    """What the title bar and borders add around the client area; a usual title bar's
    worth until the window manager has framed the window."""
    frame, inner = window.frameGeometry(), window.geometry()
    margins = QMargins(
        inner.left() - frame.left(),
        inner.top() - frame.top(),
        frame.right() - inner.right(),
        frame.bottom() - inner.bottom(),
    )
    if margins.left() <= 0 and margins.top() <= 0:
        side = FRAME_ALLOWANCE[0] // 2
        margins = QMargins(side, FRAME_ALLOWANCE[1] - side, side, side)
    return margins


def fitted(client: QRect, available: QRect, margins: QMargins, *, centre: bool) -> QRect:
    """``client`` cut to the room ``available`` leaves inside the frame's ``margins`` and
    moved into it (to its middle with ``centre``); unchanged when it fits already."""
    room = available.marginsRemoved(margins)
    rect = QRect(client)
    rect.setWidth(min(rect.width(), room.width()))
    rect.setHeight(min(rect.height(), room.height()))
    if centre:
        rect.moveCenter(room.center())
    left = min(max(rect.left(), room.left()), room.right() - rect.width() + 1)
    top = min(max(rect.top(), room.top()), room.bottom() - rect.height() + 1)
    rect.moveTopLeft(QPoint(left, top))
    return rect


def fit_on_screen(window: QWidget, available: QRect, *, centre: bool = False) -> None:
    """Keep the whole window inside ``available`` (the screen less its panels).

    The default size, or one remembered from a larger monitor, is cut to the screen and
    moved onto it, so no control starts off screen (a 1024x768 laptop, a projector); a
    window that fits is left exactly where it is.
    """
    if available.isEmpty():
        return
    target = fitted(window.geometry(), available, frame_margins(window), centre=centre)
    if target != window.geometry():
        window.setGeometry(target)


def restore_geometry(window: QWidget, settings: QSettings, default_size: tuple[int, int]) -> bool:
    """The place and size the window was closed at (True), or ``default_size`` (False: the
    caller centres it); either is fitted to the screen by the caller, ``fit_on_screen``."""
    geometry = settings.value(GEOMETRY_KEY, QByteArray())
    restored = isinstance(geometry, QByteArray) and window.restoreGeometry(geometry)
    if not restored:
        window.resize(*default_size)
    return restored


def save_geometry(window: QWidget, settings: QSettings) -> None:
    settings.setValue(GEOMETRY_KEY, window.saveGeometry())
