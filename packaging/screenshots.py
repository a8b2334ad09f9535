"""Screenshots of the import window, step by step, on generated scans: for docs/ and for looking.

Run under a display server, e.g. ``xvfb-run -a .venv/bin/python packaging/screenshots.py``;
it drives the real MainWindow over a demo shelf in a temporary folder (a camera whose
counter rolled over, clean notebooks, a corpus with an earlier complete run and an
interrupted one) and writes docs/screenshots/window-*.png: start, scanning, review with
an ambiguity, validated, commit in progress, finished, runs, corpus, a partial run with
Retry What Did Not Land, the review at 1024x768 and 1366x768, the page viewer, Undo This
Import… with its preview, the Trash and the undone run's history, and the start and
finished views again in a dark palette. It touches neither the user's corpus nor settings.
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "app"))  # shoot this checkout's code, installed or not

from PIL import Image, ImageDraw  # noqa: E402
from PySide6.QtCore import QEventLoop, QRect, QSettings, Qt, QTimer  # noqa: E402
from PySide6.QtGui import QColor, QPalette  # noqa: E402
from PySide6.QtWidgets import QApplication, QPushButton, QWidget  # noqa: E402

from transcribe_import.engine.planning import scan as engine_scan  # noqa: E402
from transcribe_import.engine.planning.planner import build_plan  # noqa: E402
from transcribe_import.engine.planning.scan import ScanPhase, run_scan  # noqa: E402
from transcribe_import.engine.runs import executor as executor_module  # noqa: E402
from transcribe_import.engine.runs.executor import (  # noqa: E402
    EventKind,
    RunControl,
    RunEvent,
    execute_run,
)
from transcribe_import.engine.runs.service import prepare_run  # noqa: E402
from transcribe_import.engine.storage.corpus import Corpus  # noqa: E402
from transcribe_import.gui.app import application  # noqa: E402
from transcribe_import.gui.main_window import MainWindow, Section  # noqa: E402
from transcribe_import.gui.models.base import STATE_ROLE  # noqa: E402
from transcribe_import.gui.models.plan import PageColumn  # noqa: E402

OUT_DIR = REPO / "docs" / "screenshots"
SIZE = (1180, 760)
# The camera's counter: 9996..9999, then 0001..0004, photographed a minute apart.
CAMERA = [9996, 9997, 9998, 9999, 1, 2, 3, 4]
NOTEBOOKS = [
    ("Field notes 1998", 6),
    ("Lab book 3, soil samples", 9),
    ("Letters to Margit", 4),
    ("Sketchbook, blue cover", 5),
    ("Travel diary, Lisbon", 7),
    ("Recipes from Oma", 3),
    ("Garden journal 2001", 8),
    ("Parish register, 1890s", 180),
]


# -- demo scans ------------------------------------------------------------------------------


def page_scan(path: Path, label: str, taken: str | None = None, tint: int = 0) -> None:
    """A notebook page as a phone photographs it: ruled paper and a few lines of "writing"."""
    img = Image.new("RGB", (300, 400), (246 - tint % 20, 241, 226))
    draw = ImageDraw.Draw(img)
    for y in range(45, 390, 17):
        draw.line([(20, y), (280, y)], fill=(170, 185, 215), width=1)
    draw.line([(45, 0), (45, 400)], fill=(220, 150, 150), width=1)
    for i, y in enumerate(range(59, 280, 17)):
        width = 150 + (hash((label, i)) % 80)
        draw.line([(52, y - 4), (52 + width, y - 5)], fill=(40, 50, 90), width=2)
    draw.text((55, 20), label, fill=(30, 30, 70))
    path.parent.mkdir(parents=True, exist_ok=True)
    exif = Image.Exif()
    if taken is not None:
        exif.get_ifd(0x8769)[0x9003] = taken
    img.save(path, "JPEG", quality=80, exif=exif.tobytes())


def make_shelf(root: Path) -> Path:
    for minute, number in enumerate(CAMERA):
        page_scan(
            root / "Camera uploads" / f"IMG_{number:04}.JPG",
            f"p. {minute + 1}",
            f"2024:03:09 14:{10 + minute:02}:00",
        )
    for k, (title, pages) in enumerate(NOTEBOOKS):
        for n in range(1, pages + 1):
            page_scan(root / title / f"page {n:02}.jpg", f"{title}, page {n}", tint=k * 7 + n)
    # Files the plan leaves out, which the review lists with their reasons.
    (root / "Camera uploads" / "captions.txt").write_text("p. 1-6: March 9th, the attic\n")
    return root


def earlier_runs(corpus: Corpus, base: Path) -> None:
    """A complete run, then one paused after its first notebook (interrupted, resumable)."""
    box1 = base / "Box 1"
    for title in ("Diary 1996", "Diary 1997"):
        for n in range(1, 4):
            page_scan(box1 / title / f"p{n}.jpg", f"{title} p{n}", tint=n + len(title))
    record, _ = prepare_run(corpus, build_plan(corpus, run_scan([box1])), {"roots": [str(box1)]})
    execute_run(corpus, record.run_id)

    box2 = base / "Box 2"
    for title in ("Class notes, botany", "Class notes, chemistry", "Class notes, geology"):
        for n in range(1, 4):
            page_scan(box2 / title / f"p{n}.jpg", f"{title} p{n}", tint=n + 2 * len(title))
    record, _ = prepare_run(corpus, build_plan(corpus, run_scan([box2])), {"roots": [str(box2)]})
    control = RunControl()

    def pause_after_first(event: RunEvent) -> None:
        if event.kind is EventKind.ITEM_FINISHED:
            control.pause()

    execute_run(corpus, record.run_id, workers=1, control=control, on_event=pause_after_first)


# -- driving the window ----------------------------------------------------------------------


def wait(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def wait_until(what: str, done: Callable[[], bool], timeout_s: float = 60) -> None:
    for _ in range(int(timeout_s * 20)):
        if done():
            wait(150)  # let the layout settle on what changed
            return
        wait(50)
    raise SystemExit(f"gave up waiting for {what}")


class Gate:
    """Holds a worker thread at a chosen point until the picture is taken."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self.release = threading.Event()

    def hold(self) -> None:
        self.reached.set()
        self.release.wait(60)


