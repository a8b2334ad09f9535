"""The pace of an attempt counts only the pages it lands itself (api.AttemptPace).

A 100-page notebook is stopped after its first checkpoint; the retry (a new run) and the
resume (the same run) each carry the pages already in through their checkpoints again,
and neither may count them as work: the speed, the time left and the end line follow
the pages the attempt put in, which equal the pages the corpus gained.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from transcribe_import.engine import api
from transcribe_import.engine.runs.executor import EventKind, RunControl, RunEvent, execute_run
from transcribe_import.engine.runs.model import ItemOutcome, ItemState, RunStatus
from transcribe_import.engine.runs.service import prepare_run
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage.corpus import Corpus

from helpers.runs import plan_for
from helpers.shelves import make_pages

PAGES = 100


def _stopped_after_first_checkpoint(corpus: Corpus, tmp_path: Path, pause: bool) -> str:
    make_pages(tmp_path / "shelf" / "Register", PAGES)
    plan = plan_for(corpus, tmp_path / "shelf")
    record, _ = prepare_run(corpus, plan)
    control = RunControl()

    def stop(ev: RunEvent) -> None:
        if ev.kind is EventKind.PAGES_LANDED:
            (control.pause if pause else control.cancel)()

    execute_run(corpus, record.run_id, workers=1, control=control, on_event=stop)
    return record.run_id


def _pages(corpus: Corpus) -> int:
    return sum(nb.page_count for nb in corpus.list_notebooks())


@pytest.mark.parametrize("how", ["retry", "resume"])
def test_only_the_attempts_own_pages_make_its_pace(
    corpus: Corpus, tmp_path: Path, how: str
) -> None:
    run_id = _stopped_after_first_checkpoint(corpus, tmp_path, pause=how == "resume")
    before = _pages(corpus)
    assert 0 < before < PAGES
    prepared = (
        api.prepare_retry(corpus, run_id) if how == "retry" else api.prepare_resume(corpus, run_id)
    )
    start = api.pace_start(corpus, prepared.plan, prepared.record)
    assert sum(start.in_corpus.values()) == before
    assert sum(start.planned.values()) == PAGES

    clock = [0.0]
    pace = api.AttemptPace(start, started_at=0.0)
    seen: list[tuple[int, int]] = []

    def watch(ev: RunEvent) -> None:
        clock[0] += 1.0  # one second per event: the rate is pages per event
        pace.observe(ev)
        seen.append((pace.landed, pace.left))

    result = execute_run(corpus, prepared.run_id, workers=1, on_event=watch)
    assert result.status is RunStatus.COMPLETE
    assert _pages(corpus) == PAGES
    # Every step: what this attempt landed and what is left add up to what it had to do.
    assert all(landed + left == PAGES - before for landed, left in seen[:-1])
    assert pace.landed == PAGES - before and pace.left == 0
    assert pace.rate(clock[0]) == pytest.approx((PAGES - before) / clock[0])
    if how == "retry":  # the new run's own count on disk says the same
        record = RunStore(corpus).load(prepared.run_id)
        assert api.run_summary(corpus, record).pages_landed == PAGES - before


def test_before_any_page_the_pace_is_unknown_not_zero_seconds(corpus: Corpus) -> None:
    pace = api.AttemptPace(api.PaceStart({"item": 10}, {"item": 4}), started_at=0.0)
    assert pace.left == 6 and pace.landed == 0
    assert pace.seconds_left(5.0) is None


def _landed(item: str, pages: int) -> RunEvent:
    outcome = ItemOutcome(item, ItemState.PENDING, "notebook", pages_landed=pages)
    return RunEvent(EventKind.PAGES_LANDED, "run", item, outcome)


def test_the_time_the_stop_question_waits_is_not_the_imports() -> None:
    """Asked at 10 s, the notebook in flight lands its checkpoint at 12 s and waits; the
    answer comes at 70 s, the run ends at 75 s: it ran 10 + 2 + 5 = 17 s, not 75."""
    pace = api.AttemptPace(api.PaceStart({"a": 100}, {"a": 0}), started_at=0.0)
    pace.observe(_landed("a", 40))
    pace.asked(10.0)
    assert pace.seconds(40.0) == 10.0  # while it is open, none of its time counts
    pace.observe(_landed("a", 50))  # the checkpoint in flight, landed at 12 s
    pace.answered(70.0, landed_at=12.0)
    assert pace.seconds(75.0) == 17.0
    assert pace.rate(75.0) == pytest.approx(50 / 17)
    pace.asked(80.0)  # asked again at 80 s (it ran 17 + 5 s by then), nothing landed since
    pace.answered(81.0, landed_at=12.0)
    assert pace.seconds(81.0) == 22.0
    pace.answered(90.0, landed_at=12.0)  # answered twice (the run's end, then the dialog)
    assert pace.seconds(90.0) == 31.0


def test_without_a_question_the_time_is_the_attempts() -> None:
    pace = api.AttemptPace(api.PaceStart({"a": 10}, {"a": 0}), started_at=5.0)
    pace.observe(_landed("a", 10))
    assert pace.seconds(9.0) == 4.0 and pace.rate(9.0) == 2.5
