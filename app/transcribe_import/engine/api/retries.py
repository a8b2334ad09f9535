"""A refused retry in the History of the run it would have retried.

Committing the plan of a run that ended without landing everything retries it (a new run
with ``retry_of``). When the plan no longer validates, the run's frozen plan cannot be
read, or the new run cannot begin (a busy corpus, a disk error), no new run begins: the
ended run's History says that a retry was asked for and why it was refused, so the record
of every attempt on the plan is in one place. Which ended runs a retry applies to
(``can_retry``) is here too; ``commit`` calls this module, never the other way round.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.base.text import counted
from transcribe_import.engine.runs.model import HistoryEvent, RunStatus, continues, same_plan
from transcribe_import.engine.runs.store import RunStore

if TYPE_CHECKING:
    from transcribe_import.engine.planning.plan import ImportPlan
    from transcribe_import.engine.planning.problems import ValidationReport
    from transcribe_import.engine.storage.corpus import Corpus

logger = logging.getLogger(__name__)

# A run that ended without landing everything: committing its plan again retries the rest.
RETRYABLE = frozenset(
    {RunStatus.PARTIAL, RunStatus.FAILED, RunStatus.CANCELLED, RunStatus.CANCELLED_WITH_COMMITS}
)


def can_retry(status: RunStatus) -> bool:
    """Whether "retry what did not land" applies to a run that ended as ``status``."""
    return status in RETRYABLE


# How many of the refusal's errors the History names (the rest are counted).
NAMED_ERRORS = 3


def refusal_reason(report: ValidationReport) -> str:
    """Why the retry was refused, in the engine's words: the validate errors, counted."""
    errors = report.errors
    named = "; ".join(f"[{p.code}] {p.message}" for p in errors[:NAMED_ERRORS])
    more = f"; and {len(errors) - NAMED_ERRORS} more" if len(errors) > NAMED_ERRORS else ""
    return f"the plan no longer validates ({counted(len(errors), 'error')}): {named}{more}"


def note_refusal(corpus: Corpus, run_id: str, why: str) -> None:
    """Write a refused retry of the ended run ``run_id`` into its History, with ``why``.

    A record that cannot be written is logged: the refusal itself is still told to the
    person by the caller.
    """
    crashpoint("retry.before_refusal_noted")
    try:
        RunStore(corpus).note_on_ended(run_id, HistoryEvent.RETRY_REFUSED, why=why)
    except (TranscribeError, OSError) as exc:  # the disk failing too: the refusal is told
        logger.warning("a refused retry of run %s is not in History: %s", run_id, exc)


def note_refused_retry(corpus: Corpus, plan: ImportPlan, why: str) -> None:
    """If committing ``plan`` was a retry, write its refusal, ``why``, into the retried
    run's History.

    It was a retry when no run of the plan continues (a live one, or a complete one) and
    the newest one ended without landing everything, the run a new one would retry.
    """
    try:
        runs = [r for r in RunStore(corpus).runs_for_plan(plan.plan_id) if same_plan(r, plan)]
    except (TranscribeError, OSError) as exc:  # a failing disk must not hide the refusal
        logger.warning("a refused retry of plan %s is not in History: %s", plan.plan_id, exc)
        return
    if runs and not any(continues(r) for r in runs) and can_retry(runs[0].status):
        note_refusal(corpus, runs[0].run_id, why)
