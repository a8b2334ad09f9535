"""Checkpointed ingest: an item's sources land in transactions of a bounded number of pages.

A big notebook is not one all-or-nothing transaction: its sources are cut into
checkpoints of at most ``CHECKPOINT_PAGES`` pages, each one ingest transaction
(transaction.py). A longer source (a long PDF) is cut too: its first part lands it
with its first pages, the next parts add pages to it. A stop request, an error or a
crash loses at most the checkpoint in flight; what landed stays. Ids are
preallocated, so a later call with the same request finds the pages that landed in
the notebook's manifest and goes on with the rest: a page that landed is never
rendered again. Why 32 pages: docs/formats.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.ingest.placement import Placement
from transcribe_import.engine.ingest.transaction import (
    IngestCancelled,
    IngestRequest,
    IngestResult,
    NewNotebook,
    SourceSpec,
    ingest,
)
from transcribe_import.engine.media.kinds import RenderSettings
from transcribe_import.engine.storage import fsio, locks, project
from transcribe_import.engine.storage.corpus import Corpus

CHECKPOINT_PAGES = 32


@dataclass(frozen=True)
class Checkpoint:
    """What one checkpoint landed (``earlier``: found in the notebook, landed by a past call)."""

    source_ids: tuple[str, ...]
    pages: int
    skipped_held: tuple[str, ...] = ()
    earlier: bool = False
    last: bool = False  # nothing of the request is left to land after it


def split(sources: Sequence[SourceSpec], max_pages: int) -> list[tuple[SourceSpec, ...]]:
    """Cut sources, in order, into runs of at most ``max_pages`` pages.

    A source with more pages than that (a long PDF) is cut into parts of ``max_pages``
    pages, each carrying the source's whole ``page_count``: the first part lands the
    source with its first pages, the next ones add pages to it (transaction.py).
    """
    parts: list[SourceSpec] = []
    for s in sources:
        if len(s.pages) <= max_pages:
            parts.append(s)
            continue
        total = len(s.pages) if s.page_count is None else s.page_count
        for k in range(0, len(s.pages), max_pages):
            parts.append(dataclasses.replace(s, pages=s.pages[k : k + max_pages], page_count=total))
    out: list[tuple[SourceSpec, ...]] = []
    current: list[SourceSpec] = []
    pages = 0
    for s in parts:
        n = len(s.pages)
        if current and pages + n > max_pages:
            out.append(tuple(current))
            current, pages = [], 0
        current.append(s)
        pages += n
    if current:
        out.append(tuple(current))
    return out


def landed_page_ids(corpus: Corpus, notebook_id: str) -> frozenset[str]:
    """The page ids that landed in the notebook (none if it does not exist yet): the pages
    its manifest lists, and those a rescan replaced since (its ``replaced_pages``)."""
    nb_dir = corpus.notebook_dir(notebook_id)
    if not fsio.exists(nb_dir / project.PROJECT_FILE):
        return frozenset()
    try:
        return project.ids_of(project.read(nb_dir, notebook_id)).landed
    except TranscribeError:
        return frozenset()  # the transaction reads it again under its lock and says why


def _not_landed(sources: Sequence[SourceSpec], have: frozenset[str]) -> list[SourceSpec]:
    """Each source with only its pages the notebook does not list yet (none: left out)."""
    out = []
    for s in sources:
        rest = tuple(p for p in s.pages if p.page_id not in have)
        if len(rest) == len(s.pages):
            out.append(s)
        elif rest:
            total = len(s.pages) if s.page_count is None else s.page_count
            out.append(dataclasses.replace(s, pages=rest, page_count=total))
    return out


def _block_pages(req: IngestRequest, sources: Sequence[SourceSpec]) -> list[str]:
    """The page ids of ``sources`` that land in the request's block, in order: not the
    rescans (each takes the place of the page it replaces), not a restore's history."""
    apart = {new for new, _old in req.replaces} | set(req.history)
    return [p.page_id for s in sources for p in s.pages if p.page_id not in apart]


