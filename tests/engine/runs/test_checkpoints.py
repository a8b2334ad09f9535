"""Checkpointed commits in-process: a big notebook lands a few dozen pages at a time.

Cancel of a 300-page single-notebook import half way keeps the pages before the
checkpoint in flight, and so does a pause when much of it is left; a pause when little
is left lets it land first. Resuming (or committing the plan again) finishes it without
rendering again any page that landed; a notebook appears only with its first pages.
Checkpoints are cut by the work they stage (``Pace``), and the pages staged are told.
Every render the engine makes is watched (``renders``), so "never re-rendered" is
counted, not assumed.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable
from pathlib import Path

import pytest

from transcribe_import.engine.api import run_summary
from transcribe_import.engine.ingest import checkpoints, staging
from transcribe_import.engine.ingest.checkpoints import CHECKPOINT_PAGES
from transcribe_import.engine.ingest.transaction import PageSpec, SourceSpec
from transcribe_import.engine.planning.plan import ImportPlan
from transcribe_import.engine.runs.executor import EventKind, RunControl, RunEvent, execute_run
from transcribe_import.engine.runs.model import ItemState, RunStatus
from transcribe_import.engine.runs.service import prepare_run
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage.corpus import CREATING_PREFIX, Corpus

from engine_helpers import assert_notebook_whole
from helpers.runs import plan_for, planned_page_ids
from helpers.shelves import make_pages

PAGES = 300
STOP_AT = 170  # the 170th page rendered is inside the 6th checkpoint (pages 161-192)
LANDED = (STOP_AT - 1) // CHECKPOINT_PAGES * CHECKPOINT_PAGES  # the five before it: 160
# These pages take milliseconds: a pause at the 170th lets the 6th checkpoint land first.
PAUSE_LANDED = LANDED + CHECKPOINT_PAGES


class Renders:
    """Counts every page the engine renders, by source file; may act on the n-th one."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.by_file: Counter[str] = Counter()
        self.on: tuple[int, Callable[[], None]] | None = None
        real = staging.rendering.render_pages

        def watched(path, media_type, indices, settings, *, display_path, **kw):  # type: ignore[no-untyped-def]
            for page in real(path, media_type, indices, settings, display_path=display_path, **kw):
                self.by_file[display_path] += 1
                if self.on is not None and sum(self.by_file.values()) == self.on[0]:
                    self.on[1]()
                yield page

        monkeypatch.setattr(staging.rendering, "render_pages", watched)

    def total(self) -> int:
        return sum(self.by_file.values())


@pytest.fixture(scope="module")
def register_shelf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("register")
    make_pages(root / "Register 1901", PAGES, size=(120, 160))
    return root


def _one_notebook_plan(corpus: Corpus, shelf: Path) -> ImportPlan:
    plan = plan_for(corpus, shelf)
    assert len(plan.items) == 1 and len(planned_page_ids(plan.items[0])) == PAGES
    return plan


def _renders_on_disk(corpus: Corpus, nbid: str) -> dict[str, tuple[int, int]]:
    """Each render file of the notebook: (inode, mtime_ns), to see that none is rewritten."""
    out = {}
    for p in (corpus.notebook_dir(nbid) / "renders").iterdir():
        st = p.stat()
        out[p.name] = (st.st_ino, st.st_mtime_ns)
    return out


def _stopped_half_way(
    corpus: Corpus, plan: ImportPlan, renders: Renders, stop: Callable[[RunControl], None]
) -> tuple[str, list[RunEvent]]:
    record, _ = prepare_run(corpus, plan)
    control = RunControl()
    renders.on = (STOP_AT, lambda: stop(control))
    events: list[RunEvent] = []
    execute_run(corpus, record.run_id, control=control, on_event=events.append, workers=1)
    renders.on = None
    return record.run_id, events


def _assert_first_pages_landed(corpus: Corpus, plan: ImportPlan, n: int) -> None:
    item = plan.items[0]
    doc = assert_notebook_whole(corpus, item.notebook_id)
    assert [p["id"] for p in doc["pages"]] == planned_page_ids(item)[:n]
    assert corpus.is_registered(item.notebook_id)


