"""The plan document (docs/formats.md): the contract's ImportPlan as one JSON file.

Frozen dataclasses hold a plan in memory; ``to_document`` and ``load_plan`` are the
one place that knows its on-disk format. Reading a plan is reading untrusted
input: every id must be a lower-case UUID and the fingerprint must match.

About 780 lines, over the usual 500: the frozen dataclasses, their document and the strict
reader of an untrusted document are three views of one format, kept in one module so that a
field is added to all three at once (docs/formats.md, "The plan document").
"""

from __future__ import annotations

import base64
import binascii
import enum
import functools
import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson

from transcribe_import import __version__
from transcribe_import.engine.base.ids import is_sha256, is_valid_id
from transcribe_import.engine.base.text import json_safe
from transcribe_import.engine.ingest.placement import Placement
from transcribe_import.engine.media.kinds import MEDIA_EXTENSIONS
from transcribe_import.engine.storage import fsio

PLAN_FORMAT = "transcribe.import-plan"
PLAN_SCHEMA = 1
# A plan that places pages or replaces them (``placement``, ``replacements``, a restore's
# ``history``) is written as version 2, so an app that knows only version 1 refuses it
# instead of committing it with its pages at the end; every other plan stays version 1,
# byte for byte. The contract generation (``import_manifest``) is 1 for both.
PLAN_SCHEMA_PLACED = 2
PLAN_SCHEMAS = frozenset({PLAN_SCHEMA, PLAN_SCHEMA_PLACED})
IMPORT_MANIFEST_SCHEMA = 1


class Op(enum.StrEnum):
    CREATE_NOTEBOOK = "create_notebook"
    IMPORT_INTO_NOTEBOOK = "import_into_notebook"


class DuplicatePolicy(enum.StrEnum):
    SKIP_EXISTING = "skip_existing"
    CREATE_DUPLICATE = "create_duplicate"


POLICY_IDS: dict[str, DuplicatePolicy] = {
    "transcribe.v1.skip_existing": DuplicatePolicy.SKIP_EXISTING,
    "transcribe.v1.create_duplicate": DuplicatePolicy.CREATE_DUPLICATE,
}
DEFAULT_POLICY_ID = "transcribe.v1.skip_existing"


def policy_id_for(name: str) -> str:
    """Accept a policy id or its short name (``skip_existing``) and return the id."""
    if name in POLICY_IDS:
        return name
    full = f"transcribe.v1.{name}"
    if full in POLICY_IDS:
        return full
    raise ValueError(f"unknown duplicate policy {name!r}; use skip_existing or create_duplicate")


class OrderingRule(enum.StrEnum):
    NATURAL = "natural"  # the proposed order: natural sort of the file names
    NAME = "name"
    CAPTURE_TIME = "capture_time"
    MTIME = "mtime"
    SEQUENCE = "sequence"  # an explicit order given by a person
    INTERLEAVE = "interleave"  # two duplex passes, front and back in turn
    INTERLEAVE_REVERSED = "interleave_reversed"  # the same, the backs' pass reversed


class Duplicate(enum.StrEnum):
    """Why a source is a planned skip under skip_existing."""

    IN_NOTEBOOK = "duplicate_in_notebook"
    IN_CORPUS = "duplicate_in_corpus"
    IN_PLAN = "duplicate_in_plan"


class DedupeScope(enum.StrEnum):
    NOTEBOOK = "notebook"
    CORPUS = "corpus"


@dataclass(frozen=True)
class PageRender:
    """A page's render brought by a bag: commit copies it, checking its sha256, never renders.

    ``sha256``, ``width`` and ``height`` land in project.json, so they are fingerprinted;
    where the file is (``path``, ``size``, ``mtime_ns``) is provenance.
    """

    sha256: str
    width: int
    height: int
    path: str = ""  # for display; valid UTF-8
    size: int = -1
    mtime_ns: int = 0
    path_b64: str | None = None  # the exact bytes of a path that is not valid UTF-8

    @property
    def fs_path(self) -> Path:
        if self.path_b64:
            return Path(os.fsdecode(base64.b64decode(self.path_b64)))
        return Path(self.path)


