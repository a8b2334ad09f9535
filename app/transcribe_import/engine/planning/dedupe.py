"""Duplicates: the one rule saying whether a source is one (and of what), and the hashes it needs.

``classify`` is the decision, made the same way when planning and when committing.
The facts it needs come from here too: ``notebook_hashes`` reads one notebook's
manifest, and a corpus-wide check keeps ``corpus/cache/sha-index.json``: per
notebook, the size and mtime of its ``project.json`` and the sha256 of its sources.
A check stats every manifest (cheap) and re-reads only those that changed since the
cache was written. The cache is derived and disposable: a damaged one is simply
rebuilt, and it is never an authority (commit re-reads the target manifest).
"""

from __future__ import annotations

import threading
from collections.abc import Container, Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

import orjson

from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.ingest.held import held_as_another, source_hashes
from transcribe_import.engine.planning.plan import (
    DedupeScope,
    Duplicate,
    DuplicatePolicy,
    ImportPlan,
    Op,
    PlanItem,
    PlanSource,
)
from transcribe_import.engine.planning.problems import file_name
from transcribe_import.engine.storage import fsio, locks, project

if TYPE_CHECKING:
    import filelock

    from transcribe_import.engine.storage.corpus import Corpus

CACHE_FORMAT = "transcribe.sha-index-cache"
DUPLICATES_LOCK_FILE = ".dedupe.lock"


class HashIndex(Protocol):
    """What ``classify`` asks of a corpus-wide index (``CorpusHashIndex``, or a test's fake)."""

    def notebooks_with(self, sha256: str) -> set[str]: ...


def classify(
    sha256: str,
    *,
    policy: DuplicatePolicy,
    scope: DedupeScope,
    notebook_id: str,
    in_notebook: Mapping[str, str] | None = None,
    corpus_index: HashIndex | None = None,
    earlier: Container[str] = frozenset(),
    source_id: str | None = None,
) -> Duplicate | None:
    """Whether a source is a duplicate under ``policy``, and of what; None: import it.

    The first that holds, in this order:

    * ``IN_NOTEBOOK``: the target notebook already holds these bytes as another source.
      ``in_notebook`` is its sha256 -> source id (``notebook_hashes``), read now; None or
      empty for a notebook that does not exist yet.
    * ``IN_CORPUS``: with ``scope`` CORPUS, a notebook other than ``notebook_id`` holds
      them, by ``corpus_index`` (refreshed by the caller; ignored with scope NOTEBOOK).
    * ``IN_PLAN``: an earlier source of this plan brings the same bytes: ``earlier`` is
      the hashes of the sources before it in its item, plus, with scope CORPUS, those of
      the plan's earlier items (the caller keeps it).

    ``source_id`` is the source's own id: a notebook holding the source itself (a retry
    after its import landed) holds no duplicate of it.

    Callers: the planner passes every fact (``source_id`` is None: its ids are new). The
    executor's commit-time check (``_Executor._execute``) passes the item's policy, scope
    and notebook id, ``in_notebook=notebook_hashes(...)`` read just before (None when
    the notebook does not exist), ``corpus_index=self.corpus_index``, the source's
    ``source_id``, and no ``earlier`` (the plan already marked IN_PLAN). When a cancel
    counts a landed item (``_landed_outcome``), the same with ``in_notebook`` from the
    manifest it has just read; there a None means the bytes are no longer held
    anywhere the facts can see, and the source was still skipped at commit time.
    """
    if policy is not DuplicatePolicy.SKIP_EXISTING:
        return None
    if held_as_another(in_notebook, sha256, source_id):
        return Duplicate.IN_NOTEBOOK
    if (
        scope is DedupeScope.CORPUS
        and corpus_index is not None
        and corpus_index.notebooks_with(sha256) - {notebook_id}
    ):
        return Duplicate.IN_CORPUS
    if sha256 in earlier:
        return Duplicate.IN_PLAN
    return None


def judge_item(
    corpus: Corpus | None,
    item: PlanItem,
    policy: DuplicatePolicy,
    corpus_index: HashIndex | None,
    seen_in_plan: set[str],
) -> PlanItem:
    """``item`` with each source marked as ``classify`` judges it now (None: imported),
    with the item's own scope and target (an into item's manifest read here).

    ``seen_in_plan`` is the hashes of the plan's earlier items (the caller keeps it, and
    it grows here): with scope CORPUS a source repeating one of them is IN_PLAN; with
    scope NOTEBOOK only this item's earlier sources count.
    """
    in_notebook: dict[str, str] = {}
    if item.op is Op.IMPORT_INTO_NOTEBOOK and corpus is not None:
        try:
            in_notebook = notebook_hashes(corpus, item.notebook_id)
        except TranscribeError:
            in_notebook = {}  # validate reports the missing target
    earlier = seen_in_plan if item.dedupe_scope is DedupeScope.CORPUS else set()
    marked = []
    for s in item.sources:
        dup = classify(
            s.sha256,
            policy=policy,
            scope=item.dedupe_scope,
            notebook_id=item.notebook_id,
            in_notebook=in_notebook,
            corpus_index=corpus_index,
            earlier=earlier,
        )
        earlier.add(s.sha256)
        marked.append(s if s.duplicate is dup else replace(s, duplicate=dup))
    return replace(item, sources=tuple(marked))


