"""Icons from the repository's resources/ folder; an installed package has none yet (no icon)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QIcon

# app/transcribe_import/gui/resources.py -> the repository root is three folders up.
RESOURCES_DIR = Path(__file__).resolve().parents[3] / "resources"
APP_ICON = "transcribe-import.svg"


def icon_path(name: str) -> Path | None:
    """The file of icon ``name`` under resources/icons/, or None when it is not there."""
    path = RESOURCES_DIR / "icons" / name
    return path if path.is_file() else None


def app_icon() -> QIcon:
    """The application icon, or a null QIcon (Qt then shows its default) when not found."""
    path = icon_path(APP_ICON)
    return QIcon(str(path)) if path is not None else QIcon()
