"""Findings: what recovery and doctor report about the corpus, as coded values."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from transcribe_import.engine.base.values import fields_json


class Severity(enum.StrEnum):
    REPAIRED = "repaired"  # recovery acted, the corpus is whole again
    PROBLEM = "problem"  # needs a person
    INFO = "info"


class FindingCode(enum.StrEnum):
    JOURNAL_ROLLED_BACK = "journal_rolled_back"
    JOURNAL_ROLLED_FORWARD = "journal_rolled_forward"
    JOURNAL_QUARANTINED = "journal_quarantined"
    JOURNAL_LIVE = "journal_live"
    REGISTRATION_COMPLETED = "registration_completed"
    INCOMPLETE_CREATE_REMOVED = "incomplete_create_removed"
    UNREGISTERED_DIRECTORY = "unregistered_directory"
    REGISTERED_WITHOUT_MANIFEST = "registered_without_manifest"
    MANIFEST_INVALID = "manifest_invalid"
    FILE_MISSING = "file_missing"
    FILE_RESTORED = "file_restored"  # a missing file copied back from --restore-from
    FILE_HASH_MISMATCH = "file_hash_mismatch"
    ORPHAN_FILE = "orphan_file"
    DUPLICATE_ID = "duplicate_id"
    OUTSIDE_CORPUS = "outside_corpus"
    LINK_IN_CORPUS = "link_in_corpus"  # a symbolic link among the corpus's own folders
    INDEX_REPAIRED = "index_repaired"
    QUARANTINE_PRESENT = "quarantine_present"
    # A disk's failure that stopped doctor, coded as every command codes it
    # (``oserrors.problem_from_oserror``): doctor again finishes once the disk is sound.
    IO_ERROR = "io_error"
    DISK_FULL = "disk_full"
    PERMISSION_DENIED = "permission_denied"
    READ_ONLY = "read_only"
    INTERRUPTED_RUN = "interrupted_run"
    RUN_QUARANTINED = "run_quarantined"
    EMPTY_NOTEBOOK = "empty_notebook"  # registered with no page (left by earlier versions)
    RUN_UNTRACKED = "run_untracked"  # a frozen plan whose run record is gone
    REVERT_FINISHED = "revert_finished"  # an undo killed half way, finished or undone
    PURGE_LIVE = "purge_live"  # a purge of the trash is deleting right now in another process
    RESTORE_FINISHED = "restore_finished"  # a restore from the trash killed half way, finished
    REVERT_LIVE = "revert_live"  # an undo of a run is moving files right now in another process
    NOTEBOOK_INCOMPLETE = "notebook_incomplete"  # holds part of an unfinished import (a note)
    PAGE_HELD_TWICE = "page_held_twice"  # the same bytes twice (runs/held_twice.py)
    FIXITY_FAILED = "fixity_failed"  # the audit's last check of a file failed (engine/audit)


# The findings of a disk's failure, each named as the command's error code (same value).
DISK_FINDINGS = frozenset(
    {
        FindingCode.IO_ERROR,
        FindingCode.DISK_FULL,
        FindingCode.PERMISSION_DENIED,
        FindingCode.READ_ONLY,
    }
)


class Remedy(enum.StrEnum):
    """What finishes or clears a finding, as a value: each face words it as its own action
    (the CLI as its command, already in ``Finding.message``; the window as its button)."""

    FINISH_IMPORT = "finish_import"  # resume the run, or commit its frozen plan again
    UNDO_IMPORT = "undo_import"  # the group revert of the run (cancelled first if resumable)
    RESUME_RUN = "resume_run"
    CANCEL_RUN = "cancel_run"  # end it; the pages it landed stay
    UNDO_RUN = "undo_run"  # undo the finding's run (``run_id``), from the list of imports
    OPEN_PLAN = "open_plan"  # open the finding's frozen plan (``path``) and commit it again
    REPAIR_FROM_COPY = "repair_from_copy"  # copy the file back from a bag or a backup


@dataclass(frozen=True)
class Finding:
    code: FindingCode
    severity: Severity
    message: str  # the whole finding in the CLI's words, its commands included
    notebook_id: str | None = None
    path: str | None = None
    # With remedies: ``message`` without the commands (a whole sentence), so that a face
    # that does not speak in commands says it with its own words for ``remedies``. Without
    # (when not empty): ``message`` naming notebooks by their titles, never their ids.
    situation: str = ""
    remedies: tuple[Remedy, ...] = ()
    run_id: str | None = None
    # The command a person types in a terminal to act on it, where no remedy does: named in
    # ``message`` too, so the window says where such a command is typed.
    command: str | None = None
    # A notebook file's finding: the numbers (1-based, in the notebook's order) of the pages
    # that show the file, so a face names "page 3 of “Title”" rather than the stored file's
    # name; empty for a file no current page shows (a replaced page's, an orphan).
    pages: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        # The keys doctor --json has always had: the remedies are in ``message`` there.
        return {k: v for k, v in fields_json(self).items() if k not in _FACE_ONLY}


_FACE_ONLY = frozenset({"situation", "remedies", "run_id", "command", "pages"})


class DoctorStop(enum.StrEnum):
    """Why doctor stopped before it had checked every notebook (its finding says more)."""

    LINK = "link"  # a link among the corpus's folders: nothing is repaired through it
    UNDO_RUNNING = "undo_running"  # an undo in another process moves notebooks not known
    DISK = "disk"  # the disk failed: what was repaired so far is kept


@dataclass
class DoctorReport:
    """What doctor found and did, for one corpus."""

    corpus_root: str
    notebooks_checked: int = 0
    findings: list[Finding] = field(default_factory=list)
    stopped: DoctorStop | None = None  # None: every notebook was checked

    @property
    def clean(self) -> bool:
        """True when nothing was repaired and nothing needs a person."""
        return all(f.severity == Severity.INFO for f in self.findings)

    def to_json(self) -> dict[str, Any]:
        return {
            "corpus": self.corpus_root,
            "clean": self.clean,
            "notebooks_checked": self.notebooks_checked,
            "stopped": None if self.stopped is None else self.stopped.value,
            "findings": [f.to_json() for f in self.findings],
        }
