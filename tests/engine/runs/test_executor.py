"""Import runs in-process (engine/runs/executor.py): commit, cancel, pause, resume, dedupe."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from transcribe_import.engine.api import interrupted_runs, run_summary
from transcribe_import.engine.api.run_state import RunState, paused_last
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.planning.plan import DedupeScope, Duplicate
from transcribe_import.engine.planning.validate import validate
from transcribe_import.engine.runs.executor import EventKind, RunControl, RunEvent, execute_run
from transcribe_import.engine.runs.model import ItemState, RunRecord, RunStatus
from transcribe_import.engine.runs.service import cancel_run, prepare_run
from transcribe_import.engine.runs.store import RunStore, run_short_ids
from transcribe_import.engine.storage import locks
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import assert_notebook_whole
from helpers.runs import commit_plan, committed_page_ids, plan_for, planned_page_ids
from helpers.shelves import make_shelf
from media_factory import make_image

# The corpus fixture is the shared one (tests/conftest.py); plans and commits come from
# helpers.runs. What the run store itself guarantees is in test_store.py; what validate
# reports, in tests/engine/planning/test_validate.py.


def test_commit_complete_every_page_once_with_its_ids(corpus, tmp_path) -> None:
    plan = plan_for(corpus, make_shelf(tmp_path / "box"))
    assert validate(corpus, plan).ok
    result = commit_plan(corpus, plan)
    assert result.status is RunStatus.COMPLETE
    pages = committed_page_ids(corpus, plan)
    for it in plan.items:
        assert pages[it.item_id] == planned_page_ids(it)
    record = RunStore(corpus).load(result.run_id)
    assert record.doc["format"] == "transcribe.import-run" and record.doc["schema_version"] == 1
    assert record.doc["import_manifest"] == {"schema_version": 1}
    assert record.plan_fingerprint == plan.fingerprint
    assert [h["event"] for h in record.doc["history"]] == ["created", "started", "complete"]
    assert all(o.state is ItemState.COMMITTED for o in record.outcomes().values())
    index = orjson.loads((corpus.runs_dir / "index.json").read_bytes())
    assert index["runs"][result.run_id]["status"] == "complete"
    # Sources remember the run and item that brought them (provenance linkage).
    nb = assert_notebook_whole(corpus, plan.items[0].notebook_id)
    assert {s["import_run_id"] for s in nb["sources"]} == {result.run_id}


def test_recommitting_the_same_plan_is_a_noop(corpus, tmp_path) -> None:
    plan = plan_for(corpus, make_shelf(tmp_path / "box"))
    first = commit_plan(corpus, plan)
    before = committed_page_ids(corpus, plan)
    record, existing = prepare_run(corpus, plan)
    assert existing and record.run_id == first.run_id
    again = execute_run(corpus, record.run_id)
    assert again.already_done and again.status is RunStatus.COMPLETE
    assert committed_page_ids(corpus, plan) == before
    assert len(RunStore(corpus).list_runs()) == 1


def test_an_edited_plan_never_reuses_the_run(corpus, tmp_path) -> None:
    plan = plan_for(corpus, make_shelf(tmp_path / "box"))
    commit_plan(corpus, plan)
    edited = plan.with_item(replace(plan.items[0], title="Renamed"))
    with pytest.raises(TranscribeError) as info:
        prepare_run(corpus, edited)
    assert info.value.code is ErrorCode.PLAN_FROZEN
    run_id = info.value.problem.item
    assert f"as run {run_short_ids(corpus)(run_id)} with different contents" in str(info.value)
    assert run_id not in str(info.value)


def test_vanished_source_fails_its_item_only_partial(corpus, tmp_path) -> None:
    plan = plan_for(corpus, make_shelf(tmp_path / "box"))
    victim = Path(plan.items[1].sources[1].provenance.path)
    kept = victim.read_bytes()
    victim.unlink()
    result = commit_plan(corpus, plan)
    assert result.status is RunStatus.PARTIAL
    outcomes = result.record.outcomes()
    failed = outcomes[plan.items[1].item_id]
    assert failed.state is ItemState.FAILED and failed.failure_code == "source_missing"
    assert "page 2.jpg" in (failed.failure_message or "")
    assert outcomes[plan.items[0].item_id].state is ItemState.COMMITTED

    # Put the file back: committing the plan again retries only what did not land.
    victim.write_bytes(kept)
    again = commit_plan(corpus, plan)
    assert again.run_id != result.run_id and again.status is RunStatus.COMPLETE
    assert again.record.doc["retry_of"] == result.run_id
    pages = committed_page_ids(corpus, plan)
    for it in plan.items:
        assert pages[it.item_id] == planned_page_ids(it)  # none doubled by the retry


def test_every_item_failing_is_failed(corpus, tmp_path) -> None:
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=2, pages=1))
    for it in plan.items:
        os.unlink(it.sources[0].provenance.path)
    assert commit_plan(corpus, plan).status is RunStatus.FAILED


def _cancel_after(control: RunControl, n: int):
    seen = []

    def on_event(ev: RunEvent) -> None:
        if ev.kind is EventKind.ITEM_FINISHED:
            seen.append(ev)
            if len(seen) == n:
                control.cancel()

    return on_event


def test_cancel_before_any_commit_is_cancelled(corpus, tmp_path) -> None:
    plan = plan_for(corpus, make_shelf(tmp_path / "box"))
    control = RunControl()
    control.cancel()
    result = commit_plan(corpus, plan, control=control, workers=1)
    assert result.status is RunStatus.CANCELLED
    assert all(o.state is ItemState.CANCELLED_PENDING for o in result.record.outcomes().values())
    assert corpus.list_notebooks() == []


def test_cancel_after_a_commit_keeps_it(corpus, tmp_path) -> None:
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=4))
    control = RunControl()
    result = commit_plan(
        corpus, plan, control=control, workers=1, on_event=_cancel_after(control, 1)
    )
    assert result.status is RunStatus.CANCELLED_WITH_COMMITS
    states = [result.record.outcomes()[it.item_id].state for it in plan.items]
    assert states[0] is ItemState.COMMITTED
    assert set(states[1:]) == {ItemState.CANCELLED_PENDING}
    assert committed_page_ids(corpus, plan)[plan.items[0].item_id] == planned_page_ids(
        plan.items[0]
    )


def test_cancel_from_another_process_through_the_record(corpus, tmp_path) -> None:
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=4))
    record, _ = prepare_run(corpus, plan)

    def on_event(ev: RunEvent) -> None:
        if ev.kind is EventKind.ITEM_FINISHED:
            RunStore(Corpus.open(corpus.data_dir)).request_cancel(record.run_id)

    result = execute_run(corpus, record.run_id, workers=1, on_event=on_event)
    assert result.status is RunStatus.CANCELLED_WITH_COMMITS
    events = [h["event"] for h in result.record.doc["history"]]
    assert "cancel_requested" in events and events[-1] == "cancelled_with_commits"


def test_a_held_run_starts_nothing_and_hears_a_cancel_from_another_process(
    corpus, tmp_path
) -> None:
    """Held after its first notebook (a person asked whether to stop): no other notebook
    starts, and `cancel RUN_ID` from another process ends the run where it waits."""
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=3))
    record, _ = prepare_run(corpus, plan)
    control = RunControl()
    kinds: list[EventKind] = []

    def on_event(ev: RunEvent) -> None:
        kinds.append(ev.kind)
        if ev.kind is EventKind.ITEM_FINISHED:
            control.hold()
        elif ev.kind is EventKind.HELD:
            RunStore(Corpus.open(corpus.data_dir)).request_cancel(record.run_id)

    result = execute_run(corpus, record.run_id, workers=1, control=control, on_event=on_event)
    assert result.status is RunStatus.CANCELLED_WITH_COMMITS
    assert kinds.count(EventKind.ITEM_STARTED) == 1 and kinds.count(EventKind.HELD) == 1
    states = [result.record.outcomes()[it.item_id].state for it in plan.items]
    assert states == [ItemState.COMMITTED] + [ItemState.CANCELLED_PENDING] * 2


def test_a_released_run_goes_on_and_a_pause_ends_the_hold(corpus, tmp_path) -> None:
    """Released, the held run goes on to its end; paused while held, it stops resumable."""
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=3))
    control = RunControl()

    def release_when_held(ev: RunEvent) -> None:
        if ev.kind is EventKind.ITEM_FINISHED:
            control.hold()
        elif ev.kind is EventKind.HELD:
            control.release()

    done = commit_plan(corpus, plan, control=control, workers=1, on_event=release_when_held)
    assert done.status is RunStatus.COMPLETE

    other = plan_for(corpus, make_shelf(tmp_path / "other", notebooks=3, tag="other"))
    pausing = RunControl()

    def pause_when_held(ev: RunEvent) -> None:
        if ev.kind is EventKind.ITEM_FINISHED:
            pausing.hold()
        elif ev.kind is EventKind.HELD:
            pausing.pause()

    paused = commit_plan(corpus, other, control=pausing, workers=1, on_event=pause_when_held)
    assert paused.paused and paused.status is RunStatus.RUNNING
    states = [paused.record.outcomes()[it.item_id].state for it in other.items]
    assert states == [ItemState.COMMITTED, ItemState.PENDING, ItemState.PENDING]


def test_cancel_of_an_interrupted_run_ends_it(corpus, tmp_path) -> None:
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=3))
    control = RunControl()
    paused = commit_plan(
        corpus,
        plan,
        control=control,
        workers=1,
        on_event=lambda ev: ev.kind is EventKind.ITEM_FINISHED and control.pause(),
    )
    assert paused.paused
    assert [r.run_id for r in interrupted_runs(corpus)] == [paused.run_id]
    record = cancel_run(corpus, paused.run_id)
    assert record.status is RunStatus.CANCELLED_WITH_COMMITS
    assert interrupted_runs(corpus) == []


def test_a_run_read_as_it_ran_is_told_paused_once_it_has_paused(corpus, tmp_path) -> None:
    """A listing that read the record while the run ran, and looks at its lock after the
    pause let it go, says paused: never "interrupted" (the app was closed) in between."""
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=2))
    control = RunControl()
    store = RunStore(corpus)
    read_while_running: list[RunRecord] = []

    def on_event(ev: RunEvent) -> None:
        if ev.kind is EventKind.ITEM_FINISHED:
            read_while_running.append(store.load(ev.run_id))
            control.pause()

    paused = commit_plan(corpus, plan, control=control, workers=1, on_event=on_event)
    assert paused.paused
    stale = read_while_running[0]
    assert not paused_last(stale)  # as it read while it ran: no pause yet
    record, interrupted = store.as_it_stands(stale)
    assert interrupted and paused_last(record)
    assert run_summary(corpus, stale).state is RunState.PAUSED
    assert [r.state for r in interrupted_runs(corpus)] == [RunState.PAUSED]


def test_pause_then_resume_finishes_with_the_same_ids(corpus, tmp_path) -> None:
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=3))
    control = RunControl()
    first = commit_plan(
        corpus,
        plan,
        control=control,
        workers=1,
        on_event=lambda ev: ev.kind is EventKind.ITEM_FINISHED and control.pause(),
    )
    assert first.paused and first.status is RunStatus.RUNNING
    assert RunStore(corpus).load(first.run_id).counts()["committed"] == 1
    resumed = execute_run(corpus, first.run_id)
    assert resumed.status is RunStatus.COMPLETE
    assert resumed.record.attempt == 2
    events = [h["event"] for h in resumed.record.doc["history"]]
    assert events == ["created", "started", "paused", "resumed", "complete"]
    pages = committed_page_ids(corpus, plan)
    for it in plan.items:
        assert pages[it.item_id] == planned_page_ids(it)


def test_a_run_being_executed_is_busy(corpus, tmp_path) -> None:
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=1))
    record, _ = prepare_run(corpus, plan)
    lock = RunStore(corpus).run_lock(record.run_id)
    held = {}

    import threading

    def hold(ev: threading.Event, release: threading.Event) -> None:
        with lock:
            ev.set()
            release.wait(10)

    got, release = threading.Event(), threading.Event()
    t = threading.Thread(target=hold, args=(got, release))
    t.start()
    try:
        assert got.wait(10)
        with pytest.raises(TranscribeError) as info:
            execute_run(corpus, record.run_id)
        held["code"] = info.value.code
    finally:
        release.set()
        t.join()
    assert held["code"] is ErrorCode.RUN_BUSY
    assert locks.try_acquire(lock)
    lock.release()


def test_a_look_at_the_run_lock_is_not_taken_for_an_owner(corpus, tmp_path, monkeypatch) -> None:
    """A listing asks "is this run executed?" by taking its lock for an instant (in this
    process or another): a resume that starts in that instant waits it out instead of
    refusing the run as busy (seen in the window: Resume from Runs while Runs was listing)."""
    import threading

    import filelock

    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=1))
    record, _ = prepare_run(corpus, plan)
    probe = RunStore(corpus).run_lock(record.run_id)
    looked, tried = threading.Event(), threading.Event()
    real_attempt = filelock.FileLock._acquire

    def attempt(self: filelock.FileLock) -> None:
        real_attempt(self)
        if threading.current_thread() is threading.main_thread() and looked.is_set():
            tried.set()  # the resume found the lock held once

    monkeypatch.setattr(filelock.FileLock, "_acquire", attempt)

    def look() -> None:  # held_elsewhere's instant, held until the resume has tried once
        with probe:
            looked.set()
            assert tried.wait(10)

    t = threading.Thread(target=look)
    t.start()
    assert looked.wait(10)
    try:
        result = execute_run(corpus, record.run_id)
    finally:
        tried.set()
        t.join()
    assert result.status is RunStatus.COMPLETE


def test_skip_existing_into_a_notebook_that_has_the_pages(corpus, tmp_path) -> None:
    tree = make_shelf(tmp_path / "box", notebooks=1)
    first = plan_for(corpus, tree)
    commit_plan(corpus, first)
    nbid = first.items[0].notebook_id
    again = plan_for(corpus, tree / "notebook 1", mode=f"into:{nbid}")
    [item] = again.items
    assert {s.duplicate for s in item.sources} == {Duplicate.IN_NOTEBOOK}
    report = validate(corpus, again)
    assert report.ok and [p.code for p in report.warnings] == ["nothing_to_import"]
    result = commit_plan(corpus, again)
    assert result.status is RunStatus.COMPLETE
    outcome = result.record.outcomes()[item.item_id]
    assert outcome.state is ItemState.SKIPPED and len(outcome.skipped_sources) == 3
    assert len(assert_notebook_whole(corpus, nbid)["pages"]) == 3


def test_create_duplicate_adds_the_pages_again(corpus, tmp_path) -> None:
    tree = make_shelf(tmp_path / "box", notebooks=1)
    first = plan_for(corpus, tree)
    commit_plan(corpus, first)
    nbid = first.items[0].notebook_id
    again = plan_for(
        corpus, tree / "notebook 1", mode=f"into:{nbid}", policy_id="transcribe.v1.create_duplicate"
    )
    assert commit_plan(corpus, again).status is RunStatus.COMPLETE
    assert len(assert_notebook_whole(corpus, nbid)["pages"]) == 6


def test_corpus_wide_dedupe_skips_pages_held_by_other_notebooks(corpus, tmp_path) -> None:
    tree = make_shelf(tmp_path / "box", notebooks=1)
    commit_plan(corpus, plan_for(corpus, tree))
    copy = tmp_path / "copy" / "same pages"
    copy.mkdir(parents=True)
    for p in (tree / "notebook 1").iterdir():
        (copy / p.name).write_bytes(p.read_bytes())
    make_image(copy / "page 4.jpg", "a new page")
    plan = plan_for(corpus, copy.parent, dedupe_scope=DedupeScope.CORPUS)
    [item] = plan.items
    dups = [s.duplicate for s in item.sources]
    assert dups.count(Duplicate.IN_CORPUS) == 3 and dups.count(None) == 1
    assert commit_plan(corpus, plan).status is RunStatus.COMPLETE
    assert len(assert_notebook_whole(corpus, item.notebook_id)["pages"]) == 1


def test_file_names_that_are_not_utf8_are_imported(corpus, tmp_path) -> None:
    """Old disks carry Latin-1 names; the plan keeps their exact bytes and finds the files."""
    box = tmp_path / "box"
    make_image(box / "ok 1.jpg", "first")
    make_image(box / "tmp.jpg", "second")
    os.rename(os.fsencode(box / "tmp.jpg"), os.fsencode(box) + b"/caf\xe9 2.jpg")
    plan = plan_for(corpus, box)
    path = tmp_path / "plan.json"
    from transcribe_import.engine.planning.plan import load_plan, save_plan

    save_plan(plan, path)
    loaded = load_plan(path)
    [item] = loaded.items
    assert sorted(s.name for s in item.sources) == ["caf\ufffd 2.jpg", "ok 1.jpg"]
    assert validate(corpus, loaded).ok
    assert commit_plan(corpus, loaded).status is RunStatus.COMPLETE
    assert committed_page_ids(corpus, loaded)[item.item_id] == planned_page_ids(item)


def test_skip_existing_is_judged_again_under_the_notebook_lock(
    corpus, tmp_path, monkeypatch
) -> None:
    """Two commits racing into one notebook with the same files: the pages land once.

    The executor's early look (``notebook_hashes``) is made stale, as when another import
    lands between it and the ingest; the ingest's own check under the notebook lock must
    still skip the bytes the notebook holds by then.
    """
    from transcribe_import.engine.runs import executor

    tree = make_shelf(tmp_path / "box", notebooks=1)
    first = plan_for(corpus, tree)
    commit_plan(corpus, first)
    nbid = first.items[0].notebook_id
    # Planned before the first landed: nothing is marked duplicate in this plan.
    monkeypatch.setattr(executor, "notebook_hashes", lambda corpus, nbid: {})
    again = plan_for(corpus, tree / "notebook 1", mode=f"into:{nbid}")
    for item in again.items:
        again = again.with_item(
            replace(item, sources=tuple(replace(s, duplicate=None) for s in item.sources))
        )
    result = commit_plan(corpus, again)
    assert result.status is RunStatus.COMPLETE
    outcome = result.record.outcomes()[again.items[0].item_id]
    assert outcome.state is ItemState.SKIPPED
    assert {s["classification"] for s in outcome.skipped_sources} == {"duplicate_in_notebook"}
    doc = assert_notebook_whole(corpus, nbid)
    assert len(doc["pages"]) == sum(len(s.pages) for s in first.items[0].imported_sources())


@pytest.mark.parametrize("code", [ErrorCode.CORPUS_BUSY, ErrorCode.READ_ONLY, ErrorCode.DISK_FULL])
def test_a_machine_failure_before_the_first_item_leaves_the_run_resumable(
    corpus, tmp_path, monkeypatch: pytest.MonkeyPatch, code: ErrorCode
) -> None:
    """One rule (executor.RUN_INTERRUPTING) before the loop and in it: stopped, not raised."""
    from transcribe_import.engine.runs import executor

    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=2))
    record, _ = prepare_run(corpus, plan)

    def machine_fails(*args: object) -> object:
        raise TranscribeError(code, f"{code}: the machine, not the run")

    with monkeypatch.context() as m:
        m.setattr(executor, "recover_dead_journals", machine_fails)
        stopped = execute_run(corpus, record.run_id)
    assert stopped.stopped_by == f"{code}: the machine, not the run"
    assert stopped.status is RunStatus.PENDING and not stopped.status.terminal
    assert committed_page_ids(corpus, plan) == {}
    done = execute_run(corpus, record.run_id)
    assert done.status is RunStatus.COMPLETE
    pages = committed_page_ids(corpus, plan)
    assert all(pages[it.item_id] == planned_page_ids(it) for it in plan.items)


def test_a_read_only_notebook_lock_during_an_item_pauses_the_run_and_fails_no_item(
    corpus, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from transcribe_import.engine.runs import executor

    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=2))
    record, _ = prepare_run(corpus, plan)
    real = executor.ingest_checkpoints

    def read_only(*args: object, **kw: object) -> object:
        raise TranscribeError(ErrorCode.READ_ONLY, "the corpus went read-only")

    with monkeypatch.context() as m:
        m.setattr(executor, "ingest_checkpoints", read_only)
        stopped = execute_run(corpus, record.run_id, workers=1)
    assert stopped.stopped_by == "the corpus went read-only"
    outcomes = RunStore(corpus).load(record.run_id).outcomes().values()
    assert not any(o.state is ItemState.FAILED for o in outcomes)
    assert executor.ingest_checkpoints is real
    assert execute_run(corpus, record.run_id).status is RunStatus.COMPLETE
