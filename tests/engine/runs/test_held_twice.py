"""doctor notices a page held twice (#22): the same bytes in two notebooks against the
corpus-wide rule of the import that added them (a problem, naming the pages and the undo),
the same bytes twice in one notebook on purpose (a note), and nothing for an import that
judged duplicates per notebook only."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from transcribe_import.engine import api
from transcribe_import.engine.base.findings import FindingCode, Severity
from transcribe_import.engine.doctor import doctor
from transcribe_import.engine.planning.plan import DedupeScope, Op
from transcribe_import.engine.runs import executor
from transcribe_import.engine.runs.held_twice import Copy, Verdict, verdict
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus

from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_png_shelf


def held_twice(corpus: Corpus) -> list[tuple[Severity, str]]:
    return [
        (f.severity, f.message)
        for f in doctor(corpus).findings
        if f.code is FindingCode.PAGE_HELD_TWICE
    ]


def test_two_imports_landing_one_folder_at_once_are_a_problem_undone_by_the_later(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two plans of one folder committed at once by a version without the duplicates lock:
    the second did not see the first's pages (simulated: its commit asks no corpus index)."""
    shelf = make_png_shelf(tmp_path / "shelf", notebooks=1, pages=4)
    first = plan_for(corpus, shelf)
    second = plan_for(corpus, shelf)  # planned before the first landed: nothing held yet
    assert commit_plan(corpus, first).status == "complete"
    assert not held_twice(corpus)
    monkeypatch.setattr(executor, "duplicates_lock", lambda *a: None)
    monkeypatch.setattr(executor, "corpus_index_for", lambda *a: None)
    later = commit_plan(corpus, second)
    monkeypatch.undo()
    assert later.status == "complete"
    [(severity, message)] = held_twice(corpus)
    # Each id as `notebooks` and `runs` list it, a prefix `revert` takes back.
    a, b = (api.short_id(p.items[0].notebook_id) for p in (first, second))
    run = api.short_id(later.run_id)
    assert severity is Severity.PROBLEM
    assert message == (
        f"Notebook “Notebook 01” ({b}) holds 4 pages that “Notebook 01” ({a}) holds already, "
        "the same bytes: page 1 (p1.png) is its page 1 (p1.png); page 2 (p2.png) is its page 2 "
        "(p2.png); page 3 (p3.png) is its page 3 (p3.png); and 1 more. The import that added "
        f"them (run {run}) was to leave out files the corpus held (duplicates judged "
        "across the corpus), and landed them all the same, as two imports committed at the same "
        "time could before duplicates were decided one import at a time. Undo that import with "
        f"`transcribe-import revert {run}` (it takes out only those pages), or leave "
        "them if you want them twice."
    )
    report = doctor(corpus)
    assert not report.clean
    # The advice works: after the undo, one copy of each page and nothing to say.
    api.revert(corpus, later.run_id)
    assert not held_twice(corpus) and doctor(corpus).clean


def test_an_import_that_judged_duplicates_per_notebook_meant_its_copy(
    corpus: Corpus, tmp_path: Path
) -> None:
    shelf = make_png_shelf(tmp_path / "shelf", notebooks=1, pages=2)
    assert commit_plan(corpus, plan_for(corpus, shelf)).status == "complete"
    again = plan_for(corpus, shelf, dedupe_scope=DedupeScope.NOTEBOOK)
    assert commit_plan(corpus, again).status == "complete"
    assert len(corpus.index_entries()) == 2
    assert not held_twice(corpus) and doctor(corpus).clean


def test_the_same_bytes_twice_in_one_notebook_on_purpose_say_nothing(
    corpus: Corpus, tmp_path: Path
) -> None:
    shelf = make_png_shelf(tmp_path / "shelf", notebooks=1, pages=2)
    plan = plan_for(corpus, shelf)
    assert commit_plan(corpus, plan).status == "complete"
    notebook = plan.items[0].notebook_id
    into = plan_for(
        corpus,
        shelf / "Notebook 01",
        mode=f"into:{notebook}",
        policy_id="transcribe.v1.create_duplicate",
    )
    assert commit_plan(corpus, into).status == "complete"
    assert len(project.read(corpus.notebook_dir(notebook), notebook)["pages"]) == 4
    assert not held_twice(corpus) and doctor(corpus).clean


def test_a_copy_no_import_on_record_brought_is_a_note(corpus: Corpus, tmp_path: Path) -> None:
    """Neither copy's sources name a run (as notebooks written outside a run do); one with no
    run counts as the earlier beside one a run brought."""
    shelf = make_png_shelf(tmp_path / "shelf", notebooks=1, pages=2)
    first = plan_for(corpus, shelf)
    assert commit_plan(corpus, first).status == "complete"
    again = plan_for(corpus, shelf, dedupe_scope=DedupeScope.NOTEBOOK)
    assert commit_plan(corpus, again).status == "complete"
    for item in (*first.items, *again.items):
        doc = project.read(corpus.notebook_dir(item.notebook_id), item.notebook_id)
        for source in doc["sources"]:
            source["import_run_id"] = source["item_id"] = None
        project.write(corpus.notebook_dir(item.notebook_id), doc)
    [(severity, message)] = held_twice(corpus)
    assert severity is Severity.INFO
    assert message.endswith(
        "No import on record added them (an earlier version did, or its run is gone), so no "
        "undo can take them out: leave them if that was meant."
    )


def test_in_one_notebook_against_the_rule_is_a_problem() -> None:
    """The verdict's rule: one notebook's own files are always left out by skip_existing."""
    from transcribe_import.engine.planning.plan import ImportPlan, PlanItem

    item = PlanItem("i", Op.IMPORT_INTO_NOTEBOOK, "n", None, (), dedupe_scope=DedupeScope.NOTEBOOK)
    plan = ImportPlan("p", "transcribe.v1.skip_existing", (item,))
    earlier = Copy("n", "Diary", "a.png", (1,), "r0", "i0", "2026-01-01")
    later = replace(earlier, name="b.png", positions=(2,), run_id="r1", item_id="i")
    assert verdict(later, earlier, {"r1": plan}) is Verdict.BROKEN
    # In another notebook, judged per notebook: meant, nothing to say.
    assert verdict(replace(later, notebook_id="m"), earlier, {"r1": plan}) is None
    # No run on record: unknown, a note.
    assert verdict(later, earlier, {}) is Verdict.UNKNOWN
