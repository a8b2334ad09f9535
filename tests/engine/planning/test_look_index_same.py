"""The batched candidate search finds what a lookup at a time found: the same pages, in the
same order, in the same turns, at the same distances, and the same counters, on the shelves
the other tests build (tests/helpers/look_index_straight.py, the search as it was, is the
oracle). Each page is looked up among the pages before it, as ``lookalikes.find`` does."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from transcribe_import.engine.media import lookalike
from transcribe_import.engine.planning import look_index

from helpers import look_index_straight as straight
from helpers.pages import labelled_set

Found = list[tuple[int, int, int]]  # (page, distance, turn) of each page found, in order


def _one_at_a_time(looks: list[lookalike.Look]) -> tuple[list[Found], int, int]:
    """Each look looked up among the ones before it, then added: what the oracle finds."""
    index = straight.LookIndex()
    out = []
    for look in looks:
        out.append([(n.index, n.distance, int(n.turn)) for n in index.near(look)])
        index.add(look.upright)
    return out, index.comparisons, index.found


def _all_at_once(looks: list[lookalike.Look]) -> tuple[list[Found], int, int]:
    index = look_index.LookIndex()
    for look in looks:
        index.add(look.upright)
    found = index.near_many(looks, list(range(len(looks))))
    out = [[(n.index, n.distance, int(n.turn)) for n in nearest] for nearest in found]
    return out, index.comparisons, index.found


def _alike(rnd: random.Random, base: int, most: int) -> int:
    """``base`` with up to ``most`` of its bits flipped (bit 0 stays 0)."""
    for _ in range(rnd.randrange(0, most + 1)):
        base ^= 1 << rnd.randrange(1, lookalike.BITS)
    return base


def _random(rnd: random.Random) -> int:
    return rnd.getrandbits(lookalike.BITS) & ~1


def _shelf(count: int, seed: int, families: int) -> list[lookalike.Look]:
    """Half the pages distinct, half look-alikes of ``families`` pages (ruled pages, forms)
    a few bits from them; some turned (a turn's hash near another page's)."""
    rnd = random.Random(seed)
    bases = [_random(rnd) for _ in range(families)]
    looks = []
    for n in range(count):
        upright = _random(rnd) if n % 2 else _alike(rnd, rnd.choice(bases), 12)
        turned = _alike(rnd, rnd.choice(bases), 6) if n % 3 == 0 else _random(rnd)
        looks.append(lookalike.Look((upright, turned, _random(rnd), upright ^ 8)))
    return looks


def _scale_shelf(count: int, seed: int) -> list[lookalike.Look]:
    """The looks test_rescans_scale.py gives its pages: the even ones a common ruled hash
    with up to 6 bits flipped, the odd ones distinct; the other turns random."""
    rnd = random.Random(seed)
    ruled = _random(rnd)
    looks = []
    for n in range(count):
        value = _alike(rnd, ruled, 6) if n % 2 == 0 else _random(rnd)
        looks.append(lookalike.Look((value, _random(rnd), _random(rnd), _random(rnd))))
    return looks


def _bounds(monkeypatch: pytest.MonkeyPatch, crowded: int, budget: int, cap: int) -> None:
    """The same bounds for both searches."""
    for module in (look_index, straight):
        monkeypatch.setattr(module, "CROWDED", crowded)
        monkeypatch.setattr(module, "BUDGET", budget)
        monkeypatch.setattr(module, "CAP", cap)


@pytest.mark.parametrize(
    ("crowded", "budget", "cap"),
    [(64, 256, 64), (2, 2, 2), (3, 10, 5), (8, 40, 3)],
    ids=["as shipped", "tiny", "small", "narrow cap"],
)
@pytest.mark.parametrize("families", [3, 40])
def test_a_shelf_of_look_alikes_finds_the_same_pages_in_the_same_order(
    monkeypatch: pytest.MonkeyPatch, crowded: int, budget: int, cap: int, families: int
) -> None:
    _bounds(monkeypatch, crowded, budget, cap)
    looks = _shelf(1_200, seed=crowded * 1000 + families, families=families)
    expected = _one_at_a_time(looks)
    assert sum(map(len, expected[0])) > 0  # pages are found: the lists compared are not empty
    assert _all_at_once(looks) == expected


@pytest.mark.parametrize(("crowded", "budget"), [(64, 256), (2, 2)])
def test_the_scale_tests_shelf_finds_the_same_pages(
    monkeypatch: pytest.MonkeyPatch, crowded: int, budget: int
) -> None:
    _bounds(monkeypatch, crowded, budget, straight.CAP)
    looks = _scale_shelf(1_600, seed=1_600)
    assert _all_at_once(looks) == _one_at_a_time(looks)


def test_lookups_among_any_number_of_pages_in_any_order_find_what_each_alone_finds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Limits given in no order, some equal (a None Are Rescans item's pages are all looked
    up among the pages before the item), some far apart (more than a pass's ``SPAN``)."""
    monkeypatch.setattr(look_index, "SPAN", 50)
    monkeypatch.setattr(look_index, "BATCH", 7)
    looks = _shelf(600, seed=5, families=10)
    rnd = random.Random(6)
    limits = [rnd.choice([0, 1, 300, 300, rnd.randrange(0, 601)]) for _ in looks]
    index = look_index.LookIndex()
    for look in looks:
        index.add(look.upright)
    found = index.near_many(looks, limits)
    for look, limit, nearest in list(zip(looks, limits, found, strict=True))[::3]:
        alone = straight.LookIndex()
        for other in looks[:limit]:
            alone.add(other.upright)
        assert [(n.index, n.distance, int(n.turn)) for n in nearest] == [
            (n.index, n.distance, int(n.turn)) for n in alone.near(look)
        ]
    with pytest.raises(ValueError, match="limit"):
        index.near_many(looks[:1], [601])


