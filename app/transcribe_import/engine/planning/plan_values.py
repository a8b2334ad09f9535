"""The import plan's values: the frozen dataclasses and enums of an ImportPlan in memory.

Written as a document by ``plan_document`` (below; the format's constants and fingerprint are
in the module of that name) and read back, strictly, by ``plan``; the faces and the engine name
them from ``plan``.
"""

from __future__ import annotations

import base64
import enum
import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from transcribe_import.engine.base.short_calls import dumps_parts, free_in_slices
from transcribe_import.engine.base.text import json_safe
from transcribe_import.engine.ingest.placement import Placement
from transcribe_import.engine.media.kinds import Turn
from transcribe_import.engine.planning.plan_document import (
    IMPORT_MANIFEST_SCHEMA,
    PLAN_FORMAT,
    PLAN_SCHEMA,
    PLAN_SCHEMA_PLACED,
    fingerprint_of,
    json_text,
    placement_doc,
)


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


class ModeName(enum.StrEnum):
    """How scanned files become notebooks (``--mode``, the start view's choice): an adapter's
    name (planning/adapters), or ``bag`` (each root an exported bag, planning/bag.py)."""

    FOLDERS = "folders"
    PDFS = "pdfs"
    PREFIX = "prefix"
    SINGLE = "single"
    INTO = "into"
    BAG = "bag"


# As a person types them: "into" takes its notebook after a colon.
MODES: tuple[str, ...] = ("folders", "pdfs", "prefix", "single", "into:NOTEBOOK", "bag")


@dataclass(frozen=True)
class AdapterMode:
    """A mode as chosen: its name and, for ``into``, the notebook pages go into.

    ``target`` is the notebook as it was given (its id, the start of its id, or its title)
    until the corpus resolves it to its id (``api.plan_paths``); its text form,
    ``into:TARGET``, is what a plan's provenance records and ``--mode`` takes.
    """

    name: ModeName = ModeName.FOLDERS
    target: str | None = None

    @classmethod
    def into(cls, notebook: str) -> AdapterMode:
        return cls(ModeName.INTO, notebook)

    @classmethod
    def parse(cls, text: str) -> AdapterMode:
        """The one reader of a mode as typed (``folders``, ``into:NOTEBOOK``, …); ValueError
        in words, naming the modes, for anything else."""
        name, colon, target = text.partition(":")
        try:
            mode = ModeName(name)
        except ValueError:
            raise ValueError(f"unknown mode {text!r}; use one of {', '.join(MODES)}") from None
        if mode is ModeName.INTO:
            if not target.strip():
                raise ValueError(
                    "mode into needs the notebook pages go into: into:NOTEBOOK, its id, the "
                    "start of its id or its title (`transcribe-import notebooks` lists them)"
                )
            return cls.into(target.strip())
        if colon:
            raise ValueError(
                f"unknown mode {text!r}: {name} takes nothing after a colon; use one of "
                f"{', '.join(MODES)}"
            )
        return cls(mode)

    def __str__(self) -> str:
        return f"{self.name}:{self.target}" if self.name is ModeName.INTO else str(self.name)


DEFAULT_MODE = AdapterMode(ModeName.FOLDERS)