def _placed_block(req: IngestRequest, have: frozenset[str]) -> str | None:
    """The last page of the request's placed block that landed before (None: none did, or
    the pages go at the end, where each checkpoint appends anyway)."""
    if req.placement is None:
        return None
    landed = [pid for pid in _block_pages(req, req.sources) if pid in have]
    return landed[-1] if landed else None


def ingest_checkpoints(
    corpus: Corpus,
    req: IngestRequest,
    settings: RenderSettings | None = None,
    *,
    create: NewNotebook | None = None,
    max_pages: int = CHECKPOINT_PAGES,
    workers: int = 2,
    lock_timeout: float = locks.INGEST_LOCK_TIMEOUT,
    should_stop: Callable[[], bool] | None = None,
    on_checkpoint: Callable[[Checkpoint], None] | None = None,
) -> IngestResult:
    """Land ``req``'s sources checkpoint by checkpoint; ``on_checkpoint`` hears each one land.

    Sources the notebook already lists (a past call's checkpoints) are reported first,
    as one ``earlier`` checkpoint, and not ingested again. ``create``: the first
    checkpoint creates and registers the notebook (transaction.ingest). A restore
    (``req.page_order``) lands whole, in one checkpoint: it is never merged into pages.
    Placed pages (``req.placement``) land as one block in plan order: the first checkpoint
    at the placement, each next one after the last page that landed before it.
    ``should_stop`` is heard between pages and between checkpoints: IngestCancelled is
    raised with the checkpoint in flight rolled back and every earlier one landed.
    TranscribeError likewise leaves earlier checkpoints in place.
    """
    have = landed_page_ids(corpus, req.notebook_id)
    rest = _not_landed(req.sources, have)
    earlier = [s for s in req.sources if any(p.page_id in have for p in s.pages)]
    if earlier and on_checkpoint is not None:
        on_checkpoint(
            Checkpoint(
                tuple(s.source_id for s in earlier),
                sum(1 for s in earlier for p in s.pages if p.page_id in have),
                earlier=True,
                last=not rest,
            )
        )
    if not rest:
        # Everything landed before; one no-op transaction still completes a registration
        # a crash cut short (boundary 1) and checks the ids under the notebook's lock.
        chunks = [tuple(req.sources)]
    elif req.page_order is not None:
        chunks = [tuple(rest)]
    else:
        chunks = split(rest, max_pages)
    pages_added = 0
    skipped: list[str] = []
    txn_id: str | None = None
    # Placed pages (not at the end) land as one block: a later checkpoint, or a resume,
    # goes on right after the item's last page that landed, wherever that block began.
    following = _placed_block(req, have)
    for k, chunk in enumerate(chunks):
        if k and should_stop is not None and should_stop():
            raise IngestCancelled()
        pages = {p.page_id for s in chunk for p in s.pages}
        part = dataclasses.replace(
            req,
            sources=chunk,
            cover_page_id=req.cover_page_id if req.cover_page_id in pages else None,
            placement=req.placement if following is None else Placement(after_page=following),
        )
        result = ingest(
            corpus,
            part,
            settings,
            workers=workers,
            lock_timeout=lock_timeout,
            should_stop=should_stop,
            create=create,
        )
        txn_id = result.txn_id or txn_id
        pages_added += result.pages_added
        skipped += result.skipped_held
        if req.placement is not None:
            held_now = set(result.skipped_held)
            placed = _block_pages(req, [s for s in chunk if s.source_id not in held_now])
            following = placed[-1] if placed else following
        if rest and on_checkpoint is not None:
            held = set(result.skipped_held)
            on_checkpoint(
                Checkpoint(
                    tuple(s.source_id for s in chunk if s.source_id not in held),
                    sum(len(s.pages) for s in chunk if s.source_id not in held),
                    tuple(result.skipped_held),
                    last=k == len(chunks) - 1,
                )
            )
        if k < len(chunks) - 1:
            crashpoint("ingest.between_checkpoints")
    return IngestResult(
        req.notebook_id, txn_id, not rest, pages_added, tuple(dict.fromkeys(skipped))
    )