def hold_scan_halfway(gate: Gate) -> None:
    # Tiny demo files hash in microseconds; real scans take a while per file. Slowed down
    # to that, the engine reports progress part way, as it does on a real shelf.
    real_hash = engine_scan.fsio.hash_file

    def slow_hash(*args: Any, **kw: Any) -> Any:
        time.sleep(0.005)
        return real_hash(*args, **kw)

    engine_scan.fsio.hash_file = slow_hash  # type: ignore[assignment]
    real = engine_scan.scan

    def scan(roots: Any, **kw: Any) -> Iterator[Any]:
        gen = real(roots, **kw)
        try:
            while True:
                event = next(gen)
                yield event
                if (
                    event.phase is ScanPhase.INSPECTING
                    and 0 < event.inspected < event.found
                    and not gate.reached.is_set()
                ):
                    gate.hold()
        except StopIteration as done:
            return done.value

    engine_scan.scan = scan  # type: ignore[assignment]


def hold_commit_after(gate: Gate, items: int) -> None:
    real = executor_module.execute_run
    finished = 0

    def execute(corpus: Corpus, run_id: str, *, on_event: Any = None, **kw: Any) -> Any:
        def on(event: RunEvent) -> None:
            nonlocal finished
            on_event(event)
            if event.kind is EventKind.ITEM_FINISHED:
                finished += 1
            # Held as the next notebooks start, so the table shows them being imported.
            elif event.kind is EventKind.ITEM_STARTED and finished >= items:
                gate.hold()

        return real(corpus, run_id, on_event=on, **kw)

    executor_module.execute_run = execute  # type: ignore[assignment]


def shoot(window: QWidget, name: str) -> Path:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    path = OUT_DIR / f"{name}.png"
    if not window.grab().save(str(path)):
        raise SystemExit(f"could not write {path}")
    return path


def dark_palette() -> None:
    """Fusion with dark colours, to see that every view follows the palette."""
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
        QPalette.ColorRole.Mid: "#5a5a5a",
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


