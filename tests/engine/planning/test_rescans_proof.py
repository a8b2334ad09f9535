"""The proof of #33 on the realistic labelled set (tests/helpers/pages.py): rescans of every
kind of page under both lights are asked about naming the right page, new pages and a
notebook's own distinct pages are not, and the candidate search is not quadratic.

It runs the rule ``find`` runs (``lookalikes.verified``: the index's nearest candidates,
each decided by the inks) on pages whose inks and looks are made from their files' bytes
as the look pass makes them (``lookalike.page_seen``: a JPEG decoded by libjpeg at a
fraction, and larger again for a sparse page's detail)."""

from __future__ import annotations

import collections
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from transcribe_import.engine.media import lookalike
from transcribe_import.engine.planning import inks
from transcribe_import.engine.planning.look_index import LookIndex
from transcribe_import.engine.planning.lookalikes import Stored, verified

from helpers.pages import (
    Kind,
    LabelledSet,
    Light,
    labelled_set,
    numbered_notebook,
)

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Looked:
    key: str
    look: lookalike.Look | None  # None: blank


def _looked(key: str, data: bytes, ext: str = ".jpg") -> Looked:
    kind = {".jpg": "image/jpeg", ".png": "image/png"}[ext]
    [seen] = lookalike.page_seen(Path(key + ext), kind, 1, size=len(data), data=data)
    assert seen is not None
    inks.keep(key, seen.ink)
    return Looked(key, seen.look)


@pytest.fixture(autouse=True)
def _room_for_every_ink(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(inks, "LIMIT_BYTES", 2**40)
    inks.forget()
    yield
    inks.forget()


# The set the thresholds were tuned on, and one drawn with another seed that never was
# (other hands to notebooks, other pages' words, other tilts, crops, brightness and rescan
# ways): the same goals on both, so that they are not met by tuning alone.
TUNED, HELD_OUT = 11, 2027


@pytest.fixture(scope="module", params=[TUNED, HELD_OUT], ids=["tuned", "held-out"])
def labelled(request: pytest.FixtureRequest) -> LabelledSet:
    return labelled_set(20, per_light=3, rescans_per_page=3, seed=request.param)


def _shelf(looked: list[Looked]) -> tuple[LookIndex, list[Stored]]:
    index, stored = LookIndex(), []
    for k, page in enumerate(looked):
        if page.look is not None:
            index.add(page.look.upright)
            stored.append(Stored(page.look.upright, page.key, f"p{k}", f"page {k}"))
    return index, stored


def _asked(page: Looked, index: LookIndex, stored: list[Stored]) -> str | None:
    """The key of the page ``page`` is asked about as a rescan of, or None."""
    if page.look is None:
        return None
    match = verified(page.look, page.key, None, index, stored, set())
    return None if match is None else match[0].key


def test_rescans_are_asked_about_naming_the_right_page_new_pages_are_not(
    labelled: LabelledSet,
) -> None:
    sheets = [_looked(f"s{i}", s.data) for i, s in enumerate(labelled.sheets)]
    index, stored = _shelf(sheets)
    right: dict[tuple[Kind, Light], list[bool]] = collections.defaultdict(list)
    for r, taken in enumerate(labelled.rescans):
        sheet = labelled.sheets[taken.of]
        asked = _asked(_looked(f"r{r}", taken.data, taken.ext), index, stored)
        if sheet.kind is Kind.BLANK:
            assert asked is None, (sheet.label, taken.how)  # blank pages are never asked about
        else:
            right[sheet.kind, sheet.notebook.light].append(asked == f"s{taken.of}")
    for (kind, light), hits in right.items():
        assert sum(hits) / len(hits) >= 0.95, (kind, light, sum(hits), len(hits))
    assert len(right) == 2 * (len(Kind) - 2)  # every written kind, in both lights

    new = [_looked(f"n{i}", s.data) for i, s in enumerate(labelled.new_pages)]
    asked = [labelled.new_pages[i].label for i, p in enumerate(new) if _asked(p, index, stored)]
    assert len(asked) <= 0.01 * len(new), asked


def test_a_notebooks_own_pages_raise_at_most_one_question_in_a_hundred(labelled) -> None:
    """Pages of one import asked about against the earlier ones, as ``find`` does."""
    index, stored = LookIndex(), []
    questions = []
    for i, sheet in enumerate(labelled.sheets):
        page = _looked(f"s{i}", sheet.data)
        if _asked(page, index, stored):
            questions.append(sheet.label)
        if page.look is not None:
            index.add(page.look.upright)
            stored.append(Stored(page.look.upright, page.key, f"p{i}", f"page {i}"))
    assert len(questions) <= len(labelled.sheets) / 100, questions


@pytest.mark.parametrize("seed", [5, HELD_OUT], ids=["tuned", "held-out"])
@pytest.mark.parametrize("light", list(Light))
def test_ruled_pages_differing_only_in_their_number_raise_no_question(
    light: Light, seed: int
) -> None:
    index, stored = LookIndex(), []
    for n, data in enumerate(numbered_notebook(40, seed=seed, light=light), 1):
        page = _looked(f"n{n}", data)
        assert page.look is not None  # a page number is ink: the page has a look
        assert _asked(page, index, stored) is None, n
        index.add(page.look.upright)
        stored.append(Stored(page.look.upright, page.key, f"p{n}", f"page {n}"))


def _random_looks(count: int, seed: int) -> Iterator[lookalike.Look]:
    """Looks of distinct pages: random 143-bit hashes (bit 0 is always 0)."""
    rnd = random.Random(seed)
    for _ in range(count):
        value = rnd.getrandbits(lookalike.BITS) & ~1
        yield lookalike.Look((value, value ^ 2, value ^ 4, value ^ 8))


def test_the_candidate_search_grows_linearly_with_the_shelf() -> None:
    """Comparisons counted (lookups and full comparisons), not time: each doubling of the
    shelf at most a little more than doubles them; all pairs would quadruple them."""
    counts = []
    for size in (1_000, 2_000, 4_000):
        index = LookIndex()
        looks = list(_random_looks(size, seed=size))
        for look in looks:
            index.add(look.upright)
        index.near_many(looks, range(size))  # each among the pages before it, as find does
        counts.append(index.comparisons)
    assert counts[1] / counts[0] <= 2.2 and counts[2] / counts[1] <= 2.2, counts
