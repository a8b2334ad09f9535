"""The command line's words for a plan problem: the engine's message, the CLI's hint, and
the order option of every resolution."""

from __future__ import annotations

from dataclasses import replace

from transcribe_import.cli import runs
from transcribe_import.engine.planning.problems import (
    AmbiguityCode,
    PlanProblem,
    ProblemCode,
    Resolution,
    Severity,
)


def test_every_resolution_has_its_order_option() -> None:
    assert set(runs.RESOLUTION_FLAGS) == set(Resolution)
    assert all(flag.startswith("--") for flag in runs.RESOLUTION_FLAGS.values())


def test_the_hint_closes_the_messages_last_sentence() -> None:
    missing = PlanProblem(
        Severity.ERROR,
        AmbiguityCode.MISSING_INDEX,
        "item",
        "Page 2 is missing. Give the order, or accept the order as it is.",
        resolutions=(Resolution.ACCEPT, Resolution.SEQUENCE),
        hint="--sequence",
    )
    assert runs.problem_text(missing) == (
        "Page 2 is missing. Give the order, or accept the order as it is (--sequence)."
    )
    unreadable = PlanProblem(
        Severity.ERROR,
        ProblemCode.SOURCE_UNREADABLE,
        "item",
        "pages/x.jpg cannot be read. To import the rest without it, exclude it.",
        hint='order --exclude "pages/x.jpg"',
    )
    assert runs.problem_text(unreadable).endswith('exclude it (order --exclude "pages/x.jpg").')
    plain = PlanProblem(Severity.WARNING, ProblemCode.TITLE_EXISTS, "item", "Twice; rename it")
    assert runs.problem_text(plain) == "Twice; rename it"
    assert runs.problem_text(replace(plain, hint="--x")) == "Twice; rename it (--x)"
