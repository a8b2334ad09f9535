"""A frozen value as a JSON document: the one rule for the values whose document is their fields.

A finding, a validation problem, a notebook listed, a file an export could not carry: each
is told in JSON (``--json``, ``MANIFEST.json``) as its fields in their declared order, codes
and paths as strings and tuples as lists. A value whose document differs from its fields (a
run record's summary, an export's result) writes its own.
"""

from __future__ import annotations

import dataclasses
import enum
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


def fields_json(value: DataclassInstance) -> dict[str, Any]:
    """``value``'s fields, in order, as JSON values (a field added to it is in its JSON too)."""
    return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}


def _plain(value: object) -> object:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, tuple):
        return list(value)
    return value
