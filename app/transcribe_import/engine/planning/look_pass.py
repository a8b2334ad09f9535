"""The look pass: each JPEG and PDF page's look made after the plan, not during the scan.

A page's look (media/lookalike.py) is what finds rescans (planning/lookalikes.py). For a
JPEG, or a scanner's PDF page holding one JPEG, it needs a decode of its own (libjpeg at
1/4 for a 300 dpi A4 scan, and at 1/2 again for a sparse page's detail: 14-24 ms of CPU an
A4 page, bench/bench_rescans.py), many times the page's sha256. Made in the scan,
it made the plan 7-8 times a walk that hashes every byte (bench/RESULTS.md), so the scan
makes only the looks it gets for nothing (PNG, TIFF, WebP and HEIC pages, which its check
decodes whole anyway) and this pass makes the rest once the plan exists: the window shows
the review at once and the "a rescan?" questions arrive as the pass goes on (its commit
waits for the pass); the command line's ``plan`` runs it before it writes the plan.

Looks are keyed by page (``lookalikes.page_key``: the file's sha256 and the page's index),
so they apply to the plan whatever a person did to it meanwhile (``with_looks``). A file is
read again here and its bytes checked against the plan's sha256: a file changed since the
scan gets no look (its commit refuses it anyway). Looks are derived data: a page whose look
cannot be made is not compared, and nothing else depends on it.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Container, Generator, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path

from transcribe_import.engine.base.background import worker_options
from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.media import check, lookalike
from transcribe_import.engine.media.kinds import JPEG, PDF
from transcribe_import.engine.planning import inks
from transcribe_import.engine.planning.look_cache import LookCache
from transcribe_import.engine.planning.look_progress import LooksMade
from transcribe_import.engine.planning.lookalikes import file_of_key, page_key
from transcribe_import.engine.planning.plan import ImportPlan, PlanItem, PlanPage, PlanSource

log = logging.getLogger(__name__)

# The media types whose looks this pass makes (the scan makes the others' from its check).
PASS_TYPES = frozenset({JPEG, PDF})

# Looks found are handed on at least this often (and at the end), so a window can ask its
# questions as they come without re-validating after every file.
REPORT_INTERVAL_S = 1.0


@dataclass(frozen=True)
class LookJob:
    """One file whose pages need a look: where it is, what it must still be, which pages."""

    path: Path
    sha256: str
    size: int
    media_type: str
    page_count: int  # the file's pages (a PDF's, all of them; a JPEG's, 1)
    page_indexes: tuple[int, ...]  # the pages (0-based) the plan needs a look of

    @property
    def pages(self) -> int:
        return len(self.page_indexes)


def _all_pages(source: PlanSource) -> Iterator[PlanPage]:
    yield from source.pages
    yield from source.left_out


def pending(plan: ImportPlan, known: Container[str] = ()) -> tuple[LookJob, ...]:
    """The files of ``plan`` with a JPEG or PDF page that has no look yet and is not in
    ``known`` (page keys tried already), one job a file however often the plan holds it.

    Files the commit imports come first, then the rest (a file left out, a duplicate), so
    the questions that matter arrive first. A bag's page (its render brought along) is not
    looked at: it lands as the bag describes it."""
    first: dict[str, LookJob] = {}
    later: dict[str, LookJob] = {}
    for item in plan.items:
        for source in item.sources:
            if source.media_type not in PASS_TYPES or source.sha256 in first:
                continue
            wanted = tuple(
                sorted(
                    {
                        p.page_index
                        for p in _all_pages(source)
                        if not lookalike.is_current(p.look)
                        and p.render is None
                        and page_key(source.sha256, p.page_index) not in known
                    }
                )
            )
            if not wanted:
                continue
            count = max((p.page_index for p in _all_pages(source)), default=0) + 1
            job = LookJob(
                source.provenance.fs_path,
                source.sha256,
                source.provenance.size,
                source.media_type,
                count,
                wanted,
            )
            if source.imported:
                later.pop(source.sha256, None)
                first[source.sha256] = job
            else:
                later.setdefault(source.sha256, job)
    return (*first.values(), *later.values())


@dataclass(frozen=True)
class Looked:
    """What ``look_job`` found: the looks of a job's pages (page key → look or None), and
    whether they were made from the plan's bytes (``made``: False when the file was gone or
    changed since the scan, so its Nones say nothing about the page and are not kept)."""

    looks: dict[str, str | None]
    made: bool
    # The pages' inks, packed, when a worker process made them (``send_inks``).
    packed_inks: dict[str, inks.Packed] = field(default_factory=dict)


def look_job(job: LookJob, *, keep_inks: bool = True, send_inks: bool = False) -> Looked:
    """The looks of ``job``'s pages, each None when it cannot be made: the file gone,
    changed since the scan (its bytes are not the plan's), or not decodable.

    ``keep_inks``: each page's ink (and a sparse page's detail, which needs a second,
    larger decode) is made and kept for the verifications to come (``inks.keep``); without
    it only what the look is made of is (the ink at ``ink.SIDE``): the same look, less work,
    and a verification makes the ink of the pages it asks about from their files.
    ``send_inks``: each page's ink is made likewise and returned packed
    (``Looked.packed_inks``), for a worker process to send to the process that keeps them."""
    none: dict[str, str | None] = {page_key(job.sha256, i): None for i in job.page_indexes}
    try:
        read = check.read_once(job.path, size=job.size)
    except OSError:
        return Looked(none, made=False)
    if read.sha256 != job.sha256:
        return Looked(none, made=False)
    seen = lookalike.page_seen(
        job.path,
        job.media_type,
        job.page_count,
        size=job.size,
        data=read.data,
        any_type=False,
        detail=keep_inks or send_inks,
    )
    looks: dict[str, str | None] = {}
    sent: dict[str, inks.Packed] = {}
    for i in job.page_indexes:
        key = page_key(job.sha256, i)
        page = seen[i] if i < len(seen) else None
        looks[key] = None if page is None else page.kept()
        if page is not None and keep_inks:
            inks.keep(key, page.ink)  # in hand now: a verification need not decode it again
        if page is not None and send_inks:
            sent[key] = inks.packed(page.ink)
    return Looked(looks, made=True, packed_inks=sent)


def look_jobs(jobs: Sequence[LookJob], keep_inks: bool, send_inks: bool = False) -> list[Looked]:
    """``look_job`` of each of ``jobs``, in order: one task of a pass's pool."""
    return [look_job(job, keep_inks=keep_inks, send_inks=send_inks) for job in jobs]