def rejudge(corpus: Corpus, plan: ImportPlan, scope: DedupeScope) -> ImportPlan:
    """``plan`` with every item's duplicates judged again, with ``scope``, against the corpus
    as it is now: what the window does to the review open when the setting changes.

    A bag's notebook keeps its marks (a restore is judged whole, planning/bag.py).
    """
    index = corpus_index_for(corpus, plan.policy, [scope])
    seen: set[str] = set()
    items = [
        item
        if item.restore is not None
        else judge_item(corpus, replace(item, dedupe_scope=scope), plan.policy, index, seen)
        for item in plan.items
    ]
    return replace(plan, items=tuple(items))


def asks_corpus(policy: DuplicatePolicy, scopes: Iterable[DedupeScope]) -> bool:
    """Whether ``classify`` will ask the corpus index: under ``skip_existing``, for a
    source whose item's scope is CORPUS. ``scopes`` are the scopes of the items to be
    classified (the planner's one, the plan's pending items for a commit, one item for a
    cancel)."""
    return policy is DuplicatePolicy.SKIP_EXISTING and any(
        scope is DedupeScope.CORPUS for scope in scopes
    )


def corpus_index_for(
    corpus: Corpus | None, policy: DuplicatePolicy, scopes: Iterable[DedupeScope]
) -> CorpusHashIndex | None:
    """The corpus-wide index, refreshed now, when ``classify`` will ask it (``asks_corpus``);
    None otherwise, and without a corpus."""
    if corpus is None or not asks_corpus(policy, scopes):
        return None
    return CorpusHashIndex.refreshed(corpus)


def duplicates_lock(
    corpus: Corpus, policy: DuplicatePolicy, scopes: Iterable[DedupeScope]
) -> filelock.FileLock | None:
    """The lock a commit holds while it decides and lands duplicates across the corpus.

    Only when ``classify`` will ask the corpus index (``asks_corpus``): a commit judging
    its sources against the whole corpus must not judge them while another such commit
    is landing the same bytes, or both would find them "not held yet". None: no lock.
    """
    if not asks_corpus(policy, scopes):
        return None
    return locks.make_lock(corpus.root / DUPLICATES_LOCK_FILE)


def notebook_hashes(corpus: Corpus, notebook_id: str) -> dict[str, str]:
    """sha256 -> source_id for one notebook, read from its manifest now."""
    return source_hashes(project.read(corpus.notebook_dir(notebook_id), notebook_id))


def describe_skips(corpus: Corpus | None, plan: ImportPlan, item: PlanItem) -> list[str]:
    """What each of the item's planned skips repeats, in words, by scope and by name.

    One phrase a skip, in order: "page 4.jpg has the same bytes as page 3.jpg" (this
    item's files, or an earlier item's, named with its notebook); "page 2.jpg is already in
    this notebook, as scan 2.jpg"; "page 5.jpg is already in the corpus, in “Diary 1931”".
    The facts are read now (the target manifest, the corpus index); a fact no longer
    there is told by the classification alone.
    """
    skips = item.planned_skips()
    if not skips:
        return []
    held: dict[str, str] = {}
    if any(s.duplicate is Duplicate.IN_NOTEBOOK for s in skips) and corpus is not None:
        held = _held_names(corpus, item.notebook_id)
    where: dict[str, set[str]] = {}
    titles: dict[str, str] = {}
    if any(s.duplicate is Duplicate.IN_CORPUS for s in skips) and corpus is not None:
        index = CorpusHashIndex.refreshed(corpus)
        where = {s.sha256: index.notebooks_with(s.sha256) - {item.notebook_id} for s in skips}
        titles = {nbid: e.title for nbid, e in corpus.index_entries().items()}
    return [_skip_words(s, plan, item, held, where, titles) for s in skips]


