"""Validate's rescan search stays linear as the shelf doubles: comparisons and verifications
counted (not time) through ``api.validate_plan`` on real plans of real files, whose looks
are set so that half the pages are ruled look-alikes (their hashes a few bits apart, the
crowded keys a search must not read for every page) and half distinct."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from PIL import Image

from transcribe_import.engine import api
from transcribe_import.engine.media import lookalike
from transcribe_import.engine.planning import inks, look_index, look_pass, lookalikes
from transcribe_import.engine.planning.lookalikes import page_key
from transcribe_import.engine.planning.planner import build_plan
from transcribe_import.engine.planning.scan import run_scan
from transcribe_import.engine.storage.corpus import Corpus

pytestmark = pytest.mark.slow

PER_FOLDER = 50


def _shelf(root: Path, pages: int) -> Path:
    """``pages`` tiny JPEGs in folders of ``PER_FOLDER``, each file's bytes its own (bytes
    after the end-of-image marker differ), so that none is a duplicate of another."""
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), (240, 236, 225)).save(buf, "JPEG", quality=75)
    tiny = buf.getvalue()
    for n in range(pages):
        folder = root / f"notebook {n // PER_FOLDER:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"page {n % PER_FOLDER:02d}.jpg").write_bytes(tiny + n.to_bytes(4, "big"))
    return root


def _looks(plan, seed: int) -> dict[str, str]:
    """A look for every page: the even ones ruled look-alikes (a common hash with up to 6
    bits flipped), the odd ones distinct (random)."""
    rnd = random.Random(seed)
    ruled = rnd.getrandbits(lookalike.BITS) & ~1
    out = {}
    for item in plan.items:
        for source in item.sources:
            for page in source.pages:
                if len(out) % 2 == 0:
                    value = ruled
                    for _ in range(rnd.randrange(0, 7)):
                        value ^= 1 << rnd.randrange(1, lookalike.BITS)
                else:
                    value = rnd.getrandbits(lookalike.BITS) & ~1
                turns = (value, *(rnd.getrandbits(lookalike.BITS) & ~1 for _ in range(3)))
                look = lookalike.Look(turns)  # type: ignore[arg-type]
                out[page_key(source.sha256, page.page_index)] = lookalike.look_to_hex(look)
    return out


def _counted(
    tmp_path: Path, corpus: Corpus, pages: int, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, int]:
    """Validate on a shelf of ``pages``: the pages its index found and compared in full,
    and the pairs verified."""
    plan = build_plan(corpus, run_scan([_shelf(tmp_path / f"shelf-{pages}", pages)]))
    plan = look_pass.with_looks(plan, _looks(plan, pages))
    made: list[look_index.LookIndex] = []
    verifications = 0

    class Counted(look_index.LookIndex):
        def __init__(self) -> None:
            super().__init__()
            made.append(self)

    def score(*_args: object) -> float:
        nonlocal verifications
        verifications += 1
        return 0.0  # not the same page: every candidate is verified, none asked about

    monkeypatch.setattr(lookalikes, "LookIndex", Counted)
    # The bounds of a shelf of tens of thousands, scaled to these hundreds of pages: the
    # look-alikes crowd keys and use a turn's budget here as they would there.
    monkeypatch.setattr(look_index, "CROWDED", 2)
    monkeypatch.setattr(look_index, "BUDGET", 2)
    monkeypatch.setattr(inks, "score", score)
    report = api.validate_plan(corpus, plan)
    assert not [p for p in report.problems if p.code.value == "looks_like"]
    assert verifications <= lookalikes.CANDIDATES * pages
    return sum(i.found for i in made), verifications


def test_validate_compares_and_verifies_linearly_as_the_shelf_doubles(
    tmp_path: Path, corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    counts = [_counted(tmp_path, corpus, n, monkeypatch) for n in (800, 1600, 3200)]
    for (f0, v0), (f1, v1) in zip(counts, counts[1:], strict=False):
        assert f1 / f0 <= 2.2, counts  # all pairs would quadruple them
        assert v1 / v0 <= 2.2, counts
    # The look-alikes' crowded keys are passed over: a page is compared with a bounded few,
    # not with every one of the hundreds of look-alikes before it.
    found, _ = counts[-1]
    assert found / 3200 <= 4 * (2 + 2) + 4 * look_index.CAP, counts