# A pass of at least this many pages runs in worker processes, one a worker: the looks'
# arithmetic (Pillow and numpy on a 512-pixel page, a few ms each) holds the GIL for much
# of its time, so threads used 1.2 of two cores, and processes use both. Below it, threads
# in this process: starting a worker (importing numpy and Pillow) costs some 0.3 s, which
# a small plan would not win back, and its pages' inks are kept for its verifications.
PROCESSES_FROM = 200
# The pages a worker process is handed at a time: enough that sending them and their looks
# back costs little, few enough that a stop waits for at most a few pages a worker.
CHUNK_PAGES = 8


def _chunks(jobs: Sequence[LookJob], pages: int) -> Iterator[tuple[LookJob, ...]]:
    """``jobs`` in order, cut into runs of about ``pages`` pages each."""
    chunk: list[LookJob] = []
    count = 0
    for job in jobs:
        chunk.append(job)
        count += job.pages
        if count >= pages:
            yield tuple(chunk)
            chunk, count = [], 0
    if chunk:
        yield tuple(chunk)


def _pool(workers: int, pages: int) -> tuple[Executor, int, bool]:
    """The pool a pass of ``pages`` pages runs on, the pages of a task, and whether the
    inks are kept where they are made (threads of this process); a worker process sends
    its pages' inks back packed instead (some 15 kB a page), which this process keeps: the
    verifications of a shelf ask for a third of its pages, which would each be decoded a
    second time (bench/RESULTS.md)."""
    if workers > 1 and pages >= PROCESSES_FROM:
        try:
            pool = ProcessPoolExecutor(workers, **worker_options())  # spawned (see there)
        except (OSError, ImportError) as exc:  # no semaphores here (a sandbox): threads
            log.info("the look pass runs on threads: no worker processes (%s)", exc)
        else:
            return pool, CHUNK_PAGES, False
    return ThreadPoolExecutor(max(1, workers), thread_name_prefix="looks"), 1, True


