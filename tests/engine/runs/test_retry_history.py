"""Every retry is in the History of the run it retries: a retry, and a refused one with why.

A run is cancelled after its first checkpoint of a 70-page notebook. Committing its plan
again retries it (a new run, named in the ended run's History); when a page not landed yet
has changed since, or the run's frozen plan is damaged, the retry is refused, no run
begins, and the ended run's History says why.
"""

from __future__ import annotations

from pathlib import Path

import filelock
import pytest

from transcribe_import.engine import api
from transcribe_import.engine.runs.executor import EventKind, RunControl, RunEvent, execute_run
from transcribe_import.engine.runs.model import HistoryEvent, RunCorrupt, RunStatus
from transcribe_import.engine.runs.service import prepare_run
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage.corpus import Corpus

from helpers import holding
from helpers.cli import Exit, start_cli
from helpers.runs import plan_for
from helpers.shelves import make_pages

PAGES = 70


def _cancelled_part_way(corpus: Corpus, tmp_path: Path) -> str:
    make_pages(tmp_path / "shelf" / "Register", PAGES)
    record, _ = prepare_run(corpus, plan_for(corpus, tmp_path / "shelf"))
    control = RunControl()

    def stop(ev: RunEvent) -> None:
        if ev.kind is EventKind.PAGES_LANDED:
            control.cancel()

    result = execute_run(corpus, record.run_id, workers=1, control=control, on_event=stop)
    assert result.status is RunStatus.CANCELLED
    return record.run_id


def _last(corpus: Corpus, run_id: str) -> api.HistoryEntry:
    return api.run_history(RunStore(corpus).load(run_id))[-1]


def test_a_retry_is_named_in_the_history_of_the_run_it_retries(
    corpus: Corpus, tmp_path: Path
) -> None:
    run_id = _cancelled_part_way(corpus, tmp_path)
    retry = api.prepare_retry(corpus, run_id)
    assert retry.run_id != run_id and not retry.continued
    last = _last(corpus, run_id)
    assert last.event is HistoryEvent.RETRIED and last.detail["retry_run_id"] == retry.run_id
    assert last.requested_by  # a person asked for it
    created = api.run_history(retry.record)[0]
    assert created.event is HistoryEvent.CREATED and created.detail["retry_of"] == run_id


def test_a_retry_refused_by_validation_says_why(corpus: Corpus, tmp_path: Path) -> None:
    run_id = _cancelled_part_way(corpus, tmp_path)
    with (tmp_path / "shelf" / "Register" / f"page {PAGES}.jpg").open("ab") as f:
        f.write(b"\0" * 64)
    with pytest.raises(api.PlanInvalid):
        api.prepare_retry(corpus, run_id)
    assert [r.run_id for r in RunStore(corpus).list_runs()] == [run_id]  # no new run
    last = _last(corpus, run_id)
    assert last.event is HistoryEvent.RETRY_REFUSED
    assert "the plan no longer validates (1 error)" in last.detail["why"]
    assert f"page {PAGES}.jpg" in last.detail["why"]


def test_a_retry_refused_for_a_damaged_frozen_plan_says_why(corpus: Corpus, tmp_path: Path) -> None:
    run_id = _cancelled_part_way(corpus, tmp_path)
    snapshot = RunStore(corpus).plan_path(run_id)
    snapshot.write_bytes(b"{ not json")
    with pytest.raises(RunCorrupt):
        api.prepare_retry(corpus, run_id)
    last = _last(corpus, run_id)
    assert last.event is HistoryEvent.RETRY_REFUSED and str(snapshot) in last.detail["why"]


def test_a_retry_refused_by_a_busy_corpus_says_why(corpus: Corpus, tmp_path: Path) -> None:
    """A real `commit` of the cancelled run's plan while another process holds the corpus
    lock: refused (exit 5), no new run, and once the lock is free the History says why."""
    run_id = _cancelled_part_way(corpus, tmp_path)
    plan = RunStore(corpus).plan_path(run_id)
    holder = filelock.FileLock(corpus.root / ".lock")
    env = {**holding.stop_at("retry.before_refusal_noted"), "TRANSCRIBE_LOCK_TIMEOUT": "0.2"}
    with holder.acquire(timeout=5):
        commit = start_cli(corpus.data_dir, "commit", str(plan), env=env)
        try:
            holding.wait_stopped(commit)  # refused, about to write the refusal
        except BaseException:
            holding.finish(commit)
            raise
    holding.go_on(commit)  # the corpus lock is free again: the History can be written
    _out, err = holding.finish(commit)
    assert commit.returncode == Exit.LOCKED, err
    assert "is busy (another process holds its lock)" in err
    assert [r.run_id for r in RunStore(corpus).list_runs()] == [run_id]  # no new run
    last = _last(corpus, run_id)
    assert last.event is HistoryEvent.RETRY_REFUSED
    assert "is busy (another process holds its lock)" in last.detail["why"]
