"""Identifiers: random lower-case UUIDs, the check that keeps anything else off the disk, and
what a sha256 (the id of a file's bytes in every document) looks like."""

from __future__ import annotations

import re
import uuid

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError

_UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_SHA256_RE = re.compile(r"[0-9a-f]{64}")


def new_id() -> str:
    """A new random id (UUID v4, lower case)."""
    return str(uuid.uuid4())


def is_valid_id(value: object) -> bool:
    return isinstance(value, str) and _UUID_RE.match(value) is not None


def is_sha256(value: object) -> bool:
    """A sha256 as the documents write it: 64 lower-case hex digits."""
    return isinstance(value, str) and _SHA256_RE.fullmatch(value) is not None


def check_id(value: object, what: str) -> str:
    """Return value if it is a lower-case UUID; ids become file names, so nothing else passes."""
    if not is_valid_id(value):
        raise TranscribeError(
            ErrorCode.INVALID_ID,
            f"{what} {value!r} is not a lower-case UUID; the document was edited or damaged",
        )
    assert isinstance(value, str)
    return value
