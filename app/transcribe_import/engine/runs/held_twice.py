"""A page held twice: the same bytes imported twice into one notebook, or into two notebooks by an
import that judged duplicates across the corpus (doctor's ``page_held_twice``).

Imports skip a file whose bytes (its sha256) are held already: in the notebook always, across
the corpus when the item's scope says so (decided at commit, one import at a time). Two
imports that committed together before that lock, or an earlier version, could land a file
twice. Which copy is the later is read off the runs that imported them (their creation
times), and whether the later one broke its own import's rule off that run's frozen plan (a
problem). An import told to import duplicates (``create_duplicate``), a bag's notebook (imported
whole, or as a copy), or an item that judged duplicates per notebook only (two notebooks) meant
it: nothing is said. A copy no run on record brought, or whose run's plan cannot be read, is a
note. Only the same bytes count: a rescan kept beside the page it looks like (Keep Both) is
other bytes, and never found here.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.base.findings import Finding, FindingCode, Remedy, Severity
from transcribe_import.engine.base.ids import ShortIds
from transcribe_import.engine.base.text import quoted_title
from transcribe_import.engine.ingest import placement as rules
from transcribe_import.engine.planning.plan import DedupeScope, DuplicatePolicy, ImportPlan
from transcribe_import.engine.runs.model import RunRecord
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage.corpus import Corpus

# How many of a group's pages a finding names; the rest are counted.
NAMED_PAGES = 3


@dataclass(frozen=True)
class Copy:
    """One notebook's copy of a file: where its pages stand, and which import brought it."""

    notebook_id: str
    title: str
    name: str  # the file's name as imported
    positions: tuple[int, ...]  # its live pages' numbers in the notebook, from 1
    run_id: str | None
    item_id: str | None
    created_at: str  # its run's creation time; "" when no run is on record


class Verdict(enum.StrEnum):
    """What is said of a later copy: its import broke its rule (a problem), or no import on
    record says how it came (a note)."""

    BROKEN = "broken"
    UNKNOWN = "unknown"


# A finding's pages: the later import, its notebook, the earlier copies' notebook, the verdict.
_Group = tuple[str | None, str, str, Verdict]


def copies_by_hash(
    manifests: Mapping[str, Mapping[str, Any]], runs: Mapping[str, RunRecord]
) -> dict[str, list[Copy]]:
    """Each sha256 two live copies or more hold (a source with a page in its notebook's order),
    its copies earliest first: by their runs' creation, a copy no run on record brought first
    (earlier versions recorded none)."""
    out: dict[str, list[Copy]] = {}
    for notebook_id, manifest in manifests.items():
        title = str(manifest.get("title") or notebook_id)
        positions: dict[str, list[int]] = {}
        for n, page in enumerate(rules.live_records(manifest), 1):
            positions.setdefault(str(page.get("source_id")), []).append(n)
        for s in manifest.get("sources", ()):
            if not isinstance(s, dict) or not isinstance(s.get("sha256"), str):
                continue
            live = positions.get(str(s.get("id")))
            if not live:
                continue  # replaced by a rescan: history, not a page of the notebook
            run_id = s.get("import_run_id") if isinstance(s.get("import_run_id"), str) else None
            record = runs.get(run_id) if run_id else None
            out.setdefault(s["sha256"], []).append(
                Copy(
                    notebook_id,
                    title,
                    rules.file_name(manifest, s.get("id")) or str(s.get("id")),
                    tuple(live),
                    run_id,
                    s.get("item_id") if isinstance(s.get("item_id"), str) else None,
                    record.created_at if record is not None else "",
                )
            )
    twice = {sha: copies for sha, copies in out.items() if len(copies) > 1}
    for copies in twice.values():
        copies.sort(key=lambda c: (c.created_at, c.notebook_id, c.positions))
    return twice


def verdict(later: Copy, earlier: Copy, plans: Mapping[str, ImportPlan | None]) -> Verdict | None:
    """Whether the import that brought ``later`` broke its rule (None: it meant to import it
    beside ``earlier``, and there is nothing to say)."""
    plan = plans.get(later.run_id) if later.run_id else None
    if plan is None or later.item_id is None:
        return Verdict.UNKNOWN
    try:
        item = plan.item(later.item_id)
    except KeyError:
        return Verdict.UNKNOWN
    if plan.policy is DuplicatePolicy.CREATE_DUPLICATE or item.restore is not None:
        return None
    if later.notebook_id == earlier.notebook_id or item.dedupe_scope is DedupeScope.CORPUS:
        return Verdict.BROKEN
    return None


def held_twice_findings(
    corpus: Corpus, manifests: Mapping[str, Mapping[str, Any]]
) -> list[Finding]:
    """Doctor's findings: the pages held twice, one finding per later import and the pair of
    notebooks (one notebook: the same), naming the pages and what to do."""
    store = RunStore(corpus)
    runs = {r.run_id: r for r in store.read_all()[0]}
    twice = copies_by_hash(manifests, runs)
    plans: dict[str, ImportPlan | None] = {}
    groups: dict[_Group, list[tuple[Copy, Copy]]] = {}
    for copies in twice.values():
        earlier = copies[0]
        for later in copies[1:]:
            if later.run_id and later.run_id not in plans:
                try:
                    plans[later.run_id] = store.load_plan(later.run_id, runs.get(later.run_id))
                except (TranscribeError, OSError):
                    plans[later.run_id] = None
            said = verdict(later, earlier, plans)
            if said is not None:
                key = (later.run_id, later.notebook_id, earlier.notebook_id, said)
                groups.setdefault(key, []).append((later, earlier))
    # Named as `runs` and `notebooks` list them: a prefix the commands take back.
    ids = (ShortIds.of(runs), ShortIds.listed(corpus.index_entries))
    return [
        _finding(corpus, run_id, said, pairs, manifests, ids)
        for (run_id, _nb, _other, said), pairs in sorted(groups.items(), key=_order)
    ]


