"""What the fixity log says of the corpus now: checked, never checked, failures; doctor reads it."""

from __future__ import annotations

from transcribe_import.engine.audit import log
from transcribe_import.engine.audit.check import describe, round_order
from transcribe_import.engine.audit.files import audited_files
from transcribe_import.engine.audit.model import (
    AuditedFile,
    AuditReport,
    Failure,
    FileState,
    FullAudit,
    Outcome,
)
from transcribe_import.engine.base.findings import Finding, FindingCode, Remedy, Severity
from transcribe_import.engine.storage.corpus import Corpus


def _state(f: AuditedFile, state: log.LogState) -> FileState:
    last = state.last_check.get(f.key)
    latest = state.latest.get(f.key)
    return FileState(
        f,
        None if last is None else last.at,
        None if latest is None else latest.outcome,
        None if latest is None else latest.detail,
    )


def failures_now(files: list[AuditedFile], state: log.LogState) -> list[Failure]:
    """The files whose latest event is a failed check (a repair since clears it)."""
    out = []
    for f in files:
        latest = state.latest.get(f.key)
        if latest is not None and latest.outcome is Outcome.FAIL:
            out.append(Failure(f, latest))
    return out


def audit_report(corpus: Corpus) -> AuditReport:
    files = audited_files(corpus)
    state = log.read_log(corpus)
    states = [_state(f, state) for f in files]
    checked = [s for s in states if s.last_checked is not None]
    current = state.current_round
    next_round, left = round_order(files, state)
    # round_order starts the next round when the current one is complete: nothing is left.
    left_in_round = 0 if next_round != current else len(left)
    # The last round a run completed (its round_complete line): a notebook imported since
    # reopens the current round without unmaking that audit.
    done = state.completed.get(max(state.completed, default=0))
    full = None if done is None else FullAudit(done.round, done.at, done.failures)
    return AuditReport(
        files_total=len(files),
        files_checked=len(checked),
        never_checked=tuple(s.file for s in states if s.last_checked is None),
        oldest_check=min(checked, key=lambda s: s.last_checked or "", default=None),
        round=current,
        left_in_round=left_in_round,
        last_full_audit=full,
        failures=tuple(failures_now(files, state)),
        damaged_lines=state.damaged_lines,
        files=tuple(states),
    )


def fixity_findings(corpus: Corpus, already: set[str]) -> list[Finding]:
    """Doctor's reading of the log: each file whose last check failed and is not repaired
    (``already``: the paths doctor reported on its own, told once)."""
    files = audited_files(corpus)
    out = []
    for failure in failures_now(files, log.read_log(corpus)):
        path = str(corpus.notebook_dir(failure.file.notebook_id) / failure.file.path)
        if path in already:
            continue
        situation = f"The fixity audit found {describe(failure)}."
        out.append(
            Finding(
                FindingCode.FIXITY_FAILED,
                Severity.PROBLEM,
                f"{situation} Repair it with `transcribe-import audit --repair-from BACKUP` (an "
                "exported bag, another corpus's data folder, or a backup: only bytes with its "
                "recorded sha256 are used).",
                failure.file.notebook_id,
                path,
                situation=situation,
                remedies=(Remedy.REPAIR_FROM_COPY,),
            )
        )
    return out
