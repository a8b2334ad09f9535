"""The plan document (docs/formats.md): the contract's ImportPlan as one JSON file.

The plan's values and their document as written are ``plan_values``, the format's
constants and fingerprint ``plan_document``; every name of both is re-exported here, so
``from ...planning.plan import X`` is the one way to name them. This module is the strict
reader: reading a plan is reading untrusted input, so every id must be a lower-case UUID and
the fingerprint must match.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from transcribe_import import __version__
from transcribe_import.engine.base.ids import is_sha256, is_valid_id
from transcribe_import.engine.base.short_calls import loads_in_slices, read_in_slices
from transcribe_import.engine.ingest.placement import Placement
from transcribe_import.engine.media.kinds import MEDIA_EXTENSIONS, Turn
from transcribe_import.engine.planning.plan_document import (
    IMPORT_MANIFEST_SCHEMA,
    PLAN_FORMAT,
    PLAN_SCHEMA,
    PLAN_SCHEMA_PLACED,
    PLAN_SCHEMAS,
    canonical_body,
    fingerprint_of,
    json_text,
    strip_provenance,
)
from transcribe_import.engine.storage import fsio

# isort: off
# The plan's values, re-exported, by kind: the codes, the plan and its item, its pages.
from transcribe_import.engine.planning.plan_values import DEFAULT_POLICY_ID, POLICY_IDS
from transcribe_import.engine.planning.plan_values import DuplicatePolicy, policy_id_for
from transcribe_import.engine.planning.plan_values import DedupeScope, Duplicate, Op
from transcribe_import.engine.planning.plan_values import DEFAULT_MODE, MODES, AdapterMode, ModeName
from transcribe_import.engine.planning.plan_values import Ordering, OrderingRule
from transcribe_import.engine.planning.plan_values import ImportPlan, PlanItem, Restore
from transcribe_import.engine.planning.plan_values import PageRef, PageRender, PlanPage, PlanSource
from transcribe_import.engine.planning.plan_values import SourceProvenance, plan_document

# isort: on

# A page's look as lookalike.look_to_hex writes it (LOOK_HEX_DIGITS of them); matched here,
# not by lookalike.look_from_hex, so that reading a plan does not load Pillow.
# Older plans' looks (144 bare hex digits, the grey-level hash before ink1) still read: they
# are not compared (look_from_hex), and the look pass does not make them again.
# A look made since the page's measures are (media/page_measures.py) has them after it.
_LOOK = re.compile(r"[0-9a-f]{144}|ink1:(?:[0-9a-f]{144}|blank)(?:;m1:[0-9.,]{1,60})?")

__all__ = [
    "DEFAULT_POLICY_ID",
    "DEFAULT_MODE",
    "MODES",
    "AdapterMode",
    "ModeName",
    "IMPORT_MANIFEST_SCHEMA",
    "MAX_PLAN_DEPTH",
    "PLAN_FORMAT",
    "PLAN_SCHEMA",
    "PLAN_SCHEMAS",
    "PLAN_SCHEMA_PLACED",
    "POLICY_IDS",
    "DedupeScope",
    "Duplicate",
    "DuplicatePolicy",
    "ImportPlan",
    "Op",
    "Ordering",
    "OrderingRule",
    "PageRef",
    "PageRender",
    "PlanDocumentError",
    "PlanItem",
    "PlanPage",
    "PlanSource",
    "Restore",
    "SourceProvenance",
    "canonical_body",
    "fingerprint_of",
    "json_text",
    "load_plan",
    "nested_deeper_than",
    "new_plan_provenance",
    "plan_document",
    "plan_from_document",
    "policy_id_for",
    "save_plan",
    "strip_provenance",
]


class PlanDocumentError(Exception):
    """The plan file cannot be used as it is; the message says why and what to do.

    str() is words for any face; ``hint`` is the CLI's command for that advice, as a
    ``PlanProblem``'s hint is (the window leaves it out).
    """

    def __init__(self, message: str, hint: str = "transcribe-import plan") -> None:
        super().__init__(message)
        self.hint = hint


def save_plan(plan: ImportPlan, path: Path) -> None:
    fsio.atomic_write(path, plan.encode_parts())  # written a part at a time, never joined


def load_plan(path: Path, progress: Told | None = None) -> ImportPlan:
    """The plan in ``path``: ``PlanDocumentError`` when it is not one the app can use, a coded
    ``TranscribeError`` when the disk fails to read it. ``progress`` (done, of how many) is
    told as the document read is made a plan (``plan_from_document``)."""
    try:
        with fsio.open_regular(path, max_bytes=fsio.MAX_DOCUMENT_BYTES) as f:
            data = read_in_slices(f)
    except FileNotFoundError:
        raise PlanDocumentError(f"{path}: no such plan file; make a plan first.") from None
    except fsio.RefusedRead as exc:  # what the file is: not a plan the app wrote
        raise PlanDocumentError(
            f"{path}: cannot be read ({exc.strerror}); give a plan file the app wrote."
        ) from None
    except OSError as exc:  # the disk's failure, coded as every command codes it
        raise fsio.problem_from_oserror(exc, path, "reading the plan") from None
    try:
        # In short calls: a worker reading a big plan leaves the window's thread the GIL.
        doc = loads_in_slices(data)
    except orjson.JSONDecodeError as exc:
        raise PlanDocumentError(f"{path}: not valid JSON ({exc}); make the plan again.") from None
    plan = plan_from_document(doc, str(path), progress)
    _drop_document(doc)
    return plan


def _drop_document(doc: Any) -> None:
    """Free a plan document that has been read, a source at a time.

    Left to its reference count, a document of 100,000 sources is freed in one cascade
    that held the GIL for 0.2 s. Only what the plan does not keep is taken apart: the
    items list, each item's object and its sources list (the plan keeps the provenance
    objects, which are left whole).
    """
    items = doc.get("items") if isinstance(doc, dict) else None
    while isinstance(items, list) and items:
        item = items.pop()
        sources = item.pop("sources", None) if isinstance(item, dict) else None
        while isinstance(sources, list) and sources:
            del sources[-1]


# Deep enough for every document the app writes (a plan is 8 levels deep, a bag's carried
# keys are JSON text), shallow enough that no reader or writer recurses near its limits.
MAX_PLAN_DEPTH = 64


def nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists and objects more than ``limit`` levels (no recursion)."""
    # A level at a time, its lists and objects only: a plan's values are mostly text and
    # numbers (140,000 of them for 5,000 pages), each of which was once a step of the walk.
    nests = (dict, list)  # a tuple: isinstance tests it faster than ``dict | list``
    level = [value] if isinstance(value, nests) else []
    depth = 1
    while level:
        if depth > limit:
            return True
        below: list[Any] = []
        for v in level:
            children = v.values() if isinstance(v, dict) else v
            below += [c for c in children if isinstance(c, nests)]
        level, depth = below, depth + 1
    return False


