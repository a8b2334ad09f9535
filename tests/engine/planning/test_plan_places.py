"""New pages in several places (#22): an into item's ``places``, one place per block.

A notebook completed with pages that fill several gaps carries a place for each source
that does not go at the item's placement (planning/reimport.py makes them). They are in
the plan document only when set (a plan without them keeps its fingerprint), read as
untrusted input, checked by validate block by block, numbered by the review as they
will land, said by the CLI block by block, and given up for one place when a person
places the new pages by hand; reordering keeps each source's place.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from transcribe_import.engine import api
from transcribe_import.engine.ingest.placement import Placement, blocks
from transcribe_import.engine.planning import placement
from transcribe_import.engine.planning.plan import (
    PageRef,
    PlanDocumentError,
    fingerprint_of,
    plan_from_document,
)
from transcribe_import.engine.planning.problems import ProblemCode, Resolution
from transcribe_import.engine.planning.validate import validate
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus

from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_pages


@pytest.fixture
def late(corpus: Corpus, notebook: str, tmp_path: Path):
    """A plan of three late pages a.jpg, b.jpg, c.jpg into the notebook."""
    for name in ("a", "b", "c"):
        make_pages(tmp_path / "late", 1, name=f"{name}.jpg", tag=name)
    return plan_for(corpus, tmp_path / "late", mode=f"into:{notebook}")


def _sid(item, name: str) -> str:
    return next(s.source_id for s in item.sources if s.name == name)


def _page(item, name: str) -> str:
    return placement.page_of_file(item, name)


def _scattered(plan, held: list[str]):
    """a.jpg at the start, b.jpg after the second page, c.jpg after the last."""
    [item] = plan.items
    return replace(
        placement.place(item, at=1),
        places=(
            (_sid(item, "b.jpg"), Placement(after_page=held[1])),
            (_sid(item, "c.jpg"), Placement(after_page=held[3])),
        ),
    )


# -- the plan document -----------------------------------------------------------------------


def test_places_round_trip_and_are_fingerprinted(late, held) -> None:
    [item] = late.items
    one = late.with_item(placement.place(item, at=1))
    doc = one.to_document()
    assert "places" not in doc["items"][0]  # none: the document (and fingerprint) as before
    assert plan_from_document(orjson.loads(one.encode()), "plan.json").encode() == one.encode()
    plan = late.with_item(_scattered(late, held))
    doc = plan.to_document()
    assert doc["schema_version"] == 2
    assert doc["items"][0]["places"] == {
        _sid(item, "b.jpg"): {"after_page": held[1]},
        _sid(item, "c.jpg"): {"after_page": held[3]},
    }
    assert plan.fingerprint not in (late.fingerprint, one.fingerprint)
    [again] = plan_from_document(orjson.loads(plan.encode()), "plan.json").items
    assert again.places == _scattered(late, held).places
    assert again.placement == Placement(at=1)


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ({"0" * 32: {"at": 1}}, f"places names '{'0' * 32}', which is not one of its sources"),
        ("b.jpg", "places is not an object"),
        ({"B": {"after_page": "page 2"}}, "the place of B is neither"),
        ({"B": {"at": 3}}, "places puts source B at position 3; a place there is"),
        ({"B": ["x"]}, "is not an object"),
    ],
)
def test_a_malformed_places_is_refused_on_reading(late, value, words) -> None:
    [item] = late.items
    b = _sid(item, "b.jpg")
    doc = late.to_document(with_fingerprint=False)
    if isinstance(value, dict):
        value = {b if k == "B" else k: v for k, v in value.items()}
    doc["items"][0]["places"] = value
    doc["plan_fingerprint"] = fingerprint_of(doc)
    with pytest.raises(PlanDocumentError, match=words.replace("B", b)):
        plan_from_document(doc, "plan.json")


# -- blocks, numbering, words ----------------------------------------------------------------


def test_blocks_are_runs_of_sources_with_one_place() -> None:
    x, y = Placement(at=1), Placement(after_page="p")
    assert blocks(["a", "b", "c", "d"], x, [("c", y), ("d", y)]) == [
        (x, ["a", "b"]),
        (y, ["c", "d"]),
    ]
    # A source back at the item's placement after another place starts a block of its own.
    assert blocks(["a", "b", "c"], None, [("b", y)]) == [(None, ["a"]), (y, ["b"]), (None, ["c"])]


def test_each_block_is_numbered_and_lands_in_its_place(corpus, late, held, notebook) -> None:
    item = _scattered(late, held)
    a, b, c = (_page(item, f"{n}.jpg") for n in "abc")
    doc = project.read(corpus.notebook_dir(notebook), notebook)
    assert placement.landing(item, doc) == {a: 1, b: 4, c: 7}
    assert placement.describe(item, doc) == [
        "late/a.jpg at position 1, before page 1 (held 1.jpg)",
        "late/b.jpg after page 2 (held 2.jpg)",
        "late/c.jpg after page 4 (held 4.jpg)",
    ]
    assert validate(corpus, late.with_item(item)).errors == ()
    assert commit_plan(corpus, late.with_item(item)).status == "complete"
    now = project.read(corpus.notebook_dir(notebook), notebook)
    assert [p["id"] for p in now["pages"]] == [a, held[0], held[1], b, held[2], held[3], c]
    assert placement.landing(item, now) == {a: 1, b: 4, c: 7}


def test_a_block_after_a_page_a_rescan_replaces_follows_the_rescan(
    corpus, late, held, notebook
) -> None:
    """a.jpg replaces the second page, b.jpg goes after it: after the rescan, as it lands."""
    item = placement.replace_page(_scattered(late, held), _page(late.items[0], "a.jpg"), held[1])
    a, b, c = (_page(item, f"{n}.jpg") for n in "abc")
    doc = project.read(corpus.notebook_dir(notebook), notebook)
    assert placement.landing(item, doc) == {a: 2, b: 3, c: 6}
    assert commit_plan(corpus, late.with_item(item)).status == "complete"
    now = project.read(corpus.notebook_dir(notebook), notebook)
    assert [p["id"] for p in now["pages"]] == [held[0], a, b, held[2], held[3], c]


def test_a_block_whose_page_is_gone_is_refused_naming_its_files(
    corpus, late, held, notebook
) -> None:
    item = replace(
        _scattered(late, held),
        places=((_sid(late.items[0], "c.jpg"), Placement(after_page="0" * 32)),),
    )
    [problem] = validate(corpus, late.with_item(item)).errors
    assert problem.code == ProblemCode.PLACEMENT_PAGE_NOT_FOUND
    assert problem.message == (
        f"Notebook “Field notes” has no page {'0' * 32}, so the new pages cannot go after "
        "it. Choose another place for them, or put them at the end."
    )
    assert problem.files == ("late/c.jpg",)
    assert problem.resolutions == (Resolution.AFTER, Resolution.AT_END)
    doc = project.read(corpus.notebook_dir(notebook), notebook)
    assert placement.landing(item, doc) == {}  # no place to tell: validate says why


def test_places_on_a_new_notebook_are_refused(corpus, tmp_path) -> None:
    make_pages(tmp_path / "New", 2, name="n {i}.jpg", tag="N")
    plan = plan_for(corpus, tmp_path / "New")
    [item] = plan.items
    placed = replace(item, places=((item.sources[1].source_id, Placement(at=1)),))
    [problem] = validate(corpus, plan.with_item(placed)).errors
    assert problem.code == ProblemCode.PLACEMENT_ON_NEW_NOTEBOOK


# -- a person's edits ------------------------------------------------------------------------


def test_placing_by_hand_gives_up_the_places_and_reordering_keeps_them(
    corpus, late, held, notebook
) -> None:
    item = _scattered(late, held)
    for by_hand in (
        placement.place(item, at=2),
        placement.place(item, after_page=held[0]),
        placement.place(item),
    ):
        assert by_hand.places == ()
    a, b, c = (_page(item, f"{n}.jpg") for n in "abc")
    moved = api.reorder(item, sequence=[PageRef("c.jpg"), PageRef("a.jpg"), PageRef("b.jpg")])
    assert [s.name for s in moved.sources] == ["c.jpg", "a.jpg", "b.jpg"]
    assert moved.places == item.places
    doc = project.read(corpus.notebook_dir(notebook), notebook)
    assert placement.landing(moved, doc) == {a: 1, b: 4, c: 7}  # each still in its place
