"""Renders resources/icons/transcribe-import.svg to the committed PNG sizes the desktop needs.

Run after editing the SVG: ``.venv/bin/python packaging/make_icons.py`` (``--check`` exits 1
when a committed PNG is missing, has the wrong size or differs from a fresh render). Uses
QSvgRenderer from PySide6 (QtSvg is in PySide6-Essentials) on an offscreen QGuiApplication.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ICONS_DIR = Path(__file__).resolve().parents[1] / "resources" / "icons"
SVG = ICONS_DIR / "transcribe-import.svg"
SIZES = (16, 32, 48, 64, 128, 256)


def png_path(size: int) -> Path:
    return ICONS_DIR / f"transcribe-import-{size}.png"


def render(size: int):  # -> QImage
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        raise SystemExit(f"{SVG}: not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    return image


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication, QImage

    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    stale = []
    for size in SIZES:
        image = render(size)
        path = png_path(size)
        if args.check:
            committed = QImage(str(path))
            same = (
                not committed.isNull()
                and committed.size() == image.size()
                and committed.convertToFormat(image.format()) == image
            )
            if not same:
                stale.append(path.name)
        elif not image.save(str(path), "PNG"):
            raise SystemExit(f"could not write {path}")
        else:
            print(f"wrote {path.relative_to(ICONS_DIR.parents[1])}")
    if stale:
        print("stale icons (run packaging/make_icons.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
