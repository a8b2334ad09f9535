"""Rescans recognised by their look, through the real window (#22): a page like one already
imported, or like another of the same folder, is asked about in the decision panel, its
notebook badged "A rescan?", and each of the three answers does what it says."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QApplication, QPushButton
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.planning.plan import DedupeScope, Op
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.models.page_grid import position_words
from transcribe_import.gui.pages.review import ReviewPage
from transcribe_import.gui.values import PlanItemState

from helpers.lookalike_set import (
    Rescan,
    Ruling,
    alike_pages,
    notebook_page,
    rescan_file,
    save_jpeg,
    scans,
)
from helpers.runs import imported_diary, looked_at
from helpers.window import (
    TIMEOUT_MS,
    commit,
    into_review,
    item_state,
    panel_words,
    scan,
    scan_and_validate,
    show_item,
    wait_run_end,
    wait_validated,
)


def buttons(page: ReviewPage) -> dict[str, QPushButton]:
    return {b.text(): b for b in page.decision_panel.buttons()}


def click(qtbot: QtBot, window: MainWindow, button: QPushButton) -> None:
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    wait_validated(qtbot, window)


def test_a_rescan_of_an_imported_page_is_asked_about_and_kept_both(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    imported_diary(corpus, tmp_path)
    rescan_file(2, Rescan.RIGHT, tmp_path / "Loose" / "p1.jpg")
    save_jpeg(notebook_page(77, Ruling.PLAIN, 0.4), tmp_path / "Loose" / "p2.jpg")
    window = open_window(workers=1)
    scan(qtbot, window, tmp_path / "Loose")
    page = window.review_page
    model = page.items_model
    [item] = window.session.plan.items
    assert item_state(qtbot, model, item.item_id) is PlanItemState.LOOKS_LIKE
    show_item(page, item.label)
    words = panel_words(page)
    assert "Loose/p1.jpg looks like page 2 of “Diary 1931”, turned" in words
    assert "a rescan?" in words
    assert page.decision_panel.title() == "Pages that look like other pages: rescans?"
    # A new notebook cannot take an old page's place: Replace is not offered, importing into
    # that notebook instead is (tested below).
    assert list(buttons(page)) == ["Import into “Diary 1931” instead", "Keep Both", "Leave Out"]
    assert page.can_commit()  # a question, not an error

    click(qtbot, window, buttons(page)["Keep Both"])
    assert page.session.undo_stack.undoText() == "Keep both pages"
    assert item_state(qtbot, model, item.item_id) is PlanItemState.READY
    assert not page.decision_panel.buttons()

    commit(qtbot, window)
    wait_run_end(qtbot, window)
    pages = sorted(len(api.notebook_pages(corpus, n)) for n in corpus.index_entries())
    assert pages == [2, 4]  # both kept
    # Remembered: the same rescan scanned again (as a second copy) is not asked about.
    again = api.plan_paths(
        corpus, api.PlanRequest((tmp_path / "Loose",), dedupe_scope=DedupeScope.NOTEBOOK)
    ).plan
    again = looked_at(again)
    assert all(p.look for it in again.items for s in it.sources for p in s.pages)
    report = api.validate_plan(corpus, again)
    assert not [p for p in report.problems if p.code == "looks_like"]


def test_a_rescan_beside_its_page_is_replaced_or_left_out(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    folder = tmp_path / "Box"
    scans(folder, (1, 2), "p{k}.jpg")
    rescan_file(2, Rescan.TILT, folder / "p3.jpg")
    window = open_window(workers=1)
    scan(qtbot, window, folder)
    page = window.review_page
    model = page.items_model
    [item] = window.session.plan.items
    assert item_state(qtbot, model, item.item_id) is PlanItemState.LOOKS_LIKE
    show_item(page, item.label)
    assert "Box/p3.jpg looks like Box/p2.jpg in this import: a rescan?" in panel_words(page)
    assert list(buttons(page)) == ["Replace", "Keep Both", "Leave Out"]

    click(qtbot, window, buttons(page)["Replace"])
    assert page.session.undo_stack.undoText() == "Replace a page by its rescan"
    excluded = [s.name for s in window.session.plan.item(item.item_id).sources if s.excluded]
    assert excluded == ["p2.jpg"]
    assert item_state(qtbot, model, item.item_id) is PlanItemState.READY

    page.session.undo_stack.undo()
    wait_validated(qtbot, window)
    assert item_state(qtbot, model, item.item_id) is PlanItemState.LOOKS_LIKE
    click(qtbot, window, buttons(page)["Leave Out"])
    assert page.session.undo_stack.undoText() == "Leave out a rescan"
    excluded = [s.name for s in window.session.plan.item(item.item_id).sources if s.excluded]
    assert excluded == ["p3.jpg"]
    assert item_state(qtbot, model, item.item_id) is PlanItemState.READY


def test_a_rescan_numbered_last_replaces_its_page_where_it_stood_beside_a_broken_file(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    """A phone's photos: the rescan of page 2 is numbered after the last, and a file is cut
    short. The panel says decisions are asked (not "files that cannot be imported" over a
    rescan question), and Replace numbers the rescan 2 in the grid and the details."""
    folder = tmp_path / "Phone"
    scans(folder, range(1, 5), "IMG_{k:04d}.jpg")
    rescan_file(2, Rescan.LIGHT, folder / "IMG_0005.jpg")
    (folder / "IMG_0006.jpg").write_bytes((folder / "IMG_0001.jpg").read_bytes()[:3000])
    window = open_window(workers=1)
    scan(qtbot, window, folder)
    page = window.review_page
    [item] = window.session.plan.items
    show_item(page, item.label)
    assert "Phone/IMG_0005.jpg looks like Phone/IMG_0002.jpg in this import" in panel_words(page)
    assert "Phone/IMG_0006.jpg is cut short" in panel_words(page)
    assert page.decision_panel.title() == "This notebook needs decisions"

    # Answered from the keyboard: the focus goes on to the next question's first button.
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=TIMEOUT_MS)
    buttons(page)["Replace"].setFocus()
    qtbot.keyClick(buttons(page)["Replace"], Qt.Key.Key_Space)
    wait_validated(qtbot, window)
    focused = QApplication.focusWidget()
    assert isinstance(focused, QPushButton) and focused.text() == "Leave Out"
    assert page.decision_panel.isAncestorOf(focused)
    item = window.session.plan.item(item.item_id)
    assert [s.name for s in item.imported_sources()] == [
        "IMG_0001.jpg",
        "IMG_0005.jpg",
        "IMG_0003.jpg",
        "IMG_0004.jpg",
    ]
    assert numbers(page) == {
        "IMG_0001.jpg": "1",
        "IMG_0005.jpg": "2",
        "IMG_0002.jpg": "–",
        "IMG_0003.jpg": "3",
        "IMG_0004.jpg": "4",
    }
    assert page.decision_panel.title() == "Files that cannot be imported"


def numbers(page: ReviewPage) -> dict[str, str]:
    """Each page's file and the number the grid shows for it (its first caption line)."""
    model = page.pages_model
    return {model.row(r).source.name: position_words(model.row(r)) for r in range(model.rowCount())}


