"""One watch pass after another over a hot folder (api.watch_pass), the clock in the test's hand."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from transcribe_import.engine import api
from transcribe_import.engine.base.progress import drive
from transcribe_import.engine.export.bag import export_bag
from transcribe_import.engine.planning.plan import load_plan
from transcribe_import.engine.storage.corpus import Corpus

from helpers.export import make_corpus
from helpers.shelves import make_pages
from media_factory import make_text_file


class Clock:
    """The watch's clock, moved by the test (settle times without a sleep)."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def passing(corpus: Corpus, share: Path, clock: Clock, **kw: object) -> list[api.DropRecord]:
    settings = api.WatchSettings(settle=60.0, **kw)  # type: ignore[arg-type]
    return list(api.watch_pass(corpus, [share], settings, clock=clock).records)


def states(written: list[api.DropRecord]) -> list[tuple[str, api.DropState]]:
    return [(r.name, r.state) for r in written]


def waiting(written: list[api.DropRecord]) -> bool:
    return all(r.state in ("found", "waiting") for r in written)


def titles(corpus: Corpus) -> dict[str, int | None]:
    return {n.title: n.page_count for n in api.list_notebooks(corpus)}


def test_a_folder_is_taken_only_once_it_stopped_changing_for_the_settle_time(
    corpus: Corpus, tmp_path: Path
) -> None:
    share, clock = tmp_path / "share", Clock()
    pages = make_pages(tmp_path / "scans" / "Box 4", 3)
    drop = share / "Box 4"
    drop.mkdir(parents=True)
    # The slow writer: one file, a pass, the next file, a pass...
    for n, page in enumerate(pages):
        shutil.copy2(page, drop / page.name)
        written = passing(corpus, share, clock)
        assert states(written) == [("Box 4", api.DropState.FOUND if n == 0 else "waiting")]
        clock.now += 59  # never 60 s unchanged while it is written
        assert api.list_notebooks(corpus) == []
    assert passing(corpus, share, clock) == []  # 59 s unchanged: not yet
    clock.now += 1
    written = passing(corpus, share, clock)
    assert states(written) == [("Box 4", "committing"), ("Box 4", "imported")]
    assert titles(corpus) == {"Box 4": 3}
    assert not drop.exists()
    assert sorted(p.name for p in (share / ".imported" / "Box 4").iterdir()) == [
        "page 1.jpg",
        "page 2.jpg",
        "page 3.jpg",
    ]
    imported = written[-1]
    assert imported.run_id is not None and imported.moved_to == str(share / ".imported" / "Box 4")
    assert api.show_run(corpus, imported.run_id).record.status == "complete"
    # Nothing more happens to it, pass after pass.
    clock.now += 1000
    assert passing(corpus, share, clock) == []
    assert [r.state for r in api.drop_log(corpus)] == [
        "found",
        "waiting",
        "waiting",
        "committing",
        "imported",
    ]


def test_a_done_marker_takes_a_folder_at_once(corpus: Corpus, tmp_path: Path) -> None:
    share, clock = tmp_path / "share", Clock()
    make_pages(share / "Box 5", 2)
    (share / "Box 5" / ".done").write_bytes(b"")
    written = passing(corpus, share, clock)
    assert states(written) == [
        ("Box 5", "found"),
        ("Box 5", "committing"),
        ("Box 5", "imported"),
    ]
    assert titles(corpus) == {"Box 5": 2}


def test_an_imported_drop_can_stay_where_it_is(corpus: Corpus, tmp_path: Path) -> None:
    share, clock = tmp_path / "share", Clock()
    make_pages(share / "Box 6", 2)
    (share / "Box 6" / ".done").write_bytes(b"")
    written = passing(corpus, share, clock, leave_imported=True)
    assert written[-1].state is api.DropState.IMPORTED and written[-1].moved_to is None
    assert (share / "Box 6" / "page 1.jpg").is_file()
    assert not (share / ".imported").exists()
    clock.now += 1000
    assert passing(corpus, share, clock, leave_imported=True) == []  # not imported again
    assert len(api.list_runs(corpus)) == 1