def _kept_apart(
    jobs: Sequence[LookJob], kept: Mapping[str, str | None]
) -> tuple[dict[str, str | None], list[LookJob]]:
    """The looks of ``jobs``' pages found in ``kept`` (a look cache), and the jobs of the
    pages that are not, each with only those pages."""
    found: dict[str, str | None] = {}
    rest: list[LookJob] = []
    for job in jobs:
        left = []
        for i in job.page_indexes:
            key = page_key(job.sha256, i)
            if key in kept:
                found[key] = kept[key]
            else:
                left.append(i)
        if len(left) == job.pages:
            rest.append(job)
        elif left:
            rest.append(replace(job, page_indexes=tuple(left)))
    return found, rest


def make_looks(
    jobs: Sequence[LookJob],
    *,
    workers: int = 2,
    should_stop: Callable[[], bool] | None = None,
    cache: LookCache | None = None,
) -> Generator[LooksMade, None, bool]:
    """Make the looks of ``jobs`` on ``workers`` workers (processes for a large pass,
    threads for a small one: ``PROCESSES_FROM``), yielding how many pages there are first
    (with the looks ``cache`` kept of them already), then what was found at least every
    ``REPORT_INTERVAL_S``, and once at the end (a report that ``finished``); returns
    whether every job was done (False: ``should_stop`` turned true, asked as each task is
    done; the looks found until then were yielded). Tasks are taken up in the jobs' order
    and their looks handed on and kept in ``cache`` in that order, whatever worker was
    quicker, so a pass gives the same reports and the same cache from the same jobs."""
    total = sum(job.pages for job in jobs)
    found: dict[str, str | None] = {}
    if cache is not None and jobs:
        found, jobs = _kept_apart(jobs, cache.read(_page_keys(jobs)))
    done = len(found)
    reported = time.monotonic()
    stopped = False
    if total:
        # How many there are, before the first file is done, and those already known.
        yield LooksMade(found, done, total)
        found = {}
    pool, chunk_pages, keep_inks = _pool(workers, sum(job.pages for job in jobs))
    tasks = _chunks(jobs, chunk_pages)
    with pool:
        running: deque[tuple[Future[list[Looked]], tuple[LookJob, ...]]] = deque()

        def top_up() -> None:
            while len(running) < 2 * max(1, workers) and not stopped:
                chunk = next(tasks, None)
                if chunk is None:
                    return
                try:
                    future = pool.submit(look_jobs, chunk, keep_inks, not keep_inks)
                except BrokenProcessPool:  # its workers died: the rest is made here
                    future = Future()
                    future.set_result(look_jobs(chunk, keep_inks=False))
                running.append((future, chunk))

        top_up()
        while running:
            future, chunk = running[0]
            if wait([future], timeout=0.05).done:
                running.popleft()
                for looked, job in zip(_result(future, chunk), chunk, strict=True):
                    found.update(looked.looks)
                    for key, packed in looked.packed_inks.items():
                        inks.keep_packed(key, packed)
                    if looked.made and cache is not None:
                        # Kept as each file is done: a pass stopped or killed part-way
                        # keeps the looks made so far, and the next decodes only the rest.
                        cache.add(looked.looks)
                        crashpoint("looks.kept")
                    done += job.pages
            if not stopped and should_stop is not None and should_stop():
                stopped = True
                for waiting, _chunk in running:
                    waiting.cancel()  # not begun: dropped; begun: done, its looks yielded
            top_up()
            if stopped:
                running = deque(item for item in running if not item[0].cancelled())
            now = time.monotonic()
            if found and (now - reported >= REPORT_INTERVAL_S or not running):
                yield LooksMade(found, done, total)
                found, reported = {}, now
    if stopped:
        return False
    if total == 0 or found:
        yield LooksMade(found, done, total)
    return True


