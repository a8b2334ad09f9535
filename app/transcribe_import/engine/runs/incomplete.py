"""Incomplete notebooks: which hold part of an unfinished import, judged from what is on disk.

An item's sources land in checkpoints, each committed with the notebook's project.json, so
a cancel, a pause, a crash or a failure part way leaves a notebook holding some of the
item's pages. Such a notebook is *incomplete* until the item is finished (a resume, or a
retry: the plan committed again) or its pages are taken out (an undo of the run). No mark
is written for it: the state is computed, each time, from the run records (the item is not
committed) and the notebook's project.json (its sources carry the run's and the item's
ids), so it can never disagree with them, whatever a crash interrupted (docs/formats.md,
"Incomplete notebooks"). ``unfinished_import`` is the one rule.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.base.findings import Finding, FindingCode, Remedy, Severity
from transcribe_import.engine.base.text import counted, quoted_title
from transcribe_import.engine.planning.plan import ImportPlan
from transcribe_import.engine.runs.model import ItemOutcome, ItemState, RunRecord, RunStatus
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus, UnfinishedImport

# An item in these states may have landed some of its pages and will land no more by itself.
UNFINISHED = frozenset({ItemState.PENDING, ItemState.FAILED, ItemState.CANCELLED_PENDING})
# An item in these states is finished: all its pages are in, or were skipped as duplicates.
FINISHED = frozenset({ItemState.COMMITTED, ItemState.SKIPPED})


def pages_by_run_item(doc: dict[str, Any]) -> Counter[tuple[str, str]]:
    """(run id, item id) -> the pages of a notebook's project.json ``doc`` that import
    landed: the pages whose source carries those ids (the one count of whose pages are whose:
    a run's counts, its outcomes and this module's rule all read it)."""
    return _owned(doc, doc.get("pages") or ())


def replaced_by_run_item(doc: dict[str, Any]) -> Counter[tuple[str, str]]:
    """(run id, item id) -> the pages that import landed and a later rescan replaced since:
    their records are in ``doc``'s history (``replaced_pages``), their sources still listed.
    With ``pages_by_run_item``, every page an import landed is counted once, where it is."""
    return _owned(doc, project.replaced_records(doc))


def _owned(doc: dict[str, Any], pages: Iterable[Any]) -> Counter[tuple[str, str]]:
    """(run id, item id) -> how many of ``pages`` have a source of ``doc`` carrying them."""
    owner: dict[object, tuple[str, str]] = {}
    for s in doc.get("sources") or ():
        if isinstance(s, dict) and s.get("import_run_id") and s.get("item_id"):
            owner[s.get("id")] = (str(s["import_run_id"]), str(s["item_id"]))
    found: Counter[tuple[str, str]] = Counter()
    for p in pages:
        if isinstance(p, dict) and p.get("source_id") in owner:
            found[owner[p["source_id"]]] += 1
    return found


@dataclass(frozen=True)
class _Held:
    """What one notebook's project.json holds, as the rule needs it."""

    by_run_item: Counter[tuple[str, str]]  # (run id, item id) -> pages
    by_item: Counter[str]  # item id -> pages, from every run
    hashes: frozenset[str]  # its sources' sha256

    @classmethod
    def of(cls, doc: dict[str, Any]) -> _Held:
        hashes = {str(s.get("sha256")) for s in doc.get("sources") or () if isinstance(s, dict)}
        by_run_item = pages_by_run_item(doc)
        by_item: Counter[str] = Counter()
        for (_run, item), n in by_run_item.items():
            by_item[item] += n
        return cls(by_run_item, by_item, frozenset(hashes))


def unfinished_import(
    held: _Held,
    left: Iterable[tuple[RunRecord, ItemOutcome]],
    plan_of: dict[str, ImportPlan | None],
) -> UnfinishedImport | None:
    """The one rule: the unfinished import a notebook holds part of, or None (complete).

    ``left``: the items of runs not undone, newest run first, that target the notebook and
    are unfinished, with no run (a retry's) having finished the same item since. The
    notebook is incomplete when it holds pages of such an item from its run, and not all
    of the item's planned files by their bytes (a later import may have brought them in).
    """
    for record, outcome in left:
        if not held.by_run_item[(record.run_id, outcome.item_id)]:
            continue  # not started here, or its pages were taken out
        plan = plan_of.get(record.run_id)
        item = (
            next((it for it in plan.items if it.item_id == outcome.item_id), None) if plan else None
        )
        if item is not None and {s.sha256 for s in item.imported_sources()} <= held.hashes:
            continue
        return UnfinishedImport(
            record.run_id,
            outcome.item_id,
            None if item is None else item.imported_page_count(),
            held.by_item[outcome.item_id],
            record.status.terminal,
        )
    return None


