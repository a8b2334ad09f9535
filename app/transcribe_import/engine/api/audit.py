"""Fixity: the corpus's files re-hashed on a budget, the log's report, repair from a copy."""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from transcribe_import.engine.audit.model import (
    AuditBudget,
    AuditedFile,
    AuditProgress,
    AuditReport,
    AuditResult,
    Failure,
    RepairResult,
)
from transcribe_import.engine.storage.corpus import Corpus

# The window reminds of an audit when the last full one is older than this (a setting).
DEFAULT_AUDIT_REMINDER_DAYS = 90


def run_audit(
    corpus: Corpus, budget: AuditBudget, *, should_stop: Callable[[], bool] | None = None
) -> Generator[AuditProgress, None, AuditResult]:
    """Check the files of the current round, oldest-checked first, within ``budget``."""
    from transcribe_import.engine.audit.check import audit

    return audit(corpus, budget, should_stop=should_stop)


def audit_report(corpus: Corpus) -> AuditReport:
    """What the fixity log says of the corpus's files now."""
    from transcribe_import.engine.audit.report import audit_report as report

    return report(corpus)


def repair_from(
    corpus: Corpus, source: Path, *, should_stop: Callable[[], bool] | None = None
) -> RepairResult:
    """Copy back each failed file from ``source`` where its recorded bytes are."""
    from transcribe_import.engine.audit.repair import repair_from as repair

    return repair(corpus, source, should_stop=should_stop)


def failure_words(failures: Sequence[Failure]) -> list[str]:
    """Each failure in words: the notebook's title, the page, what was found, and when."""
    from transcribe_import.engine.audit.check import describe

    return [describe(f) for f in failures]


def file_words(file: AuditedFile) -> str:
    """A file named for a person: its notebook's title, its page numbers, its path."""
    from transcribe_import.engine.audit.files import file_words as words

    return words(file)


def audit_due(report: AuditReport, days: int, now: datetime | None = None) -> bool:
    """Whether a person should be reminded to audit: no full audit yet, or the last one
    finished more than ``days`` ago (a corpus with no file needs none)."""
    if report.files_total == 0:
        return False
    full = report.last_full_audit
    if full is None:
        return True
    finished = datetime.strptime(full.finished_at[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
    return (now or datetime.now(UTC)) - finished > timedelta(days=days)
