"""Rescans recognised by their look: a page like one in the plan or the corpus, not its bytes.

Each page carries its look (media/lookalike.py), made at scan and landed on the page in
project.json. A page of a plan whose look is near another page's (look_index.py: within the
hash's threshold, in any quarter turn, among the nearest few), whose bytes differ (the same
bytes are a duplicate, dedupe.py), and whose ink the verification says is that page's
(media/ink.py; of several, the best scoring), is told as a question: "37.jpg looks like
page 37 of “Diary 1931”: a rescan?", with three answers. **Replace**: the rescan takes the
old page's place, the old page kept in the notebook's history (the rescan mechanism,
planning/placement.py), offered when the item
imports into the notebook holding that page, or when the other page is earlier in the same
item (the earlier one is then left out). **Keep Both**: the pair is not a rescan, said once:
kept on the item (its provenance: it changes nothing that lands) and remembered in the
corpus at commit (``corpus/lookalikes.json``), so no later plan asks again. **Leave Out**:
the page is not imported. **None Are Rescans**, for a notebook whose pages look alike one
to another or like the pages of the import's other notebooks (blank forms, ledgers' ruled
pages in one hand): its pages are not compared with each other any more, nor with the
import's other pages, only with the corpus's; said once for the item (its provenance, like
Keep Both), where answering each pair would never end (a page answered finds the next
nearest). Keep Both, Replace and Leave Out are also answered for several pages at once
(``answer_many``), the command line's ``--keep-both --all``.

A page is named for this by its file's content and its place in the file
(``sha256#index``, ``page_key``), so a pair stays the same pair whatever plan or notebook
holds it. Pages imported before looks were made carry none and are not compared (not made
lazily: that would decode every page of the corpus on the next scan).
"""

from __future__ import annotations

import hashlib
import itertools
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import orjson

from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.base.ids import short_id
from transcribe_import.engine.base.text import quoted_title
from transcribe_import.engine.ingest import placement as rules
from transcribe_import.engine.media import ink, lookalike
from transcribe_import.engine.planning import inks, look_index, page_edits, placement
from transcribe_import.engine.planning.look_cache import PairCache, Pairs, Verdicts
from transcribe_import.engine.planning.look_index import LookIndex, Near
from transcribe_import.engine.planning.ordering import exclude as exclude_files
from transcribe_import.engine.planning.ordering import move as move_files
from transcribe_import.engine.planning.plan import (
    ImportPlan,
    Op,
    PageRef,
    PlanItem,
    PlanPage,
    PlanSource,
)
from transcribe_import.engine.planning.problems import (
    PlanProblem,
    ProblemCode,
    ProblemSeverity,
    Resolution,
    file_name,
)
from transcribe_import.engine.storage import fsio, project

if TYPE_CHECKING:
    from transcribe_import.engine.storage.corpus import Corpus

# The corpus's memory of the pairs a person said are not rescans (Keep Both).
STATE_FILE = "lookalikes.json"
STATE_FORMAT = "transcribe.lookalikes"
# The item provenance key holding this plan's Keep Both answers, as [key, key] pairs.
KEPT_APART = "kept_apart"
# An item's provenance: True when none of its pages is a rescan of another of its pages.
ALL_APART = "pages_apart"


# The three answers to "a rescan?", as the CLI's order options and the window's buttons:
# Replace, Keep Both, Leave Out (problems.Resolution: the one vocabulary of both faces).
ANSWERS = (Resolution.RESCAN_REPLACES, Resolution.KEEP_BOTH, Resolution.LEAVE_OUT)


def page_key(sha256: str, page_index: int) -> str:
    """A page named by its file's bytes and its place in the file: the same in any plan."""
    return f"{sha256}#{page_index}"


def file_of_key(key: str) -> str:
    """The sha256 of the file a page key (``page_key``) names a page of."""
    return key.rpartition("#")[0]


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


@dataclass(frozen=True)
class Stored:
    """A page a new one is compared with: in the corpus (``notebook_id``) or earlier in the plan."""

    look: int
    key: str
    page_id: str  # the notebook's page id, or the plan page's
    words: str  # how the question names it: "page 37 of “Diary 1931”", "36.jpg"
    notebook_id: str | None = None  # None: a page of this plan
    item_id: str | None = None  # a page of this plan: its item
    source_id: str | None = None
    where: inks.PageFile | None = None  # its file, for its ink (planning/inks.py)


@dataclass(frozen=True)
class Lookalike:
    """A page of the plan that looks like ``other``, turned ``turn`` from it."""

    item_id: str
    source_id: str
    page_id: str
    name: str  # the page as ``order`` names it: its file, FILE#N for a page of several
    key: str
    other: Stored
    turn: lookalike.Turn
    can_replace: bool
    score: float  # the verification's (media/ink.py): how much the two are one page, 0-1


