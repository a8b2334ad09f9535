"""The rescans' candidate search kept in the corpus (look_cache.PairCache): a plan made again
and its validate search no item whose looks, pages, answers and parameters are unchanged,
verify no pair again, and find exactly what a search made afresh finds; any change misses,
and a line that is not one of the item's is never taken."""

from __future__ import annotations

import io
import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import orjson
import pytest
from PIL import Image

from transcribe_import.engine.media import lookalike
from transcribe_import.engine.planning import inks, look_cache, look_index, look_pass, lookalikes
from transcribe_import.engine.planning.look_cache import PairCache
from transcribe_import.engine.planning.lookalikes import Lookalike, page_key
from transcribe_import.engine.planning.plan import ImportPlan
from transcribe_import.engine.planning.planner import build_plan
from transcribe_import.engine.planning.scan import run_scan
from transcribe_import.engine.storage.corpus import Corpus

PER_FOLDER = 6
FOLDERS = 4


@pytest.fixture
def corpus(data_dir: Path) -> Corpus:
    return Corpus.open(data_dir)


def _tiny_jpeg() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), (240, 236, 225)).save(buf, "JPEG", quality=75)
    return buf.getvalue()


def _shelf(root: Path, folders: int = FOLDERS, first: int = 0) -> Path:
    """``folders`` notebooks of ``PER_FOLDER`` tiny JPEGs, each file's bytes its own."""
    tiny = _tiny_jpeg()
    for f in range(first, first + folders):
        for k in range(PER_FOLDER):
            path = root / f"notebook {f}" / f"page {k}.jpg"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(tiny + (f * 100 + k).to_bytes(4, "big"))
    return root


def _near(value: int, rnd: random.Random, bits: int = 3) -> int:
    for _ in range(bits):
        value ^= 1 << rnd.randrange(1, lookalike.BITS)
    return value


def _with_looks(plan: ImportPlan, seed: int = 7) -> ImportPlan:
    """Every page a look of its own (random hashes, far apart), but for three look-alikes
    of page 0 of notebook 0 (a few bits from it: in notebooks 1 and 3, and its own notebook's
    page 3) and one of page 1 of notebook 1 in notebook 2."""
    rnd = random.Random(seed)
    uprights: dict[tuple[int, int], int] = {}
    looks: dict[str, str] = {}
    like = {(1, 2): (0, 0), (3, 4): (0, 0), (0, 3): (0, 0), (2, 5): (1, 1)}
    for item in plan.items:
        f = int(item.label.rsplit(" ", 1)[-1])
        for k, source in enumerate(item.sources):
            upright = rnd.getrandbits(lookalike.BITS) & ~1
            if (f, k) in like:
                upright = _near(uprights[like[f, k]], rnd)
            uprights[f, k] = upright
            turns = (upright, *(rnd.getrandbits(lookalike.BITS) & ~1 for _ in range(3)))
            look = lookalike.Look(turns)  # type: ignore[arg-type]
            looks[page_key(source.sha256, 0)] = lookalike.look_to_hex(look)
    return look_pass.with_looks(plan, looks)


def _plan(corpus: Corpus, root: Path) -> ImportPlan:
    return _with_looks(build_plan(corpus, run_scan([root])))


