"""A validation's verifications spread over worker processes (``inks.score_many``) give
the verdicts made one after another in this process, to the last bit."""

from __future__ import annotations

from pathlib import Path

import pytest

from transcribe_import.engine import api
from transcribe_import.engine.media import ink
from transcribe_import.engine.planning import inks
from transcribe_import.engine.storage.corpus import Corpus

from helpers.lookalike_set import Rescan, alike_pages, notebook_scan, rescan_file, save_jpeg

pytestmark = pytest.mark.slow  # worker processes are started (spawned) for real


@pytest.fixture(scope="module")
def shelf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A notebook with rescans of two of its pages among them, and a notebook of pages
    each there twice: pairs that are one page and pairs that are not."""
    root = tmp_path_factory.mktemp("shelf")
    for k in (1, 2, 3, 4, 5):
        save_jpeg(notebook_scan(k), root / "Diary" / f"{k:02}.jpg")
    rescan_file(2, Rescan.TILT, root / "Diary" / "06.jpg")
    rescan_file(4, Rescan.HALF, root / "Diary" / "07.jpg")
    alike_pages(root / "Alike", 12)
    return root


def _validated(
    shelf: Path,
    data: Path,
    spread: bool,
    monkeypatch: pytest.MonkeyPatch,
    told: list[tuple[int, int]] | None = None,
) -> tuple[list[tuple[str, str]], int, dict[tuple[str, str, int], float]]:
    """The problems of a plan of ``shelf``, how many pairs this process verified itself,
    and every verdict made; the validation's progress added to ``told``."""
    corpus = Corpus.open(data)
    planned = api.plan_paths(corpus, api.PlanRequest((shelf / "Diary", shelf / "Alike")))
    assert planned is not None
    looks: dict[str, str | None] = {}
    for made in api.look_pass(planned.plan, corpus=corpus, workers=2):
        looks.update(made.looks)
    plan = api.with_looks(planned.plan, looks)
    inks.forget()  # as ``validate`` in a process of its own: no ink in memory
    monkeypatch.setattr(inks, "PARALLEL_FROM", 1 if spread else 10**9)
    here = 0
    real = ink.score

    def counted(a: ink.Ink, b: ink.Ink) -> float:
        nonlocal here
        here += 1
        return real(a, b)

    monkeypatch.setattr(ink, "score", counted)
    report = api.validate_plan(
        corpus, plan, progress=None if told is None else lambda d, t: told.append((d, t))
    )
    monkeypatch.setattr(ink, "score", real)
    with inks._lock:
        verdicts = dict(inks._scores)
    inks.forget()
    return [(p.code.value, p.message) for p in report.problems], here, verdicts


def test_verdicts_made_in_worker_processes_are_those_made_one_by_one(
    shelf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alone, verified_alone, verdicts_alone = _validated(shelf, tmp_path / "one", False, monkeypatch)
    # Rounds and tasks of a few pairs: a shelf's many, here.
    monkeypatch.setattr(inks, "PAIRS_A_ROUND", 7)
    monkeypatch.setattr(inks, "PAIRS_A_TASK", 3)
    told: list[tuple[int, int]] = []
    spread, verified_spread, verdicts_spread = _validated(
        shelf, tmp_path / "two", True, monkeypatch, told
    )
    assert verified_alone == len(verdicts_alone) > 0
    assert verified_spread == 0  # every pair was verified by a worker process
    # The verification told as a part of its own: from none to every pair, a task at a time.
    pairs = len(verdicts_spread)
    start = told.index((0, pairs))
    part = told[start : told.index((pairs, pairs)) + 1]
    assert [d for d, _t in part] == sorted({d for d, _t in part}) and len(part) > 2
    assert verdicts_spread == verdicts_alone
    assert spread == alone
    asked = [message for code, message in alone if code == "looks_like"]
    assert any("06.jpg" in m for m in asked) and any("07.jpg" in m for m in asked), asked
    assert sum(v >= ink.SAME_PAGE for v in verdicts_alone.values()) < len(verdicts_alone)


def test_workers_that_died_leave_the_verifications_to_this_process(
    shelf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    class Died(ProcessPoolExecutor):
        def submit(self, *_args: object, **_kwargs: object):  # type: ignore[override]
            raise BrokenProcessPool("a worker process was killed")

    alone, _, verdicts_alone = _validated(shelf, tmp_path / "one", False, monkeypatch)
    monkeypatch.setattr(inks, "ProcessPoolExecutor", Died)
    died, verified_here, verdicts_died = _validated(shelf, tmp_path / "two", True, monkeypatch)
    assert verified_here == len(verdicts_died) > 0  # every pair verified here instead
    assert verdicts_died == verdicts_alone
    assert died == alone


def test_a_shelf_larger_than_memory_makes_each_ink_once_the_rest_read_back_from_the_spill(
    shelf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Memory for three pages' inks, rounds of a few pairs: the pages a round wants that an
    earlier round let go are read back from the spill (api.validate_plan spills into the
    corpus's cache folder), never made again from their files; with no spill to be had
    they are made again, round after round, and the verdicts are the same either way."""
    from collections import Counter

    from transcribe_import.engine.media import lookalike
    from transcribe_import.engine.storage import fsio

    _alone, _, verdicts_alone = _validated(shelf, tmp_path / "one", False, monkeypatch)
    page = shelf / "Diary" / "01.jpg"
    data = page.read_bytes()
    [seen] = lookalike.page_seen(page, "image/jpeg", 1, size=len(data), data=data)
    assert seen is not None
    inks.keep("probe#0", seen.ink)
    monkeypatch.setattr(inks, "LIMIT_BYTES", 3 * inks._kept_bytes)
    inks.forget()
    monkeypatch.setattr(inks, "PAIRS_A_ROUND", 7)
    monkeypatch.setattr(inks, "PAIRS_A_TASK", 3)
    real_keep, real_validate = inks._keep_packed, api.validate_plan
    kept: Counter[str] = Counter()

    def counted(key: str, packed: inks.Packed | None) -> None:
        kept[key] += 1
        real_keep(key, packed)

    def validate_counted(*args: object, **kwargs: object) -> object:
        kept.clear()  # the look pass's own kept inks are let go before (``_validated``)
        monkeypatch.setattr(inks, "_keep_packed", counted)
        try:
            return real_validate(*args, **kwargs)  # type: ignore[arg-type]
        finally:
            monkeypatch.setattr(inks, "_keep_packed", real_keep)

    monkeypatch.setattr(api, "validate_plan", validate_counted)
    _, verified_here, spilled = _validated(shelf, tmp_path / "spilled", True, monkeypatch)
    assert verified_here == 0 and spilled == verdicts_alone
    assert len(kept) > 3 and max(kept.values()) == 1, kept.most_common(3)

    def no_room(directory: Path) -> object:
        raise OSError(28, "No space left on device", str(directory))

    monkeypatch.setattr(fsio, "scratch_file", no_room)
    _, verified_here, unspilled = _validated(shelf, tmp_path / "unspilled", True, monkeypatch)
    assert unspilled == verdicts_alone
    # What the spill saves: inks made again, and pairs whose inks were let go before their
    # task was handed out, verified one by one in this process.
    assert max(kept.values()) > 1 and verified_here > 0
