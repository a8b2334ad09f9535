"""One run's state and counts, computed once from its record and the corpus on disk.

Every face (the Runs list and details, the banners, the end screen, ``runs``, ``show``
and their ``--json``) reads a run's state and its counts from here and nowhere else, so
two surfaces never tell two stories of the same run.
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

from transcribe_import.engine.base.errors import DISK_CODES, TranscribeError
from transcribe_import.engine.runs.incomplete import (
    UNFINISHED,
    pages_by_run_item,
    replaced_by_run_item,
    unfinished_imports,
)
from transcribe_import.engine.runs.model import HistoryEvent, ItemState, RunRecord, RunStatus
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus, UnfinishedImport

# (run id, item id) → pages in a notebook now, and → its pages replaced since.
_Pages = tuple[Counter[tuple[str, str]], Counter[tuple[str, str]]]


class RunState(enum.StrEnum):
    """Where a run stands; an ENDED run's terminal status says how it ended."""

    LIVE = "live"  # a process holds the run's lock and executes it
    PAUSED = "paused"  # stopped by a pause request: resumable
    INTERRUPTED = "interrupted"  # no process executes it and it has not ended: resumable
    ENDED = "ended"

    @property
    def resumable(self) -> bool:
        return self in (RunState.PAUSED, RunState.INTERRUPTED)


def paused_last(record: RunRecord) -> bool:
    """Its last transition was a person's Pause, not a crash (the record's history says so)."""
    history = record.doc.get("history") or [{}]
    last = history[-1] if isinstance(history[-1], dict) else {}
    return not record.status.terminal and last.get("event") == HistoryEvent.PAUSED


def run_state(status: RunStatus, locked: bool, paused: bool) -> RunState:
    """The one rule for a run's state.

    A paused run reads PAUSED even while its lock is still held: the process holding it
    only finishes its stop (the pause is recorded before the lock is let go).
    """
    if status.terminal:
        return RunState.ENDED
    if paused:
        return RunState.PAUSED
    return RunState.LIVE if locked else RunState.INTERRUPTED


@dataclass(frozen=True)
class RunCounts:
    """A run's counts as every surface says them.

    ``pages_landed``: the pages the run put in the corpus: those in the notebooks'
    project.json whose source carries the run's id, where they are now (``pages``) or in
    the history a later rescan moved them to (``replaced_pages``), so a later import never
    changes it; ``pages_replaced``: how many of them were replaced so since (they are no
    longer pages of their notebook; ``pages_in`` are). A notebook is complete when the run
    committed its item and the pages are there (or there were none to land: all
    duplicates); incomplete when it holds some of an
    unfinished item's pages from this run and is marked incomplete for that item (a later
    retry that finished it takes the mark, and this count, away). An item not started has
    none in.
    """

    pages_landed: int = 0
    notebooks_complete: int = 0
    notebooks_incomplete: int = 0
    items_failed: int = 0
    items_not_started: int = 0
    pages_replaced: int = 0

    @property
    def pages_in(self) -> int:
        """The run's pages that are pages of their notebooks now."""
        return self.pages_landed - self.pages_replaced

    def to_json(self) -> dict[str, int]:
        return asdict(self)


class LandedPages:
    """Pages of runs in the corpus, per run and item, reading each notebook once."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self._by_notebook: dict[str, _Pages | None] = {}
        self._unfinished: dict[str, UnfinishedImport] | None = None

    def left_incomplete(self, item_id: str, notebook_id: str) -> bool:
        """Whether the notebook is incomplete for this item, as its mark says (the one rule,
        ``incomplete.unfinished_imports``): not once a later run (a retry) finished the item.
        The rule reads the run records, once per listing and only when it is asked."""
        if self._unfinished is None:
            self._unfinished = unfinished_imports(self.corpus)
        found = self._unfinished.get(notebook_id)
        return found is not None and found.item_id == item_id

    def _of_notebook(self, notebook_id: str) -> _Pages | None:
        """(run id, item id) → pages in the notebook, and → pages of it replaced since, from
        its project.json (none if unreadable: a reverted or missing notebook holds none); None
        when the disk failed to read it (then nobody can tell from here, and zero would be
        untrue)."""
        if notebook_id not in self._by_notebook:
            doc: dict[str, Any] | None
            try:
                doc = project.read(self.corpus.notebook_dir(notebook_id), notebook_id)
            except TranscribeError as exc:
                doc = None if exc.code in DISK_CODES else {}
            except OSError:
                doc = None
            except ValueError:
                doc = {}
            self._by_notebook[notebook_id] = (
                None if doc is None else (pages_by_run_item(doc), replaced_by_run_item(doc))
            )
        return self._by_notebook[notebook_id]

    def of_item(self, run_id: str, item_id: str, notebook_id: str) -> int | None:
        """The item's pages that are pages of the notebook now; None when the disk would not
        say."""
        pages = self._of_notebook(notebook_id)
        return None if pages is None else pages[0][(run_id, item_id)]

    def replaced_of_item(self, run_id: str, item_id: str, notebook_id: str) -> int | None:
        """The item's pages a later rescan replaced since (the notebook's history); None when
        the disk would not say."""
        pages = self._of_notebook(notebook_id)
        return None if pages is None else pages[1][(run_id, item_id)]


def run_counts(corpus: Corpus, record: RunRecord, landed: LandedPages | None = None) -> RunCounts:
    """The run's counts from its record and its notebooks on disk (only those)."""
    landed = landed or LandedPages(corpus)
    pages = complete = incomplete = failed = not_started = replaced = 0
    for o in record.outcomes().values():
        here = landed.of_item(record.run_id, o.item_id, o.notebook_id)
        gone = landed.replaced_of_item(record.run_id, o.item_id, o.notebook_id)
        if here is None or gone is None:  # the disk failed reading the notebook: the record's
            here, gone = o.pages_landed, 0  # own count
        else:
            here += gone
        pages += here
        replaced += gone
        if o.state is ItemState.COMMITTED:
            complete += bool(here or not o.page_count)
        elif o.state in UNFINISHED and here:
            incomplete += landed.left_incomplete(o.item_id, o.notebook_id)
        elif o.state in (ItemState.PENDING, ItemState.CANCELLED_PENDING):
            not_started += 1
        failed += o.state is ItemState.FAILED
    return RunCounts(pages, complete, incomplete, failed, not_started, replaced)