def test_replace_into_the_notebook_says_where_the_rescan_goes(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    """Replace answered on a rescan into the notebook: the placement bar says the rescan
    takes page 3's place (there are no new pages to put at the end), and the rescan is
    numbered 3, as the commit then lands it."""
    target = imported_diary(corpus, tmp_path)
    rescan_file(3, Rescan.TILT, tmp_path / "rescans" / "p3.jpg")
    window = open_window(workers=1)
    into_review(qtbot, window, target, tmp_path / "rescans")
    page = window.review_page
    bar = page.placement_bar
    [item] = window.session.plan.items
    assert item_state(qtbot, page.items_model, item.item_id) is PlanItemState.LOOKS_LIKE
    assert bar.title() == "Where the new pages go in “Diary 1931”"
    assert bar.mode_combo.currentText() == "At the end" and bar.new_pages_row.isVisible()
    assert numbers(page) == {"p3.jpg": "5"}  # a new page, at the end of four
    assert list(buttons(page)) == ["Replace", "Keep Both", "Leave Out"]

    click(qtbot, window, buttons(page)["Replace"])
    assert bar.title() == "Where the pages go in “Diary 1931”"
    assert not bar.new_pages_row.isVisible()  # it read "New pages go: At the end"
    assert bar.rescans_label.isVisible()
    assert bar.rescans_label.text() == (
        "rescans/p3.jpg replaces page 3 of “Diary 1931” (03.jpg)\n"
        "A rescan takes the place and the number of the page it replaces; that page is "
        "kept in the notebook's history."
    )
    assert numbers(page) == {"p3.jpg": "3"}  # it read "1"
    header = page.pages_model.headerData(0, Qt.Orientation.Vertical, Qt.ItemDataRole.ToolTipRole)
    assert header == "Page 3 of the notebook"
    window.grab().save(str(tmp_path / "replace-into.png"))

    page.session.undo_stack.undo()  # the answer undone: a new page at the end again
    wait_validated(qtbot, window)
    assert bar.new_pages_row.isVisible() and not bar.rescans_label.isVisible()
    assert numbers(page) == {"p3.jpg": "5"}
    page.session.undo_stack.redo()
    wait_validated(qtbot, window)
    commit(qtbot, window)
    wait_run_end(qtbot, window)
    pages = api.notebook_pages(corpus, target)
    assert [p.file for p in pages if p.position is not None] == [
        "01.jpg",
        "02.jpg",
        "p3.jpg",
        "04.jpg",
    ]


def test_a_rescan_planned_as_a_new_notebook_is_imported_into_the_notebook_instead(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    """A new notebook's page looks like page 2 of “Diary 1931”: one button makes the folder
    an import into that notebook, after which Replace is offered and lands it there."""
    target = imported_diary(corpus, tmp_path)
    rescan_file(2, Rescan.LIGHT, tmp_path / "Loose" / "p1.jpg")
    save_jpeg(notebook_page(77, Ruling.PLAIN, 0.4), tmp_path / "Loose" / "p2.jpg")
    window = open_window(workers=1)
    scan(qtbot, window, tmp_path / "Loose")
    page = window.review_page
    [item] = window.session.plan.items
    assert item_state(qtbot, page.items_model, item.item_id) is PlanItemState.LOOKS_LIKE
    show_item(page, item.label)
    assert not page.placement_bar.isVisible()  # a new notebook
    offered = list(buttons(page))
    assert offered == ["Import into “Diary 1931” instead", "Keep Both", "Leave Out"]
    into = buttons(page)["Import into “Diary 1931” instead"]
    assert into.accessibleName() == "Import into “Diary 1931” instead: Loose/p1.jpg"

    click(qtbot, window, into)
    assert page.session.undo_stack.undoText() == "Import into an existing notebook"
    now = window.session.plan.item(item.item_id)
    assert (now.op, now.notebook_id) == (Op.IMPORT_INTO_NOTEBOOK, target)
    assert page.placement_bar.isVisible()
    assert item_state(qtbot, page.items_model, item.item_id) is PlanItemState.LOOKS_LIKE
    assert list(buttons(page)) == ["Replace", "Keep Both", "Leave Out"]
    assert numbers(page) == {"p1.jpg": "5", "p2.jpg": "6"}

    click(qtbot, window, buttons(page)["Replace"])
    bar = page.placement_bar
    assert bar.new_pages_row.isVisible()  # p2.jpg is a new page: where it goes is asked
    assert bar.title() == "Where the new pages go in “Diary 1931”"
    assert bar.rescans_label.text().startswith(
        "Loose/p1.jpg replaces page 2 of “Diary 1931” (02.jpg)\n"
    )
    assert numbers(page) == {"p1.jpg": "2", "p2.jpg": "5"}
    assert item_state(qtbot, page.items_model, item.item_id) is PlanItemState.READY
    window.grab().save(str(tmp_path / "import-into-instead.png"))

    commit(qtbot, window)
    wait_run_end(qtbot, window)
    assert list(corpus.index_entries()) == [target]  # no second notebook
    pages = api.notebook_pages(corpus, target)
    assert [p.file for p in pages if p.position is not None] == [
        "01.jpg",
        "p1.jpg",
        "03.jpg",
        "04.jpg",
        "p2.jpg",
    ]
    assert [p.file for p in pages if p.position is None] == ["02.jpg"]  # in the history


def test_many_look_alikes_are_asked_a_few_at_a_time(
    qtbot: QtBot, open_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    """A notebook whose pages all look alike raised a question a page, and the panel built a
    row for each (2,000 rows: seconds of the window's thread, and the pages buried under it).
    It asks five at a time and says how many more wait; answering one brings the next."""
    from transcribe_import.engine.planning.problems import ProblemCode
    from transcribe_import.gui.pages.review_decisions import ALIKE_SHOWN

    window = open_window(workers=1)
    window.intake.add_paths([alike_pages(tmp_path / "Field notes", 40)])
    scan_and_validate(qtbot, window)
    page = window.review_page
    [item] = window.session.plan.items

    def asked() -> int:
        report = window.session.report
        assert report is not None
        return sum(p.code is ProblemCode.LOOKS_LIKE for p in report.for_item(item.item_id))

    def rows() -> list[str]:
        return [
            b.accessibleName() for b in page.decision_panel.buttons() if b.text() == "Leave Out"
        ]

    n = asked()
    assert n > ALIKE_SHOWN + 1
    show_item(page, item.label)
    assert len(rows()) == ALIKE_SHOWN
    # On a 1024x768 screen the questions scroll in their band: the page does not, and the
    # pages below keep room for a row of thumbnails.
    window.resize(1024, 768)
    qtbot.waitUntil(lambda: page.pages_widget().height() >= 180, timeout=TIMEOUT_MS)
    assert window.sections_scroll.verticalScrollBar().maximum() == 0
    words = panel_words(page)
    assert (
        f"{n - ALIKE_SHOWN} more pages look like others; they are asked here as these are answered."
        in words
    )

    first = next(b for b in page.decision_panel.buttons() if b.text() == "Leave Out")
    click(qtbot, window, first)
    assert asked() < n  # its question is answered, and the next one is asked in its place
    assert len(rows()) == min(ALIKE_SHOWN, asked())
    left = asked() - ALIKE_SHOWN
    if left > 1:
        assert f"{left} more pages look like others" in panel_words(page)

    # Pages of one notebook alike one to another: one answer for all of them, offered once.
    apart = [b for b in page.decision_panel.buttons() if b.text() == "None Are Rescans"]
    assert len(apart) == 1
    assert f"{asked()} pages of this notebook look like other pages of this import." in (
        panel_words(page)
    )
    click(qtbot, window, apart[0])
    assert window.session.undo_stack.undoText() == "Say no page is a rescan of another"
    assert asked() == 0
    assert item_state(qtbot, page.items_model, item.item_id) is PlanItemState.READY
    # The answered rows stay in place, without buttons, until the pointer leaves the panel.
    assert page.decision_panel.isVisible() and not page.decision_panel.buttons()
    assert page.decision_panel.title() == "Rescan questions answered"
    QApplication.sendEvent(page.decision_panel, QEvent(QEvent.Type.Leave))
    assert not page.decision_panel.isVisible()
    window.session.undo_stack.undo()
    wait_validated(qtbot, window)
    assert asked() > 0  # taken back: asked again
