"""What an OSError means to a person: the one map from an errno to an ErrorCode, with words.

Apart from ``fsio`` (which re-exports every name here) because it reads no disk: it turns
what a disk said into a coded error that names the file and says what to do.
"""

from __future__ import annotations

import errno as errno_mod
import os
from pathlib import Path

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError


class CodedOSError(OSError):
    """An ``OSError`` the app raised itself, with its own code and words: the refusals.

    An ``OSError`` so that every caller that already handles a disk's errors (turning them
    into a coded message with ``problem_from_oserror``, rolling back, pausing) handles these
    too; ``problem_from_oserror`` then says them in their own words.
    """

    code = ErrorCode.IO_ERROR

    def message(self, where: str) -> str:
        return f"{where}: {self.strerror}"


class RefusedRead(CodedOSError):
    """A read refused because of what the file is or has become; ``strerror`` says which.

    An ``OSError`` so that every caller that already turns read errors into a coded
    message (``problem_from_oserror``) words this one too; it has an errno so decoders do
    not mistake it for damaged data.
    """

    code = ErrorCode.SOURCE_UNREADABLE

    def __init__(self, path: str | os.PathLike[str], why: str, errno: int) -> None:
        super().__init__(errno, why, str(path))

    def message(self, where: str) -> str:
        return (
            f"{where} is {self.strerror}, so it was not read. Put the real file back, or "
            "leave it out."
        )


def problem_from_oserror(
    exc: OSError,
    path: str | os.PathLike[str],
    doing: str,
    *,
    then: str = "try again; nothing was changed",
) -> TranscribeError:
    """Turn an OSError into a coded error that names the file and says what to do.

    The one map from an errno to an ``ErrorCode``: ENOSPC and EDQUOT ``disk_full``, EROFS
    ``read_only``, EPERM and EACCES ``permission_denied``, any other ``io_error``.
    ``then`` finishes the sentence "free some space and …" / "check the disk and …": what to
    do next and what the failure left, for a caller that had changed something already.
    """
    where = str(path)
    if isinstance(exc, CodedOSError):
        return TranscribeError(exc.code, exc.message(where), path=where)
    if exc.errno in (errno_mod.ENOSPC, errno_mod.EDQUOT):
        return TranscribeError(
            ErrorCode.DISK_FULL,
            f"The disk is full while {doing} {where}: free some space and {then}.",
            path=where,
        )
    if exc.errno == errno_mod.EROFS:
        return TranscribeError(
            ErrorCode.READ_ONLY,
            f"Could not finish {doing} {where}: {exc.strerror or exc} (its disk is mounted "
            f"read-only). Make the disk writable and {then}.",
            path=where,
        )
    if exc.errno in (errno_mod.EPERM, errno_mod.EACCES):
        return TranscribeError(
            ErrorCode.PERMISSION_DENIED,
            f"Could not finish {doing} {where}: {exc.strerror or exc} (it is read-only, "
            f"locked or owned by another user). Check its permissions and {then}.",
            path=where,
        )
    return TranscribeError(
        ErrorCode.IO_ERROR,
        f"Could not finish {doing} {where}: {exc.strerror or exc}. Check the disk and {then}.",
        path=where,
    )


def failed_path(exc: OSError, default: Path) -> Path:
    """The file an OSError names (its first), or ``default`` when it names none."""
    name = exc.filename
    return Path(name) if isinstance(name, (str, os.PathLike)) else default
