"""Page thumbnails for the review page: rendered by the engine off the GUI thread, kept in an LRU.

A view asks ``request`` for each page it paints; the first ask schedules a render on the
cache's own QThreadPool and returns None, and ``ready`` says when the pixmap is there.
The engine renders each page shrunk on load and, given the corpus, keeps it in the
corpus's thumbnail cache, so a page is decoded for its thumbnail once, not once per window,
and hands back its pixels (``api.preview_pixels``); this module holds no decoding of its own.
The job is given plain values (a path, a media type, a page index), never a plan object
or a widget, and hands back a QImage: QImage is safe to build on any thread, while a
QPixmap exists only on the GUI thread, so the conversion happens in the slot.
"""

from __future__ import annotations

import enum
import itertools
import logging
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import shiboken6
from PySide6.QtCore import (
    QCoreApplication,
    QObject,
    QRunnable,
    QThread,
    QThreadPool,
    Signal,
    Slot,
)
from PySide6.QtGui import QImage, QPixmap

from transcribe_import.engine import api
from transcribe_import.engine.api import Corpus
from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.planning.plan import PlanSource

log = logging.getLogger(__name__)

# Small enough to render a page in a few milliseconds, big enough for a HiDPI table row.
THUMBNAIL_SIDE = 160
DEFAULT_CAPACITY = 500
# Rendering is CPU-bound and the machine is shared with the import itself: two at most.
DEFAULT_THREADS = 2

_Key = tuple[str, int]  # (source_id, page_index)

# Every cache made in this process, so tests (and quitting) can tell whether one still works.
_caches: weakref.WeakSet[ThumbnailCache] = weakref.WeakSet()


def busy_caches() -> list[ThumbnailCache]:
    """The caches that have a render job queued or running now."""
    return [c for c in list(_caches) if shiboken6.isValid(c) and c.is_busy()]


class _Broken(enum.Enum):
    """A page whose render failed: remembered, so painting it again does not retry it."""

    BROKEN = enum.auto()


class _Relay(QObject):
    """Carries a job's result to the GUI thread (a queued signal: it lives on the GUI thread).

    A child of the cache made after its pool, so it outlives the pool's final wait.
    """

    loaded = Signal(object, int, object)  # key, generation, QImage | failure message


@dataclass(frozen=True)
class _Render:
    """One page to render: plain values only, never a plan object or a widget."""

    key: _Key
    generation: int
    path: Path
    media_type: str
    page_index: int
    shown_as: str  # how the page is named in a failure
    side: int
    sha256: str  # the file's content as planned: its entry in the corpus's cache
    size: int  # as planned: a file changed since is refused, not shown
    corpus: Corpus | None

    def image(self) -> QImage | str:
        """The page as a QImage (safe to build on any thread), or why there is none."""
        try:
            pixels = api.preview_pixels(
                self.path,
                self.media_type,
                self.page_index,
                self.side,
                shown_as=self.shown_as,
                corpus=self.corpus,
                sha256=self.sha256,
                size=self.size,
            )
            # Over the engine's pixels, not by Qt's image readers on this thread: they take
            # Qt's signal-slot lock while this thread holds the GIL (api.preview_pixels).
            return QImage(
                pixels.rgba,
                pixels.width,
                pixels.height,
                4 * pixels.width,
                QImage.Format.Format_RGBA8888,
            ).copy()
        except (TranscribeError, OSError, ValueError) as exc:
            return str(exc)
        except Exception as exc:  # noqa: BLE001 - an escaping error would be lost in the pool
            log.exception("thumbnail of %s failed unexpectedly", self.shown_as)
            return f"{self.shown_as}: no preview ({exc!r})"


class _RenderJob(QRunnable):
    def __init__(self, relay: _Relay, render: _Render) -> None:
        super().__init__()
        self._relay = relay
        self._render = render

    def run(self) -> None:
        api.lower_this_thread()  # a render waits behind the window's thread (base/background)
        r = self._render
        self._relay.loaded.emit(r.key, r.generation, r.image())


