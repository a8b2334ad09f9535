"""The scan cache: a file unchanged since its last scan in the corpus is not read again; a
changed, replaced or racy file is; a damaged cache or a stopped scan costs reads, never a
wrong scan."""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from transcribe_import.engine.planning import scan_cache
from transcribe_import.engine.planning.plan import AdapterMode, ImportPlan, PlanSource
from transcribe_import.engine.planning.planner import build_plan
from transcribe_import.engine.planning.problems import ProblemCode
from transcribe_import.engine.planning.scan import ScanCancelled, ScanResult, run_scan
from transcribe_import.engine.planning.scan_cache import CACHE_FILE, ScanCache
from transcribe_import.engine.planning.validate import validate
from transcribe_import.engine.storage.corpus import Corpus

from helpers.counting import FileReads, aged
from media_factory import make_jpeg, make_png

HOUR_AGO_NS = time.time_ns() - 3600 * 10**9


@pytest.fixture
def shelf(tmp_path: Path) -> Path:
    root = tmp_path / "shelf"
    for k in range(1, 5):
        aged(make_jpeg(root / "Diary" / f"{k:02}.jpg", (60 + k, 80)))
    aged(make_png(root / "Diary" / "05.png", (70, 90)))
    return root


@pytest.fixture
def cache(tmp_path: Path) -> ScanCache:
    return ScanCache(tmp_path / "corpus")


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> FileReads:
    return FileReads(monkeypatch)


ALL = ["01.jpg", "02.jpg", "03.jpg", "04.jpg", "05.png"]


def test_a_shelf_scanned_again_reads_no_file_and_finds_the_same(
    shelf: Path, cache: ScanCache, reads: FileReads
) -> None:
    first = run_scan([shelf], cache=cache)
    assert reads.taken() == (ALL, ALL)
    again = run_scan([shelf], cache=cache)
    assert reads.taken() == ([], [])
    assert again == first
    assert all(f.sha256 and f.problem is None for f in again.files)
    png = next(f for f in again.files if f.name == "05.png")
    assert png.looks and png.looks == next(f for f in first.files if f.name == "05.png").looks


def test_without_a_cache_every_file_is_read_each_time(shelf: Path, reads: FileReads) -> None:
    run_scan([shelf])
    run_scan([shelf])
    assert reads.taken() == (sorted(ALL * 2), sorted(ALL * 2))


def _rewritten_same_size(path: Path) -> None:
    """Other bytes of the same length (a JPEG comment's letters changed), times restored."""
    st = path.stat()
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF  # inside the entropy-coded data, before the end marker
    path.write_bytes(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_a_changed_or_replaced_file_is_read_again(
    shelf: Path, cache: ScanCache, reads: FileReads, tmp_path: Path
) -> None:
    first = run_scan([shelf], cache=cache)
    diary = shelf / "Diary"
    aged(make_jpeg(diary / "01.jpg", (90, 80)))  # another size, the same old time
    aged(diary / "02.jpg", HOUR_AGO_NS + 10**9)  # the same bytes, another time
    # The same bytes and times in a new file put in its place: another inode.
    copy = tmp_path / "03.jpg"
    copy.write_bytes((diary / "03.jpg").read_bytes())
    aged(copy)
    os.replace(copy, diary / "03.jpg")
    # Bytes rewritten with size and modification time restored: the change time moved.
    _rewritten_same_size(diary / "04.jpg")
    reads.taken()
    again = run_scan([shelf], cache=cache)
    assert reads.taken() == (ALL[:4], ALL[:4])
    changed = {f.name: f.sha256 for f in again.files} != {f.name: f.sha256 for f in first.files}
    assert changed
    assert {f.name for f in again.files if f.sha256 == _sha(f.path)} == set(ALL)
    run_scan([shelf], cache=cache)
    assert reads.taken() == ([], []), "each file read again is kept with its new identity"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_racy_file_is_read_again_until_its_time_is_well_past(
    shelf: Path, cache: ScanCache, reads: FileReads
) -> None:
    """A file modified within 2 s of its line being recorded could have been written again
    within the file system's time resolution, its stat unchanged: it is not trusted."""
    fresh = make_jpeg(shelf / "Diary" / "06.jpg", (64, 64))  # modified now
    run_scan([shelf], cache=cache)
    reads.taken()
    run_scan([shelf], cache=cache)
    assert reads.taken() == (["06.jpg"], ["06.jpg"])
    future = time.time_ns() + 3600 * 10**9
    os.utime(fresh, ns=(future, future))  # a time in the future is racy however it came
    run_scan([shelf], cache=cache)
    run_scan([shelf], cache=cache)
    assert reads.taken() == (["06.jpg"] * 2, ["06.jpg"] * 2)
    aged(fresh)
    run_scan([shelf], cache=cache)
    run_scan([shelf], cache=cache)
    assert reads.taken() == (["06.jpg"], ["06.jpg"]), "read once at its new time, then trusted"


def test_a_racy_rule_holds_by_the_recorded_time() -> None:
    """The rule itself: a file's time 2 s or more before its line was recorded is trusted."""
    ident = scan_cache.Identity(1, 2, 3, 10 * 10**9, 10 * 10**9)
    found = scan_cache.Scanned("0" * 64, "image/jpeg", 1, None, 1, 1, None, ())
    now = 100 * 10**9

    def line(recorded_s: float) -> scan_cache.Trusted:
        return scan_cache.Trusted("/p", ident, int(recorded_s * 10**9), "s", found)

    assert line(12.01).holds(ident, "s", now)
    assert not line(12.0).holds(ident, "s", now)
    assert not line(11).holds(ident, "s", now)
    assert not line(50).holds(ident, "other settings", now)
    assert not line(50).holds(ident, "s", 9 * 10**9), "a file time in the future"
    moved = scan_cache.Identity(1, 2, 3, 10 * 10**9, 11 * 10**9)
    assert not line(50).holds(moved, "s", now)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "not json lines", "a folder"])
