"""The fixity audit in the engine: damage of each kind found and named, the budget honoured and
taken up where it stopped, the log append-only and whole after a torn write, repair from a bag."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from transcribe_import import __version__
from transcribe_import.engine import api
from transcribe_import.engine.audit import log
from transcribe_import.engine.audit.files import audited_files
from transcribe_import.engine.audit.model import (
    AuditBudget,
    AuditEnd,
    Detail,
    EventType,
    FileKind,
    Outcome,
    RepairRefusal,
)
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.findings import FindingCode

from helpers.export import ShelfCorpus, drain, make_corpus


def _audit(shelf: ShelfCorpus, budget: AuditBudget | None = None) -> api.AuditResult:
    return drain(api.run_audit(shelf.corpus, budget or AuditBudget()))[1]


def _files(shelf: ShelfCorpus, notebook: int, kind: FileKind) -> list[Path]:
    nbid = shelf.notebooks[notebook]
    return [
        shelf.corpus.notebook_dir(nbid) / f.path
        for f in audited_files(shelf.corpus)
        if f.notebook_id == nbid and f.kind is kind
    ]


def _lines(shelf: ShelfCorpus) -> list[dict]:
    raw = log.log_path(shelf.corpus).read_bytes()
    return [json.loads(line) for line in raw.splitlines() if line.strip()]


def _events(shelf: ShelfCorpus) -> list[dict]:
    """The log's events of one file each (checks and repairs), in order."""
    return [e for e in _lines(shelf) if e["event_type"] != "round_complete"]


def test_a_whole_corpus_passes_and_every_check_is_an_event(tmp_path: Path):
    shelf = make_corpus(tmp_path)
    files = audited_files(shelf.corpus)

    result = _audit(shelf)

    assert result.end is AuditEnd.ROUND_COMPLETE and result.round == 1
    assert result.files_checked == len(files) == 10 and not result.failures
    events = _events(shelf)
    assert [(e["notebook_id"], e["path"]) for e in events] == [f.key for f in files]
    for e, f in zip(events, files, strict=True):
        assert e["event_type"] == "fixity_check" and e["outcome"] == "pass"
        assert e["sha256_expected"] == e["sha256_found"] == f.sha256
        assert e["agent"] == f"transcribe-import {__version__}"
        assert e["round"] == 1 and e["at"].endswith("Z")
    # The round's end is a line of its own: the full audit on record.
    done = _lines(shelf)[-1]
    assert done["event_type"] == "round_complete" and done["round"] == 1
    assert done["files"] == 10 and done["failures"] == 0 and done["at"] >= events[-1]["at"]
    report = api.audit_report(shelf.corpus)
    assert report.files_checked == 10 and not report.never_checked and not report.failures
    assert report.last_full_audit is not None and report.last_full_audit.round == 1
    assert report.last_full_audit.failures == 0
    assert report.last_full_audit.finished_at == done["at"]


