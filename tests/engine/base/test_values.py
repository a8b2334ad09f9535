"""base/values: fields_json (a value as JSON, fields in order) and DocField (a record key)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest

from transcribe_import.engine.base.findings import Finding, FindingCode, Severity
from transcribe_import.engine.base.values import DocField, fields_json


class _Colour(enum.StrEnum):
    RED = "red"


@dataclass(frozen=True)
class _Value:
    code: _Colour
    where: Path
    ids: tuple[str, ...]
    count: int
    note: str | None = None


def test_fields_keep_their_order_and_become_plain_json_values() -> None:
    doc = fields_json(_Value(_Colour.RED, Path("/corpus/notebooks"), ("a", "b"), 3))
    assert list(doc) == ["code", "where", "ids", "count", "note"]
    assert doc == {
        "code": "red",
        "where": "/corpus/notebooks",
        "ids": ["a", "b"],
        "count": 3,
        "note": None,
    }
    assert type(doc["code"]) is str and type(doc["ids"]) is list


def test_a_finding_reads_as_doctor_json_has_always_written_it() -> None:
    finding = Finding(FindingCode.FILE_MISSING, Severity.PROBLEM, "gone", "nb", "sources/x.jpg")
    assert orjson.dumps(finding.to_json()) == (
        b'{"code":"file_missing","severity":"problem","message":"gone",'
        b'"notebook_id":"nb","path":"sources/x.jpg"}'
    )


@dataclass(frozen=True)
class _Record:
    doc: dict[str, Any]

    colour = DocField("colour", _Colour)
    count = DocField("count", int)
    flagged = DocField("flagged", bool, default=False)


def test_doc_field_reads_its_key_as_its_type_on_every_access() -> None:
    record = _Record({"colour": "red", "count": "3"})
    assert record.colour is _Colour.RED and record.count == 3 and record.flagged is False
    record.doc["flagged"] = 1
    assert record.flagged is True  # a view, not a copy taken at load
    assert isinstance(_Record.count, DocField) and _Record.count.key == "count"


def test_a_required_doc_field_that_is_absent_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        _ = _Record({"colour": "red"}).count