def test_a_damaged_cache_is_read_past_and_written_again(
    shelf: Path, cache: ScanCache, reads: FileReads, damage: str
) -> None:
    first = run_scan([shelf], cache=cache)
    data = cache.path.read_bytes()
    if damage == "garbage":
        cache.path.write_bytes(b"\x00\xff garbage\n" + data[:40] + b"\n[1,2,3]\n")
    elif damage == "truncated":
        cache.path.write_bytes(data[: len(data) // 2])
    elif damage == "not json lines":
        cache.path.write_bytes(b'{"a": 1}\n"text"\n[]\n')
    else:
        cache.path.unlink()
        (cache.path / "inside").mkdir(parents=True)
    reads.taken()
    again = run_scan([shelf], cache=cache)
    assert again == first
    read_again, _ = reads.taken()
    assert read_again and set(read_again) <= set(ALL)
    if damage == "a folder":
        return  # nothing can be written there: every scan reads, as without a cache
    run_scan([shelf], cache=cache)
    assert reads.taken() == ([], []), "the lines lost were written again"


def test_a_scan_cache_reached_through_a_link_is_not_trusted(
    shelf: Path, cache: ScanCache, reads: FileReads, tmp_path: Path
) -> None:
    """Lines outside the corpus are not the corpus's: a scan reads every file past them."""
    run_scan([shelf], cache=cache)
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_bytes(cache.path.read_bytes())
    cache.path.unlink()
    cache.path.symlink_to(outside)
    reads.taken()
    run_scan([shelf], cache=cache)
    assert reads.taken() == (ALL, ALL)


def test_a_stopped_scan_keeps_whole_lines_of_what_it_read(
    tmp_path: Path, cache: ScanCache, reads: FileReads
) -> None:
    root = tmp_path / "shelf"
    for k in range(12):
        aged(make_jpeg(root / f"{k:02}.jpg", (40 + k, 40)))

    def stop() -> bool:
        return len(reads.read) >= 4

    with pytest.raises(ScanCancelled):
        run_scan([root], cache=cache, workers=1, should_stop=stop)
    read_first, _ = reads.taken()
    lines = cache.path.read_bytes().splitlines() if cache.path.exists() else []
    kept = {}
    for line in lines:
        value = orjson.loads(line)
        kept[Path(value[1]).name] = value[9]
    assert all(_sha(root / name) == sha for name, sha in kept.items())
    assert set(kept) <= set(read_first)
    whole: ScanResult = run_scan([root], cache=cache)
    read_then, _ = reads.taken()
    assert sorted(read_then) == sorted({f.name for f in whole.files} - set(kept))
    assert whole == run_scan([root])


def test_a_cache_line_names_its_file_in_full(shelf: Path, cache: ScanCache) -> None:
    """A line is found by a digest of its path, then checked against the path it holds."""
    run_scan([shelf], cache=cache)
    line = orjson.loads(cache.path.read_bytes().splitlines()[0])
    assert line[0] == scan_cache.key_of(line[1]) and Path(line[1]).parent == shelf / "Diary"
    assert cache.path == cache.path.parent.parent / CACHE_FILE


def _sources(plan: ImportPlan) -> list[PlanSource]:
    return [s for it in plan.items for s in it.sources]


def test_validation_takes_the_probe_of_an_unchanged_file_from_the_scan_cache(
    shelf: Path, corpus: Corpus, reads: FileReads
) -> None:
    """What the scan read is not probed again by the validation (the plan's own, or of a plan
    file from earlier); every problem is still found, a file whose stat moved probed."""
    kept = ScanCache(corpus.root)
    plan = build_plan(corpus, run_scan([shelf], cache=kept), mode=AdapterMode.parse("folders"))
    reads.taken()
    codes = {p.code for p in validate(corpus, plan).problems}
    assert reads.taken() == ([], [])
    assert ProblemCode.MEDIA_MISMATCH not in codes

    first = _sources(plan)[0]
    as_pdf = replace(first, media_type="application/pdf")
    edited = plan.with_item(replace(plan.items[0], sources=(as_pdf, *plan.items[0].sources[1:])))
    mismatch = [
        p for p in validate(corpus, edited).problems if p.code is ProblemCode.MEDIA_MISMATCH
    ]
    assert [p.source_ids for p in mismatch] == [(first.source_id,)]
    assert "is image/jpeg with 1 page, but the plan expects application/pdf" in mismatch[0].message
    assert reads.taken() == ([], []), "told from the scan's line"

    path = first.provenance.fs_path
    st = path.stat()
    path.write_bytes(b"\0" * st.st_size)  # not a JPEG any more; size and time restored
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    unreadable = [
        p for p in validate(corpus, plan).problems if p.code is ProblemCode.SOURCE_UNREADABLE
    ]
    assert [p.source_ids for p in unreadable] == [(first.source_id,)]
    assert reads.taken() == ([], [path.name]), "its change time moved: probed"
    validate(None, plan)
    assert len(reads.taken()[1]) == len(ALL), "without a corpus, every file is probed"
