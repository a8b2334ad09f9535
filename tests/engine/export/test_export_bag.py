"""The export bag: valid BagIt by the bagit package and by its own chain hash; partial when the
corpus is damaged, and then never valid; refusals before anything is written; cancel."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import bagit
import pytest

from transcribe_import.engine import api
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.progress import drive
from transcribe_import.engine.doctor import doctor
from transcribe_import.engine.export.model import ExportPhase, ExportStatus
from transcribe_import.engine.storage import fsio
from transcribe_import.engine.storage.bag_format import verify_bag

from engine_helpers import snapshot
from helpers.export import (
    FOREIGN_KEY,
    ShelfCorpus,
    bag_info,
    drain,
    independent_chain,
    listed_files,
    make_corpus,
    payload_files,
    refusal,
    tree,
)


@pytest.fixture
def shelf(tmp_path: Path) -> ShelfCorpus:
    return make_corpus(tmp_path)


def export(shelf: ShelfCorpus, dest: Path | None, ids: list[str] | None = None, **kw):  # type: ignore[no-untyped-def]
    return drain(api.export_notebooks(shelf.corpus, ids, dest, **kw))


def _validate_fails(bag_dir: Path) -> str:
    """bagit refuses the folder (as a bag, or as a valid one); its words."""
    with pytest.raises(bagit.BagError) as info:
        bagit.Bag(str(bag_dir)).validate()
    return str(info.value) + " " + repr(getattr(info.value, "details", ""))


# -- a complete export ------------------------------------------------------------------------


def test_export_is_a_valid_bag_by_bagit_and_by_its_chain_hash(shelf: ShelfCorpus, tmp_path: Path):
    dest = tmp_path / "out"
    corpus_before = {nb: snapshot(shelf.corpus.notebook_dir(nb)) for nb in shelf.notebooks}

    events, result = export(shelf, dest)

    assert result.status is ExportStatus.COMPLETE
    assert api.exit_code_for_export(result) == 0
    bag = bagit.Bag(str(dest))
    bag.validate()  # every payload and tag file against its manifest, Payload-Oxum too
    assert bag.is_valid()
    assert set(bag.tagfile_entries()) == {
        "bagit.txt",
        "bag-info.txt",
        "manifest-sha256.txt",
        "MANIFEST.json",
        "README.md",
    }

    # The payload is exactly what the notebooks' project.json files list, byte for byte.
    expected = {}
    for nb in shelf.notebooks:
        expected |= listed_files(shelf.corpus, nb)
    assert payload_files(dest) == expected
    for nb in shelf.notebooks:
        corpus_bytes = (shelf.corpus.notebook_dir(nb) / "project.json").read_bytes()
        assert (dest / "data" / "notebooks" / nb / "project.json").read_bytes() == corpus_bytes
    carried = json.loads(
        (dest / "data/notebooks" / shelf.notebooks[0] / "project.json").read_text()
    )
    assert carried[FOREIGN_KEY]["page-1"] == "Dear diary — é ü ß"

    manifest = json.loads((dest / "MANIFEST.json").read_bytes())
    assert manifest["format"] == "transcribe.export" and manifest["schema_version"] == 1
    assert manifest["status"] == "complete" and manifest["missing"] == []
    assert manifest["files"] == expected
    assert manifest["chain_hash"] == independent_chain(expected) == result.chain_hash
    assert manifest["corpus_id"] == shelf.corpus.corpus_id
    assert [n["notebook_id"] for n in manifest["notebooks"]] == list(shelf.notebooks)
    assert [n["page_count"] for n in manifest["notebooks"]] == [3, 2]

    info = bag_info(dest)
    assert info["External-Identifier"] == shelf.corpus.corpus_id
    octets = sum(p.stat().st_size for p in (dest / "data").rglob("*") if p.is_file())
    assert info["Payload-Oxum"] == f"{octets}.{len(expected)}"
    assert info["Bag-Count"] == "1 of 1"
    assert info["Transcribe-Notebook-Count"] == "2"
    assert info["Transcribe-Export-Status"] == "complete"
    assert info["Bag-Software-Agent"].startswith("transcribe-import ")
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", info["Bagging-Date"])
    assert (dest / "bagit.txt").read_bytes() == (
        b"BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n"
    )

    # Nothing of the writing is left: no lock, no marker. The corpus is unchanged.
    assert sorted(p.name for p in dest.iterdir()) == sorted(
        ["bagit.txt", "bag-info.txt", "manifest-sha256.txt", "tagmanifest-sha256.txt",
         "MANIFEST.json", "README.md", "data"]
    )  # fmt: skip
    assert {nb: snapshot(shelf.corpus.notebook_dir(nb)) for nb in shelf.notebooks} == corpus_before
    assert drive(verify_bag(dest)).sha256 == expected  # the app's own check takes it whole

    # Progress: reserved first, then one event per file, then finishing and done.
    assert events[0].phase is ExportPhase.RESERVED and events[-1].phase is ExportPhase.DONE
    copying = [e for e in events if e.phase is ExportPhase.COPYING]
    assert len(copying) == len(expected) == events[-1].files_total == events[-1].files_done
    assert [e.files_done for e in copying] == list(range(1, len(expected) + 1))
    assert events[-1].bytes_done == result.payload_bytes == events[-1].bytes_total


def test_readme_says_how_to_verify_and_its_python_recomputes_the_chain(shelf, tmp_path: Path):
    dest = tmp_path / "out"
    export(shelf, dest)
    readme = (dest / "README.md").read_text(encoding="utf-8")
    assert "bagit.py --validate" in readme
    assert "--mode bag" in readme
    assert "complete" in readme
    code = re.search(r"```python\n(.*?)```", readme, re.S)
    assert code is not None
    proc = subprocess.run(
        [sys.executable, "-c", code.group(1)], cwd=dest, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads((dest / "MANIFEST.json").read_bytes())["chain_hash"] in proc.stdout


def test_the_chain_hash_changes_when_a_listing_changes(shelf, tmp_path: Path):
    dest = tmp_path / "out"
    _events, result = export(shelf, dest)
    files = dict(result.files)
    first = sorted(files)[0]
    renamed = {**{k: v for k, v in files.items() if k != first}, first + "x": files[first]}
    assert independent_chain(renamed) != result.chain_hash
    assert independent_chain({k: v for k, v in files.items() if k != first}) != result.chain_hash
    # An edited MANIFEST.json fails the bag's own check and bagit's tag manifest check.
    doc = json.loads((dest / "MANIFEST.json").read_bytes())
    doc["files"].pop(first)
    (dest / "MANIFEST.json").write_text(json.dumps(doc))
    refused = refusal(dest)
    assert refused.code is ErrorCode.BAG_HASH_MISMATCH
    assert refused.path == str(dest / "MANIFEST.json") and "tagmanifest-sha256.txt" in str(refused)
    _validate_fails(dest)


def test_exporting_some_notebooks_carries_only_them(shelf, tmp_path: Path):
    dest = tmp_path / "out"
    _events, result = export(shelf, dest, [shelf.notebooks[1], shelf.notebooks[1]])
    assert [n.notebook_id for n in result.notebooks] == [shelf.notebooks[1]]
    assert payload_files(dest) == listed_files(shelf.corpus, shelf.notebooks[1])
    bagit.Bag(str(dest)).validate()


def test_an_empty_notebook_exports_as_a_valid_bag_and_no_notebook_at_all_is_refused(
    tmp_path: Path,
):
    shelf = make_corpus(tmp_path / "a", pages=(0,))
    export(shelf, tmp_path / "one")
    bagit.Bag(str(tmp_path / "one")).validate()
    empty = make_corpus(tmp_path / "b", pages=(1,))
    with pytest.raises(TranscribeError) as caught:
        drain(api.export_notebooks(empty.corpus, [], tmp_path / "none"))
    assert caught.value.code is ErrorCode.EXPORT_NOTHING
    assert not (tmp_path / "none").exists()


# -- damage in the corpus: partial, named, never valid ---------------------------------------


def _flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def test_a_corrupt_corpus_file_makes_the_export_partial_and_named(shelf, tmp_path: Path):
    nb = shelf.notebooks[0]
    doc = json.loads((shelf.corpus.notebook_dir(nb) / "project.json").read_bytes())
    source = doc["sources"][1]
    corrupt = shelf.corpus.notebook_dir(nb) / source["path"]
    _flip_a_byte(corrupt)
    damaged = corrupt.read_bytes()
    dest = tmp_path / "out"

    events, result = export(shelf, dest)

    assert result.status is ExportStatus.PARTIAL
    assert api.exit_code_for_export(result) == 1
    bag_path = f"data/notebooks/{nb}/{source['path']}"
    [missing] = result.missing
    assert (missing.path, missing.reason, missing.kind) == (bag_path, "hash_mismatch", "source")
    assert missing.expected_sha256 == source["sha256"]
    assert str(corrupt) in missing.message and "doctor --verify-hashes" in missing.message
    assert [e.missing for e in events if e.missing] == [missing]
    # Only verified bytes travel: the damaged copy is not in the bag; the corpus is untouched.
    assert not (dest / bag_path).exists()
    assert corrupt.read_bytes() == damaged

    words = _validate_fails(dest)
    assert source["path"].split("/")[-1] in words  # bagit names the file
    assert f"{source['sha256']}  {bag_path}" in (dest / "manifest-sha256.txt").read_text()
    manifest = json.loads((dest / "MANIFEST.json").read_bytes())
    assert manifest["status"] == "partial"
    assert manifest["missing"][0]["path"] == bag_path
    assert manifest["missing"][0]["reason"] == "hash_mismatch"
    assert bag_path not in manifest["files"]
    assert manifest["chain_hash"] == independent_chain(manifest["files"])
    assert [n["status"] for n in manifest["notebooks"]] == ["partial", "complete"]
    assert bag_info(dest)["Transcribe-Export-Status"] == "partial"
    assert (
        "partial" in (dest / "README.md").read_text()
        and bag_path in (dest / "README.md").read_text()
    )
    refused = refusal(dest)  # the first missing file is named
    assert refused.code is ErrorCode.BAG_MISSING_FILE and refused.path == str(dest / bag_path)
    assert not (dest / ".export.lock").exists()


def test_a_missing_render_makes_the_export_partial(shelf, tmp_path: Path):
    nb = shelf.notebooks[1]
    doc = json.loads((shelf.corpus.notebook_dir(nb) / "project.json").read_bytes())
    render = doc["pages"][0]["render"]
    (shelf.corpus.notebook_dir(nb) / render["path"]).unlink()
    dest = tmp_path / "out"

    _events, result = export(shelf, dest)

    assert result.status is ExportStatus.PARTIAL
    [missing] = result.missing
    assert missing.reason == "missing" and missing.kind == "render"
    assert missing.path == f"data/notebooks/{nb}/{render['path']}"
    assert "missing" in _validate_fails(dest).lower()
    refused = refusal(dest)
    assert refused.code is ErrorCode.BAG_MISSING_FILE and refused.path == str(dest / missing.path)


def test_an_unreadable_manifest_leaves_its_notebook_out_and_the_bag_invalid(shelf, tmp_path):
    bad, good = shelf.notebooks
    (shelf.corpus.notebook_dir(bad) / "project.json").write_bytes(b"{not json")
    dest = tmp_path / "out"

    _events, result = export(shelf, dest)

    assert result.status is ExportStatus.PARTIAL
    [missing] = result.missing
    assert missing.reason == "manifest_invalid" and missing.kind == "project"
    assert missing.expected_sha256 == hashlib.sha256(b"{not json").hexdigest()
    assert not (dest / "data" / "notebooks" / bad).exists()
    assert payload_files(dest) == listed_files(shelf.corpus, good)
    _validate_fails(dest)
    assert result.notebooks[0].title is None and result.notebooks[0].page_count is None


def test_an_unsafe_path_in_a_manifest_is_never_followed(shelf, tmp_path: Path):
    nb = shelf.notebooks[1]
    path = shelf.corpus.notebook_dir(nb) / "project.json"
    doc = json.loads(path.read_bytes())
    secret = tmp_path / "secret.txt"
    secret.write_text("not for export")
    doc["sources"][0]["path"] = "../../../../secret.txt"
    path.write_text(json.dumps(doc))
    dest = tmp_path / "out"

    _events, result = export(shelf, dest)

    assert [m.reason for m in result.missing] == ["manifest_invalid"]
    assert "sources[0]" in result.missing[0].message
    assert not any(p.name == "secret.txt" for p in dest.rglob("*"))


# -- refusals: before anything is written -----------------------------------------------------


def test_an_unknown_notebook_is_refused_before_the_destination_is_touched(shelf, tmp_path):
    dest = tmp_path / "out"
    for bad in ("0000", "4e3f0d8e-2b0c-4b9a-8f57-3d1f3a0b7c11"):
        with pytest.raises(TranscribeError) as info:
            export(shelf, dest, [shelf.notebooks[0], bad])
        assert info.value.code is ErrorCode.NOTEBOOK_NOT_FOUND
        assert bad in str(info.value)
        assert api.exit_code_for_export_error(info.value) == 2
    assert not dest.exists()


def test_a_non_empty_destination_is_always_refused(shelf, tmp_path: Path):
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / "old notes.txt").write_text("mine")
    with pytest.raises(TranscribeError) as info:
        export(shelf, dest)
    assert info.value.code is ErrorCode.EXPORT_DESTINATION_NOT_EMPTY
    assert str(dest) in str(info.value) and "old notes.txt" in str(info.value)
    assert api.exit_code_for_export_error(info.value) == 2
    assert tree(dest) == {"old notes.txt": b"mine"}  # not even a lock file stays

    # A finished export is not empty either: exporting into it again is refused.
    export(shelf, tmp_path / "done")
    before = tree(tmp_path / "done")
    with pytest.raises(TranscribeError) as again:
        export(shelf, tmp_path / "done")
    assert again.value.code is ErrorCode.EXPORT_DESTINATION_NOT_EMPTY
    assert tree(tmp_path / "done") == before


def test_a_file_or_a_folder_inside_the_corpus_is_no_destination(shelf, tmp_path: Path):
    a_file = tmp_path / "file"
    a_file.write_text("x")
    for dest in (a_file, shelf.data / "corpus" / "exported"):
        with pytest.raises(TranscribeError) as info:
            export(shelf, dest)
        assert info.value.code is ErrorCode.EXPORT_DESTINATION_INVALID
        assert api.exit_code_for_export_error(info.value) == 2
    assert not (shelf.data / "corpus" / "exported").exists()


def test_a_held_destination_is_refused_at_once_having_written_nothing(shelf, tmp_path: Path):
    dest = tmp_path / "out"
    dest.mkdir()
    with open(dest / ".export.lock", "w") as held:  # another export's lock
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(TranscribeError) as info:
            export(shelf, dest)
        assert tree(dest) == {".export.lock": b""}
    assert info.value.code is ErrorCode.EXPORT_LOCKED
    assert api.exit_code_for_export_error(info.value) == 5
    assert str(dest) in str(info.value)


def test_a_second_export_while_one_writes_is_refused_and_the_first_completes(shelf, tmp_path):
    dest = tmp_path / "out"
    first = api.export_notebooks(shelf.corpus, None, dest)
    assert next(first).phase is ExportPhase.RESERVED  # holds the lock, has written its marker
    assert next(first).phase is ExportPhase.COPYING
    before = tree(dest)

    with pytest.raises(TranscribeError) as info:
        drain(api.export_notebooks(shelf.corpus, None, dest))

    assert info.value.code is ErrorCode.EXPORT_LOCKED
    assert tree(dest) == before  # the refused one wrote nothing
    _events, result = drain(first)
    assert result.status is ExportStatus.COMPLETE
    bagit.Bag(str(dest)).validate()


def test_exports_racing_one_destination_leave_exactly_one_complete_bag(tmp_path: Path):
    shelf = make_corpus(tmp_path, pages=(6, 6))
    dest = tmp_path / "out"
    start = threading.Barrier(6)
    outcomes: list[object] = []

    def one() -> None:
        start.wait()
        try:
            outcomes.append(drain(api.export_notebooks(shelf.corpus, None, dest))[1].status)
        except TranscribeError as exc:
            outcomes.append(exc.code)

    threads = [threading.Thread(target=one) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count(ExportStatus.COMPLETE) == 1, outcomes
    assert set(outcomes) - {ExportStatus.COMPLETE} <= {
        ErrorCode.EXPORT_LOCKED,
        ErrorCode.EXPORT_DESTINATION_NOT_EMPTY,
    }
    bagit.Bag(str(dest)).validate()
    assert not (dest / ".export.lock").exists()


# -- the default folder, cancel, disk faults ---------------------------------------------------


def test_without_a_destination_each_export_gets_a_fresh_folder_named_for_a_person(shelf):
    first = shelf.notebooks[:1]
    _e, one = export(shelf, None, first)
    _e, two = export(shelf, None, first)
    _e, both = export(shelf, None)
    day = bag_info(one.destination)["Bagging-Date"]
    assert [r.destination.name for r in (one, two, both)] == [
        f"Notebook 1 – {day}",
        f"Notebook 1 – {day} (2)",
        f"Notebook 1 and Notebook 2 – {day}",
    ]
    for result in (one, two, both):
        assert result.destination.parent == shelf.data / "exports"
        bagit.Bag(str(result.destination)).validate()
        # The export's id is in its manifest, not in the folder's name.
        manifest = json.loads((result.destination / "MANIFEST.json").read_bytes())
        assert manifest["export_id"] not in result.destination.name
        assert bag_info(result.destination)["Transcribe-Export-Id"] == manifest["export_id"]


@pytest.mark.parametrize(
    ("titles", "name"),
    [
        (["Diary 1931"], "Diary 1931 – 2026-12-06"),
        (["A/B: C*D?"], "A-B- C-D – 2026-12-06"),
        (['  "Letters" <to> |home|  '], "Letters- -to- -home – 2026-12-06"),
        ([".hidden..."], "hidden – 2026-12-06"),
        (["tab\there\nnewline\x00"], "tab here newline – 2026-12-06"),
        (["CON"], "CON notebook – 2026-12-06"),
        (["com1.txt"], "com1.txt notebook – 2026-12-06"),
        (["Cafe\u0301"], "Caf\u00e9 – 2026-12-06"),
        (["???"], "Notebook – 2026-12-06"),
        ([None], "Notebook – 2026-12-06"),
        (["A", None], "A and 1 more – 2026-12-06"),
        (["A", "B", "C"], "A and 2 more – 2026-12-06"),
    ],
)
def test_the_default_folder_name_is_safe_on_every_file_system(titles, name):
    from datetime import date

    from transcribe_import.engine.export.destination import folder_name

    assert folder_name(titles, date(2026, 12, 6)) == name


def test_a_long_title_is_cut_at_a_word_and_the_name_stays_short():
    from datetime import date

    from transcribe_import.engine.export.destination import folder_name

    name = folder_name(["Tagebuch der Großmutter " * 20], date(2026, 12, 6))
    assert name.endswith("… – 2026-12-06")
    assert name.startswith("Tagebuch der Großmutter Tagebuch")
    assert "  " not in name and len(name.encode()) <= 120
    wide = folder_name(["日記" * 200], date(2026, 12, 6))
    assert len(wide.encode()) <= 120 and wide.endswith("… – 2026-12-06")


def test_a_cancelled_export_leaves_a_folder_that_says_so_and_never_validates(shelf, tmp_path):
    dest = tmp_path / "out"
    seen: list[int] = []

    def should_stop() -> bool:
        seen.append(1)
        return len(seen) > 4

    _events, result = export(shelf, dest, should_stop=should_stop)

    assert result.status is ExportStatus.CANCELLED
    assert api.exit_code_for_export(result) == 4
    assert result.chain_hash is None
    note = (dest / "EXPORT-INCOMPLETE.txt").read_text()
    assert "cancelled" in note and result.export_id in note
    assert not (dest / "bagit.txt").exists() and not (dest / "tagmanifest-sha256.txt").exists()
    assert not (dest / ".export.lock").exists()
    with pytest.raises(bagit.BagError):
        bagit.Bag(str(dest)).validate()
    refused = refusal(dest)
    assert refused.code is ErrorCode.BAG_INVALID and "did not finish" in str(refused)
    assert refused.path == str(dest / "EXPORT-INCOMPLETE.txt")
    # No half-copied file: what is in the payload so far is right.
    listed = {}
    for nb in shelf.notebooks:
        listed |= listed_files(shelf.corpus, nb)
    assert payload_files(dest).items() <= listed.items()


def test_a_stopped_consumer_marks_the_folder_and_frees_it(shelf, tmp_path: Path):
    dest = tmp_path / "out"
    gen = api.export_notebooks(shelf.corpus, None, dest)
    next(gen)
    next(gen)
    gen.close()  # the consumer went away (GeneratorExit inside the export)
    assert "stopped before its end" in (dest / "EXPORT-INCOMPLETE.txt").read_text()
    assert not (dest / ".export.lock").exists() and not (dest / "bagit.txt").exists()


@pytest.mark.parametrize("err", [28, 5])  # ENOSPC, EIO
def test_every_fault_leaves_a_bag_that_is_valid_or_that_never_validates(tmp_path, err: int):
    """EIO/ENOSPC at each file-system operation in turn: whatever happens, either the export
    ends complete and the bag validates, or it is partial, or it fails with a coded error;
    and then the folder does not validate. The lock is always freed; the corpus unchanged."""
    shelf = make_corpus(tmp_path, pages=(2,))
    before = snapshot(shelf.corpus.notebook_dir(shelf.notebooks[0]))
    outcomes = set()
    for n in range(1, 200):
        dest = tmp_path / f"out{n}"
        plan = fsio.FaultPlan(fail_at=n, errno=err)
        fsio.install_faults(plan)
        try:
            _events, result = export(shelf, dest)
            outcome: object = result.status
        except TranscribeError as exc:
            outcome = exc.code
            assert exc.path, f"fault {n} ({plan.ops[-1]}): the error names no file"
        finally:
            fsio.install_faults(None)
        outcomes.add(outcome)
        if not plan.fired:
            assert outcome is ExportStatus.COMPLETE
            break
        if outcome is ExportStatus.COMPLETE:
            bagit.Bag(str(dest)).validate()
        elif dest.exists() and any(dest.iterdir()):
            with pytest.raises(bagit.BagError):
                bagit.Bag(str(dest)).validate()
                pytest.fail(f"fault {n} at {plan.ops[-1]} ended {outcome} with a valid bag")
        if dest.exists():
            assert not (dest / ".export.lock").exists() or outcome is ExportStatus.COMPLETE, n
    else:
        pytest.fail("the export never ran without a fault")
    assert snapshot(shelf.corpus.notebook_dir(shelf.notebooks[0])) == before
    assert doctor(shelf.corpus).clean
    assert ExportStatus.PARTIAL in outcomes  # a read of the corpus failed: named, not fatal
    assert {ErrorCode.DISK_FULL, ErrorCode.IO_ERROR} & outcomes  # the destination failed


def test_the_export_module_never_imports_qt() -> None:
    code = (
        "import sys; import transcribe_import.engine.export.bag, transcribe_import.engine.api; "
        "assert not any(m.startswith(('PySide6', 'shiboken6')) for m in sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ})