def _json_object(text: Any, what: str) -> dict[str, Any]:
    if not isinstance(text, str):
        raise ValueError(f"{what} is not JSON text")
    value = orjson.loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"{what} is not a JSON object")
    if nested_deeper_than(value, MAX_PLAN_DEPTH):
        raise ValueError(f"{what} nests more than {MAX_PLAN_DEPTH} levels deep")
    return value


class _Fields:
    """Typed reads of one object of an untrusted plan: a wrong type is refused by name."""

    def __init__(self, obj: Any, what: str, bad: Any) -> None:
        if obj is None:
            obj = {}
        if not isinstance(obj, dict):
            raise bad(f"{what} is not an object")
        self.obj, self.what, self.bad = obj, what, bad

    def _wrong(self, key: str, kind: str) -> PlanDocumentError:
        value = self.obj.get(key)
        shown = repr(value) if not isinstance(value, (dict, list)) else type(value).__name__
        return self.bad(f"{self.what}: {key} is {shown[:60]}, not {kind}")  # type: ignore[no-any-return]

    def raw(self, key: str) -> Any:
        return self.obj.get(key)

    def has(self, key: str) -> bool:
        return key in self.obj

    def text(self, key: str, default: str | None = None) -> str:
        value = self.obj.get(key, default)
        if not isinstance(value, str):
            raise self._wrong(key, "text")
        return value

    def opt_text(self, key: str) -> str | None:
        value = self.obj.get(key)
        if value is not None and not isinstance(value, str):
            raise self._wrong(key, "text or null")
        return value

    def number(self, key: str, default: int | None = None) -> int:
        value = self.obj.get(key, default)
        if type(value) is not int:  # bool is an int to Python, never to a plan
            raise self._wrong(key, "a whole number")
        return value

    def opt_number(self, key: str) -> int | None:
        value = self.obj.get(key)
        if value is not None and type(value) is not int:
            raise self._wrong(key, "a whole number or null")
        return value

    def opt_real(self, key: str) -> float | None:
        value = self.obj.get(key)
        if value is None:
            return None
        if type(value) not in (int, float) or not math.isfinite(value) or value <= 0:
            raise self._wrong(key, "a positive number or null")
        return float(value)

    def flag(self, key: str, default: bool = False) -> bool:
        value = self.obj.get(key, default)
        if not isinstance(value, bool):
            raise self._wrong(key, "true or false")
        return value

    def array(self, key: str, default: list[Any] | None = None) -> list[Any]:
        value = self.obj.get(key, default)
        if not isinstance(value, list):
            raise self._wrong(key, "a list")
        return value

    def texts(self, key: str) -> list[str]:
        value = self.array(key, [])
        if not all(isinstance(v, str) for v in value):
            raise self._wrong(key, "a list of texts")
        return value

    def objects(self, key: str) -> list[_Fields]:
        return [
            _Fields(v, f"{self.what}: {key}[{i}]", self.bad)
            for i, v in enumerate(self.array(key, []))
        ]

    def sub(self, key: str) -> _Fields:
        return _Fields(self.obj.get(key), f"{self.what}: {key}", self.bad)

    def path_b64(self, key: str) -> str | None:
        """A path's exact bytes, base64: refused unless it decodes to a path the OS can open."""
        value = self.opt_text(key)
        if value is None:
            return None
        try:
            raw = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise self.bad(f"{self.what}: {key} is not valid base64") from None
        if not raw or b"\0" in raw:
            raise self.bad(f"{self.what}: {key} is not a file path")
        return value

    def path(self, key: str) -> str:
        value = self.text(key, "")
        if "\0" in value:
            raise self.bad(f"{self.what}: {key} holds a NUL character, so it is not a file path")
        return value