def _assert_finished_without_rerender(
    corpus: Corpus,
    plan: ImportPlan,
    renders: Renders,
    before: dict[str, tuple[int, int]],
    landed: int = LANDED,
) -> None:
    item = plan.items[0]
    doc = assert_notebook_whole(corpus, item.notebook_id)
    assert [p["id"] for p in doc["pages"]] == planned_page_ids(item)  # each page exactly once
    landed_files = [str(s.provenance.fs_path) for s in item.imported_sources()[:landed]]
    assert not [f for f in landed_files if renders.by_file[f] > 1], "a landed page re-rendered"
    # Only the pages of the checkpoint in flight at the stop were rendered twice (none when
    # it landed before the stop).
    all_files = [str(s.provenance.fs_path) for s in item.imported_sources()]
    assert set(renders.by_file) == set(all_files)
    twice = [f for f in all_files if renders.by_file[f] == 2]
    assert len(twice) >= STOP_AT - landed and max(renders.by_file.values()) <= 2
    assert set(twice) <= set(all_files[landed : landed + CHECKPOINT_PAGES])
    after = _renders_on_disk(corpus, item.notebook_id)
    assert {k: after[k] for k in before} == before, "a landed render file was rewritten"
    assert [e.name for e in corpus.notebooks_dir.iterdir() if e.name.startswith(".")] == []


