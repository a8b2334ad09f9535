"""`plan` of a shelf planned before in the same corpus (Scan Again, a plan made again after
an edit) decodes no page and verifies no pair again; a `plan` killed or stopped part-way
keeps the looks it made, and the next decodes only the rest."""

from __future__ import annotations

import hashlib
import os
import signal
from pathlib import Path

import orjson
import pytest

from transcribe_import.cli import main
from transcribe_import.engine.media import ink, lookalike, page_measures
from transcribe_import.engine.planning import inks, look_pass
from transcribe_import.engine.planning.look_cache import CACHE_FILE
from transcribe_import.engine.planning.scan_cache import CACHE_FILE as SCANS_FILE
from transcribe_import.engine.storage.corpus import Corpus

from helpers import holding
from helpers.cli import Exit, assert_doctor_clean, ok, run_cli, start_cli
from helpers.counting import LIMIT, FileReads, aged, counted, growth, tiny_shelf
from helpers.lookalike_set import Rescan, notebook_scan, rescan_file, save_jpeg

PAGES = 4  # the diary's pages; the rescan of page 3 is a fifth file


@pytest.fixture
def shelf(tmp_path: Path) -> Path:
    root = tmp_path / "shelf"
    for k in range(1, PAGES + 1):
        save_jpeg(notebook_scan(k), root / "Diary" / f"{k:02}.jpg")
    rescan_file(3, Rescan.TILT, root / "Rescans" / "p3.jpg")
    return root


class Work:
    """What a plan decodes and verifies from here on, counted where it is done: a page's
    small decode (its look, its ink), the files the look pass decodes, a page's measures,
    and a pair's verification."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.decoded: list[str] = []
        self.looked: list[str] = []
        self.measured = 0
        self.verified = 0
        real_seen, real_measure, real_score, real_job = (
            lookalike.page_seen,
            page_measures.measure,
            ink.score,
            look_pass.look_job,
        )

        def job(job: look_pass.LookJob, **kw: bool) -> look_pass.Looked:
            self.looked.append(job.path.name)
            return real_job(job, **kw)

        def seen(path: Path, *args: object, **kw: object) -> object:
            self.decoded.append(path.name)
            return real_seen(path, *args, **kw)  # type: ignore[arg-type]

        def measure(*args: object) -> object:
            self.measured += 1
            return real_measure(*args)  # type: ignore[arg-type]

        def score(a: ink.Ink, b: ink.Ink) -> float:
            self.verified += 1
            return real_score(a, b)

        monkeypatch.setattr(lookalike, "page_seen", seen)
        monkeypatch.setattr(page_measures, "measure", measure)
        monkeypatch.setattr(ink, "score", score)
        monkeypatch.setattr(look_pass, "look_job", job)


@pytest.fixture
def work(monkeypatch: pytest.MonkeyPatch) -> Work:
    inks.forget()  # nothing in memory: what a new process starts from
    return Work(monkeypatch)


def _plan(shelf: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main(["plan", str(shelf), "-o", str(out)]) == 0
    return capsys.readouterr().out.splitlines()


def _states(lines: list[str]) -> list[str]:
    """Each item's line without its ids (a new plan's ids are new)."""
    return sorted(line.split("]")[0] for line in lines if line.startswith("  ["))


def test_a_shelf_planned_again_decodes_no_page_and_verifies_no_pair(
    shelf: Path, tmp_path: Path, work: Work, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _plan(shelf, tmp_path / "first.json", capsys)
    assert sorted(work.decoded) == ["01.jpg", "02.jpg", "03.jpg", "04.jpg", "p3.jpg"]
    assert work.measured == PAGES + 1
    assert work.verified > 0, "the rescan of page 3 was verified"
    assert any(line.startswith("  [a rescan?] ") for line in first), first

    inks.forget()  # a second `plan` is a new process: only the corpus's caches carry over
    work.decoded.clear()
    work.looked.clear()
    work.measured = work.verified = 0
    again = _plan(shelf, tmp_path / "again.json", capsys)
    assert (work.decoded, work.looked, work.measured, work.verified) == ([], [], 0, 0)
    assert _states(again) == _states(first)
    assert again[1:] != [] and again[0].endswith(": 2 notebooks, 5 pages to import.")


def _cache_lines(data_dir: Path) -> list[list[object]]:
    path = Corpus.open(data_dir).root / CACHE_FILE
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def test_a_plan_killed_part_way_keeps_the_looks_it_made(
    shelf: Path, tmp_path: Path, data_dir: Path, work: Work, capsys: pytest.CaptureFixture[str]
) -> None:
    """A person who kills a long plan does not pay again for the pages done."""
    out = tmp_path / "plan.json"
    killed = run_cli(data_dir, "plan", str(shelf), "-o", str(out), crash_at="looks.kept:2")
    assert killed.returncode == Exit.KILLED, killed.stderr
    assert not out.exists()
    kept = _cache_lines(data_dir)
    assert len(kept) == 2

    _plan(shelf, out, capsys)
    assert len(work.looked) == PAGES + 1 - 2  # the rest, not the two kept
    assert len(_cache_lines(data_dir)) == PAGES + 1  # no page's look made twice


def test_a_plan_stopped_with_ctrl_c_keeps_the_looks_it_made(
    shelf: Path, tmp_path: Path, data_dir: Path, work: Work, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "plan.json"
    plan = start_cli(
        data_dir, "plan", str(shelf), "-o", str(out), env=holding.stop_at("looks.kept:2")
    )
    try:
        holding.wait_stopped(plan)  # two files' looks kept, the pass going on
        holding.go_on(plan, signal.SIGINT)
    finally:
        _out, err = holding.finish(plan)
    assert plan.returncode == Exit.CANCELLED, err
    assert "scan cancelled; no plan was written." in err
    assert not out.exists()
    kept = len(_cache_lines(data_dir))
    assert 2 <= kept <= PAGES + 1  # the files begun before the stop was seen are kept too

    _plan(shelf, out, capsys)
    assert len(work.looked) == PAGES + 1 - kept
    assert len(_cache_lines(data_dir)) == PAGES + 1


def test_plan_made_again_grows_in_a_straight_line_with_the_shelf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The whole command a second time, its caches read, its plan written and its summary
    printed: work counted as the shelf doubles (helpers/counting.py), not timed."""
    monkeypatch.setattr(look_pass, "PROCESSES_FROM", 10**9)  # its calls counted here
    calls = []
    for n in (80, 160, 320):
        shelf = tiny_shelf(tmp_path / f"shelf-{n}", n)
        monkeypatch.setenv("TRANSCRIBE_DATA_DIR", str(tmp_path / f"data-{n}"))
        out = tmp_path / f"plan-{n}.json"
        assert main(["plan", str(shelf), "-o", str(out)]) == 0
        inks.forget()
        made, code = counted(lambda s=shelf, o=out: main(["plan", str(s), "-o", str(o)]))
        assert code == 0
        assert capsys.readouterr().out.splitlines()[-1] != ""
        calls.append(made)
    assert growth(calls) <= LIMIT, calls