# Tells a long reading's progress: (done, of how many).
Told = Callable[[int, int], None]

# The checks of a whole document (its depth, its fingerprint) cost this many of its sources
# made into the plan: measured 0.86 s against 2.26 s at 100,000 sources (about 3/8).
_CHECKS_IN_SOURCES = 3 / 8


def _sources_in(items_doc: Any) -> int:
    """The sources a document's items hold (0 for what is not a list of items)."""
    if not isinstance(items_doc, list):
        return 0
    return sum(
        len(sources)
        for d in items_doc
        if isinstance(d, dict) and isinstance(sources := d.get("sources"), list)
    )


def plan_from_document(doc: Any, where: str, progress: Told | None = None) -> ImportPlan:
    """The plan a document holds, checked whole; ``progress`` is told (done, of how many)
    after its checks and as each item is made, in sources' worth (a plan of 100,000
    sources takes seconds: a window says how long it has left)."""

    def bad(why: str) -> PlanDocumentError:
        return PlanDocumentError(f"{where}: {why}; make the plan again.")

    if not isinstance(doc, dict) or doc.get("format") != PLAN_FORMAT:
        raise bad("not a Transcribe import plan")
    if doc.get("schema_version") not in PLAN_SCHEMAS or not isinstance(
        doc.get("import_manifest"), dict
    ):
        raise bad("not an import plan of schema version 1 or 2")
    told: Told = progress if progress is not None else lambda _done, _total: None
    sources = _sources_in(doc.get("items"))
    checks = math.ceil(sources * _CHECKS_IN_SOURCES)
    told(0, checks + sources)
    if nested_deeper_than(doc, MAX_PLAN_DEPTH):
        raise bad(f"it nests lists or objects more than {MAX_PLAN_DEPTH} levels deep")
    if doc["import_manifest"].get("schema_version") != IMPORT_MANIFEST_SCHEMA:
        raise bad("import_manifest.schema_version is not 1")
    policy = doc.get("import_policy_id")
    if not isinstance(policy, str) or policy not in POLICY_IDS:
        raise bad(f"unknown import_policy_id {policy!r}")
    try:
        expected = fingerprint_of(doc)
    except (KeyError, TypeError):
        raise bad("the plan body is incomplete") from None
    if doc.get("plan_fingerprint") != expected:
        raise PlanDocumentError(
            f"{where}: plan_fingerprint does not match the plan's contents (it was edited "
            "outside the app); change a plan with the app's own edits, or make it again.",
            "transcribe-import order, transcribe-import plan",
        )
    seen: set[str] = set()

    def uid(value: Any, what: str) -> str:
        if not is_valid_id(value):
            raise bad(f"{what} {value!r} is not a lower-case UUID")
        if value in seen:
            raise bad(f"{what} {value} appears twice")
        seen.add(value)
        return str(value)

    plan_id = uid(doc.get("plan_id"), "plan_id")
    items_doc = doc.get("items")
    if not isinstance(items_doc, list):
        raise bad("items is not a list")
    told(checks, checks + sources)
    made = checks
    items_made = []
    try:
        for d in items_doc:
            items_made.append(_item_from(d, uid, bad))
            made += len(d["sources"])
            told(made, checks + sources)
    except (KeyError, TypeError, ValueError) as exc:
        raise bad(f"an item is malformed ({exc})") from None
    items = tuple(items_made)
    return ImportPlan(plan_id, policy, items, _plan_provenance(doc.get("provenance"), bad))


