"""The fixity log, ``corpus/fixity/events.jsonl``: the one place that reads and writes its format.

One JSON object a line, appended and fsynced, never rewritten: every check and every repair
the corpus has had (docs/formats.md, "The fixity log", maps each key onto PREMIS). What the
audit knows of a file (when it was last checked, with what result) is folded from it, so
there is nothing else to keep in step. A line a kill cut short (no newline at the end) is
skipped, and the next append starts on a line of its own, so no record before it is lost.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import filelock
import orjson

from transcribe_import import __version__
from transcribe_import.engine.audit.model import (
    Detail,
    EventType,
    FixityEvent,
    Outcome,
    RoundEvent,
)
from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.ids import is_sha256, is_valid_id
from transcribe_import.engine.storage import fsio, locks
from transcribe_import.engine.storage.corpus import Corpus

FIXITY_DIR = "fixity"
LOG_FILE = "events.jsonl"
LOCK_FILE = ".audit.lock"  # held by the one audit (or repair) of the corpus running
LOG_SCHEMA = 1
AGENT = f"transcribe-import {__version__}"


def fixity_dir(corpus: Corpus) -> Path:
    return corpus.root / FIXITY_DIR


def log_path(corpus: Corpus) -> Path:
    return fixity_dir(corpus) / LOG_FILE


def audit_lock(corpus: Corpus) -> filelock.FileLock:
    folder = fsio.corpus_folder(corpus.root, fixity_dir(corpus))
    try:
        fsio.make_dirs(folder)
    except OSError as exc:  # a read-only or full disk: said with the folder's name
        raise fsio.problem_from_oserror(exc, folder, "creating") from exc
    return locks.make_lock(folder / LOCK_FILE)


def take_audit_lock(corpus: Corpus) -> filelock.FileLock:
    """The audit lock, taken (the caller releases it), or AUDIT_BUSY at once."""
    lock = audit_lock(corpus)
    if not locks.try_acquire(lock):
        raise TranscribeError(
            ErrorCode.AUDIT_BUSY,
            f"Another audit or repair of {corpus.root} is running (it holds "
            f"{lock.lock_file}); wait for it to end, or stop it, and try again.",
            path=str(lock.lock_file),
        )
    return lock


def encode(event: FixityEvent | RoundEvent) -> bytes:
    # Written out, not through ``to_json``: one line per file checked, so it is on the
    # audit's hot path (bench/bench_audit.py); test_log_keys pins the two to the same keys.
    if isinstance(event, RoundEvent):
        return orjson.dumps({"schema": LOG_SCHEMA, **event.to_json()}) + b"\n"
    return (
        orjson.dumps(
            {
                "schema": LOG_SCHEMA,
                "event_id": event.event_id,
                "event_type": event.event_type.value,
                "at": event.at,
                "notebook_id": event.notebook_id,
                "path": event.path,
                "sha256_expected": event.sha256_expected,
                "sha256_found": event.sha256_found,
                "size_found": event.size_found,
                "outcome": event.outcome.value,
                "detail": event.detail.value,
                "agent": event.agent,
                "round": event.round,
                "note": event.note,
            }
        )
        + b"\n"
    )


def _text(raw: dict[str, Any], key: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{key} missing")
    return value


def _optional_int(raw: dict[str, Any], key: str) -> int | None:
    value = raw.get(key)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise ValueError(f"{key} is not a number")
    return value


def parse(raw: Any) -> FixityEvent | RoundEvent:
    """One line's object as an event; ValueError when it is not one."""
    if not isinstance(raw, dict) or raw.get("schema") != LOG_SCHEMA:
        raise ValueError("not a fixity event of schema 1")
    if raw.get("event_type") == EventType.ROUND_COMPLETE:
        numbers = [_optional_int(raw, k) for k in ("round", "files", "failures")]
        if None in numbers:
            raise ValueError("a round's numbers missing")
        round_no, files, failures = (int(n or 0) for n in numbers)
        return RoundEvent(
            _text(raw, "event_id"), _text(raw, "at"), round_no, files, failures, _text(raw, "agent")
        )
    expected, found = raw.get("sha256_expected"), raw.get("sha256_found")
    if not is_sha256(expected) or (found is not None and not is_sha256(found)):
        raise ValueError("bad sha256")
    if not is_valid_id(raw.get("notebook_id")):
        raise ValueError("bad notebook id")
    return FixityEvent(
        event_id=_text(raw, "event_id"),
        event_type=EventType(str(raw.get("event_type"))),
        at=_text(raw, "at"),
        notebook_id=_text(raw, "notebook_id"),
        path=_text(raw, "path"),
        sha256_expected=str(expected),
        sha256_found=found,
        size_found=_optional_int(raw, "size_found"),
        outcome=Outcome(str(raw.get("outcome"))),
        detail=Detail(str(raw.get("detail"))),
        agent=_text(raw, "agent"),
        round=_optional_int(raw, "round"),
        note=str(raw.get("note") or ""),
    )


