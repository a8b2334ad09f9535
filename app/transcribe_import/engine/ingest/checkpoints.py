"""Checkpointed ingest: an item's sources land in transactions of a few seconds' work each.

A big notebook is not one all-or-nothing transaction: its sources are cut into
checkpoints, each one ingest transaction (transaction.py), sized by the work they stage:
as many pages as the pace measured so far (``Pace``) stages in ``CHECKPOINT_SECONDS``,
before any is timed as many as hold that many seconds of source bytes
(``STAGED_BYTES_PER_SECOND``), and never more than ``CHECKPOINT_PAGES``. A longer
source (a long PDF) is cut too: its first part lands it with its first pages, the next
parts add pages to it. A crash or an error loses at most the checkpoint in flight; a
pause lets it land when little of it is left, or less than rolling it back would lose
(``PAUSE_GRACE_SECONDS``); what landed stays. Ids are preallocated, so a later call with
the same request finds the pages that landed in the notebook's manifest and goes on with
the rest, however the checkpoints were cut before: a page that landed is never rendered
again. Why these sizes: docs/formats.md.
"""

from __future__ import annotations

import dataclasses
import math
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.ingest.placement import Placement, blocks
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

CHECKPOINT_PAGES = 32  # the most pages one checkpoint holds, however fast they are
CHECKPOINT_SECONDS = 4.0  # the staging work a checkpoint is cut to: the most a crash loses
# Set in seconds, it replaces CHECKPOINT_SECONDS (the tests that count checkpoints of exactly
# 32 pages set it high, so a busy machine's pace does not change what they count).
ENV_CHECKPOINT_SECONDS = "TRANSCRIBE_CHECKPOINT_SECONDS"
# Before a checkpoint was timed: the source bytes a second of staging is taken to be. A
# lane's first checkpoint is cut by it, then timed: a guess for a busy machine (A4 300-dpi
# JPEG scans of 1.6 MB take 0.2 s each on two idle threads here, ten times that when the
# machine is shared), so a first checkpoint of such scans is 5 pages, not 20.
STAGED_BYTES_PER_SECOND = 2 * 1024 * 1024
# A pause lets the checkpoint in flight land when its pages left take at most this long, or
# at most as long as it has staged (rolling it back would lose more than waiting), up to
# twice this: so on a busy machine, where the smallest checkpoint (a page per staging
# thread) takes longer than CHECKPOINT_SECONDS, a pause loses and waits about half of one.
PAUSE_GRACE_SECONDS = 2.0


@dataclass(frozen=True)
class Checkpoint:
    """What one checkpoint landed (``earlier``: found in the notebook, landed by a past call)."""

    source_ids: tuple[str, ...]
    pages: int
    skipped_held: tuple[str, ...] = ()
    earlier: bool = False
    last: bool = False  # nothing of the request is left to land after it


def _now() -> float:
    """The clock checkpoints are timed by (one place, so a test can drive it)."""
    return time.monotonic()


class Pace:
    """How long a page takes to land here, as the checkpoints timed so far measured it.

    One per thread of work (an import run's lane): the checkpoints of its items share it,
    so only the first is sized by bytes. Not frozen: it learns as checkpoints land.
    """

    def __init__(self) -> None:
        self.seconds_per_page: float | None = None

    def observe(self, pages: int, seconds: float) -> None:
        """A checkpoint of ``pages`` pages took ``seconds``, staging to landing."""
        if pages <= 0:
            return
        now = seconds / pages
        # Half the last one, half before: a busier machine shows within two checkpoints.
        old = self.seconds_per_page
        self.seconds_per_page = now if old is None else (old + now) / 2

    def budget(self, max_pages: int, least: int = 1) -> tuple[int, float | None]:
        """The next checkpoint's most pages and source bytes (None: bytes do not count).

        Never fewer than ``least`` pages (the staging threads: a checkpoint of one page on a
        busy machine would leave the second thread idle, halving the pace it measures), and
        cut by the time, whole rounds of them (``take_checkpoint``'s rule for the bytes)."""
        seconds = checkpoint_seconds()
        if self.seconds_per_page is None:
            return max_pages, seconds * STAGED_BYTES_PER_SECOND
        fit = int(min(float(max_pages), seconds / max(self.seconds_per_page, 1e-6)))
        if least < fit < max_pages:
            fit -= fit % least
        return max(1, min(least, max_pages), fit), None


