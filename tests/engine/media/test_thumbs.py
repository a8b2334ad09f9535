"""Thumbnails (media/thumbs.py): rendered small by the render's own path, decoded once per page
and kept in the corpus's cache by content."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from PIL import Image

from transcribe_import.engine import api
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.media import render, thumbs
from transcribe_import.engine.storage import fsio
from transcribe_import.engine.storage.corpus import Corpus

import media_factory as mf


@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The file of every page render started."""
    started: list[Path] = []
    real = render.render_pages

    def render_pages(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        started.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(render, "render_pages", render_pages)
    return started


def _side(png: bytes) -> int:
    with Image.open(io.BytesIO(png)) as im:
        return max(im.size)


def test_a_page_is_decoded_for_its_thumbnail_once_then_read_from_the_corpus_cache(
    tmp_path: Path, corpus: Corpus, renders: list[Path]
) -> None:
    path = mf.make_jpeg(tmp_path / "p.jpg", (1200, 1600), exif_orientation=6)
    sha, size = fsio.hash_file(path)
    kw = {"shown_as": "p.jpg", "corpus": corpus, "sha256": sha, "size": size}
    first = api.render_preview(path, "image/jpeg", 0, 160, **kw)  # type: ignore[arg-type]
    assert _side(first) == 160
    with Image.open(io.BytesIO(first)) as im:
        assert im.width > im.height  # turned upright, as the page's render will be
    again = api.render_preview(path, "image/jpeg", 0, 160, **kw)  # type: ignore[arg-type]
    assert again == first and renders == [path]
    assert list(thumbs.cache_dir(corpus.root).rglob("*.png")) == [
        thumbs.cache_dir(corpus.root) / sha[:2] / f"{sha}-0-160.png"
    ]
    bigger = api.render_preview(path, "image/jpeg", 0, 320, **kw)  # type: ignore[arg-type]
    assert _side(bigger) == 320 and len(renders) == 2
    for _ in range(2):  # a page up close is not kept: rendered each time
        api.render_preview(path, "image/jpeg", 0, 1600, **kw)  # type: ignore[arg-type]
    assert len(renders) == 4 and len(list(thumbs.cache_dir(corpus.root).rglob("*.png"))) == 2


def test_a_torn_entry_is_a_miss_and_a_changed_file_is_refused(
    tmp_path: Path, corpus: Corpus, renders: list[Path]
) -> None:
    path = mf.make_pdf(tmp_path / "b.pdf", 2)
    sha, size = fsio.hash_file(path)
    cache = thumbs.cache_dir(corpus.root)
    entry = cache / sha[:2] / f"{sha}-1-96.png"
    entry.parent.mkdir(parents=True)
    entry.write_bytes(b"")  # as a crash can leave it: the cache is written without fsync
    png = thumbs.thumbnail(
        path, "application/pdf", 1, 96, shown_as="b.pdf", sha256=sha, size=size, cache=cache
    )
    assert _side(png) == 96 and entry.read_bytes() == png and len(renders) == 1
    with pytest.raises(TranscribeError) as caught:
        thumbs.thumbnail(
            path, "application/pdf", 0, 96, shown_as="b.pdf", sha256=sha, size=size + 1, cache=cache
        )
    assert caught.value.code is ErrorCode.SOURCE_CHANGED and "b.pdf" in str(caught.value)


def _five_entries(cache: Path) -> Path:
    """A cache of five 100-byte entries, 0.png the oldest written, 4.png the newest."""
    for i in range(5):
        entry = cache / "ab" / f"{i}.png"
        entry.parent.mkdir(parents=True, exist_ok=True)
        entry.write_bytes(b"x" * 100)
        os.utime(entry, ns=(i * 10**9, i * 10**9))
    return cache


def test_the_cache_keeps_to_its_limit_dropping_the_oldest(tmp_path: Path) -> None:
    cache = _five_entries(tmp_path / "thumbs")
    thumbs.prune(cache, limit=250)
    assert sorted(p.name for p in (cache / "ab").iterdir()) == ["3.png", "4.png"]


def test_an_entry_removed_while_the_cache_is_pruned_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two prunes at once (the window's thumbnails and a commit's): an entry the other one
    removed between the listing and its stat is not there, and the rest is still pruned."""
    cache = _five_entries(tmp_path / "thumbs")
    real_scandir = os.scandir

    class Listing:
        """os.scandir of the folder, with entry 4 removed just after it was listed."""

        def __init__(self, path: str) -> None:
            self.inner = real_scandir(path)

        def __enter__(self) -> Listing:
            return self

        def __exit__(self, *exc: object) -> None:
            self.inner.close()

        def __iter__(self):  # type: ignore[no-untyped-def]
            for f in self.inner:
                if f.name == "4.png":
                    os.unlink(f.path)
                yield f

    monkeypatch.setattr(
        thumbs.os, "scandir", lambda p: Listing(p) if str(p).endswith("ab") else real_scandir(p)
    )
    thumbs.prune(cache, limit=250)
    assert sorted(p.name for p in (cache / "ab").iterdir()) == ["2.png", "3.png"]


def test_a_commit_keeps_the_thumbnails_of_its_pages_made_from_their_renders_by_either_renderer(
    tmp_path: Path, corpus: Corpus, renders: list[Path]
) -> None:
    from helpers.runs import commit_plan, plan_for

    shelf = tmp_path / "shelf"
    mf.make_jpeg(shelf / "diary" / "p1.jpg", (1200, 1600), exif_orientation=6)
    mf.make_pdf(shelf / "diary" / "p2.pdf", 2)
    # Pages Pillow renders (libvips does not read them): a phone's HEIC photo, a CMYK scan.
    mf.make_heic(shelf / "diary" / "p3.heic", (900, 1200))
    mf.make_jpeg(shelf / "diary" / "p4.jpg", (900, 1200), mode="CMYK")
    plan = plan_for(corpus, shelf)
    commit_plan(corpus, plan)
    started = len(renders)
    for source in plan.items[0].sources:
        for page in source.pages:
            for side in thumbs.COMMIT_SIDES:
                png = api.render_preview(
                    Path(source.provenance.path),
                    source.media_type,
                    page.page_index,
                    side,
                    shown_as=source.provenance.rel,
                    corpus=corpus,
                    sha256=source.sha256,
                    size=source.provenance.size,
                )
                assert _side(png) == side
                if source.name == "p1.jpg":
                    with Image.open(io.BytesIO(png)) as im:
                        assert im.width > im.height  # upright, as the render is
    # Each from the cache: not one page decoded again for the grid.
    assert len(renders) == started