def append(corpus: Corpus, events: Iterable[FixityEvent | RoundEvent]) -> None:
    """Append ``events`` in one write and one fsync; the caller holds the audit lock."""
    data = b"".join(encode(e) for e in events)
    if not data:
        return
    path = log_path(corpus)
    fsio.make_dirs(fsio.corpus_folder(corpus.root, path.parent))
    if fsio.ends_torn(path):
        # A kill cut the last append short: its fragment stays a (skipped) line of its own.
        data = b"\n" + data
    try:
        fsio.append_durable(path, data)
    except OSError as exc:
        raise fsio.problem_from_oserror(exc, path, "recording fixity checks in") from exc
    crashpoint("audit.after_append")


@dataclass
class RoundStats:
    last_at: str = ""
    checks: int = 0
    failures: int = 0


@dataclass
class LogState:
    """What the log says, folded: each file's last check and latest event, each round's."""

    last_check: dict[tuple[str, str], FixityEvent] = field(default_factory=dict)
    latest: dict[tuple[str, str], FixityEvent] = field(default_factory=dict)
    rounds: dict[int, RoundStats] = field(default_factory=dict)
    completed: dict[int, RoundEvent] = field(default_factory=dict)  # full audits, by round
    damaged_lines: int = 0

    @property
    def current_round(self) -> int:
        return max(self.rounds, default=0)

    def add(self, event: FixityEvent | RoundEvent) -> None:
        if isinstance(event, RoundEvent):
            self.completed[event.round] = event
            return
        self.latest[event.key] = event
        if event.event_type is not EventType.FIXITY_CHECK:
            return
        self.last_check[event.key] = event
        if event.round is not None:
            stats = self.rounds.setdefault(event.round, RoundStats())
            stats.checks += 1
            stats.failures += event.outcome is Outcome.FAIL
            stats.last_at = max(stats.last_at, event.at)


def read_log(corpus: Corpus) -> LogState:
    """The whole log folded; unreadable lines (a torn last one included) counted, skipped."""
    state = LogState()
    path = log_path(corpus)
    try:
        with fsio.open_read(path) as f:
            data = f.read()
    except FileNotFoundError:
        return state
    except OSError as exc:
        raise fsio.problem_from_oserror(exc, path, "reading") from exc
    lines = [line for line in data.split(b"\n") if line.strip()]
    try:
        # Fast path: every line at once (the log grows by a line a file a round).
        docs: list[Any] | None = orjson.loads(b"[" + b",".join(lines) + b"]")
    except orjson.JSONDecodeError:
        docs = None
    for n, line in enumerate(lines):
        try:
            state.add(parse(docs[n] if docs is not None else orjson.loads(line)))
        except (orjson.JSONDecodeError, ValueError):
            state.damaged_lines += 1
    return state