def _order(entry: tuple[_Group, list[tuple[Copy, Copy]]]) -> tuple[str, str, str, str]:
    (run_id, notebook_id, other, said), _pairs = entry
    return (notebook_id, other, run_id or "", said)


def _pages_words(pairs: list[tuple[Copy, Copy]], same: bool, *, names: bool = True) -> str:
    """ "page 4 (p1 copy.png) is page 1 (p1.png) again, …", the first few pairs (without
    ``names``: "page 4 is page 1", as the window says it)."""
    said = []
    for later, earlier in pairs[:NAMED_PAGES]:
        its = "page" if same else "its page"
        first, second = (f" ({later.name})", f" ({earlier.name})") if names else ("", "")
        said.append(f"page {later.positions[0]}{first} is {its} {earlier.positions[0]}{second}")
    more = len(pairs) - NAMED_PAGES
    return "; ".join(said) + (f"; and {more} more" if more > 0 else "")


def _finding(
    corpus: Corpus,
    run_id: str | None,
    said: Verdict,
    pairs: list[tuple[Copy, Copy]],
    manifests: Mapping[str, Mapping[str, Any]],
    ids: tuple[ShortIds, ShortIds],
) -> Finding:
    """The finding in the CLI's words (``message``: the notebooks' ids, the run's id and its
    command, each id as short as the lists show it: ``ids``, the runs' and the notebooks')
    and in the window's (``situation``: titles and page numbers only, the undo offered as
    ``Remedy.UNDO_RUN``)."""
    runs, notebooks = ids
    later, earlier = pairs[0]
    same = later.notebook_id == earlier.notebook_id
    count = sum(len(c.positions) for c, _e in pairs)
    pages = "1 page" if count == 1 else f"{count} pages"
    heads = []
    for where, other, names in (
        (
            f"Notebook {quoted_title(later.title)} ({notebooks(later.notebook_id)})",
            f"({notebooks(earlier.notebook_id)}) ",
            True,
        ),
        (quoted_title(later.title), "", False),
    ):
        if same:
            head = f"{where} holds {pages} twice, the same bytes as two files: "
        else:
            head = (
                f"{where} holds {pages} that {quoted_title(earlier.title)} {other}holds already, "
                "the same bytes: "
            )
        heads.append(head + _pages_words(pairs, same, names=names) + ". ")
    head, shown = heads
    if run_id is None:
        body = (
            "No import on record added them (an earlier version did, or its run is gone), so "
            "no undo can take them out: leave them if that was meant."
        )
        return _note(corpus, later, (head + body, shown + body), Severity.INFO)
    added = _pages_added(manifests[later.notebook_id], run_id)
    takes = (
        "it takes out only those pages"
        if added == count
        else f"it takes out all {added} pages it added there: import again after any that were new"
    )
    run = runs(run_id)
    undo = f"`transcribe-import revert {run}` ({takes})"
    if said is Verdict.UNKNOWN:
        why = "cannot be read (its frozen plan is missing or damaged): leave them if that was meant"
        return _note(
            corpus,
            later,
            (
                f"{head}Whether the import that added them (run {run}) meant to {why}, or "
                f"undo it with {undo}.",
                f"{shown}Whether the import that added them meant to {why}, or undo it ({takes}).",
            ),
            Severity.INFO,
            run_id,
        )
    rule = (
        "the notebook's own files"
        if same
        else "files the corpus held (duplicates judged across the corpus)"
    )
    landed = (
        f"was to leave out {rule}, and landed them all the same, as two imports committed at "
        "the same time could before duplicates were decided one import at a time"
    )
    return _note(
        corpus,
        later,
        (
            f"{head}The import that added them (run {run}) {landed}. Undo that import with "
            f"{undo}, or leave them if you want them twice.",
            f"{shown}The import that added them {landed}. Undoing it takes them out ({takes}); "
            "leave them if you want them twice.",
        ),
        Severity.PROBLEM,
        run_id,
    )


def _note(
    corpus: Corpus,
    later: Copy,
    words: tuple[str, str],
    severity: Severity,
    run_id: str | None = None,
) -> Finding:
    """``words``: the CLI's message (its command included), and the window's (its situation;
    the undo of ``run_id`` its remedy)."""
    message, situation = words
    return Finding(
        FindingCode.PAGE_HELD_TWICE,
        severity,
        message,
        later.notebook_id,
        str(corpus.notebook_dir(later.notebook_id)),
        situation=situation,
        remedies=(Remedy.UNDO_RUN,) if run_id else (),
        run_id=run_id,
    )


def _pages_added(manifest: Mapping[str, Any], run_id: str) -> int:
    """How many of the notebook's pages that run added (what its undo takes out there)."""
    mine = {
        str(s.get("id"))
        for s in manifest.get("sources", ())
        if isinstance(s, dict) and s.get("import_run_id") == run_id
    }
    return sum(1 for p in rules.live_records(manifest) if str(p.get("source_id")) in mine)