def test_near_is_a_lookup_among_every_page() -> None:
    looks = _shelf(300, seed=8, families=5)
    index, oracle = look_index.LookIndex(), straight.LookIndex()
    for look in looks:
        index.add(look.upright)
        oracle.add(look.upright)
    for look in looks[::7]:
        assert [(n.index, n.distance, n.turn) for n in index.near(look, threshold=50)] == [
            (n.index, n.distance, n.turn) for n in oracle.near(look, threshold=50)
        ]
    assert (index.comparisons, index.found) == (oracle.comparisons, oracle.found)
    assert look_index.LookIndex().near(looks[0]) == []


def test_no_lookups_and_no_pages_find_nothing() -> None:
    """A plan whose pages have no look (all blank, or PDFs not looked at yet), an empty
    corpus: nothing to look up, nothing to find."""
    index = look_index.LookIndex()
    assert index.near_many([]) == []
    [nearest] = index.near_many(_shelf(1, seed=9, families=1))
    assert list(nearest) == []
    index.add(_random(random.Random(10)))
    assert index.near_many([], []) == []


@pytest.mark.slow
@pytest.mark.parametrize("seed", [11, 2027], ids=["tuned", "held-out"])
def test_the_labelled_sets_find_the_same_pages(seed: int) -> None:
    """test_rescans_proof.py's labelled sets: the sheets, then their rescans and the new
    pages, each looked up among the pages before it."""
    labelled = labelled_set(20, per_light=3, rescans_per_page=3, seed=seed)
    files = [(s.data, ".jpg") for s in labelled.sheets]
    files += [(r.data, r.ext) for r in labelled.rescans]
    files += [(s.data, ".jpg") for s in labelled.new_pages]
    looks = [look for look in _looks_of(files) if look is not None]
    expected = _one_at_a_time(looks)
    assert sum(map(len, expected[0])) > len(labelled.rescans) // 2
    assert _all_at_once(looks) == expected


def _looks_of(files: list[tuple[bytes, str]]) -> Iterator[lookalike.Look | None]:
    """The looks the look pass makes of files' bytes (None: a blank page)."""
    kinds = {".jpg": "image/jpeg", ".png": "image/png"}
    for n, (data, ext) in enumerate(files):
        [seen] = lookalike.page_seen(Path(f"{n}{ext}"), kinds[ext], 1, size=len(data), data=data)
        assert seen is not None
        yield seen.look
