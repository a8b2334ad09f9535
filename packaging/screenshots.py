"""Screenshots of the main window on demo corpora, for docs/screenshots/ and for looking at it.

Run under a display server, e.g. ``xvfb-run -a .venv/bin/python packaging/screenshots.py``;
it writes docs/screenshots/main-window*.png and touches neither the user's corpus nor settings.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "app"))  # shoot this checkout's code, installed or not

from PIL import Image  # noqa: E402
from PySide6.QtCore import QCoreApplication, QEventLoop, QSettings, QTimer  # noqa: E402, TID251 - drives the GUI

from transcribe_import.engine import fsio  # noqa: E402
from transcribe_import.engine.corpus import Corpus  # noqa: E402
from transcribe_import.engine.ids import new_id  # noqa: E402
from transcribe_import.engine.ingest import IngestRequest, PageSpec, SourceSpec, ingest  # noqa: E402
from transcribe_import.gui.app import application  # noqa: E402
from transcribe_import.gui.main_window import MainWindow  # noqa: E402

OUT_DIR = REPO / "docs" / "screenshots"
NOTEBOOKS = [
    ("Field notes, spring 1998", 48),
    ("Lab book 3: soil samples", 112),
    ("Letters to Margit", 17),
    ("Sketchbook (blue cover)", 64),
    ("Travel diary, Lisbon", 9),
]


def add_notebook(corpus: Corpus, scans: Path, title: str, pages: int) -> str:
    """Create a notebook and ingest ``pages`` small page images through the real transaction."""
    notebook_id = new_id()
    corpus.create_notebook(notebook_id, title)
    sources = []
    for i in range(pages):
        path = scans / f"{notebook_id}-{i:03}.png"
        Image.new("RGB", (24, 32), (250 - i % 50, 245, 230)).save(path)
        sha256, _size = fsio.hash_file(path)
        page = PageSpec(new_id(), new_id(), 0)
        sources.append(SourceSpec(new_id(), path, sha256, "image/png", (page,)))
    if sources:
        ingest(corpus, IngestRequest(notebook_id, tuple(sources)))
    return notebook_id


def shoot(corpus: Corpus, settings_dir: Path, name: str) -> Path:
    """Open the window, wait for its health check, save what it shows, close it."""
    settings = QSettings(str(settings_dir / f"{name}.ini"), QSettings.Format.IniFormat)
    window = MainWindow(corpus, settings)
    loop = QEventLoop()
    window.health_checked.connect(loop.quit)
    give_up = QTimer(singleShot=True, interval=30_000)  # never hang on a check that never ends
    give_up.timeout.connect(loop.quit)
    give_up.start()
    window.show()
    loop.exec()
    give_up.stop()
    # Let the layout settle on what the check's result changed before taking the picture.
    QCoreApplication.sendPostedEvents()
    QCoreApplication.processEvents()
    if window.is_checking():
        raise SystemExit(f"{name}: the health check did not finish within 30 s")
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    path = OUT_DIR / f"{name}.png"
    if not window.grab().save(str(path)):
        raise SystemExit(f"could not write {path}")
    window.close()
    return path


def main() -> int:
    application()
    with tempfile.TemporaryDirectory(prefix="transcribe-shots-") as tmp:
        base = Path(tmp)
        scans = base / "scans"
        scans.mkdir()

        empty = Corpus.open(base / "empty")
        shots = [shoot(empty, base, "main-window-empty")]

        corpus = Corpus.open(base / "demo")
        ids = [add_notebook(corpus, scans, title, pages) for title, pages in NOTEBOOKS]
        shots.append(shoot(corpus, base, "main-window"))

        # A notebook whose manifest went missing, to show how a finding looks.
        (corpus.notebook_dir(ids[2]) / "project.json").unlink()
        shots.append(shoot(corpus, base, "main-window-findings"))
    for path in shots:
        print(path.relative_to(REPO))
    return 0


if __name__ == "__main__":
    sys.exit(main())