def _plan_provenance(value: Any, bad: Any) -> dict[str, Any]:
    """The plan's provenance, with the fields the app reads checked for their types."""
    if value is None:
        return {}
    prov = _Fields(value, "provenance", bad)
    prov.texts("roots")
    prov.opt_text("mode")
    for key in ("not_planned", "ignored"):
        for entry in prov.objects(key):
            entry.text("rel", "")
            entry.text("reason", "")
            entry.text("path", "")
    return prov.obj


def _item_provenance(item: _Fields) -> dict[str, Any]:
    prov = item.sub("provenance")
    for key in ("adapter", "folder", "label"):
        prov.opt_text(key)
    for entry in prov.objects("unusable"):
        for key in ("path", "rel", "code", "message"):
            entry.text(key)
    prov.texts("rendered_again")
    return prov.obj


def _item_from(d: Any, uid: Any, bad: Any) -> PlanItem:
    if not isinstance(d, dict):
        raise bad("an item is not an object")
    if d.get("op") not in {o.value for o in Op}:
        raise bad(f"op {d.get('op')!r} is neither create_notebook nor import_into_notebook")
    item_id = uid(d.get("item_id"), "item_id")
    f = _Fields(d, f"item {item_id}", bad)
    op = Op(d["op"])
    notebook_id = d.get("notebook_id")
    title = f.opt_text("title")
    if op is Op.CREATE_NOTEBOOK:
        uid(notebook_id, "notebook_id")
        if title is None or not title.strip():
            raise bad(f"item {item_id} has no title")
    elif not is_valid_id(notebook_id):
        raise bad(f"notebook_id {notebook_id!r} is not a lower-case UUID")
    ordering = f.sub("ordering")
    sources = tuple(_source_from(s, uid, bad) for s in f.array("sources"))
    cover = f.opt_text("cover_page_id")
    page_ids = {p.page_id for s in sources for p in s.pages}
    if cover is not None and cover not in page_ids:
        raise bad(f"item {item_id}: cover_page_id is not one of its pages")
    provenance = _item_provenance(f)
    restore = _restore_from(d.get("restore"), sources, item_id, bad)
    placement, replacements = _placement_from(f, page_ids, bad)
    places = _places_from(f, sources, bad)
    return PlanItem(
        item_id=item_id,
        op=op,
        notebook_id=str(notebook_id),
        title=title,
        sources=sources,
        ordering=Ordering(
            OrderingRule(ordering.text("rule", "natural")),
            ordering.flag("resolved"),
            verso_first=ordering.flag("verso_first"),
            versos_blank=ordering.flag("versos_blank"),
        ),
        cover_page_id=cover,
        dedupe_scope=DedupeScope(f.text("dedupe_scope", "notebook")),
        acknowledged=tuple(f.texts("acknowledged")),
        provenance=provenance,
        restore=restore,
        placement=placement,
        replacements=replacements,
        places=places,
    )


