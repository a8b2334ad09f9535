"""Rescan questions in the window (#33): grouped by the notebook their pages look like, answered
without the list moving under the pointer, errors before warnings in Problems, and a commit
with questions open that says how many and keeps both pages of each."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QLabel, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.planning.problems import ProblemCode, ProblemSeverity
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui import main_window
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.pages.review import DECISIONS_HEIGHT_KEY, DECISIONS_SHARE, ReviewPage

from helpers.lookalike_set import Rescan, notebook_scan, rescan_file, save_jpeg, scans
from helpers.runs import imported_diary
from helpers.window import (
    commit,
    panel_words,
    scan,
    show_item,
    wait_run_end,
    wait_validated,
)


def shelf(root: Path) -> Path:
    """“Field Notes” (pages 1 to 3, then rescans of its pages 2 and 3) and “Recipes” (two
    pages of its own, a rescan of Field Notes' page 1, of “Diary 1931”'s page 2 and of its
    own first page, and a file cut short: an error)."""
    notes = root / "Field Notes"
    for k in (1, 2, 3):
        save_jpeg(notebook_scan(10 + k), notes / f"page {k}.jpg")
    save_jpeg(notebook_scan(12), notes / "page 4.jpg", quality=40)
    save_jpeg(notebook_scan(13), notes / "page 5.jpg", quality=55)
    recipes = root / "Recipes"
    for k in (1, 2):
        save_jpeg(notebook_scan(20 + k), recipes / f"recipe {k}.jpg")
    rescan_file(11, Rescan.LIGHT, recipes / "recipe 3.jpg")
    rescan_file(2, Rescan.JPEG, recipes / "recipe 4.jpg")
    rescan_file(21, Rescan.TILT, recipes / "recipe 5.jpg")
    (recipes / "recipe 6.jpg").write_bytes((recipes / "recipe 1.jpg").read_bytes()[:2500])
    return root


def button(page: ReviewPage, name: str) -> QPushButton:
    """The decision panel's button a screen reader calls ``name``."""
    [found] = [b for b in page.decision_panel.buttons() if b.accessibleName() == name]
    return found


def at(widget: QPushButton, page: ReviewPage) -> QPoint:
    """Where ``widget`` is in the window: where the pointer finds it."""
    return widget.mapTo(page.window(), QPoint(0, 0))


