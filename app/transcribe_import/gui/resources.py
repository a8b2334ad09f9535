"""The app's icons and other package data, read through importlib.resources, never the source tree.

The assets live in the package ``transcribe_import.resources`` (the repository's top-level
resources/ folder, mapped into the package by pyproject.toml), so an editable install, a wheel
installed with pip or pipx and the PyInstaller bundle all find them the same way.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from PySide6.QtGui import QIcon, QPixmap

PACKAGE = "transcribe_import.resources"
APP_ICON = "transcribe-import.svg"
# The PNG renders of the SVG (packaging/make_icons.py), for sizes where a render must be crisp
# and for Qt builds without the SVG icon engine plugin.
APP_ICON_SIZES = (16, 32, 48, 64, 128, 256)


def resource_root() -> Traversable:
    """The package data's root: a plain folder for every install this app supports."""
    return resources.files(PACKAGE)


def _folder_on_disk() -> Path:
    """The package data as a file-system folder, for Qt APIs that want a directory name."""
    try:
        root = resource_root()
    except ModuleNotFoundError:  # a broken install: no icon and no translations, but a window
        return Path("/nonexistent/transcribe_import/resources")
    return root if isinstance(root, Path) else Path(str(root))


# The installed package data folder (e.g. for QTranslator.load's directory); see resource_root().
RESOURCES_DIR: Path = _folder_on_disk()


def icon_path(name: str) -> Path | None:
    """The file of icon ``name`` in the package's icons/, or None when it is not there."""
    path = RESOURCES_DIR / "icons" / name
    return path if path.is_file() else None


def app_icon() -> QIcon:
    """The application icon: the SVG (scalable) plus its PNG renders; null when none is found."""
    icon = QIcon()
    try:
        icons = resource_root() / "icons"
    except ModuleNotFoundError:
        return icon
    svg = icons / APP_ICON
    if isinstance(svg, Path) and svg.is_file():
        icon.addFile(str(svg))
    for size in APP_ICON_SIZES:
        png = icons / f"transcribe-import-{size}.png"
        if not png.is_file():
            continue
        pixmap = QPixmap()
        if pixmap.loadFromData(png.read_bytes(), "PNG"):
            icon.addPixmap(pixmap)
    return icon
