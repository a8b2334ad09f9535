"""An audit run: the files of the round re-hashed, oldest-checked first, within a budget.

Rounds: round N is complete when every file the corpus records has a check of round N in
the log. A run goes on with the current round (the files it has not checked yet, those
never checked first, then the longest unchecked; files imported while it runs, once it has
checked the others), and starts the next one when the current is complete; so a run killed
or stopped half way is taken up by the next run where it stopped, and no file is checked
twice in one round. A run never checks a file twice.

Locks: the files are read without the corpus lock (an import or an undo goes on beside the
audit). Only a failure is confirmed under it: project.json still records the file with that
sha256 (and a missing file is still missing); otherwise the file was changed on purpose
meanwhile and nothing is recorded. That look is one small read, so the lock is held for
milliseconds; the longest hold is in the result. The audit lock (``log.take_audit_lock``)
keeps a second audit or repair out for the whole run.

Records are appended in batches (``FLUSH_SECONDS`` of work or ``FLUSH_EVENTS`` events,
whichever comes first, and at the end) with one fsync each: a kill loses at most the checks of
the batch it cut, which were never recorded and are checked again by the next run. An fsync a
file would cost as much as hashing a small file (bench/bench_audit.py), hence the batches.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from pathlib import Path

from transcribe_import.engine.audit import log
from transcribe_import.engine.audit.files import audited_files, file_words, recorded
from transcribe_import.engine.audit.model import (
    AuditBudget,
    AuditedFile,
    AuditEnd,
    AuditProgress,
    AuditResult,
    Detail,
    EventType,
    Failure,
    FixityEvent,
    Outcome,
    RoundEvent,
)
from transcribe_import.engine.base.clock import utc_now
from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.storage import fsio
from transcribe_import.engine.storage.corpus import Corpus

FLUSH_EVENTS = 1000
FLUSH_SECONDS = 1.0


def round_order(files: list[AuditedFile], state: log.LogState) -> tuple[int, list[AuditedFile]]:
    """The round a run works in and the files it has left, in the order they are checked.

    Never-checked files first, then by the time of their last check (oldest first); files
    of equal standing keep the corpus's order (notebooks oldest first, sources, renders).
    """
    current = state.current_round

    def round_of(f: AuditedFile) -> int | None:
        last = state.last_check.get(f.key)
        return None if last is None else last.round

    left = [f for f in files if round_of(f) != current] if current else []
    if not left:
        current += 1
        left = list(files)

    def last_at(f: AuditedFile) -> str:
        last = state.last_check.get(f.key)
        return "" if last is None else last.at

    return current, sorted(left, key=last_at)


class _LockTimer:
    """The longest the corpus lock was held, in milliseconds."""

    def __init__(self) -> None:
        self.longest_ms = 0.0

    def held(self, started: float) -> None:
        self.longest_ms = max(self.longest_ms, (time.perf_counter() - started) * 1000)


def audit(
    corpus: Corpus,
    budget: AuditBudget,
    *,
    should_stop: Callable[[], bool] | None = None,
) -> Generator[AuditProgress, None, AuditResult]:
    """Check the files of the current round within ``budget``; the run's result at the end.

    Raises TranscribeError(AUDIT_BUSY) when another audit or repair runs.
    """
    lock = log.take_audit_lock(corpus)
    try:
        return (yield from _audit(corpus, budget, should_stop or (lambda: False)))
    finally:
        lock.release()


def _audit(
    corpus: Corpus, budget: AuditBudget, asked_to_stop: Callable[[], bool]
) -> Generator[AuditProgress, None, AuditResult]:
    started = time.monotonic()
    deadline = None if budget.max_seconds is None else started + budget.max_seconds
    files = audited_files(corpus)
    state = log.read_log(corpus)
    round_no, left = round_order(files, state)
    known = {f.key for f in files}
    folders: dict[str, Path] = {}
    timer = _LockTimer()
    pending: list[FixityEvent | RoundEvent] = []
    ended = state.rounds.get(round_no - 1)
    if ended is not None and round_no - 1 not in state.completed:
        # The round before was completed by a run killed before it could say so.
        pending.append(_round_done(round_no - 1, ended.last_at, ended.checks, ended.failures))
    failures: list[Failure] = []
    flushed_at = time.monotonic()
    done = skipped = bytes_done = 0
    end = AuditEnd.ROUND_COMPLETE

    def time_up() -> bool:
        return deadline is not None and time.monotonic() >= deadline

    def stop_reading() -> bool:
        return asked_to_stop() or time_up()

    try:
        at = 0
        while True:
            if at == len(left):
                # Files imported while this run went on belong to its round too: checked
                # now (never checked, so first in line), before the round is called complete.
                fresh = [f for f in audited_files(corpus) if f.key not in known]
                if not fresh:
                    break
                known.update(f.key for f in fresh)
                left.extend(fresh)
            f = left[at]
            at += 1
            if asked_to_stop():
                end = AuditEnd.STOPPED
                break
            if time_up():
                end = AuditEnd.BUDGET_SPENT
                break
            if f.notebook_id not in folders:  # its id checked once, not once a file
                folders[f.notebook_id] = corpus.notebook_dir(f.notebook_id)
            path = folders[f.notebook_id] / f.path
            # The first file is always checked (one larger than the budget would otherwise
            # stop the round for good); no other goes past the budget.
            over = budget.max_bytes is not None and done + skipped > 0
            if over and bytes_done + _size(path, f) > (budget.max_bytes or 0):
                end = AuditEnd.BUDGET_SPENT
                break
            try:
                event = check_file(corpus, f, path, round_no, known, timer, stop_reading)
            except fsio.ReadStopped:
                end = AuditEnd.STOPPED if asked_to_stop() else AuditEnd.BUDGET_SPENT
                break
            if event is None:
                skipped += 1
                continue
            pending.append(event)
            crashpoint("audit.after_check")
            done += 1
            bytes_done += event.size_found or 0
            if event.outcome is Outcome.FAIL:
                failures.append(Failure(f, event))
            if len(pending) >= FLUSH_EVENTS or time.monotonic() - flushed_at >= FLUSH_SECONDS:
                log.append(corpus, pending)
                pending.clear()
                flushed_at = time.monotonic()
            yield AuditProgress(round_no, done, len(left), bytes_done, len(failures), _current(f))
        if end is AuditEnd.ROUND_COMPLETE and known:
            # The full audit on record: what the report and the window call the last one.
            earlier = state.rounds.get(round_no, log.RoundStats())
            pending.append(
                _round_done(
                    round_no, utc_now(), earlier.checks + done, earlier.failures + len(failures)
                )
            )
    finally:
        log.append(corpus, pending)
    return AuditResult(
        round=round_no,
        end=end,
        files_checked=done,
        bytes_checked=bytes_done,
        seconds=time.monotonic() - started,
        failures=tuple(failures),
        left_in_round=len(left) - done - skipped,
        skipped_changed=skipped,
        longest_lock_ms=timer.longest_ms,
    )


def _round_done(round_no: int, at: str, files: int, failures: int) -> RoundEvent:
    return RoundEvent(new_id(), at, round_no, files, failures, log.AGENT)


def _current(f: AuditedFile) -> str:
    return f"{f.title}: {f.path}"


def _size(path: Path, f: AuditedFile) -> int:
    """What reading the file will cost: its size on disk (a missing file costs nothing)."""
    try:
        return fsio.stat(path).st_size
    except OSError:
        return f.size or 0


def check_file(
    corpus: Corpus,
    f: AuditedFile,
    path: Path,
    round_no: int,
    known: set[tuple[str, str]],
    timer: _LockTimer,
    should_stop: Callable[[], bool],
) -> FixityEvent | None:
    """One file (at ``path``) hashed and judged: its event, or None when it changed on
    purpose meanwhile."""
    found: str | None = None
    size: int | None = None
    note = ""
    try:
        found, size = fsio.hash_file(path, follow_links=False, should_stop=should_stop)
    except FileNotFoundError:
        detail = Detail.MISSING
        moved = _renamed(path, f, known)
        if moved is not None:
            detail, note = Detail.RENAMED, f"its bytes are at {moved}"
    except fsio.ReadStopped:
        raise
    except OSError as exc:
        detail, note = Detail.UNREADABLE, str(exc.strerror or exc)
    else:
        if found == f.sha256:
            return _event(f, round_no, found, size, Outcome.PASS, Detail.MATCH)
        detail = Detail.SIZE_CHANGED if f.size is not None and size != f.size else Detail.CHANGED
        if detail is Detail.SIZE_CHANGED:
            note = f"{size} bytes, {f.size} recorded"
    if not _still_recorded(corpus, f, path, detail, timer):
        return None
    return _event(f, round_no, found, size, Outcome.FAIL, detail, note)


def _event(
    f: AuditedFile,
    round_no: int | None,
    found: str | None,
    size: int | None,
    outcome: Outcome,
    detail: Detail,
    note: str = "",
    event_type: EventType = EventType.FIXITY_CHECK,
) -> FixityEvent:
    return FixityEvent(
        event_id=new_id(),
        event_type=event_type,
        at=utc_now(),
        notebook_id=f.notebook_id,
        path=f.path,
        sha256_expected=f.sha256,
        sha256_found=found,
        size_found=size,
        outcome=outcome,
        detail=detail,
        agent=log.AGENT,
        round=round_no,
        note=note,
    )


def repair_event(f: AuditedFile, size: int, copied_from: str) -> FixityEvent:
    """The event of a file copied back with its recorded bytes."""
    return _event(
        f,
        None,
        f.sha256,
        size,
        Outcome.PASS,
        Detail.REPAIRED,
        f"copied from {copied_from}",
        EventType.REPAIR,
    )


def _still_recorded(
    corpus: Corpus, f: AuditedFile, path: Path, detail: Detail, timer: _LockTimer
) -> bool:
    """Under the corpus lock: project.json still records ``f`` with its sha256 (and a file
    found missing is still missing), so the failure is the disk's, not an import's or an
    undo's that went on beside the audit."""
    with corpus.locked():
        t0 = time.perf_counter()  # the hold, not the wait for it
        try:
            now = recorded(corpus, f.notebook_id, f.path)
            still = now is not None and now.sha256 == f.sha256
            if still and detail in (Detail.MISSING, Detail.RENAMED):
                still = not fsio.exists(path)
        finally:
            timer.held(t0)
    return still


