"""Every engine code the window can show has words of its own: never the raw code.

Each word table of the window is keyed by an engine enum; these walk every member of the
enum through the function the window calls, so a member added to the engine without words
(or a word removed) fails here, not on a user's screen as ``missing_leaf``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

from transcribe_import.engine.api import (
    OutcomeRow,
    RevertBlocker,
    RunCounts,
    RunSummary,
    run_history,
)
from transcribe_import.engine.base.errors import ErrorCode
from transcribe_import.engine.base.findings import Remedy
from transcribe_import.engine.base.findings import Severity as FindingSeverity
from transcribe_import.engine.planning.plan import Duplicate, Op
from transcribe_import.engine.planning.problems import (
    AmbiguityCode,
    ProblemCode,
    ProblemSeverity,
    Resolution,
)
from transcribe_import.engine.runs.model import (
    HistoryEvent,
    ItemOutcome,
    ItemState,
    RunRecord,
    RunStatus,
)
from transcribe_import.engine.runs.revert import RevertBlock
from transcribe_import.gui import wording
from transcribe_import.gui.values import PlanItemState


def _outcome(state: ItemState) -> str:
    outcome = ItemOutcome("item", state, "nb")
    row = OutcomeRow("item", "A notebook", Op.CREATE_NOTEBOOK, "nb", 3, outcome)
    return wording.outcome_words(row, live=False)


def _blocker(code: RevertBlock) -> str:
    # The engine's message is what the window shows for a cause whose sentence names a file.
    return wording.revert_blocker_words(RevertBlocker(code, "nb", "nb/p1.jpg changed", "Diary"))


# Each table: the members it must cover, and the words the window shows for one.
TABLES: dict[str, tuple[Iterable[Any], Callable[[Any], str]]] = {
    "problem_words": ([*ProblemCode, *AmbiguityCode], wording.problem_words),
    "resolution_words": (Resolution, wording.resolution_words),
    "error_code_words": (ErrorCode, wording.error_code_words),
    "severity_words": (ProblemSeverity, wording.severity_words),
    "finding_severity_words": (FindingSeverity, wording.finding_severity_words),
    "remedy_words": (Remedy, wording.remedy_words),
    "duplicate_words": (Duplicate, wording.duplicate_words),
    "plan_state_words": (PlanItemState, wording.plan_state_words),
    "run_status_words": (RunStatus, wording.run_status_words),
    "run_status_explanation": (RunStatus, wording.run_status_explanation),
    "outcome_words": (ItemState, _outcome),
    "revert_blocker_words": (RevertBlock, _blocker),
    "history_event_words": (HistoryEvent, wording.history_event_words),
}


@pytest.mark.parametrize("table", sorted(TABLES))
def test_every_member_has_words_that_are_not_its_code(table: str) -> None:
    members, words_of = TABLES[table]
    missing = []
    for member in members:
        try:
            words = words_of(member)
        except KeyError:
            missing.append(f"{member.value}: no words")
            continue
        if not words.strip() or words in (member.value, member.name):
            missing.append(f"{member.value}: {words!r}")
    assert not missing, f"{table} has no words for: " + ", ".join(missing)


def test_a_run_history_entry_says_what_happened_in_words() -> None:
    record = RunRecord({"history": [
        {"event": "created", "at": "2026-12-03T10:00:00.000000Z", "attempt": 0},
        {"event": "cancelled_with_commits", "at": "2026-12-03T10:01:00.000000Z", "attempt": 1},
        {"event": "reverted", "at": "2026-12-03T10:02:00.000000Z", "attempt": 1},
        {"event": "archived", "at": "2026-12-03T10:03:00.000000Z", "attempt": 1},
    ]})  # fmt: skip
    lines = [wording.history_words(h) for h in run_history(record)]
    assert "Created" in lines[0]
    assert "Ended: " + wording.run_status_words(RunStatus.CANCELLED_WITH_COMMITS) in lines[1]
    assert "Undone as a group" in lines[2]
    assert "newer version" in lines[3] and "archived" in lines[3]
    assert not any("cancelled_with_commits" in line for line in lines)


@pytest.mark.parametrize(
    ("not_started", "words"),
    [(1, "1 cancelled before it started"), (3, "3 cancelled before they started")],
)
def test_notebooks_not_started_are_counted_in_words_that_agree_with_the_number(
    not_started: int, words: str
) -> None:
    run = RunSummary(
        "run",
        RunStatus.CANCELLED_WITH_COMMITS,
        False,
        "",
        "",
        1,
        1,
        0,
        0,
        not_started,
        30,
        (),
        counts=RunCounts(30, 1, 0, 0, not_started),
    )
    said = wording.counts_sentence(run)
    assert said == f"1 notebook committed, {words}; 30 pages landed."