# -- the corpus's looks -------------------------------------------------------------------------

# Per notebook: its project.json's (mtime_ns, size) and the looks read from it, so a review
# validated again and again reads each manifest once until it changes.
_CACHE: dict[str, tuple[tuple[int, int], tuple[Stored, ...]]] = {}
_CACHE_LOCK = threading.Lock()


def corpus_looks(corpus: Corpus) -> list[Stored]:
    """Every page of the corpus that has a look, each named as the question names it."""
    out: list[Stored] = []
    for nbid, entry in corpus.index_entries().items():
        path = corpus.notebook_dir(nbid) / project.PROJECT_FILE
        try:
            st = fsio.stat(path)
        except OSError:
            continue  # doctor reports a notebook without its manifest
        stamp = (st.st_mtime_ns, st.st_size)
        key = str(path)
        with _CACHE_LOCK:
            cached = _CACHE.get(key)
        if cached is None or cached[0] != stamp:
            try:
                manifest = project.read(corpus.notebook_dir(nbid), nbid)
            except TranscribeError:
                continue  # likewise: an unreadable notebook has nothing to compare with
            folder = corpus.notebook_dir(nbid)
            cached = (stamp, _notebook_looks(folder, nbid, entry.title, manifest))
            with _CACHE_LOCK:
                _CACHE[key] = cached
        out.extend(cached[1])
    return out


def _notebook_looks(
    folder: Path, nbid: str, title: str, manifest: Mapping[str, Any]
) -> tuple[Stored, ...]:
    sources = {s.get("id"): s for s in manifest.get("sources", ()) if isinstance(s, dict)}
    out = []
    for position, page in enumerate(rules.live_records(manifest), 1):
        look = page.get("look")
        found = lookalike.look_from_hex(look) if isinstance(look, str) else None
        source = sources.get(page.get("source_id"), {})
        sha = source.get("sha256")
        index = page.get("page_index")
        if found is None or not isinstance(sha, str) or not isinstance(index, int):
            continue
        words = f"page {position} of {quoted_title(title)}"
        key = page_key(sha, index)
        where = _corpus_file(folder, source, index)
        out.append(Stored(found.upright, key, str(page.get("id")), words, nbid, where=where))
    return tuple(out)


def _corpus_file(folder: Path, source: Mapping[str, Any], index: int) -> inks.PageFile | None:
    """Where a corpus page's pixels are: its source file in the notebook's folder (its size
    read when its ink is first asked for, as the manifest may not say it)."""
    path, sha, kind = source.get("path"), source.get("sha256"), source.get("media_type")
    if not (isinstance(path, str) and isinstance(sha, str) and isinstance(kind, str)):
        return None
    count = source.get("page_count")
    return inks.PageFile(
        folder / path, sha, -1, kind, index, count if isinstance(count, int) else index + 1
    )


# -- what a person said -------------------------------------------------------------------------


def remembered(corpus: Corpus | None) -> set[tuple[str, str]]:
    """The pairs the corpus remembers as not rescans (``corpus/lookalikes.json``)."""
    if corpus is None:
        return set()
    try:
        doc = orjson.loads(fsio.read_bytes(corpus.root / STATE_FILE))
    except FileNotFoundError:
        return set()
    except (OSError, orjson.JSONDecodeError):
        return set()  # a damaged memory asks again; nothing is lost but a question
    pairs = doc.get("not_rescans") if isinstance(doc, dict) else None
    return {_pair(str(a), str(b)) for a, b in _pairs_in(pairs)}


def _pairs_in(value: Any) -> list[tuple[Any, Any]]:
    if not isinstance(value, list):
        return []
    return [(p[0], p[1]) for p in value if isinstance(p, list) and len(p) == 2]


def kept_apart(item: PlanItem) -> set[tuple[str, str]]:
    """The pairs this item's Keep Both answers name."""
    return {_pair(str(a), str(b)) for a, b in _pairs_in(item.provenance.get(KEPT_APART))}


def pages_apart(item: PlanItem) -> bool:
    """Whether the item's pages were said to be no rescans of one another."""
    return item.provenance.get(ALL_APART) is True


def none_are_rescans(item: PlanItem) -> PlanItem:
    """The item with its pages said to be no rescans of one another (None Are Rescans)."""
    return replace(item, provenance={**item.provenance, ALL_APART: True})