@pytest.fixture
def old_shelf(shelf: Path) -> Path:
    """The shelf's files last modified an hour ago: none racy in the scan cache."""
    for path in shelf.rglob("*.jpg"):
        aged(path)
    return shelf


def test_a_shelf_planned_again_reads_no_file(
    old_shelf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every file was read, hashed and probed by the first plan; the second, and its
    validation, and `validate` of its plan, stat them and take the rest from the corpus's
    scan cache."""
    reads = FileReads(monkeypatch)
    assert main(["plan", str(old_shelf), "-o", str(tmp_path / "first.json")]) == 0
    names = ["01.jpg", "02.jpg", "03.jpg", "04.jpg", "p3.jpg"]
    read, probed = reads.taken()
    assert sorted(set(read)) == names, "by the scan, and by the look pass for the looks"
    assert probed == names, "by the scan; its validation took them from the scan cache"
    assert main(["plan", str(old_shelf), "-o", str(tmp_path / "again.json")]) == 0
    assert reads.taken() == ([], [])
    assert main(["validate", str(tmp_path / "again.json")]) == 0
    assert reads.taken() == ([], [])
    first, again = (orjson.loads((tmp_path / n).read_bytes()) for n in ("first.json", "again.json"))
    assert _sources(again) == _sources(first)


def _sources(doc: dict[str, object]) -> list[tuple[object, ...]]:
    items = doc["items"]
    assert isinstance(items, list)
    return sorted(
        (s["sha256"], s["media_type"], s["provenance"]["rel"], len(s["pages"]))
        for it in items
        for s in it["sources"]
    )


def _as_if_no_change_time(data_dir: Path, path: Path) -> None:
    """Write the scan cache as a file system would have it whose change time does not move
    when a file is written (Windows reports the creation time there): ``path``'s line
    given the change time it has now."""
    cache = Corpus.open(data_dir).root / SCANS_FILE
    lines = [orjson.loads(line) for line in cache.read_bytes().splitlines()]
    for line in lines:
        if line[1] == str(path):
            line[6] = path.stat().st_ctime_ns
    cache.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))


def test_a_file_changed_behind_an_unchanged_stat_is_refused_by_commit(
    old_shelf: Path, tmp_path: Path, data_dir: Path
) -> None:
    """What the scan cache cannot see, commit's staging does: it hashes each source as it
    copies it and refuses one whose bytes are not the ones planned, naming it and saying
    what to do; nothing of its notebook lands, and the next plan reads that file again."""
    ok(run_cli(data_dir, "plan", str(old_shelf), "-o", str(tmp_path / "first.json")))
    page = old_shelf / "Diary" / "02.jpg"
    st = page.stat()
    data = bytearray(page.read_bytes())
    data[-3] ^= 0xFF  # other bytes, the same size
    page.write_bytes(bytes(data))
    os.utime(page, ns=(st.st_atime_ns, st.st_mtime_ns))
    _as_if_no_change_time(data_dir, page)

    trusted = tmp_path / "trusted.json"
    ok(run_cli(data_dir, "plan", str(old_shelf), "-o", str(trusted)))
    first = _sources(orjson.loads((tmp_path / "first.json").read_bytes()))
    assert _sources(orjson.loads(trusted.read_bytes())) == first, "the stale hash trusted"
    refused = run_cli(data_dir, "commit", str(trusted))
    assert refused.returncode != 0
    assert (
        f"{page} changed since it was scanned (its contents are different). To import the "
        "folder as it is now, scan it again" in refused.stdout + refused.stderr
    )
    assert "1 notebook complete, 0 incomplete" in refused.stdout  # the Rescans, whole
    assert "1 failed" in refused.stdout
    assert_doctor_clean(data_dir)
    listed = ok(run_cli(data_dir, "notebooks")).stdout
    assert "Rescans" in listed and "Diary" not in listed, "nothing of the Diary landed"

    again = tmp_path / "again.json"
    ok(run_cli(data_dir, "plan", str(old_shelf), "-o", str(again)))
    shas = {s[2]: s[0] for s in _sources(orjson.loads(again.read_bytes()))}
    assert shas["shelf/Diary/02.jpg"] == hashlib.sha256(page.read_bytes()).hexdigest()
    ok(run_cli(data_dir, "commit", str(again)))
