"""validate (engine/planning/validate.py) against a real corpus: every problem of a plan
at once, and ids another plan already committed."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.planning import lookalikes
from transcribe_import.engine.planning.problems import (
    AmbiguityCode,
    PlanProblem,
    ProblemCode,
    ProblemSeverity,
    Resolution,
    ValidationReport,
)
from transcribe_import.engine.planning.validate import validate

from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_shelf
from media_factory import make_image

# The corpus fixture is the shared one (tests/conftest.py). What a commit does with a
# plan validate passed is in tests/engine/runs/test_executor.py.


def test_validation_lists_every_problem_at_once(corpus, tmp_path) -> None:
    tree = make_shelf(tmp_path / "box", notebooks=3)
    plan = plan_for(corpus, tree)
    os.unlink(plan.items[0].sources[0].provenance.path)
    changed = Path(plan.items[1].sources[0].provenance.path)
    make_image(changed, "changed after the scan", size=(330, 440))
    into = plan_for(corpus, tree / "notebook 3", mode=f"into:{new_id()}")
    plan = replace(plan, items=(*plan.items, *into.items))
    report = validate(corpus, plan)
    codes = sorted(p.code for p in report.errors)
    assert codes == ["notebook_not_found", "source_changed", "source_missing"]
    assert any("page 1.jpg" in p.message for p in report.errors)


def test_validation_tells_its_progress_a_part_at_a_time_to_the_end(corpus, tmp_path) -> None:
    # What the window's time left is read from: a part at a time, each from none to all and
    # never back: the files with their notebook's checks, then with their own on disk.
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=3))
    told: list[tuple[int, int]] = []
    validate(corpus, plan, progress=lambda done, total: told.append((done, total)))
    files = sum(len(it.sources) for it in plan.items)
    # A report a notebook; then one a slice of checks, from none.
    assert told == [
        (0, files),
        *((sum(len(it.sources) for it in plan.items[: k + 1]), files) for k in range(3)),
        (0, files),
        (files, files),
    ]


def test_validation_tells_the_rescans_verification_as_a_part_of_its_own(
    corpus, tmp_path, monkeypatch
) -> None:
    """A shelf's first validation spends most of its time verifying the rescans' candidate
    pairs: that part is told from 0 to the pairs to verify, between the notebooks' checks and
    the files' (the window's time left, read from the last part told, would otherwise stand
    still at the first part's pace for minutes)."""
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=1))
    files = sum(len(it.sources) for it in plan.items)

    def verifying(corpus: object, plan: object, progress: Callable[[int, int], None]) -> list:
        for done in (0, 16, 32, 40):
            progress(done, 40)
        return []

    monkeypatch.setattr(lookalikes, "plan_problems", verifying)
    told: list[tuple[int, int]] = []
    validate(corpus, plan, progress=lambda done, total: told.append((done, total)))
    assert told == [
        (0, files),
        (files, files),
        (0, 40),
        (16, 40),
        (32, 40),
        (40, 40),
        (0, files),
        (files, files),
    ]


def test_ids_already_used_by_something_else_are_a_validate_error(corpus, tmp_path) -> None:
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=1))
    commit_plan(corpus, plan)
    impostor = replace(plan, plan_id=new_id())  # another plan claiming the same ids
    report = validate(corpus, impostor)
    assert [p.code for p in report.errors] == ["id_in_use"]