def _renamed(path: Path, f: AuditedFile, known: set[tuple[str, str]]) -> str | None:
    """A file of the same folder that no record names and holds ``f``'s bytes, or None."""
    folder = path.parent
    prefix = f.path.rsplit("/", 1)[0] + "/" if "/" in f.path else ""
    for name in fsio.list_dir(folder, missing_ok=True):
        rel = prefix + name
        if (f.notebook_id, rel) in known or fsio.is_atomic_temp(name):
            continue
        candidate = folder / name
        try:
            if f.size is not None and fsio.stat(candidate).st_size != f.size:
                continue
            if fsio.hash_file(candidate, follow_links=False)[0] == f.sha256:
                return rel
        except OSError:
            continue
    return None


def describe(failure: Failure) -> str:
    """A failure in words: the file named, what was found."""
    e = failure.event
    what = {
        Detail.CHANGED: "its bytes changed (sha256 " + str(e.sha256_found) + ")",
        Detail.SIZE_CHANGED: f"its size changed ({e.note})",
        Detail.MISSING: "it is missing",
        Detail.RENAMED: f"it is missing under its name ({e.note})",
        Detail.UNREADABLE: f"it could not be read ({e.note})",
    }.get(e.detail, str(e.detail))
    return f"{file_words(failure.file)}: {what}, checked {e.at[:19].replace('T', ' ')} UTC"
