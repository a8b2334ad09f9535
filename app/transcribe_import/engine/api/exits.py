"""Exit codes (docs/cli.md): the rules that map a run's result or a coded error to one.

Here, not in ``cli/``, so that the window reports the same codes.
"""

from __future__ import annotations

import enum

from transcribe_import.engine.base.errors import DISK_CODES, ErrorCode, TranscribeError
from transcribe_import.engine.base.findings import DISK_FINDINGS, DoctorReport
from transcribe_import.engine.export.model import ExportResult, ExportStatus
from transcribe_import.engine.runs.model import RunResult, RunStatus


class ExitCode(enum.IntEnum):
    """The process exit statuses (docs/cli.md); the window uses the same ones."""

    OK = 0  # success; a run that ended complete; doctor found nothing to report
    PROBLEMS = 1  # a run that ended partial or failed; doctor reported problems
    USAGE = 2  # bad arguments, missing file, unreadable plan document
    INVALID_PLAN = 3  # validate errors: nothing was committed
    CANCELLED = 4  # the run ended cancelled or cancelled_with_commits
    LOCKED = 5  # the corpus or the run is locked by another process
    INTERRUPTED = 6  # paused, or stopped by a signal other than Ctrl-C: resumable


_LOCKED_CODES = frozenset(
    {
        ErrorCode.CORPUS_BUSY,
        ErrorCode.NOTEBOOK_BUSY,
        ErrorCode.RUN_BUSY,
        ErrorCode.EXPORT_LOCKED,
        ErrorCode.AUDIT_BUSY,
    }
)
# Fixed by changing what was asked (a setting, a destination), not by waiting or repairing.
_USAGE_CODES = frozenset(
    {
        ErrorCode.BAD_SETTING,
        ErrorCode.EXPORT_DESTINATION_NOT_EMPTY,
        ErrorCode.EXPORT_DESTINATION_INVALID,
    }
)


def exit_code_for_status(status: RunStatus) -> ExitCode:
    if not status.terminal:
        return ExitCode.INTERRUPTED
    if status is RunStatus.COMPLETE:
        return ExitCode.OK
    if status in (RunStatus.CANCELLED, RunStatus.CANCELLED_WITH_COMMITS):
        return ExitCode.CANCELLED
    return ExitCode.PROBLEMS


def exit_code_for_result(result: RunResult) -> ExitCode:
    if result.paused or result.superseded:
        return ExitCode.INTERRUPTED
    return exit_code_for_status(result.status)


def exit_code_for_error(exc: TranscribeError, *, finishes_later: bool = False) -> ExitCode:
    """``finishes_later``: the command is one that running again finishes (resume, doctor),
    so a disk's failure pauses it (6) rather than fails it."""
    if exc.code is ErrorCode.REVERT_STOPPED:
        return ExitCode.INTERRUPTED
    if finishes_later and exc.code in DISK_CODES:
        return ExitCode.INTERRUPTED
    if exc.code in _USAGE_CODES:
        return ExitCode.USAGE
    if exc.code in _LOCKED_CODES:
        return ExitCode.LOCKED
    if exc.code is ErrorCode.PLAN_FROZEN:
        return ExitCode.INVALID_PLAN
    return ExitCode.PROBLEMS


# An export names its notebooks on the command line: an unknown or malformed id there is a
# mistake in the arguments, exit 2 (docs/cli.md), where elsewhere it means a damaged corpus.
_EXPORT_ARGUMENT_CODES = frozenset({ErrorCode.NOTEBOOK_NOT_FOUND, ErrorCode.INVALID_ID})


def exit_code_for_export(result: ExportResult) -> ExitCode:
    if result.status is ExportStatus.COMPLETE:
        return ExitCode.OK
    if result.status is ExportStatus.CANCELLED:
        return ExitCode.CANCELLED
    return ExitCode.PROBLEMS


def exit_code_for_export_error(exc: TranscribeError) -> ExitCode:
    """An export's refusal: an unknown notebook named is usage (2), else as any coded error."""
    if exc.code in _EXPORT_ARGUMENT_CODES:
        return ExitCode.USAGE
    return exit_code_for_error(exc)


def exit_code_for_doctor(report: DoctorReport) -> ExitCode:
    """0 whole; 6 when a disk error stopped a repair (doctor again finishes it); else 1."""
    if report.clean:
        return ExitCode.OK
    if any(f.code in DISK_FINDINGS for f in report.findings):
        return ExitCode.INTERRUPTED
    return ExitCode.PROBLEMS