@dataclass(frozen=True)
class PlanPage:
    page_id: str
    render_id: str
    page_index: int
    render: PageRender | None = None  # a bag's render to copy; None: render from the source
    # A bag's pages[] entry keys this app does not know (a label, a transcription...): they
    # land in project.json as they are. Not hashed: a dict cannot be, and equal pages with
    # different extras hashing alike is allowed.
    extra: Mapping[str, Any] | None = field(default=None, hash=False)
    label: str | None = None  # the page's own name ("12v"); lands as the page's "label"


@dataclass(frozen=True)
class SourceProvenance:
    """What may change without changing the commit: never fingerprinted."""

    path: str  # for display; valid UTF-8
    rel: str
    size: int
    mtime: str
    mtime_ns: int
    captured_at: str | None = None
    width: int | None = None
    height: int | None = None
    # A file name that is not valid UTF-8 (an old disk's Latin-1 names) cannot be written
    # in JSON as it is: its exact bytes are kept here, base64, so the file is still found.
    path_b64: str | None = None

    @property
    def name(self) -> str:
        return self.rel.rsplit("/", 1)[-1]

    @property
    def fs_path(self) -> Path:
        """The path to open: exactly the bytes the scan found."""
        if self.path_b64:
            return Path(os.fsdecode(base64.b64decode(self.path_b64)))
        return Path(self.path)

    @classmethod
    def for_path(cls, path: Path, **fields: Any) -> SourceProvenance:
        raw = str(path)
        try:
            raw.encode("utf-8")
            b64 = None
        except UnicodeEncodeError:
            b64 = base64.b64encode(os.fsencode(path)).decode("ascii")
        return cls(path=json_safe(raw), path_b64=b64, **fields)


@dataclass(frozen=True)
class PlanSource:
    source_id: str
    sha256: str
    media_type: str
    pages: tuple[PlanPage, ...]
    provenance: SourceProvenance
    excluded: bool = False
    duplicate: Duplicate | None = None  # a planned skip, with its classification
    # A bag's sources[] entry keys this app does not know; they land as they are.
    extra: Mapping[str, Any] | None = field(default=None, hash=False)

    @property
    def name(self) -> str:
        return self.provenance.name

    @property
    def planned_skip(self) -> bool:
        """Whether commit will skip this source as a duplicate: marked one, and not excluded.

        The one rule: an excluded source is left out whatever its classification, so it is
        neither imported nor reported as skipped.
        """
        return self.duplicate is not None and not self.excluded

    @property
    def imported(self) -> bool:
        """Whether commit will import this source (not excluded, not a planned skip)."""
        return not self.excluded and self.duplicate is None


@dataclass(frozen=True)
class Restore:
    """A notebook as a bag describes it (``plan --mode bag``): what lands besides its files.

    ``manifest`` is the bag's project.json minus what the import writes itself (sources,
    pages, format, schema_version, id, title, cover_page_id, updated_at, import_run_id):
    every other key, known or not, lands as it is when the notebook is created.
    ``page_order`` is the bag's page order, which may interleave sources; the pages land
    in it, and only into a notebook holding no other page (a restore never merges).
    """

    manifest: Mapping[str, Any] = field(hash=False)
    page_order: tuple[str, ...]
    # The bag notebook's replaced pages (its ``replaced_pages``): they are pages of the
    # item's sources so that their files land, but not in ``page_order``: their records
    # land with ``manifest``, as the history they are.
    history: tuple[str, ...] = ()


@dataclass(frozen=True)
class Ordering:
    rule: OrderingRule = OrderingRule.NATURAL
    resolved: bool = False
    # What a person said of a foliated notebook (ordering.py): its first page is a verso;
    # its versos are blank and were not scanned.
    verso_first: bool = False
    versos_blank: bool = False


