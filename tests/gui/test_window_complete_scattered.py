"""Completing a notebook in several places through the real window (#22).

“Parish Register” was imported without p2 and p5; its folder scanned again whole completes
it by default (#34; one click on Complete “Parish Register” before), p2 after p1 and p5
after p4: the review numbers
them so, the placement bar says where each goes (its fourth choice, Each Where Its Name
Puts It), another choice puts them together (undoable), and the commit lands them in order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.main_window import MainWindow
from transcribe_import.gui.pages.placement import AT_END, BY_NAMES

from helpers.runs import commit_plan
from helpers.shelves import make_png_shelf
from helpers.window import commit, scan, show_item, wait_run_end, wait_validated


def register_with_gaps(corpus: Corpus, root: Path) -> tuple[Path, str]:
    """“Parish Register” (p1-p6) imported without p2 and p5: the shelf with every page back
    in place, and the notebook's id."""
    shelf = make_png_shelf(root, notebooks=1, pages=6)
    folder = shelf / "Notebook 01"
    aside = root.parent / "aside"
    aside.mkdir()
    for name in ("p2.png", "p5.png"):
        (folder / name).rename(aside / name)
    plan = api.plan_paths(corpus, api.PlanRequest((shelf,))).plan
    plan = replace(plan, items=(replace(plan.items[0], title="Parish Register"),))
    assert commit_plan(corpus, plan).status == "complete"
    for name in ("p2.png", "p5.png"):
        (aside / name).rename(folder / name)
    return shelf, plan.items[0].notebook_id


def test_complete_in_the_window_puts_each_page_where_its_name_does(
    qtbot: QtBot, open_window: Callable[..., MainWindow], corpus: Corpus, tmp_path: Path
) -> None:
    shelf, nbid = register_with_gaps(corpus, tmp_path / "shelf")
    held = [p["id"] for p in project.read(corpus.notebook_dir(nbid), nbid)["pages"]]
    window = open_window(workers=1)
    scan(qtbot, window, shelf)
    page = window.review_page
    [item] = window.session.plan.items
    show_item(page, item.label)
    [button] = page.decision_panel.buttons()  # the other choice: nothing to press
    assert isinstance(button, QPushButton) and button.text() == "Make a Second Notebook"

    def numbers() -> dict[str, int | None]:
        rows = [page.pages_model.row(r) for r in range(page.pages_model.rowCount())]
        return {r.source.name: r.number for r in rows if r.number is not None}

    assert numbers() == {"p2.png": 2, "p5.png": 5}
    bar = page.placement_bar
    assert bar.isVisible() and bar.mode_combo.currentIndex() == BY_NAMES
    assert bar.mode_combo.currentText() == "Each where its name puts it"
    assert not bar.position_spin.isVisible() and not bar.after_combo.isVisible()
    assert bar.places_label.text() == (
        "shelf/Notebook 01/p2.png after page 1 (p1.png)\n"
        "shelf/Notebook 01/p5.png after page 3 (p4.png)\n"
        "Choosing another place above puts them all there together."
    )

    # Another choice puts them together, as an undoable edit; undone, each is in its own.
    bar.mode_combo.setCurrentIndex(AT_END)
    completed = window.session.plan.item(item.item_id)
    assert completed.places == () and completed.placement is None
    assert bar.mode_combo.count() == BY_NAMES  # the fourth choice is gone with the places
    assert not bar.places_label.isVisible()
    assert numbers() == {"p2.png": 5, "p5.png": 6}
    page.undo_action.trigger()
    assert window.session.plan.item(item.item_id).places != ()
    assert bar.mode_combo.currentIndex() == BY_NAMES and bar.places_label.isVisible()
    assert numbers() == {"p2.png": 2, "p5.png": 5}

    wait_validated(qtbot, window)
    commit(qtbot, window)
    wait_run_end(qtbot, window)
    doc = project.read(corpus.notebook_dir(nbid), nbid)
    names = {s["id"]: s["provenance"]["rel"].rsplit("/", 1)[-1] for s in doc["sources"]}
    assert [names[p["source_id"]] for p in doc["pages"]] == [f"p{i}.png" for i in range(1, 7)]
    assert [p["id"] for p in doc["pages"] if p["id"] in set(held)] == held