def test_a_flipped_bit_a_truncated_file_a_missing_and_a_renamed_one_are_each_found_and_named(
    tmp_path: Path,
):
    shelf = make_corpus(tmp_path)
    sources = _files(shelf, 0, FileKind.SOURCE)
    renders = _files(shelf, 1, FileKind.RENDER)
    flipped, truncated, renamed = sources
    data = bytearray(flipped.read_bytes())
    data[len(data) // 2] ^= 0x01
    flipped.write_bytes(bytes(data))
    truncated.write_bytes(truncated.read_bytes()[:100])
    renders[1].unlink()
    renamed.rename(renamed.with_name("renamed-by-hand.jpg"))

    result = _audit(shelf)

    found = {f.event.path: f for f in result.failures}
    assert len(found) == 4 and result.end is AuditEnd.ROUND_COMPLETE
    rel = lambda p: f"{p.parent.name}/{p.name}"  # noqa: E731
    assert found[rel(flipped)].event.detail is Detail.CHANGED
    assert found[rel(truncated)].event.detail is Detail.SIZE_CHANGED
    assert found[rel(truncated)].event.size_found == 100
    assert found[rel(renders[1])].event.detail is Detail.MISSING
    assert found[rel(renders[1])].event.sha256_found is None
    assert found[rel(renamed)].event.detail is Detail.RENAMED
    assert "sources/renamed-by-hand.jpg" in found[rel(renamed)].event.note
    words = api.failure_words(result.failures)
    by_path = dict(zip((f.event.path for f in result.failures), words, strict=True))
    assert by_path[rel(flipped)].startswith("“Notebook 1”, page 1 (source sources/")
    assert "its bytes changed" in by_path[rel(flipped)]
    assert by_path[rel(truncated)].startswith("“Notebook 1”, page 2 ")
    assert "its size changed (100 bytes" in by_path[rel(truncated)]
    assert by_path[rel(renders[1])].startswith("“Notebook 2”, page 2 (render renders/")
    assert "it is missing" in by_path[rel(renders[1])]
    assert by_path[rel(renamed)].startswith("“Notebook 1”, page 3 ")
    # The report and doctor read the same records.
    report = api.audit_report(shelf.corpus)
    assert {f.event.path for f in report.failures} == set(found)
    assert report.last_full_audit is not None and report.last_full_audit.failures == 4
    doctor = api.check_corpus(shelf.corpus)
    fixity = [f for f in doctor.findings if f.code is FindingCode.FIXITY_FAILED]
    # Doctor finds the missing, renamed and truncated files itself (by their size); the
    # flipped bit only the audit's hashing found: each told once.
    assert [Path(f.path).name for f in fixity] == [flipped.name]
    assert all("audit --repair-from" in f.message and "“Notebook 1”" in f.message for f in fixity)


def test_the_budget_is_honoured_and_the_next_run_goes_on_where_the_last_stopped(tmp_path: Path):
    shelf = make_corpus(tmp_path, pages=(4, 4))
    files = audited_files(shelf.corpus)
    sizes = [(shelf.corpus.notebook_dir(f.notebook_id) / f.path).stat().st_size for f in files]
    budget = AuditBudget(max_bytes=sum(sizes[:5]) + sizes[5] // 2)

    first = _audit(shelf, budget)

    assert first.end is AuditEnd.BUDGET_SPENT and first.files_checked == 5
    assert first.bytes_checked == sum(sizes[:5]) <= budget.max_bytes
    assert first.left_in_round == len(files) - 5
    second = _audit(shelf, AuditBudget(max_bytes=10**12))
    assert second.round == 1 and second.end is AuditEnd.ROUND_COMPLETE
    assert second.files_checked == len(files) - 5
    checked = [(e["notebook_id"], e["path"]) for e in _events(shelf)]
    assert checked == [f.key for f in files]  # each once, in the order, none twice
    # The round done, the next run starts round 2 with the longest unchecked first.
    third = _audit(shelf, AuditBudget(max_bytes=1))
    assert third.round == 2 and third.files_checked == 1
    assert _events(shelf)[-1]["path"] == files[0].path
    report = api.audit_report(shelf.corpus)
    assert report.round == 2 and report.left_in_round == len(files) - 1
    assert report.last_full_audit is not None and report.last_full_audit.round == 1
    assert report.oldest_check is not None and report.oldest_check.file == files[1]


def test_a_time_budget_stops_the_run_and_the_next_goes_on(tmp_path: Path):
    shelf = make_corpus(tmp_path)
    first = _audit(shelf, AuditBudget(max_seconds=0))
    assert first.end is AuditEnd.BUDGET_SPENT and first.files_checked == 0
    stop_after = iter([False, False, True])
    stopped = drain(
        api.run_audit(shelf.corpus, AuditBudget(), should_stop=lambda: next(stop_after, True))
    )[1]
    assert stopped.end is AuditEnd.STOPPED and 0 < stopped.files_checked < 10
    rest = _audit(shelf)
    assert rest.files_checked == 10 - stopped.files_checked and rest.round == 1


def test_the_log_is_append_only_and_a_torn_last_line_loses_no_earlier_record(tmp_path: Path):
    shelf = make_corpus(tmp_path)
    _audit(shelf, AuditBudget(max_bytes=1))
    _audit(shelf, AuditBudget(max_bytes=1))
    path = log.log_path(shelf.corpus)
    before = path.read_bytes()
    # A kill in the middle of the next append: half a line, no newline.
    _audit(shelf, AuditBudget(max_bytes=1))
    whole = path.read_bytes()
    assert whole.startswith(before)
    path.write_bytes(whole[: len(before) + (len(whole) - len(before)) // 2])

    state = log.read_log(shelf.corpus)
    assert state.damaged_lines == 1 and len(state.last_check) == 2
    result = _audit(shelf)
    assert result.files_checked == 8  # the torn check was never recorded: done again
    after = path.read_bytes()
    assert after.startswith(path.read_bytes()[: len(before)]) and after[: len(before)] == before
    events = [e for e in _events_skipping_damage(after) if "path" in e]
    assert len(events) == 10 and len({(e["notebook_id"], e["path"]) for e in events}) == 10
    report = api.audit_report(shelf.corpus)
    assert report.damaged_lines == 1 and report.files_checked == 10


def _events_skipping_damage(raw: bytes) -> list[dict]:
    out = []
    for line in raw.splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def test_a_second_audit_is_refused_while_one_runs(tmp_path: Path):
    shelf = make_corpus(tmp_path)
    running = api.run_audit(shelf.corpus, AuditBudget())
    next(running)
    with pytest.raises(TranscribeError) as refused:
        drain(api.run_audit(shelf.corpus, AuditBudget()))
    assert refused.value.code is ErrorCode.AUDIT_BUSY
    assert api.exit_code_for_error(refused.value) is api.ExitCode.LOCKED
    drain(running)


def test_repair_from_an_exported_bag_restores_the_exact_bytes_and_records_it(tmp_path: Path):
    shelf = make_corpus(tmp_path)
    bag = tmp_path / "bag"
    drain(api.export_notebooks(shelf.corpus, None, bag))
    source = _files(shelf, 0, FileKind.SOURCE)[0]
    render = _files(shelf, 1, FileKind.RENDER)[0]
    good = {p: p.read_bytes() for p in (source, render)}
    source.write_bytes(b"rot" + good[source][3:])
    render.unlink()
    assert len(_audit(shelf).failures) == 2

    result = api.repair_from(shelf.corpus, bag)

    assert not result.not_repaired and len(result.repaired) == 2
    for p, data in good.items():
        assert p.read_bytes() == data
    assert {Path(r.copied_from).name for r in result.repaired} == {source.name, render.name}
    repairs = [e for e in _events(shelf) if e["event_type"] == EventType.REPAIR]
    assert len(repairs) == 2 and all(e["outcome"] == Outcome.PASS for e in repairs)
    assert all(e["detail"] == "repaired" and str(bag) in e["note"] for e in repairs)
    assert not api.audit_report(shelf.corpus).failures
    assert not [f for f in api.check_corpus(shelf.corpus).findings if f.severity == "problem"]
    assert not leftovers(shelf)


def test_repair_refuses_a_copy_with_other_bytes_and_says_what_it_could_not_repair(tmp_path: Path):
    shelf = make_corpus(tmp_path)
    bag = tmp_path / "bag"
    drain(api.export_notebooks(shelf.corpus, None, bag))
    source = _files(shelf, 0, FileKind.SOURCE)[0]
    damaged = b"rot" + source.read_bytes()[3:]
    source.write_bytes(damaged)
    _audit(shelf)
    copy = bag / "data" / "notebooks" / shelf.notebooks[0] / "sources" / source.name
    copy.write_bytes(b"other" + copy.read_bytes()[5:])

    result = api.repair_from(shelf.corpus, bag)

    assert not result.repaired
    [refused] = result.not_repaired
    assert refused.reason is RepairRefusal.OTHER_BYTES and refused.copy_seen == str(copy)
    assert source.read_bytes() == damaged
    assert not [e for e in _events(shelf) if e["event_type"] == "repair"]
    assert len(api.audit_report(shelf.corpus).failures) == 1
    # A backup folder of any shape holding the right bytes under another name works.
    backup = tmp_path / "backup" / "deep"
    backup.mkdir(parents=True)
    original = shelf.data.parent / "scans" / "nb1"
    for p in sorted(original.iterdir()):
        (backup / f"copy-{p.name}").write_bytes(p.read_bytes())
    again = api.repair_from(shelf.corpus, tmp_path / "backup")
    assert len(again.repaired) == 1 and not again.not_repaired
    assert hashlib.sha256(source.read_bytes()).hexdigest() == again.repaired[0].file.sha256
    assert not leftovers(shelf)


def leftovers(shelf: ShelfCorpus) -> list[Path]:
    return [p for p in shelf.corpus.notebooks_dir.rglob("*") if ".tmp-" in p.name]


def test_audit_due_after_the_setting_s_days(tmp_path: Path):
    from datetime import UTC, datetime, timedelta

    shelf = make_corpus(tmp_path)
    assert api.audit_due(api.audit_report(shelf.corpus), 90)
    _audit(shelf)
    report = api.audit_report(shelf.corpus)
    assert not api.audit_due(report, 90)
    later = datetime.now(UTC) + timedelta(days=91)
    assert api.audit_due(report, 90, now=later)


def test_log_keys(tmp_path: Path):
    """The log's line and the event's JSON have the same keys and values (plus the schema)."""
    shelf = make_corpus(tmp_path, pages=(1,))
    _audit(shelf)
    state = log.read_log(shelf.corpus)
    for event in state.latest.values():
        assert json.loads(log.encode(event)) == {"schema": 1, **event.to_json()}


def test_imports_go_on_beside_an_audit_and_their_files_join_its_round(tmp_path: Path):
    from engine_helpers import ingest_pages
    from helpers.shelves import make_pages

    shelf = make_corpus(tmp_path)
    running = api.run_audit(shelf.corpus, AuditBudget())
    first = next(running)  # one file checked; the audit holds no corpus lock between files
    assert first.files_done == 1 and first.files_total == 10
    with shelf.corpus.locked(timeout=0):  # free at once: an import's short sections pass
        pass
    ingest_pages(shelf.corpus, shelf.notebooks[1], make_pages(tmp_path / "late", 2, tag="late-"))

    result = drain(running)[1]

    assert result.end is AuditEnd.ROUND_COMPLETE and result.files_checked == 14
    assert result.left_in_round == 0 and not result.failures
    report = api.audit_report(shelf.corpus)
    assert report.files_total == 14 and not report.never_checked and report.left_in_round == 0


def test_a_file_an_undo_takes_out_while_it_is_read_is_not_a_failure(tmp_path: Path):
    shelf = make_corpus(tmp_path)
    running = api.run_audit(shelf.corpus, AuditBudget())
    next(running)
    # As an undo would: the notebook's record and its file go together.
    nb_dir = shelf.corpus.notebook_dir(shelf.notebooks[1])
    doc = json.loads((nb_dir / "project.json").read_bytes())
    gone = doc["sources"].pop()
    (nb_dir / "project.json").write_bytes(json.dumps(doc).encode())
    (nb_dir / gone["path"]).unlink()

    result = drain(running)[1]

    assert result.skipped_changed == 1 and not result.failures
    assert result.files_checked == 9
    assert gone["path"] not in {e["path"] for e in _events(shelf)}


def test_a_full_disk_when_the_log_is_written_names_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    import errno

    from transcribe_import.engine.storage import fsio

    shelf = make_corpus(tmp_path)
    _audit(shelf, AuditBudget(max_bytes=1))
    before = log.log_path(shelf.corpus).read_bytes()

    def full(path: Path, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(fsio, "append_durable", full)
    with pytest.raises(TranscribeError) as refused:
        _audit(shelf)
    assert refused.value.code is ErrorCode.DISK_FULL
    assert str(log.log_path(shelf.corpus)) in str(refused.value)
    assert log.log_path(shelf.corpus).read_bytes() == before
    monkeypatch.undo()
    assert _audit(shelf).files_checked == 9  # nothing of the failed run was recorded


def test_repair_from_another_corpus_s_data_folder(tmp_path: Path):
    import shutil

    shelf = make_corpus(tmp_path)
    replica = tmp_path / "replica-data"
    shutil.copytree(shelf.data, replica)
    render = _files(shelf, 0, FileKind.RENDER)[2]
    good = render.read_bytes()
    render.write_bytes(good[: len(good) // 2])  # truncated
    [failure] = _audit(shelf).failures
    assert failure.event.detail is Detail.CHANGED  # a render records no size: other bytes

    result = api.repair_from(shelf.corpus, replica)

    [repaired] = result.repaired
    assert repaired.copied_from == str(
        replica / "corpus" / "notebooks" / shelf.notebooks[0] / "renders" / render.name
    )
    assert render.read_bytes() == good and not result.not_repaired


def test_a_notebook_imported_after_a_full_audit_does_not_unmake_it(tmp_path: Path):
    from engine_helpers import ingest_pages, new_notebook
    from helpers.shelves import make_pages

    shelf = make_corpus(tmp_path)
    _audit(shelf)
    nbid = new_notebook(shelf.corpus, "Late notebook")
    ingest_pages(shelf.corpus, nbid, make_pages(tmp_path / "late", 1, tag="late-"))

    report = api.audit_report(shelf.corpus)

    assert report.last_full_audit is not None and report.last_full_audit.round == 1
    assert [f.title for f in report.never_checked] == ["Late notebook"] * 2
    assert report.round == 1 and report.left_in_round == 2
    assert not api.audit_due(report, 90)
    # The next run checks the new files in round 1, and no other.
    result = _audit(shelf, AuditBudget(max_bytes=10**12))
    assert result.round == 1 and result.files_checked == 2
    assert result.end is AuditEnd.ROUND_COMPLETE


def test_a_round_completed_without_its_line_gets_it_from_the_next_run(tmp_path: Path):
    shelf = make_corpus(tmp_path)
    _audit(shelf)
    path = log.log_path(shelf.corpus)
    lines = path.read_bytes().splitlines(keepends=True)
    assert b'"round_complete"' in lines[-1]
    path.write_bytes(b"".join(lines[:-1]))  # as a kill just before that line was appended
    assert api.audit_report(shelf.corpus).last_full_audit is None
    last_check = json.loads(lines[-2])["at"]

    second = _audit(shelf, AuditBudget(max_bytes=1))

    assert second.round == 2 and second.files_checked == 1
    done = [e for e in _lines(shelf) if e["event_type"] == "round_complete"]
    assert [(e["round"], e["at"], e["files"]) for e in done] == [(1, last_check, 10)]
    full = api.audit_report(shelf.corpus).last_full_audit
    assert full is not None and full.round == 1 and full.finished_at == last_check