@dataclass(frozen=True)
class PlanItem:
    item_id: str
    op: Op
    notebook_id: str
    title: str | None  # None for import_into_notebook: the notebook keeps its title
    sources: tuple[PlanSource, ...]  # notebook order, excluded sources kept in place
    ordering: Ordering = Ordering()
    cover_page_id: str | None = None
    dedupe_scope: DedupeScope = DedupeScope.NOTEBOOK
    # Unusable files (corrupt, encrypted, ...) a person chose to leave out, by rel name.
    # They are listed in provenance["unusable"]; until acknowledged each is a validate error.
    acknowledged: tuple[str, ...] = ()
    provenance: dict[str, Any] = field(default_factory=dict)
    restore: Restore | None = None  # set for a notebook planned from a bag
    # import_into_notebook only (planning/placement.py): where the new pages go (None: at
    # the end), and the existing pages rescans replace: (plan page id, notebook page id).
    placement: Placement | None = None
    replacements: tuple[tuple[str, str], ...] = ()

    @property
    def unusable(self) -> list[dict[str, Any]]:
        return list(self.provenance.get("unusable", []))

    @property
    def label(self) -> str:
        return self.title or self.provenance.get("label") or self.notebook_id

    def imported_sources(self) -> list[PlanSource]:
        return [s for s in self.sources if s.imported]

    def imported_page_count(self) -> int:
        """The pages this item adds: its imported sources' pages (skips and exclusions out).

        The one count of them that every surface shows (review's Pages column, the run's
        planned pages, the CLI's lines, the executor's progress).
        """
        return sum(len(s.pages) for s in self.imported_sources())

    def planned_skips(self) -> list[PlanSource]:
        """The sources commit will skip as duplicates (``PlanSource.planned_skip``), in order."""
        return [s for s in self.sources if s.planned_skip]


@dataclass(frozen=True)
class ImportPlan:
    plan_id: str
    import_policy_id: str
    items: tuple[PlanItem, ...]
    provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def policy(self) -> DuplicatePolicy:
        return POLICY_IDS[self.import_policy_id]

    def item(self, item_id: str) -> PlanItem:
        for it in self.items:
            if it.item_id == item_id:
                return it
        raise KeyError(item_id)

    def imported_page_count(self) -> int:
        """The pages the whole plan adds: the sum of its items' ``imported_page_count``."""
        return sum(it.imported_page_count() for it in self.items)

    def with_item(self, new: PlanItem) -> ImportPlan:
        return replace(
            self, items=tuple(new if it.item_id == new.item_id else it for it in self.items)
        )

    @functools.cached_property
    def fingerprint(self) -> str:
        # Cached: a plan is immutable, and hashing 100,000 sources takes seconds.
        return fingerprint_of(self.to_document(with_fingerprint=False))

    def to_document(self, *, with_fingerprint: bool = True) -> dict[str, Any]:
        placed = any(
            it.placement or it.replacements or (it.restore and it.restore.history)
            for it in self.items
        )
        doc: dict[str, Any] = {
            "format": PLAN_FORMAT,
            "schema_version": PLAN_SCHEMA_PLACED if placed else PLAN_SCHEMA,
            "import_manifest": {"schema_version": IMPORT_MANIFEST_SCHEMA},
            "plan_id": self.plan_id,
            "import_policy_id": self.import_policy_id,
            "items": [_item_doc(it) for it in self.items],
            "provenance": self.provenance,
        }
        if with_fingerprint:
            doc["plan_fingerprint"] = self.fingerprint
        return doc

    def encode(self) -> bytes:
        return orjson.dumps(self.to_document(), option=orjson.OPT_INDENT_2) + b"\n"


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
        p = it.placement
        doc["placement"] = {"at": p.at} if p.at is not None else {"after_page": p.after_page}
    if it.replacements:
        doc["replacements"] = dict(it.replacements)
    return doc


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


def _json_object(text: Any, what: str) -> dict[str, Any]:
    if not isinstance(text, str):
        raise ValueError(f"{what} is not JSON text")
    value = orjson.loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"{what} is not a JSON object")
    if nested_deeper_than(value, MAX_PLAN_DEPTH):
        raise ValueError(f"{what} nests more than {MAX_PLAN_DEPTH} levels deep")
    return value


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
    dump = functools.partial(orjson.dumps, option=orjson.OPT_SORT_KEYS)
    items = b",".join(dump(strip_provenance(item)) for item in doc["items"])
    # The four keys in sorted order, compact as orjson writes them.
    return b"".join(
        (
            b'{"import_policy_id":',
            dump(doc["import_policy_id"]),
            b',"items":[',
            items,
            b'],"plan_id":',
            dump(doc["plan_id"]),
            b',"schema_version":',
            dump(doc["import_manifest"]["schema_version"]),
            b"}",
        )
    )


