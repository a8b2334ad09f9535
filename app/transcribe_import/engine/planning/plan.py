"""The plan document (docs/formats.md): the contract's ImportPlan as one JSON file.

Frozen dataclasses hold a plan in memory; ``to_document`` and ``load_plan`` are the
one place that knows its on-disk format. Reading a plan is reading untrusted
input: every id must be a lower-case UUID and the fingerprint must match.
"""

from __future__ import annotations

import base64
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
from transcribe_import.engine.base.ids import is_valid_id
from transcribe_import.engine.base.text import json_safe
from transcribe_import.engine.media.kinds import MEDIA_EXTENSIONS
from transcribe_import.engine.storage import fsio

PLAN_FORMAT = "transcribe.import-plan"
PLAN_SCHEMA = 1
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


@dataclass(frozen=True)
class Ordering:
    rule: OrderingRule = OrderingRule.NATURAL
    resolved: bool = False


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

    @property
    def unusable(self) -> list[dict[str, Any]]:
        return list(self.provenance.get("unusable", []))

    @property
    def label(self) -> str:
        return self.title or self.provenance.get("label") or self.notebook_id

    def imported_sources(self) -> list[PlanSource]:
        return [s for s in self.sources if s.imported]

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

    def with_item(self, new: PlanItem) -> ImportPlan:
        return replace(
            self, items=tuple(new if it.item_id == new.item_id else it for it in self.items)
        )

    @functools.cached_property
    def fingerprint(self) -> str:
        # Cached: a plan is immutable, and hashing 100,000 sources takes seconds.
        return fingerprint_of(self.to_document(with_fingerprint=False))

    def to_document(self, *, with_fingerprint: bool = True) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "format": PLAN_FORMAT,
            "schema_version": PLAN_SCHEMA,
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
        "ordering": {"rule": str(it.ordering.rule), "resolved": it.ordering.resolved},
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
    """Compact UTF-8 JSON, keys sorted, of exactly the four fields the contract names."""
    body = {
        "schema_version": doc["import_manifest"]["schema_version"],
        "plan_id": doc["plan_id"],
        "import_policy_id": doc["import_policy_id"],
        "items": strip_provenance(doc["items"]),
    }
    return orjson.dumps(body, option=orjson.OPT_SORT_KEYS)


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


def plan_from_document(doc: Any, where: str) -> ImportPlan:
    def bad(why: str) -> PlanDocumentError:
        return PlanDocumentError(f"{where}: {why}; make the plan again with `plan`.")

    if not isinstance(doc, dict) or doc.get("format") != PLAN_FORMAT:
        raise bad("not a Transcribe import plan")
    if doc.get("schema_version") != PLAN_SCHEMA or not isinstance(doc.get("import_manifest"), dict):
        raise bad("not an import plan of schema version 1")
    if doc["import_manifest"].get("schema_version") != IMPORT_MANIFEST_SCHEMA:
        raise bad("import_manifest.schema_version is not 1")
    if doc.get("import_policy_id") not in POLICY_IDS:
        raise bad(f"unknown import_policy_id {doc.get('import_policy_id')!r}")
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
    prov = doc.get("provenance")
    return ImportPlan(
        plan_id, doc["import_policy_id"], items, prov if isinstance(prov, dict) else {}
    )


def _item_from(d: dict[str, Any], uid: Any, bad: Any) -> PlanItem:
    if not isinstance(d, dict):
        raise bad("an item is not an object")
    if d.get("op") not in {o.value for o in Op}:
        raise bad(f"op {d.get('op')!r} is neither create_notebook nor import_into_notebook")
    item_id = uid(d.get("item_id"), "item_id")
    op = Op(d["op"])
    notebook_id = d.get("notebook_id")
    if op is Op.CREATE_NOTEBOOK:
        uid(notebook_id, "notebook_id")
        if not isinstance(d.get("title"), str) or not d["title"].strip():
            raise bad(f"item {item_id} has no title")
    elif not is_valid_id(notebook_id):
        raise bad(f"notebook_id {notebook_id!r} is not a lower-case UUID")
    ordering = d.get("ordering") or {}
    sources = tuple(_source_from(s, uid, bad) for s in d["sources"])
    cover = d.get("cover_page_id")
    page_ids = {p.page_id for s in sources for p in s.pages}
    if cover is not None and cover not in page_ids:
        raise bad(f"item {item_id}: cover_page_id is not one of its pages")
    prov = d.get("provenance")
    restore = _restore_from(d.get("restore"), sources, item_id, bad)
    return PlanItem(
        item_id=item_id,
        op=op,
        notebook_id=str(notebook_id),
        title=d.get("title") if isinstance(d.get("title"), str) else None,
        sources=sources,
        ordering=Ordering(
            OrderingRule(ordering.get("rule", "natural")), bool(ordering.get("resolved", False))
        ),
        cover_page_id=cover,
        dedupe_scope=DedupeScope(d.get("dedupe_scope", "notebook")),
        acknowledged=tuple(str(a) for a in d.get("acknowledged", [])),
        provenance=prov if isinstance(prov, dict) else {},
        restore=restore,
    )


