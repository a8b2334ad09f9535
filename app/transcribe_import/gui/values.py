"""Frozen values the window shows: copies made from engine records, safe to pass between threads.

The workers make them on their threads and hand them over as signal arguments; the models
show them. None of them is a live engine object (a record's dict, a store) or a Qt object.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from transcribe_import.engine.api import (
    NotebookSummary,
    OutcomeRow,
    PaceStart,
    PlanItemState,
    RunDetail,
    RunSummary,
    outcome_rows,
)
from transcribe_import.engine.planning.plan import ImportPlan

if TYPE_CHECKING:
    from transcribe_import.engine.base.findings import DoctorReport
    from transcribe_import.engine.planning.problems import ValidationReport

__all__ = [  # the run values are the engine's own (engine.api); re-exported for the pages
    "CommitStart",
    "CorpusCheck",
    "OpenedPlan",
    "OutcomeRow",
    "PageTally",
    "PlanItemState",
    "RunDetail",
    "RunSummary",
    "ScanOutcome",
    "Validation",
    "outcome_rows",
]


@dataclass(frozen=True)
class ScanOutcome:
    """What a scan found and the plan the chosen mode made of it."""

    plan: ImportPlan
    files: int
    ignored: int  # not page files or unreadable, junk not counted
    seconds: float
    pages: int  # the pages the plan imports


@dataclass(frozen=True)
class CommitStart:
    """The run a commit worker is about to execute, with every item's outcome so far."""

    run_id: str
    rows: tuple[OutcomeRow, ...]
    pages_done: int
    pages_total: int
    continued: bool  # the run existed before (a resume, or the same plan committed again)
    # The unfinished items' pages and those in the corpus already: the attempt's pace counts
    # only the pages it lands itself (api.AttemptPace).
    pace: PaceStart = PaceStart()


@dataclass(frozen=True)
class PageTally:
    """What became of a run's pages: landed, skipped (in the corpus already), failed, and
    not imported because the run was cancelled; the rest are still to come."""

    total: int
    landed: int
    skipped: int
    failed: int
    cancelled: int

    @property
    def done(self) -> int:
        """Pages that need no more work: landed, or found in the corpus already."""
        return self.landed + self.skipped


@dataclass(frozen=True)
class Validation:
    """A validation report with the plan it is about.

    The window tells a stale report by the plan's identity: the fingerprint of a
    100,000-source plan takes the GUI thread most of a second.
    """

    plan: ImportPlan
    report: ValidationReport
    # Every item's badge under the report (api.item_states), made on the worker with it:
    # the notebooks' list looks each one up instead of reading the report on the window's
    # thread as it paints.
    states: Mapping[str, PlanItemState] = field(default_factory=dict)


@dataclass(frozen=True)
class CorpusCheck:
    """What a health check found, and the corpus as it is after doctor's repairs."""

    report: DoctorReport
    notebooks: tuple[NotebookSummary, ...]
    interrupted: tuple[RunSummary, ...]  # runs the start view offers to resume


@dataclass(frozen=True)
class OpenedPlan:
    """A plan read for review, off the GUI thread: from a plan file or a kept draft.

    ``plan`` is None when it cannot be read, and ``problem`` says why, naming the file.
    """

    plan: ImportPlan | None
    problem: str
    from_draft: bool  # a draft: what it holds on disk is this plan