def test_every_problem_is_values_a_face_renders(corpus, tmp_path) -> None:
    """Codes and resolutions are members; a message names no CLI option, command, its item,
    or the absolute path its ``path`` carries; the CLI's advice is the hint; files by rel."""
    tree = make_shelf(tmp_path / "box", notebooks=4)
    (tree / "notebook 1" / "broken.jpg").write_bytes(b"not an image at all")
    os.unlink(tree / "notebook 4" / "page 2.jpg")  # a gap in the page numbers
    plan = plan_for(corpus, tree)
    os.unlink(plan.items[0].sources[0].provenance.path)
    make_image(Path(plan.items[1].sources[0].provenance.path), "changed", size=(330, 440))
    third, fourth = plan.items[2], plan.items[3]
    plan = plan.with_item(
        replace(third, sources=tuple(replace(s, excluded=True) for s in third.sources))
    )
    plan = plan.with_item(replace(fourth, ordering=replace(fourth.ordering, resolved=False)))
    into = plan_for(corpus, tree / "notebook 2", mode=f"into:{new_id()}")
    plan = replace(plan, items=(*plan.items, *into.items))

    report = validate(corpus, plan)
    codes = {p.code for p in report.problems}
    assert codes >= {
        ProblemCode.SOURCE_UNREADABLE,
        ProblemCode.SOURCE_MISSING,
        ProblemCode.SOURCE_CHANGED,
        ProblemCode.NOTHING_TO_IMPORT,
        ProblemCode.NOTEBOOK_NOT_FOUND,
        AmbiguityCode.MISSING_INDEX,
    }
    for p in report.problems:
        assert type(p.code) in (ProblemCode, AmbiguityCode)
        assert all(type(r) is Resolution for r in p.resolutions)
        assert "--" not in p.message and "`" not in p.message, p.message
        assert p.path is None or p.path not in p.message, p.message
        item = plan.item(p.item_id)
        # The item is the problem's field (item_id), shown by the face, not said again.
        assert not p.message.startswith(f"{item.label}:"), p.message
        rels = {s.provenance.rel for s in item.sources} | {u["rel"] for u in item.unusable}
        assert set(p.files) <= rels
        assert p.to_json()["hint"] == p.hint
    hints = {p.code: p.hint for p in report.problems}
    broken = "box/notebook 1/broken.jpg"  # as validate names files: from the scanned folder
    assert hints[ProblemCode.SOURCE_UNREADABLE] == f'order --exclude "{broken}"'
    assert hints[ProblemCode.NOTEBOOK_NOT_FOUND] == "transcribe-import notebooks"
    assert hints[AmbiguityCode.MISSING_INDEX] == "--accept"
    unreadable = next(p for p in report.problems if p.code is ProblemCode.SOURCE_UNREADABLE)
    assert unreadable.files == (broken,) and broken in unreadable.message


def test_a_reports_errors_warnings_and_an_items_problems_are_walked_out_once() -> None:
    # A shelf whose disk is not there has a problem a page, and the window asks a report's
    # errors for its summary, its commit button and each notebook's badge: each is one walk.
    severities = (ProblemSeverity.ERROR, ProblemSeverity.WARNING, ProblemSeverity.INFO)
    problems = tuple(
        PlanProblem(severities[n % 3], ProblemCode.SOURCE_MISSING, f"item{n % 7}", f"p{n}")
        for n in range(3_000)
    )
    report = ValidationReport("plan", "fingerprint", problems)
    assert report.errors == tuple(p for p in problems if p.severity is ProblemSeverity.ERROR)
    assert report.warnings == tuple(p for p in problems if p.severity is ProblemSeverity.WARNING)
    assert report.errors is report.errors and report.warnings is report.warnings
    assert len(report.errors) == len(report.warnings) == 1_000 and not report.ok
    for k in range(7):
        assert report.for_item(f"item{k}") == tuple(p for p in problems if p.item_id == f"item{k}")
    assert report.for_item("item7") == ()
    assert report.to_json()["errors"] == 1_000
    rank = {ProblemSeverity.ERROR: 0, ProblemSeverity.WARNING: 1, ProblemSeverity.INFO: 2}
    hint = PlanProblem(ProblemSeverity.INFO, ProblemCode.BLANK_PAGES, "item0", "blank")
    hinted = replace(report, information=(hint,))
    assert hinted.listed == (*sorted(problems, key=lambda p: rank[p.severity]), hint)
    assert replace(report, problems=()).ok  # a report made from another has its own walks
