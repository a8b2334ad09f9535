"""One decoding-memory budget for every worker: huge pages never decode all at once."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from transcribe_import.engine.media import budget, render_vips
from transcribe_import.engine.media.budget import MemoryBudget, estimate
from transcribe_import.engine.runs.model import RunStatus
from transcribe_import.engine.storage.corpus import Corpus

from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_pages


def test_holds_that_do_not_fit_together_wait_for_each_other():
    b = MemoryBudget(100)
    inside: list[int] = []
    start = threading.Barrier(4)

    def work() -> None:
        start.wait()
        with b.hold(60):
            inside.append(b.in_use)
            # Work done while holding (the behaviour under test: the others ask meanwhile
            # and must wait); the test waits for the threads by joining them, not by time.
            time.sleep(0.01)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert inside == [60, 60, 60, 60] and b.peak == 60 and b.in_use == 0


def test_a_page_larger_than_the_budget_runs_alone_and_is_not_refused():
    b = MemoryBudget(100)
    with b.hold(30):
        done = threading.Event()

        def huge() -> None:
            with b.hold(10_000):
                assert b.in_use == 100  # the whole budget, alone
            done.set()

        t = threading.Thread(target=huge)
        t.start()
        assert not done.wait(0.05)  # waits while another decode holds memory
    t.join(timeout=10)
    assert done.is_set() and b.in_use == 0 and b.peak == 100


def test_the_default_budget_is_a_quarter_of_memory_within_bounds():
    assert budget.MIN_BUDGET <= budget.default_budget() <= budget.MAX_BUDGET
    assert estimate(11_000, 8_000) > 1_000_000_000  # an 88-megapixel page: over a gigabyte


def test_a_commit_with_many_workers_stays_inside_the_budget(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    size = (300, 400)
    make_pages(tmp_path / "shelf" / "a", 6, size=size, name="a {i}.png")
    make_pages(tmp_path / "shelf" / "b", 6, size=size, name="b {i}.png", tag="b")
    make_pages(tmp_path / "shelf" / "c", 6, size=size, name="c {i}.png", tag="c")
    one_page = render_vips.estimate(*size, size, streamed=True)  # libvips renders them
    tight = MemoryBudget(one_page * 3 // 2)  # room for one page at a time
    monkeypatch.setattr(budget, "DECODE_BUDGET", tight)
    seen: list[int] = []
    real = render_vips.render_image

    def watched(*args, **kw):
        result = real(*args, **kw)
        seen.append(tight.peak)
        return result

    monkeypatch.setattr(render_vips, "render_image", watched)
    result = commit_plan(corpus, plan_for(corpus, tmp_path / "shelf"), workers=6)
    assert result.status is RunStatus.COMPLETE
    # Never two pages at once (a page Pillow renders holds its own, larger, estimate: all of
    # this budget).
    assert len(seen) == 18 and one_page <= tight.peak <= tight.limit < 2 * one_page
    assert tight.in_use == 0
