"""Looks already made, kept in the corpus: a page is decoded for its look once.

``cache/looks-v3.jsonl`` under the corpus folder holds a line for each page a look pass
decoded: ``[page key, look]``, the key naming the page by its file's bytes and its index
(``lookalikes.page_key``), the look as a plan keeps it (``ink1:`` and 144 hex digits, or
``ink1:blank`` for a page with no ink), or null for a page that has none (a PDF page that is
not one scan); a look made since its measures are (media/page_measures.py) has them after it.
(v1 held the looks made of grey levels before ink1, v2 looks without measures; neither is
read.)
Keyed by content, it serves every plan of the same files: a plan opened again (Open
Plan…, Continue Review), whose pages without a look were otherwise decoded again each
time, and a new scan of the same folders (Scan Again after a run that did not land
whole), whose pass then decodes only pages it has not seen.

Derived and disposable, like the thumbnails beside it: lines are appended without fsync,
a line that cannot be read (torn by a crash, damaged) is skipped and that page looked at
again, a cache that cannot be written costs time and nothing else, and once it holds
``LIMIT`` lines it is written again with the latest half. Only a look made from the bytes
of the file the plan names is kept (a file gone or changed since its scan gets none here).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from pathlib import Path

import orjson

from transcribe_import.engine.media.lookalike import is_blank, look_from_hex
from transcribe_import.engine.storage import fsio

log = logging.getLogger(__name__)

# The version names the looks: bump it when a page's look would be made differently.
CACHE_FILE = Path("cache") / "looks-v3.jsonl"
# About 200 bytes a line: 400,000 lines (80 MB) before the oldest half is let go.
LIMIT = 400_000

_lock = threading.Lock()  # one writer at a time in this process


def _entry(line: bytes) -> tuple[str, str | None] | None:
    """A line's page key and look; None when the line is not one (torn, damaged)."""
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str)):
        return None
    key, look = value
    if "#" not in key or not (
        look is None or (isinstance(look, str) and (is_blank(look) or look_from_hex(look)))
    ):
        return None
    return key, look


def _lines(looks: Mapping[str, str | None]) -> bytes:
    """``looks`` as the cache's lines, one a page."""
    return b"".join(orjson.dumps([key, look]) + b"\n" for key, look in looks.items())


class LookCache:
    """The looks kept in one corpus (``corpus_root``)."""

    def __init__(self, corpus_root: Path) -> None:
        self.path = corpus_root / CACHE_FILE

    def read(self) -> dict[str, str | None]:
        """Every look kept (page key → look or None); nothing when there is no cache. A
        cache of ``LIMIT`` lines or more is written again with its latest half."""
        try:
            data = self.path.read_bytes()
        except OSError:
            return {}
        lines = data.splitlines()
        looks: dict[str, str | None] = {}
        for line in lines:  # a line at a time: the GIL is handed round between them
            entry = _entry(line)
            if entry is not None:
                looks.pop(entry[0], None)  # kept in the order last written
                looks[entry[0]] = entry[1]
        if len(lines) >= LIMIT:
            looks = dict(list(looks.items())[-(LIMIT // 2) :])
            self._rewrite(looks)
        return looks

    def add(self, looks: Mapping[str, str | None]) -> None:
        """Keep ``looks`` (page key → look or None), appended; a failure is only logged."""
        if not looks:
            return
        text = _lines(looks)
        with _lock:
            try:
                fsio.make_dirs(self.path.parent)
                fsio.append_disposable(self.path, text)
            except OSError as exc:  # a link on the way (refused by fsio's guard) included
                log.info("looks not kept in %s: %s", self.path, exc)

    def _rewrite(self, looks: Mapping[str, str | None]) -> None:
        text = _lines(looks)
        with _lock:
            try:
                fsio.write_disposable(self.path, text)
            except OSError as exc:
                log.info("look cache %s not written again: %s", self.path, exc)
