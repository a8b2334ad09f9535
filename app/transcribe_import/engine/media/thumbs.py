"""Page thumbnails: a page rendered small by the render's own path, kept on disk by content.

A thumbnail is ``render.render_pages`` at a small ``max_side``, so it is shrunk on load
(a JPEG decoded at 1/2, 1/4 or 1/8 scale, a PDF page rasterised at thumbnail scale) and
turned upright and into sRGB exactly as the page's render will be. Each is kept in the
corpus's cache folder, named by the file's sha256, the page and the size: a page is
decoded for its thumbnail once, whichever plan, window or session asks for it again.

The cache is derived and disposable, as ``cache/sha-index.json`` is: an entry is written
without fsync (a torn one is a miss, never a wrong picture: it is checked for the PNG
signature), a cache that cannot be written costs time, nothing else, and the oldest
entries are removed once the folder passes ``CACHE_LIMIT`` bytes. Every write and removal
goes through ``fsio``, whose guard refuses a cache folder that is a link (doctor names it).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

from transcribe_import.engine.media.kinds import RenderSettings
from transcribe_import.engine.storage import fsio

log = logging.getLogger(__name__)

# Under the corpus folder, beside cache/sha-index.json. The version names the rendering:
# bump it when a thumbnail of the same bytes would look different.
CACHE_FOLDER = Path("cache") / "thumbnails-v1"
CACHE_LIMIT = 256 * 1024 * 1024
# Thumbnails up to this size are kept (the grid's zoom goes to 320 px); a page shown up
# close is a few megabytes, rendered when asked (the viewer keeps the last few in memory).
CACHE_MAX_SIDE = 512
# The sizes a commit keeps of each page it renders, made from the render in memory (no
# decode of their own): the window's grid asks for 160 px, and for 320 px once zoomed
# (gui/thumbnails.py THUMBNAIL_SIDE, gui/pages/review_grid.py LARGE_SIDE).
COMMIT_SIDES = (320, 160)
# How many entries are written between two looks at the folder's size.
_PRUNE_EVERY = 500

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_MAX_ENTRY = 16 * 1024 * 1024

_writes_lock = threading.Lock()
_writes = 0


def cache_dir(corpus_root: Path) -> Path:
    """The thumbnail cache of the corpus at ``corpus_root``."""
    return corpus_root / CACHE_FOLDER


def thumbnail(
    path: Path,
    media_type: str,
    page_index: int,
    side: int,
    *,
    shown_as: str,
    sha256: str | None = None,
    size: int | None = None,
    cache: Path | None = None,
) -> bytes:
    """Page ``page_index`` of a page file as a PNG no larger than ``side`` pixels.

    From ``cache`` when it holds this page of the file whose content is ``sha256``;
    otherwise rendered (``size``: the file's planned size, any other is refused as
    ``source_changed``) and kept there if ``side`` is at most ``CACHE_MAX_SIDE``.
    Raises TranscribeError naming ``shown_as``.
    """
    entry = None
    if cache is not None and sha256 and side <= CACHE_MAX_SIDE:
        entry = _entry(cache, sha256, page_index, side)
        found = _read_entry(entry)
        if found is not None:
            return found
    from transcribe_import.engine.media.render import render_pages

    pages = render_pages(
        path, media_type, [page_index], RenderSettings(max_side=side), shown_as, size
    )
    png = next(iter(pages)).png
    if entry is not None and cache is not None:
        _write_entry(cache, entry, png)
    return png


def rgba_pixels(png: bytes) -> tuple[int, int, bytes]:
    """A thumbnail's PNG as its width, height and pixels: RGBA, a byte each, rows packed.
    Raises OSError or ValueError when ``png`` is not a PNG Pillow can read."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(png), formats=["PNG"]) as im:
        rgba = im.convert("RGBA")
    return rgba.width, rgba.height, rgba.tobytes()


def keeper(cache: Path, sha256: str) -> Callable[[int, int, bytes], None]:
    """What a commit hands its renders, to keep each thumbnail (page, side, PNG) they make of
    the file whose content is ``sha256``: the grid of a notebook just imported shows them
    without decoding its pages again."""

    def keep(page_index: int, side: int, png: bytes) -> None:
        _write_entry(cache, _entry(cache, sha256, page_index, side), png)

    return keep


def _entry(cache: Path, sha256: str, page_index: int, side: int) -> Path:
    return cache / sha256[:2] / f"{sha256}-{page_index}-{side}.png"


def _read_entry(entry: Path) -> bytes | None:
    try:
        data = fsio.read_bytes(entry, max_bytes=_MAX_ENTRY)
    except FileNotFoundError:
        return None
    except OSError as exc:
        log.info("thumbnail cache entry %s cannot be read: %s", entry, exc)
        return None
    return data if data.startswith(_PNG_SIGNATURE) else None


def _write_entry(cache: Path, entry: Path, png: bytes) -> None:
    global _writes
    try:
        fsio.make_dirs(entry.parent)
        fsio.write_disposable(entry, png)
    except OSError as exc:  # a link on the way (refused by fsio's guard) included
        log.info("thumbnail cache entry %s not kept: %s", entry, exc)
        return
    with _writes_lock:
        _writes += 1
        due = _writes % _PRUNE_EVERY == 1
    if due:
        prune(cache)


def _entries(folder: str) -> list[tuple[int, int, str]]:
    """(written, size, path) of each entry of one cache folder; an entry removed meanwhile (by
    another thread's prune, or a window's and a commit's at once) is simply not there."""
    out = []
    with os.scandir(folder) as files:
        for f in files:
            try:
                st = f.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            out.append((st.st_mtime_ns, st.st_size, f.path))
    return out


def prune(cache: Path, limit: int = CACHE_LIMIT) -> None:
    """Remove the least recently written entries until the cache holds ``limit`` bytes."""
    entries = []
    try:
        with os.scandir(cache) as folders:
            for folder in folders:
                if folder.is_dir(follow_symlinks=False):
                    entries.extend(_entries(folder.path))
    except OSError as exc:
        log.info("thumbnail cache %s cannot be listed: %s", cache, exc)
        return
    total = sum(size for _, size, _ in entries)
    for _, size, name in sorted(entries):
        if total <= limit:
            break
        with contextlib.suppress(OSError):
            fsio.remove(Path(name))
            total -= size
