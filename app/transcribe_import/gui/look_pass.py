"""The look pass of the plan under review, run on a worker while the person reviews it.

The scan leaves the JPEG and PDF pages' looks (what finds rescans) to a pass of their own
(engine planning/look_pass.py), so the review opens at the speed of hashing the files. This
runs that pass for each plan the session is given and hands its looks to the session:
the first as soon as they come (the first questions are asked early), then at most every
``STAMP_INTERVAL_S`` (each stamp changes the plan, and a changed plan is validated again:
a validation a second would compete with the pass for the cores), and all that is left at
the end. The commit waits for the end (``ImportSession.looking``).

The looks are stamped on the plan's items where the pass runs (``api.look_stamps``: only
the items each report is about), and the window's thread only puts the items stamped in
its plan: stamping the whole plan there took 0.3-1.5 s each time for 100,000 sources
(bench/bench_gui.py, the window unanswered meanwhile).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator

from PySide6.QtCore import QObject, Signal

from transcribe_import.engine import api
from transcribe_import.engine.api import Corpus
from transcribe_import.engine.planning.look_progress import LooksMade
from transcribe_import.engine.planning.plan import ImportPlan, PlanItem
from transcribe_import.gui.session import ImportSession
from transcribe_import.gui.workers import TaskSlot

STAMP_INTERVAL_S = 5.0


# The items a pass stamped its looks on: item id → (the item before, the item after).
Stamped = dict[str, tuple[PlanItem, PlanItem]]


def look_at_pages(
    corpus: Corpus, plan: ImportPlan, workers: int, stop: threading.Event, generation: int
) -> Generator[tuple[int, LooksMade, Stamped], None, int]:
    """The engine's look pass of ``plan`` (the looks ``corpus`` kept first), each report
    tagged with the pass it is of and with the items of ``plan`` its looks were stamped on
    (on this, the pass's thread)."""
    stamps = api.look_stamps(plan)
    passing = api.look_pass(plan, corpus=corpus, workers=workers, should_stop=stop.is_set)
    for made in passing:
        yield generation, made, stamps.stamp(made.looks)
    return generation


class LookPass(QObject):
    """Runs the look pass of each plan the session is given; at most one pass at a time."""

    failed = Signal(str)  # why the pass stopped: the pages it had not reached are not compared

    def __init__(
        self,
        corpus: Corpus,
        session: ImportSession,
        workers: Callable[[], int],
        parent: QObject | None = None,
    ):
        super().__init__(parent)
        self._corpus = corpus
        self._session = session
        self._workers = workers  # the threads a pass uses: the import settings' workers
        self._generation = 0
        self._stop = threading.Event()
        self._held: dict[str, str | None] = {}  # found, not yet stamped
        self._held_items: Stamped = {}  # the items they were stamped on, not yet in the plan
        self._stamped_at = 0.0
        self._slot = TaskSlot(self, progress=self._reported, failed=self._failed)
        # The pass of the plan set last, waiting for that plan's first validation to end.
        self._waiting: tuple[ImportPlan, int, threading.Event] | None = None
        session.plan_changed.connect(self._plan_changed)

    def is_running(self) -> bool:
        return self._slot.is_busy()

    def close(self) -> None:
        """Stop the pass and wait for it (the window is closing)."""
        self._waiting = None
        self._stop.set()
        self._slot.close()

    def _plan_changed(self) -> None:
        self._stop.set()  # the pass of the plan before ends at its next file
        self._waiting = None
        self._generation += 1
        self._held = {}
        self._held_items = {}
        self._stamped_at = 0.0
        plan = self._session.plan
        if plan is None:
            return
        self._stop = threading.Event()
        self._session.begin_looks()  # at once: nothing may commit the plan before its looks
        # Started once the plan's first validation has ended (``validated``): the two at
        # once are four busy threads on two cores, and the window's thread, waiting its turn
        # for the GIL among them, went unanswered for 100-300 ms at a time (bench_gui).
        self._waiting = (plan, self._generation, self._stop)

    def validated(self) -> None:
        """A validation ended (with a report or not): the pass waiting for it starts."""
        waiting, self._waiting = self._waiting, None
        if waiting is None:
            return
        plan, generation, stop = waiting
        if generation != self._generation or stop.is_set():
            return
        # Waits its turn if the pass before has not ended yet (a file per thread at most).
        self._slot.run(look_at_pages, self._corpus, plan, self._workers(), stop, generation)

    def _reported(self, report: tuple[int, LooksMade, Stamped]) -> None:
        generation, made, stamped = report
        if generation != self._generation:
            return  # of a plan no longer under review
        self._held.update(made.looks)
        for item_id, (before, after) in stamped.items():
            # Held since an earlier report: from the item before that one, to this one.
            first = self._held_items.get(item_id, (before, after))[0]
            self._held_items[item_id] = (first, after)
        now = time.monotonic()
        due = bool(self._held) and now - self._stamped_at >= STAMP_INTERVAL_S  # first: at once
        if made.finished or due:
            held, self._held = self._held, {}
            items, self._held_items = self._held_items, {}
            self._stamped_at = now
        else:
            held, items = {}, {}
        self._session.add_looks(
            held, items, done=made.pages_done, total=made.pages_total, finished=made.finished
        )

    def _failed(self, message: str) -> None:
        self._session.end_looks()
        self.failed.emit(message)
