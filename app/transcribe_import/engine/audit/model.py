"""The vocabulary of a fixity audit: the files it checks, its events, budget, progress, results.

The log these events are kept in, and its mapping onto PREMIS, is ``audit/log.py`` (and
docs/formats.md, "The fixity log").
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from transcribe_import.engine.base.values import fields_json


class FileKind(enum.StrEnum):
    SOURCE = "source"  # an imported file's bytes (sources/)
    RENDER = "render"  # a page's render (renders/)


class EventType(enum.StrEnum):
    """What an event of the log is (PREMIS eventType: docs/formats.md)."""

    FIXITY_CHECK = "fixity_check"  # the file's bytes hashed and compared with project.json
    REPAIR = "repair"  # the file's bytes copied back from a copy that has them
    ROUND_COMPLETE = "round_complete"  # every file of the corpus checked in a round


@dataclass(frozen=True)
class RoundEvent:
    """A line of the fixity log saying a round is complete: a full audit of the corpus."""

    event_id: str
    at: str  # when its last file was checked
    round: int
    files: int  # the files the corpus recorded, each checked in the round
    failures: int  # checks of the round that failed
    agent: str
    event_type: EventType = EventType.ROUND_COMPLETE

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)


class Outcome(enum.StrEnum):
    PASS = "pass"  # the file holds the bytes project.json records
    FAIL = "fail"


class Detail(enum.StrEnum):
    """Why an event has its outcome (PREMIS eventOutcomeDetail)."""

    MATCH = "match"  # the sha256 found is the one recorded
    CHANGED = "changed"  # the same size, other bytes (a flipped bit)
    SIZE_CHANGED = "size_changed"  # another size than recorded (truncated, or grown)
    MISSING = "missing"  # no file where project.json says it is
    RENAMED = "renamed"  # missing, and its bytes are in the notebook under another name
    UNREADABLE = "unreadable"  # reading it failed (an I/O error, no permission)
    REPAIRED = "repaired"  # copied back from a copy with the recorded sha256


class _OfOneFile:
    """A record about one file of a notebook: files and their events are matched by ``key``."""

    __slots__ = ()
    notebook_id: str
    path: str  # relative to the notebook's folder

    @property
    def key(self) -> tuple[str, str]:
        return (self.notebook_id, self.path)


@dataclass(frozen=True)
class AuditedFile(_OfOneFile):
    """One file of the corpus that records a sha256: what the audit checks, and its names."""

    notebook_id: str
    title: str  # the notebook's title, for a person
    path: str  # relative to the notebook's folder: "sources/<id>.jpg", "renders/<id>.png"
    kind: FileKind
    sha256: str
    size: int | None  # recorded for sources; renders record none
    pages: tuple[int, ...]  # the notebook's page numbers (1-based) the file is (or renders)
    replaced: bool = False  # a page a rescan replaced: history, no page number now

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)


@dataclass(frozen=True)
class FixityEvent(_OfOneFile):
    """One line of the fixity log: a check of one file, or its repair."""

    event_id: str
    event_type: EventType
    at: str  # UTC, ISO 8601 with a Z
    notebook_id: str
    path: str  # relative to the notebook's folder
    sha256_expected: str
    sha256_found: str | None  # None: no bytes could be read (missing, unreadable)
    size_found: int | None
    outcome: Outcome
    detail: Detail
    agent: str  # "transcribe-import 0.1.0"
    round: int | None  # the audit round of a check; None for a repair
    note: str = ""  # a renamed file's new name, a repair's copy, an error's words

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)


@dataclass(frozen=True)
class AuditBudget:
    """How much one audit run may do; None: no bound of that kind.

    A run never checks a file twice: it ends when its budget is spent or when the round
    is complete, whichever comes first (a round started anew when the last one is done).
    """

    max_bytes: int | None = None
    max_seconds: float | None = None

    @property
    def bounded(self) -> bool:
        return self.max_bytes is not None or self.max_seconds is not None


class AuditEnd(enum.StrEnum):
    """Why an audit run ended."""

    ROUND_COMPLETE = "round_complete"  # every file of the round has been checked
    BUDGET_SPENT = "budget_spent"  # --budget or --minutes reached; the next run goes on
    STOPPED = "stopped"  # asked to stop (Ctrl-C, SIGTERM, Stop in the window)


@dataclass(frozen=True)
class AuditProgress:
    """How far a run has gone: after each file checked."""

    round: int
    files_done: int
    files_total: int  # the files of the round this run may still check (before its budget)
    bytes_done: int
    failures: int
    current: str  # "Notebook title: sources/<id>.jpg"


@dataclass(frozen=True)
class Failure:
    """A file whose latest event is a failed check, named for a person."""

    file: AuditedFile
    event: FixityEvent

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file.to_json(), "event": self.event.to_json()}


@dataclass(frozen=True)
class AuditResult:
    """What one audit run did."""

    round: int
    end: AuditEnd
    files_checked: int
    bytes_checked: int
    seconds: float
    failures: tuple[Failure, ...]  # failed in this run
    left_in_round: int  # files of the round not checked yet
    skipped_changed: int  # failed while read, but changed meanwhile by an import or undo
    longest_lock_ms: float  # the longest the corpus lock was held by this run

    def to_json(self) -> dict[str, Any]:
        doc = fields_json(self)
        doc["failures"] = [f.to_json() for f in self.failures]
        return doc


@dataclass(frozen=True)
class FullAudit:
    """The last round in which every file of the corpus was checked."""

    round: int
    finished_at: str
    failures: int  # checks of that round that failed

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)


@dataclass(frozen=True)
class FileState:
    """A file as the log knows it: its last check and its latest event."""

    file: AuditedFile
    last_checked: str | None  # None: never checked
    last_outcome: Outcome | None  # of the latest event (a repair counts)
    last_detail: Detail | None

    def to_json(self) -> dict[str, Any]:
        doc = self.file.to_json()
        doc["last_checked"] = self.last_checked
        doc["last_outcome"] = None if self.last_outcome is None else str(self.last_outcome)
        doc["last_detail"] = None if self.last_detail is None else str(self.last_detail)
        return doc


@dataclass(frozen=True)
class AuditReport:
    """What the log says of the corpus's files now (``audit --report``)."""

    files_total: int
    files_checked: int  # checked at least once
    never_checked: tuple[AuditedFile, ...]
    oldest_check: FileState | None  # the file whose last check is the oldest
    round: int  # the current round (0: never audited)
    left_in_round: int
    last_full_audit: FullAudit | None
    failures: tuple[Failure, ...]
    damaged_lines: int  # lines of the log that could not be read (skipped, kept)
    files: tuple[FileState, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {
            "files_total": self.files_total,
            "files_checked": self.files_checked,
            "never_checked": [f.to_json() for f in self.never_checked],
            "oldest_check": None if self.oldest_check is None else self.oldest_check.to_json(),
            "round": self.round,
            "left_in_round": self.left_in_round,
            "last_full_audit": (
                None if self.last_full_audit is None else self.last_full_audit.to_json()
            ),
            "failures": [f.to_json() for f in self.failures],
            "damaged_lines": self.damaged_lines,
            "files": [s.to_json() for s in self.files],
        }


class RepairRefusal(enum.StrEnum):
    """Why a failed file was not repaired."""

    NO_COPY = "no_copy"  # nothing in the folder has the recorded sha256
    OTHER_BYTES = "other_bytes"  # the copy where it should be has other bytes
    BUSY = "busy"  # an import is writing into the notebook: try again
    CHANGED = "changed"  # project.json no longer lists the file with that hash


@dataclass(frozen=True)
class Repaired:
    file: AuditedFile
    copied_from: str

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file.to_json(), "copied_from": self.copied_from}


@dataclass(frozen=True)
class NotRepaired:
    file: AuditedFile
    reason: RepairRefusal
    copy_seen: str | None  # a copy that was looked at and refused (other bytes)

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file.to_json(),
            "reason": str(self.reason),
            "copy_seen": self.copy_seen,
        }


@dataclass(frozen=True)
class RepairResult:
    source: str
    repaired: tuple[Repaired, ...]
    not_repaired: tuple[NotRepaired, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "repaired": [r.to_json() for r in self.repaired],
            "not_repaired": [r.to_json() for r in self.not_repaired],
        }
