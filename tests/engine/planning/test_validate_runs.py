"""validate and the plan's own runs: what they committed is no conflict; the caller names them."""

from __future__ import annotations

from transcribe_import.engine.planning.validate import validate

from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_shelf


def test_what_the_plans_own_runs_committed_is_no_conflict(corpus, tmp_path) -> None:
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=2))
    result = commit_plan(corpus, plan)

    # validate asks no run store (planning sits below runs): the caller names the runs.
    assert validate(corpus, plan, own_run_ids={result.run_id}).ok
    unknown = validate(corpus, plan)
    assert [p.code for p in unknown.errors] == ["id_in_use", "id_in_use"]