def remember(corpus: Corpus, plan: ImportPlan) -> None:
    """Keep the plan's Keep Both answers in the corpus, so no later plan asks again (commit
    calls it, under the corpus lock: two commits at once both keep theirs)."""
    new = set().union(*(kept_apart(it) for it in plan.items)) if plan.items else set()
    if not new:
        return
    with corpus.locked():
        known = remembered(corpus)
        if new <= known:
            return
        doc = {
            "format": STATE_FORMAT,
            "schema_version": 1,
            "not_rescans": [list(p) for p in sorted(known | new)],
        }
        fsio.atomic_write(corpus.root / STATE_FILE, orjson.dumps(doc, option=orjson.OPT_INDENT_2))


# -- finding them -------------------------------------------------------------------------------


def _name(source: PlanSource, page: PlanPage) -> str:
    """A plan page as ``order`` takes it: its file, or FILE#N for a page of a file of several."""
    if len(source.pages) + len(source.left_out) == 1:
        return file_name(source)
    return f"{file_name(source)}#{page.page_index + 1}"


def _page_file(source: PlanSource, page: PlanPage) -> inks.PageFile:
    count = max((p.page_index for p in (*source.pages, *source.left_out)), default=0) + 1
    return inks.PageFile(
        source.provenance.fs_path,
        source.sha256,
        source.provenance.size,
        source.media_type,
        page.page_index,
        count,
    )


# How many of the nearest candidates (by their looks) a page's verification looks at: a
# rescan's page is among the nearest few, and a page of a notebook of look-alike pages
# (date lines, page numbers) is not verified against every other.
CANDIDATES = 6

_T = TypeVar("_T")


