"""The look cache: a page is decoded for its look once per corpus, whatever plan asks again."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from PIL import Image

from transcribe_import.engine import api
from transcribe_import.engine.media import ink, lookalike
from transcribe_import.engine.planning import inks, look_cache, look_pass
from transcribe_import.engine.planning.look_cache import LookCache, VerdictCache
from transcribe_import.engine.planning.lookalikes import page_key
from transcribe_import.engine.planning.plan import ImportPlan
from transcribe_import.engine.storage.corpus import Corpus

from helpers.lookalike_set import Rescan, notebook_scan, rescan_file, save_jpeg


def _lines_looked_at(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every line of a cache file the caches look at from now on (each line's key read)."""
    looked: list[bytes] = []
    real = look_cache._key_of

    def counted(line: bytes) -> str | None:
        looked.append(line)
        return real(line)

    monkeypatch.setattr(look_cache, "_key_of", counted)
    return looked


@pytest.fixture
def corpus(data_dir: Path) -> Corpus:
    return Corpus.open(data_dir)


@pytest.fixture
def decoded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The name of every file the look pass decodes from here on."""
    names: list[str] = []
    real = look_pass.look_job

    def counted(job: look_pass.LookJob, **kw: bool) -> look_pass.Looked:
        names.append(job.path.name)
        return real(job, **kw)

    monkeypatch.setattr(look_pass, "look_job", counted)
    return names


def _shelf(root: Path) -> Path:
    book = root / "Diary"
    for k in (1, 2):
        save_jpeg(notebook_scan(k), book / f"{k:02}.jpg")
    Image.new("RGB", (620, 877), (244, 238, 222)).save(book / "03.jpg", "JPEG")  # blank
    scans = [notebook_scan(k) for k in (4, 5)]
    scans[0].save(book / "04.pdf", "PDF", resolution=150, save_all=True, append_images=scans[1:])
    return book


def _plan(corpus: Corpus, book: Path) -> ImportPlan:
    planned = api.plan_paths(corpus, api.PlanRequest((book.parent,)))
    assert planned is not None
    return planned.plan


def _pass(corpus: Corpus, plan: ImportPlan) -> tuple[dict[str, str | None], list]:
    found: dict[str, str | None] = {}
    reports = list(api.look_pass(plan, corpus=corpus, workers=2))
    for made in reports:
        found.update(made.looks)
    assert reports[-1].finished
    return found, reports


def test_a_new_plan_of_the_same_files_decodes_no_page_again(
    corpus: Corpus, tmp_path: Path, decoded: list[str]
) -> None:
    book = _shelf(tmp_path / "shelf")
    plan = _plan(corpus, book)
    first, _ = _pass(corpus, plan)
    assert sorted(decoded) == ["01.jpg", "02.jpg", "03.jpg", "04.pdf"]
    blank = page_key(_sha_of(plan, "03.jpg"), 0)
    assert first[blank] == lookalike.BLANK  # the blank page's look says so, kept too
    assert LookCache(corpus.root).read()[blank] == lookalike.BLANK
    assert sum(lookalike.look_from_hex(look or "") is not None for look in first.values()) == 4

    decoded.clear()
    again, reports = _pass(corpus, _plan(corpus, book))  # Scan Again: a new plan
    assert decoded == []
    assert again == first
    # Known at once: the first report holds them all, and says the pass is done.
    assert reports[0].looks == first and reports[0].finished

    # A file added since: only it is decoded.
    save_jpeg(notebook_scan(6), book / "06.jpg")
    third, _ = _pass(corpus, _plan(corpus, book))
    assert decoded == ["06.jpg"]
    assert {k: v for k, v in third.items() if k in first} == first


def test_a_file_changed_since_its_scan_keeps_no_look_and_is_looked_at_once_back(
    corpus: Corpus, tmp_path: Path, decoded: list[str]
) -> None:
    book = _shelf(tmp_path / "shelf")
    plan = _plan(corpus, book)
    page = book / "01.jpg"
    original = page.read_bytes()
    page.write_bytes(original[:-200])  # changed (cut short) after the scan
    found, _ = _pass(corpus, plan)
    [key] = [k for k in found if k.startswith(_sha_of(plan, "01.jpg"))]
    assert found[key] is None
    assert key not in LookCache(corpus.root).read()  # a None of a file not read says nothing

    page.write_bytes(original)  # put back: its look is made now
    decoded.clear()
    back, _ = _pass(corpus, plan)
    assert decoded == ["01.jpg"] and back[key] is not None


def _sha_of(plan: ImportPlan, name: str) -> str:
    return next(s.sha256 for it in plan.items for s in it.sources if s.name == name)


def test_lines_that_cannot_be_read_are_skipped_and_those_pages_looked_at_again(
    corpus: Corpus, tmp_path: Path, decoded: list[str]
) -> None:
    book = _shelf(tmp_path / "shelf")
    plan = _plan(corpus, book)
    first, _ = _pass(corpus, plan)
    path = LookCache(corpus.root).path
    lines = path.read_bytes().splitlines(keepends=True)
    key_01 = page_key(_sha_of(plan, "01.jpg"), 0)
    key_02 = page_key(_sha_of(plan, "02.jpg"), 0)
    kept = [line for line in lines if orjson.loads(line)[0] not in (key_01, key_02)]
    bad_look = orjson.dumps([key_01, "not a look"]) + b"\n"
    torn = orjson.dumps([key_02, first[key_02]])[:-9]  # a crash mid-line
    path.write_bytes(b"".join(kept) + b"\x00\xff garbage\n" + bad_look + torn)

    decoded.clear()
    again, _ = _pass(corpus, plan)
    assert sorted(decoded) == ["01.jpg", "02.jpg"]
    assert again == first
    # The looks made again were appended on lines of their own, not onto the torn one.
    decoded.clear()
    assert _pass(corpus, plan)[0] == first
    assert decoded == []


def test_a_full_cache_is_written_again_with_its_latest_half(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = LookCache(corpus.root)
    look = lookalike.PREFIX + "0" * 144
    line = len(orjson.dumps([page_key("0" * 64, 0), look])) + 1
    monkeypatch.setattr(look_cache, "LIMIT_BYTES", 12 * line)
    for i in range(12):
        cache.add({page_key(f"{i:064x}", 0): look})
    wanted = {page_key(f"{i:064x}", 0) for i in (0, 11)}
    assert cache.read(wanted) == {page_key(f"{11:064x}", 0): look}  # the first let go
    assert cache.read() == {page_key(f"{i:064x}", 0): look for i in range(6, 12)}
    assert len(cache.path.read_bytes().splitlines()) == 6


def test_a_cache_that_cannot_be_written_costs_nothing_but_time(
    corpus: Corpus, tmp_path: Path
) -> None:
    book = _shelf(tmp_path / "shelf")
    plan = _plan(corpus, book)
    cache = LookCache(corpus.root)
    cache.path.parent.mkdir(parents=True, exist_ok=True)
    cache.path.mkdir()  # a folder where the file would be: every write fails
    found, _ = _pass(corpus, plan)
    assert sum(lookalike.look_from_hex(look or "") is not None for look in found.values()) == 4
    assert cache.read() == {}


def test_the_cache_is_read_as_an_index_only_the_lines_of_pages_wanted_parsed(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = LookCache(corpus.root)
    look = lookalike.PREFIX + "0" * 144
    cache.add({page_key(f"{i:064x}", 0): look for i in range(1000)})
    parsed: list[bytes] = []
    real = look_cache._entry

    def counted(line: bytes) -> tuple[str, str | None] | None:
        parsed.append(line)
        return real(line)

    monkeypatch.setattr(look_cache, "_entry", counted)
    wanted = {page_key(f"{i:064x}", 0) for i in (3, 500)} | {page_key("f" * 64, 0)}
    assert cache.read(wanted) == {page_key(f"{i:064x}", 0): look for i in (3, 500)}
    assert len(parsed) == 2


def test_pages_written_last_are_read_from_the_end_not_the_whole_file(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plan made again wants the looks written last: the lines looked at are its own and
    a few more, however many the cache holds; a page the cache does not hold has every line
    looked at, and the last line of a key that can be read wins."""
    cache = LookCache(corpus.root)
    look, other = lookalike.PREFIX + "0" * 144, lookalike.PREFIX + "1" * 144
    monkeypatch.setattr(look_cache, "BLOCK_BYTES", 1000)  # many blocks, lines cut across them
    cache.add({page_key(f"{i:064x}", 0): look for i in range(3000)})
    replanned = {page_key(f"{i:064x}", 0): other for i in range(3000, 3020)}
    cache.add(replanned)
    cache.add({page_key(f"{3005:064x}", 0): look})  # written again since: this one wins
    with cache.path.open("ab") as f:
        f.write(orjson.dumps([page_key(f"{3006:064x}", 0), look])[:-20])  # torn: skipped
    looked = _lines_looked_at(monkeypatch)
    found = cache.read(set(replanned))
    assert found == {**replanned, page_key(f"{3005:064x}", 0): look}
    assert len(looked) == 22
    looked.clear()
    assert cache.read({*replanned, page_key("f" * 64, 0)}) == found
    assert len(looked) == 3022


