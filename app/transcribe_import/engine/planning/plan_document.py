"""The plan document as written (docs/formats.md): its JSON, its canonical body, its fingerprint.

The one writer of the format; ``plan`` holds its strict reader, ``plan_values`` the values
it is written from. A field is added to all three at once ("The plan document").
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import orjson

from transcribe_import.engine.base.short_calls import sha256_of_parts

if TYPE_CHECKING:
    from transcribe_import.engine.ingest.placement import Placement
    from transcribe_import.engine.planning.plan_values import (
        ImportPlan,
        Ordering,
        PlanItem,
        PlanPage,
        PlanSource,
    )

PLAN_FORMAT = "transcribe.import-plan"
PLAN_SCHEMA = 1
# A plan that places pages or replaces them (``placement``, ``replacements``, a restore's
# ``history``) is written as version 2, so an app that knows only version 1 refuses it
# instead of committing it with its pages at the end; every other plan stays version 1,
# byte for byte. The contract generation (``import_manifest``) is 1 for both.
PLAN_SCHEMA_PLACED = 2
PLAN_SCHEMAS = frozenset({PLAN_SCHEMA, PLAN_SCHEMA_PLACED})
IMPORT_MANIFEST_SCHEMA = 1


def plan_document(plan: ImportPlan, *, with_fingerprint: bool = True) -> dict[str, Any]:
    """The plan as its JSON document; ``with_fingerprint``: with ``plan_fingerprint``."""
    placed = any(
        it.placement or it.places or it.replacements or (it.restore and it.restore.history)
        for it in plan.items
    )
    doc: dict[str, Any] = {
        "format": PLAN_FORMAT,
        "schema_version": PLAN_SCHEMA_PLACED if placed else PLAN_SCHEMA,
        "import_manifest": {"schema_version": IMPORT_MANIFEST_SCHEMA},
        "plan_id": plan.plan_id,
        "import_policy_id": plan.import_policy_id,
        "items": [_item_doc(it) for it in plan.items],
        "provenance": plan.provenance,
    }
    if with_fingerprint:
        doc["plan_fingerprint"] = plan.fingerprint
    return doc


def _item_doc(it: PlanItem) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "item_id": it.item_id,
        "op": str(it.op),
        "notebook_id": it.notebook_id,
        "title": it.title,
        "ordering": _ordering_doc(it.ordering),
        "cover_page_id": it.cover_page_id,
        "dedupe_scope": str(it.dedupe_scope),
        "acknowledged": list(it.acknowledged),
        "sources": [_source_doc(s) for s in it.sources],
        "provenance": it.provenance,
    }
    # Only when set, so that every plan made before bags keeps its fingerprint.
    if it.restore is not None:
        doc["restore"] = {
            "manifest": json_text(it.restore.manifest),
            "page_order": list(it.restore.page_order),
        }
        if it.restore.history:
            doc["restore"]["history"] = list(it.restore.history)
    # Likewise only when set: a plan that places no page keeps its fingerprint.
    if it.placement is not None:
        doc["placement"] = placement_doc(it.placement)
    if it.places:
        doc["places"] = {sid: placement_doc(p) for sid, p in it.places}
    if it.replacements:
        doc["replacements"] = dict(it.replacements)
    return doc


def placement_doc(p: Placement) -> dict[str, Any]:
    """A place in the plan document: ``{"at": N}`` or ``{"after_page": PAGE_ID}``."""
    return {"at": p.at} if p.at is not None else {"after_page": p.after_page}


def _ordering_doc(o: Ordering) -> dict[str, Any]:
    doc: dict[str, Any] = {"rule": str(o.rule), "resolved": o.resolved}
    # Only when said, so that every plan made before them keeps its fingerprint.
    doc.update({k: True for k in ("verso_first", "versos_blank") if getattr(o, k)})
    return doc


def json_text(value: Any) -> str:
    """Carried JSON as compact text, its keys in the order the bag wrote them.

    Text, not an object, because the fingerprint strips every key named ``provenance`` at
    any depth: a carried key of that name must still be fingerprinted, since it lands.
    The order is kept (reading the text back gives it again), so the fingerprint is
    stable and the notebook's keys land in the order another tool wrote them.
    """
    return orjson.dumps(value).decode("utf-8")


def _page_doc(pg: PlanPage) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "page_id": pg.page_id,
        "render_id": pg.render_id,
        "page_index": pg.page_index,
    }
    if pg.render is not None:
        r = pg.render
        doc["render"] = {
            "sha256": r.sha256,
            "width": r.width,
            "height": r.height,
            **({"renderer": r.renderer} if r.renderer else {}),
            "provenance": {
                "path": r.path,
                "size": r.size,
                "mtime_ns": r.mtime_ns,
                **({"path_b64": r.path_b64} if r.path_b64 else {}),
            },
        }
    if pg.extra:
        doc["extra"] = json_text(pg.extra)
    if pg.label is not None:
        doc["label"] = pg.label
    # Only when made, so that every plan made before looks keeps its fingerprint.
    if pg.look is not None:
        doc["look"] = pg.look
    # Only when turned, so that every plan made before turns keeps its fingerprint.
    if pg.turn:
        doc["turn"] = int(pg.turn)
    return doc


def _source_doc(s: PlanSource) -> dict[str, Any]:
    p = s.provenance
    doc: dict[str, Any] = {
        "source_id": s.source_id,
        "sha256": s.sha256,
        "media_type": s.media_type,
        "page_index": [pg.page_index for pg in s.pages],
        "pages": [_page_doc(pg) for pg in s.pages],
        "excluded": s.excluded,
        "duplicate": None if s.duplicate is None else str(s.duplicate),
        "provenance": {
            "path": p.path,
            "rel": p.rel,
            "size": p.size,
            "mtime": p.mtime,
            "mtime_ns": p.mtime_ns,
            "captured_at": p.captured_at,
            "width": p.width,
            "height": p.height,
            **({"path_b64": p.path_b64} if p.path_b64 else {}),
        },
    }
    if s.extra:
        doc["extra"] = json_text(s.extra)
    # Only when some are, so that every plan made before keeps its fingerprint.
    if s.left_out:
        doc["left_out_pages"] = [_page_doc(pg) for pg in s.left_out]
    return doc


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