def _placement_from(
    f: _Fields, page_ids: set[str], bad: Any
) -> tuple[Placement | None, tuple[tuple[str, str], ...]]:
    """An item's ``placement`` and ``replacements``, their shape checked; whether they fit
    the notebook (and the item's op) is validate's to say (planning/placement.py)."""
    placement = (
        _place_from(f.sub("placement"), f"{f.what}: placement", bad) if f.has("placement") else None
    )
    replacements = f.sub("replacements").obj
    for new, old in replacements.items():
        if new not in page_ids:
            raise bad(f"{f.what}: replacements names {new!r}, which is not one of its pages")
        if not is_valid_id(old):
            raise bad(f"{f.what}: replacements gives {old!r}, which is not a page id")
    return placement, tuple(replacements.items())


def _place_from(p: _Fields, what: str, bad: Any) -> Placement:
    """A place: ``{"at": N}`` or ``{"after_page": PAGE_ID}`` (``what`` names it)."""
    if set(p.obj) == {"at"}:
        return Placement(at=p.number("at"))
    if set(p.obj) == {"after_page"} and is_valid_id(p.raw("after_page")):
        return Placement(after_page=p.text("after_page"))
    raise bad(f"{what} is neither {{'at': N}} nor {{'after_page': PAGE_ID}}")


def _places_from(
    f: _Fields, sources: tuple[PlanSource, ...], bad: Any
) -> tuple[tuple[str, Placement], ...]:
    """An item's ``places`` (source id -> its pages' place), in the item's source order.

    A block after the first lands when the blocks before it have: a position would count
    pages that moved since, so a place there follows a page, or is the start (at 1)."""
    given = f.sub("places")
    out = []
    known = {s.source_id for s in sources}
    for sid in given.obj:
        if sid not in known:
            raise bad(f"{f.what}: places names {sid!r}, which is not one of its sources")
    for s in sources:
        if s.source_id not in given.obj:
            continue
        place = _place_from(given.sub(s.source_id), f"{f.what}: the place of {s.source_id}", bad)
        if place.at is not None and place.at != 1:
            raise bad(
                f"{f.what}: places puts source {s.source_id} at position {place.at}; a place "
                "there is {'after_page': PAGE_ID}, or {'at': 1} for the start"
            )
        out.append((s.source_id, place))
    return tuple(out)


def _restore_from(
    r: Any, sources: tuple[PlanSource, ...], item_id: str, bad: Any
) -> Restore | None:
    if r is None:
        return None
    if not isinstance(r, dict) or not isinstance(r.get("page_order"), list):
        raise bad(f"item {item_id}: restore is malformed")
    order = tuple(r["page_order"])
    history = r.get("history", [])
    if not isinstance(history, list):
        raise bad(f"item {item_id}: restore.history is not a list")
    pages = [p.page_id for s in sources for p in s.pages]
    # The same pages, each once, the history's apart: the order can only rearrange them.
    listed = [*order, *history]
    if len(set(listed)) != len(listed) or sorted(listed) != sorted(pages):
        raise bad(
            f"item {item_id}: restore.page_order and restore.history do not list exactly its pages"
        )
    return Restore(_json_object(r.get("manifest"), "restore.manifest"), order, tuple(history))