def verified(
    look: lookalike.Look,
    key: str,
    where: inks.PageFile | None,
    index: LookIndex,
    stored: Sequence[Stored],
    said: set[tuple[str, str]],
) -> tuple[Stored, lookalike.Turn, float] | None:
    """The stored page the verification says ``look``'s page is, the one it scores best
    among the nearest ``CANDIDATES`` the index finds (neither its own bytes nor said not to
    be a rescan of it); None when it says so of none."""
    scored = (
        ((other, turn), inks.score(key, where, other.key, other.where, int(turn) // 90))
        for other, turn in candidates(look, key, index, stored, said)
    )
    best = _best(scored)
    return None if best is None else (*best[0], best[1])


def candidates(
    look: lookalike.Look,
    key: str,
    index: LookIndex,
    stored: Sequence[Stored],
    said: set[tuple[str, str]],
) -> list[tuple[Stored, lookalike.Turn]]:
    """The stored pages ``look``'s page is verified against, each with its turn: the
    nearest ``CANDIDATES`` the index finds, neither its own bytes (a duplicate, not a
    rescan) nor said not to be a rescan of it."""
    chosen = _chosen(index.near(look), key, lambda at: stored[at].key, said)
    return [(stored[at], turn) for at, turn in chosen]


def _chosen(
    nearest: Iterable[Near], key: str, key_of: Callable[[int], str], said: set[tuple[str, str]]
) -> list[tuple[int, lookalike.Turn]]:
    """Of the pages the index found near ``key``'s page, nearest first (``key_of``: a page's
    key by its number in the index), the ones it is verified against (``candidates``), by
    their numbers."""
    out: list[tuple[int, lookalike.Turn]] = []
    for near in nearest:
        other = key_of(near.index)
        if other == key or _pair(key, other) in said:
            continue
        if len(out) == CANDIDATES:
            break
        out.append((near.index, near.turn))
    return out


def _best(scored: Iterable[tuple[_T, float]]) -> tuple[_T, float] | None:
    """Of the candidates ``scored`` (each with its verification's score), the first scoring
    best, at least ``ink.SAME_PAGE``; None when none does."""
    best: tuple[_T, float] | None = None
    for candidate, value in scored:
        if value >= ink.SAME_PAGE and (best is None or value > best[1]):
            best = (candidate, value)
    return best


def _search_parameters() -> list[int]:
    """What the candidate search depends on besides the looks and what was answered: its
    parameters, as they are now. A search kept with others is not taken (``_Shelf``'s
    digests name them)."""
    return [
        CANDIDATES,
        lookalike.BITS,
        lookalike.THRESHOLD,
        look_index.CHUNK_BITS,
        look_index.RADIUS,
        look_index.CROWDED,
        look_index.BUDGET,
        look_index.CAP,
        look_index.BATCH,
        look_index.SPAN,
    ]


def _digest(value: Any) -> str:
    return hashlib.sha256(orjson.dumps(value)).hexdigest()


# A plan page with a look, as the search takes it: its item, file, page, key and look.
_Row = tuple[PlanItem, PlanSource, PlanPage, str, str]


@dataclass(frozen=True)
class _Part:
    """An item of the plan as the search takes it: its pages with a look (``first`` to
    ``first + count`` of the plan's), which of them are looked up ("1"; "0": a rescan placed
    already, Replace), and the digest of all its search depends on."""

    item: PlanItem
    first: int
    count: int
    asked: str
    apart: bool
    digest: str


class _Shelf:
    """The pages of a plan the candidate search looks at, item by item, each item named by
    a digest of exactly what its search depends on: the search's parameters, the corpus's
    pages (keys and looks, in order) and the pairs it remembers, every page of the items
    before it (keys and looks, in order: what its pages are looked up among), and its own
    pages, which of them are looked up, whether they are apart and what it kept apart. A
    change in any of them is another digest; a change in an item is another digest for it
    and the items after it, not the ones before (a notebook added at the end is searched
    alone)."""

    def __init__(
        self, plan: ImportPlan, stored: Sequence[Stored], said: set[tuple[str, str]]
    ) -> None:
        self.stored = stored
        self.said = said
        self._looks_read: dict[int, bool] = {}
        self.rows: list[_Row] = []
        self.parts: list[_Part] = []
        prefix = _digest(
            [
                _search_parameters(),
                [[s.key, f"{s.look:x}"] for s in stored],
                sorted(said),
            ]
        )
        for item in plan.items:
            replacing = {new for new, _old in item.replacements}
            first = len(self.rows)
            flags = []
            for source in item.imported_sources():
                for page in source.pages:
                    if page.look is not None:
                        key = page_key(source.sha256, page.page_index)
                        self.rows.append((item, source, page, key, page.look))
                        flags.append("0" if page.page_id in replacing else "1")
            pages = [[row[3], row[4]] for row in self.rows[first:]]
            asked, apart = "".join(flags), pages_apart(item)
            kept = sorted(kept_apart(item))
            digest = _digest([prefix, asked, apart, kept, pages])
            self.parts.append(_Part(item, first, len(flags), asked, apart, digest))
            prefix = _digest([prefix, pages])

    def fits(self, part: _Part, numbers: Sequence[int]) -> bool:
        """Whether a kept search's pairs can be ``part``'s: each page looked up, in order, at
        most ``CANDIDATES`` a page, each with a page of the corpus or a page of the plan with
        a look that it was looked up among, in a quarter turn. A line is never trusted for
        more than its digest."""
        last, run = -1, 0
        for at in range(0, len(numbers), 3):
            local, ref, quarter = numbers[at : at + 3]
            if not (last <= local < part.count and part.asked[local] == "1" and 0 <= quarter < 4):
                return False
            run = run + 1 if local == last else 1
            last = local
            below = part.first + (0 if part.apart else local)
            if run > CANDIDATES or not (
                ref < len(self.stored) if ref >= 0 else -1 - ref < below and self._read(ref)
            ):
                return False
        return True

    def _read(self, ref: int) -> bool:
        """Whether the plan's page ``ref`` has a look the search reads (asked once a page)."""
        known = self._looks_read.get(ref)
        if known is None:
            known = self._looks_read[ref] = lookalike.is_look(self.rows[-1 - ref][4])
        return known

    def search(self, todo: Sequence[int]) -> dict[int, list[int]]:
        """The candidate pairs of the items ``todo`` (by number), as ``PairCache`` keeps
        them: for each page looked up (by its number in its item), nearest first, the stored
        pages ``_chosen`` verifies it against (a page of the corpus by its number there, ``n``,
        a page of the plan by its number among the plan's pages with a look, ``-1 - n``),
        and the quarter turns. Each page is looked up among the pages stored before it (an
        item's pages apart, among those before the item) in one index (``near_many``)."""
        index = LookIndex()
        keys = [s.key for s in self.stored]
        refs = list(range(len(self.stored)))
        for other in self.stored:
            index.add(other.look)
        wanted = set(todo)
        looks: list[lookalike.Look] = []
        limits: list[int] = []
        owners: list[tuple[int, int]] = []
        for k, part in enumerate(self.parts[: max(todo) + 1]):
            start = len(keys)
            for local in range(part.count):
                _item, _source, _page, key, text = self.rows[part.first + local]
                look = lookalike.look_from_hex(text)
                if look is None:
                    continue
                if k in wanted and part.asked[local] == "1":
                    looks.append(look)
                    limits.append(start if part.apart else len(keys))
                    owners.append((k, local))
                index.add(look.upright)
                keys.append(key)
                refs.append(-1 - (part.first + local))
        found: dict[int, list[int]] = {k: [] for k in todo}
        said_of: dict[int, set[tuple[str, str]]] = {}
        for (k, local), near in zip(owners, index.near_many(looks, limits), strict=True):
            said_here = said_of.get(k)
            if said_here is None:
                said_here = said_of[k] = self.said | kept_apart(self.parts[k].item)
            key = self.rows[self.parts[k].first + local][3]
            for at, turn in _chosen(near, key, keys.__getitem__, said_here):
                found[k].extend((local, refs[at], int(turn) // 90))
        return found


def find(
    corpus: Corpus | None,
    plan: ImportPlan,
    progress: Callable[[int, int], None] | None = None,
    *,
    keep: bool = False,
) -> list[Lookalike]:
    """Every imported page of the plan that is a rescan of a page of the corpus or an
    earlier page of the plan, and is neither its bytes nor answered already (Replace, Keep
    Both): candidates found by their looks (``LookIndex``), each decided by comparing the
    two pages' ink (media/ink.py), the best scoring named. The candidate pairs are found
    first and verified together (``inks.score_many``: on both cores for a shelf), as
    neither which pages are candidates nor the index depends on a verdict. ``progress``:
    ``inks.score_many``'s, the pairs verified of those to verify.

    An item's candidate pairs, and their verdicts, are kept in the corpus (``keep``:
    validate keeps them, look_cache.PairCache) under the digest of what they depend on
    (``_Shelf``), so that a plan made again and its validate search only the items that
    changed, and verify no pair again; the answer is the same as searched."""
    stored = corpus_looks(corpus) if corpus is not None else []
    shelf = _Shelf(plan, stored, remembered(corpus))
    cache = None if corpus is None else PairCache(corpus.root)
    kept = {} if cache is None else cache.read([p.digest for p in shelf.parts])
    searches: list[Pairs | None] = []
    for part in shelf.parts:
        entry = kept.get(part.digest)
        searches.append(entry if entry is not None and shelf.fits(part, entry[0]) else None)
    todo = [k for k, entry in enumerate(searches) if entry is None]
    if todo:
        for k, numbers in shelf.search(todo).items():
            searches[k] = (numbers, [None] * (len(numbers) // 3))
    done = [entry for entry in searches if entry is not None]
    assert len(done) == len(searches)  # every item's searched or kept

    def key_of(ref: int) -> str:
        return stored[ref].key if ref >= 0 else shelf.rows[-1 - ref][3]

    wheres: dict[int, inks.PageFile | None] = {}

    def where_of(ref: int) -> inks.PageFile | None:
        if ref not in wheres:
            if ref >= 0:
                wheres[ref] = stored[ref].where
            else:
                _item, source, page, _key, _look = shelf.rows[-1 - ref]
                wheres[ref] = _page_file(source, page)
        return wheres[ref]

    # Each pair as (the page's ref, the stored page's ref, quarter turns), by item, and
    # the pair its verdict is kept by (page keys and quarter turns).
    pairs = [
        [
            (-1 - (part.first + numbers[at]), numbers[at + 1], numbers[at + 2])
            for at in range(0, len(numbers), 3)
        ]
        for part, (numbers, _verdicts) in zip(shelf.parts, done, strict=True)
    ]
    memos = [[(key_of(m), key_of(o), q) for m, o, q in item_pairs] for item_pairs in pairs]
    known: Verdicts = {
        memo: value
        for item_memos, (_numbers, verdicts) in zip(memos, done, strict=True)
        for memo, value in zip(item_memos, verdicts, strict=True)
        if value is not None
    }
    inks.take_verdicts(known)
    inks.score_many(
        [
            (memo[0], where_of(mine), memo[1], where_of(other), quarter)
            for item_pairs, item_memos in zip(pairs, memos, strict=True)
            for (mine, other, quarter), memo in zip(item_pairs, item_memos, strict=True)
            if memo not in known
        ],
        progress=progress,
    )

    def verdict(mine: int, other: int, memo: tuple[str, str, int]) -> float:
        """The pair's score (``inks.score``), its pages' files looked for only when it has
        none kept."""
        if memo in known:
            return inks.score(memo[0], None, memo[1], None, memo[2])
        return inks.score(memo[0], where_of(mine), memo[1], where_of(other), memo[2])

    found: list[Lookalike] = []
    for item_pairs, item_memos in zip(pairs, memos, strict=True):
        at = 0
        for mine, page_pairs in itertools.groupby(item_pairs, key=lambda p: p[0]):
            scored = []
            for _mine, other, quarter in page_pairs:
                scored.append(((other, quarter), verdict(mine, other, item_memos[at])))
                at += 1
            match = _best(scored)
            if match is not None:
                (other, quarter), value = match
                found.append(_lookalike(shelf, mine, other, quarter, value))
    if cache is not None and keep:
        made: dict[str, Pairs] = {}
        for k, (part, item_memos, (numbers, verdicts)) in enumerate(
            zip(shelf.parts, memos, done, strict=True)
        ):
            read = inks.verdicts_read(item_memos)
            now = [read.get(memo) for memo in item_memos]
            if k in todo or now != verdicts:  # searched, or verified since it was kept
                made[part.digest] = (numbers, now)
        cache.add(made)
    return found


def _lookalike(shelf: _Shelf, mine: int, ref: int, quarter: int, score: float) -> Lookalike:
    """The plan's page ``mine`` (its ref: ``_Shelf.search``) as a look-alike of the stored
    page ``ref``, turned ``quarter`` quarters from it."""
    item, source, page, key, _look = shelf.rows[-1 - mine]
    if ref >= 0:
        other = shelf.stored[ref]
    else:
        o_item, o_source, o_page, o_key, o_look = shelf.rows[-1 - ref]
        look = lookalike.look_from_hex(o_look)
        assert look is not None  # searched, so read (``_Shelf.fits``)
        other = Stored(
            look.upright,
            o_key,
            o_page.page_id,
            _name(o_source, o_page),
            item_id=o_item.item_id,
            source_id=o_source.source_id,
            where=_page_file(o_source, o_page),
        )
    return Lookalike(
        item.item_id,
        source.source_id,
        page.page_id,
        _name(source, page),
        key,
        other,
        lookalike.Turn(90 * quarter),
        _can_replace(item, source, other),
        score,
    )


def blank_pages(plan: ImportPlan) -> dict[str, int]:
    """How many of each item's imported pages are blank (no ink: ``lookalike.BLANK``), by
    item id, for the items that have any. Information: a blank page is never asked about
    as a rescan of another."""
    out: dict[str, int] = {}
    for item in plan.items:
        count = sum(
            lookalike.is_blank(page.look)
            for source in item.imported_sources()
            for page in source.pages
        )
        if count:
            out[item.item_id] = count
    return out


def _can_replace(item: PlanItem, source: PlanSource, other: Stored) -> bool:
    """Replace is offered where the rescan can take the page's place: the page is in the
    notebook this item imports into (the rescan mechanism), or earlier in this same item
    where ``_place_in_plan`` finds the rescan a place (that page is then left out)."""
    if other.notebook_id is None:
        return other.item_id == item.item_id and _place_in_plan(item, source, other) is not None
    return item.op is Op.IMPORT_INTO_NOTEBOOK and item.notebook_id == other.notebook_id


def _place_in_plan(item: PlanItem, rescan: PlanSource, old_page: Stored) -> int | None:
    """Where the file ``rescan`` goes among the item's sources to stand in ``old_page``'s
    place (an earlier page of the same item): before that page's file, or after it for
    the last page of a file of several. None when it cannot: the rescan is a page of a file
    of several (moving the file would move its other pages), or the old page is inside a
    file of several, neither its first nor its last (a plan keeps a file's pages together).
    """
    if len(rescan.pages) + len(rescan.left_out) != 1:
        return None
    at = next(i for i, s in enumerate(item.sources) if s.source_id == old_page.source_id)
    order = [p.page_id for p in item.sources[at].pages]
    if len(order) == 1 or order[0] == old_page.page_id:
        return at
    if order[-1] == old_page.page_id:
        return at + 1
    return None


# -- told -------------------------------------------------------------------------------------


def _page_words(name: str) -> str:
    """A plan page's name as a sentence says it: "scan.pdf, page 2" for ``scan.pdf#2`` (the
    form ``order`` takes, which its options keep)."""
    ref = PageRef.parse(name)
    return ref.file if ref.number is None else f"{ref.file}, page {ref.number}"


def words(found: Lookalike) -> str:
    """The question every face shows (the problem's message)."""
    other = (
        found.other.words
        if found.other.notebook_id
        else f"{_page_words(found.other.words)} in this import"
    )
    turned = "" if found.turn is lookalike.Turn.NONE else f", turned {int(found.turn)}°"
    text = f"{_page_words(found.name)} looks like {other}{turned}: a rescan?"
    if found.other.notebook_id and not found.can_replace:
        text += " To replace that page with it, import it into that notebook instead."
    elif not found.can_replace and found.other.item_id != found.item_id:
        text += (
            " That page is another notebook's in this import: to replace it, leave this one "
            "out, commit, then import it into that notebook."
        )
    elif not found.can_replace:
        text += f" {_NO_PLACE_IN_PLAN}"
    return text


# Why a page of this import cannot be replaced here, and the way that can.
_NO_PLACE_IN_PLAN = (
    "It cannot take that page's place in this import, as a file's pages stay together: to "
    "replace the page, leave this one out, commit, then import it into the notebook."
)


def plan_problems(
    corpus: Corpus | None,
    plan: ImportPlan,
    progress: Callable[[int, int], None] | None = None,
) -> list[PlanProblem]:
    """One warning per look-alike page, with its answers: they do not block the commit (the
    page is imported as a new one unless answered), but the item is not Ready until then.
    ``progress``: ``find``'s."""
    out = []
    for found in find(corpus, plan, progress, keep=True):
        answers = [a for a in ANSWERS if a is not Resolution.RESCAN_REPLACES or found.can_replace]
        if found.other.notebook_id is None:  # a page of this import, of any of its notebooks
            answers.append(Resolution.NONE_ARE_RESCANS)
        into = _into_instead(plan.item(found.item_id), found)
        answers = [Resolution.IMPORT_INTO, *answers] if into else answers
        name = found.name.replace('"', '\\"')
        flags = {
            Resolution.IMPORT_INTO: f"--into {short_id(str(into))}",
            Resolution.RESCAN_REPLACES: f'--rescan "{name}"',
            Resolution.KEEP_BOTH: f'--keep-both "{name}"',
            Resolution.LEAVE_OUT: f'--exclude "{name}"',
            Resolution.NONE_ARE_RESCANS: "--none-are-rescans",
        }
        out.append(
            PlanProblem(
                ProblemSeverity.WARNING,
                ProblemCode.LOOKS_LIKE,
                found.item_id,
                words(found),
                (found.source_id,),
                resolutions=tuple(answers),
                hint="order " + " | ".join(flags[a] for a in answers),
                # The page asked about first (what the answers name), then the page it looks
                # like when that is one of this import's; a page of the corpus is named by
                # its notebook instead, so a face can group the questions by notebook.
                files=(found.name,) if found.other.notebook_id else (found.name, found.other.words),
                notebook_id=found.other.notebook_id,
            )
        )
    return out


def _into_instead(item: PlanItem, found: Lookalike) -> str | None:
    """The notebook a new notebook's page looks like a page of, which the item can be
    imported into instead so that the page replaces it (api.import_into); else None."""
    if found.can_replace or item.op is not Op.CREATE_NOTEBOOK or item.restore is not None:
        return None
    return found.other.notebook_id


# -- answered ---------------------------------------------------------------------------------


def answer(
    corpus: Corpus | None, plan: ImportPlan, item_id: str, name: str, how: Resolution
) -> PlanItem:
    """The item ``item_id`` with the look-alike page ``name`` (as ``order`` names files)
    answered ``how`` (one of ``ANSWERS``); ValueError in words when that page is no
    look-alike or the answer does not apply to it."""
    item = plan.item(item_id)
    found = question_named(item, [f for f in find(corpus, plan) if f.item_id == item_id], name)
    if how is Resolution.KEEP_BOTH:
        return kept_both(item, [found])
    if how is Resolution.LEAVE_OUT:
        return _left_out(item, found.source_id, found.page_id)
    if how is not Resolution.RESCAN_REPLACES:
        raise ValueError(f"{how} is no answer to a rescan question")
    if not found.can_replace and found.other.notebook_id is None:
        raise ValueError(f"{found.name} cannot replace {found.other.words}. {_NO_PLACE_IN_PLAN}")
    if not found.can_replace:
        raise ValueError(
            f"{found.name} cannot replace {found.other.words}: it is imported into another "
            "notebook. Import it into that notebook to replace the page, or keep both"
        )
    if found.other.notebook_id is not None:
        return placement.replace_page(item, found.page_id, found.other.page_id)
    return _replaced_in_plan(item, found)


def question_named(item: PlanItem, asked: Sequence[Lookalike], name: str) -> Lookalike:
    """The question of ``asked`` (``item``'s) about the page ``name``: named as the question
    names it (FILE#N: N its number in the file), or as ``order`` names files otherwise (a
    base name unique in the item); ValueError in words when that page is asked nothing."""
    found = next((f for f in asked if f.name == name), None)
    if found is None:
        page_id = placement.page_of_file(item, name)
        found = next((f for f in asked if f.page_id == page_id), None)
    if found is None:
        raise ValueError(f"{name} looks like no other page: there is no rescan question to answer")
    return found


def kept_both(item: PlanItem, answered: Sequence[Lookalike]) -> PlanItem:
    """The item with each of ``answered``'s pairs said to be no rescan (Keep Both)."""
    pairs = kept_apart(item) | {_pair(f.key, f.other.key) for f in answered}
    provenance = {**item.provenance, KEPT_APART: [list(p) for p in sorted(pairs)]}
    return replace(item, provenance=provenance)


def answer_many(
    corpus: Corpus | None,
    plan: ImportPlan,
    item_id: str,
    names: Sequence[str] | None,
    how: Resolution,
) -> tuple[PlanItem, list[Lookalike]]:
    """The item ``item_id`` with the questions about the pages ``names`` answered ``how``
    (one of ``ANSWERS``), or, for ``names`` None, every question asked about its pages that
    the answer fits (Replace: where it is offered). ValueError in words, and nothing
    answered, when a page named is asked nothing or the answer does not fit one of them.

    Keep Both is said of the pairs asked now, all at once. Replace and Leave Out change the
    item (a page left out, a rescan moved), so each is answered on the item the one before
    left, and a question an earlier answer settled or changed (its other page left out, or
    the page now like another) is passed over: it stays open, and is told as open.
    """
    item = plan.item(item_id)
    asked = [f for f in find(corpus, plan) if f.item_id == item_id]
    if names is None:
        chosen = [f for f in asked if how is not Resolution.RESCAN_REPLACES or f.can_replace]
        if not asked:
            raise ValueError(
                f"no page of “{item.label}” looks like another page: there is no rescan "
                "question to answer"
            )
        if not chosen:
            raise ValueError(
                f"no page of “{item.label}” can replace the page it looks like in this import: "
                "import a rescan into the notebook holding its page to replace that page"
            )
    else:
        chosen = []
        for name in names:
            found = question_named(item, asked, name)
            if found not in chosen:  # one page named twice (by its base name and its rel)
                chosen.append(found)
    if how is Resolution.KEEP_BOTH:
        return kept_both(item, chosen), chosen
    done: list[Lookalike] = []
    for found in chosen:
        now = plan.with_item(item)
        if not any(
            f.item_id == item_id and f.page_id == found.page_id and f.other.key == found.other.key
            for f in find(corpus, now)
        ):
            continue  # no longer this question: an earlier answer settled or changed it
        item = answer(corpus, now, item_id, found.name, how)
        done.append(found)
    return item, done


def answer_all_apart(corpus: Corpus | None, plan: ImportPlan, item_id: str) -> PlanItem:
    """The item ``item_id`` with its pages said to be no rescans of one another nor of the
    pages of the import's other notebooks (None Are Rescans): they are compared with the
    corpus's pages only, so a rescan of an imported page among them is still asked about.
    ValueError in words when none of its pages looks like a page of this import.

    Within the item it is one mark (its pages are not compared with each other); with the
    other notebooks' pages, each pair asked is kept apart, as Keep Both keeps it, until
    none is asked (a page answered finds the next nearest, so it may take a few turns)."""
    item = plan.item(item_id)

    def asked(item: PlanItem) -> list[Lookalike]:
        return [
            f
            for f in find(corpus, plan.with_item(item))
            if f.item_id == item_id and f.other.notebook_id is None
        ]

    if not asked(item):
        raise ValueError(
            f"no page of “{item.label}” looks like another page of this import. A page like "
            "one of the corpus is answered on its own, as a rescan of that page may be among "
            "them: keep both for all of them at once if none is"
        )
    item = none_are_rescans(item)
    while found := asked(item):
        item = kept_both(item, found)
    return item


def _left_out(item: PlanItem, source_id: str, page_id: str) -> PlanItem:
    """The page not imported: its file excluded, or only it when its file has several."""
    source = next(s for s in item.sources if s.source_id == source_id)
    page = next(p for p in source.pages if p.page_id == page_id)
    if len(source.pages) + len(source.left_out) == 1:
        return exclude_files(item, [file_name(source)])
    return page_edits.leave_out_pages(item, [PageRef(file_name(source), page.page_index + 1)])


def _replaced_in_plan(item: PlanItem, found: Lookalike) -> PlanItem:
    """Replace within this import: the earlier page is left out and the rescan takes its
    place in the order, as a rescan of a notebook's page does (a phone's photo of page 12
    numbered after the last page lands where page 12 was, not at the end): where
    ``_place_in_plan`` says, which is why Replace is offered only where it finds one."""
    old_id = found.other.source_id
    assert old_id is not None  # a page of this plan has its source
    here = next(i for i, s in enumerate(item.sources) if s.source_id == found.source_id)
    to = _place_in_plan(item, item.sources[here], found.other)
    assert to is not None  # offered (and answered) only where it has a place
    between = item.sources[min(here, to) : max(here, to)]
    item = _left_out(item, old_id, found.other.page_id)
    if not any(s.imported for s in between if s.source_id not in (old_id, found.source_id)):
        return item  # nothing imported stands between them: it is in its place already
    return move_files(item, [here], to)
