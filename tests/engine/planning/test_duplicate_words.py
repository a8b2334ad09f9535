"""Duplicates told by scope and by name, and a page left out never told as missing.

validate's duplicate warnings (engine/planning/dedupe.py's words): within the item's own
files, already in the target notebook, elsewhere in the corpus (with that notebook's
title); never "already in the corpus" for a file repeated inside one folder.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.plan import DedupeScope, Duplicate, Ordering
from transcribe_import.engine.planning.validate import validate
from transcribe_import.engine.storage.corpus import Corpus

from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_pages


def test_a_file_repeated_in_one_folder_of_an_empty_corpus(corpus: Corpus, tmp_path: Path) -> None:
    book = tmp_path / "box" / "book"
    make_pages(book, 5)
    (book / "page 4.jpg").unlink()
    shutil.copy(book / "page 3.jpg", book / "page 4.jpg")  # copied twice by mistake
    plan = plan_for(corpus, tmp_path / "box")
    item = plan.items[0]
    assert [s.name for s in item.planned_skips()] == ["page 4.jpg"]
    assert item.planned_skips()[0].duplicate is Duplicate.IN_PLAN
    report = validate(corpus, plan)
    assert report.ok
    [warning] = report.warnings
    assert warning.code == "duplicates_skipped"
    assert warning.message == (
        "1 duplicate file will be skipped: box/book/page 4.jpg has the same bytes as "
        "box/book/page 3.jpg."
    )
    assert "corpus" not in warning.message
    # The skip opens no gap between page 3 and page 5, even before any order is accepted.
    assert ordering.find_ambiguities(item) == []


def test_already_in_the_target_notebook(corpus: Corpus, tmp_path: Path) -> None:
    make_pages(tmp_path / "box" / "book", 2)
    first = plan_for(corpus, tmp_path / "box")
    commit_plan(corpus, first)
    again = plan_for(corpus, tmp_path / "box" / "book", mode=f"into:{first.items[0].notebook_id}")
    report = validate(corpus, again)
    [warning] = report.warnings
    assert warning.code == "nothing_to_import"
    assert "All 2 files are duplicates, so nothing will be imported" in warning.message
    assert "book/page 1.jpg is already in this notebook, as page 1.jpg;" in warning.message


def test_elsewhere_in_the_corpus_with_that_notebooks_title(corpus: Corpus, tmp_path: Path) -> None:
    diary = tmp_path / "one" / "Diary 1931"
    make_pages(diary, 2, tag="diary")
    commit_plan(corpus, plan_for(corpus, tmp_path / "one"))
    other = tmp_path / "two" / "Letters"
    make_pages(other, 2, tag="letters")
    shutil.copy(diary / "page 2.jpg", other / "page 3.jpg")
    plan = plan_for(corpus, tmp_path / "two", dedupe_scope=DedupeScope.CORPUS)
    [warning] = validate(corpus, plan).warnings
    assert warning.message == (
        "1 duplicate file will be skipped: two/Letters/page 3.jpg is already in the "
        "corpus, in “Diary 1931”."
    )


def test_an_excluded_page_raises_no_missing_page(corpus: Corpus, tmp_path: Path) -> None:
    make_pages(tmp_path / "box" / "book", 5)
    plan = plan_for(corpus, tmp_path / "box")
    # Excluded, not accepted: the order is still the proposed one, unresolved.
    item = replace(ordering.exclude(plan.items[0], ["page 3.jpg"]), ordering=Ordering())
    report = validate(corpus, plan.with_item(item))
    assert report.ok, [p.message for p in report.problems]
    assert not [p for p in report.problems if "missing" in p.message]
