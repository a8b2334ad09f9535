"""What one ingest transaction is asked to do (its sources, pages and ids) and what it answers."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.ids import check_id
from transcribe_import.engine.ingest.placement import Placement, blocks
from transcribe_import.engine.media.kinds import MEDIA_EXTENSIONS, RenderSettings, Turn


@dataclass(frozen=True)
class RenderSpec:
    """A render to copy as it is (a bag's), with the sha256 it must have; not rendered."""

    path: Path
    sha256: str
    width: int
    height: int
    size: int | None = None  # the planned size: no more is ever read (fsio.open_regular)
    renderer: str | None = None  # what made it, as the bag records it (storage.project)


@dataclass(frozen=True)
class PageSpec:
    page_id: str
    render_id: str
    page_index: int
    render: RenderSpec | None = None  # None: rendered from the source
    # Keys for the page's project.json entry beyond the importer's own (a bag's labels...).
    extra: Mapping[str, Any] | None = field(default=None, hash=False)
    label: str | None = None  # the plan's page label ("12v"): the entry's "label"
    look: str | None = None  # the plan page's look (media/lookalike.py): the entry's "look"
    turn: Turn = Turn.NONE  # a person's turn of the page: rendered turned, the entry's "turn"


@dataclass(frozen=True)
class SourceSpec:
    """One source file to add, with the sha256 the plan saw and its preallocated ids."""

    source_id: str
    path: Path
    sha256: str
    media_type: str
    pages: tuple[PageSpec, ...]
    provenance: Mapping[str, Any] = field(default_factory=dict)
    # Keys for the source's project.json entry beyond the importer's own (a bag's).
    extra: Mapping[str, Any] | None = field(default=None, hash=False)
    # The pages the import takes from the source in all, when ``pages`` are only some of them
    # (a long source landed over several checkpoints); None: all of them are here.
    page_count: int | None = None
    size: int | None = None  # the planned size: no more is ever read (fsio.open_regular)


@dataclass(frozen=True)
class IngestRequest:
    notebook_id: str
    sources: tuple[SourceSpec, ...]
    import_run_id: str | None = None
    item_id: str | None = None
    cover_page_id: str | None = None  # set only if the notebook has no cover yet
    # A restore (a bag's notebook): the pages land in this order (it may interleave
    # sources), and only into a notebook that holds no other page, so nothing is merged.
    page_order: tuple[str, ...] | None = None
    # skip_existing: a source whose bytes the notebook already holds (as another source) is
    # left out, judged under the notebook lock, so two imports racing into one notebook
    # with the same files never both land them.
    skip_held: bool = False
    # Where the new pages go (ingest/placement.py; None: at the end), checked again under
    # the notebook's lock, and the pages they replace: (new page id, page id it replaces).
    placement: Placement | None = None
    replaces: tuple[tuple[str, str], ...] = ()
    # The sources whose pages go elsewhere than ``placement``: (source id, their place). The
    # pages land block by block (placement.blocks, checkpoints.py), never one transaction
    # for two blocks: the transaction itself lands one block, at ``placement``.
    places: tuple[tuple[str, Placement], ...] = ()
    # A restore's pages that a rescan had replaced in the bag's notebook: their files land,
    # their records are the bag's ``replaced_pages`` (which ``NewNotebook.extra`` carries).
    history: tuple[str, ...] = ()


@dataclass(frozen=True)
class NewNotebook:
    """The notebook an ingest creates with its first pages (a ``create_notebook`` item's).

    ``extra``: keys for its project.json beyond the importer's own (a bag's manifest).
    """

    title: str
    import_run_id: str | None = None
    extra: Mapping[str, Any] | None = field(default=None, hash=False)


@dataclass(frozen=True)
class IngestResult:
    notebook_id: str
    txn_id: str | None
    already_present: bool
    pages_added: int
    skipped_held: tuple[str, ...] = ()  # source ids left out: the notebook held their bytes


class IngestCancelled(Exception):
    """The caller asked to stop while staging; the transaction was rolled back."""


@dataclass(frozen=True)
class Work:
    """How the caller wants this transaction run, handed down each of its steps."""

    settings: RenderSettings
    workers: int  # sources staged at once
    lock_timeout: float  # how long to wait for the notebook's ingest lock
    should_stop: Callable[[], bool] | None
    on_source_staged: Callable[[int], None] | None  # a source staged: its pages
    thumbnails: Path | None = None  # the corpus's thumbnail cache, filled from the renders


def check_request(req: IngestRequest) -> None:
    check_id(req.notebook_id, "notebook_id")
    for opt, what in ((req.import_run_id, "import_run_id"), (req.item_id, "item_id")):
        if opt is not None:
            check_id(opt, what)
    if not req.sources:
        raise ValueError("an ingest needs at least one source")
    seen: set[str] = set()
    for s in req.sources:
        if s.media_type not in MEDIA_EXTENSIONS:
            raise TranscribeError(
                ErrorCode.UNSUPPORTED_MEDIA,
                f"{s.path}: media type {s.media_type} is not supported",
                path=str(s.path),
            )
        ids = [s.source_id] + [i for p in s.pages for i in (p.page_id, p.render_id)]
        for i in ids:
            check_id(i, "id")
            if i in seen:
                raise TranscribeError(ErrorCode.ID_CONFLICT, f"id {i} appears twice in one ingest")
            seen.add(i)
    replaced = [old for _new, old in req.replaces]
    for old in replaced:
        check_id(old, "replaced page id")
    if len(set(replaced)) != len(replaced) or seen & set(replaced):
        raise ValueError("an ingest replaces each page at most once, never by one of its own")
    if len(blocks([s.source_id for s in req.sources], req.placement, req.places)) > 1:
        # The journal records one place for a transaction's pages (its anchor).
        raise ValueError("one ingest transaction lands one block of pages (ingest_checkpoints)")
