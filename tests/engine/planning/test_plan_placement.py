"""Late pages and rescans in the plan: the document keys, the edits, validate's refusals.

A placement and replacements are fingerprinted and round-trip through the plan file (a
plan that has none stays version 1, byte for byte); each refusal has its own code and
words naming the notebook and the page; a plan validated, then outdated by the notebook,
is refused at commit with nothing changed.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from transcribe_import.engine import api
from transcribe_import.engine.ingest.placement import Placement
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

from engine_helpers import snapshot
from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_pages


@pytest.fixture
def into(corpus: Corpus, notebook: str, tmp_path: Path):
    """A plan of two late pages and a rescan into the notebook."""
    make_pages(tmp_path / "late", 2, name="late {i}.jpg", tag="L")
    make_pages(tmp_path / "late", 1, name="rescan {i}.jpg", tag="R")
    return plan_for(corpus, tmp_path / "late", mode=f"into:{notebook}")


def codes(report) -> list[str]:
    return [str(p.code) for p in report.errors]


def the_item(plan):
    [item] = plan.items
    return item


def rescan_page(item) -> str:
    return placement.page_of_file(item, "rescan 1.jpg")


# -- the plan document -----------------------------------------------------------------------


def test_a_plan_without_placement_keeps_version_1_and_its_fingerprint(into) -> None:
    doc = into.to_document()
    assert doc["schema_version"] == 1
    assert "placement" not in doc["items"][0] and "replacements" not in doc["items"][0]
    again = plan_from_document(orjson.loads(into.encode()), "plan.json")
    assert again.encode() == into.encode()


def test_placement_and_replacements_round_trip_and_are_fingerprinted(into, held) -> None:
    item = the_item(into)
    placed = into.with_item(
        placement.replace_page(placement.place(item, at=2), rescan_page(item), held[1])
    )
    doc = placed.to_document()
    assert doc["schema_version"] == 2
    assert doc["items"][0]["placement"] == {"at": 2}
    assert doc["items"][0]["replacements"] == {rescan_page(item): held[1]}
    assert placed.fingerprint != into.fingerprint
    again = plan_from_document(orjson.loads(placed.encode()), "plan.json")
    assert the_item(again).placement == Placement(at=2)
    assert the_item(again).replacements == ((rescan_page(item), held[1]),)
    after = into.with_item(placement.place(item, after_page=held[3]))
    assert after.to_document()["items"][0]["placement"] == {"after_page": held[3]}
    assert after.fingerprint not in (into.fingerprint, placed.fingerprint)


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("placement", {"at": 2, "after_page": "x"}, "placement is neither"),
        ("placement", {"at": "2"}, "at is '2', not a whole number"),
        ("placement", {"after_page": "page 4"}, "placement is neither"),
        ("replacements", {"not-a-page": "x"}, "replacements names 'not-a-page'"),
        ("replacements", ["x"], "replacements is not an object"),
    ],
)
def test_a_malformed_placement_is_refused_on_reading(into, key, value, words) -> None:
    doc = into.to_document(with_fingerprint=False)
    doc["items"][0][key] = value
    doc["plan_fingerprint"] = fingerprint_of(doc)
    with pytest.raises(PlanDocumentError, match=words):
        plan_from_document(doc, "plan.json")


def test_a_replacement_of_a_page_that_is_not_a_uuid_is_refused(into) -> None:
    item = the_item(into)
    doc = into.to_document(with_fingerprint=False)
    doc["items"][0]["replacements"] = {rescan_page(item): "page 3"}
    doc["plan_fingerprint"] = fingerprint_of(doc)
    with pytest.raises(PlanDocumentError, match="'page 3', which is not a page id"):
        plan_from_document(doc, "plan.json")


# -- validate ----------------------------------------------------------------------------------


def test_a_placement_that_fits_validates(corpus, into, held) -> None:
    item = the_item(into)
    for placed in (
        placement.place(item, at=1),
        placement.place(item, at=5),
        placement.place(item, after_page=held[2]),
        placement.replace_page(item, rescan_page(item), held[0]),
    ):
        assert validate(corpus, into.with_item(placed)).ok


@pytest.mark.parametrize(
    ("at", "words"),
    [
        (
            6,
            "Notebook “Field notes” has 4 pages, so new pages can go at position 1 (the start) "
            "to 5 (the end), not at position 6.",
        ),
        (0, "not at position 0"),
    ],
)
def test_a_position_out_of_the_notebook_is_refused(corpus, into, held, at, words) -> None:
    item = the_item(into)
    bad = into.with_item(replace(item, placement=Placement(at=at)))
    report = validate(corpus, bad)
    assert codes(report) == [ProblemCode.PLACEMENT_OUT_OF_RANGE]
    [problem] = report.errors
    assert words in problem.message
    assert problem.resolutions == ("at", "at_end")


def test_after_a_page_the_notebook_lacks_is_refused(corpus, into, held, notebook) -> None:
    other = "0e7f3d52-1b2a-4c3d-8e9f-0a1b2c3d4e5f"
    bad = into.with_item(placement.place(the_item(into), after_page=other))
    [problem] = validate(corpus, bad).errors
    assert problem.code == ProblemCode.PLACEMENT_PAGE_NOT_FOUND
    assert f"has no page {other}, so the new pages cannot go after it" in problem.message
    assert problem.resolutions == ("after", "at_end")


def test_a_rescan_of_a_page_the_notebook_lacks_is_refused(corpus, into, held) -> None:
    item = the_item(into)
    other = "0e7f3d52-1b2a-4c3d-8e9f-0a1b2c3d4e5f"
    bad = into.with_item(placement.replace_page(item, rescan_page(item), other))
    [problem] = validate(corpus, bad).errors
    assert problem.code == ProblemCode.REPLACED_PAGE_NOT_FOUND
    assert f"has no page {other}, so" in problem.message and "rescan 1.jpg" in problem.message
    assert problem.resolutions == ("replace", "no_replace")
    assert problem.source_ids == (item.sources[-1].source_id,)


def test_the_same_page_replaced_twice_is_refused(corpus, into, held) -> None:
    item = the_item(into)
    once = placement.replace_page(item, rescan_page(item), held[1])
    with pytest.raises(ValueError, match="would each replace page"):
        placement.replace_page(once, placement.page_of_file(item, "late 1.jpg"), held[1])
    twice = replace(
        once,
        replacements=(*once.replacements, (placement.page_of_file(item, "late 1.jpg"), held[1])),
    )
    [problem] = validate(corpus, into.with_item(twice)).errors
    assert problem.code == ProblemCode.PAGE_REPLACED_TWICE
    assert (
        f"late/rescan 1.jpg and late/late 1.jpg would each replace page {held[1]};"
        in problem.message
    )


def test_the_same_page_replaced_by_two_items_is_refused(corpus, into, held, tmp_path) -> None:
    make_pages(tmp_path / "more", 1, name="again {i}.jpg", tag="A")
    item = the_item(into)
    other = the_item(plan_for(corpus, tmp_path / "more", mode=f"into:{item.notebook_id}"))
    first = placement.replace_page(item, rescan_page(item), held[2])
    second = placement.replace_page(other, placement.page_of_file(other, "again 1.jpg"), held[2])
    plan = replace(into, items=(first, second))
    assert codes(validate(corpus, plan)) == [ProblemCode.PAGE_REPLACED_TWICE]


def test_a_placement_on_a_new_notebook_is_refused(corpus, into, tmp_path) -> None:
    make_pages(tmp_path / "shelf" / "new one", 2, tag="N")
    new = plan_for(corpus, tmp_path / "shelf")
    item = the_item(new)
    with pytest.raises(ValueError, match="is a new notebook"):
        placement.place(item, at=1)
    page = item.sources[0].pages[0].page_id
    bad = new.with_item(replace(item, placement=Placement(at=1), replacements=((page, page),)))
    report = validate(corpus, bad)
    assert codes(report) == [ProblemCode.PLACEMENT_ON_NEW_NOTEBOOK] * 2
    assert [p.resolutions for p in report.errors] == [
        (Resolution.AT_END,),
        (Resolution.NO_REPLACE,),
    ]
    assert all(type(r) is Resolution for p in report.errors for r in p.resolutions)
    assert report.errors[1].files == (item.sources[0].provenance.rel,)
    # The item is the problem's field; its words start with what is wrong.
    assert [p.message[:16] for p in report.errors] == ["A new notebook's", "A new notebook h"]


def test_a_rescan_left_out_is_a_warning(corpus, into, held) -> None:
    item = the_item(into)
    from transcribe_import.engine.planning import ordering

    left = ordering.exclude(
        placement.replace_page(item, rescan_page(item), held[0]), ["rescan 1.jpg"]
    )
    report = validate(corpus, into.with_item(left))
    assert report.ok
    [warning] = [w for w in report.warnings if w.code == ProblemCode.REPLACEMENT_LEFT_OUT]
    assert warning.resolutions == (Resolution.INCLUDE, Resolution.NO_REPLACE)
    assert all(type(r) is Resolution for r in warning.resolutions)
    assert warning.files == ("late/rescan 1.jpg",)
    kept = placement.keep_pages(left, [rescan_page(item)])
    assert kept.replacements == ()


def test_validate_again_at_commit_refuses_what_the_notebook_outdated(
    corpus, into, held, tmp_path, notebook
) -> None:
    """Validated, then another import replaces the same page first: the commit is refused
    (validate is run again), and nothing of this plan lands."""
    item = the_item(into)
    plan = into.with_item(placement.replace_page(item, rescan_page(item), held[1]))
    assert api.validate_plan(corpus, plan).ok
    make_pages(tmp_path / "first", 1, name="first {i}.jpg", tag="F")
    first = plan_for(corpus, tmp_path / "first", mode=f"into:{notebook}")
    fi = the_item(first)
    first = first.with_item(
        placement.replace_page(fi, placement.page_of_file(fi, "first 1.jpg"), held[1])
    )
    assert commit_plan(corpus, first).status == "complete"
    before = snapshot(corpus.notebook_dir(notebook))
    with pytest.raises(api.PlanInvalid) as info:
        api.prepare_commit(corpus, plan)
    [problem] = info.value.report.errors
    assert problem.code == ProblemCode.REPLACED_PAGE_NOT_FOUND
    assert "was already replaced by a rescan (page 2 (first 1.jpg)" in problem.message
    assert snapshot(corpus.notebook_dir(notebook)) == before


def test_describe_says_where_pages_go_and_what_they_replace(corpus, into, held, notebook) -> None:
    item = the_item(into)
    doc = project.read(corpus.notebook_dir(notebook), notebook)
    placed = placement.replace_page(placement.place(item, at=3), rescan_page(item), held[0])
    assert placement.describe(placed, doc) == [
        "new pages at position 3, before page 3 (held 3.jpg)",
        "late/rescan 1.jpg replaces page 1 of “Field notes” (held 1.jpg)",
    ]
    assert placement.describe(placement.place(item, at=5), doc) == [
        "new pages at position 5, the end"
    ]
    assert placement.describe(item, doc) == []


def test_describe_says_no_place_for_new_pages_when_every_page_replaces_one(
    corpus, into, held, notebook, tmp_path
) -> None:
    """Only rescans: there are no new pages to place, so nothing is said of a position."""
    make_pages(tmp_path / "only", 1, name="again {i}.jpg", tag="A")
    plan = plan_for(corpus, tmp_path / "only", mode=f"into:{notebook}")
    item = the_item(plan)
    again = placement.page_of_file(item, "again 1.jpg")
    placed = placement.replace_page(placement.place(item, at=2), again, held[2])
    doc = project.read(corpus.notebook_dir(notebook), notebook)
    assert placement.added_pages(placed) == 0
    assert placement.describe(placed, doc) == [
        "only/again 1.jpg replaces page 3 of “Field notes” (held 3.jpg)"
    ]


# -- where the pages land: the numbers the review shows --------------------------------------


def test_a_rescan_is_numbered_as_the_page_it_replaces(corpus, into, held, notebook) -> None:
    """The numbers are those the commit gives: the rescan takes the replaced page's number,
    the new pages theirs at the placement (the pages after them move down)."""
    item = the_item(into)
    late = [placement.page_of_file(item, f"late {i}.jpg") for i in (1, 2)]
    rescan = rescan_page(item)
    doc = project.read(corpus.notebook_dir(notebook), notebook)
    assert placement.landing(item, doc) == {late[0]: 5, late[1]: 6, rescan: 7}  # the end
    replaced = placement.replace_page(item, rescan, held[3])
    assert placement.landing(replaced, doc) == {late[0]: 5, late[1]: 6, rescan: 4}
    placed = placement.place(replaced, at=2)
    assert placement.landing(placed, doc) == {late[0]: 2, late[1]: 3, rescan: 6}
    after = placement.place(replaced, after_page=held[0])
    assert placement.landing(after, doc) == {late[0]: 2, late[1]: 3, rescan: 6}
    # Committed, the notebook holds them at exactly those numbers.
    assert commit_plan(corpus, into.with_item(placed)).status == "complete"
    now = project.read(corpus.notebook_dir(notebook), notebook)
    ids = [p["id"] for p in now["pages"]]
    assert {p: ids.index(p) + 1 for p in (*late, rescan)} == {late[0]: 2, late[1]: 3, rescan: 6}
    # Landed by then, they keep the numbers they have (a plan reviewed after its run).
    assert placement.landing(placed, now) == {late[0]: 2, late[1]: 3, rescan: 6}
    # And the words name where the rescan went, its old page kept in the history.
    assert placement.replacement_words(placed, now) == [
        "late/rescan 1.jpg replaces page 6 of “Field notes” (held 4.jpg), now replaced"
    ]


def test_no_number_is_told_when_the_place_is_not_known(corpus, into, held, notebook) -> None:
    item = the_item(into)
    doc = project.read(corpus.notebook_dir(notebook), notebook)
    assert placement.landing(placement.place(item, at=9), doc) == {}  # refused: validate says
    assert placement.landing(item, None) == {}  # the notebook cannot be read
    gone = placement.replace_page(item, rescan_page(item), "0" * 32)
    assert rescan_page(item) not in placement.landing(gone, doc)


def test_a_new_notebook_is_numbered_in_the_plan_order(corpus, tmp_path) -> None:
    make_pages(tmp_path / "New", 3, name="p {i}.jpg", tag="N")
    plan = plan_for(corpus, tmp_path / "New")
    item = the_item(plan)
    ids = [p.page_id for s in item.sources for p in s.pages]
    assert placement.landing(item, None) == {ids[0]: 1, ids[1]: 2, ids[2]: 3}
    excluded = api.reorder(item, exclude=[PageRef("p 2.jpg")])
    assert placement.landing(excluded, None) == {ids[0]: 1, ids[2]: 2}
