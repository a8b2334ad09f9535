"""Which source hashes a notebook, or the whole corpus, already holds, without re-reading it all.

A corpus-wide check keeps ``corpus/cache/sha-index.json``: per notebook, the
size and mtime of its ``project.json`` and the sha256 of its sources. A check
stats every manifest (cheap) and re-reads only those that changed since the
cache was written. The cache is derived and disposable: a damaged one is simply
rebuilt, and it is never an authority (commit re-reads the target manifest).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import orjson

from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.storage import fsio, project

if TYPE_CHECKING:
    from transcribe_import.engine.storage.corpus import Corpus

CACHE_FORMAT = "transcribe.sha-index-cache"


def notebook_hashes(corpus: Corpus, notebook_id: str) -> dict[str, str]:
    """sha256 -> source_id for one notebook, read from its manifest now."""
    doc = project.read(corpus.notebook_dir(notebook_id), notebook_id)
    return {
        s["sha256"]: s["id"]
        for s in doc["sources"]
        if isinstance(s, dict) and isinstance(s.get("sha256"), str)
    }


class CorpusHashIndex:
    """sha256 -> the notebooks holding it, across the corpus, refreshed incrementally."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self.path = corpus.root / "cache" / "sha-index.json"
        self._entries: dict[str, dict[str, Any]] = {}
        self._by_sha: dict[str, set[str]] = {}
        self._mutex = threading.Lock()
        self.manifests_read = 0  # for tests and benchmarks: how many project.json were parsed

    def _load_cache(self) -> None:
        try:
            doc = orjson.loads(fsio.read_bytes(self.path))
        except (OSError, orjson.JSONDecodeError):
            return
        if isinstance(doc, dict) and doc.get("format") == CACHE_FORMAT:
            entries = doc.get("notebooks")
            if isinstance(entries, dict):
                self._entries = entries

    def refresh(self) -> None:
        with self._mutex:
            if not self._entries:
                self._load_cache()
            changed = False
            fresh: dict[str, dict[str, Any]] = {}
            for nbid in self.corpus.index_entries():
                manifest = self.corpus.notebook_dir(nbid) / project.PROJECT_FILE
                try:
                    st = fsio.stat(manifest)
                except FileNotFoundError:
                    continue
                old = self._entries.get(nbid)
                if old and old.get("mtime_ns") == st.st_mtime_ns and old.get("size") == st.st_size:
                    fresh[nbid] = old
                    continue
                try:
                    shas = sorted(notebook_hashes(self.corpus, nbid))
                except TranscribeError:
                    continue  # doctor reports unloadable notebooks; nothing to dedupe against
                self.manifests_read += 1
                fresh[nbid] = {"mtime_ns": st.st_mtime_ns, "size": st.st_size, "shas": shas}
                changed = True
            changed = changed or fresh.keys() != self._entries.keys()
            self._entries = fresh
            self._by_sha = {}
            for nbid, entry in fresh.items():
                for sha in entry["shas"]:
                    self._by_sha.setdefault(sha, set()).add(nbid)
            if changed:
                self._save()

    def _save(self) -> None:
        doc = {"format": CACHE_FORMAT, "schema_version": 1, "notebooks": self._entries}
        try:
            fsio.make_dirs(self.path.parent)
            fsio.atomic_write(self.path, orjson.dumps(doc))
        except OSError:
            pass  # a cache that cannot be saved costs time on the next check, nothing else

    def notebooks_with(self, sha256: str) -> set[str]:
        return set(self._by_sha.get(sha256, ()))
