"""The plan document's format (docs/formats.md): its constants, canonical body and fingerprint.

``plan_values`` writes the document from its values (``plan_document``), ``plan`` holds its
strict reader. A field is added to both at once ("The plan document"). Nothing here names a
plan's values: they import this module, never the other way round.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import orjson

from transcribe_import.engine.base.short_calls import sha256_of_parts

if TYPE_CHECKING:
    from transcribe_import.engine.ingest.placement import Placement

PLAN_FORMAT = "transcribe.import-plan"
PLAN_SCHEMA = 1
# A plan that places pages or replaces them (``placement``, ``replacements``, a restore's
# ``history``) is written as version 2, so an app that knows only version 1 refuses it
# instead of committing it with its pages at the end; every other plan stays version 1,
# byte for byte. The contract generation (``import_manifest``) is 1 for both.
PLAN_SCHEMA_PLACED = 2
PLAN_SCHEMAS = frozenset({PLAN_SCHEMA, PLAN_SCHEMA_PLACED})
IMPORT_MANIFEST_SCHEMA = 1


def placement_doc(p: Placement) -> dict[str, Any]:
    """A place in the plan document: ``{"at": N}`` or ``{"after_page": PAGE_ID}``."""
    return {"at": p.at} if p.at is not None else {"after_page": p.after_page}


def json_text(value: Any) -> str:
    """Carried JSON as compact text, its keys in the order the bag wrote them.

    Text, not an object, because the fingerprint strips every key named ``provenance`` at
    any depth: a carried key of that name must still be fingerprinted, since it lands.
    The order is kept (reading the text back gives it again), so the fingerprint is
    stable and the notebook's keys land in the order another tool wrote them.
    """
    return orjson.dumps(value).decode("utf-8")


# -- the fingerprint -----------------------------------------------------------------------


def strip_provenance(value: Any) -> Any:
    """``value`` with every key named ``provenance`` removed, at any depth."""
    if isinstance(value, dict):
        return {k: strip_provenance(v) for k, v in value.items() if k != "provenance"}
    if isinstance(value, list):
        return [strip_provenance(v) for v in value]
    return value


def canonical_body(doc: dict[str, Any]) -> bytes:
    """Compact UTF-8 JSON, keys sorted, of exactly the four fields the contract names.

    The bytes of ``orjson.dumps(body, option=OPT_SORT_KEYS)``, encoded an item at a time: one
    call over 100,000 sources held the GIL for 0.1 s, a window's thread waiting.
    """
    return b"".join(_canonical_parts(doc))


def _canonical_parts(doc: dict[str, Any]) -> Iterator[bytes]:
    """``canonical_body`` in pieces: the four keys in sorted order, compact as orjson writes
    them, each item encoded on its own."""
    dump = functools.partial(orjson.dumps, option=orjson.OPT_SORT_KEYS)
    yield b'{"import_policy_id":' + dump(doc["import_policy_id"]) + b',"items":['
    for i, item in enumerate(doc["items"]):
        yield (b"," if i else b"") + dump(strip_provenance(item))
    yield b'],"plan_id":' + dump(doc["plan_id"])
    yield b',"schema_version":' + dump(doc["import_manifest"]["schema_version"]) + b"}"


def fingerprint_of(doc: dict[str, Any]) -> str:
    # Encoded an item at a time and hashed a MiB at a time: joined, the body of 100,000
    # sources was two 40 MB copies, each one call that held the GIL; hashed an item at a
    # time, the GIL changed hands 2,000 times in 0.25 s and starved the window's thread.
    return sha256_of_parts(_canonical_parts(doc))