def walk(base: Path) -> list[Path]:
    shelf = make_shelf(base / "shelf")
    corpus = Corpus.open(base / "data")
    earlier_runs(corpus, base)
    settings = QSettings(str(base / "window.ini"), QSettings.Format.IniFormat)
    window = MainWindow(corpus, settings)
    window.resize(*SIZE)
    loop = QEventLoop()
    window.health_checked.connect(loop.quit)
    window.show()
    loop.exec()
    shots = []

    # 1. Start: the shelf added, the interrupted run told of.
    window.add_paths([shelf])
    window.statusBar().clearMessage()
    wait_until("the start view", lambda: bool(window.start_page.interrupted_runs()))
    shots.append(shoot(window, "window-1-start"))

    # 2. Scanning, held halfway through reading the files.
    scan_gate = Gate()
    real_hash = engine_scan.fsio.hash_file
    hold_scan_halfway(scan_gate)
    window.start_page.scan_button.click()
    wait_until("the scan to be halfway", scan_gate.reached.is_set)
    wait_until("the scan view to show it", lambda: window.scan_page.progress_bar.value() > 0)
    shots.append(shoot(window, "window-2-scanning"))
    scan_gate.release.set()
    engine_scan.fsio.hash_file = real_hash  # the commit hashes at full speed

    # 3. Review: the camera whose counter rolled over needs a decision.
    def validated() -> bool:
        report, plan = window.session.report, window.session.plan
        return (
            report is not None
            and plan is not None
            and report.plan_fingerprint == plan.fingerprint
            and not window.flow.is_validating()
        )

    wait_until("the review", lambda: window.current_page() is window.review_page and validated())
    page = window.review_page
    plan = window.session.plan
    assert plan is not None
    camera = next(it for it in plan.items if it.label == "Camera uploads")
    page.select_item(camera.item_id)
    model = page.pages_model

    def thumbnails_shown() -> bool:
        shown = [
            model.index(r, PageColumn.THUMBNAIL).data(Qt.ItemDataRole.DecorationRole)
            for r in range(model.rowCount())
        ]
        return all(d is not None for d in shown) and not page.thumbnails.is_busy()

    wait_until("the thumbnails", thumbnails_shown)
    page.page_view.selectRow(0)
    window.statusBar().clearMessage()
    wait(200)
    shots.append(shoot(window, "window-3-review"))

    # 4. Resolved by capture time and validated again: ready to commit.
    [by_time] = [
        b
        for b in page.findChildren(QPushButton)
        if b.text() == "Order by capture time" and b.isVisible()
    ]
    by_time.click()
    wait_until("the validation", lambda: validated() and page.can_commit())
    wait_until("the thumbnails", thumbnails_shown)
    shots.append(shoot(window, "window-4-validated"))

    # 5. Commit in progress, held after three notebooks.
    commit_gate = Gate()
    hold_commit_after(commit_gate, 3)
    page.commit_button.click()
    wait_until("three outcomes", commit_gate.reached.is_set)
    wait_until(
        "the outcomes on screen",
        lambda: (
            "committed"
            in [
                window.commit_page.model.index(r, 0).data(STATE_ROLE)
                for r in range(window.commit_page.model.rowCount())
            ]
        ),
    )
    wait(1100)  # one tick of the rate label
    shots.append(shoot(window, "window-5-commit"))
    commit_gate.release.set()

    # 6. Finished.
    wait_until("the end of the commit", lambda: not window.commit_page.is_running())
    window.statusBar().clearMessage()
    shots.append(shoot(window, "window-6-finished"))

    # 7. Runs, newest first, the finished one selected with its outcomes.
    window.show_section(Section.RUNS)
    runs = window.runs_page
    wait_until("the runs", lambda: runs.model.rowCount() == 3 and runs.detail_model.rowCount() > 0)
    runs.table.selectRow(1)  # the interrupted one: Resume is offered
    wait_until("its outcomes", lambda: runs.detail_model.rowCount() == 3)
    shots.append(shoot(window, "window-7-runs"))

    # 8. Corpus.
    window.show_section(Section.CORPUS)
    wait_until("the notebooks", lambda: window.corpus_page.notebook_model.rowCount() > 0)
    shots.append(shoot(window, "window-8-corpus"))

    # 9. A partial run: one notebook's files went away mid-run; Retry What Did Not Land.
    window.flow.new_import()
    retry_shelf = base / "Box 3"
    for title in ("Ledger 1921", "Ledger 1922"):
        for n in range(1, 4):
            page_scan(retry_shelf / title / f"p{n}.jpg", f"{title} p{n}", tint=n + len(title))
    window.add_paths([retry_shelf])
    window.start_page.scan_button.click()
    wait_until("the second review", lambda: window.current_page() is page and validated())
    retry_gate = Gate()
    held = executor_module.execute_run

    def execute_holding(corpus: Corpus, run_id: str, *, on_event: Any = None, **kw: Any) -> Any:
        def on(event: RunEvent) -> None:
            on_event(event)
            if event.kind is EventKind.ITEM_FINISHED:
                retry_gate.hold()  # after the first notebook, before the next one starts

        return held(corpus, run_id, on_event=on, **{**kw, "workers": 1})

    executor_module.execute_run = execute_holding  # type: ignore[assignment]
    page.commit_button.click()
    wait_until("the first notebook", retry_gate.reached.is_set)
    landed = {nb.title for nb in corpus.list_notebooks()}
    [gone] = [t for t in ("Ledger 1921", "Ledger 1922") if t not in landed]
    aside = base / "aside"
    (retry_shelf / gone).rename(aside)  # the drive was unplugged
    retry_gate.release.set()
    wait_until("the partial end", lambda: not window.commit_page.is_running())
    window.statusBar().clearMessage()
    shots.append(shoot(window, "window-9-retry"))
    partial_run = window.commit_page.run_id
    aside.rename(retry_shelf / gone)  # and plugged in again: Retry would land the rest

    # 10. The review on a 1024x768 screen (and 1366x768): no control off screen.
    window.flow.new_import()
    window.add_paths([shelf])
    window.start_page.scan_button.click()
    wait_until("the third review", lambda: window.current_page() is page and validated())
    page.select_item(
        next(it for it in window.session.plan.items if it.label == "Camera uploads").item_id
    )
    for width, height in ((1024, 768), (1366, 768)):
        window.resize(width, height)
        window.fit_on_screen(QRect(0, 0, width, height))
        wait(300)
        shots.append(shoot(window, f"window-10-review-{width}x{height}"))
    # 11. The page viewer beside the table at 1366x768, on the two pages of the rollover.
    page.page_split.setSizes([6500, 3500])
    page.select_rows([0, 5])
    wait_until("the previews", lambda: all(page.viewer.pixmaps()))
    wait(300)
    shots.append(shoot(window, "window-11-viewer-1366x768"))
    window.resize(*SIZE)

    # 12. Runs › Undo This Import… on the partial run: the preview, then the undo; the Trash.
    window.show_section(Section.RUNS)
    runs.refresh(select=partial_run)
    wait_until("the partial run", lambda: runs.selected_run_id() == partial_run)
    runs.undo_button.click()
    undo = runs.undo_dialog
    assert undo is not None
    wait_until("the undo preview", undo.undo_button.isEnabled)
    wait(300)
    shots.append(shoot(undo, "window-12-undo"))
    undo.undo_button.click()
    wait_until("the undo", lambda: not undo.undo_button.isVisible())
    undo.accept()
    runs.trash_button.click()
    trash = runs.trash_dialog
    assert trash is not None
    wait_until("the trash", lambda: trash.list.count() > 0)
    wait(300)
    shots.append(shoot(trash, "window-13-trash"))
    trash.accept()
    wait_until("the undone run's history", lambda: runs.history_list.count() >= 5)
    shots.append(shoot(window, "window-14-runs-undone"))

    # The same window in a dark palette: nothing may keep light colours.
    dark_palette()
    window.show_import_page(window.commit_page)  # the partial run's end, with Retry
    window.statusBar().clearMessage()
    wait(300)
    shots.append(shoot(window, "window-6-finished-dark"))
    window.flow.new_import()
    window.add_paths([shelf])
    window.statusBar().clearMessage()
    wait(300)
    shots.append(shoot(window, "window-1-start-dark"))

    window.close()
    return shots


def main() -> int:
    application()
    with tempfile.TemporaryDirectory(prefix="transcribe-shots-") as tmp:
        shots = walk(Path(tmp))
    for path in shots:
        print(path.relative_to(REPO))
    return 0


if __name__ == "__main__":
    sys.exit(main())
