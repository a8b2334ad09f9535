"""Helpers for engine tests: notebooks, ingest requests with preallocated ids, notebook checks.

Page files come from ``media_factory.make_image`` (``page_image`` is the same function,
under the name older tests use); folders of them from ``helpers.shelves``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import orjson

from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.ingest.placement import Placement
from transcribe_import.engine.ingest.transaction import (
    IngestRequest,
    PageSpec,
    SourceSpec,
    ingest,
)
from transcribe_import.engine.media import decode
from transcribe_import.engine.planning.plan import PlanPage, PlanSource, SourceProvenance
from transcribe_import.engine.storage import fsio, project
from transcribe_import.engine.storage.corpus import Corpus

# The one image builder, under the name the engine tests have always used.
from media_factory import make_image as page_image  # noqa: F401


def new_notebook(corpus: Corpus, title: str = "Notebook") -> str:
    """Create an empty notebook under a fresh id, through the engine; its id."""
    notebook_id = new_id()
    corpus.create_notebook(notebook_id, title)
    return notebook_id


def ingest_pages(corpus: Corpus, notebook_id: str, paths: list[Path], **kw: Any) -> IngestRequest:
    """Ingest ``paths`` (one source each) into the notebook; the request, for its page ids.

    ``kw`` goes to ``ingest`` (settings, workers, ...).
    """
    req = request_for(notebook_id, paths)
    ingest(corpus, req, **kw)
    return req


def source_spec(path: Path) -> SourceSpec:
    """What a plan would hold for one file: its hash, type and preallocated page ids."""
    info = decode.probe(path)
    sha, _size = fsio.hash_file(path)
    pages = tuple(PageSpec(new_id(), new_id(), i) for i in range(info.page_count))
    return SourceSpec(new_id(), path, sha, info.media_type, pages)


def request_for(notebook_id: str, paths: list[Path], **kw: Any) -> IngestRequest:
    return IngestRequest(notebook_id, tuple(source_spec(p) for p in paths), **kw)


def request_to_json(req: IngestRequest) -> bytes:
    """Serialise a request so a subprocess can run exactly the same transaction."""
    placed = req.placement
    return orjson.dumps(
        {
            "notebook_id": req.notebook_id,
            "import_run_id": req.import_run_id,
            "item_id": req.item_id,
            "placement": None if placed is None else [placed.at, placed.after_page],
            "replaces": [list(r) for r in req.replaces],
            "sources": [
                {
                    "source_id": s.source_id,
                    "path": str(s.path),
                    "sha256": s.sha256,
                    "media_type": s.media_type,
                    "pages": [[p.page_id, p.render_id, p.page_index] for p in s.pages],
                }
                for s in req.sources
            ],
        }
    )


def request_from_json(data: bytes) -> IngestRequest:
    doc = orjson.loads(data)
    return IngestRequest(
        doc["notebook_id"],
        tuple(
            SourceSpec(
                s["source_id"],
                Path(s["path"]),
                s["sha256"],
                s["media_type"],
                tuple(PageSpec(*p) for p in s["pages"]),
            )
            for s in doc["sources"]
        ),
        import_run_id=doc["import_run_id"],
        item_id=doc["item_id"],
        placement=None if doc.get("placement") is None else Placement(*doc["placement"]),
        replaces=tuple((new, old) for new, old in doc.get("replaces", [])),
    )


def snapshot(nb_dir: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file in a notebook folder, except its lock file."""
    out = {}
    for p in sorted(nb_dir.rglob("*")):
        if p.is_file() and p.name != ".ingest.lock":
            out[p.relative_to(nb_dir).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def assert_notebook_whole(corpus: Corpus, notebook_id: str) -> dict[str, Any]:
    """project.json loads, ids are unique, every listed file is present with its hash (the
    replaced pages' too: the history stays in the notebook)."""
    nb_dir = corpus.notebook_dir(notebook_id)
    doc = project.read(nb_dir, notebook_id)
    records = project.page_records(doc)
    ids = [s["id"] for s in doc["sources"]] + [p["id"] for p in records]
    ids += [p["render_id"] for p in records]
    assert len(ids) == len(set(ids)), "duplicate id in project.json"
    for s in doc["sources"]:
        data = (nb_dir / s["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == s["sha256"], s["path"]
        assert len(data) == s["size"]
    for p in records:
        data = (nb_dir / p["render"]["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == p["render"]["sha256"], p["render"]["path"]
    assert not (nb_dir / ".ingest-journal.json").exists()
    return doc


def page_ids(req: IngestRequest) -> list[str]:
    return [p.page_id for s in req.sources for p in s.pages]


def jpeg_source(i: int, name: str, **provenance: Any) -> PlanSource:
    """A plan's one-page JPEG source with no file behind it: the ``i``-th (its sha256 is ``i``
    in hex), found as ``/m/NAME`` and ``nb/NAME``; ``provenance``: its other fields
    (``width``, ``height``…)."""
    return PlanSource(
        new_id(),
        f"{i:064x}",
        "image/jpeg",
        (PlanPage(new_id(), new_id(), 0),),
        SourceProvenance(f"/m/{name}", f"nb/{name}", 1, "t", 1, **provenance),
    )