def _skip_words(
    s: PlanSource,
    plan: ImportPlan,
    item: PlanItem,
    held: Mapping[str, str],
    where: Mapping[str, set[str]],
    titles: Mapping[str, str],
) -> str:
    name = file_name(s)
    if s.duplicate is Duplicate.IN_PLAN:
        other, in_item = _earlier_copy(s, plan, item)
        if other is None:
            return f"{name} has the same bytes as another file of this plan"
        text = f"{name} has the same bytes as {file_name(other)}"
        if in_item is not item:
            text += f" (in “{in_item.label}”)"
        if other.excluded:
            text += f", which is excluded: include it, or {name} is not imported either"
        return text
    if s.duplicate is Duplicate.IN_NOTEBOOK:
        held_as = held.get(s.sha256)
        return f"{name} is already in this notebook" + (f", as {held_as}" if held_as else "")
    holders = sorted(titles.get(nbid, nbid) for nbid in where.get(s.sha256, ()))
    if not holders:
        return f"{name} is already in another notebook of the corpus"
    shown = ", ".join(f"“{t}”" for t in holders[:2])
    more = f" and {len(holders) - 2} more" if len(holders) > 2 else ""
    return f"{name} is already in the corpus, in {shown}{more}"


def _earlier_copy(
    s: PlanSource, plan: ImportPlan, item: PlanItem
) -> tuple[PlanSource | None, PlanItem]:
    """The first source before ``s`` in plan order with its bytes (this item's first)."""
    for other in item.sources:
        if other is s:
            break
        if other.sha256 == s.sha256:
            return other, item
    for it in plan.items:
        if it.item_id == item.item_id:
            break
        for other in it.sources:
            if other.sha256 == s.sha256:
                return other, it
    return None, item


def _held_names(corpus: Corpus, notebook_id: str) -> dict[str, str]:
    """sha256 -> the file name a notebook's source was imported from."""
    try:
        doc = project.read(corpus.notebook_dir(notebook_id), notebook_id)
    except TranscribeError:
        return {}
    out: dict[str, str] = {}
    for src in doc["sources"]:
        if not isinstance(src, dict) or not isinstance(src.get("sha256"), str):
            continue
        prov = src.get("provenance")
        original = prov.get("original_path") if isinstance(prov, dict) else None
        if isinstance(original, str) and original:
            out.setdefault(src["sha256"], original.replace("\\", "/").rsplit("/", 1)[-1])
    return out


class CorpusHashIndex:
    """sha256 -> the notebooks holding it, across the corpus, refreshed incrementally."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self.path = corpus.root / "cache" / "sha-index.json"
        self._entries: dict[str, dict[str, Any]] = {}
        self._by_sha: dict[str, set[str]] = {}
        self._mutex = threading.Lock()
        self.manifests_read = 0  # for tests and benchmarks: how many project.json were parsed

    @classmethod
    def refreshed(cls, corpus: Corpus) -> CorpusHashIndex:
        """The index of ``corpus`` as it is now: its cache read, changed notebooks re-read."""
        index = cls(corpus)
        index.refresh()
        return index

    def _load_cache(self) -> None:
        try:
            doc = orjson.loads(fsio.read_bytes(self.path))
        except (OSError, orjson.JSONDecodeError):
            return
        if isinstance(doc, dict) and doc.get("format") == CACHE_FORMAT:
            entries = doc.get("notebooks")
            if isinstance(entries, dict):
                self._entries = entries

    def refresh(self) -> None:
        with self._mutex:
            if not self._entries:
                self._load_cache()
            changed = False
            fresh: dict[str, dict[str, Any]] = {}
            for nbid in self.corpus.index_entries():
                manifest = self.corpus.notebook_dir(nbid) / project.PROJECT_FILE
                try:
                    st = fsio.stat(manifest)
                except FileNotFoundError:
                    continue
                old = self._entries.get(nbid)
                if old and old.get("mtime_ns") == st.st_mtime_ns and old.get("size") == st.st_size:
                    fresh[nbid] = old
                    continue
                try:
                    shas = sorted(notebook_hashes(self.corpus, nbid))
                except TranscribeError:
                    continue  # doctor reports unloadable notebooks; nothing to dedupe against
                self.manifests_read += 1
                fresh[nbid] = {"mtime_ns": st.st_mtime_ns, "size": st.st_size, "shas": shas}
                changed = True
            changed = changed or fresh.keys() != self._entries.keys()
            self._entries = fresh
            self._by_sha = {}
            for nbid, entry in fresh.items():
                for sha in entry["shas"]:
                    self._by_sha.setdefault(sha, set()).add(nbid)
            if changed:
                self._save()

    def _save(self) -> None:
        doc = {"format": CACHE_FORMAT, "schema_version": 1, "notebooks": self._entries}
        try:
            fsio.make_dirs(fsio.corpus_folder(self.corpus.root, self.path.parent))
            fsio.atomic_write(self.path, orjson.dumps(doc))
        except OSError:
            pass  # a cache that cannot be saved costs time on the next check, nothing else

    def notebooks_with(self, sha256: str) -> set[str]:
        return set(self._by_sha.get(sha256, ()))