class _Verdicts:
    """The verification made of page keys alone (a page's ink is its key): the pairs named
    rescans score 0.95, any other 0.2; a page of ``unread`` has no ink (its file gone)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.made = 0
        self.unread: set[str] = set()
        self.rescans: set[frozenset[str]] = set()
        monkeypatch.setattr(inks, "ink_of", self._ink_of)
        monkeypatch.setattr(inks, "_verdict", self._verdict)
        monkeypatch.setattr(inks, "PARALLEL_FROM", 10**9)  # verified here, where patched
        inks.forget()

    def _ink_of(self, key: str, _where: object) -> object:
        return None if key in self.unread else key

    def _verdict(self, mine: object, theirs: object, _turn: int) -> float:
        self.made += 1
        if mine is None or theirs is None:
            return 0.0
        return 0.95 if frozenset((mine, theirs)) in self.rescans else 0.2


@pytest.fixture
def verdicts(monkeypatch: pytest.MonkeyPatch) -> _Verdicts:
    return _Verdicts(monkeypatch)


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many pages each candidate search looks up (``near_many``), from here on."""
    counted: list[int] = []
    real = look_index.LookIndex.near_many

    def near_many(self: look_index.LookIndex, looks: Sequence[lookalike.Look], *a, **kw):  # type: ignore[no-untyped-def]
        counted.append(len(looks))
        return real(self, looks, *a, **kw)

    monkeypatch.setattr(look_index.LookIndex, "near_many", near_many)
    return counted


def _searched_afresh(monkeypatch: pytest.MonkeyPatch) -> Callable[[Corpus, ImportPlan], list]:
    """``find`` as it is with no kept search (the cache read finds nothing)."""

    def find(corpus: Corpus, plan: ImportPlan) -> list[Lookalike]:
        with monkeypatch.context() as m:
            m.setattr(PairCache, "read", lambda _self, _wanted: {})
            return lookalikes.find(corpus, plan)

    return find


def _keys(plan: ImportPlan, *where: tuple[int, int]) -> set[str]:
    """The page keys of page ``k`` of notebook ``f`` for each ``(f, k)``."""
    out = set()
    for item in plan.items:
        f = int(item.label.rsplit(" ", 1)[-1])
        for k, source in enumerate(item.sources):
            if (f, k) in where:
                out.add(page_key(source.sha256, 0))
    return out


