"""The run store (engine/runs/store.py, records in engine/runs/model.py): the status table,
outcomes that only move forward, a terminal status written once, attempts that fence
each other off, and a terminal run that is never reopened."""

from __future__ import annotations

import errno
from pathlib import Path

import orjson
import pytest

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.runs import store as store_module
from transcribe_import.engine.runs.executor import execute_run
from transcribe_import.engine.runs.model import (
    AttemptSuperseded,
    ItemOutcome,
    ItemState,
    RunStatus,
    SkipReason,
    terminal_status,
)
from transcribe_import.engine.runs.service import prepare_run
from transcribe_import.engine.runs.store import RunStore, run_short_ids

from helpers.legacy import to_legacy_plan_layout
from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_shelf

# The corpus fixture is the shared one (tests/conftest.py).


def test_terminal_status_table() -> None:
    def o(state: ItemState) -> ItemOutcome:
        return ItemOutcome(new_id(), state, new_id())

    c, s, f, p = ItemState.COMMITTED, ItemState.SKIPPED, ItemState.FAILED, ItemState.PENDING
    assert terminal_status([o(c), o(s)], cancelled=False) is RunStatus.COMPLETE
    assert terminal_status([o(s)], cancelled=False) is RunStatus.COMPLETE
    assert terminal_status([o(c), o(f)], cancelled=False) is RunStatus.PARTIAL
    assert terminal_status([o(f), o(s)], cancelled=False) is RunStatus.FAILED
    assert terminal_status([o(p)], cancelled=True) is RunStatus.CANCELLED
    assert terminal_status([o(c), o(p)], cancelled=True) is RunStatus.CANCELLED_WITH_COMMITS


def test_outcomes_move_forward_only_and_terminal_is_written_once(corpus, tmp_path) -> None:
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=1))
    result = commit_plan(corpus, plan)
    store = RunStore(corpus)
    item = plan.items[0]
    with pytest.raises(TranscribeError) as info:
        store.finish(result.run_id, None, RunStatus.FAILED)
    assert info.value.code is ErrorCode.RUN_TERMINAL
    rec = store.load(result.run_id)
    with pytest.raises(ValueError, match="only move forward"):
        store.record_outcome(
            result.run_id,
            rec.attempt,
            ItemOutcome(item.item_id, ItemState.FAILED, item.notebook_id),
        )
    assert store.load(result.run_id).outcomes()[item.item_id].state is ItemState.COMMITTED


def test_a_superseded_attempt_stands_down(corpus, tmp_path) -> None:
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=2))
    record, _ = prepare_run(corpus, plan)
    store = RunStore(corpus)
    mine = store.begin_attempt(record.run_id).attempt
    newer = store.begin_attempt(record.run_id).attempt  # another process resumed the run
    assert newer == mine + 1
    item = plan.items[0]
    with pytest.raises(AttemptSuperseded):
        store.record_outcome(
            record.run_id, mine, ItemOutcome(item.item_id, ItemState.COMMITTED, item.notebook_id)
        )
    assert store.load(record.run_id).outcomes()[item.item_id].state is ItemState.PENDING


def test_a_terminal_run_is_never_reopened(corpus, tmp_path) -> None:
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=1))
    result = commit_plan(corpus, plan)
    with pytest.raises(TranscribeError) as info:
        RunStore(corpus).begin_attempt(result.run_id)
    assert info.value.code is ErrorCode.RUN_TERMINAL
    # Named as every list names the run (its short id), with what became of it and what to do.
    short = run_short_ids(corpus)(result.run_id)
    assert str(info.value).startswith(f"Run {short} already ended (complete); a finished run")
    assert result.run_id not in str(info.value)


def test_two_committers_of_one_plan_at_once_make_one_run(data_dir, tmp_path) -> None:
    """The binding of a plan to its run is decided under the corpus lock (one live run)."""
    import threading

    from transcribe_import.engine.storage.corpus import Corpus

    from helpers.runs import plan_for
    from helpers.shelves import make_shelf

    plan = plan_for(Corpus.open(data_dir), make_shelf(tmp_path / "shelf", notebooks=2))
    start = threading.Barrier(4)
    results: list[tuple[str, bool]] = []
    errors: list[BaseException] = []

    def commit_side() -> None:
        corpus = Corpus.open(data_dir)  # its own lock file handle, as another process has
        start.wait()
        try:
            record, existing = prepare_run(corpus, plan)
            results.append((record.run_id, existing))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=commit_side) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    assert len({run_id for run_id, _ in results}) == 1
    assert sorted(existing for _, existing in results) == [False, True, True, True]
    assert len(RunStore(Corpus.open(data_dir)).run_ids()) == 1


# -- the frozen plan snapshot: import-runs/plans/, and the move of older corpora ------------


