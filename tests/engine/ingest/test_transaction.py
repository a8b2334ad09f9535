"""The ingest transaction: all or nothing, idempotent, unknown keys kept, bad sources refused."""

from __future__ import annotations

import errno
import hashlib
import shutil
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.ingest.transaction import IngestCancelled, IngestRequest, ingest
from transcribe_import.engine.media.kinds import RenderSettings
from transcribe_import.engine.storage import fsio, project

from engine_helpers import (
    assert_notebook_whole,
    page_ids,
    request_for,
    snapshot,
    source_spec,
)
from helpers.shelves import make_pages
from media_factory import make_image

# The corpus and notebook fixtures are the shared ones (tests/conftest.py).


def pages(tmp_path: Path, n: int, prefix: str = "page") -> list[Path]:
    """``n`` page images "<prefix> 0.jpg", ... in tmp_path/src."""
    return make_pages(tmp_path / "src", n, name=f"{prefix} {{i}}.jpg", start=0)


def test_ingest_adds_sources_pages_and_renders(corpus, notebook, tmp_path) -> None:
    req = request_for(notebook, pages(tmp_path, 3), import_run_id=new_id(), item_id=new_id())
    result = ingest(corpus, req)
    assert result.pages_added == 3 and not result.already_present
    doc = assert_notebook_whole(corpus, notebook)
    assert [p["id"] for p in doc["pages"]] == page_ids(req)
    src = doc["sources"][0]
    assert src["path"] == f"sources/{src['id']}.jpg"
    assert src["import_run_id"] == req.import_run_id and src["item_id"] == req.item_id
    assert src["provenance"]["original_path"].endswith("page 0.jpg")
    nb_dir = corpus.notebook_dir(notebook)
    assert not (nb_dir / ".staging").exists() or not any((nb_dir / ".staging").iterdir())
    # The stored source is the user's file, byte for byte.
    assert (nb_dir / src["path"]).read_bytes() == req.sources[0].path.read_bytes()


def test_second_ingest_appends_in_order(corpus, notebook, tmp_path) -> None:
    first = request_for(notebook, pages(tmp_path, 2, "a"))
    second = request_for(notebook, pages(tmp_path, 2, "b"))
    ingest(corpus, first)
    ingest(corpus, second)
    doc = assert_notebook_whole(corpus, notebook)
    assert [p["id"] for p in doc["pages"]] == page_ids(first) + page_ids(second)


def test_reingesting_the_same_ids_is_a_noop(corpus, notebook, tmp_path) -> None:
    req = request_for(notebook, pages(tmp_path, 2))
    ingest(corpus, req)
    before = snapshot(corpus.notebook_dir(notebook))
    result = ingest(corpus, req)
    assert result.already_present and result.pages_added == 0
    assert snapshot(corpus.notebook_dir(notebook)) == before


def test_partly_taken_ids_are_a_conflict(corpus, notebook, tmp_path) -> None:
    req = request_for(notebook, pages(tmp_path, 2))
    ingest(corpus, req)
    other = source_spec(make_image(tmp_path / "other.jpg", "other"))
    mixed = IngestRequest(notebook, (req.sources[0], other))
    with pytest.raises(TranscribeError) as info:
        ingest(corpus, mixed)
    assert info.value.code == ErrorCode.ID_CONFLICT


def test_unknown_keys_survive_every_rewrite(corpus, notebook, tmp_path) -> None:
    nb_dir = corpus.notebook_dir(notebook)
    doc = project.read(nb_dir, notebook)
    doc["transcription"] = {"engine": "other tool", "lines": [1, 2, 3]}
    doc["x-custom"] = "kept"
    project.write(nb_dir, doc)
    ingest(corpus, request_for(notebook, pages(tmp_path, 1)))
    # Another tool also annotates existing entries: those keys must survive too.
    doc = project.read(nb_dir, notebook)
    doc["pages"][0]["transcript"] = "Dear diary"
    project.write(nb_dir, doc)
    ingest(corpus, request_for(notebook, pages(tmp_path, 1, "later")))
    doc = project.read(nb_dir, notebook)
    assert doc["transcription"] == {"engine": "other tool", "lines": [1, 2, 3]}
    assert doc["x-custom"] == "kept"
    assert doc["pages"][0]["transcript"] == "Dear diary"
    assert len(doc["pages"]) == 2


def test_cover_is_set_only_when_unset(corpus, notebook, tmp_path) -> None:
    req = request_for(notebook, pages(tmp_path, 2))
    first_page = req.sources[1].pages[0].page_id
    ingest(corpus, IngestRequest(notebook, req.sources, cover_page_id=first_page))
    later = request_for(notebook, pages(tmp_path, 1, "later"))
    other_cover = later.sources[0].pages[0].page_id
    ingest(corpus, IngestRequest(notebook, later.sources, cover_page_id=other_cover))
    assert project.read(corpus.notebook_dir(notebook), notebook)["cover_page_id"] == first_page