class ThumbnailCache(QObject):
    """Thumbnails by (source_id, page_index): an LRU of pixmaps, filled by background renders."""

    ready = Signal(str, int)  # source_id, page_index: request() now has a pixmap (or failed)

    def __init__(
        self,
        capacity: int = DEFAULT_CAPACITY,
        threads: int = DEFAULT_THREADS,
        parent: QObject | None = None,
        *,
        side: int = THUMBNAIL_SIDE,
        corpus: Corpus | None = None,
    ) -> None:
        super().__init__(parent)
        # The renderer's library loaded here, as the window is made, not by the first
        # render's worker mid-scan (its import holds the GIL: a 0.1 s stall of the window).
        api.load_renderer()
        self.side = side  # the longest side the engine renders each page at
        self._corpus = corpus  # whose thumbnail cache keeps the renders (None: none kept)
        self._capacity = capacity
        self._done: OrderedDict[_Key, QPixmap | _Broken] = OrderedDict()
        self._failures: dict[_Key, str] = {}
        self._pending: set[_Key] = set()
        self._generation = 0
        self._closed = False
        # Later requests run first: they are the rows on screen now, not the ones scrolled past.
        self._priority = itertools.count()
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(max(1, threads))
        self._pool.setThreadPriority(QThread.Priority.LowPriority)  # as the workers' (workers.py)
        self._relay = _Relay(self)
        self._relay.loaded.connect(self._on_loaded)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)
        _caches.add(self)

    def request(self, source: PlanSource, page_index: int) -> QPixmap | None:
        """The page's thumbnail if it is cached; otherwise None, and a render is scheduled."""
        key = (source.source_id, page_index)
        found = self._done.get(key)
        if found is not None:
            self._done.move_to_end(key)
            return None if found is _Broken.BROKEN else found
        if key not in self._pending and not self._closed:
            self._pending.add(key)
            render = _Render(
                key,
                self._generation,
                source.provenance.fs_path,
                source.media_type,
                page_index,
                source.provenance.rel or source.provenance.path,
                self.side,
                source.sha256,
                source.provenance.size,
                self._corpus,
            )
            self._pool.start(_RenderJob(self._relay, render), next(self._priority))
        return None

    def failure(self, source_id: str, page_index: int) -> str | None:
        """Why the page has no thumbnail, once its render failed; None otherwise."""
        return self._failures.get((source_id, page_index))

    def is_busy(self) -> bool:
        return bool(self._pending) or self._pool.activeThreadCount() > 0

    def wait_idle(self, msecs: int = -1) -> bool:
        """Wait for every queued render to finish (their results arrive as queued signals)."""
        return self._pool.waitForDone(msecs)

    def cancel(self) -> None:
        """Drop queued renders and wait for the running ones; what is cached stays."""
        self._pool.clear()
        self._pool.waitForDone()
        # Results of the jobs that did run are still queued to us; those of dropped ones never
        # come, so forget them all and let a later request schedule them again.
        self._generation += 1
        self._pending.clear()

    def clear(self) -> None:
        """Cancel every render and forget every thumbnail."""
        self.cancel()
        self._done.clear()
        self._failures.clear()

    @Slot()
    def shutdown(self) -> None:
        """Cancel every render and schedule none again (the window is closing)."""
        self._closed = True
        self.cancel()

    @Slot(object, int, object)
    def _on_loaded(self, key: _Key, generation: int, result: QImage | str) -> None:
        if generation != self._generation:
            return  # cancelled or cleared since it was asked for
        self._pending.discard(key)
        if isinstance(result, QImage):
            self._done[key] = QPixmap.fromImage(result)
        else:
            self._done[key] = _Broken.BROKEN
            self._failures[key] = result
        self._done.move_to_end(key)
        while len(self._done) > self._capacity:
            old, _ = self._done.popitem(last=False)
            self._failures.pop(old, None)
        self.ready.emit(key[0], key[1])