def checkpoint_seconds() -> float:
    """The work a checkpoint is cut to: ``ENV_CHECKPOINT_SECONDS`` when it is a positive
    number of seconds, else ``CHECKPOINT_SECONDS``."""
    raw = os.environ.get(ENV_CHECKPOINT_SECONDS, "").strip()
    try:
        value = float(raw) if raw else CHECKPOINT_SECONDS
    except ValueError:
        return CHECKPOINT_SECONDS
    return value if math.isfinite(value) and value > 0 else CHECKPOINT_SECONDS


def _page_bytes(s: SourceSpec) -> float:
    """One page's share of its source's bytes (0: its size is not known)."""
    if not s.size:
        return 0.0
    total = len(s.pages) if s.page_count is None else s.page_count
    return s.size / max(1, total)


def take_checkpoint(
    queue: deque[SourceSpec],
    max_pages: int,
    max_bytes: float | None = None,
    threads: int = 1,
) -> tuple[SourceSpec, ...]:
    """Take the next checkpoint's sources off the head of ``queue``, in order.

    Whole sources while they fit in ``max_pages`` pages and ``max_bytes`` source bytes
    (None: any). A source that does not fit in an empty checkpoint (a long PDF) is cut:
    this checkpoint takes its first pages, each part carrying the source's whole
    ``page_count`` (transaction.py), and the rest stays at the head of the queue.
    ``threads``: the staging threads, each staging a source at a time; a checkpoint cut
    short of ``max_pages`` (by the bytes) is cut to whole rounds of them (``_whole_rounds``).
    """
    chunk = _fill(queue, max_pages, max_bytes)
    # The last checkpoint takes what is left: a checkpoint of its few sources would cost more.
    short = queue and sum(len(s.pages) for s in chunk) < max_pages
    extra = _whole_rounds(chunk, threads) if short else ()
    queue.extendleft(reversed(extra))
    return chunk[: len(chunk) - len(extra)]


def _whole_rounds(chunk: tuple[SourceSpec, ...], threads: int) -> tuple[SourceSpec, ...]:
    """The sources past the checkpoint's last whole round of ``threads`` (none when it has
    no more than ``threads``): left for the next checkpoint, so no staging thread waits idle
    at this one's tail while another stages a last source alone (5 scans on two threads
    take three rounds, as 6 do)."""
    extra = len(chunk) % threads if len(chunk) > threads else 0
    return chunk[len(chunk) - extra :] if extra else ()


def _fill(
    queue: deque[SourceSpec], max_pages: int, max_bytes: float | None
) -> tuple[SourceSpec, ...]:
    """``take_checkpoint``'s sources before its rounds are made whole."""
    chunk: list[SourceSpec] = []
    pages = 0
    size = 0.0
    while queue:
        s = queue[0]
        per = _page_bytes(s)
        fits = max_pages - pages
        if max_bytes is not None and per > 0:
            fits = min(fits, math.floor((max_bytes - size) / per))
        if len(s.pages) <= fits:
            chunk.append(queue.popleft())
            pages += len(s.pages)
            size += per * len(s.pages)
            continue
        if not chunk:
            n = max(1, fits)
            total = len(s.pages) if s.page_count is None else s.page_count
            chunk.append(dataclasses.replace(s, pages=s.pages[:n], page_count=total))
            queue[0] = dataclasses.replace(s, pages=s.pages[n:], page_count=total)
        break
    return tuple(chunk)


def split(sources: Sequence[SourceSpec], max_pages: int) -> list[tuple[SourceSpec, ...]]:
    """Cut sources, in order, into checkpoints of at most ``max_pages`` pages each
    (``take_checkpoint`` with no bytes bound)."""
    queue = deque(sources)
    out = []
    while queue:
        out.append(take_checkpoint(queue, max_pages))
    return out


