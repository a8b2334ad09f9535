"""atomic_write and the fault injector: no leftovers, the old bytes survive any failure."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from transcribe_import.engine.storage import fsio


def test_atomic_write_replaces_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "doc.json"
    fsio.atomic_write(target, b"one")
    fsio.atomic_write(target, b"two")
    assert target.read_bytes() == b"two"
    assert [p.name for p in tmp_path.iterdir()] == ["doc.json"]


def test_atomic_write_of_parts_writes_them_one_after_the_other(tmp_path: Path) -> None:
    # A plan of 100,000 sources is written an item a part, never joined in memory.
    target = tmp_path / "plan.json"
    fsio.atomic_write(target, [b"{", b'"a": 1', b"}\n"])
    assert target.read_bytes() == b'{"a": 1}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["plan.json"]


@pytest.mark.parametrize("fail_at", [1, 2, 3])
def test_atomic_write_failure_keeps_old_bytes(tmp_path: Path, fail_at: int) -> None:
    target = tmp_path / "doc.json"
    fsio.atomic_write(target, b"old")
    fsio.install_faults(fsio.FaultPlan(fail_at=fail_at, errno=errno.ENOSPC))
    try:
        with pytest.raises(OSError) as info:
            fsio.atomic_write(target, b"new")
    finally:
        fsio.install_faults(None)
    assert info.value.errno == errno.ENOSPC
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["doc.json"]


def test_fsync_dir_failure_is_raised_not_retried(tmp_path: Path) -> None:
    target = tmp_path / "doc.json"
    plan = fsio.FaultPlan(fail_at=4, errno=errno.EIO)  # write, fsync, replace, fsync_dir
    fsio.install_faults(plan)
    try:
        with pytest.raises(OSError):
            fsio.atomic_write(target, b"x")
    finally:
        fsio.install_faults(None)
    assert plan.ops == ["write", "fsync", "replace", "fsync_dir"]
    assert plan.fired == 1


def test_append_durable_returns_offsets(tmp_path: Path) -> None:
    log = tmp_path / "index.jsonl"
    assert fsio.append_durable(log, b"a\n") == 0
    assert fsio.append_durable(log, b"bc\n") == 2
    assert log.read_bytes() == b"a\nbc\n"


def test_copy_hashed_matches_hash_file(tmp_path: Path) -> None:
    src = tmp_path / "src.bin"
    src.write_bytes(bytes(range(256)) * 9000)
    sha, size = fsio.copy_hashed(src, tmp_path / "dst.bin")
    assert (sha, size) == fsio.hash_file(src)
    assert (tmp_path / "dst.bin").read_bytes() == src.read_bytes()


def test_remove_stale_temps_only_removes_temps(tmp_path: Path) -> None:
    (tmp_path / "project.json").write_bytes(b"{}")
    (tmp_path / ".project.json.tmp-12-34").write_bytes(b"{")
    (tmp_path / ".ingest.lock").write_bytes(b"")
    assert fsio.remove_stale_temps(tmp_path) == [".project.json.tmp-12-34"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".ingest.lock", "project.json"]


def test_list_dir_of_a_folder_not_made_yet_is_empty_only_when_asked(tmp_path: Path) -> None:
    (tmp_path / "made").mkdir()
    (tmp_path / "made" / "b").touch()
    (tmp_path / "made" / "a").touch()
    assert fsio.list_dir(tmp_path / "made") == ["a", "b"]
    assert fsio.list_dir(tmp_path / "not-yet", missing_ok=True) == []
    with pytest.raises(FileNotFoundError):
        fsio.list_dir(tmp_path / "not-yet")


def test_read_document_names_a_missing_file_in_the_callers_words_and_codes_the_rest(
    tmp_path: Path,
) -> None:
    import os

    from transcribe_import.engine.base.errors import ErrorCode, TranscribeError

    def missing() -> TranscribeError:
        return TranscribeError(ErrorCode.RUN_NOT_FOUND, "no such run")

    doc = tmp_path / "doc.json"
    doc.write_bytes(b"{}")
    assert fsio.read_document(doc, missing) == b"{}"
    with pytest.raises(TranscribeError) as gone:
        fsio.read_document(tmp_path / "gone.json", missing)
    assert gone.value.code is ErrorCode.RUN_NOT_FOUND and str(gone.value) == "no such run"
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # a record swapped for a pipe: refused at once, never waited on
    with pytest.raises(TranscribeError) as refused:
        fsio.read_document(fifo, missing)
    assert refused.value.code is not ErrorCode.RUN_NOT_FOUND
    assert str(fifo) in str(refused.value)
