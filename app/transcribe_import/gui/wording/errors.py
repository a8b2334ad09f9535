"""Engine error codes in words, and one line for any failure a worker caught."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError

_t = QCoreApplication.translate


def error_code_words(code: str) -> str:
    """An engine error code (an ErrorCode) in words, for a failure recorded without its message.

    Every member has words (tests/gui/test_wording.py): a raw code is never shown.
    """
    words: dict[str, str] = {
        ErrorCode.EMPTY_FILE: _t("ErrorCode", "The file is empty"),
        ErrorCode.UNSUPPORTED_MEDIA: _t("ErrorCode", "Not a supported page file"),
        ErrorCode.CORRUPT_IMAGE: _t("ErrorCode", "The image is damaged"),
        ErrorCode.DECOMPRESSION_BOMB: _t("ErrorCode", "The image is too large to open"),
        ErrorCode.ENCRYPTED_PDF: _t("ErrorCode", "The PDF is encrypted"),
        ErrorCode.CORRUPT_PDF: _t("ErrorCode", "The PDF is damaged"),
        ErrorCode.EMPTY_PDF: _t("ErrorCode", "The PDF has no pages"),
        ErrorCode.SOURCE_MISSING: _t("ErrorCode", "A file is missing"),
        ErrorCode.SOURCE_CHANGED: _t("ErrorCode", "A file changed since the scan"),
        ErrorCode.SOURCE_UNREADABLE: _t("ErrorCode", "A file cannot be read"),
        ErrorCode.MEDIA_MISMATCH: _t("ErrorCode", "A file is not what the scan found"),
        ErrorCode.DISK_FULL: _t("ErrorCode", "The disk is full"),
        ErrorCode.IO_ERROR: _t("ErrorCode", "Reading or writing failed"),
        ErrorCode.PERMISSION_DENIED: _t("ErrorCode", "A file or folder may not be changed"),
        ErrorCode.READ_ONLY: _t("ErrorCode", "The corpus cannot be written to"),
        ErrorCode.CORPUS_BUSY: _t("ErrorCode", "Another process is using the corpus"),
        ErrorCode.NOTEBOOK_BUSY: _t("ErrorCode", "Another process is using the notebook"),
        ErrorCode.RUN_BUSY: _t("ErrorCode", "Another process is running this import"),
        ErrorCode.CORPUS_INVALID: _t("ErrorCode", "The corpus cannot be read"),
        ErrorCode.NOTEBOOK_NOT_FOUND: _t("ErrorCode", "The notebook is not in the corpus"),
        ErrorCode.NOTEBOOK_INVALID: _t("ErrorCode", "The notebook cannot be read"),
        ErrorCode.ID_CONFLICT: _t("ErrorCode", "An id is already in use"),
        ErrorCode.INVALID_ID: _t("ErrorCode", "An id is not valid"),
        ErrorCode.JOURNAL_PENDING: _t("ErrorCode", "Unfinished work waits for recovery"),
        ErrorCode.CORPUS_LINK: _t("ErrorCode", "A folder of the corpus is a link elsewhere"),
        ErrorCode.PLACEMENT_OUT_OF_RANGE: _t("ErrorCode", "A position is past the notebook's end"),
        ErrorCode.PLACEMENT_PAGE_NOT_FOUND: _t("ErrorCode", "The page to follow is not there"),
        ErrorCode.REPLACED_PAGE_NOT_FOUND: _t("ErrorCode", "The page to replace is not there"),
        ErrorCode.RUN_NOT_FOUND: _t("ErrorCode", "The import run is not there"),
        ErrorCode.RUN_CORRUPT: _t("ErrorCode", "The import run cannot be read"),
        ErrorCode.RUN_TERMINAL: _t("ErrorCode", "The import run has ended"),
        ErrorCode.PLAN_FROZEN: _t("ErrorCode", "The plan belongs to a run and cannot change"),
        ErrorCode.REVERT_BLOCKED: _t("ErrorCode", "The import cannot be undone"),
        ErrorCode.REVERT_UNFINISHED: _t("ErrorCode", "An undo was interrupted"),
        ErrorCode.REVERT_STOPPED: _t("ErrorCode", "The undo was stopped before its end"),
        ErrorCode.TRASH_NOT_FOUND: _t("ErrorCode", "The trash entry is not there"),
        ErrorCode.RESTORE_BLOCKED: _t("ErrorCode", "The import cannot be put back"),
        ErrorCode.BAD_SETTING: _t("ErrorCode", "A setting is not valid"),
        ErrorCode.EXPORT_LOCKED: _t("ErrorCode", "Another export is writing into that folder"),
        ErrorCode.EXPORT_DESTINATION_NOT_EMPTY: _t("ErrorCode", "The export folder is not empty"),
        ErrorCode.EXPORT_DESTINATION_INVALID: _t("ErrorCode", "The export folder cannot be used"),
        ErrorCode.EXPORT_NOTHING: _t("ErrorCode", "There is no notebook to export"),
        ErrorCode.AUDIT_BUSY: _t("ErrorCode", "Another audit of the corpus is running"),
        ErrorCode.BAG_INVALID: _t("ErrorCode", "Not a bag this app can read"),
        ErrorCode.BAG_UNSAFE_PATH: _t("ErrorCode", "The bag points outside itself"),
        ErrorCode.BAG_HASH_MISMATCH: _t("ErrorCode", "A file in the bag was changed"),
        ErrorCode.BAG_MISSING_FILE: _t("ErrorCode", "A file of the bag is missing"),
        ErrorCode.BAG_UNLISTED_FILE: _t("ErrorCode", "The bag holds a file it does not list"),
    }
    return words[code]


def error_text(exc: BaseException, where: object = None) -> str:
    """One line a person can act on, for an exception a worker caught."""
    if isinstance(exc, TranscribeError):
        return str(exc)
    if isinstance(exc, OSError):
        return f"{exc.filename or where or ''}: {exc.strerror or exc}".lstrip(": ")
    return _t("ErrorCode", "unexpected error: {error}").format(error=repr(exc))
