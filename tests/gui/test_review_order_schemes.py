"""The review page shows the new page-order questions (leaves, no cue, duplex passes).

The decision panel renders every ambiguity the engine reports, generically: its words
(command-line hints taken out) and a button per resolution. Accept works for each new
question, and so do the buttons of the new resolutions (interleave, interleave with the
backs reversed), each doing what `order --by` does.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.plan import OrderingRule
from transcribe_import.engine.planning.planner import build_plan
from transcribe_import.engine.planning.scan import run_scan
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.pages.review import ReviewPage
from transcribe_import.gui.session import ImportSession

from helpers.window import open_review_page, panel_words
from helpers.window import show_item as show
from media_factory import make_jpeg


@pytest.fixture
def page(qtbot: QtBot, corpus: Corpus, tmp_path: Path) -> ReviewPage:
    root = tmp_path / "shelf"
    for name in ("front_1", "front_2", "back_1", "back_2"):
        make_jpeg(root / "ledger" / f"{name}.jpg", label=name)
    for name in ("1v", "2r", "2v"):
        make_jpeg(root / "register" / f"{name}.jpg", label=name)
    for name in ("first", "second", "last"):
        make_jpeg(root / "scraps" / f"{name}.jpg", label=name)
    session = ImportSession(corpus)
    session.set_plan(build_plan(corpus, run_scan([root])))
    return open_review_page(qtbot, session)


@pytest.mark.parametrize(
    ("label", "words"),
    [
        ("ledger", "look like two passes of a duplex scan: 2 fronts"),
        ("register", "The recto of leaf 1 (1r) is missing before"),
        ("scraps", "No page numbers in the names of these 3 files"),
    ],
)
def test_each_new_question_is_shown_and_accept_settles_it(
    page: ReviewPage, label: str, words: str
) -> None:
    item = show(page, label)
    assert page.decision_panel.isVisible()
    shown = panel_words(page)
    assert words in shown and "--" not in shown
    buttons = {b.text(): b for b in page.decision_buttons()}
    buttons["Accept this order"].click()
    settled = page.session.item(item.item_id)
    assert settled.ordering.resolved and ordering.find_ambiguities(settled) == []
    assert not page.decision_panel.isVisible()


def test_no_cue_is_settled_by_modification_time(page: ReviewPage) -> None:
    item = show(page, "scraps")
    {b.text(): b for b in page.decision_buttons()}["Order by modification time"].click()
    assert page.session.item(item.item_id).ordering.rule is OrderingRule.MTIME


def test_the_interleave_button_interleaves(page: ReviewPage) -> None:
    item = show(page, "ledger")
    buttons = page.decision_buttons()
    [interleave] = [b for b in buttons if b.property("resolution") == "interleave"]
    interleave.click()
    woven = page.session.item(item.item_id)
    assert [s.name for s in woven.sources] == [
        "front_1.jpg",
        "back_1.jpg",
        "front_2.jpg",
        "back_2.jpg",
    ]


def test_the_reversed_interleave_button_does_what_order_by_does(page: ReviewPage) -> None:
    from transcribe_import.engine import api

    item = show(page, "ledger")
    want = [
        s.name
        for s in api.reorder(page.session.item(item.item_id), by="interleave_reversed").sources
    ]
    [button] = [
        b for b in page.decision_buttons() if b.property("resolution") == "interleave_reversed"
    ]
    assert button.text() == "Interleave, the backs' pass reversed"
    button.click()
    assert [s.name for s in page.session.item(item.item_id).sources] == want
    assert want[:2] == ["front_1.jpg", "back_2.jpg"]  # the backs' pass ran from the last back


def test_the_duplex_question_previews_the_first_pairs_both_ways(page: ReviewPage) -> None:
    show(page, "ledger")
    words = panel_words(page)
    assert "Interleaved: front_1.jpg + back_1.jpg, front_2.jpg + back_2.jpg" in words
    assert "with the backs reversed: front_1.jpg + back_2.jpg, front_2.jpg + back_1.jpg" in words
