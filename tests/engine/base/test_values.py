"""base/values.fields_json: a value whose JSON document is its fields, in order."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path

import orjson

from transcribe_import.engine.base.findings import Finding, FindingCode, Severity
from transcribe_import.engine.base.values import fields_json


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
