"""A folder titled as a notebook of the corpus, through the real window (#34): pages whose
names continue its page numbers complete it by default, after its last page; a second
notebook only by Make a Second Notebook; pages starting again at 1 make a notebook of their
own, and the Problems pane says why."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PIL import Image
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.planning.plan import Op
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.models.problems import ProblemColumn
from transcribe_import.gui.values import PlanItemState

from helpers.runs import commit_plan
from helpers.window import (
    commit,
    item_state,
    panel_words,
    scan,
    show_item,
    wait_run_end,
    wait_validated,
)

WAIT_MS = 10_000


def _pages(folder: Path, numbers: range, shade: int) -> None:
    """Small PNG pages ``p06.png``..., each of its own colour."""
    folder.mkdir(parents=True)
    for n in numbers:
        Image.new("RGB", (40, 56), (shade, n * 11 % 256, 200)).save(folder / f"p{n:02}.png")


def _diary(corpus: Corpus, root: Path) -> tuple[str, list[str]]:
    """“Diary 1931” imported with p01–p05: its id and its page ids."""
    _pages(root / "Diary 1931", range(1, 6), 10)
    plan = api.plan_paths(corpus, api.PlanRequest((root,))).plan
    assert commit_plan(corpus, plan).status == "complete"
    [nbid] = corpus.index_entries()
    return nbid, [p["id"] for p in project.read(corpus.notebook_dir(nbid), nbid)["pages"]]


def _page_count(corpus: Corpus) -> list[tuple[str, int]]:
    return sorted(
        (e.title, len(project.read(corpus.notebook_dir(n), n)["pages"]))
        for n, e in corpus.index_entries().items()
    )


def _problems_shown(window: MainWindow) -> list[str]:
    model = window.review_page.problems_model
    return [model.index(r, ProblemColumn.MESSAGE).data() for r in range(model.rowCount())]


def _later_folder_scanned(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    tmp_path: Path,
    numbers: range,
) -> tuple[MainWindow, str, list[str]]:
    """“Diary 1931” imported with p01–p05, then a later folder of that title holding pages
    ``numbers`` scanned in the window: the window, the diary's id and its page ids."""
    nbid, held = _diary(corpus, tmp_path / "first")
    _pages(tmp_path / "later" / "Diary 1931", numbers, 90)
    window = open_window(workers=1)
    scan(qtbot, window, tmp_path / "later")
    return window, nbid, held


def _a_second_notebook_lands(
    qtbot: QtBot, window: MainWindow, corpus: Corpus, nbid: str, held: list[str], said: str
) -> None:
    """The Problems pane says ``said`` (and no raw id); committed, the diary is as it was and
    the later pages are a second “Diary 1931”."""
    qtbot.waitUntil(lambda: any(said in m for m in _problems_shown(window)), timeout=WAIT_MS)
    assert not any(nbid[:8] in m for m in _problems_shown(window))

    commit(qtbot, window)
    wait_run_end(qtbot, window)
    assert [p["id"] for p in project.read(corpus.notebook_dir(nbid), nbid)["pages"]] == held
    assert _page_count(corpus) == [("Diary 1931", 3), ("Diary 1931", 5)]


def test_pages_continuing_its_numbers_complete_it_by_default(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    window, nbid, held = _later_folder_scanned(qtbot, open_window, corpus, tmp_path, range(6, 9))
    page = window.review_page
    [item] = window.session.plan.items
    assert item.op is Op.IMPORT_INTO_NOTEBOOK and item.notebook_id == nbid
    assert item_state(qtbot, page.items_model, item.item_id) is PlanItemState.READY
    show_item(page, item.label)
    words = panel_words(page)
    assert (
        "Completes “Diary 1931” with the 3 new pages, after its last page: this folder has its "
        "title, and the names of its pages continue its page numbers. A second notebook of "
        "them is made only if you choose it."
    ) in words
    assert nbid[:8] not in words
    assert page.decision_panel.title() == "This folder goes on with a notebook in the corpus"
    [button] = page.decision_panel.buttons()
    assert isinstance(button, QPushButton) and button.text() == "Make a Second Notebook"
    assert page.can_commit()

    commit(qtbot, window)  # the default: nothing chosen
    wait_run_end(qtbot, window)
    pages = project.read(corpus.notebook_dir(nbid), nbid)["pages"]
    assert [p["id"] for p in pages][:5] == held and len(pages) == 8  # every page id kept
    assert _page_count(corpus) == [("Diary 1931", 8)]


def test_make_a_second_notebook_of_continuing_pages(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    window, nbid, held = _later_folder_scanned(qtbot, open_window, corpus, tmp_path, range(6, 9))
    page = window.review_page
    [item] = window.session.plan.items
    show_item(page, item.label)
    [button] = page.decision_panel.buttons()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    wait_validated(qtbot, window)
    second = window.session.plan.item(item.item_id)
    assert second.op is Op.CREATE_NOTEBOOK and second.notebook_id != nbid
    assert page.session.undo_stack.undoText() == "Make a second notebook"
    said = (
        "and the names of these pages continue its page numbers; this makes a second notebook "
        "of them, as you chose."
    )
    _a_second_notebook_lands(qtbot, window, corpus, nbid, held, said)


def test_pages_starting_again_at_1_make_a_notebook_of_their_own(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    window, nbid, held = _later_folder_scanned(qtbot, open_window, corpus, tmp_path, range(1, 4))
    [item] = window.session.plan.items
    assert item.op is Op.CREATE_NOTEBOOK and item.notebook_id != nbid
    said = (
        "and the names of these pages do not continue its page numbers (its last page is "
        "p05.png; this folder's first is p01.png), so this makes a second notebook. Rename it "
        "in the plan if that is not what you want."
    )
    _a_second_notebook_lands(qtbot, window, corpus, nbid, held, said)