def _page_keys(jobs: Sequence[LookJob]) -> set[str]:
    return {page_key(job.sha256, i) for job in jobs for i in job.page_indexes}


def _result(future: Future[list[Looked]], chunk: tuple[LookJob, ...]) -> list[Looked]:
    """A task's looks; made here when its worker process died (killed, out of memory), so
    a pass ends with every look whatever became of its workers."""
    try:
        return future.result()
    except BrokenProcessPool:
        return look_jobs(chunk, keep_inks=False)


def with_looks(plan: ImportPlan, looks: Mapping[str, str | None]) -> ImportPlan:
    """``plan`` with each page that has no look given its look from ``looks`` (by page key);
    ``plan`` itself when none is given one."""
    items = tuple(item_with_looks(item, looks) for item in plan.items)
    if all(new is old for new, old in zip(items, plan.items, strict=True)):
        return plan
    return replace(plan, items=items)


def item_with_looks(item: PlanItem, looks: Mapping[str, str | None]) -> PlanItem:
    """``item`` with its pages' looks from ``looks`` (``with_looks``); ``item`` itself when
    none is given one."""
    if not looks:
        return item
    sources = tuple(_source_with_looks(s, looks) for s in item.sources)
    if all(new is old for new, old in zip(sources, item.sources, strict=True)):
        return item
    return replace(item, sources=sources)


def _source_with_looks(source: PlanSource, looks: Mapping[str, str | None]) -> PlanSource:
    if source.media_type not in PASS_TYPES:
        return source

    def stamped(pages: tuple[PlanPage, ...]) -> tuple[PlanPage, ...]:
        out = []
        for p in pages:
            look = (
                None
                if lookalike.is_current(p.look)
                else looks.get(page_key(source.sha256, p.page_index))
            )
            out.append(p if look is None else replace(p, look=look))
        return pages if all(a is b for a, b in zip(out, pages, strict=True)) else tuple(out)

    pages, left_out = stamped(source.pages), stamped(source.left_out)
    if pages is source.pages and left_out is source.left_out:
        return source
    return replace(source, pages=pages, left_out=left_out)


class LookStamps:
    """Stamps the looks a pass finds on the items of the plan it looks at, one item at a
    time, at a cost that grows with the looks stamped and not with the plan.

    ``with_looks`` walks every page of a plan: 0.3-0.7 s for 100,000 sources, and a window
    stamps every few seconds. This knows which items hold each file (made once, where the
    pass runs) and keeps each item as last stamped, so ``stamp`` rebuilds only the items
    the looks are of and says which, as (the item before, the item after): a window puts
    ``after`` in its plan where it still holds ``before`` (``ImportSession.add_looks``) and
    stamps any other item itself (one a person edited meanwhile).
    """

    def __init__(self, plan: ImportPlan) -> None:
        self._items = {item.item_id: item for item in plan.items}
        self._holding: dict[str, list[str]] = {}  # a file's sha256 → the items with it
        for item in plan.items:
            for source in item.sources:
                if source.media_type in PASS_TYPES:
                    ids = self._holding.setdefault(source.sha256, [])
                    if not ids or ids[-1] != item.item_id:
                        ids.append(item.item_id)

    def stamp(self, looks: Mapping[str, str | None]) -> dict[str, tuple[PlanItem, PlanItem]]:
        """The items ``looks`` change (item id → (before, after)), each ``item_with_looks``
        of the item as this last stamped it (the plan's own at first)."""
        ids = dict.fromkeys(
            item_id for key in looks for item_id in self._holding.get(file_of_key(key), ())
        )
        changed: dict[str, tuple[PlanItem, PlanItem]] = {}
        for item_id in ids:
            before = self._items[item_id]
            after = item_with_looks(before, looks)
            if after is not before:
                changed[item_id] = (before, after)
                self._items[item_id] = after
        return changed