class _InFlight:
    """One checkpoint while it stages: its pages staged so far, and whether a stop stops it.

    A stop request (``should_stop``: a cancel, an error) rolls it back at the next page. A
    pause (``should_pause``) does too, unless the pages left would take at most
    ``PAUSE_GRACE_SECONDS``, or at most the time it has staged (up to twice the grace), as
    ``seconds_left`` judges them: then it lands, and the pause is heard after it. Decided
    once, at the first check that hears the pause; checks come from the staging threads.
    """

    def __init__(
        self,
        pages: int,
        pace: Pace,
        should_stop: Callable[[], bool] | None,
        should_pause: Callable[[], bool] | None,
        on_staged: Callable[[int], None] | None,
    ) -> None:
        self.pages = pages
        self.pace = pace
        self.started = _now()
        self.staged = 0
        self._should_stop = should_stop
        self._should_pause = should_pause
        self._on_staged = on_staged
        self._stops: bool | None = None
        self._lock = threading.Lock()

    def source_staged(self, pages: int) -> None:
        self.staged += pages
        if self._on_staged is not None:
            self._on_staged(self.staged)

    def seconds_left(self, elapsed: float) -> float:
        """The time its pages left would take: by the pace its staged pages showed, or by
        the lane's pace from its start, whichever says less (the first counts the pages being
        staged now as not begun, so a checkpoint of a page per thread with one page staged
        looks as far from landing as it has come; the second knows they have run)."""
        left = math.inf  # nothing timed yet: rolling back loses the least
        if self.staged:
            left = (self.pages - self.staged) * elapsed / self.staged
        if self.pace.seconds_per_page is not None:
            left = min(left, max(0.0, self.pages * self.pace.seconds_per_page - elapsed))
        return left

    def lands_on_pause(self) -> bool:
        """Whether a pause heard now lets this checkpoint land: what waiting costs against
        what rolling back loses (the class's docstring)."""
        if self.staged >= self.pages:
            return True  # nothing left to wait for
        elapsed = _now() - self.started
        wait = max(PAUSE_GRACE_SECONDS, min(elapsed, 2 * PAUSE_GRACE_SECONDS))
        return self.seconds_left(elapsed) < wait  # no grace: never waits

    def stops(self) -> bool:
        if self._should_stop is not None and self._should_stop():
            return True
        if self._should_pause is None or not self._should_pause():
            return False
        with self._lock:
            if self._stops is None:
                self._stops = not self.lands_on_pause()
            return self._stops


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
    should_pause: Callable[[], bool] | None = None,
    between: Callable[[], None] | None = None,
    pace: Pace | None = None,
    on_staged: Callable[[int], None] | None = None,
    on_checkpoint: Callable[[Checkpoint], None] | None = None,
) -> IngestResult:
    """Land ``req``'s sources checkpoint by checkpoint; ``on_checkpoint`` hears each one land.

    Sources the notebook already lists (a past call's checkpoints) are reported first,
    as one ``earlier`` checkpoint, and not ingested again. ``create``: the first
    checkpoint creates and registers the notebook (transaction.ingest). A restore
    (``req.page_order``) lands whole, in one checkpoint: it is never merged into pages.
    Placed pages (``req.placement``) land as one block in plan order: the first checkpoint
    at the placement, each next one after the last page that landed before it. Pages with
    places of their own (``req.places``) land block by block (``placement.blocks``), each
    so, a checkpoint never holding pages of two blocks.
    Each checkpoint is cut as ``pace`` (a new one if None) sizes it, and times it when it
    lands. ``on_staged`` hears the pages of the checkpoint in flight staged so far (a
    source at a time). ``should_stop`` is heard between pages and between checkpoints:
    IngestCancelled is raised with the checkpoint in flight rolled back and every earlier
    one landed. ``should_pause`` likewise, except that a checkpoint nearly staged lands
    first (``_InFlight``). ``between`` is called between checkpoints, before either is
    heard there, and may wait (a run held while a person is asked whether to stop).
    TranscribeError leaves earlier checkpoints in place.
    """
    pace = pace if pace is not None else Pace()
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
    lands = _Landing(
        corpus,
        settings,
        create,
        max_pages,
        workers,
        lock_timeout,
        should_stop,
        should_pause,
        between,
        pace,
        on_staged,
        on_checkpoint,
    )
    # Everything landed before: one no-op transaction still completes a registration a
    # crash cut short (boundary 1) and checks the ids under the notebook's lock. A
    # restore is one checkpoint.
    if not rest:
        whole = dataclasses.replace(req, places=())
        return lands.block(whole, [], have, whole=tuple(req.sources), last=True)
    if req.page_order is not None:
        return lands.block(req, rest, have, whole=tuple(rest), last=True)
    # Pages placed in several places (req.places) land block by block, each at its place
    # and, on a resume, after its own pages that landed before.
    parts = _blocks(req, rest)
    results = []
    for k, (part, part_rest) in enumerate(parts):
        if k and between is not None:
            between()
        if k and _heard(should_stop, should_pause):
            raise IngestCancelled()
        results.append(lands.block(part, part_rest, have, last=k == len(parts) - 1))
        if k < len(parts) - 1:
            crashpoint("ingest.between_checkpoints")
    txn_ids = [r.txn_id for r in results if r.txn_id is not None]
    return IngestResult(
        req.notebook_id,
        txn_ids[-1] if txn_ids else None,
        False,
        sum(r.pages_added for r in results),
        tuple(dict.fromkeys(sid for r in results for sid in r.skipped_held)),
    )


