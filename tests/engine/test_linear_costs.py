"""Nothing in planning or validation grows faster than the shelf: work counted, not timed.

Each step runs on shelves of N, 2N and 4N pages, and what it does is counted: every call of
a Python function and of a built-in one (``sys.setprofile`` and ``threading.setprofile``,
the look pass's threads included). Time is not measured, so a busy machine cannot fail
these nor hide a fault. A step whose work is linear does twice the extra work from 2N to 4N
that it did from N to 2N (a fixed cost cancels out); one that compares every page with
every other does four times. The limit, 2.5, leaves room for the pages' own variety.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from transcribe_import.engine import api
from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.planning import inks, look_pass, ordering
from transcribe_import.engine.planning.plan import (
    ImportPlan,
    Op,
    PlanItem,
    PlanPage,
    PlanSource,
    SourceProvenance,
    load_plan,
    save_plan,
)
from transcribe_import.engine.planning.plan_document import fingerprint_of
from transcribe_import.engine.storage.corpus import Corpus

from helpers.counting import LIMIT, counted, growth, tiny_shelf

SIZES = (80, 160, 320)


@pytest.fixture
def shelves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[Corpus, Path]]:
    # The look pass in this process, where its calls are counted (a large one uses workers).
    monkeypatch.setattr(look_pass, "PROCESSES_FROM", 10**9)
    return [
        (Corpus.open(tmp_path / f"data-{n}"), tiny_shelf(tmp_path / f"shelf-{n}", n)) for n in SIZES
    ]


def _planned(corpus: Corpus, root: Path) -> ImportPlan:
    planned = api.plan_paths(corpus, api.PlanRequest((root,)))
    assert planned is not None
    looks: dict[str, str | None] = {}
    for made in api.look_pass(planned.plan, corpus=corpus, workers=2):
        looks.update(made.looks)
    return api.with_looks(planned.plan, looks)


def test_planning_and_validating_grow_in_a_straight_line_with_the_shelf(
    shelves: list[tuple[Corpus, Path]], tmp_path: Path
) -> None:
    counts: dict[str, list[int]] = {
        "plan": [],
        "validate": [],
        "save": [],
        "open": [],
        "fingerprint": [],
        "plan again": [],
    }
    for (corpus, root), n in zip(shelves, SIZES, strict=True):
        calls, plan = counted(lambda c=corpus, r=root: _planned(c, r))
        assert plan.imported_page_count() == n
        counts["plan"].append(calls)
        calls, report = counted(lambda c=corpus, p=plan: api.validate_plan(c, p))
        assert report.ok, report.errors[:3]
        counts["validate"].append(calls)
        path = tmp_path / f"plan-{n}.json"
        counts["save"].append(counted(lambda p=plan, f=path: save_plan(p, f))[0])
        calls, opened = counted(lambda f=path: load_plan(f))  # what Open Plan… reads
        assert opened.imported_page_count() == n
        counts["open"].append(calls)
        doc = opened.to_document(with_fingerprint=False)
        counts["fingerprint"].append(counted(lambda d=doc: fingerprint_of(d))[0])
        # The same shelf planned again in its corpus, in a new process (Scan Again, a plan
        # made again): its looks and verdicts read from the corpus's caches.
        inks.forget()
        calls, again = counted(lambda c=corpus, r=root: api.validate_plan(c, _planned(c, r)))
        assert again.ok
        counts["plan again"].append(calls)
    grown = {step: round(growth(c), 2) for step, c in counts.items()}
    assert all(g <= LIMIT for g in grown.values()), (grown, counts)


def _notebook(names: list[str]) -> list[PlanSource]:
    return [
        PlanSource(
            new_id(),
            "0" * 64,
            "image/jpeg",
            (PlanPage(new_id(), new_id(), 0),),
            SourceProvenance(f"/scans/{name}", f"box/{name}", 1000, "2024-01-01T00:00:00Z", 0),
        )
        for name in names
    ]


@pytest.mark.parametrize(
    "scheme",
    [
        # Page numbers with gaps: the missing pages check.
        lambda size, n: f"book {size} p{n + n // 7 + 1}.jpg",
        lambda size, n: f"IMG_{size * 10 + n:05d}.jpg",  # a camera's counter
        lambda size, n: f"f. {size + n // 2}{'rv'[n % 2]}.jpg",  # leaves and sides
        lambda size, n: f"scan {size} 2023-05-{n % 28 + 1:02d} {n}.jpg",  # dates and numbers
    ],
)
def test_a_notebooks_order_and_its_checks_grow_in_a_straight_line_with_it(scheme) -> None:
    """The proposed order and the order checks of one notebook of N, 2N and 4N pages (the
    shelf above has notebooks of 20): its names are read once each, whatever the scheme,
    and no name is compared with every other. Each size's names are its own, so no
    reading kept from another size is counted as done."""
    counts: list[int] = []
    for size in (250, 500, 1000):
        sources = _notebook([scheme(size, n) for n in range(size)])

        def order_and_check(s: list[PlanSource] = sources) -> int:
            item = PlanItem(
                new_id(), Op.CREATE_NOTEBOOK, new_id(), "book", tuple(ordering.propose_order(s))
            )
            return len(ordering.find_ambiguities(item))

        calls, _found = counted(order_and_check)
        counts.append(calls)
    assert growth(counts) <= LIMIT, counts


def test_the_count_tells_a_quadratic_step_from_a_linear_one() -> None:
    """The measure itself: a step that compares every item with every other fails it."""

    def pairs(n: int) -> int:
        items = list(range(n))
        return sum(1 for a in items for b in items if max(a, b) < 0)

    def once(n: int) -> int:
        return sum(max(a, 0) for a in range(n))

    quadratic = [counted(lambda n=n: pairs(n))[0] for n in SIZES]
    linear = [counted(lambda n=n: once(n))[0] for n in SIZES]
    assert growth(quadratic) > 3.5
    assert growth(linear) <= LIMIT


def test_listing_the_notebooks_grows_in_a_straight_line_with_the_corpus(tmp_path: Path) -> None:
    """What ``notebooks --json`` and the Corpus view read: every notebook with its state,
    and why the listing may be incomplete."""
    counts: dict[str, list[int]] = {"list": [], "problems": []}
    for n in (40, 80, 160):
        corpus = Corpus.open(tmp_path / f"data-{n}")
        for i in range(n):
            corpus.create_notebook(f"{i:08x}-0000-4000-8000-000000000000", f"Box {i:04}")
        calls, listed = counted(lambda c=corpus: api.list_notebooks(c))
        assert len(listed) == n
        counts["list"].append(calls)
        calls, problems = counted(lambda c=corpus: api.listing_problems(c))
        assert problems == []
        counts["problems"].append(calls)
    grown = {step: round(growth(c), 2) for step, c in counts.items()}
    assert all(g <= LIMIT for g in grown.values()), (grown, counts)
