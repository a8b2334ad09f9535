"""Commit, retry, resume and cancel: a validated plan bound to its run, ready to execute.

``api.execute`` runs what these prepare; it is ``runs/executor.execute_run`` itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from transcribe_import.engine.api.drafts import discard_draft
from transcribe_import.engine.api.plans import nothing_to_import, validate_plan
from transcribe_import.engine.api.retries import (
    can_retry,
    note_refusal,
    note_refused_retry,
    refusal_reason,
)
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.text import counted
from transcribe_import.engine.planning.plan import ImportPlan
from transcribe_import.engine.runs.model import (
    RunCorrupt,
    RunRecord,
)
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage.corpus import Corpus

if TYPE_CHECKING:
    from transcribe_import.engine.media.kinds import RenderSettings
    from transcribe_import.engine.planning.problems import ValidationReport


class PlanInvalid(Exception):
    """The plan has validate errors: nothing was committed. ``report`` lists them."""

    def __init__(self, report: ValidationReport) -> None:
        super().__init__(f"{counted(len(report.errors), 'validate error')}")
        self.report = report


class NothingToImport(Exception):
    """The plan holds no notebook (``plans.nothing_to_import``): no run was created."""


@dataclass(frozen=True)
class PreparedRun:
    """The run a commit is about to execute, with its frozen plan."""

    record: RunRecord
    plan: ImportPlan
    continued: bool  # the run existed before: a resume, or the same plan committed again

    @property
    def run_id(self) -> str:
        return self.record.run_id


def discovery_for(plan: ImportPlan, plan_file: Path | None = None) -> dict[str, Any]:
    """The run record's summary of where the plan came from (the same for CLI and window)."""
    doc: dict[str, Any] = {
        "roots": plan.provenance.get("roots", []),
        "mode": plan.provenance.get("mode"),
    }
    if plan_file is not None:
        doc["plan_file"] = str(plan_file.absolute())
    # What a person left out, by its bytes, so a later scan of the folder leaves it out
    # again (planning/reimport.leave_out_as_before) instead of offering it as new.
    left_out = [
        {"sha256": s.sha256, "rel": s.provenance.rel, "notebook_id": it.notebook_id}
        for it in plan.items
        for s in it.sources
        if s.excluded and s.sha256
    ] + [
        {"sha256": str(u["sha256"]), "rel": str(u["rel"]), "notebook_id": it.notebook_id}
        for it in plan.items
        for u in it.unusable
        if u.get("rel") in it.acknowledged and u.get("sha256")
    ]
    if left_out:
        doc["left_out"] = left_out
    return doc


def prepare_commit(
    corpus: Corpus,
    plan: ImportPlan,
    *,
    plan_file: Path | None = None,
    settings: RenderSettings | None = None,
    workers: int = 2,
) -> PreparedRun:
    """Validate ``plan`` as the disk is now, then find the run it continues or create one.

    Raises ``PlanInvalid`` when validation finds errors, ``NothingToImport`` when the plan
    holds no notebook (a run would say "complete" of nothing), and
    ``TranscribeError(PLAN_FROZEN)`` when the plan was committed before with different
    contents.
    """
    from transcribe_import.engine.runs.service import prepare_run

    # Refused for any reason, a retry is in the History of the run it would have retried.
    try:
        report = validate_plan(corpus, plan, settings=settings, workers=workers)
        if not report.ok:
            raise PlanInvalid(report)
        nothing = nothing_to_import(plan)
        if nothing is not None:
            raise NothingToImport(f"{nothing} No run was created and no notebook changed.")
        # What a person said is no rescan (Keep Both) is remembered now, so no later plan asks.
        from transcribe_import.engine.planning.lookalikes import remember

        remember(corpus, plan)
        record, continued = prepare_run(corpus, plan, discovery_for(plan, plan_file))
    except PlanInvalid as exc:
        note_refused_retry(corpus, plan, refusal_reason(exc.report))
        raise
    except TranscribeError as exc:  # a busy corpus, a disk error, …: in its own words
        note_refused_retry(corpus, plan, str(exc))
        raise
    discard_draft(corpus, plan.plan_id)  # the run holds the plan now (frozen with it)
    return PreparedRun(record, plan, continued)


def prepare_retry(
    corpus: Corpus,
    run_id: str,
    *,
    settings: RenderSettings | None = None,
    workers: int = 2,
) -> PreparedRun:
    """Commit the frozen plan of an ended run again: the contract's retry of what did not land.

    The same as ``commit`` of that plan (``prepare_commit``): it is validated again, and a
    new run with ``retry_of`` imports only what is not there yet; pages already committed
    are recognised by their ids and never doubled. A plan whose retry already completed
    comes back as that run (``execute`` then does nothing).
    """
    store = RunStore(corpus)
    record = store.load(run_id)
    if not can_retry(record.status):
        raise TranscribeError(
            ErrorCode.RUN_TERMINAL if record.status.terminal else ErrorCode.RUN_BUSY,
            f"Run {store.short(run_id)} is {record.status.value}: only a partial, failed or "
            "cancelled run is retried. Resume an interrupted run instead.",
            item=run_id,
        )
    try:
        plan = store.load_plan(run_id, record)
    except RunCorrupt as exc:
        note_refusal(corpus, run_id, str(exc))
        raise
    return prepare_commit(corpus, plan, settings=settings, workers=workers)


def prepare_resume(corpus: Corpus, run_id: str) -> PreparedRun:
    """An existing run with its frozen plan, to be executed again (``execute``)."""
    store = RunStore(corpus)
    record = store.load(run_id)
    return PreparedRun(record, store.load_plan(run_id, record), True)


def cancel(corpus: Corpus, run_id: str) -> RunRecord:
    """Ask a run to stop its pending items; a run no process executes is ended at once."""
    from transcribe_import.engine.runs.service import cancel_run

    return cancel_run(corpus, run_id)