def unfinished_imports(corpus: Corpus, only: str | None = None) -> dict[str, UnfinishedImport]:
    """Every incomplete notebook (or ``only`` that one): notebook id -> what it holds part of.

    Cheap when nothing is unfinished: the run records are read (as a runs listing does),
    and a notebook's project.json and a run's frozen plan only for an unfinished item.
    """
    try:
        store = RunStore(corpus)
    except TranscribeError:
        return {}  # import-runs is a link: doctor reports it, and no run can be read
    records = [r for r in store.read_all()[0] if r.status is not RunStatus.REVERTED]
    finished = {
        (o.notebook_id, o.item_id)
        for r in records
        for o in r.outcomes().values()
        if o.state in FINISHED
    }
    left: dict[str, list[tuple[RunRecord, ItemOutcome]]] = {}
    for r in records:  # newest first: the run named is the newest that left the item
        for o in r.outcomes().values():
            wanted = only is None or o.notebook_id == only
            if wanted and o.state in UNFINISHED and (o.notebook_id, o.item_id) not in finished:
                left.setdefault(o.notebook_id, []).append((r, o))
    plans: dict[str, ImportPlan | None] = {}
    out: dict[str, UnfinishedImport] = {}
    for notebook_id, items in left.items():
        try:
            held = _Held.of(project.read(corpus.notebook_dir(notebook_id), notebook_id))
        except (TranscribeError, OSError):
            continue  # gone (undone), or unreadable: the listing and doctor say so
        for record, _ in items:
            if record.run_id not in plans:
                try:
                    plans[record.run_id] = store.load_plan(record.run_id, record)
                except (TranscribeError, OSError):
                    plans[record.run_id] = None
        found = unfinished_import(held, items, plans)
        if found is not None:
            # Tried only here, for a run that left a notebook incomplete: it may be live.
            running = not found.run_ended and store.is_locked(found.run_id)
            out[notebook_id] = replace(found, running=running)
    return out


def finish_command(corpus: Corpus, unfinished: UnfinishedImport) -> str | None:
    """The command that finishes the import: resume its run, or commit its frozen plan again;
    None while a process is importing it (it finishes by itself, or stops resumable)."""
    if unfinished.running:
        return None
    if not unfinished.run_ended:  # the run named as `runs` lists it, which resume takes
        return f"transcribe-import resume {_shown(corpus, unfinished.run_id)}"
    return f"transcribe-import commit {RunStore(corpus).plan_path(unfinished.run_id)}"


def _shown(corpus: Corpus, run_id: str) -> str:
    """A run as every line names it: as `runs` lists it (base/ids.short_id)."""
    return RunStore(corpus).short_ids()(run_id)


def incomplete_findings(corpus: Corpus, titles: dict[str, str]) -> list[Finding]:
    """Doctor's notes: each incomplete notebook, with what it holds and what finishes it."""
    out = []
    notebooks = corpus.notebook_short_ids()  # as `notebooks` lists them
    for notebook_id, u in sorted(unfinished_imports(corpus).items()):
        title = titles.get(notebook_id, notebook_id)
        expected = (
            "an unknown number of pages"
            if u.pages_expected is None
            else counted(u.pages_expected, "page")
        )
        # An undo needs a run that has ended: one still resumable is cancelled first.
        run = _shown(corpus, u.run_id)
        undo = f"`transcribe-import revert {run}`"
        if not u.run_ended:
            undo = f"`transcribe-import cancel {run}`, then {undo}"
        command = finish_command(corpus, u)
        then = (
            "Another process is importing it now"
            if command is None
            else f"Finish it with `{command}`, or undo that import with {undo}"
        )
        # The window's words (``situation``) name it by its title; the CLI's keep the ids.
        situation = (
            f"Notebook {quoted_title(title)} is incomplete: {u.pages_landed} of {expected} "
            "of its import landed."
        )
        said = (
            f"Notebook {quoted_title(title)} ({notebooks(notebook_id)}) is incomplete: "
            f"{u.pages_landed} of "
            f"{expected} of its import (run {run}) landed."
        )
        out.append(
            Finding(
                FindingCode.NOTEBOOK_INCOMPLETE,
                Severity.INFO,
                f"{said} {then}.",
                notebook_id,
                str(corpus.notebook_dir(notebook_id)),
                situation=situation,
                remedies=() if command is None else (Remedy.FINISH_IMPORT, Remedy.UNDO_IMPORT),
                run_id=u.run_id,
            )
        )
    return out