def _source_from(s: Any, uid: Any, bad: Any) -> PlanSource:
    if not isinstance(s, dict):
        raise bad("a source is not an object")
    source_id = uid(s.get("source_id"), "source_id")
    f = _Fields(s, f"source {source_id}", bad)
    sha = s.get("sha256")
    if not is_sha256(sha):
        raise bad(f"source {source_id} has no valid sha256")
    media_type = s.get("media_type")
    if not isinstance(media_type, str) or media_type not in MEDIA_EXTENSIONS:
        raise bad(f"source {source_id} has unsupported media_type {media_type!r}")
    pages = tuple(_page_from(p, uid, bad) for p in f.array("pages"))
    indices = [p.page_index for p in pages]
    if not pages or s.get("page_index") != indices or len(set(indices)) != len(indices):
        raise bad(f"source {source_id}: page_index does not match its pages")
    if min(indices) < 0:
        raise bad(f"source {source_id}: negative page_index")
    left_out = tuple(_page_from(p, uid, bad) for p in f.array("left_out_pages", []))
    if {p.page_index for p in left_out} & set(indices):
        raise bad(f"source {source_id}: a page is both imported and left out")
    p = f.sub("provenance")
    path = p.path("path")
    dup = f.opt_text("duplicate")
    return PlanSource(
        source_id=source_id,
        sha256=str(sha),
        media_type=media_type,
        pages=pages,
        provenance=SourceProvenance(
            path=path,
            rel=p.text("rel", path),
            size=p.number("size", -1),
            mtime=p.text("mtime", ""),
            mtime_ns=p.number("mtime_ns", 0),
            captured_at=p.opt_text("captured_at"),
            width=p.opt_number("width"),
            height=p.opt_number("height"),
            path_b64=p.path_b64("path_b64"),
            dpi=p.opt_real("dpi"),
            original=p.opt_text("original"),
        ),
        excluded=f.flag("excluded"),
        duplicate=None if dup is None else Duplicate(dup),
        extra=_json_object(s["extra"], "extra") if "extra" in s else None,
        left_out=left_out,
    )


def _page_from(p: Any, uid: Any, bad: Any) -> PlanPage:
    if not isinstance(p, dict):
        raise bad("a page is not an object")
    page_id = uid(p.get("page_id"), "page_id")
    f = _Fields(p, f"page {page_id}", bad)
    render = None
    r = p.get("render")
    if r is not None:
        if not isinstance(r, dict) or not is_sha256(r.get("sha256")):
            raise bad(f"page {page_id} has a render without a valid sha256")
        rf = _Fields(r, f"page {page_id}: render", bad)
        rp = rf.sub("provenance")
        render = PageRender(
            sha256=r["sha256"],
            width=rf.number("width"),
            height=rf.number("height"),
            path=rp.path("path"),
            size=rp.number("size", -1),
            mtime_ns=rp.number("mtime_ns", 0),
            path_b64=rp.path_b64("path_b64"),
            renderer=rf.opt_text("renderer"),
        )
    label = p.get("label")
    if label is not None and not isinstance(label, str):
        raise bad(f"page {page_id} has a label that is not text")
    look = p.get("look")
    if look is not None and (not isinstance(look, str) or not _LOOK.fullmatch(look)):
        raise bad(
            f"page {page_id} has a look that is not one "
            "(ink1: and 144 hex digits, its measures after)"
        )
    turn = p.get("turn", 0)
    try:
        turned = Turn.of(turn)
    except ValueError:
        raise bad(f"page {page_id} has a turn of {turn!r}: it must be 90, 180 or 270") from None
    if turned and render is not None:
        raise bad(f"page {page_id} is turned but brings its own render, which is never turned")
    return PlanPage(
        page_id,
        uid(p.get("render_id"), "render_id"),
        f.number("page_index"),
        render=render,
        extra=_json_object(p["extra"], "extra") if "extra" in p else None,
        label=label,
        look=look,
        turn=turned,
    )


def new_plan_provenance(roots: list[str], mode: str, **extra: Any) -> dict[str, Any]:
    from transcribe_import.engine.base.clock import utc_now

    return {
        "roots": roots,
        "mode": mode,
        "created_at": utc_now(),
        "app_version": __version__,
        **extra,
    }
