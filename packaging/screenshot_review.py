"""A screenshot of the review page on a demo plan, for docs/screenshots/ and for looking at it.

Run under a display server, e.g. ``xvfb-run -a .venv/bin/python packaging/screenshot_review.py``;
it scans demo notebooks in a temporary folder (one camera whose counter rolled over, one
clean diary), plans them with the engine, and writes docs/screenshots/review.png
(``--dark``: review-dark.png, in a dark palette, to check the page follows it).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "app"))  # shoot this checkout's code, installed or not

from PIL import Image, ImageDraw  # noqa: E402
from PySide6.QtCore import QEventLoop, Qt, QTimer  # noqa: E402, TID251 - drives the GUI
from PySide6.QtGui import QColor, QPalette  # noqa: E402, TID251
from PySide6.QtWidgets import QApplication  # noqa: E402, TID251

from transcribe_import.engine.corpus import Corpus  # noqa: E402
from transcribe_import.engine.planner import build_plan  # noqa: E402
from transcribe_import.engine.scan import run_scan  # noqa: E402
from transcribe_import.gui.app import application  # noqa: E402
from transcribe_import.gui.plan_models import PageColumn  # noqa: E402
from transcribe_import.gui.review_page import ReviewPage  # noqa: E402
from transcribe_import.gui.session import ImportSession  # noqa: E402

OUT = REPO / "docs" / "screenshots" / "review.png"
SIZE = (1100, 700)
# The camera's counter: 9996..9999, then 0001..0004, photographed a minute apart.
CAMERA = [9996, 9997, 9998, 9999, 1, 2, 3, 4]


def page_scan(path: Path, label: str, taken: str | None = None) -> None:
    """A notebook page as a phone photographs it: ruled paper, a few lines of "writing"."""
    img = Image.new("RGB", (600, 800), (246, 241, 226))
    draw = ImageDraw.Draw(img)
    for y in range(90, 780, 34):
        draw.line([(40, y), (560, y)], fill=(170, 185, 215), width=2)
    draw.line([(90, 0), (90, 800)], fill=(220, 150, 150), width=2)
    for i, y in enumerate(range(118, 560, 34)):
        width = 300 + (hash((label, i)) % 160)
        draw.line([(104, y - 8), (104 + width, y - 10)], fill=(40, 50, 90), width=4)
    draw.text((110, 40), label, fill=(30, 30, 70))
    path.parent.mkdir(parents=True, exist_ok=True)
    exif = Image.Exif()
    if taken is not None:
        exif.get_ifd(0x8769)[0x9003] = taken
    img.save(path, "JPEG", quality=80, exif=exif.tobytes())


def make_demo(root: Path) -> None:
    for minute, number in enumerate(CAMERA):
        page_scan(
            root / "Camera uploads" / f"IMG_{number:04}.JPG",
            f"p. {minute + 1}",
            f"2024:03:09 14:{10 + minute:02}:00",
        )
    for n in range(1, 7):
        page_scan(root / "Field notes 1998" / f"page {n:02}.jpg", f"page {n}")


def wait(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def dark_palette() -> None:
    """Fusion with dark colours, to see that the page follows the palette (``--dark``)."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    app.setStyle("Fusion")
    palette = QPalette()
    for role, colour in {
        QPalette.ColorRole.Window: "#2b2b2b",
        QPalette.ColorRole.WindowText: "#e6e6e6",
        QPalette.ColorRole.Base: "#1e1e1e",
        QPalette.ColorRole.AlternateBase: "#262626",
        QPalette.ColorRole.Text: "#e6e6e6",
        QPalette.ColorRole.Button: "#353535",
        QPalette.ColorRole.ButtonText: "#e6e6e6",
        QPalette.ColorRole.Highlight: "#2f65ca",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.ToolTipBase: "#353535",
        QPalette.ColorRole.ToolTipText: "#e6e6e6",
    }.items():
        palette.setColor(role, QColor(colour))
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
        QPalette.ColorRole.WindowText,
    ):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7a7a7a"))
    app.setPalette(palette)


def main() -> int:
    application()
    dark = "--dark" in sys.argv[1:]
    if dark:
        dark_palette()
    out = OUT.with_name("review-dark.png") if dark else OUT
    with tempfile.TemporaryDirectory(prefix="transcribe-review-") as tmp:
        base = Path(tmp)
        make_demo(base / "shelf")
        corpus = Corpus.open(base / "corpus")
        session = ImportSession(corpus)
        session.set_plan(build_plan(corpus, run_scan([base / "shelf"])))
        session.validate_now()

        page = ReviewPage(session)
        page.setWindowTitle(page.tr("Review the import plan"))
        page.resize(*SIZE)
        page.show()
        model = page.pages_model
        for _ in range(100):  # at most 10 s for the thumbnails on screen
            wait(100)
            shown = [
                model.index(r, PageColumn.THUMBNAIL).data(Qt.ItemDataRole.DecorationRole)
                for r in range(model.rowCount())
            ]
            if all(d is not None for d in shown) and not page.thumbnails.is_busy():
                break
        else:
            raise SystemExit("the thumbnails did not load within 10 s")
        page.page_view.selectRow(0)  # IMG_0001: the first photo after the counter wrapped
        wait(200)
        out.parent.mkdir(parents=True, exist_ok=True)
        if not page.grab().save(str(out)):
            raise SystemExit(f"could not write {out}")
        page.close()
    print(out.relative_to(REPO))
    return 0


if __name__ == "__main__":
    sys.exit(main())