def _blocks(
    req: IngestRequest, rest: Sequence[SourceSpec]
) -> list[tuple[IngestRequest, list[SourceSpec]]]:
    """The request cut into one request per block of pages (``placement.blocks``), each
    with its sources not landed yet; a block that landed whole before is left out."""
    by_id = {s.source_id: s for s in req.sources}
    left = {s.source_id: s for s in rest}
    out = []
    for where, ids in blocks([s.source_id for s in req.sources], req.placement, req.places):
        todo = [left[sid] for sid in ids if sid in left]
        if todo:
            part = dataclasses.replace(
                req, sources=tuple(by_id[sid] for sid in ids), placement=where, places=()
            )
            out.append((part, todo))
    return out


@dataclass
class _Landing:
    """What ``ingest_checkpoints`` lands each block of pages with."""

    corpus: Corpus
    settings: RenderSettings | None
    create: NewNotebook | None
    max_pages: int
    workers: int
    lock_timeout: float
    should_stop: Callable[[], bool] | None
    should_pause: Callable[[], bool] | None
    between: Callable[[], None] | None
    pace: Pace
    on_staged: Callable[[int], None] | None
    on_checkpoint: Callable[[Checkpoint], None] | None

    def block(
        self,
        req: IngestRequest,
        rest: Sequence[SourceSpec],
        have: frozenset[str],
        *,
        whole: tuple[SourceSpec, ...] | None = None,
        last: bool,
    ) -> IngestResult:
        """Land one block's sources not landed yet (``rest``), checkpoint by checkpoint,
        at ``req.placement`` (``whole``: in one checkpoint); ``last``: no block follows."""
        pace = self.pace
        queue = deque(rest if whole is None else ())
        pages_added = 0
        skipped: list[str] = []
        txn_id: str | None = None
        # Placed pages (not at the end) land as one block: a later checkpoint, or a resume,
        # goes on right after the block's last page that landed, wherever that block began.
        following = _placed_block(req, have)
        first = True
        while first or queue:
            if not first and self.between is not None:
                self.between()
            if not first and _heard(self.should_stop, self.should_pause):
                raise IngestCancelled()
            if whole is not None:
                chunk = whole
            else:
                chunk = take_checkpoint(
                    queue, *pace.budget(self.max_pages, self.workers), self.workers
                )
            first = False
            pages = {p.page_id for s in chunk for p in s.pages}
            part = dataclasses.replace(
                req,
                sources=chunk,
                cover_page_id=req.cover_page_id if req.cover_page_id in pages else None,
                placement=req.placement if following is None else Placement(after_page=following),
            )
            flight = _InFlight(
                len(pages), pace, self.should_stop, self.should_pause, self.on_staged
            )
            result = ingest(
                self.corpus,
                part,
                self.settings,
                workers=self.workers,
                lock_timeout=self.lock_timeout,
                should_stop=flight.stops,
                on_source_staged=flight.source_staged,
                create=self.create,
            )
            if result.txn_id is not None:
                pace.observe(result.pages_added, _now() - flight.started)
            txn_id = result.txn_id or txn_id
            pages_added += result.pages_added
            skipped += result.skipped_held
            if req.placement is not None:
                held_now = set(result.skipped_held)
                placed = _block_pages(req, [s for s in chunk if s.source_id not in held_now])
                following = placed[-1] if placed else following
            if rest and self.on_checkpoint is not None:
                held = set(result.skipped_held)
                self.on_checkpoint(
                    Checkpoint(
                        tuple(s.source_id for s in chunk if s.source_id not in held),
                        sum(len(s.pages) for s in chunk if s.source_id not in held),
                        tuple(result.skipped_held),
                        last=last and not queue,
                    )
                )
            if queue:
                crashpoint("ingest.between_checkpoints")
        return IngestResult(
            req.notebook_id, txn_id, not rest, pages_added, tuple(dict.fromkeys(skipped))
        )


def _heard(*asks: Callable[[], bool] | None) -> bool:
    """Whether any of the stop requests is made (between checkpoints, a pause stops too)."""
    return any(ask is not None and ask() for ask in asks)