def test_the_questions_are_grouped_by_notebook_and_errors_come_first(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    imported_diary(corpus, tmp_path)
    window = open_window(workers=1)
    scan(qtbot, window, shelf(tmp_path / "shelf"))
    page = window.review_page
    # Problems: the error (a file of the second notebook) first, then the warnings; a shelf's
    # rescan questions no longer bury it.
    model = page.problems_model
    severities = [model.problem(r).severity for r in range(model.rowCount())]
    assert severities[0] is ProblemSeverity.ERROR
    assert severities == sorted(severities, key=lambda s: s is not ProblemSeverity.ERROR)
    assert model.problem(0).code is ProblemCode.SOURCE_UNREADABLE
    assert sum(s is ProblemSeverity.WARNING for s in severities) == 5

    show_item(page, "Recipes")
    headings = [
        label.text()
        for label in page.decision_panel.findChildren(QLabel)
        if label.property("group") is not None
    ]
    assert headings == [
        "<b>Like pages of “Field Notes”, in this import:</b>",
        "<b>Like pages of “Diary 1931”, already imported:</b>",
        "<b>Like other pages of this notebook:</b>",
    ]
    words = panel_words(page)
    order = [
        "shelf/Recipes/recipe 6.jpg is cut short",  # an error: before the questions
        "Like pages of “Field Notes”, in this import:",
        "shelf/Recipes/recipe 3.jpg looks like shelf/Field Notes/page 1.jpg in this import",
        "Like pages of “Diary 1931”, already imported:",
        "shelf/Recipes/recipe 4.jpg looks like page 2 of “Diary 1931”",
        "Like other pages of this notebook:",
        "shelf/Recipes/recipe 5.jpg looks like shelf/Recipes/recipe 1.jpg in this import",
    ]
    places = [words.index(w) for w in order]
    assert places == sorted(places), words
    # None Are Rescans answers the two questions about pages of this import, of either
    # notebook (it was refused for a page of another notebook).
    assert "2 pages of this notebook look like other pages of this import." in words
    window.resize(1366, 768)
    window.grab().save(str(tmp_path / "grouped.png"))

    # None Are Rescans: both pages like pages of this import are answered, Field Notes' page
    # included; the rescan of “Diary 1931”'s page is still asked.
    [apart] = [b for b in page.decision_panel.buttons() if b.text() == "None Are Rescans"]
    qtbot.mouseClick(apart, Qt.MouseButton.LeftButton)
    wait_validated(qtbot, window)
    words = panel_words(page)
    assert words.count("Answered: None Are Rescans.") == 3  # its own row and the two
    assert [
        b.accessibleName() for b in page.decision_panel.buttons() if b.text() == "Keep Both"
    ] == ["Keep Both: shelf/Recipes/recipe 4.jpg"]


def test_an_answered_question_keeps_its_row_until_the_pointer_leaves(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    """Keep Both re-flowed the list under the pointer: the next question moved up to where
    the one answered was. The row answered stays, marked; nothing below it moves."""
    window = open_window(workers=1)
    scan(qtbot, window, shelf(tmp_path / "shelf"))
    page = window.review_page
    show_item(page, "Field Notes")
    QApplication.processEvents()
    first = button(page, "Keep Both: shelf/Field Notes/page 4.jpg")
    second = button(page, "Keep Both: shelf/Field Notes/page 5.jpg")
    clicked, below = at(first, page), at(second, page)

    qtbot.mouseClick(first, Qt.MouseButton.LeftButton)
    wait_validated(qtbot, window)
    QApplication.processEvents()  # the panel's layout settled, as it is when painted
    words = panel_words(page)
    assert "Answered: Keep Both. Both pages are imported." in words
    # None Are Rescans, asked for the two, keeps its row too, said as it was asked.
    assert "2 pages of this notebook look like other pages of this import." in words
    assert "No longer asked: the pages left are answered one by one." in words
    assert at(button(page, "Keep Both: shelf/Field Notes/page 5.jpg"), page) == below
    # Under the pointer now: no button of another question, only the answer's words.
    under = [
        b
        for b in page.decision_panel.buttons()
        if b.isVisible() and QRect(at(b, page), b.size()).contains(clicked)
    ]
    assert under == []
    # A keyboard's Tab goes on from there: the answered row has no button to stop at.
    assert all(b.isEnabled() for b in page.decision_panel.buttons())

    # The pointer gone, the answered row goes and the next question takes its place.
    QApplication.sendEvent(page.decision_panel, QEvent(QEvent.Type.Leave))
    assert "Answered" not in panel_words(page)
    assert at(button(page, "Keep Both: shelf/Field Notes/page 5.jpg"), page).y() < below.y()

    # Answered, then undone: the question is asked again, in its place.
    again = at(button(page, "Keep Both: shelf/Field Notes/page 5.jpg"), page)
    qtbot.mouseClick(
        button(page, "Keep Both: shelf/Field Notes/page 5.jpg"), Qt.MouseButton.LeftButton
    )
    wait_validated(qtbot, window)
    assert "Answered: Keep Both." in panel_words(page)
    window.session.undo_stack.undo()
    wait_validated(qtbot, window)
    QApplication.processEvents()
    assert "Answered" not in panel_words(page)
    assert at(button(page, "Keep Both: shelf/Field Notes/page 5.jpg"), page) == again


def test_a_commit_with_questions_open_says_how_many_and_keeps_both(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    """Beside Commit, the summary says how many questions are open and what the commit does
    with them; committed, it did just that: both pages imported, none replaced."""
    folder = tmp_path / "Box"
    scans(folder, (1, 2), "p{k}.jpg")
    rescan_file(2, Rescan.TILT, folder / "p3.jpg")
    rescan_file(1, Rescan.LIGHT, folder / "p4.jpg")
    window = open_window(workers=1)
    scan(qtbot, window, folder)
    page = window.review_page
    assert page.can_commit()
    assert page.problems_summary.text() == (
        "No errors, 2 warnings: ready to commit. 2 rescan questions are open: Commit imports "
        "each of those pages as a new page beside the page it looks like (both kept, none "
        "replaced nor left out)."
    )
    show_item(page, "Box")
    qtbot.mouseClick(button(page, "Keep Both: Box/p4.jpg"), Qt.MouseButton.LeftButton)
    wait_validated(qtbot, window)
    assert page.problems_summary.text().endswith(
        "1 rescan question is open: Commit imports that page as a new page beside the page it "
        "looks like (both kept, neither replaced nor left out)."
    )

    commit(qtbot, window)
    wait_run_end(qtbot, window)
    [notebook] = corpus.index_entries()
    pages = api.notebook_pages(corpus, notebook)
    # Both kept: the rescans are pages of their own, and the pages they look like are not
    # replaced (none is under the notebook's history).
    assert [p.file for p in pages] == ["p1.jpg", "p2.jpg", "p3.jpg", "p4.jpg"]
    assert all(p.position is not None for p in pages)


def _open_questions(window: MainWindow, label: str) -> list[str]:
    """The pages of notebook ``label`` still asked "a rescan?" (the Problems list's)."""
    model = window.review_page.problems_model
    plan = window.session.plan
    assert plan is not None
    [item] = [it for it in plan.items if it.label == label]
    return [
        model.problem(r).files[0]
        for r in range(model.rowCount())
        if model.problem(r).code is ProblemCode.LOOKS_LIKE
        and model.problem(r).item_id == item.item_id
    ]


def test_keep_both_for_all_of_a_group_answers_them_in_place_and_undoes_in_one_step(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    """Beside the heading of a group of several questions: Keep Both for them all. Their rows
    stay, each marked answered, and the button's place says so: nothing moves under the
    pointer. One undo asks them all again."""
    window = open_window(workers=1)
    scan(qtbot, window, shelf(tmp_path / "shelf"))
    page = window.review_page
    show_item(page, "Field Notes")
    QApplication.processEvents()
    assert len(_open_questions(window, "Field Notes")) == 2
    [group] = [b for b in page.decision_panel.buttons() if b.text() == "Keep Both for These 2"]
    assert group.accessibleName() == ("Keep Both for These 2: Like other pages of this notebook:")
    clicked = at(group, page)
    below = at(button(page, "Keep Both: shelf/Field Notes/page 5.jpg"), page)

    qtbot.mouseClick(group, Qt.MouseButton.LeftButton)
    wait_validated(qtbot, window)
    QApplication.processEvents()
    assert _open_questions(window, "Field Notes") == []
    words = panel_words(page)
    assert words.count("Answered: Keep Both. Both pages are imported.") == 2
    assert words.count("Answered: Keep Both.") == 3  # the heading's, where its button was
    assert window.session.undo_stack.undoText() == "Keep both pages for 2 questions"
    # In place: the heading's answer where its button was, no button under the pointer, and
    # the second question's row where it was.
    answered = [
        label
        for label in page.decision_panel.findChildren(QLabel)
        if label.property("answered") and label.isVisible()
    ]
    assert any(at(label, page).y() == clicked.y() for label in answered)  # type: ignore[arg-type]
    assert not [
        b
        for b in page.decision_panel.buttons()
        if b.isVisible() and QRect(at(b, page), b.size()).contains(clicked)
    ]
    assert any(at(label, page).y() == below.y() for label in answered)  # type: ignore[arg-type]

    window.session.undo_stack.undo()
    wait_validated(qtbot, window)
    QApplication.processEvents()
    assert len(_open_questions(window, "Field Notes")) == 2
    assert "Answered" not in panel_words(page)
    assert [b.text() for b in page.decision_panel.buttons()].count("Keep Both for These 2") == 1


def test_keep_both_for_all_questions_of_a_notebook_answers_every_group_and_commits_both(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    """Above questions of several groups: Keep Both for all of them at once, remembered at
    commit (no later plan asks again)."""
    imported_diary(corpus, tmp_path)
    window = open_window(workers=1)
    scan(qtbot, window, shelf(tmp_path / "shelf"))
    page = window.review_page
    show_item(page, "Recipes")
    QApplication.processEvents()
    assert len(_open_questions(window, "Recipes")) == 3
    every = button(page, "Keep Both for All 3 Questions")
    qtbot.mouseClick(every, Qt.MouseButton.LeftButton)
    wait_validated(qtbot, window)
    QApplication.processEvents()
    assert _open_questions(window, "Recipes") == []
    assert len(_open_questions(window, "Field Notes")) == 2  # another notebook's: still open
    words = panel_words(page)
    assert words.count("Answered: Keep Both. Both pages are imported.") == 3
    assert words.count("Answered: Keep Both.") == 4  # and the button's, above the groups
    assert window.session.undo_stack.undoText() == "Keep both pages for 3 questions"
    # The pointer gone, the answered rows go; the error is all that is left to decide.
    QApplication.sendEvent(page.decision_panel, QEvent(QEvent.Type.Leave))
    assert "Answered" not in panel_words(page)
    assert "recipe 6.jpg is cut short" in panel_words(page)


def _drag(handle: QWidget, dy: int) -> None:
    """Drag a splitter's handle ``dy`` pixels down with the left button, as a person does."""
    centre = QPointF(handle.width() / 2, handle.height() / 2)
    left, none = Qt.MouseButton.LeftButton, Qt.MouseButton.NoButton
    mods = Qt.KeyboardModifier.NoModifier
    for kind, pos, button, buttons in (
        (QEvent.Type.MouseButtonPress, centre, left, left),
        (QEvent.Type.MouseMove, centre + QPointF(0, dy), none, left),
        (QEvent.Type.MouseButtonRelease, centre + QPointF(0, dy), left, none),
    ):
        glob = QPointF(handle.mapToGlobal(pos.toPoint()))
        QApplication.sendEvent(handle, QMouseEvent(kind, pos, glob, button, buttons, mods))


@pytest.mark.parametrize(
    "area", [QRect(0, 0, 1024, 768), QRect(0, 0, 1366, 768)], ids=["1024x768", "1366x768"]
)
def test_the_decisions_have_room_at_768_and_keep_the_height_the_person_drags(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    corpus: Corpus,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    area: QRect,
) -> None:
    """#33: at 768 pixels the decisions were a band of 170 pixels that scrolled. They take
    half the room above the pages now (never more than their entries need), in a splitter
    the person can move; the height dragged is kept for the next review and window."""
    monkeypatch.setattr(main_window, "available_geometry", lambda _w: QRect(area))
    imported_diary(corpus, tmp_path)
    window = open_window(workers=1)
    scan(qtbot, window, shelf(tmp_path / "shelf"))
    page = window.review_page
    show_item(page, "Recipes")
    panel, split = page.decision_panel, page.decisions_split
    needed = panel.maximumHeight()

    def given() -> int:
        return split.sizes()[0]

    def share() -> int:
        return min(needed, round(sum(split.sizes()) * DECISIONS_SHARE))

    qtbot.waitUntil(lambda: given() == share(), timeout=5_000)
    assert given() > 170 and needed > 170  # more than the old band; the entries want more
    window.grab().save(str(tmp_path / f"decisions-{area.width()}.png"))

    _drag(split.handle(1), -60)  # the person wants more of the pages
    qtbot.waitUntil(
        lambda: window.settings().value(DECISIONS_HEIGHT_KEY) is not None, timeout=5_000
    )
    kept = int(window.settings().value(DECISIONS_HEIGHT_KEY))
    assert kept == given() and kept < share()
    show_item(page, "Field Notes")  # another notebook's decisions, then back
    show_item(page, "Recipes")
    qtbot.waitUntil(lambda: given() == kept, timeout=5_000)

    again = open_window(workers=1)  # a new window (the same settings) keeps it
    assert again.review_page.decisions_height() == kept
