"""Values and their JSON documents, both ways: the one rule for each direction.

``fields_json``: a finding, a validation problem, a notebook listed, a file an export could
not carry: each is told in JSON (``--json``, ``MANIFEST.json``) as its fields in their
declared order, codes and paths as strings and tuples as lists. A value whose document
differs from its fields (a run record's summary, an export's result) writes its own.

``DocField``: a record read from disk (a run record, a notebook's ingest journal) is a view
over its checked JSON document; each of its keys is declared once, with the type it is
read as.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, overload

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


T = TypeVar("T")
_REQUIRED: Any = object()


class _HasDoc(Protocol):
    @property
    def doc(self) -> dict[str, Any]: ...


class DocField(Generic[T]):
    """One key of a record's ``doc``, read as ``kind`` (``default`` when the key is absent;
    without one, the key is required, as the record's loader has checked)."""

    def __init__(self, key: str, kind: Callable[[Any], T], default: Any = _REQUIRED) -> None:
        self.key, self.kind, self.default = key, kind, default

    @overload
    def __get__(self, record: None, owner: type) -> DocField[T]: ...
    @overload
    def __get__(self, record: _HasDoc, owner: type) -> T: ...
    def __get__(self, record: _HasDoc | None, owner: type) -> DocField[T] | T:
        if record is None:
            return self
        if self.default is _REQUIRED:
            return self.kind(record.doc[self.key])
        return self.kind(record.doc.get(self.key, self.default))