def test_renders_are_capped_and_deterministic(corpus, tmp_path) -> None:
    big = make_image(tmp_path / "big.png", "big", size=(1200, 1800))
    a, b = new_id(), new_id()
    corpus.create_notebook(a, "a")
    corpus.create_notebook(b, "b")
    settings = RenderSettings(max_side=600)
    ingest(corpus, request_for(a, [big]), settings)
    ingest(corpus, request_for(b, [big]), settings)
    ra = project.read(corpus.notebook_dir(a), a)["pages"][0]["render"]
    rb = project.read(corpus.notebook_dir(b), b)["pages"][0]["render"]
    assert (ra["width"], ra["height"]) == (400, 600)
    assert ra["sha256"] == rb["sha256"]


# -- bad sources: a coded error naming the file, the notebook exactly as it was -------------


def _assert_refused(corpus, notebook, req, code: ErrorCode, name: str) -> TranscribeError:
    nb_dir = corpus.notebook_dir(notebook)
    before = snapshot(nb_dir)
    with pytest.raises(TranscribeError) as info:
        ingest(corpus, req)
    assert info.value.code == code
    assert name in str(info.value)
    assert snapshot(nb_dir) == before
    return info.value


def test_source_changed_since_planning_is_refused(corpus, notebook, tmp_path) -> None:
    files = pages(tmp_path, 3)
    req = request_for(notebook, files)
    make_image(files[1], "edited after the scan")
    _assert_refused(corpus, notebook, req, ErrorCode.SOURCE_CHANGED, "page 1.jpg")


def test_source_vanished_is_refused(corpus, notebook, tmp_path) -> None:
    files = pages(tmp_path, 3)
    req = request_for(notebook, files)
    files[2].unlink()
    _assert_refused(corpus, notebook, req, ErrorCode.SOURCE_MISSING, "page 2.jpg")


def test_corrupt_image_is_refused_naming_the_file(corpus, notebook, tmp_path) -> None:
    files = pages(tmp_path, 2)
    req = request_for(notebook, files)
    # Cut short after planning, with the plan's hash matching the damaged bytes, so only
    # decoding the staged copy can find the damage (the scan's tail check is bypassed).
    data = files[1].read_bytes()[: files[1].stat().st_size // 2]
    files[1].write_bytes(data)
    damaged = replace(req.sources[1], sha256=hashlib.sha256(data).hexdigest())
    req = replace(req, sources=(req.sources[0], damaged))
    _assert_refused(corpus, notebook, req, ErrorCode.CORRUPT_IMAGE, "page 1.jpg")


def test_decompression_bomb_is_refused(corpus, notebook, tmp_path) -> None:
    req = request_for(notebook, [make_image(tmp_path / "huge.png", "huge", size=(900, 900))])
    nb_dir = corpus.notebook_dir(notebook)
    before = snapshot(nb_dir)
    with pytest.raises(TranscribeError) as info:
        ingest(corpus, req, RenderSettings(max_pixels=500_000))
    assert info.value.code == ErrorCode.DECOMPRESSION_BOMB
    assert "huge.png" in str(info.value)
    assert snapshot(nb_dir) == before


def test_disk_full_during_staging_rolls_back(corpus, notebook, tmp_path) -> None:
    req = request_for(notebook, pages(tmp_path, 3))
    nb_dir = corpus.notebook_dir(notebook)
    before = snapshot(nb_dir)
    fsio.install_faults(fsio.FaultPlan(fail_at=12, errno=errno.ENOSPC, persistent=False))
    try:
        with pytest.raises(TranscribeError) as info:
            ingest(corpus, req, workers=1)
    finally:
        fsio.install_faults(None)
    assert info.value.code == ErrorCode.DISK_FULL
    assert "disk is full" in str(info.value)
    assert snapshot(nb_dir) == before


def test_cancel_while_staging_rolls_back(corpus, notebook, tmp_path) -> None:
    req = request_for(notebook, pages(tmp_path, 4))
    before = snapshot(corpus.notebook_dir(notebook))
    with pytest.raises(IngestCancelled):
        ingest(corpus, req, workers=1, should_stop=lambda: True)
    assert snapshot(corpus.notebook_dir(notebook)) == before


def test_missing_notebook_is_a_clear_error(corpus, tmp_path) -> None:
    req = request_for(new_id(), pages(tmp_path, 1))
    with pytest.raises(TranscribeError) as info:
        ingest(corpus, req)
    assert info.value.code == ErrorCode.NOTEBOOK_NOT_FOUND


def test_same_notebook_second_ingest_waits_or_is_refused(corpus, notebook, tmp_path) -> None:
    from transcribe_import.engine.storage import locks

    lock = locks.make_lock(corpus.notebook_dir(notebook) / ".ingest.lock")
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with lock:
            holding.set()
            release.wait(10)

    t = threading.Thread(target=hold)
    t.start()
    try:
        assert holding.wait(10)
        req = request_for(notebook, pages(tmp_path, 1))
        with pytest.raises(TranscribeError) as info:
            ingest(corpus, req, lock_timeout=0.2)
        assert info.value.code == ErrorCode.NOTEBOOK_BUSY
    finally:
        release.set()
        t.join()
    assert ingest(corpus, req).pages_added == 1  # once free, it goes through


def test_copy_of_a_source_tree_on_removable_media(corpus, notebook, tmp_path) -> None:
    """Sources are copied verbatim: the imported notebook does not depend on the original disk."""
    files = pages(tmp_path, 2)
    req = request_for(notebook, files)
    ingest(corpus, req)
    shutil.rmtree(tmp_path / "src")
    assert_notebook_whole(corpus, notebook)
