"""The pace of one attempt at a run: the pages it lands itself, its speed, the time left.

Only this attempt's pages count. A retry recognises the pages earlier runs of its plan
landed, and a resume the pages earlier attempts landed; finding them takes no time, so
counting them would make the speed read 68 pages/s and the time left "about 0 s" while
most of the work is still ahead. The commit view and the CLI's progress line both read
their speed and time left from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.planning.plan import ImportPlan
from transcribe_import.engine.runs.model import EventKind, RunEvent, RunRecord
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus


@dataclass(frozen=True)
class PaceStart:
    """Where an attempt starts: per unfinished item, the pages it plans and those in already."""

    planned: dict[str, int] = field(default_factory=dict)
    in_corpus: dict[str, int] = field(default_factory=dict)


def pace_start(corpus: Corpus, plan: ImportPlan, record: RunRecord) -> PaceStart:
    """The unfinished items of ``record`` with their pages, and how many of their page ids
    the corpus holds already (each notebook read once; an unreadable one holds none)."""
    outcomes = record.outcomes()
    items = [it for it in plan.items if not outcomes[it.item_id].state.final]
    held: dict[str, frozenset[str]] = {}
    for nbid in {it.notebook_id for it in items}:
        try:
            held[nbid] = project.ids_of(project.read(corpus.notebook_dir(nbid), nbid)).landed
        except (TranscribeError, OSError, ValueError):
            held[nbid] = frozenset()
    return PaceStart(
        planned={it.item_id: it.imported_page_count() for it in items},
        in_corpus={
            it.item_id: sum(
                p.page_id in held[it.notebook_id] for s in it.imported_sources() for p in s.pages
            )
            for it in items
        },
    )


class AttemptPace:
    """Pages this attempt landed, read from the run's events as they come.

    An outcome in an event counts the pages of its item in the notebook, this run's
    (``pages_landed``, an earlier attempt's too) and other runs' (``pages_already_in``). So
    an item's own pages are the last count seen for it less the pages it had in the corpus
    at the start.
    """

    def __init__(self, start: PaceStart, started_at: float) -> None:
        self.start = start
        self.started_at = started_at
        self._carried: dict[str, int] = {}  # item → pages its checkpoints carried so far
        self._finished: set[str] = set()
        self._asked_at: float | None = None  # the stop question has been open since
        self._waited = 0.0  # seconds spent waiting for earlier answers

    def observe(self, event: RunEvent) -> None:
        o = event.outcome
        if event.item_id is None or o is None or event.item_id not in self.start.planned:
            return
        if event.kind is EventKind.ITEM_FINISHED:
            self._finished.add(event.item_id)
        if event.kind in (EventKind.PAGES_LANDED, EventKind.ITEM_FINISHED):
            self._carried[event.item_id] = o.pages_landed + o.pages_already_in

    def asked(self, now: float) -> None:
        """The stop question opened: the run is held (RunControl.hold) until ``answered``."""
        if self._asked_at is None:
            self._asked_at = now

    def answered(self, now: float, landed_at: float = 0.0) -> None:
        """The stop question was answered (or the run ended while it was open) at ``now``.

        The run waited from when the question opened, or from when the notebook in flight
        landed its next checkpoint while it was open (``landed_at``: when the last one
        landed, as the run said it, on the clock of ``started_at``), whichever is later.
        """
        if self._asked_at is not None:
            self._waited += max(0.0, now - max(self._asked_at, landed_at))
        self._asked_at = None

    def seconds(self, now: float) -> float:
        """The seconds this attempt has run by ``now``: its time less the time it waited
        for a person to answer the stop question. The one measure of the rate and of the
        end screen's "N pages in T"."""
        waiting = 0.0 if self._asked_at is None else now - self._asked_at
        return max(0.0, now - self.started_at - self._waited - waiting)

    def _in_corpus(self, item: str) -> int:
        """Pages of ``item`` in the corpus now: those there at the start, or more."""
        return max(self.start.in_corpus.get(item, 0), self._carried.get(item, 0))

    @property
    def landed(self) -> int:
        """Pages this attempt put in the corpus itself so far."""
        return sum(self._in_corpus(i) - self.start.in_corpus.get(i, 0) for i in self._carried)

    @property
    def left(self) -> int:
        """Pages still to land: the unfinished items' planned pages not in the corpus yet."""
        return sum(
            max(0, planned - self._in_corpus(item))
            for item, planned in self.start.planned.items()
            if item not in self._finished
        )

    def rate(self, now: float) -> float:
        """Pages per second this attempt has landed (0 before its first)."""
        elapsed = self.seconds(now)
        return self.landed / elapsed if elapsed > 0 else 0.0

    def seconds_left(self, now: float) -> float | None:
        """At this attempt's pace, the time the pages left take; None before a pace is known."""
        rate = self.rate(now)
        return self.left / rate if rate > 0 else None