def test_verdicts_are_kept_so_a_validation_in_another_process_verifies_no_pair_again(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shelf = tmp_path / "shelf"
    for k in (1, 2, 3):
        save_jpeg(notebook_scan(k), shelf / "Diary" / f"{k:02}.jpg")
    rescan_file(3, Rescan.TILT, shelf / "Rescans" / "p3.jpg")
    plan = _plan(corpus, shelf / "Diary")
    plan = api.with_looks(plan, _pass(corpus, plan)[0])
    scored: list[int] = []
    real = ink.score

    def counted(a: ink.Ink, b: ink.Ink) -> float:
        scored.append(1)
        return real(a, b)

    monkeypatch.setattr(ink, "score", counted)
    inks.forget()
    first = api.validate_plan(corpus, plan)
    assert scored, "the rescan of page 3 was verified"
    assert VerdictCache(corpus.root).path.is_file()
    inks.forget()  # what a new process (``validate`` after ``plan``) starts from
    scored.clear()
    second = api.validate_plan(corpus, plan)
    assert scored == []
    assert [(p.code, p.message) for p in second.problems] == [
        (p.code, p.message) for p in first.problems
    ]
    assert any(p.code.value == "looks_like" for p in second.problems)


def test_verdict_lines_that_cannot_be_read_are_skipped_and_the_last_read_wins(
    corpus: Corpus,
) -> None:
    cache = VerdictCache(corpus.root)
    ab, ac, ad, ae, fg = (
        ("a#0", "b#0", 0),
        ("a#0", "c#0", 1),
        ("a#0", "d#0", 0),
        ("a#0", "e#0", 0),
        ("f#0", "g#0", 2),
    )
    cache.add({ab: 0.9, ac: 0.1, ae: 0.3})
    with cache.path.open("ab") as f:
        f.write(b'["a#0", "d#0", 0, 7.5]\n\x00\xff\n["a#0", "e#0", 0, 0.')  # torn last line
    assert cache.read({ab, ac, ad, ae}) == {ab: 0.9, ac: 0.1, ae: 0.3}
    cache.add({fg: 0.5, ab: 0.8})
    assert cache.read({fg, ab}) == {fg: 0.5, ab: 0.8}  # on lines of their own, the last wins
    assert cache.read(set()) == {}


def test_verdicts_are_read_from_the_end_back_as_far_as_the_pairs_wanted(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = VerdictCache(corpus.root)
    monkeypatch.setattr(look_cache, "BLOCK_BYTES", 1000)
    cache.add({(f"{i:064x}#0", f"{i + 1:064x}#0", 0): 0.25 for i in range(2000)})
    latest = {(f"{i:064x}#0", f"{i + 1:064x}#0", 1): 0.75 for i in range(2000, 2010)}
    cache.add(latest)
    looked = _lines_looked_at(monkeypatch)
    assert cache.read(set(latest)) == latest
    assert len(looked) == 10
