"""Drafts: a plan under review the window keeps in ``import-runs/drafts/``, as it changes."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from transcribe_import.engine.base.short_calls import free_in_slices
from transcribe_import.engine.planning.plan import ImportPlan
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.engine.watch.records import DropRecord, DropState


@dataclass(frozen=True)
class Draft:
    """A plan under review the window kept in ``import-runs/drafts/<plan_id>.json``.

    ``problem``: why it cannot be opened (damaged, from an older app); it is still listed,
    so that a person can discard it knowingly. ``drop``: the hot folder's drop a watch
    queued this plan for (its record says what needs a decision), None for a review a
    person started.
    """

    plan_id: str
    path: Path
    saved_at: float  # the file's mtime, seconds since the epoch
    notebooks: int
    pages: int
    problem: str | None = None
    drop: DropRecord | None = None


def _draft_path(corpus: Corpus, plan_id: str) -> Path:
    from transcribe_import.engine.base.ids import check_id
    from transcribe_import.engine.planning.edits import drafts_dir

    return drafts_dir(corpus) / f"{check_id(plan_id, 'plan_id')}.json"


@dataclass(frozen=True)
class _Counted:
    """What a draft file held when it was written or read: its plan's id and counts."""

    file: tuple[int, int, int]  # the file's inode, size and mtime (ns) then
    plan_id: str
    notebooks: int
    pages: int


# The drafts this process wrote or read, by path: ``list_drafts`` reads a draft again only
# when its file is not the one counted. The window lists the drafts each time its plan
# changes, and reading a draft of 100,000 sources to count its pages is two seconds of a
# worker's Python, just as the window shows the plan (bench/bench_gui.py).
_counted: dict[Path, _Counted] = {}
_counted_lock = threading.Lock()


def _file_key(st: os.stat_result) -> tuple[int, int, int]:
    return (st.st_ino, st.st_size, st.st_mtime_ns)


# Beside each draft ``save_draft`` writes, its counts (``<plan_id>.json.counts``: the
# ``_Counted`` of that version of the file), so that a window started later lists it without
# reading it: the first listing of a new window read a kept review of 100,000 pages whole, its
# worker's Python taking the window's thread away for 90 ms as the first plan was shown
# (bench/bench_gui_open.py). Derived and disposable: a missing, damaged or stale one (the
# draft replaced since: another inode, size or mtime) is ignored and the draft read.
COUNTS_SUFFIX = ".counts"


def _counts_path(path: Path) -> Path:
    return path.with_name(path.name + COUNTS_SUFFIX)


def _write_counts(path: Path, counted: _Counted) -> None:
    import orjson

    from transcribe_import.engine.storage import fsio

    doc = {
        "file": list(counted.file),
        "plan_id": counted.plan_id,
        "notebooks": counted.notebooks,
        "pages": counted.pages,
    }
    try:
        fsio.write_disposable(_counts_path(path), orjson.dumps(doc))
    except OSError:
        pass  # derived: the next window reads the draft instead


def _read_counts(path: Path, file: tuple[int, int, int]) -> _Counted | None:
    """The counts kept beside the draft ``path`` when they are of its file as it is now."""
    import orjson

    from transcribe_import.engine.storage import fsio

    try:
        doc = orjson.loads(fsio.read_bytes(_counts_path(path), max_bytes=4096))
        counted = _Counted(tuple(doc["file"]), doc["plan_id"], doc["notebooks"], doc["pages"])
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        return None
    fits = (
        counted.file == file
        and isinstance(counted.plan_id, str)
        and all(type(n) is int and n >= 0 for n in (counted.notebooks, counted.pages))
    )
    return counted if fits else None


def save_draft(corpus: Corpus, plan: ImportPlan) -> Path:
    """Keep ``plan`` as a draft, crash-safely (an atomic replace): the same document as
    ``plan -o`` writes, so a draft can also be validated and committed from the CLI."""
    from transcribe_import.engine.planning.edits import save_draft as keep
    from transcribe_import.engine.storage import fsio

    path = keep(corpus, plan)
    try:
        st = fsio.stat(path)
    except OSError:
        return path  # written, and gone since (discarded): nothing to count
    counted = _Counted(_file_key(st), plan.plan_id, len(plan.items), plan.imported_page_count())
    with _counted_lock:
        _counted[path] = counted
    _write_counts(path, counted)
    return path


def _count(path: Path, st: os.stat_result) -> _Counted:
    """The plan id and counts of the draft in ``path`` (whose stat is ``st``), read once for
    each version of the file (``PlanDocumentError`` when it cannot be read)."""
    from transcribe_import.engine.planning.plan import load_plan

    with _counted_lock:
        known = _counted.get(path)
    if known is not None and known.file == _file_key(st):
        return known
    kept = _read_counts(path, _file_key(st))
    if kept is not None:
        with _counted_lock:
            _counted[path] = kept
        return kept
    plan = load_plan(path)
    counted = _Counted(_file_key(st), plan.plan_id, len(plan.items), plan.imported_page_count())
    # Let go of the plan an item at a time: freed in one cascade, 100,000 sources hold the
    # GIL for 50 ms, the window waiting.
    items = list(plan.items)
    del plan
    free_in_slices(items)
    with _counted_lock:
        _counted[path] = counted
    _write_counts(path, counted)  # a draft kept before its counts were: read once
    return counted


def list_drafts(corpus: Corpus) -> list[Draft]:
    """Every kept draft, newest first; one that cannot be read is listed with its problem."""
    from transcribe_import.engine.base.ids import is_valid_id
    from transcribe_import.engine.planning.edits import drafts_dir
    from transcribe_import.engine.planning.plan import PlanDocumentError
    from transcribe_import.engine.storage import fsio
    from transcribe_import.engine.watch import records

    folder = drafts_dir(corpus)
    names = fsio.list_dir(folder, missing_ok=True)
    queued = {
        r.plan_id: r
        for r in records.latest(records.read_all(corpus)).values()
        if r.state is DropState.NEEDS_REVIEW and r.plan_id is not None
    }
    out = []
    for name in names:
        stem = name.removesuffix(".json")
        if not name.endswith(".json") or not is_valid_id(stem):
            continue
        path = folder / name
        try:
            st = fsio.stat(path)
        except OSError:
            continue  # gone since the listing
        try:
            counted = _count(path, st)
        except PlanDocumentError as exc:
            out.append(Draft(stem, path, st.st_mtime, 0, 0, str(exc)))
            continue
        out.append(
            Draft(
                counted.plan_id,
                path,
                st.st_mtime,
                counted.notebooks,
                counted.pages,
                drop=queued.get(counted.plan_id),
            )
        )
    out.sort(key=lambda d: d.saved_at, reverse=True)
    return out


def load_draft(
    corpus: Corpus, plan_id: str, progress: Callable[[int, int], None] | None = None
) -> ImportPlan:
    """The draft's plan (``PlanDocumentError`` when it cannot be read); ``progress`` as
    ``load_plan_file`` tells it."""
    from transcribe_import.engine.planning.plan import load_plan

    return load_plan(_draft_path(corpus, plan_id), progress)


def discard_draft(corpus: Corpus, plan_id: str) -> None:
    """Forget a draft (nothing if there is none)."""
    from transcribe_import.engine.storage import fsio

    path = _draft_path(corpus, plan_id)
    fsio.remove(path)
    fsio.remove(_counts_path(path))