@dataclass(frozen=True)
class PageRef:
    """A file of a plan item, or one page of a file of several, as a person or a face names it.

    ``file`` is the file's path as validate shows it (or its base name, when that is unique
    in the item); ``number`` is a page's number in its file, from 1, which stays the same
    whatever is left out or moved (None: the whole file). Typed, it reads ``FILE#N``.
    """

    file: str
    number: int | None = None

    @classmethod
    def parse(cls, text: str) -> PageRef:
        """The one reader of a name as typed: ``FILE#N`` (N digits) is page N of FILE, anything
        else a file. A file whose own name ends in ``#N`` is found by the page edits, which
        try the whole text as a file name first (``str(ref)`` gives it back)."""
        base, _, number = text.rpartition("#")
        if base and number.isdigit():
            return cls(base, int(number))
        return cls(text)

    def __str__(self) -> str:
        return self.file if self.number is None else f"{self.file}#{self.number}"


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
    renderer: str | None = None  # lands in project.json too; None: the bag recorded none

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
    # The page's look (media/lookalike.py: ink1: and 144 hex digits, or ink1:blank) for
    # finding rescans; lands as the page's "look". None: not made (a bag's page, a plan made
    # before looks, a decode that failed). Fingerprinted, as all that lands is
    # (docs/formats.md).
    look: str | None = None
    # How far a person turned the page clockwise (planning/page_edits.turn_pages): its render
    # is made upright, its source kept as it is; lands as the page's "turn". Fingerprinted.
    turn: Turn = Turn.NONE


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
    # The resolution the file records, in dots per inch (media/decode.py), None when it
    # records none: "too small to read" (planning/second_look.py) judges by it.
    dpi: float | None = None
    # A copy of a file the corpus holds (a page turned in the corpus, planning/corpus_turns):
    # where that file was first imported from, which its new source records as its own.
    original: str | None = None

    @property
    def name(self) -> str:
        return self.rel.rsplit("/", 1)[-1]

    @property
    def fs_path(self) -> Path:
        """The path to open: exactly the bytes the scan found."""
        # The scan's own Path when made from it (``for_path``): a plan made again asked for
        # each source's three times (the look pass, the rescans' search, validation), and a
        # Path made from text was 9 % of the CPU of 20,000 pages with the one the scan made.
        made = self.__dict__.get("_fs_path")
        if made is not None:
            return made  # type: ignore[no-any-return]
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
        made = cls(path=json_safe(raw), path_b64=b64, **fields)
        # ``fs_path`` of these fields is ``path`` itself (the same bytes): kept, not a field.
        object.__setattr__(made, "_fs_path", path)
        return made


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
    # Pages of a file of several that a person left out (``edits.leave_out_pages``): not
    # imported, kept so they can be taken back. ``pages`` are the ones imported, in the
    # order chosen; a file left out whole is ``excluded`` instead, its pages kept.
    left_out: tuple[PlanPage, ...] = ()

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
    # import_into_notebook only: the sources whose pages go elsewhere than ``placement``,
    # each with its place (source id, place): a notebook completed with pages that fill
    # several gaps (planning/reimport.py). The pages land in blocks (placement.blocks).
    places: tuple[tuple[str, Placement], ...] = ()

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
        planned pages, the CLI's lines, the executor's progress). Counted once per item (it
        is frozen): a window asks it of every notebook at each report and repaint, and a
        notebook of 5,000 pages is a walk of 5,000 sources each time.
        """
        counted = self.__dict__.get("_imported_page_count")
        if counted is None:
            counted = sum(len(s.pages) for s in self.imported_sources())
            object.__setattr__(self, "_imported_page_count", counted)  # not a field
        return counted

    def has_duplicates(self) -> bool:
        """Whether any of its sources is a duplicate (its badge says it skips duplicates),
        found once per item (it is frozen): a window asks it of each notebook on screen at
        each paint before its plan is validated, a walk of a notebook's sources each time."""
        found = self.__dict__.get("_has_duplicates")
        if found is None:
            found = any(s.duplicate is not None for s in self.sources)
            object.__setattr__(self, "_has_duplicates", found)  # not a field
        return bool(found)

    def history_page_count(self) -> int:
        """Of ``imported_page_count``, the pages a bag's notebook keeps in its history (its
        replaced pages, ``Restore.history``): their files land, their records land in the
        notebook's history, not among its pages."""
        if self.restore is None or not self.restore.history:
            return 0
        kept = set(self.restore.history)
        return sum(1 for s in self.imported_sources() for p in s.pages if p.page_id in kept)

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
        doc = [self.to_document(with_fingerprint=False)]
        fingerprint = fingerprint_of(doc[0])
        free_in_slices(doc)  # its document never freed in one long cascade (see there)
        return fingerprint

    def to_document(self, *, with_fingerprint: bool = True) -> dict[str, Any]:
        return plan_document(self, with_fingerprint=with_fingerprint)

    def encode(self) -> bytes:
        return b"".join(self.encode_parts())

    def encode_parts(self) -> list[bytes]:
        """The plan file's bytes in parts, an item a part and a large item's sources a
        source a part (``short_calls.dumps_parts``): a worker writing them leaves a window's
        thread the GIL between them."""
        doc = [self.to_document()]
        parts = dumps_parts(doc[0], "items", inner="sources")
        # Freed in one cascade, the document of 100,000 sources held the GIL 0.28 s at the
        # end of a Save Plan As… while the window waited (bench/bench_gui_shelf.py).
        free_in_slices(doc)
        return parts


# -- the plan as its document (docs/formats.md) ---------------------------------------------


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
        # Not known yet (a plan just made, being saved): the fingerprint of this very
        # document, which is then made once instead of once more for the fingerprint alone.
        known = plan.__dict__.get("fingerprint")  # where ``cached_property`` keeps it
        if known is None:
            known = plan.__dict__["fingerprint"] = fingerprint_of(doc)
        doc["plan_fingerprint"] = known
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


def _ordering_doc(o: Ordering) -> dict[str, Any]:
    doc: dict[str, Any] = {"rule": str(o.rule), "resolved": o.resolved}
    # Only when said, so that every plan made before them keeps its fingerprint.
    doc.update({k: True for k in ("verso_first", "versos_blank") if getattr(o, k)})
    return doc


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
            **({"dpi": p.dpi} if p.dpi is not None else {}),
            **({"original": p.original} if p.original is not None else {}),
        },
    }
    if s.extra:
        doc["extra"] = json_text(s.extra)
    # Only when some are, so that every plan made before keeps its fingerprint.
    if s.left_out:
        doc["left_out_pages"] = [_page_doc(pg) for pg in s.left_out]
    return doc
