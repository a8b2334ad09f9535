"""Run test fixtures: a complete run to undo, restore or read back."""

from __future__ import annotations

from pathlib import Path

import pytest

from transcribe_import.engine.planning.plan import ImportPlan
from transcribe_import.engine.runs.model import RunStatus
from transcribe_import.engine.storage.corpus import Corpus

from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_shelf


@pytest.fixture
def first(corpus: Corpus, tmp_path: Path) -> tuple[ImportPlan, str]:
    """A complete run that created two notebooks of three pages: its plan and its id."""
    plan = plan_for(corpus, make_shelf(tmp_path / "shelf", notebooks=2, pages=3))
    result = commit_plan(corpus, plan)
    assert result.status is RunStatus.COMPLETE
    return plan, result.run_id