def _restore_from(
    r: Any, sources: tuple[PlanSource, ...], item_id: str, bad: Any
) -> Restore | None:
    if r is None:
        return None
    if not isinstance(r, dict) or not isinstance(r.get("page_order"), list):
        raise bad(f"item {item_id}: restore is malformed")
    order = tuple(r["page_order"])
    pages = [p.page_id for s in sources for p in s.pages]
    # The same pages, each once: the order can only rearrange them.
    if len(set(order)) != len(order) or sorted(order) != sorted(pages):
        raise bad(f"item {item_id}: restore.page_order does not list exactly its pages")
    return Restore(_json_object(r.get("manifest"), "restore.manifest"), order)


def _source_from(s: dict[str, Any], uid: Any, bad: Any) -> PlanSource:
    source_id = uid(s.get("source_id"), "source_id")
    sha = s.get("sha256")
    if not _is_sha(sha):
        raise bad(f"source {source_id} has no valid sha256")
    if s.get("media_type") not in MEDIA_EXTENSIONS:
        raise bad(f"source {source_id} has unsupported media_type {s.get('media_type')!r}")
    pages = tuple(_page_from(p, uid, bad) for p in s["pages"])
    indices = [p.page_index for p in pages]
    if not pages or s.get("page_index") != indices or len(set(indices)) != len(indices):
        raise bad(f"source {source_id}: page_index does not match its pages")
    if min(indices) < 0:
        raise bad(f"source {source_id}: negative page_index")
    p = s.get("provenance") or {}
    dup = s.get("duplicate")
    return PlanSource(
        source_id=source_id,
        sha256=str(sha),
        media_type=s["media_type"],
        pages=pages,
        provenance=SourceProvenance(
            path=str(p.get("path", "")),
            rel=str(p.get("rel", p.get("path", ""))),
            size=int(p.get("size", -1)),
            mtime=str(p.get("mtime", "")),
            mtime_ns=int(p.get("mtime_ns", 0)),
            captured_at=p.get("captured_at"),
            width=p.get("width"),
            height=p.get("height"),
            path_b64=p.get("path_b64") if isinstance(p.get("path_b64"), str) else None,
        ),
        excluded=bool(s.get("excluded", False)),
        duplicate=None if dup is None else Duplicate(dup),
        extra=_json_object(s["extra"], "extra") if "extra" in s else None,
    )


def _is_sha(value: Any) -> bool:
    return (
        isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
    )


def _page_from(p: dict[str, Any], uid: Any, bad: Any) -> PlanPage:
    page_id = uid(p["page_id"], "page_id")
    render = None
    r = p.get("render")
    if r is not None:
        if not isinstance(r, dict) or not _is_sha(r.get("sha256")):
            raise bad(f"page {page_id} has a render without a valid sha256")
        rp = r.get("provenance") or {}
        render = PageRender(
            sha256=r["sha256"],
            width=int(r["width"]),
            height=int(r["height"]),
            path=str(rp.get("path", "")),
            size=int(rp.get("size", -1)),
            mtime_ns=int(rp.get("mtime_ns", 0)),
            path_b64=rp.get("path_b64") if isinstance(rp.get("path_b64"), str) else None,
        )
    return PlanPage(
        page_id,
        uid(p["render_id"], "render_id"),
        int(p["page_index"]),
        render=render,
        extra=_json_object(p["extra"], "extra") if "extra" in p else None,
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