def _export(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A bag exported by another corpus (a scanning station): its path and notebook titles."""
    station = make_corpus(tmp_path / "station", (3, 2))
    bag = tmp_path / "station-out" / "bag"
    result = drive(export_bag(station.corpus, list(station.notebooks), bag))
    assert result.status == "complete"
    return bag, {nb: f"Notebook {n}" for n, nb in enumerate(station.notebooks, 1)}


def test_a_bag_is_taken_only_once_every_file_is_there_with_its_size(
    corpus: Corpus, tmp_path: Path
) -> None:
    bag, notebooks = _export(tmp_path)
    share, clock = tmp_path / "share", Clock()
    files = sorted(p for p in bag.rglob("*") if p.is_file())
    # bagit.txt first, then the rest: a copy that does not keep the export's order.
    files.sort(key=lambda p: p.name != "bagit.txt")
    for path in files:
        target = share / "bag" / path.relative_to(bag)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = path.read_bytes()
        target.write_bytes(data[: len(data) // 2])  # half a file: its size is short
        assert waiting(passing(corpus, share, clock)), path
        target.write_bytes(data)
        if path != files[-1]:
            assert waiting(passing(corpus, share, clock)), path
        assert api.list_notebooks(corpus) == []
    written = passing(corpus, share, clock)  # no settle time: the bag says its size
    assert [r.state for r in written] == ["waiting", "committing", "imported"]
    held = {n.notebook_id: n.title for n in api.list_notebooks(corpus)}
    assert held == notebooks  # imported with its ids
    assert (share / ".imported" / "bag" / "bagit.txt").is_file()


def test_a_drop_that_cannot_be_imported_is_refused_with_a_readme(
    corpus: Corpus, tmp_path: Path
) -> None:
    share, clock = tmp_path / "share", Clock()
    make_text_file(share / "Notes" / "notes.txt")
    passing(corpus, share, clock)
    clock.now += 60
    written = passing(corpus, share, clock)
    assert states(written) == [("Notes", "refused")]
    refused = written[0]
    assert refused.code == "nothing_to_import"
    assert (share / ".refused" / "Notes" / "notes.txt").is_file()  # moved, not deleted
    readme = (share / ".refused" / "Notes.README.txt").read_text()
    assert "Notes was not imported" in readme and "nothing_to_import" in readme
    assert "holds no page file" in readme


def test_a_bag_that_stops_changing_while_incomplete_is_refused(
    corpus: Corpus, tmp_path: Path
) -> None:
    bag, _ = _export(tmp_path)
    share, clock = tmp_path / "share", Clock()
    shutil.copytree(bag, share / "bag")
    victim = next((share / "bag" / "data").rglob("*.png"))
    victim.unlink()
    assert states(passing(corpus, share, clock)) == [("bag", "found")]
    clock.now += 60
    written = passing(corpus, share, clock)
    assert states(written) == [("bag", "refused")]
    assert written[0].code == "bag_missing_file"
    assert "is not there yet" in (written[0].message or "")
    assert (share / ".refused" / "bag" / "bagit.txt").is_file()


def test_a_damaged_bag_is_refused_with_its_code(corpus: Corpus, tmp_path: Path) -> None:
    bag, _ = _export(tmp_path)
    share, clock = tmp_path / "share", Clock()
    shutil.copytree(bag, share / "bag")
    victim = next((share / "bag" / "data").rglob("*.png"))
    data = bytearray(victim.read_bytes())
    data[-1] ^= 0xFF  # same size, other bytes
    victim.write_bytes(bytes(data))
    written = passing(corpus, share, clock)
    # Whole by its listing, refused by its check: it may still be being written at its size.
    assert states(written) == [("bag", "found"), ("bag", "waiting")]
    assert written[-1].code == "bag_hash_mismatch"
    clock.now += 59
    assert passing(corpus, share, clock) == []
    clock.now += 1
    written = passing(corpus, share, clock)
    assert states(written) == [("bag", "refused")]
    assert written[-1].code == "bag_hash_mismatch"
    assert "(code bag_hash_mismatch)" in (share / ".refused" / "bag.README.txt").read_text()
    assert api.list_notebooks(corpus) == []


def test_a_drop_that_needs_a_decision_waits_as_a_draft_until_a_person_commits_it(
    corpus: Corpus, tmp_path: Path
) -> None:
    share, clock = tmp_path / "share", Clock()
    make_pages(share / "Box 7", 2, name="{i}.jpg")
    make_pages(share / "Box 7", 1, name="0{i}.jpg", tag="again-")  # 1.jpg and 01.jpg
    (share / "Box 7" / ".done").write_bytes(b"")
    written = passing(corpus, share, clock)
    assert states(written) == [("Box 7", "found"), ("Box 7", "needs_review")]
    queued = api.drop_queue(corpus)
    assert [r.name for r in queued] == ["Box 7"]
    plan_id = queued[0].plan_id
    [draft] = api.list_drafts(corpus)
    assert plan_id is not None and draft.plan_id == plan_id
    assert draft.drop == queued[0]  # the window words it as a drop's question
    assert "1.jpg" in (queued[0].message or "")
    assert (share / "Box 7").is_dir()  # its files are the plan's sources: left in place
    clock.now += 1000
    assert passing(corpus, share, clock) == []  # waits for the person
    # The person settles the order and commits the draft (as the window does).
    plan = api.load_draft(corpus, plan_id)
    plan = plan.with_item(api.reorder(plan.items[0], by="name"))
    prepared = api.prepare_commit(corpus, plan)
    api.execute(corpus, prepared.run_id)
    written = passing(corpus, share, clock)
    assert states(written) == [("Box 7", "imported")]
    assert written[0].run_id == prepared.run_id
    assert api.drop_queue(corpus) == []
    assert (share / ".imported" / "Box 7").is_dir()


def test_a_drop_another_corpus_claimed_is_left_to_it(tmp_path: Path) -> None:
    share, clock = tmp_path / "share", Clock()
    first, second = Corpus.open(tmp_path / "a"), Corpus.open(tmp_path / "b")
    make_pages(share / "Box 8", 2)
    (share / "Box 8" / ".done").write_bytes(b"")
    settings = api.WatchSettings(leave_imported=True)
    assert api.watch_pass(first, [share], settings, clock=clock).records[-1].state == "imported"
    written = list(api.watch_pass(second, [share], settings, clock=clock).records)
    assert states(written) == [("Box 8", "found"), ("Box 8", "taken_elsewhere")]
    assert api.list_notebooks(second) == []
    assert api.watch_pass(second, [share], settings, clock=clock).records == ()


def test_the_records_are_one_json_document_a_line(corpus: Corpus, tmp_path: Path) -> None:
    share, clock = tmp_path / "share", Clock()
    make_pages(share / "Box 9", 1)
    (share / "Box 9" / ".done").write_bytes(b"")
    passing(corpus, share, clock)
    lines = (corpus.root / "watch" / "drops.jsonl").read_bytes().splitlines()
    docs = [orjson.loads(line) for line in lines]
    assert [d["state"] for d in docs] == ["found", "committing", "imported"]
    assert {d["format"] for d in docs} == {"transcribe.watch-drop"}
    assert docs[1]["plan_id"] == docs[2]["plan_id"]
    kept = load_plan(corpus.root / "watch" / "plans" / f"{docs[1]['plan_id']}.json")
    assert kept.plan_id == docs[1]["plan_id"]
    # A torn last line (a kill inside an append) is skipped, and the next record starts clean.
    with open(corpus.root / "watch" / "drops.jsonl", "ab") as f:
        f.write(b'{"format": "transcribe.wat')
    assert len(api.drop_log(corpus)) == 3
    make_pages(share / "Box 10", 1)
    passing(corpus, share, clock)
    assert [r.name for r in api.drop_log(corpus)][-1] == "Box 10"


@pytest.mark.allow_logged_warnings("cannot be read")
@pytest.mark.parametrize("gone", ["share", "drop"])
def test_a_share_or_a_drop_gone_is_looked_at_again_next_pass(
    corpus: Corpus, tmp_path: Path, gone: str
) -> None:
    share, clock = tmp_path / "share", Clock()
    if gone == "share":
        gone_away = api.watch_pass(corpus, [share], clock=clock)  # not there: no error
        assert gone_away.records == ()
        assert gone_away.unreadable == ((share, "No such file or directory"),)
        make_pages(share / "Box 11", 1)
    else:
        make_pages(share / "Box 11", 1)
        passing(corpus, share, clock)
        shutil.rmtree(share / "Box 11")
        assert passing(corpus, share, clock) == []
        make_pages(share / "Box 11", 1)
    (share / "Box 11" / ".done").write_bytes(b"")
    assert passing(corpus, share, clock)[-1].state == "imported"


@pytest.mark.allow_logged_warnings("not taken this pass")
def test_a_drop_that_cannot_be_taken_this_pass_is_taken_up_the_next(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from transcribe_import.engine.api import watch as watch_module
    from transcribe_import.engine.base.errors import ErrorCode, TranscribeError

    share, clock = tmp_path / "share", Clock()
    make_pages(share / "Box 12", 2)
    (share / "Box 12" / ".done").write_bytes(b"")
    real = watch_module.prepare_commit

    def busy(*_a: object, **_k: object) -> None:
        raise TranscribeError(ErrorCode.CORPUS_BUSY, "The corpus is busy; try again.")

    monkeypatch.setattr(watch_module, "prepare_commit", busy)
    done = api.watch_pass(corpus, [share], clock=clock)
    assert states(list(done.records)) == [("Box 12", "found"), ("Box 12", "committing")]
    assert done.stalled == ((share / "Box 12", "The corpus is busy; try again."),)
    monkeypatch.setattr(watch_module, "prepare_commit", real)
    done = api.watch_pass(corpus, [share], clock=clock)
    assert states(list(done.records)) == [("Box 12", "imported")]
    assert titles(corpus) == {"Box 12": 2}


def test_a_drop_removed_while_it_is_planned_is_looked_at_again(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from transcribe_import.engine.api import watch as watch_module

    share, clock = tmp_path / "share", Clock()
    make_pages(share / "Box 13", 2)
    (share / "Box 13" / ".done").write_bytes(b"")
    real = watch_module.plan_paths

    def removed_first(*a: object, **k: object) -> object:
        shutil.move(share / "Box 13", tmp_path / "elsewhere")  # the station takes it back
        return real(*a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(watch_module, "plan_paths", removed_first)
    done = api.watch_pass(corpus, [share], clock=clock)
    assert states(list(done.records)) == [("Box 13", "found")]  # nothing planned, no error
    assert done.stalled == () and api.list_notebooks(corpus) == []
    monkeypatch.setattr(watch_module, "plan_paths", real)
    shutil.move(tmp_path / "elsewhere", share / "Box 13")  # dropped again
    assert states(list(api.watch_pass(corpus, [share], clock=clock).records))[-1] == (
        "Box 13",
        "imported",
    )


def test_a_pdf_on_its_own_is_a_notebook_and_another_loose_file_is_refused(
    corpus: Corpus, tmp_path: Path
) -> None:
    from media_factory import make_pdf

    share, clock = tmp_path / "share", Clock()
    make_pdf(share / "Letters 1931.pdf", pages=2)
    make_pages(share, 1, name="loose {i}.jpg")
    passing(corpus, share, clock)
    clock.now += 60
    written = passing(corpus, share, clock)
    assert states(written) == [
        ("Letters 1931.pdf", "committing"),
        ("Letters 1931.pdf", "imported"),
        ("loose 1.jpg", "refused"),
    ]
    assert titles(corpus) == {"Letters 1931": 2}
    assert written[-1].code == "loose_file"
    assert (share / ".refused" / "loose 1.jpg").is_file()
    assert (
        "put a notebook's pages in a folder"
        in (share / ".refused" / "loose 1.jpg.README.txt").read_text()
    )


def test_the_records_read_again_see_what_was_appended_and_a_file_rewritten(
    corpus: Corpus, tmp_path: Path
) -> None:
    share, clock = tmp_path / "share", Clock()
    make_pages(share / "Box 14", 1)
    passing(corpus, share, clock)
    assert [r.state for r in api.drop_log(corpus)] == ["found"]
    (share / "Box 14" / ".done").write_bytes(b"")
    passing(corpus, share, clock)  # appended to: read from where the last read ended
    assert [r.state for r in api.drop_log(corpus)] == [
        "found",
        "waiting",
        "committing",
        "imported",
    ]
    path = corpus.root / "watch" / "drops.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    with open(path, "r+b") as f:  # rewritten in place (an editor), longer than before
        f.write(lines[-1] + lines[-1] + b"".join(lines))
    assert [r.state for r in api.drop_log(corpus)] == ["imported"] * 2 + [
        "found",
        "waiting",
        "committing",
        "imported",
    ]
