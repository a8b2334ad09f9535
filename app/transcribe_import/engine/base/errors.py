"""Coded errors: each failure names its code, the file or item, and what to do."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class ErrorCode(enum.StrEnum):
    # media and sources
    EMPTY_FILE = "empty_file"
    UNSUPPORTED_MEDIA = "unsupported_media"
    CORRUPT_IMAGE = "corrupt_image"
    DECOMPRESSION_BOMB = "decompression_bomb"
    ENCRYPTED_PDF = "encrypted_pdf"
    CORRUPT_PDF = "corrupt_pdf"
    EMPTY_PDF = "empty_pdf"
    SOURCE_MISSING = "source_missing"
    SOURCE_CHANGED = "source_changed"
    SOURCE_UNREADABLE = "source_unreadable"
    MEDIA_MISMATCH = "media_mismatch"
    # storage
    DISK_FULL = "disk_full"
    IO_ERROR = "io_error"
    PERMISSION_DENIED = "permission_denied"  # a file or folder the app needs refuses it
    READ_ONLY = "read_only"  # the corpus (or a folder the app writes) cannot be written
    CORPUS_BUSY = "corpus_busy"
    NOTEBOOK_BUSY = "notebook_busy"
    RUN_BUSY = "run_busy"
    CORPUS_INVALID = "corpus_invalid"
    NOTEBOOK_NOT_FOUND = "notebook_not_found"
    NOTEBOOK_INVALID = "notebook_invalid"
    ID_CONFLICT = "id_conflict"
    INVALID_ID = "invalid_id"
    JOURNAL_PENDING = "journal_pending"
    # a folder of the corpus (trash, quarantine, import-runs, cache, notebooks, or one below
    # them) that is a symbolic link: refused, never written through (fsio.corpus_folder)
    CORPUS_LINK = "corpus_link"
    # where an item's pages go in a notebook, and the pages they replace (ingest/placement.py);
    # validate's problem codes of the same rules have the same values
    PLACEMENT_OUT_OF_RANGE = "placement_out_of_range"  # a position past the notebook's end
    PLACEMENT_PAGE_NOT_FOUND = "placement_page_not_found"  # after a page it does not have
    REPLACED_PAGE_NOT_FOUND = "replaced_page_not_found"  # replaces a page it does not have
    # importing a bag (planning/bag.py): each names the file and refuses the whole bag
    BAG_INVALID = "bag_invalid"  # not a bag, or a manifest or project.json malformed
    BAG_UNSAFE_PATH = "bag_unsafe_path"  # a link, a device, `..`, an absolute path
    BAG_HASH_MISMATCH = "bag_hash_mismatch"  # a file's bytes differ from its manifest
    BAG_MISSING_FILE = "bag_missing_file"  # listed in a manifest, not in the bag
    BAG_UNLISTED_FILE = "bag_unlisted_file"  # in the bag, listed in no manifest
    # exporting a bag (engine/export): each names the destination and what to do
    EXPORT_LOCKED = "export_locked"  # another export holds the destination's .export.lock
    EXPORT_DESTINATION_NOT_EMPTY = "export_destination_not_empty"  # holds files already
    EXPORT_DESTINATION_INVALID = "export_destination_invalid"  # a file, or inside the corpus
    EXPORT_NOTHING = "export_nothing"  # no notebook to export: an empty corpus, --all
    # fixity (engine/audit)
    AUDIT_BUSY = "audit_busy"  # another audit or repair holds the corpus's audit lock
    # import runs
    RUN_NOT_FOUND = "run_not_found"
    RUN_CORRUPT = "run_corrupt"
    RUN_TERMINAL = "run_terminal"
    PLAN_FROZEN = "plan_frozen"
    # undoing a run (runs/undo.py) and its trash (storage/trash.py)
    REVERT_BLOCKED = "revert_blocked"  # later work or a change since: nothing was touched
    REVERT_UNFINISHED = "revert_unfinished"  # a revert killed half way: doctor finishes it
    REVERT_STOPPED = "revert_stopped"  # stopped by a signal at a safe point: revert again
    TRASH_NOT_FOUND = "trash_not_found"  # no trash entry with that id
    RESTORE_BLOCKED = "restore_blocked"  # a trash entry later work collides with: untouched
    # the environment
    BAD_SETTING = "bad_setting"


# The codes of a disk's failures (not the corpus's, nor an item's): running the command again
# once the disk is sound finishes it, so resume and doctor pause on them (api/exits.py). A
# read-only corpus is not among them: nothing was begun, and it waits for a person.
DISK_CODES = frozenset({ErrorCode.DISK_FULL, ErrorCode.IO_ERROR, ErrorCode.PERMISSION_DENIED})


@dataclass(frozen=True)
class Problem:
    """One thing that went wrong, as a value: code, what it concerns, and what to do."""

    code: ErrorCode
    message: str
    path: str | None = None
    item: str | None = None


class TranscribeError(Exception):
    """An engine failure carrying a Problem; str() is the one-line human message."""

    def __init__(
        self, code: ErrorCode, message: str, *, path: str | None = None, item: str | None = None
    ) -> None:
        super().__init__(message)
        self.problem = Problem(code, message, path, item)

    @property
    def code(self) -> ErrorCode:
        return self.problem.code

    @property
    def path(self) -> str | None:
        return self.problem.path

    def __str__(self) -> str:
        return self.problem.message
