"""The window's thumbnails: rendered by the engine off the window's thread, and a page decoded
once for them, whichever window asks again (the corpus's thumbnail cache)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from transcribe_import.engine.media import render, render_vips
from transcribe_import.engine.planning.planner import build_plan
from transcribe_import.engine.planning.scan import run_scan
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.thumbnails import ThumbnailCache

from media_factory import make_jpeg, make_pdf

WAIT_MS = 10_000


def test_a_second_window_shows_thumbnails_without_decoding_a_page_again(
    qtbot: QtBot, corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_jpeg(tmp_path / "shelf" / "nb" / "p1.jpg", (900, 1200))
    make_pdf(tmp_path / "shelf" / "nb" / "p2.pdf", 2)
    plan = build_plan(corpus, run_scan([tmp_path / "shelf"]))
    sources = plan.items[0].sources
    pages = [(s, p.page_index) for s in sources for p in s.pages]
    assert len(pages) == 3
    threads: list[int] = []
    real = render.render_pages

    def render_pages(*args, **kwargs):  # type: ignore[no-untyped-def]
        threads.append(threading.get_ident())
        return real(*args, **kwargs)

    monkeypatch.setattr(render, "render_pages", render_pages)
    for window in range(2):
        cache = ThumbnailCache(corpus=corpus)
        for source, index in pages:
            assert cache.request(source, index) is None  # scheduled, never rendered here
        qtbot.waitUntil(
            lambda c=cache: all(c.request(s, i) is not None for s, i in pages), timeout=WAIT_MS
        )
        assert all(cache.failure(s.source_id, i) is None for s, i in pages)
        assert len(threads) == 3, f"window {window + 1}"
        cache.shutdown()
    assert threading.get_ident() not in threads


def test_the_renderer_is_loaded_as_the_cache_is_made_not_by_a_render(qtbot: QtBot) -> None:
    # Loaded by the first render's worker, libvips' import held the GIL for 0.1 s while
    # a scan of 100,000 pages was on screen (bench/bench_gui_shelf.py).
    render_vips._loaded.cache_clear()
    cache = ThumbnailCache()
    assert render_vips._loaded.cache_info().currsize == 1
    assert not cache.is_busy()
    cache.shutdown()


def test_a_thumbnail_is_made_over_the_engines_pixels_not_by_qts_image_readers(
    qtbot: QtBot, corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The thumbnail's workers never use Qt's image readers: a reader probing its plugins
    takes Qt's signal-slot lock while the worker holds the GIL, and a window's thread holding
    that lock while it waited for the GIL hung the window (api.preview_pixels). The pixmap is
    the page's preview all the same, pixel for pixel."""
    from PySide6.QtGui import QImage

    from transcribe_import.engine import api

    make_jpeg(tmp_path / "shelf" / "nb" / "p1.jpg", (900, 1200))
    plan = build_plan(corpus, run_scan([tmp_path / "shelf"]))
    [source] = plan.items[0].sources

    def no_reader(*_args: object) -> QImage:
        raise AssertionError("a Qt image reader was used on a thumbnail's worker")

    monkeypatch.setattr(QImage, "fromData", staticmethod(no_reader))
    cache = ThumbnailCache(corpus=corpus)
    assert cache.request(source, 0) is None
    qtbot.waitUntil(lambda: cache.request(source, 0) is not None, timeout=WAIT_MS)
    assert cache.failure(source.source_id, 0) is None
    shown = cache.request(source, 0)
    assert shown is not None
    cache.shutdown()
    monkeypatch.undo()
    png = api.render_preview(
        source.provenance.fs_path, source.media_type, 0, cache.side, shown_as="p1.jpg"
    )
    by_qt = QImage.fromData(png).convertToFormat(QImage.Format.Format_RGBA8888)
    ours = shown.toImage().convertToFormat(QImage.Format.Format_RGBA8888)
    assert (ours.width(), ours.height()) == (by_qt.width(), by_qt.height())
    assert ours == by_qt


def test_a_preview_that_cannot_be_decoded_is_said_so(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from transcribe_import.engine import api
    from transcribe_import.engine.api import corpus as api_corpus
    from transcribe_import.engine.base.errors import ErrorCode, TranscribeError

    make_jpeg(tmp_path / "p1.jpg", (300, 400))
    monkeypatch.setattr(api_corpus, "render_preview", lambda *a, **k: b"\x89PNG\r\n\x1a\nbroken")
    with pytest.raises(TranscribeError) as refused:
        api.preview_pixels(tmp_path / "p1.jpg", "image/jpeg", 0, 256, shown_as="p1.jpg")
    assert refused.value.code is ErrorCode.CORRUPT_IMAGE
    assert str(refused.value).startswith("p1.jpg: the preview is unreadable")