def fingerprint_of(doc: dict[str, Any]) -> str:
    return hashlib.sha256(canonical_body(doc)).hexdigest()


# -- reading untrusted plans ---------------------------------------------------------------


class PlanDocumentError(Exception):
    """The plan file cannot be used as it is; the message says why and what to do."""


def save_plan(plan: ImportPlan, path: Path) -> None:
    fsio.atomic_write(path, plan.encode())


def load_plan(path: Path) -> ImportPlan:
    try:
        data = fsio.read_bytes(path)
    except FileNotFoundError:
        raise PlanDocumentError(f"{path}: no such plan file; make one with `plan`.") from None
    except OSError as exc:
        raise PlanDocumentError(
            f"{path}: cannot be read ({exc.strerror}); give the plan file that `plan` wrote."
        ) from None
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise PlanDocumentError(f"{path}: not valid JSON ({exc}); make the plan again.") from None
    return plan_from_document(doc, str(path))


# Deep enough for every document the app writes (a plan is 8 levels deep, a bag's carried
# keys are JSON text), shallow enough that no reader or writer recurses near its limits.
MAX_PLAN_DEPTH = 64


def nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists and objects more than ``limit`` levels (no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, dict):
            children: Any = v.values()
        elif isinstance(v, list):
            children = v
        else:
            continue
        if depth > limit:
            return True
        stack.extend((c, depth + 1) for c in children)
    return False


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


def plan_from_document(doc: Any, where: str) -> ImportPlan:
    def bad(why: str) -> PlanDocumentError:
        return PlanDocumentError(f"{where}: {why}; make the plan again with `plan`.")

    if not isinstance(doc, dict) or doc.get("format") != PLAN_FORMAT:
        raise bad("not a Transcribe import plan")
    if doc.get("schema_version") not in PLAN_SCHEMAS or not isinstance(
        doc.get("import_manifest"), dict
    ):
        raise bad("not an import plan of schema version 1 or 2")
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
            "outside the app); use `order` to change a plan, or make it again with `plan`."
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
    try:
        items = tuple(_item_from(d, uid, bad) for d in items_doc)
    except (KeyError, TypeError, ValueError) as exc:
        raise bad(f"an item is malformed ({exc})") from None
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
    )


def _placement_from(
    f: _Fields, page_ids: set[str], bad: Any
) -> tuple[Placement | None, tuple[tuple[str, str], ...]]:
    """An item's ``placement`` and ``replacements``, their shape checked; whether they fit
    the notebook (and the item's op) is validate's to say (planning/placement.py)."""
    placement = None
    if f.has("placement"):
        p = f.sub("placement")
        if set(p.obj) == {"at"}:
            placement = Placement(at=p.number("at"))
        elif set(p.obj) == {"after_page"} and is_valid_id(p.raw("after_page")):
            placement = Placement(after_page=p.text("after_page"))
        else:
            raise bad(f"{f.what}: placement is neither {{'at': N}} nor {{'after_page': PAGE_ID}}")
    replacements = f.sub("replacements").obj
    for new, old in replacements.items():
        if new not in page_ids:
            raise bad(f"{f.what}: replacements names {new!r}, which is not one of its pages")
        if not is_valid_id(old):
            raise bad(f"{f.what}: replacements gives {old!r}, which is not a page id")
    return placement, tuple(replacements.items())


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
        ),
        excluded=f.flag("excluded"),
        duplicate=None if dup is None else Duplicate(dup),
        extra=_json_object(s["extra"], "extra") if "extra" in s else None,
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
        )
    label = p.get("label")
    if label is not None and not isinstance(label, str):
        raise bad(f"page {page_id} has a label that is not text")
    return PlanPage(
        page_id,
        uid(p.get("render_id"), "render_id"),
        f.number("page_index"),
        render=render,
        extra=_json_object(p["extra"], "extra") if "extra" in p else None,
        label=label,
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
