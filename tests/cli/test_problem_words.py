"""The command line's words for a plan problem: the engine's message, the CLI's hint, and
the order option of every resolution."""

from __future__ import annotations

from dataclasses import replace

from transcribe_import.cli import runs, undo
from transcribe_import.engine import api
from transcribe_import.engine.planning.problems import (
    AmbiguityCode,
    PlanProblem,
    ProblemCode,
    ProblemSeverity,
    Resolution,
)
from transcribe_import.engine.runs.model import HistoryEvent, RunStatus


def test_every_resolution_has_its_order_option() -> None:
    assert set(runs.RESOLUTION_FLAGS) == set(Resolution)
    assert all(flag.startswith("--") for flag in runs.RESOLUTION_FLAGS.values())


def test_the_hint_closes_the_messages_last_sentence() -> None:
    missing = PlanProblem(
        ProblemSeverity.ERROR,
        AmbiguityCode.MISSING_INDEX,
        "item",
        "Page 2 is missing. Give the order, or accept the order as it is.",
        resolutions=(Resolution.ACCEPT, Resolution.SEQUENCE),
        hint="--accept",
    )
    assert runs.problem_text(missing) == (
        "Page 2 is missing. Give the order, or accept the order as it is (--accept)."
    )
    unreadable = PlanProblem(
        ProblemSeverity.ERROR,
        ProblemCode.SOURCE_UNREADABLE,
        "item",
        "pages/x.jpg cannot be read. To import the rest without it, exclude it.",
        hint='order --exclude "pages/x.jpg"',
    )
    assert runs.problem_text(unreadable).endswith('exclude it (order --exclude "pages/x.jpg").')
    plain = PlanProblem(
        ProblemSeverity.WARNING, ProblemCode.TITLE_EXISTS, "item", "Twice; rename it"
    )
    assert runs.problem_text(plain) == "Twice; rename it"
    assert runs.problem_text(replace(plain, hint="--x")) == "Twice; rename it (--x)"


def test_every_history_event_has_its_words() -> None:
    assert set(undo.HISTORY_WORDS) == set(HistoryEvent)


def test_a_history_line_names_the_status_a_run_ended_with() -> None:
    event, status, recorded = api.history_event("partial")
    assert (event, status) == (HistoryEvent.ENDED, RunStatus.PARTIAL)
    entry = api.HistoryEntry(event, status, recorded, "2026-12-03T10:00:00Z", 2, "", None, {})
    runs = reverts = api.ShortIds.of([])
    assert "ended partial (attempt 2" in undo.history_line(entry, runs, reverts)
    assert api.history_event("reverted")[0] is HistoryEvent.REVERTED
    assert api.history_event("ended")[0] is HistoryEvent.UNKNOWN  # never written as such


def test_a_history_line_names_runs_and_trash_entries_as_their_lists_do() -> None:
    run, twin = "6e5b520f-1de3-44ba-aa95-bd71a942c392", "6e5b520f-1de0-4000-8000-000000000000"
    revert = "40f960c2-0000-4000-8000-000000000000"
    event = HistoryEvent.REVERTED
    detail = {"retry_of": run, "revert_id": revert}
    entry = api.HistoryEntry(event, None, "reverted", "2026-12-03T10:00:00Z", 1, "", None, detail)
    line = undo.history_line(entry, api.ShortIds.of([run, twin]), api.ShortIds.of([revert]))
    # The run shares its 8 characters with another: shown until told apart.
    assert line.endswith("; retries run 6e5b520f-1de3; trash entry 40f960c2")
