"""Commit an ImportRun: execute its items, record each outcome, end in exactly the right status.

One executor per run: the run lock is held for the whole execution and every
record write is fenced by ``attempt`` (store.py). Items of one notebook run one
after another (at most one ingest transaction per notebook); different notebooks
run in parallel on ``workers`` threads. An item's sources land in checkpoints of a
few seconds' work, sized by each lane's pace (engine/ingest/checkpoints.py): as pages
are staged a PAGES_STAGED event counts them, after each checkpoint but its last the
item's pending outcome records what landed, and a PAGES_LANDED event counts the pages.
Cancelling stops pending items and never rolls back what landed; holding (while a person
is asked whether to stop) starts no item and lets no notebook past its next checkpoint
until the answer; pausing stops at the next safe point (between pages, or after a
checkpoint nearly staged) and leaves the run resumable, losing at most the checkpoint in
flight. Events are delivered from the executor's threads: a GUI must marshal them to its
own thread.

About 600 lines, over the usual 500: the lanes, the duplicates lock, the stop and fence
checks and the one decision of how a run ends (``execute_run``) share the executor's
state, and splitting them would hand that state across modules. What is not about
executing (binding a plan to a run, cancelling a dead run, recovering its journals) lives
in ``service.py``.
"""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from transcribe_import.engine.base.clock import utc_now
from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.findings import FindingCode
from transcribe_import.engine.base.text import agreeing, counted
from transcribe_import.engine.ingest.checkpoints import Checkpoint, Pace, ingest_checkpoints
from transcribe_import.engine.ingest.transaction import (
    IngestCancelled,
    IngestRequest,
    PageSpec,
    RenderSpec,
    SourceSpec,
)
from transcribe_import.engine.media.kinds import RenderSettings
from transcribe_import.engine.planning.dedupe import (
    CorpusHashIndex,
    classify,
    corpus_index_for,
    duplicates_lock,
    notebook_hashes,
)
from transcribe_import.engine.planning.plan import (
    Duplicate,
    DuplicatePolicy,
    ImportPlan,
    Op,
    PageRender,
    PlanItem,
    PlanSource,
)
from transcribe_import.engine.planning.scan_cache import ScanCache
from transcribe_import.engine.runs.incomplete import pages_by_run_item
from transcribe_import.engine.runs.model import (
    AttemptSuperseded,
    EventKind,
    ItemOutcome,
    ItemState,
    RunControl,
    RunEvent,
    RunRecord,
    RunResult,
    RunStatus,
    SkipReason,
    settle_unfinished,
    terminal_status,
)
from transcribe_import.engine.runs.service import (
    new_notebook_for,
    recover_dead_journals,
    skipped_source,
)
from transcribe_import.engine.runs.store import RunStore, run_short_ids
from transcribe_import.engine.storage import fsio, locks, project

if TYPE_CHECKING:
    from transcribe_import.engine.storage.corpus import Corpus

# Errors that concern the machine, not one item: a full or read-only disk, an I/O error, a
# corpus or notebook held too long by another process (an undo of a run moving its files, or
# another import). The run is interrupted (resumable) and says why, instead of failing item
# after item, whether it happens before the first item or during one.
RUN_INTERRUPTING = frozenset(
    {
        ErrorCode.DISK_FULL,
        ErrorCode.IO_ERROR,
        ErrorCode.PERMISSION_DENIED,
        ErrorCode.READ_ONLY,
        ErrorCode.CORPUS_BUSY,
        ErrorCode.NOTEBOOK_BUSY,
    }
)


# How often a held run looks for a cancel from another process (`cancel RUN_ID`).
HELD_POLL_S = 0.5


class _Stop(Exception):
    pass


class _ItemPages:
    """One item's pages as its execution goes: those the run's progress counts (``carried``:
    every page of it in the notebook, whoever landed it) and, as the notebook holds them,
    this run's (``ours``) and other runs' (``already_in``: a retry finds them)."""

    def __init__(self) -> None:
        self.carried = 0
        self.ours = 0
        self.already_in = 0