@pytest.mark.parametrize(
    ("grace", "landed"),
    [
        (checkpoints.PAUSE_GRACE_SECONDS, PAUSE_LANDED),  # little left: it lands first
        (0.0, LANDED),  # more left than the grace: rolled back
    ],
    ids=["nearly-staged-lands", "far-from-staged-rolls-back"],
)
def test_pause_half_way_keeps_landed_checkpoints_and_resume_renders_none_again(
    corpus, register_shelf, monkeypatch, grace, landed
) -> None:
    monkeypatch.setattr(checkpoints, "PAUSE_GRACE_SECONDS", grace)
    renders = Renders(monkeypatch)
    plan = _one_notebook_plan(corpus, register_shelf)
    run_id, events = _stopped_half_way(corpus, plan, renders, lambda c: c.pause())

    record = prepare_run(corpus, plan)[0]
    assert record.run_id == run_id and record.status is RunStatus.RUNNING  # paused, resumable
    outcome = record.outcomes()[plan.items[0].item_id]
    assert outcome.state is ItemState.PENDING and outcome.pages_landed == landed
    assert len(outcome.source_ids) == landed
    _assert_first_pages_landed(corpus, plan, landed)
    # The window's bar counted the pages as they landed, one event per checkpoint.
    landed_events = [e for e in events if e.kind is EventKind.PAGES_LANDED]
    assert [e.pages_done for e in landed_events] == list(
        range(CHECKPOINT_PAGES, landed + 1, CHECKPOINT_PAGES)
    )
    assert all(e.pages_total == PAGES for e in landed_events)
    # The item's count moved page by page as they were staged, before each checkpoint
    # landed: 1..32 for each, then 1..9 of the one rolled back (at least).
    staged = [e.pages_staged for e in events if e.kind is EventKind.PAGES_STAGED]
    assert staged[:landed] == list(range(1, CHECKPOINT_PAGES + 1)) * (landed // CHECKPOINT_PAGES)
    before = _renders_on_disk(corpus, plan.items[0].notebook_id)

    resumed: list[RunEvent] = []
    result = execute_run(corpus, run_id, on_event=resumed.append, workers=1)
    assert result.status is RunStatus.COMPLETE
    committed = result.record.outcomes()[plan.items[0].item_id]
    assert committed.state is ItemState.COMMITTED and committed.pages_landed == PAGES
    _assert_finished_without_rerender(corpus, plan, renders, before, landed)
    assert resumed[-1].pages_done == PAGES


def test_cancel_half_way_keeps_landed_pages_and_recommit_finishes(
    corpus, register_shelf, monkeypatch
) -> None:
    renders = Renders(monkeypatch)
    plan = _one_notebook_plan(corpus, register_shelf)
    run_id, _events = _stopped_half_way(corpus, plan, renders, lambda c: c.cancel())

    record = prepare_run(corpus, plan)[0]
    assert record.run_id != run_id  # the cancelled run is terminal: a new run retries it
    cancelled = RunStore(corpus).load(run_id)
    # The contract's table: no item committed, so `cancelled`; but its pages are counted.
    assert cancelled.status is RunStatus.CANCELLED
    outcome = cancelled.outcomes()[plan.items[0].item_id]
    assert outcome.state is ItemState.CANCELLED_PENDING and outcome.pages_landed == LANDED
    assert run_summary(corpus, cancelled).pages_landed == LANDED
    _assert_first_pages_landed(corpus, plan, LANDED)
    before = _renders_on_disk(corpus, plan.items[0].notebook_id)

    result = execute_run(corpus, record.run_id, workers=1)
    assert result.status is RunStatus.COMPLETE
    _assert_finished_without_rerender(corpus, plan, renders, before)


def test_cancel_before_any_page_landed_leaves_no_notebook(
    corpus, register_shelf, monkeypatch
) -> None:
    renders = Renders(monkeypatch)
    plan = _one_notebook_plan(corpus, register_shelf)
    record, _ = prepare_run(corpus, plan)
    control = RunControl()
    renders.on = (5, control.cancel)  # inside the first checkpoint of the new notebook
    result = execute_run(corpus, record.run_id, control=control, workers=1)
    assert result.status is RunStatus.CANCELLED
    assert run_summary(corpus, result.record).pages_landed == 0
    nbid = plan.items[0].notebook_id
    assert not corpus.is_registered(nbid)
    assert list(corpus.notebooks_dir.iterdir()) == [], "a trace of the notebook was left"
    assert not (corpus.notebooks_dir / f"{CREATING_PREFIX}{nbid}").exists()


def test_a_failure_in_a_later_checkpoint_keeps_the_earlier_ones(
    corpus, register_shelf, monkeypatch, tmp_path
) -> None:
    """A source gone in checkpoint 3: the item fails, its first 64 pages stay and are told."""
    shelf = tmp_path / "shelf"
    make_pages(shelf / "Register", 80, size=(120, 160))
    plan = plan_for(corpus, shelf)
    item = plan.items[0]
    gone = item.imported_sources()[2 * CHECKPOINT_PAGES + 3].provenance.fs_path
    gone.unlink()
    record, _ = prepare_run(corpus, plan)
    result = execute_run(corpus, record.run_id, workers=1)
    assert result.status is RunStatus.FAILED  # the table: no item committed, one failed
    outcome = result.record.outcomes()[item.item_id]
    assert outcome.state is ItemState.FAILED and outcome.failure_code == "source_missing"
    assert outcome.pages_landed == 2 * CHECKPOINT_PAGES
    doc = assert_notebook_whole(corpus, item.notebook_id)
    assert [p["id"] for p in doc["pages"]] == planned_page_ids(item)[: 2 * CHECKPOINT_PAGES]


def test_split_bounds_the_pages_cutting_only_a_longer_source() -> None:
    from transcribe_import.engine.base.ids import new_id
    from transcribe_import.engine.ingest.transaction import PageSpec, SourceSpec

    def source(pages: int) -> SourceSpec:
        return SourceSpec(
            new_id(),
            Path("x.pdf"),
            "0" * 64,
            "application/pdf",
            tuple(PageSpec(new_id(), new_id(), k) for k in range(pages)),
        )

    sources = [source(n) for n in (10, 10, 15, 70, 1, 1)]
    chunks = checkpoints.split(sources, 32)
    assert [[len(s.pages) for s in c] for c in chunks] == [[10, 10], [15], [32], [32], [6, 1, 1]]
    parts = [s for c in chunks for s in c]
    assert [p for s in parts for p in s.pages] == [p for s in sources for p in s.pages]
    long = [s for s in parts if s.source_id == sources[3].source_id]
    assert [s.page_count for s in long] == [70, 70, 70]  # each part knows the whole


def _sized(pages: int, size: int | None) -> SourceSpec:
    from transcribe_import.engine.base.ids import new_id

    return SourceSpec(
        new_id(),
        Path("x.jpg"),
        "0" * 64,
        "image/jpeg",
        tuple(PageSpec(new_id(), new_id(), k) for k in range(pages)),
        size=size,
    )


def test_a_checkpoint_is_cut_by_the_bytes_until_one_is_timed_then_by_the_time(
    monkeypatch,
) -> None:
    """Untimed, a checkpoint of 2 MiB scans takes the bytes of CHECKPOINT_SECONDS; timed at
    0.4 s a page, what fits in CHECKPOINT_SECONDS; timed fast, never over 32 pages."""
    monkeypatch.delenv(checkpoints.ENV_CHECKPOINT_SECONDS, raising=False)
    mib = 1024 * 1024
    pace = checkpoints.Pace()
    queue = deque(_sized(1, 2 * mib) for _ in range(100))
    first = checkpoints.take_checkpoint(queue, *pace.budget(CHECKPOINT_PAGES))
    bytes_of_4s = checkpoints.CHECKPOINT_SECONDS * checkpoints.STAGED_BYTES_PER_SECOND
    assert len(first) == bytes_of_4s // (2 * mib) == 4
    pace.observe(4, 1.6)
    assert pace.budget(CHECKPOINT_PAGES) == (int(checkpoints.CHECKPOINT_SECONDS / 0.4), None)
    second = checkpoints.take_checkpoint(queue, *pace.budget(CHECKPOINT_PAGES))
    assert len(second) == 10
    pace.observe(10, 0.1)  # the machine got faster: half the last, half before
    assert pace.seconds_per_page == pytest.approx((0.4 + 0.01) / 2)
    pace.observe(10, 0.01)
    pace.observe(10, 0.01)
    assert pace.budget(CHECKPOINT_PAGES) == (CHECKPOINT_PAGES, None)
    # A source of unknown size is bound by pages only; a slow one by at least one page.
    assert len(checkpoints.take_checkpoint(deque([_sized(40, None)]), 32, 1.0)[0].pages) == 32
    slow = checkpoints.Pace()
    slow.observe(1, 60.0)
    assert slow.budget(CHECKPOINT_PAGES) == (1, None)
    assert slow.budget(CHECKPOINT_PAGES, least=2) == (2, None)  # each staging thread a page
    # The setting replaces the 4 s (the suite sets it high: 32-page checkpoints, always).
    monkeypatch.setenv(checkpoints.ENV_CHECKPOINT_SECONDS, "8")
    assert slow.budget(CHECKPOINT_PAGES) == (1, None) and pace.budget(8)[0] == 8
    assert checkpoints.Pace().budget(32) == (32, 8 * checkpoints.STAGED_BYTES_PER_SECOND)
    for bad in ("soon", "-1", "nan", "0"):
        monkeypatch.setenv(checkpoints.ENV_CHECKPOINT_SECONDS, bad)
        assert checkpoints.checkpoint_seconds() == checkpoints.CHECKPOINT_SECONDS


def test_a_long_source_is_cut_by_its_bytes_and_each_part_knows_the_whole() -> None:
    """A 70-page scanned PDF of 1 MiB a page, untimed: parts of 40 (the bytes), then 30;
    the notebook's pages are the planned ones, in order."""
    mib = 1024 * 1024
    pdf = _sized(70, 70 * mib)
    queue = deque([pdf])
    parts = [checkpoints.take_checkpoint(queue, 64, 40 * mib)]
    parts.append(checkpoints.take_checkpoint(queue, 64, 40 * mib))
    assert not queue
    assert [len(c[0].pages) for c in parts] == [40, 30]
    assert [c[0].page_count for c in parts] == [70, 70]
    assert [p for c in parts for p in c[0].pages] == list(pdf.pages)


def test_a_pause_lets_the_checkpoint_land_only_when_little_of_it_is_left(monkeypatch) -> None:
    """Decided once, from the pace this checkpoint shows: 30 of 32 staged in 3 s leaves
    0.2 s (lands); 2 of 32 staged in 3 s leaves 45 s (rolled back); a cancel always stops."""
    clock = [100.0]
    monkeypatch.setattr(checkpoints, "_now", lambda: clock[0])
    paused, cancelled = [False], [False]

    def flight(staged: int) -> checkpoints._InFlight:
        f = checkpoints._InFlight(
            32, checkpoints.Pace(), lambda: cancelled[0], lambda: paused[0], None
        )
        f.source_staged(staged)
        return f

    clock[0] = 100.0
    nearly, barely = flight(30), flight(2)
    clock[0] = 103.0
    assert not nearly.stops() and not barely.stops()  # no pause asked
    paused[0] = True
    assert not nearly.stops() and barely.stops()
    clock[0] = 1000.0  # the decision stands, however the pace looks later
    assert not nearly.stops()
    cancelled[0] = True
    assert nearly.stops()
    # Nothing staged and nothing timed: rolling back loses the least.
    cancelled[0] = False
    assert flight(0).stops()


def test_a_pause_lets_a_checkpoint_land_that_would_lose_more_than_the_wait(monkeypatch) -> None:
    """A busy machine's smallest checkpoint, a page per staging thread, timed at 3 s a page
    (6 s for two on two threads): a pause 1 s in rolls it back (1 s lost, 5 s left); 3.5 s
    in, it lands (2.5 s left, less than the 3.5 s a roll-back loses), and 4.5 s in with
    one page staged too (the lane's pace knows the other page has run as long). A 12 s
    checkpoint half-way does not: the wait is at most twice the grace."""
    clock = [0.0]
    monkeypatch.setattr(checkpoints, "_now", lambda: clock[0])
    pace = checkpoints.Pace()
    pace.observe(2, 6.0)

    def paused_at(seconds: float, staged: int = 0, pages: int = 2) -> bool:
        clock[0] = 0.0
        f = checkpoints._InFlight(pages, pace, None, lambda: True, None)
        clock[0] = seconds
        f.source_staged(staged)
        return not f.stops()

    assert checkpoints.PAUSE_GRACE_SECONDS == 2.0
    assert not paused_at(1.0)
    assert paused_at(3.5)
    assert paused_at(4.5, staged=1)
    assert not paused_at(6.0, pages=4)  # 6 s left of 12: more than the 4 s a pause waits
    assert paused_at(8.5, pages=4)  # 3.5 s left


@pytest.mark.slow
def test_a_long_pdf_lands_in_checkpoints_too_and_resumes_inside_its_source(
    corpus, tmp_path, monkeypatch
) -> None:
    """A 70-page PDF is one source cut into checkpoints of 32, 32 and 6 pages: a pause in
    the second keeps the first 32 pages (the source listed once, with its 70 pages to
    come); resume renders the rest from the notebook's copy, which is never copied again."""
    from media_factory import make_pdf

    make_pdf(tmp_path / "shelf" / "Register" / "register.pdf", [(60, 80)] * 70)
    # The pause rolls the second checkpoint back (not let land, however little is left).
    monkeypatch.setattr(checkpoints, "PAUSE_GRACE_SECONDS", 0.0)
    renders = Renders(monkeypatch)
    plan = plan_for(corpus, tmp_path / "shelf")
    [item] = plan.items
    [source] = item.imported_sources()
    assert len(source.pages) == 70
    record, _ = prepare_run(corpus, plan)
    control = RunControl()
    renders.on = (50, control.pause)
    execute_run(corpus, record.run_id, control=control, workers=1)

    doc = assert_notebook_whole(corpus, item.notebook_id)
    assert [p["id"] for p in doc["pages"]] == planned_page_ids(item)[:CHECKPOINT_PAGES]
    [entry] = doc["sources"]
    assert entry["id"] == source.source_id and entry["page_count"] == 70
    copy = corpus.notebook_dir(item.notebook_id) / entry["path"]
    before = copy.stat().st_ino, copy.stat().st_mtime_ns
    outcome = RunStore(corpus).load(record.run_id).outcomes()[item.item_id]
    assert outcome.state is ItemState.PENDING and outcome.pages_landed == CHECKPOINT_PAGES
    rendered_first = renders.total()

    result = execute_run(corpus, record.run_id, workers=1)
    assert result.status is RunStatus.COMPLETE
    doc = assert_notebook_whole(corpus, item.notebook_id)
    assert [p["id"] for p in doc["pages"]] == planned_page_ids(item)
    assert len(doc["sources"]) == 1 and (copy.stat().st_ino, copy.stat().st_mtime_ns) == before
    # The resume rendered exactly the 38 pages that had not landed.
    assert renders.total() - rendered_first == 70 - CHECKPOINT_PAGES
    committed = result.record.outcomes()[item.item_id]
    assert committed.page_count == committed.pages_landed == 70


def test_a_slow_notebook_lands_in_checkpoints_of_a_few_seconds_of_work(
    corpus, register_shelf, monkeypatch
) -> None:
    """Each page taking 0.5 s (a clock the renders drive): the first checkpoint is cut by
    bytes (these pages are tiny: 32 of them), each next one to 4 s of work (8 pages); every
    planned page lands once, in order, and the run is complete."""
    monkeypatch.delenv(checkpoints.ENV_CHECKPOINT_SECONDS, raising=False)
    clock = [0.0]
    monkeypatch.setattr(checkpoints, "_now", lambda: clock[0])
    renders = Renders(monkeypatch)
    real = staging.rendering.render_pages

    def slow(*a, **kw):  # type: ignore[no-untyped-def]
        for page in real(*a, **kw):
            clock[0] += 0.5
            yield page

    monkeypatch.setattr(staging.rendering, "render_pages", slow)
    plan = _one_notebook_plan(corpus, register_shelf)
    record, _ = prepare_run(corpus, plan)
    events: list[RunEvent] = []
    result = execute_run(corpus, record.run_id, on_event=events.append, workers=1)
    assert result.status is RunStatus.COMPLETE and renders.total() == PAGES
    landed = [e.pages_done for e in events if e.kind is EventKind.PAGES_LANDED]
    per = int(checkpoints.CHECKPOINT_SECONDS / 0.5)
    assert landed == [CHECKPOINT_PAGES, *range(CHECKPOINT_PAGES + per, PAGES, per), PAGES]
    _assert_first_pages_landed(corpus, plan, PAGES)


def test_a_checkpoint_is_whole_rounds_of_its_staging_threads(monkeypatch) -> None:
    """Five scans fit the bytes of a first checkpoint: on two staging threads it takes four
    (two rounds), the fifth goes first in the next; the rest of a notebook is taken whole
    when it fits; one thread, a long source cut, or the most pages asked, is never trimmed.
    Timed at 0.8 s a page, 4 s holds five pages: the budget is four."""
    mib = 1024 * 1024
    scans = [_sized(1, 2 * mib) for _ in range(7)]
    queue = deque(scans)
    first = checkpoints.take_checkpoint(queue, 32, 10 * mib, threads=2)
    assert list(first) == scans[:4] and list(queue) == scans[4:]
    assert list(checkpoints.take_checkpoint(queue, 32, None, threads=2)) == scans[4:]
    assert len(checkpoints.take_checkpoint(deque(scans), 5, None, threads=1)) == 5
    assert len(checkpoints.take_checkpoint(deque(scans), 3, None, threads=2)) == 3
    monkeypatch.delenv(checkpoints.ENV_CHECKPOINT_SECONDS, raising=False)  # the 4 s
    pace = checkpoints.Pace()
    pace.observe(10, 10 * checkpoints.CHECKPOINT_SECONDS / 5)
    assert pace.budget(32, 2) == (4, None) and pace.budget(32, 1) == (5, None)
    assert pace.budget(5, 2) == (5, None)
    pdf = _sized(70, 70 * mib)
    [part] = checkpoints.take_checkpoint(deque([pdf, *scans]), 64, 5 * mib, threads=2)
    assert len(part.pages) == 5
