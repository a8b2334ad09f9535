"""One count everywhere (#34): the review's viewer, the commit's rows, Runs, the undo preview
and the run's counts say the pages the disk holds, for a notebook with a byte duplicate, a
PDF, and a later import into it that adds pages and replaces one with a rescan."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import orjson
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.planning import placement
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow, Section
from transcribe_import.gui.models.outcomes import OutcomeColumn

from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_pages
from helpers.window import TIMEOUT_MS, commit, drop, scan_and_validate, wait_run_end
from media_factory import make_pdf


def _pages_on_disk(corpus: Corpus, notebook_id: str) -> int:
    doc = orjson.loads((corpus.notebook_dir(notebook_id) / "project.json").read_bytes())
    return len(doc["pages"])


def _counts(corpus: Corpus, run_id: str) -> api.RunCounts:
    return api.run_summary(corpus, RunStore(corpus).load(run_id)).counts


def _select_run(qtbot: QtBot, window: MainWindow, run_id: str) -> None:
    page = window.runs_page
    with qtbot.waitSignal(page.listed, timeout=TIMEOUT_MS):
        window.show_section(Section.RUNS)
        page.refresh(select=run_id)
    qtbot.waitUntil(lambda: page.selected_run_id() == run_id, timeout=TIMEOUT_MS)
    qtbot.waitUntil(lambda: page.detail_model.rowCount() == 1, timeout=TIMEOUT_MS)


def _undo_preview_line(qtbot: QtBot, window: MainWindow) -> str:
    page = window.runs_page
    qtbot.mouseClick(page.undo_button, Qt.MouseButton.LeftButton)
    dialog = page.undo_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: not dialog._task.is_busy(), timeout=TIMEOUT_MS)
    line = dialog.removed.item(0).text()
    dialog.reject()
    return line


def test_every_surface_counts_the_pages_the_disk_holds(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    folder = tmp_path / "shelf" / "Register"
    make_pdf(folder / "Register.pdf", 5)
    shutil.copyfile(folder / "Register.pdf", folder / "Register copy.pdf")  # a byte duplicate
    window = open_window()
    drop(window, [tmp_path / "shelf"])
    scan_and_validate(qtbot, window)
    review = window.review_page
    rows = review.pages_model.rows()
    assert len(rows) == 10  # five pages, and the duplicate's five shown as skipped
    duplicate = next(r for r, row in enumerate(rows) if row.source.name == "Register copy.pdf")
    review.select_rows([duplicate])
    qtbot.waitUntil(lambda: "duplicate" in review.viewer.caption.text(), timeout=TIMEOUT_MS)
    assert review.viewer.caption.text().startswith(
        "Not a page of the notebook: a duplicate, skipped"
    )
    last = max(r for r, row in enumerate(rows) if row.source.name == "Register.pdf")
    review.select_rows([last])  # the PDF's last page: the notebook's fifth
    qtbot.waitUntil(
        lambda: review.viewer.caption.text().startswith("Page 5 of 5"), timeout=TIMEOUT_MS
    )
    commit(qtbot, window)
    wait_run_end(qtbot, window)
    first = window.commit_page.run_id
    assert first is not None
    [record] = RunStore(corpus).list_runs()
    [outcome] = record.outcomes().values()
    notebook = outcome.notebook_id
    assert _pages_on_disk(corpus, notebook) == 5
    details = window.commit_page.model.index(0, OutcomeColumn.DETAILS).data()
    assert details.startswith("5 pages into a new notebook")
    assert _counts(corpus, first).pages_landed == 5

    _select_run(qtbot, window, first)
    shown = window.runs_page.selected_run()
    assert shown is not None and shown.counts.pages_landed == 5  # the Runs view's figure
    assert _undo_preview_line(qtbot, window) == "“Register”: the whole notebook, 5 pages"

    # A later import into it: two new pages and a rescan of its first page.
    make_pages(tmp_path / "late", 3, name="late {i}.jpg", tag="late")
    late = plan_for(corpus, tmp_path / "late", mode=f"into:{notebook}")
    [item] = late.items
    doc = orjson.loads((corpus.notebook_dir(notebook) / "project.json").read_bytes())
    rescan = placement.replace_page(item, item.sources[0].pages[0].page_id, doc["pages"][0]["id"])
    later = commit_plan(corpus, late.with_item(rescan)).run_id
    assert _pages_on_disk(corpus, notebook) == 7  # 5, 2 added, 1 in the place of another

    _select_run(qtbot, window, later)
    model = window.runs_page.detail_model
    said = "2 pages added to the existing notebook, 1 page of it replaced by a rescan"
    qtbot.waitUntil(
        lambda: model.index(0, OutcomeColumn.DETAILS).data() == said, timeout=TIMEOUT_MS
    )
    counts = _counts(corpus, later)
    assert (counts.pages_landed, counts.pages_replaced) == (3, 0)
    assert _undo_preview_line(qtbot, window) == (
        "“Register”: the 2 pages this import added, and its 1 rescan (the page it replaced "
        "comes back); its other pages stay"
    )
    earlier = _counts(corpus, first)  # its first page was replaced since
    assert (earlier.pages_landed, earlier.pages_replaced, earlier.pages_in) == (5, 1, 4)
