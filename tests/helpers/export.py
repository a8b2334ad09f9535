"""Export test helpers (engine, CLI and crash tests): a corpus to export, an export drained,
a bag checked.

The bag checks here are written out on their own (they do not call the app's
``chain_hash``), so a mistake in the app cannot hide behind itself; ``refusal`` alone runs
the app's one check of a bag (``bag_format.verify_bag``), to pin what it says.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.base.progress import drive
from transcribe_import.engine.storage import fsio
from transcribe_import.engine.storage.bag_format import verify_bag
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import ingest_pages, new_notebook
from helpers.shelves import make_pages

T = TypeVar("T")

# A key no version of the importer knows, in a layout it would not write: the bag must carry
# these bytes exactly.
FOREIGN_KEY = "x-transcriptions"


@dataclass(frozen=True)
class ShelfCorpus:
    corpus: Corpus
    data: Path
    notebooks: tuple[str, ...]  # oldest first


def make_corpus(root: Path, pages: tuple[int, ...] = (3, 2)) -> ShelfCorpus:
    """A corpus with one notebook per entry of ``pages``, each with that many JPEG pages.

    The first notebook's project.json also holds a foreign key, written in a layout of its
    own (compact, keys in another order), as another tool of the family would leave it.
    """
    data = root / "data"
    corpus = Corpus.open(data)
    ids = []
    for n, count in enumerate(pages, 1):
        nbid = new_notebook(corpus, f"Notebook {n}")
        if count:
            ingest_pages(corpus, nbid, make_pages(root / "scans" / f"nb{n}", count, tag=f"{n}-"))
        ids.append(nbid)
    first = corpus.notebook_dir(ids[0]) / "project.json"
    doc = json.loads(first.read_bytes())
    doc[FOREIGN_KEY] = {"page-1": "Dear diary — é ü ß", "nested": [1, 2.5, None]}
    fsio.atomic_write(first, json.dumps(dict(reversed(doc.items())), ensure_ascii=False).encode())
    return ShelfCorpus(corpus, data, tuple(ids))


def drain(gen: Generator[Any, None, T]) -> tuple[list[Any], T]:
    """Every event of a generator, and what it returns."""
    events = []
    while True:
        try:
            events.append(next(gen))
        except StopIteration as end:
            return events, end.value


def listed_files(corpus: Corpus, notebook_id: str) -> dict[str, str]:
    """The bag path -> sha256 of every file the notebook's project.json lists, plus itself."""
    folder = corpus.notebook_dir(notebook_id)
    raw = (folder / "project.json").read_bytes()
    doc = json.loads(raw)
    base = f"data/notebooks/{notebook_id}"
    out = {f"{base}/project.json": hashlib.sha256(raw).hexdigest()}
    for s in doc["sources"]:
        out[f"{base}/{s['path']}"] = s["sha256"]
    for p in doc["pages"]:
        out[f"{base}/{p['render']['path']}"] = p["render"]["sha256"]
    return out


def independent_chain(files: dict[str, str]) -> str:
    """The chain hash exactly as docs/formats.md words it, written again from the words."""
    h = hashlib.sha256(b"").digest()
    for path in sorted(files, key=lambda p: p.encode("utf-8")):
        h = hashlib.sha256(h + path.encode("utf-8") + b"\x00" + files[path].encode()).digest()
    return h.hex()


def payload_files(bag: Path) -> dict[str, str]:
    """Bag path -> sha256 of every file under ``bag/data``."""
    return {
        p.relative_to(bag).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted((bag / "data").rglob("*"))
        if p.is_file()
    }


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes (to show that nothing changed)."""
    if not root.exists():
        return {}
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def bag_info(bag: Path) -> dict[str, str]:
    out = {}
    for line in (bag / "bag-info.txt").read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition(": ")
        out[key] = value
    return out


def refusal(bag: Path) -> TranscribeError:
    """The app's check of the bag refuses it (the test fails if it does not): why."""
    with pytest.raises(TranscribeError) as info:
        drive(verify_bag(bag))
    return info.value