def test_a_kept_search_finds_what_a_fresh_one_does_and_nothing_is_searched_or_verified_again(
    corpus: Corpus,
    tmp_path: Path,
    verdicts: _Verdicts,
    lookups: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plan = _plan(corpus, _shelf(tmp_path / "shelf"))
    verdicts.rescans = {
        frozenset(_keys(plan, (0, 0), (3, 4))),
        frozenset(_keys(plan, (1, 1), (2, 5))),
    }
    first = lookalikes.plan_problems(corpus, plan)
    assert sum(lookups) == FOLDERS * PER_FOLDER
    assert verdicts.made > 0
    assert PairCache(corpus.root).path.is_file()
    found = lookalikes.find(corpus, plan)
    assert [(f.name, f.other.words) for f in found] == [
        ("shelf/notebook 2/page 5.jpg", "shelf/notebook 1/page 1.jpg"),
        ("shelf/notebook 3/page 4.jpg", "shelf/notebook 0/page 0.jpg"),
    ]

    # A new process (validate after plan), a plan made again of the same files (new ids).
    inks.forget()
    lookups.clear()
    verdicts.made = 0
    again = _plan(corpus, tmp_path / "shelf")
    assert again.plan_id != plan.plan_id
    kept = lookalikes.find(corpus, again)
    assert lookups == [] and verdicts.made == 0  # neither searched nor verified
    assert kept == _searched_afresh(monkeypatch)(corpus, again)
    assert [(p.code, p.message, p.files, p.resolutions, p.hint) for p in first] == [
        (p.code, p.message, p.files, p.resolutions, p.hint)
        for p in lookalikes.plan_problems(corpus, plan)
    ]


def _change_misses(
    corpus: Corpus,
    plan: ImportPlan,
    changed: ImportPlan,
    lookups: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> int:
    """How many pages ``changed``'s search looks up after ``plan``'s was kept, having found
    what a fresh search finds."""
    lookalikes.plan_problems(corpus, plan)
    lookups.clear()
    found = lookalikes.find(corpus, changed, keep=True)
    searched = sum(lookups)
    assert found == _searched_afresh(monkeypatch)(corpus, changed)
    lookups.clear()
    assert lookalikes.find(corpus, changed) == found
    assert lookups == []  # kept once searched
    return searched


def _item(plan: ImportPlan, f: int) -> int:
    return next(i for i, it in enumerate(plan.items) if it.label.endswith(f" {f}"))


def _looks_changed(plan: ImportPlan, f: int, k: int) -> ImportPlan:
    """Page ``k`` of notebook ``f`` with a bit of its look flipped."""
    at = _item(plan, f)
    item = plan.items[at]
    source = item.sources[k]
    look = lookalike.look_from_hex(source.pages[0].look or "")
    assert look is not None
    turns = (look.turns[0] ^ 2, *look.turns[1:])
    page = replace(source.pages[0], look=lookalike.look_to_hex(lookalike.Look(turns)))  # type: ignore[arg-type]
    sources = (*item.sources[:k], replace(source, pages=(page,)), *item.sources[k + 1 :])
    return plan.with_item(replace(item, sources=sources))


def test_a_change_in_a_look_searches_its_item_and_those_after_it_again(
    corpus: Corpus,
    tmp_path: Path,
    verdicts: _Verdicts,
    lookups: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plan = _plan(corpus, _shelf(tmp_path / "shelf"))
    at = _item(plan, 2)
    after = sum(len(it.sources) for it in plan.items[at:])
    assert _change_misses(corpus, plan, _looks_changed(plan, 2, 1), lookups, monkeypatch) == after
    at = _item(plan, FOLDERS - 1)
    last = _looks_changed(plan, FOLDERS - 1, 0)
    assert _change_misses(corpus, plan, last, lookups, monkeypatch) == PER_FOLDER


def test_an_answer_searches_only_its_item_again(
    corpus: Corpus,
    tmp_path: Path,
    verdicts: _Verdicts,
    lookups: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plan = _plan(corpus, _shelf(tmp_path / "shelf"))
    verdicts.rescans = {
        frozenset(_keys(plan, (0, 0), (3, 4))),
        frozenset(_keys(plan, (0, 0), (1, 2))),
    }
    found = lookalikes.find(corpus, plan)
    asked = next(f for f in found if f.name.endswith("notebook 1/page 2.jpg"))
    kept = plan.with_item(lookalikes.kept_both(plan.item(asked.item_id), [asked]))
    assert _change_misses(corpus, plan, kept, lookups, monkeypatch) == PER_FOLDER
    apart = plan.with_item(lookalikes.none_are_rescans(plan.item(asked.item_id)))
    assert _change_misses(corpus, plan, apart, lookups, monkeypatch) == PER_FOLDER
    # Keep Both remembered by the corpus (a commit): every item's search depends on it.
    lookalikes.plan_problems(corpus, plan)
    lookalikes.remember(corpus, kept)
    lookups.clear()
    assert lookalikes.find(corpus, plan) == _searched_afresh(monkeypatch)(corpus, plan)
    assert lookups[0] == FOLDERS * PER_FOLDER


def test_a_page_left_out_or_a_notebook_added_searches_only_what_it_changes(
    corpus: Corpus,
    tmp_path: Path,
    verdicts: _Verdicts,
    lookups: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = _shelf(tmp_path / "shelf")
    plan = _plan(corpus, root)
    at = _item(plan, 1)
    item = plan.items[at]
    left = plan.with_item(
        replace(item, sources=(replace(item.sources[0], excluded=True), *item.sources[1:]))
    )
    after = sum(len(it.sources) for it in plan.items[at:]) - 1
    assert _change_misses(corpus, plan, left, lookups, monkeypatch) == after
    _shelf(root, folders=1, first=FOLDERS)  # a notebook added, last in the plan's order
    more = _plan(corpus, root)
    assert len(more.items) == FOLDERS + 1
    assert _change_misses(corpus, plan, more, lookups, monkeypatch) == PER_FOLDER


@pytest.mark.parametrize(
    ("module", "name", "value"),
    [(lookalikes, "CANDIDATES", 1), (look_index, "CROWDED", 1), (lookalike, "THRESHOLD", 4)],
)
def test_a_parameter_changed_searches_everything_again(
    corpus: Corpus,
    tmp_path: Path,
    verdicts: _Verdicts,
    lookups: list[int],
    monkeypatch: pytest.MonkeyPatch,
    module: object,
    name: str,
    value: int,
) -> None:
    plan = _plan(corpus, _shelf(tmp_path / "shelf"))
    lookalikes.plan_problems(corpus, plan)
    monkeypatch.setattr(module, name, value)
    lookups.clear()
    assert lookalikes.find(corpus, plan) == _searched_afresh(monkeypatch)(corpus, plan)
    assert lookups[0] == FOLDERS * PER_FOLDER


def test_lines_that_are_not_an_items_search_are_never_taken(
    corpus: Corpus,
    tmp_path: Path,
    verdicts: _Verdicts,
    lookups: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plan = _plan(corpus, _shelf(tmp_path / "shelf"))
    verdicts.rescans = {frozenset(_keys(plan, (0, 0), (3, 4)))}
    truth = _searched_afresh(monkeypatch)(corpus, plan)
    assert truth, "a look-alike to keep finding"
    lookalikes.plan_problems(corpus, plan)
    cache = PairCache(corpus.root)
    lines = cache.path.read_bytes().splitlines()
    assert len(lines) == FOLDERS
    digests = [orjson.loads(line)[0] for line in lines]
    # Lines of the right form under an item's digest that cannot be its search (each made
    # for item k, whose first page is the plan's page ``PER_FOLDER * k``).
    bad: list[Callable[[int], list[int]]] = [
        lambda k: [0, 0, 0],  # page 0 with the corpus's page 0: the corpus has none
        lambda k: [0, -1 - PER_FOLDER * k, 0],  # a page with itself
        lambda k: [1, -1 - PER_FOLDER * k - 1, 0],  # a page with one after it
        lambda k: [PER_FOLDER, -1, 0],  # a page the item has not
        lambda k: [1, -1, 4],  # five quarter turns
        lambda k: [1, -1, 0, 0, -1, 0],  # pages out of order
        lambda k: [1, -1 - PER_FOLDER * FOLDERS, 0],  # a page the plan has not
        lambda k: [5, -1, 0] * (lookalikes.CANDIDATES + 1),  # more than are verified
    ]
    with cache.path.open("ab") as f:
        f.write(orjson.dumps([digests[-1], [], [2.5]]) + b"\n")  # a verdict of no pair
        f.write(orjson.dumps([digests[-1], [1, -1, 0], [7.0]]) + b"\n")  # above 1
        f.write(b"\x00\xff not json\n" + orjson.dumps({"a": digests[0]}) + b"\n")
        f.write(orjson.dumps([digests[0], [0, "-1", 0], [None]]) + b"\n")
        f.write(orjson.dumps([digests[0], [0, True, 0], [None]]) + b"\n")
        f.write(b'["' + digests[1].encode() + b'", [1, ')  # torn
    inks.forget()
    lookups.clear()
    assert lookalikes.find(corpus, plan) == truth
    assert lookups == []  # those lines skipped, each item's last that reads taken
    for made in bad:
        # Each kind alone, as the last line of every digest (the last that reads wins).
        with cache.path.open("ab") as f:
            f.write(b"\n")
            for k, digest in enumerate(digests):
                numbers = made(k)
                line = [digest, numbers, [None] * (len(numbers) // 3)]
                f.write(orjson.dumps(line) + b"\n")
        inks.forget()
        lookups.clear()
        assert lookalikes.find(corpus, plan) == truth
        assert lookups == [FOLDERS * PER_FOLDER], made(0)  # searched again, every item
    # A foreign file where the cache is: nothing taken, searched again, still right.
    cache.path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40)
    lookups.clear()
    assert len(lookalikes.plan_problems(corpus, plan)) == len(truth)
    assert lookups == [FOLDERS * PER_FOLDER]
    assert lookalikes.find(corpus, plan) == truth
    assert lookups == [FOLDERS * PER_FOLDER]  # kept after the foreign bytes, and taken


def test_a_pair_not_read_is_verified_again_and_kept_once_it_is(
    corpus: Corpus,
    tmp_path: Path,
    verdicts: _Verdicts,
    lookups: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plan = _plan(corpus, _shelf(tmp_path / "shelf"))
    pair = _keys(plan, (0, 0), (3, 4))
    verdicts.rescans = {frozenset(pair)}
    verdicts.unread = set(pair) - _keys(plan, (0, 0))  # the rescan's file gone
    assert lookalikes.find(corpus, plan, keep=True) == []
    unread = len(inks._unread)  # the page's pairs, each verified without its ink
    assert unread > 0
    inks.forget()
    verdicts.unread = set()  # back
    verdicts.made = 0
    found = lookalikes.find(corpus, plan, keep=True)
    assert [f.name for f in found] == ["shelf/notebook 3/page 4.jpg"]
    assert verdicts.made == unread  # those pairs alone: the others' verdicts were kept
    inks.forget()
    verdicts.made = 0
    assert lookalikes.find(corpus, plan) == found
    assert verdicts.made == 0 and lookups == [sum(len(it.sources) for it in plan.items)]


def test_the_kept_pairs_are_read_from_the_end_back_as_far_as_the_items_wanted(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = PairCache(corpus.root)
    monkeypatch.setattr(look_cache, "BLOCK_BYTES", 1000)
    cache.add({f"{i:064x}": ([0, 1, 2], [0.5]) for i in range(500)})
    latest = {f"{i:064x}": ([0, -1, 3], [None]) for i in range(500, 505)}
    cache.add(latest)
    looked: list[bytes] = []
    real = look_cache._key_of

    def counted(line: bytes) -> str | None:
        looked.append(line)
        return real(line)

    monkeypatch.setattr(look_cache, "_key_of", counted)
    assert cache.read(set(latest)) == latest
    assert len(looked) == 5
    assert cache.read(set()) == {}


def test_the_corpus_pages_are_searched_and_kept_as_the_plans_are(
    corpus: Corpus,
    tmp_path: Path,
    verdicts: _Verdicts,
    lookups: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plan = _plan(corpus, _shelf(tmp_path / "shelf"))
    rnd = random.Random(3)
    [mine] = _keys(plan, (2, 1))
    look = next(
        lookalike.look_from_hex(p.look or "")
        for it in plan.items
        for s in it.sources
        for p in s.pages
        if page_key(s.sha256, p.page_index) == mine
    )
    assert look is not None
    # More pages than the plan has: the one it looks like numbered beyond the plan's.
    many = FOLDERS * PER_FOLDER + 5
    pages = [rnd.getrandbits(lookalike.BITS) & ~1 for _ in range(many)] + [_near(look.upright, rnd)]
    stored = [
        lookalikes.Stored(upright, f"{n:064x}#0", f"p{n}", f"page {n + 1} of “Diary”", "nb1")
        for n, upright in enumerate(pages)
    ]
    monkeypatch.setattr(lookalikes, "corpus_looks", lambda _corpus: list(stored))
    verdicts.rescans = {frozenset((mine, stored[many].key))}
    first = lookalikes.find(corpus, plan, keep=True)
    assert [(f.name, f.other.words) for f in first] == [
        ("shelf/notebook 2/page 1.jpg", f"page {many + 1} of “Diary”")
    ]
    inks.forget()
    lookups.clear()
    verdicts.made = 0
    assert lookalikes.find(corpus, plan) == first
    assert lookups == [] and verdicts.made == 0
    # A corpus page's look changed: every item's search depends on the corpus's pages.
    stored[0] = replace(stored[0], look=stored[0].look ^ 2)
    assert lookalikes.find(corpus, plan) == _searched_afresh(monkeypatch)(corpus, plan)
    assert lookups[0] == FOLDERS * PER_FOLDER
