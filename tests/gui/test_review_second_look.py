"""Pages worth a second look in the review (#39): each kind of hint badges its page in the grid
once the look pass has measured it, with its measure in the cell's words; a notebook's blank
pages are told once in Problems and left out with one undoable Leave Out Blank Pages;
a hint switched off in the settings goes from the grid and Problems, and stays off."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageFilter
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMenu
from pytestqt.qtbot import QtBot

from transcribe_import.engine.api import ALL_HINTS, Hint
from transcribe_import.engine.media.kinds import Turn
from transcribe_import.engine.planning.problems import ProblemCode, ProblemSeverity, Resolution
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.models import plan_pages
from transcribe_import.gui.models.page_grid import Badge, accessible_words, badges
from transcribe_import.gui.pages.review import ReviewPage
from transcribe_import.gui.settings_dialog import HINTS_OFF_KEY, SettingsDialog

from helpers import pages as labelled
from helpers.window import TIMEOUT_MS, scan, wait_validated, when_modal_opens


def write_shelf(root: Path) -> Path:
    """A notebook of six written pages, two blank ones and one each dark, light, blurred,
    too small, sideways and too small by the resolution it records: 01-06.jpg, then
    07-blank.jpg, 08-blank.jpg, 09-dark.jpg, 10-light.jpg, 11-blurred.jpg, 12-small.jpg,
    13-sideways.jpg, 14-lowres.jpg."""
    nb = labelled.notebook(11, labelled.Paper.RULED, labelled.Light.SCANNER)
    book = root / "shelf" / "Diary"
    book.mkdir(parents=True)
    kinds = [labelled.Kind.FULL, labelled.Kind.HALF, labelled.Kind.FEW_WORDS]
    for n in range(1, 7):
        labelled.page(nb, n, kinds[n % 3]).save(book / f"{n:02}.jpg", quality=90)
    for n in (7, 8):
        labelled.page(nb, n, labelled.Kind.BLANK).save(book / f"{n:02}-blank.jpg", quality=90)
    # Each made of a page of its own: two made of one page would be asked "a rescan?".
    full = [labelled.page(nb, n, labelled.Kind.FULL) for n in range(40, 44)]
    extra = {
        "09-dark.jpg": Image.eval(full[0], lambda v: int(v * 0.3)),
        "10-light.jpg": Image.eval(full[1], lambda v: min(255, int(140 + v * 0.6))),
        "11-blurred.jpg": full[2].filter(ImageFilter.GaussianBlur(3)),
        "12-small.jpg": full[3].resize((300, 424)),
    }
    for name, im in extra.items():
        im.save(book / name, quality=90)
    # Scanned a quarter anticlockwise: "Turn it?", with the angle its writing says.
    turned = labelled.page(nb, 44, labelled.Kind.FULL).rotate(90, expand=True)
    turned.save(book / "13-sideways.jpg", quality=90)
    # An A5 page at 96 dpi: not under half the others' size, too small by its own measure
    # (of other paper: a full page of the same ruling and hand is asked "a rescan?").
    other = labelled.notebook(23, labelled.Paper.SQUARED, labelled.Light.SCANNER)
    a5 = labelled.page(other, 45, labelled.Kind.HALF).resize((559, 794))
    a5.save(book / "14-lowres.jpg", quality=90, dpi=(96, 96))
    return root / "shelf"


EXPECTED = [(), (), (), (), (), ()] + [
    (Badge.BLANK,),
    (Badge.BLANK,),
    (Badge.TOO_DARK,),
    (Badge.TOO_LIGHT,),
    (Badge.BLURRED,),
    (Badge.TOO_SMALL,),
    (Badge.SIDEWAYS,),
    (Badge.TOO_SMALL,),
]


def badged_review(qtbot: QtBot, window: MainWindow, root: Path) -> ReviewPage:
    """The shelf of ``write_shelf`` scanned in ``window``: its review page, once every page
    has the badges ``EXPECTED`` says."""
    scan(qtbot, window, write_shelf(root))
    page = window.review_page
    model = page.pages_model
    # The measures come with the looks, which the look pass makes after the plan.
    qtbot.waitUntil(
        lambda: (
            not page.session.looking
            and [badges(model.row(r)) for r in range(model.rowCount())] == EXPECTED
        ),
        timeout=4 * TIMEOUT_MS,
    )
    return page


def validated(qtbot: QtBot, review: ReviewPage) -> MainWindow:
    """The window of ``review``, once its first validation has ended."""
    window = review.window()
    assert isinstance(window, MainWindow)
    wait_validated(qtbot, window)
    return window


@pytest.fixture
def review(qtbot: QtBot, open_window: Callable[..., MainWindow], tmp_path: Path) -> ReviewPage:
    return badged_review(qtbot, open_window(), tmp_path)


def test_each_hint_badges_its_page_with_its_measure(review: ReviewPage) -> None:
    model = review.pages_model
    words = [accessible_words(model.row(r)) for r in range(model.rowCount())]
    assert words[6].endswith("Blank, blank: nothing written on it")
    assert "Too dark, too dark: its brightest part is " in words[8]
    assert "Too light, too light: its darkest strokes are " in words[9]
    assert "Blurred, blurred: much blurrier than the notebook's other pages" in words[10]
    assert words[11].endswith(
        "Too small, too small to read: 300 × 424 pixels, under half the size of the "
        "notebook's other pages (1170 pixels long)"
    )
    assert words[12].endswith(
        "Turn it?, its lines of writing run down the page. Turn it 90° clockwise?"
    )
    assert words[13].endswith(
        "Too small, too small to read: about 96 dpi for an A5 page (559 × 794 pixels)"
    )
    assert "Blank" not in words[0] and "Too" not in words[0]


def test_each_hint_is_a_line_in_problems_after_the_problems_and_none_blocks_the_commit(
    qtbot: QtBot, review: ReviewPage
) -> None:
    validated(qtbot, review)
    model = review.problems_model
    lines = [(r.problem.severity, r.problem.code, r.message) for r in model.rows()]
    notes = [
        (code, message) for severity, code, message in lines if severity is ProblemSeverity.INFO
    ]
    # The notes come after any error or warning, each naming its page and its measure.
    assert lines[-len(notes) :] == [(ProblemSeverity.INFO, c, m) for c, m in notes]
    said = {(code, message.split(": ")[0]) for code, message in notes}
    assert said == {
        (ProblemCode.BLANK_PAGES, "2 blank pages, nothing written on them"),
        (ProblemCode.TOO_DARK, "shelf/Diary/09-dark.jpg"),
        (ProblemCode.TOO_LIGHT, "shelf/Diary/10-light.jpg"),
        (ProblemCode.BLURRED, "shelf/Diary/11-blurred.jpg"),
        (ProblemCode.TOO_SMALL, "shelf/Diary/12-small.jpg"),
        (ProblemCode.SIDEWAYS, "shelf/Diary/13-sideways.jpg"),
        (ProblemCode.TOO_SMALL, "shelf/Diary/14-lowres.jpg"),
    }
    assert (
        ProblemCode.TOO_SMALL,
        "shelf/Diary/14-lowres.jpg: too small to read: about 96 dpi for an A5 page "
        "(559 × 794 pixels)",
    ) in notes
    report = review.session.report
    assert report is not None and report.ok and review.commit_action.isEnabled()


def test_leave_out_blank_pages_is_one_undoable_edit(qtbot: QtBot, review: ReviewPage) -> None:
    page = review
    window = validated(qtbot, page)
    rows = [page.problems_model.problem(r) for r in range(page.problems_model.rowCount())]
    (told,) = [p for p in rows if p.code == "blank_pages"]
    assert told.message == (
        "2 blank pages, nothing written on them: shelf/Diary/07-blank.jpg, shelf/Diary/08-blank.jpg"
    )
    assert not page.decision_panel.isVisible()  # information, not a decision to make
    action = page.leave_out_blank_action
    edit_menu = [a for a in window.menuBar().actions() if a.text() == "&Edit"][0].menu()
    assert action in edit_menu.actions() and action.isEnabled()
    item = page.current_item()
    assert item is not None
    before = item.imported_page_count()
    action.trigger()
    after = page.current_item()
    assert after is not None and after.imported_page_count() == before - 2
    left_out = [s.name for s in after.sources if s.excluded]
    assert left_out == ["07-blank.jpg", "08-blank.jpg"]
    assert [badges(page.pages_model.row(r)) for r in (6, 7)] == [(Badge.LEFT_OUT,)] * 2
    assert not action.isEnabled()  # none left to leave out
    assert page.undo_action.text() == "Undo Leave out blank pages"
    page.undo_action.trigger()
    again = page.current_item()
    assert again is not None and again.imported_page_count() == before
    assert action.isEnabled()


def test_turn_it_is_a_line_in_problems_whose_button_turns_the_page_in_one_undoable_edit(
    qtbot: QtBot, review: ReviewPage
) -> None:
    """ "Turn it?" is information in Problems like the other notes, with the likely angle; the
    page is turned only when the person clicks the line's button (or its context menu's
    item), as one undoable edit, after which it is asked about no more."""
    page = review
    window = validated(qtbot, page)
    model = page.problems_model
    rows = [r for r in range(model.rowCount()) if model.problem(r).code is ProblemCode.SIDEWAYS]
    (row,) = rows
    told = model.problem(row)
    assert told.severity is ProblemSeverity.INFO
    assert told.message == (
        "shelf/Diary/13-sideways.jpg: its lines of writing run down the page. "
        "Turn it 90° clockwise?"
    )
    assert told.resolutions == (Resolution.TURN_CLOCKWISE,)
    report = page.session.report
    assert report is not None and report.ok and told in report.information  # never blocking
    assert page.commit_action.isEnabled()
    sideways = page.pages_model.row(12)
    assert sideways.page.turn is Turn.NONE  # never turned without the person's word
    assert page.problems.answer_buttons() == []
    # The line's answers: in its context menu, and as a button while it is the current line.
    assert [words for words, _do in page.problem_answers(row)] == ["Turn It 90° Clockwise"]
    # A click on the line, as a person makes it: it shows its page, and its button.
    view = page.problems_view
    index = model.index(row, 1)
    view.scrollTo(index)
    qtbot.mouseClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center()
    )
    assert page.selected_rows() == [12]
    (button,) = page.problems.answer_buttons()
    assert button.text() == "Turn It 90° Clockwise" and button.isVisibleTo(window)
    assert page.pages_model.row(12).page.turn is Turn.NONE
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert page.pages_model.row(12).page.turn is Turn.QUARTER
    assert page.undo_action.text() == "Undo Turn shelf/Diary/13-sideways.jpg 90° clockwise"
    wait_validated(qtbot, window)
    again = page.session.report
    assert again is not None
    assert ProblemCode.SIDEWAYS not in {p.code for p in again.information}
    assert Badge.SIDEWAYS not in badges(page.pages_model.row(12))
    page.undo_action.trigger()
    assert page.pages_model.row(12).page.turn is Turn.NONE
    wait_validated(qtbot, window)
    assert any(r.problem.code is ProblemCode.SIDEWAYS for r in model.rows())


# The offscreen platform cannot raise a popup menu nor grab the keyboard for it.
@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing)")
def test_the_turn_it_lines_context_menu_offers_the_turn_and_takes_it(
    qtbot: QtBot, review: ReviewPage
) -> None:
    validated(qtbot, review)
    model = review.problems_model
    (row,) = [r for r in range(model.rowCount()) if model.problem(r).code is ProblemCode.SIDEWAYS]
    view = review.problems_view
    index = model.index(row, 1)
    view.scrollTo(index)
    # A line that offers nothing opens no menu.
    (blank,) = [
        r for r in range(model.rowCount()) if model.problem(r).code is ProblemCode.BLANK_PAGES
    ]
    assert review.problem_answers(blank) == []
    offered: list[list[str]] = []

    def take_the_first() -> None:
        menu = QApplication.activePopupWidget()
        assert isinstance(menu, QMenu)
        offered.append([a.text() for a in menu.actions()])
        menu.actions()[0].trigger()
        menu.close()

    QTimer.singleShot(0, take_the_first)
    view.customContextMenuRequested.emit(view.visualRect(index).center())
    assert offered == [["Turn It 90° Clockwise"]]
    assert review.pages_model.row(12).page.turn is Turn.QUARTER


def test_the_summary_counts_the_notes_apart_from_the_problems(
    qtbot: QtBot, review: ReviewPage
) -> None:
    """The notes are listed in Problems but are none: the summary says how many there are and
    that Commit leaves them to the person, as many as the Problems pane lists."""
    validated(qtbot, review)
    model = review.problems_model
    notes = [
        model.problem(r)
        for r in range(model.rowCount())
        if model.problem(r).severity is ProblemSeverity.INFO
    ]
    report = review.session.report
    assert report is not None and len(notes) == len(report.information) > 1
    assert review.problems_summary.text().endswith(
        f" {len(notes)} notes on pages worth a second look, which Commit leaves to you."
    )


def test_a_hint_switched_off_in_the_settings_goes_from_the_grid_and_is_remembered(
    qtbot: QtBot, review: ReviewPage, open_window: Callable[..., MainWindow]
) -> None:
    page = review
    window = page.window()
    assert isinstance(window, MainWindow)
    model = page.pages_model

    def blank_and_dark_off(dialog: SettingsDialog) -> None:
        checks = dialog.hint_checks
        assert [c.text() for c in checks.values()] == [
            "Blank pages",
            "Too small to read",
            "Too dark",
            "Too light",
            "Blurred",
            "Sideways (Turn it?)",
        ]
        assert all(c.isChecked() for c in checks.values())
        checks[Hint.BLANK].setChecked(False)
        checks[Hint.TOO_DARK].setChecked(False)
        dialog.accept()

    when_modal_opens(SettingsDialog, blank_and_dark_off)
    window.settings_action.trigger()
    qtbot.waitUntil(lambda: badges(model.row(6)) == (), timeout=TIMEOUT_MS)
    assert [badges(model.row(r)) for r in range(6, 12)] == [
        (),
        (),
        (),
        (Badge.TOO_LIGHT,),
        (Badge.BLURRED,),
        (Badge.TOO_SMALL,),
    ]
    wait_validated(qtbot, window)
    told = window.session.report
    assert told is not None and {p.code for p in told.information} == {
        "too_small",
        "too_light",
        "blurred",
        "sideways",
    }
    assert not page.leave_out_blank_action.isEnabled()  # blank pages are not told now
    # Remembered: the next window starts with them off.
    assert window.settings().value(HINTS_OFF_KEY) == "blank,too_dark"
    again = open_window()
    assert again.session.hints == ALL_HINTS - {Hint.BLANK, Hint.TOO_DARK}


def test_a_large_notebooks_hints_are_found_on_a_worker(
    qtbot: QtBot,
    open_window: Callable[..., MainWindow],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A notebook of 5,000 pages is 0.15-0.4 s of measures read: its rows come at once
    # without the hints, which follow from a worker (here every notebook counts as large).
    monkeypatch.setattr(plan_pages, "HINTS_HERE_AT_MOST", 1)
    found_on: list[bool] = []
    real = plan_pages.hints_of

    def hints_of(*args: Any) -> Any:
        found_on.append(threading.current_thread() is threading.main_thread())
        return real(*args)

    monkeypatch.setattr(plan_pages, "hints_of", hints_of)
    page = badged_review(qtbot, open_window(), tmp_path)
    assert found_on and not any(found_on)
    qtbot.waitUntil(page.leave_out_blank_action.isEnabled, timeout=TIMEOUT_MS)