class _Executor:
    def __init__(
        self,
        corpus: Corpus,
        store: RunStore,
        plan: ImportPlan,
        record: RunRecord,
        control: RunControl,
        on_event: Callable[[RunEvent], None] | None,
        settings: RenderSettings,
        workers: int,
    ) -> None:
        self.corpus = corpus
        self.store = store
        self.plan = plan
        self.run_id = record.run_id
        self.attempt = record.attempt
        self.control = control
        self.on_event = on_event
        self.settings = settings
        self.workers = max(1, workers)
        self.outcomes = record.outcomes()
        self._mutex = threading.Lock()
        self._halt = threading.Event()  # an unexpected error or a superseded attempt
        self._error: BaseException | None = None
        self._superseded = False
        self._cancel_seen = record.cancel_requested
        self.pages_total = plan.imported_page_count()
        # As an item ends, the progress counts all its planned pages done (``_lane``).
        self.pages_done = sum(
            it.imported_page_count() for it in plan.items if self.outcomes[it.item_id].state.final
        )
        # Read under the duplicates lock, when the run starts its items (``run``).
        self.corpus_index: CorpusHashIndex | None = None

    # -- stop conditions -------------------------------------------------------------------

    def cancel_requested(self) -> bool:
        if self.control.cancelled or self._cancel_seen:
            return True
        # `cancel RUN_ID` from another process: a marker file is cheap to poll per item.
        try:
            if fsio.exists(self.store.cancel_marker(self.run_id)):
                self._cancel_seen = True
        except OSError:  # cannot tell now: the record, read at the run's next write, says it
            pass
        return self._cancel_seen

    def should_stop(self) -> bool:
        return self._halt.is_set() or self.control.paused or self.cancel_requested()

    def must_stop(self) -> bool:
        """A stop the checkpoint in flight never finishes first: an error, a cancel."""
        return self._halt.is_set() or self.cancel_requested()

    def paused(self) -> bool:
        return self.control.paused

    def wait_while_held(self, item: PlanItem) -> None:
        """While the run is held (a person is asked whether to stop), wait here: before an
        item starts, or before its next checkpoint. A cancel marker from another process is
        looked for twice a second meanwhile."""
        if not self.control.held or self.must_stop():
            return
        self.emit(EventKind.HELD, item)
        while self.control.wait_while_held(HELD_POLL_S) and not self.cancel_requested():
            pass

    def emit(
        self,
        kind: EventKind,
        item: PlanItem | None = None,
        outcome: ItemOutcome | None = None,
        status: RunStatus | None = None,
        staged: int = 0,
    ) -> None:
        """Tell the caller, with the page counts as they stand."""
        if self.on_event is not None:
            item_id = None if item is None else item.item_id
            done, total = self.pages_done, self.pages_total
            self.on_event(
                RunEvent(kind, self.run_id, item_id, outcome, done, total, status, staged)
            )

    # -- running ---------------------------------------------------------------------------

    def run(self) -> None:
        """Execute the pending items; under the duplicates lock when the corpus is asked.

        Duplicates across the corpus are decided against the corpus as it is when the run
        starts its items, and two runs must not both decide "not held yet" for the same
        bytes: the lock (``dedupe.duplicates_lock``) makes such runs go one after the
        other, the second reading the index only once the first has landed its pages.
        Runs deduplicating only within their notebooks never take it.
        """
        pending = [it for it in self.plan.items if not self.outcomes[it.item_id].state.final]
        scopes = [it.dedupe_scope for it in pending]
        lock = duplicates_lock(self.corpus, self.plan.policy, scopes)
        if lock is not None and not locks.wait_for(lock, self.should_stop, self._waiting):
            return  # paused or cancelled while waiting: nothing was started
        try:
            self.corpus_index = corpus_index_for(self.corpus, self.plan.policy, scopes)
            self._run_lanes()
        finally:
            if lock is not None:
                lock.release()

    def _waiting(self) -> None:
        crashpoint("run.waiting_for_corpus")
        self.emit(EventKind.WAITING_FOR_CORPUS)

    def _run_lanes(self) -> None:
        lanes: dict[str, list[PlanItem]] = {}
        for it in self.plan.items:
            if not self.outcomes[it.item_id].state.final:
                lanes.setdefault(it.notebook_id, []).append(it)
        # Staging threads per transaction: share the cores with the parallel lanes.
        self.staging_workers = max(1, 2 // min(self.workers, max(1, len(lanes))))
        with concurrent.futures.ThreadPoolExecutor(max_workers=self.workers) as pool:
            futures = [pool.submit(self._lane, lane) for lane in lanes.values()]
            for f in concurrent.futures.as_completed(futures):
                exc = f.exception()
                if exc is not None and not isinstance(exc, _Stop):
                    self._halt.set()
                    if isinstance(exc, AttemptSuperseded):
                        self._superseded = True
                    elif self._error is None:
                        self._error = exc

    def _lane(self, items: list[PlanItem]) -> None:
        pace = Pace()  # the lane's items share it: only its first checkpoint is sized blind
        for item in items:
            self.wait_while_held(item)
            if self.should_stop():
                raise _Stop()
            self.emit(EventKind.ITEM_STARTED, item)
            tally = _ItemPages()
            outcome = self._execute(item, tally, pace)
            if outcome is None:
                # Stopped: the checkpoint in flight was rolled back, the item stays pending
                # with what landed before it recorded.
                raise _Stop()
            with self._mutex:
                self.store.record_outcome(self.run_id, self.attempt, outcome)
                self.outcomes[item.item_id] = outcome
                self.pages_done += item.imported_page_count() - tally.carried
            self.emit(EventKind.ITEM_FINISHED, item, outcome)

    def _landed(
        self,
        item: PlanItem,
        cp: Checkpoint,
        landed: list[str],
        skipped: list[dict[str, str | None]],
        to_ingest: list[PlanSource],
        tally: _ItemPages,
    ) -> None:
        """One checkpoint of ``item`` landed: count its pages, record them unless it ends it."""
        self._count_pages(item, cp, tally)
        landed.extend(sid for sid in cp.source_ids if sid not in landed)  # a long one: parts
        late = set(cp.skipped_held)
        skipped += [
            skipped_source(s, Duplicate.IN_NOTEBOOK) for s in to_ingest if s.source_id in late
        ]
        pending = ItemOutcome(
            item.item_id,
            ItemState.PENDING,
            item.notebook_id,
            tuple(landed),
            0,
            tuple(skipped),
            updated_at=utc_now(),
            pages_landed=tally.ours,
            pages_already_in=tally.already_in,
        )
        with self._mutex:
            if not cp.last and not cp.earlier:
                # The item's last checkpoint is recorded by its final outcome, next.
                self.store.record_outcome(self.run_id, self.attempt, pending)
                self.outcomes[item.item_id] = pending
            self.pages_done += cp.pages
        self.emit(EventKind.PAGES_LANDED, item, pending)

    def _count_pages(self, item: PlanItem, cp: Checkpoint, tally: _ItemPages) -> None:
        """Count a checkpoint's pages: this run's and other runs' as the notebook now holds
        them (the count every surface reads, ``incomplete.pages_by_run_item``); if it cannot
        be read, the checkpoint's own pages are this run's (an earlier one's are not known)."""
        tally.carried += cp.pages
        nbid = item.notebook_id
        try:
            held = pages_by_run_item(project.read(self.corpus.notebook_dir(nbid), nbid))
        except (TranscribeError, OSError):
            tally.ours += 0 if cp.earlier else cp.pages
            return
        tally.ours = held[(self.run_id, item.item_id)]
        tally.already_in = sum(
            n for (run, it), n in held.items() if it == item.item_id and run != self.run_id
        )

    def _staged(self, item: PlanItem, pages: int) -> None:
        """``pages`` of ``item``'s checkpoint in flight are staged: they land with it."""
        with self._mutex:
            outcome = self.outcomes[item.item_id]
        self.emit(EventKind.PAGES_STAGED, item, outcome, staged=pages)

    def _execute(self, item: PlanItem, tally: _ItemPages, pace: Pace) -> ItemOutcome | None:
        nbid = item.notebook_id
        skipped = [skipped_source(s, s.duplicate) for s in item.planned_skips()]
        outside = self.corpus.outside_problem(nbid)
        if outside is not None:
            return self._failed(
                item,
                ErrorCode.NOTEBOOK_INVALID,
                f"{outside}; nothing is written outside the corpus. Run `transcribe-import "
                "doctor` and put the notebook's folder back in its place.",
            )
        exists = self.corpus.is_registered(nbid) or fsio.exists(self.corpus.notebook_dir(nbid))
        if item.op is Op.IMPORT_INTO_NOTEBOOK and not exists:
            return self._failed(
                item, ErrorCode.NOTEBOOK_NOT_FOUND, f"The target notebook {nbid} no longer exists."
            )
        to_ingest: list[PlanSource] = []
        held: dict[str, str] = {}
        if self.plan.policy is DuplicatePolicy.SKIP_EXISTING and exists:
            try:
                held = notebook_hashes(self.corpus, nbid)
            except TranscribeError as exc:
                return self._failed(item, exc.code, str(exc))
        for s in item.imported_sources():
            # Judged again as it is reached: the corpus may have changed since planning.
            why = classify(
                s.sha256,
                policy=self.plan.policy,
                scope=item.dedupe_scope,
                notebook_id=nbid,
                in_notebook=held,
                corpus_index=self.corpus_index,
                source_id=s.source_id,
            )
            if why is None:
                to_ingest.append(s)
            else:
                skipped.append(skipped_source(s, why))
        if not to_ingest:
            classification = SkipReason.ALL_DUPLICATES if skipped else SkipReason.NOTHING_TO_IMPORT
            return ItemOutcome(
                item.item_id,
                ItemState.SKIPPED,
                nbid,
                (),
                0,
                tuple(skipped),
                classification,
                updated_at=utc_now(),
            )
        landed: list[str] = []
        try:
            landing = {p.page_id for s in to_ingest for p in s.pages}
            req = IngestRequest(
                nbid,
                tuple(_spec(s) for s in to_ingest),
                import_run_id=self.run_id,
                item_id=item.item_id,
                cover_page_id=item.cover_page_id if item.cover_page_id in landing else None,
                page_order=item.restore.page_order if item.restore else None,
                skip_held=self.plan.policy is DuplicatePolicy.SKIP_EXISTING,
                placement=item.placement,
                places=item.places,
                replaces=tuple(r for r in item.replacements if r[0] in landing),
                history=item.restore.history if item.restore else (),
            )
            # A new notebook is created, and registered, by its first checkpoint.
            create = new_notebook_for(item, self.run_id) if item.op is Op.CREATE_NOTEBOOK else None
            ingest_checkpoints(
                self.corpus,
                req,
                self.settings,
                create=create,
                workers=self.staging_workers,
                should_stop=self.must_stop,
                should_pause=self.paused,
                between=lambda: self.wait_while_held(item),
                pace=pace,
                on_staged=lambda pages: self._staged(item, pages),
                on_checkpoint=lambda cp: self._landed(item, cp, landed, skipped, to_ingest, tally),
            )
        except IngestCancelled:
            return None
        except TranscribeError as exc:
            if exc.code in RUN_INTERRUPTING:
                raise
            if exc.code is ErrorCode.SOURCE_CHANGED and exc.path:
                # Its bytes are not the ones planned though its stat may be: the next scan
                # must read it, not trust the scan cache's line (planning/scan_cache.py).
                ScanCache(self.corpus.root).forget(exc.path)
            return self._failed(item, exc.code, str(exc), tuple(landed), tally, skipped)
        late = {str(d["source_id"]) for d in skipped}
        to_ingest = [s for s in to_ingest if s.source_id not in late]
        if not to_ingest:
            # Another import landed these bytes since they were judged above.
            return ItemOutcome(
                item.item_id,
                ItemState.SKIPPED,
                nbid,
                (),
                0,
                tuple(skipped),
                SkipReason.ALL_DUPLICATES,
                updated_at=utc_now(),
            )
        crashpoint("run.before_item_outcome")
        return ItemOutcome(
            item.item_id,
            ItemState.COMMITTED,
            nbid,
            tuple(s.source_id for s in to_ingest),
            tally.ours,
            tuple(skipped),
            updated_at=utc_now(),
            pages_landed=tally.ours,
            pages_already_in=tally.already_in,
        )

    def _failed(
        self,
        item: PlanItem,
        code: ErrorCode,
        message: str,
        landed: tuple[str, ...] = (),
        tally: _ItemPages | None = None,
        skipped: list[dict[str, str | None]] | None = None,
    ) -> ItemOutcome:
        """A failed item; ``landed``: the sources its earlier checkpoints put in, which stay."""
        return ItemOutcome(
            item.item_id,
            ItemState.FAILED,
            item.notebook_id,
            landed,
            0,
            tuple(skipped or ()) if landed else (),
            failure_code=str(code),
            failure_message=message,
            updated_at=utc_now(),
            pages_landed=0 if tally is None else tally.ours,
            pages_already_in=0 if tally is None else tally.already_in,
        )


def _spec(s: PlanSource) -> SourceSpec:
    return SourceSpec(
        s.source_id,
        s.provenance.fs_path,
        s.sha256,
        s.media_type,
        tuple(
            PageSpec(
                p.page_id,
                p.render_id,
                p.page_index,
                _render_spec(p.render),
                p.extra,
                p.label,
                p.look,
                p.turn,
            )
            for p in s.pages
        ),
        provenance={
            "rel": s.provenance.rel,
            "mtime": s.provenance.mtime,
            # A copy of a corpus file (a turned page's) keeps the name it was imported from.
            **({"original_path": s.provenance.original} if s.provenance.original else {}),
        },
        extra=s.extra,
        size=s.provenance.size,
        # Pages left out of a file of several: the file still has all of them.
        page_count=len(s.pages) + len(s.left_out) if s.left_out else None,
    )


def _render_spec(r: PageRender | None) -> RenderSpec | None:
    """A bag's render, copied as it is instead of rendering the page (planning/bag.py)."""
    if r is None:
        return None
    return RenderSpec(r.fs_path, r.sha256, r.width, r.height, r.size, r.renderer)


def execute_run(
    corpus: Corpus,
    run_id: str,
    *,
    workers: int = 2,
    control: RunControl | None = None,
    on_event: Callable[[RunEvent], None] | None = None,
    settings: RenderSettings | None = None,
) -> RunResult:
    """Execute (or resume) a prepared run to its end, or until paused or cancelled.

    Raises TranscribeError(RUN_BUSY) when another process executes the run. A machine
    failure (``RUN_INTERRUPTING``) never fails an item and is never raised for a run that
    has not ended: the run is left resumable and the result says why (``stopped_by``),
    whether the disk filled during an item or before the run's lock file could be made.
    """
    if workers < 1:
        raise ValueError("workers must be at least 1")
    try:
        return _execute(corpus, run_id, workers, control or RunControl(), on_event, settings)
    except TranscribeError as exc:
        if exc.code not in RUN_INTERRUPTING:
            raise
        record = RunStore(corpus).load(run_id)
        if record.status.terminal:
            raise
        return RunResult(run_id, record.status, record, stopped_by=str(exc))


def _execute(
    corpus: Corpus,
    run_id: str,
    workers: int,
    control: RunControl,
    on_event: Callable[[RunEvent], None] | None,
    settings: RenderSettings | None,
) -> RunResult:
    store = RunStore(corpus)
    lock = store.run_lock(run_id)
    if not locks.take_unless_owned(lock):
        run = run_short_ids(corpus)(run_id)  # as `runs` lists it, which `cancel` takes
        raise TranscribeError(
            ErrorCode.RUN_BUSY,
            f"Run {run} is being executed by another process; wait for it, or cancel it "
            f"with `transcribe-import cancel {run}`.",
            item=run_id,
        )
    try:
        record = store.load(run_id)
        if record.status.terminal:
            return RunResult(run_id, record.status, record, already_done=True)
        plan = store.load_plan(run_id, record)
        recovered = recover_dead_journals(corpus, plan, run_id)  # a dead attempt's leftovers
        record = store.begin_attempt(run_id)
        problems = tuple(
            f.message for f in recovered if f.code is FindingCode.JOURNAL_QUARANTINED
        ) + _verify_committed(corpus, record)
        ex = _Executor(
            corpus,
            store,
            plan,
            record,
            control,
            on_event,
            settings or RenderSettings(),
            workers,
        )
        ex.emit(EventKind.RUN_STARTED)
        ex.run()
        if ex._superseded:
            return RunResult(
                run_id,
                RunStatus.RUNNING,
                store.load(run_id),
                superseded=True,
                verification_problems=problems,
            )
        error = ex._error
        if isinstance(error, TranscribeError) and error.code in RUN_INTERRUPTING:
            # Not the items' fault, so none is failed for it: the run stops where it is,
            # resumable, and says why (exit 6 in the CLI, "stopped" in the window).
            record = store.mark_paused(run_id, ex.attempt)
            ex.emit(EventKind.RUN_PAUSED, status=RunStatus.RUNNING)
            return RunResult(
                run_id,
                RunStatus.RUNNING,
                record,
                verification_problems=problems,
                stopped_by=str(error),
            )
        if error is not None:
            raise error
        outcomes = list(ex.outcomes.values())
        unfinished = any(not o.state.final for o in outcomes)
        if ex.cancel_requested():
            status = terminal_status(settle_unfinished(outcomes, utc_now()), cancelled=True)
        elif unfinished:
            record = store.mark_paused(run_id, ex.attempt)
            ex.emit(EventKind.RUN_PAUSED, status=RunStatus.RUNNING)
            return RunResult(
                run_id, RunStatus.RUNNING, record, paused=True, verification_problems=problems
            )
        else:
            status = terminal_status(outcomes, cancelled=False)
        record = store.finish(run_id, ex.attempt, status)
        ex.emit(EventKind.RUN_FINISHED, status=status)
        return RunResult(run_id, status, record, verification_problems=problems)
    except AttemptSuperseded:
        return RunResult(run_id, RunStatus.RUNNING, store.load(run_id), superseded=True)
    finally:
        lock.release()


def _verify_committed(corpus: Corpus, record: RunRecord) -> tuple[str, ...]:
    """Check, without re-hashing, that committed items' sources are listed in their notebooks."""
    by_notebook: dict[str, list[ItemOutcome]] = {}
    for o in record.outcomes().values():
        if o.state is ItemState.COMMITTED:
            by_notebook.setdefault(o.notebook_id, []).append(o)
    problems = []
    for nbid, outcomes in by_notebook.items():
        try:
            # Source ids, not a sha -> id map: a notebook may hold the same bytes twice.
            held = set(project.ids_of(project.read(corpus.notebook_dir(nbid), nbid)).sources)
        except TranscribeError as exc:
            problems.append(f"notebook {nbid}: {exc}")
            continue
        for o in outcomes:
            missing = [sid for sid in o.source_ids if sid not in held]
            if missing:
                problems.append(
                    f"item {o.item_id}: {counted(len(missing), 'committed source')} "
                    f"{agreeing(len(missing), 'is', 'are')} no longer in "
                    f"notebook {nbid} (removed after the import?); they are not imported again."
                )
    return tuple(problems)
