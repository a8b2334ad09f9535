"""validate (engine/planning/validate.py) against a real corpus: every problem of a plan
at once, and ids another plan already committed."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from transcribe_import.engine.base.ids import new_id
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


def test_ids_already_used_by_something_else_are_a_validate_error(corpus, tmp_path) -> None:
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=1))
    commit_plan(corpus, plan)
    impostor = replace(plan, plan_id=new_id())  # another plan claiming the same ids
    report = validate(corpus, impostor)
    assert [p.code for p in report.errors] == ["id_in_use"]
