"""The look pass (planning/look_pass.py): the JPEG and PDF pages' looks, made after the plan.

``plan_paths`` gives a plan whose JPEG and PDF pages have no look yet (a look is a decode of
its own; the scan only hashes and checks them). The command line's ``plan`` runs the pass
before it writes the plan; the window runs it while the review is shown and its commit waits
for it. Both call these, and nothing else decides which pages a pass looks at.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Generator, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from transcribe_import.engine.planning.look_pass import LookStamps
    from transcribe_import.engine.planning.look_progress import LooksMade
    from transcribe_import.engine.planning.plan import ImportPlan, PlanItem
    from transcribe_import.engine.storage.corpus import Corpus


def look_pass(
    plan: ImportPlan,
    *,
    corpus: Corpus | None = None,
    workers: int = 2,
    known: Container[str] = (),
    should_stop: Callable[[], bool] | None = None,
) -> Generator[LooksMade, None, bool]:
    """Make the looks ``plan``'s pages still need (none in ``known``: page keys tried
    already), yielding them as they are found (at least every second, and once at the
    end, with how many pages are done of how many); returns False when ``should_stop``
    ended it early. Apply what it yields with ``with_looks``.

    With ``corpus``, the looks its cache kept (``planning/look_cache``) come in the first
    report, no page is decoded again for them, and each look made is kept there."""
    from transcribe_import.engine.planning import inks
    from transcribe_import.engine.planning import look_pass as lp
    from transcribe_import.engine.planning.look_cache import LookCache

    jobs = lp.pending(plan, known)
    cache = None if corpus is None else LookCache(corpus.root)
    if corpus is not None:
        inks.spill_into(corpus.root)  # a shelf's inks past what memory keeps
    return (yield from lp.make_looks(jobs, workers=workers, should_stop=should_stop, cache=cache))


def pages_to_look_at(plan: ImportPlan, known: Container[str] = ()) -> int:
    """How many pages a look pass of ``plan`` would look at (none in ``known``)."""
    from transcribe_import.engine.planning import look_pass as lp

    return sum(job.pages for job in lp.pending(plan, known))


def with_looks(plan: ImportPlan, looks: Mapping[str, str | None]) -> ImportPlan:
    """``plan`` with the looks a pass found (``plan`` itself when they change nothing)."""
    from transcribe_import.engine.planning.look_pass import with_looks as stamp

    return stamp(plan, looks)


def item_with_looks(item: PlanItem, looks: Mapping[str, str | None]) -> PlanItem:
    """One item with the looks a pass found (``item`` itself when they change nothing)."""
    from transcribe_import.engine.planning.look_pass import item_with_looks as stamp

    return stamp(item, looks)


def look_stamps(plan: ImportPlan) -> LookStamps:
    """What stamps a pass's looks on ``plan``'s items as they come, an item at a time
    (``LookStamps.stamp``: the items changed, each before and after), where ``with_looks``
    walks the whole plan each time."""
    from transcribe_import.engine.planning.look_pass import LookStamps

    return LookStamps(plan)


def blank_pages(plan: ImportPlan) -> dict[str, int]:
    """How many blank pages (no ink: never asked about as rescans) each item of ``plan``
    imports, by item id, for the items that import any: information the faces show once
    ("3 blank pages")."""
    from transcribe_import.engine.planning.lookalikes import blank_pages as count

    return count(plan)
