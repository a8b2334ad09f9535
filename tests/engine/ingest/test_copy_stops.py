"""A stop request is honoured while a large source is being copied or a page rendered, not only
between pages."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from transcribe_import.engine.ingest import staging
from transcribe_import.engine.ingest.transaction import IngestCancelled, ingest
from transcribe_import.engine.storage import fsio
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import assert_notebook_whole, request_for


def test_a_stop_during_the_copy_of_a_large_source_rolls_the_ingest_back(
    corpus: Corpus, notebook: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An uncompressed TIFF of noise, several MiB: the copy takes several chunks.
    big = tmp_path / "big.tif"
    Image.frombytes("RGB", (1400, 1000), os.urandom(1400 * 1000 * 3)).save(big, compression="raw")
    assert big.stat().st_size > 3 * fsio.CHUNK
    req = request_for(notebook, [big])
    rendered: list[Path] = []
    real_render = staging.rendering.render_pages

    def render_pages(path: Path, *args: Any, **kw: Any) -> Any:
        rendered.append(path)
        return real_render(path, *args, **kw)

    monkeypatch.setattr(staging.rendering, "render_pages", render_pages)
    asked: list[int] = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) >= 2  # the second time: one MiB into the copy, before any render

    with pytest.raises(IngestCancelled):
        ingest(corpus, req, workers=1, should_stop=stop)
    assert len(asked) == 2 and rendered == []  # stopped inside the copy
    doc = assert_notebook_whole(corpus, notebook)
    assert doc["pages"] == [] and doc["sources"] == []
    nb_dir = corpus.notebook_dir(notebook)
    assert not (nb_dir / ".staging").exists() or not any((nb_dir / ".staging").iterdir())


def test_a_stop_during_the_render_of_a_page_rolls_the_ingest_back(
    corpus: Corpus, notebook: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = tmp_path / "big.png"
    Image.frombytes("RGB", (2000, 1500), os.urandom(2000 * 1500 * 3)).save(big, compress_level=1)
    req = request_for(notebook, [big])
    copied = threading.Event()
    real_copy = staging._copy_verified

    def copy(*args: Any, **kw: Any) -> Any:
        result = real_copy(*args, **kw)
        copied.set()
        return result

    monkeypatch.setattr(staging, "_copy_verified", copy)
    written: list[Path] = []
    real_write = fsio.write_new

    def write_new(path: Path, data: bytes) -> Any:
        written.append(path)
        return real_write(path, data)

    monkeypatch.setattr(staging.fsio, "write_new", write_new)
    asked_while_rendering: list[int] = []

    def stop() -> bool:
        if not copied.is_set():
            return False
        asked_while_rendering.append(1)  # libvips asks as it computes the page
        return True

    with pytest.raises(IngestCancelled):
        ingest(corpus, req, workers=1, should_stop=stop)
    # Stopped inside the page's render: asked, and no render was ever written.
    assert asked_while_rendering and written == []
    doc = assert_notebook_whole(corpus, notebook)
    assert doc["pages"] == [] and doc["sources"] == []
