"""A shelf imported again, through the real window (#22): a notebook already imported says
so and imports nothing, a notebook partly imported is completed in place by default (#34:
a second notebook only by Make a Second Notebook), and a change of the duplicates setting
judges the open review again."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import date
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QPushButton
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.planning.plan import Op
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.models.page_grid import Badge, badges
from transcribe_import.gui.models.page_rows import PageColumn
from transcribe_import.gui.models.plan_items import ItemColumn
from transcribe_import.gui.settings_dialog import SettingsDialog
from transcribe_import.gui.values import PlanItemState

from helpers.runs import commit_plan
from helpers.shelves import make_png_shelf
from helpers.window import (
    commit,
    item_state,
    panel_words,
    scan,
    show_item,
    wait_run_end,
    wait_validated,
    when_modal_opens,
)


def half_imported_shelf(corpus: Corpus, root: Path) -> tuple[Path, dict[str, str]]:
    """“Diary 1931” (3 pages) imported whole, “Parish Register” (4 pages) without its last
    two: the shelf, with every page back in place, and title -> notebook id."""
    shelf = make_png_shelf(root, notebooks=2, pages=4)
    (shelf / "Notebook 01" / "p4.png").unlink()
    register = shelf / "Notebook 02"
    aside = root.parent / "aside"
    aside.mkdir()
    for name in ("p3.png", "p4.png"):
        (register / name).rename(aside / name)
    plan = api.plan_paths(corpus, api.PlanRequest((shelf,))).plan
    titles = {"Notebook 01": "Diary 1931", "Notebook 02": "Parish Register"}
    plan = replace(plan, items=tuple(replace(it, title=titles[it.label]) for it in plan.items))
    assert commit_plan(corpus, plan).status == "complete"
    for name in ("p3.png", "p4.png"):
        (aside / name).rename(register / name)
    ids = {it.title or "": it.notebook_id for it in plan.items}
    return shelf, ids


def test_a_shelf_scanned_again_says_already_imported_and_completes_by_default(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    shelf, ids = half_imported_shelf(corpus, tmp_path / "shelf")
    held = [
        p["id"]
        for p in project.read(corpus.notebook_dir(ids["Parish Register"]), ids["Parish Register"])[
            "pages"
        ]
    ]
    window = open_window(workers=1)
    scan(qtbot, window, shelf)
    page = window.review_page
    model = page.items_model
    plan = window.session.plan
    assert plan is not None
    diary, register = plan.items
    assert item_state(qtbot, model, diary.item_id) is PlanItemState.ALREADY_IMPORTED
    # Planned to complete “Parish Register” (main planned a second one unless asked, #34).
    assert register.op is Op.IMPORT_INTO_NOTEBOOK
    assert register.notebook_id == ids["Parish Register"]
    assert item_state(qtbot, model, register.item_id) is PlanItemState.DUPLICATE_SKIPS
    assert page.can_commit()  # an item imported already never blocks the commit

    show_item(page, diary.label)
    day = f"{date.today().day} {date.today():%B}"
    assert f"Already imported: all 3 pages are in “Diary 1931” (imported {day})." in panel_words(
        page
    )
    assert "second one" not in " ".join(p.message for p in window.session.report.problems)
    assert not page.decision_panel.buttons()

    show_item(page, register.label)
    assert (
        "Completes “Parish Register” with the 2 new pages, where their names put them among "
        "its pages: 2 files of this folder are in it already. A second notebook of them is "
        "made only if you choose it."
    ) in panel_words(page)
    # The pages held already say Duplicate; none is "In question" for being held.
    rows = [page.pages_model.row(r) for r in range(page.pages_model.rowCount())]
    assert [r.source.name for r in rows if r.source.planned_skip] == ["p1.png", "p2.png"]
    assert [r.source.name for r in rows if r.notes] == []
    assert page.decision_panel.title() == "Part of this folder is in the corpus already"
    [button] = page.decision_panel.buttons()
    assert isinstance(button, QPushButton) and button.text() == "Make a Second Notebook"

    commit(qtbot, window)  # the default: nothing chosen
    wait_run_end(qtbot, window)
    doc = project.read(corpus.notebook_dir(ids["Parish Register"]), ids["Parish Register"])
    assert [p["id"] for p in doc["pages"]][:2] == held and len(doc["pages"]) == 4
    assert sorted(e.title for e in corpus.index_entries().values()) == [
        "Diary 1931",
        "Parish Register",
    ]


def test_make_a_second_notebook_makes_one_of_the_new_pages(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    """The explicit choice: a second “Parish Register” of the 2 new pages, the first as it
    was; Undo takes the choice back to completing it."""
    shelf, ids = half_imported_shelf(corpus, tmp_path / "shelf")
    nbid = ids["Parish Register"]
    held = project.read(corpus.notebook_dir(nbid), nbid)["pages"]
    window = open_window(workers=1)
    scan(qtbot, window, shelf)
    page = window.review_page
    _diary, register = window.session.plan.items
    show_item(page, register.label)
    [button] = page.decision_panel.buttons()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    wait_validated(qtbot, window)
    second = window.session.plan.item(register.item_id)
    assert second.op is Op.CREATE_NOTEBOOK and second.notebook_id != nbid
    assert page.session.undo_stack.undoText() == "Make a second notebook"
    page.session.undo_stack.undo()
    wait_validated(qtbot, window)
    assert window.session.plan.item(register.item_id).op is Op.IMPORT_INTO_NOTEBOOK
    page.session.undo_stack.redo()
    wait_validated(qtbot, window)

    commit(qtbot, window)
    wait_run_end(qtbot, window)
    assert project.read(corpus.notebook_dir(nbid), nbid)["pages"] == held
    counts = sorted(
        (e.title, len(project.read(corpus.notebook_dir(n), n)["pages"]))
        for n, e in corpus.index_entries().items()
    )
    # The second one has the title it was planned with: its folder's name.
    assert counts == [("Diary 1931", 3), ("Notebook 02", 2), ("Parish Register", 2)]


def test_a_page_left_out_of_the_first_import_is_left_out_again_and_said(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    """A blank page left out of the first import is not a "new page" of the folder scanned
    again: it is left out again, the notebook reads Already imported, and Include takes it
    back (the notebook is then offered to be completed with it)."""
    shelf = make_png_shelf(tmp_path / "shelf", notebooks=1, pages=4)
    window = open_window(workers=1)
    scan(qtbot, window, shelf)
    [item] = window.session.plan.items
    page = window.review_page
    show_item(page, item.label)
    page.select_rows([2])
    page.exclude_action.trigger()
    wait_validated(qtbot, window)
    commit(qtbot, window)
    wait_run_end(qtbot, window)

    window.flow.new_import()
    scan(qtbot, window, shelf)
    [item] = window.session.plan.items
    assert item_state(qtbot, page.items_model, item.item_id) is PlanItemState.ALREADY_IMPORTED
    show_item(page, item.label)
    assert "p3.png was left out of that import: it is left out again." in panel_words(page)
    left_out = [s.name for s in item.sources if s.excluded]
    assert left_out == ["p3.png"]

    page.select_rows([2])
    page.include_action.trigger()
    wait_validated(qtbot, window)
    assert item_state(qtbot, page.items_model, item.item_id) is PlanItemState.PARTLY_IMPORTED


def test_a_change_of_the_duplicates_setting_judges_the_open_review_again(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    shelf, _ids = half_imported_shelf(corpus, tmp_path / "shelf")
    window = open_window(workers=1)
    scan(qtbot, window, shelf)
    model = window.review_page.items_model
    diary = window.session.plan.items[0]
    assert item_state(qtbot, model, diary.item_id) is PlanItemState.ALREADY_IMPORTED

    def untick(dialog: QDialog) -> None:
        assert isinstance(dialog, SettingsDialog) and dialog.corpus_check.isChecked()
        qtbot.mouseClick(dialog.corpus_check, Qt.MouseButton.LeftButton)
        dialog.accept()

    when_modal_opens(SettingsDialog, untick)
    window.settings_action.trigger()
    assert window.statusBar().currentMessage() == (
        "Settings saved; the notebooks under review were judged again."
    )
    wait_validated(qtbot, window)
    assert item_state(qtbot, model, diary.item_id) is PlanItemState.READY
    assert window.session.plan.items[0].imported_page_count() == 3


def test_leave_out_on_page_3_of_a_pdf_leaves_out_that_page_alone(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    """Main excluded all 5 pages and the notebook stayed a green Ready with Commit on."""
    from media_factory import make_pdf

    make_pdf(tmp_path / "shelf" / "Parish Register" / "scan.pdf", 5)
    window = open_window(workers=1)
    scan(qtbot, window, tmp_path / "shelf")
    page = window.review_page
    [item] = window.session.plan.items
    show_item(page, item.label)
    page.select_rows([2])
    page.exclude_action.trigger()
    wait_validated(qtbot, window)
    [source] = window.session.plan.item(item.item_id).sources
    assert [p.page_index for p in source.pages] == [0, 1, 3, 4] and not source.excluded
    # The page left out stays in sight, greyed and badged, after the file's pages (#34).
    assert page.pages_model.rowCount() == 5
    said = [page.pages_model.index(r, PageColumn.SOURCE_PAGE).data() for r in range(5)]
    assert said == ["p. 1 of 5", "p. 2 of 5", "p. 4 of 5", "p. 5 of 5", "p. 3 of 5"]
    out = page.pages_model.row(4)
    assert out.left_out and out.number is None and Badge.LEFT_OUT in badges(out)
    grey = page.pages_model.index(4, PageColumn.SOURCE_PAGE).data(Qt.ItemDataRole.ForegroundRole)
    assert (
        grey is not None
        and page.pages_model.index(0, 0).data(Qt.ItemDataRole.ForegroundRole) is None
    )
    page.select_rows([4])
    assert page.viewer.caption.text().startswith("Not a page of the notebook: left out")
    assert not page.exclude_action.isEnabled() and page.include_action.isEnabled()
    assert item_state(qtbot, page.items_model, item.item_id) is PlanItemState.READY
    page.select_rows([1])
    assert page.include_action.isEnabled()  # a file with a page left out can be taken back

    page.select_rows([0, 1, 2, 3])
    page.exclude_action.trigger()
    wait_validated(qtbot, window)
    state = item_state(qtbot, page.items_model, item.item_id)
    assert state is PlanItemState.NOTHING_TO_IMPORT
    row = page.items_model.row_of(item.item_id)
    assert page.items_model.index(row, ItemColumn.STATE).data() == "Nothing to import"

    page.select_rows([2])
    page.include_action.trigger()  # the file back, every page of it
    wait_validated(qtbot, window)
    [source] = window.session.plan.item(item.item_id).sources
    assert [p.page_index for p in source.pages] == [0, 1, 2, 3, 4] and not source.left_out
    commit(qtbot, window)
    wait_run_end(qtbot, window)


def test_a_commit_waiting_for_another_import_says_so_and_goes_on_after_it(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    """Another import holds the duplicates lock (as a `commit` in a terminal would)."""
    from transcribe_import.engine.planning.dedupe import DUPLICATES_LOCK_FILE
    from transcribe_import.engine.storage import locks

    shelf = make_png_shelf(tmp_path / "shelf", notebooks=1)
    window = open_window(workers=1)
    scan(qtbot, window, shelf)
    other = locks.make_lock(corpus.root / DUPLICATES_LOCK_FILE)
    other.acquire()
    try:
        commit(qtbot, window)
        summary = window.commit_page.summary_label
        qtbot.waitUntil(lambda: summary.text().startswith("Waiting for another import"))
        assert summary.text() == (
            "Waiting for another import into this corpus to finish: duplicates across the "
            "corpus are decided one import at a time. Cancel stops this one."
        )
        assert window.commit_page.is_running()
    finally:
        other.release()
    wait_run_end(qtbot, window)
    assert [e.title for e in corpus.index_entries().values()] == ["Notebook 01"]


def test_a_notebook_marked_incomplete_is_finished_by_complete_in_the_review(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    """An import of “Register” cancelled once its first checkpoint landed; its folder scanned
    again in the window completes “Register” by default (#34): the rest lands in it, and the
    mark goes."""
    from transcribe_import.engine.runs.executor import EventKind, RunControl, RunEvent
    from transcribe_import.engine.runs.model import RunStatus
    from transcribe_import.gui.main_window import Section
    from transcribe_import.gui.models.notebooks import NotebookColumn

    from helpers.runs import plan_for
    from helpers.shelves import make_shelf
    from helpers.window import TIMEOUT_MS

    shelf = make_shelf(tmp_path / "shelf", 1, 40, folder="Register", size=(120, 160))
    first = plan_for(corpus, shelf)
    first = replace(first, items=(replace(first.items[0], title="Register"),))
    control = RunControl()

    def stop(event: RunEvent) -> None:
        if event.kind is EventKind.PAGES_LANDED:
            control.cancel()

    assert commit_plan(corpus, first, control=control, workers=1, on_event=stop).status is (
        RunStatus.CANCELLED
    )
    notebook_id = first.items[0].notebook_id
    unfinished = api.notebook_state(corpus, notebook_id)
    assert unfinished is not None
    landed = unfinished.pages_landed
    held = [p["id"] for p in project.read(corpus.notebook_dir(notebook_id), notebook_id)["pages"]]
    assert len(held) == landed < 40

    window = open_window(workers=1)
    scan(qtbot, window, shelf)
    page = window.review_page
    [item] = window.session.plan.items
    assert item_state(qtbot, page.items_model, item.item_id) is PlanItemState.DUPLICATE_SKIPS
    show_item(page, item.label)
    assert (
        f"“Register” is incomplete: its import stopped after {landed} of its 40 pages. "
        f"Completes it with the {40 - landed} new pages"
    ) in panel_words(page)
    [button] = page.decision_panel.buttons()  # the other choice; completing is the default
    assert button.text() == "Make a Second Notebook"
    assert window.session.plan.item(item.item_id).notebook_id == notebook_id
    commit(qtbot, window)
    wait_run_end(qtbot, window)

    doc = project.read(corpus.notebook_dir(notebook_id), notebook_id)
    assert [p["id"] for p in doc["pages"]][:landed] == held and len(doc["pages"]) == 40
    assert api.notebook_state(corpus, notebook_id) is None
    assert len(corpus.index_entries()) == 1
    window.show_section(Section.CORPUS)
    qtbot.waitUntil(
        lambda: (
            window.corpus_page.notebook_model.index(0, NotebookColumn.STATE).data() == "Complete"
        ),
        timeout=TIMEOUT_MS,
    )