def test_the_frozen_plan_lives_where_no_reader_of_runs_looks(corpus, tmp_path) -> None:
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=1))
    result = commit_plan(corpus, plan)
    runs = corpus.runs_dir
    assert sorted(p.name for p in runs.glob("*.json")) == sorted(
        ["index.json", f"{result.run_id}.json"]
    )
    assert (runs / "plans" / f"{result.run_id}.json").is_file()
    record = orjson.loads((runs / f"{result.run_id}.json").read_bytes())
    assert record["plan_snapshot"] == f"plans/{result.run_id}.json"
    assert RunStore(corpus).load_plan(result.run_id).fingerprint == plan.fingerprint


def test_an_older_corpus_is_migrated_on_open_and_read_before_it_is(
    data_dir: Path, corpus, tmp_path: Path
) -> None:
    from transcribe_import.engine import api

    done = commit_plan(corpus, plan_for(corpus, make_shelf(tmp_path / "a", notebooks=1)))
    later = plan_for(corpus, make_shelf(tmp_path / "b", notebooks=1, tag="b"))
    pending, _ = prepare_run(corpus, later)
    ids = to_legacy_plan_layout(data_dir)
    assert sorted(ids) == sorted([done.run_id, pending.run_id])
    before = {i: orjson.loads((corpus.runs_dir / f"{i}.json").read_bytes()) for i in ids}
    # Not migrated yet (a read-only corpus, a migration cut short): still readable.
    assert RunStore(corpus).load_plan(pending.run_id).fingerprint == later.fingerprint

    opened = api.open_corpus(data_dir)
    runs = opened.runs_dir
    assert not list(runs.glob("*.plan.json"))
    for i in ids:
        assert (runs / "plans" / f"{i}.json").is_file()
        after = orjson.loads((runs / f"{i}.json").read_bytes())
        # Only the snapshot's name changed: the run itself (updated_at included) did not.
        assert after == {**before[i], "plan_snapshot": f"plans/{i}.json"}
    assert RunStore(opened).migrate_plan_snapshots() == 0  # nothing left: one listing
    resumed = execute_run(opened, pending.run_id)
    assert resumed.status is RunStatus.COMPLETE


@pytest.mark.slow
def test_a_migration_the_corpus_lock_postpones_changes_nothing(
    data_dir: Path, corpus, tmp_path: Path
) -> None:
    import filelock

    from transcribe_import.engine import api

    commit_plan(corpus, plan_for(corpus, make_shelf(tmp_path / "a", notebooks=1)))
    (run_id,) = to_legacy_plan_layout(data_dir)
    other = filelock.FileLock(corpus.root / ".lock", thread_local=False)
    with other:  # another process's critical section: the open does not wait it out
        opened = api.open_corpus(data_dir)
    assert (opened.runs_dir / f"{run_id}.plan.json").is_file()
    assert RunStore(opened).load_plan(run_id)  # read from the old place meanwhile
    assert RunStore(api.open_corpus(data_dir)).legacy_plan_ids() == []


# -- outcomes: an append-only log beside the record, compacted by every other write ---------


def test_an_outcome_is_appended_to_the_log_not_rewritten_into_the_record(corpus, tmp_path) -> None:
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=3, pages=1))
    record, _ = prepare_run(corpus, plan)
    store = RunStore(corpus)
    record = store.begin_attempt(record.run_id)
    path, log = store.record_path(record.run_id), store.outcomes_path(record.run_id)
    before = path.read_bytes()
    first, second, third = plan.items
    for it in (first, second):
        store.record_outcome(
            record.run_id,
            record.attempt,
            ItemOutcome(it.item_id, ItemState.SKIPPED, it.notebook_id),
        )
    assert path.read_bytes() == before  # O(1): the record is not rewritten per outcome
    assert len(log.read_bytes().splitlines()) == 2
    # A kill mid-append leaves a torn last line: ignored, never taken for an outcome.
    torn = orjson.dumps({"attempt": record.attempt, "outcome": {"item_id": third.item_id}})
    log.write_bytes(log.read_bytes() + torn[:25])
    fresh = RunStore(corpus).load(record.run_id)  # record + log are the truth
    assert fresh.counts()["skipped"] == 2 and fresh.counts()["pending"] == 1
    # The next append starts a line of its own after the fragment; forward only still holds.
    other = RunStore(corpus)
    other.record_outcome(
        record.run_id,
        record.attempt,
        ItemOutcome(third.item_id, ItemState.SKIPPED, third.notebook_id),
    )
    with pytest.raises(ValueError, match="only move forward"):
        other.record_outcome(
            record.run_id,
            record.attempt,
            ItemOutcome(first.item_id, ItemState.FAILED, first.notebook_id),
        )
    assert RunStore(corpus).load(record.run_id).counts()["skipped"] == 3
    # Any other write compacts: the record holds every outcome and the log is gone.
    done = store.finish(record.run_id, record.attempt, RunStatus.COMPLETE)
    assert not log.exists()
    on_disk = orjson.loads(path.read_bytes())
    assert [d["state"] for d in on_disk["items"]] == ["skipped"] * 3
    assert done.status is RunStatus.COMPLETE


