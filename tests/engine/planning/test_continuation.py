"""A folder titled as a notebook of the corpus: whether its pages continue that notebook's
page numbers (planning/reimport.continuation), the one rule that makes planning complete it."""

from __future__ import annotations

from pathlib import Path

import pytest

from transcribe_import.engine.planning import reimport
from transcribe_import.engine.storage.corpus import Corpus

from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_pages


def test_a_name_is_its_last_number_in_the_text_around_it() -> None:
    assert reimport.numbered("p021b.jpg") == reimport.Numbered(("p", "b"), 21)
    assert reimport.numbered("1931-05 Page 7.JPG") == reimport.Numbered(("1931-05 page ", ""), 7)
    assert reimport.numbered("page 7.tif") == reimport.numbered("Page 7.jpg")
    assert reimport.numbered("cover.jpg") is None


def _diary(corpus: Corpus, root: Path, tag: str = "a/") -> str:
    """A “Diary” of "page 1.jpg" to "page 3.jpg" committed: its id."""
    make_pages(root / "Diary", 3, tag=tag)
    [item] = (plan := plan_for(corpus, root)).items
    commit_plan(corpus, plan)
    return item.notebook_id


@pytest.mark.parametrize(
    ("name", "start", "continues"),
    [
        ("page {i}.jpg", 4, True),  # the next number
        ("Page {i}.png", 4, True),  # case and extension aside
        ("page {i}.jpg", 1, False),  # starting again: a second volume
        ("page {i}.jpg", 3, True),  # a page it holds again (a rescan?), then the next
        ("page {i}.jpg", 2, False),  # only pages it holds: rescans, asked by their looks
        ("page {i}.jpg", 5, False),  # a number skipped
        ("scan {i}.jpg", 4, False),  # another pattern
    ],
)
def test_pages_continue_a_notebook_from_the_number_after_its_highest(
    corpus: Corpus, tmp_path: Path, name: str, start: int, continues: bool
) -> None:
    nbid = _diary(corpus, tmp_path / "first")
    make_pages(tmp_path / "later" / "Diary", 2, name=name, start=start, tag="b/")
    [item] = plan_for(corpus, tmp_path / "later").items
    [match] = reimport.title_matches(corpus, item)
    assert match.notebook_id == nbid
    assert match.continuation.continues is continues
    assert match.continuation.last == "page 3.jpg"
    going_on = reimport.continued_by_title([match])
    assert (going_on is not None) is continues


def test_of_two_notebooks_of_the_title_both_continued_neither_is_chosen(
    corpus: Corpus, tmp_path: Path
) -> None:
    _diary(corpus, tmp_path / "one", "a/")
    _diary(corpus, tmp_path / "two", "b/")
    make_pages(tmp_path / "later" / "Diary", 2, start=4, tag="c/")
    [item] = plan_for(corpus, tmp_path / "later").items
    matches = reimport.title_matches(corpus, item)
    assert [m.continuation.continues for m in matches] == [True, True]
    assert reimport.continued_by_title(matches) is None
    assert reimport.title_words(item, matches) == (
        "2 notebooks titled “Diary” already exist, and these pages continue the page numbers "
        "of 2 of them, so this makes another one. To add them to one of those instead, import "
        "them into it."
    )


def test_of_two_notebooks_of_the_title_the_one_continued_is_chosen(
    corpus: Corpus, tmp_path: Path
) -> None:
    first = _diary(corpus, tmp_path / "one", "a/")  # page 1 to page 3
    make_pages(tmp_path / "two" / "Diary", 5, tag="b/")  # page 1 to page 5
    commit_plan(corpus, plan_for(corpus, tmp_path / "two"))
    make_pages(tmp_path / "later" / "Diary", 2, start=4, tag="c/")
    [item] = plan_for(corpus, tmp_path / "later").items
    matches = reimport.title_matches(corpus, item)
    going_on = reimport.continued_by_title(matches)
    assert going_on is not None and going_on.notebook_id == first
    assert reimport.title_words(item, matches) == (
        "2 notebooks titled “Diary” already exist, and these pages continue the page numbers "
        "of one of them; this makes another one."
    )
