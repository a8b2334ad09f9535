"""The corpus: data-dir precedence, identity, index append and damage, locks, creation."""

from __future__ import annotations

import threading
from pathlib import Path

import orjson
import pytest

from transcribe_import.engine.base.config import resolve_data_dir
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.storage.corpus import Corpus, IndexEntry


def test_data_dir_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRANSCRIBE_DATA_DIR", str(tmp_path / "env"))
    assert resolve_data_dir(tmp_path / "flag") == tmp_path / "flag"
    assert resolve_data_dir(None) == tmp_path / "env"
    monkeypatch.delenv("TRANSCRIBE_DATA_DIR")
    assert resolve_data_dir(None).name == "Transcribe"


def test_open_creates_layout_and_identity(data_dir: Path) -> None:
    corpus = Corpus.open(data_dir)
    root = data_dir / "corpus"
    for sub in ("notebooks", "import-runs", "quarantine"):
        assert (root / sub).is_dir()
    ident = orjson.loads((root / "corpus.json").read_bytes())
    assert ident["format"] == "transcribe.corpus" and ident["schema_version"] == 1
    assert Corpus.open(data_dir).corpus_id == corpus.corpus_id == ident["corpus_id"]


def test_open_refuses_foreign_identity(data_dir: Path) -> None:
    Corpus.open(data_dir)
    (data_dir / "corpus" / "corpus.json").write_bytes(b'{"format": "something else"}')
    with pytest.raises(TranscribeError) as info:
        Corpus.open(data_dir)
    assert info.value.code == ErrorCode.CORPUS_INVALID
    assert "corpus.json" in str(info.value)


def test_create_notebook_is_registered_once_and_idempotent(data_dir: Path) -> None:
    corpus = Corpus.open(data_dir)
    nbid = new_id()
    corpus.create_notebook(nbid, "Diary 1952")
    corpus.create_notebook(nbid, "Diary 1952")
    assert (
        Corpus.open(data_dir).index_path.read_bytes().count(f'"notebook_id":"{nbid}"'.encode()) == 1
    )
    [summary] = Corpus.open(data_dir).list_notebooks()
    assert (summary.notebook_id, summary.title, summary.page_count) == (nbid, "Diary 1952", 0)


def test_ids_that_are_not_uuids_never_reach_the_disk(data_dir: Path) -> None:
    corpus = Corpus.open(data_dir)
    with pytest.raises(TranscribeError) as info:
        corpus.create_notebook("../../etc", "x")
    assert info.value.code == ErrorCode.INVALID_ID
    assert list(corpus.notebooks_dir.iterdir()) == []


def test_index_reads_incrementally_across_instances(data_dir: Path) -> None:
    a, b = Corpus.open(data_dir), Corpus.open(data_dir)
    ids = [new_id() for _ in range(3)]
    a.create_notebook(ids[0], "one")
    assert set(b.index_entries()) == {ids[0]}
    b.create_notebook(ids[1], "two")
    a.create_notebook(ids[2], "three")
    assert set(a.index_entries()) == set(b.index_entries()) == set(ids)


def test_register_after_torn_tail_keeps_the_fragment(data_dir: Path) -> None:
    corpus = Corpus.open(data_dir)
    corpus.create_notebook(new_id(), "a")
    with open(corpus.index_path, "ab") as f:
        f.write(b'{"op": "regis')
    nbid = new_id()
    Corpus.open(data_dir).create_notebook(nbid, "b")
    fresh = Corpus.open(data_dir)
    assert nbid in fresh.index_entries()
    assert len(fresh.index_damage()) == 1  # the fragment is its own damaged line, still there


def test_corpus_lock_busy_is_a_clear_error(data_dir: Path) -> None:
    corpus = Corpus.open(data_dir)
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        with Corpus.open(data_dir).locked():
            held.set()
            release.wait(10)

    t = threading.Thread(target=holder)
    t.start()
    try:
        assert held.wait(10)
        with pytest.raises(TranscribeError) as info, corpus.locked(timeout=0.2):
            pass
        assert info.value.code == ErrorCode.CORPUS_BUSY
        assert "busy" in str(info.value)
    finally:
        release.set()
        t.join()


def test_a_registration_names_the_notebook_folder_the_reader_accepts(data_dir: Path) -> None:
    corpus = Corpus.open(data_dir)
    nbid, run = new_id(), new_id()
    entry = IndexEntry.of_notebook(nbid, "Diary", "2026-01-01T00:00:00Z", run)
    assert entry.directory == f"notebooks/{nbid}"
    with corpus.locked():
        assert corpus.register(entry)
    assert Corpus.open(data_dir).index_entries() == {nbid: entry}  # read back as written
    assert (corpus.root / entry.directory) == corpus.notebook_dir(nbid)