def test_a_newer_attempt_fences_off_an_older_one_writing_to_the_log(corpus, tmp_path) -> None:
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=2, pages=1))
    record, _ = prepare_run(corpus, plan)
    old_store = RunStore(corpus)
    old = old_store.begin_attempt(record.run_id)
    a, b = plan.items
    old_store.record_outcome(
        record.run_id, old.attempt, ItemOutcome(a.item_id, ItemState.SKIPPED, a.notebook_id)
    )
    RunStore(corpus).begin_attempt(record.run_id)  # another process took the run over
    with pytest.raises(AttemptSuperseded):
        old_store.record_outcome(
            record.run_id, old.attempt, ItemOutcome(b.item_id, ItemState.SKIPPED, b.notebook_id)
        )
    assert RunStore(corpus).load(record.run_id).counts()["skipped"] == 1


def _disk_error(*_: object, **__: object) -> None:
    raise OSError(errno.EIO, "Input/output error")


@pytest.mark.parametrize("fails", ["record", "log", "index"])
def test_a_failed_record_update_says_what_it_left(
    corpus, tmp_path, monkeypatch: pytest.MonkeyPatch, fails: str
) -> None:
    """A cancel request whose update a disk error cuts short: "nothing was changed" only
    when the record was not written; after it, the error says the change was saved and
    what the failure left, and both are so."""
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=2, pages=1))
    record, _ = prepare_run(corpus, plan)
    store = RunStore(corpus)
    record = store.begin_attempt(record.run_id)
    a = plan.items[0]
    store.record_outcome(
        record.run_id, record.attempt, ItemOutcome(a.item_id, ItemState.SKIPPED, a.notebook_id)
    )
    log = store.outcomes_path(record.run_id)
    if fails == "record":
        monkeypatch.setattr(store_module.fsio, "atomic_write", _disk_error)
    elif fails == "log":
        monkeypatch.setattr(store_module.fsio, "remove", _disk_error)
    else:
        monkeypatch.setattr(RunStore, "_update_index", _disk_error)
    with pytest.raises(TranscribeError) as info:
        store.request_cancel(record.run_id)
    said = str(info.value)
    monkeypatch.undo()
    saved = RunStore(corpus).load(record.run_id).cancel_requested
    if fails == "record":
        assert said.endswith("Check the disk and try again; nothing was changed.")
        assert not saved
        return
    assert f"the change was saved in run {record.run_id}'s record" in said
    assert "nothing was changed" not in said and saved
    if fails == "log":
        assert str(log) in said and log.exists()
        # "removed by the run's next change"
        store.mark_paused(record.run_id, record.attempt)
        assert not log.exists()
    else:
        assert str(store.index_path) in said and not log.exists()
        row = orjson.loads(store.index_path.read_bytes())["runs"].get(record.run_id)
        assert row is None or row["updated_at"] != store.load(record.run_id).doc["updated_at"]
        # "which the run's next change rewrites"
        paused = store.mark_paused(record.run_id, record.attempt)
        row = orjson.loads(store.index_path.read_bytes())["runs"][record.run_id]
        assert row["updated_at"] == paused.doc["updated_at"]


@pytest.mark.allow_logged_warnings(r"cancel marker of ended run .* left in place")
def test_a_cancel_marker_the_disk_will_not_remove_leaves_the_run_ended(
    corpus, tmp_path, monkeypatch, caplog
) -> None:
    """The ended status is written first; a marker left beside the ended run is logged, not
    raised: the run reads cancelled everywhere and no executor ever polls it again."""
    plan = plan_for(corpus, make_shelf(tmp_path / "box", notebooks=1, pages=1))
    record, _ = prepare_run(corpus, plan)
    store = RunStore(corpus)
    store.request_cancel(record.run_id)
    marker = store.cancel_marker(record.run_id)
    assert marker.exists()
    real_remove = store_module.fsio.remove

    def remove(path: Path, **kw: object) -> None:
        if path == marker:
            raise OSError(errno.EIO, "Input/output error", str(path))
        real_remove(path, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(store_module.fsio, "remove", remove)
    with caplog.at_level("WARNING"):
        ended = store.finish(record.run_id, None, RunStatus.CANCELLED)
    monkeypatch.undo()
    assert ended.status is RunStatus.CANCELLED
    assert RunStore(corpus).load(record.run_id).status is RunStatus.CANCELLED
    assert marker.exists() and record.run_id in caplog.text


def test_a_skipped_items_reason_reads_back_as_its_enum() -> None:
    skipped = ItemOutcome("i", ItemState.SKIPPED, "n", (), 0, (), SkipReason.ALL_DUPLICATES)
    doc = skipped.to_json()
    assert doc["skip_classification"] == "all_duplicates"
    assert ItemOutcome.from_json(doc).skip_classification is SkipReason.ALL_DUPLICATES
    # A reason a newer version wrote: the item still reads, as skipped for no known reason.
    newer = ItemOutcome.from_json({**doc, "skip_classification": "moved_elsewhere"})
    assert newer.state is ItemState.SKIPPED and newer.skip_classification is None
