"""Helpers for engine tests: small real page files, ingest requests with preallocated ids."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import orjson
from PIL import Image, ImageDraw

from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.ingest.transaction import IngestRequest, PageSpec, SourceSpec
from transcribe_import.engine.media import decode as media
from transcribe_import.engine.storage import fsio, project
from transcribe_import.engine.storage.corpus import Corpus


def page_image(path: Path, label: str, size: tuple[int, int] = (320, 440)) -> Path:
    """A small page-like JPEG (or PNG, by suffix) with its label drawn on it, so each differs."""
    img = Image.new("RGB", size, (245, 240, 225))
    d = ImageDraw.Draw(img)
    for y in range(30, size[1] - 20, 24):
        d.line([(20, y), (size[0] - 20, y)], fill=(180, 190, 210), width=1)
    d.text((30, 40), label, fill=(20, 20, 60))
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path, quality=85) if path.suffix.lower() in {".jpg", ".jpeg"} else img.save(path)
    return path


def source_spec(path: Path) -> SourceSpec:
    """What a plan would hold for one file: its hash, type and preallocated page ids."""
    info = media.probe(path)
    sha, _size = fsio.hash_file(path)
    pages = tuple(PageSpec(new_id(), new_id(), i) for i in range(info.page_count))
    return SourceSpec(new_id(), path, sha, info.media_type, pages)


def request_for(notebook_id: str, paths: list[Path], **kw: Any) -> IngestRequest:
    return IngestRequest(notebook_id, tuple(source_spec(p) for p in paths), **kw)


def request_to_json(req: IngestRequest) -> bytes:
    """Serialise a request so a subprocess can run exactly the same transaction."""
    return orjson.dumps(
        {
            "notebook_id": req.notebook_id,
            "import_run_id": req.import_run_id,
            "item_id": req.item_id,
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
    )


def snapshot(nb_dir: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file in a notebook folder, except its lock file."""
    out = {}
    for p in sorted(nb_dir.rglob("*")):
        if p.is_file() and p.name != ".ingest.lock":
            out[p.relative_to(nb_dir).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def assert_notebook_whole(corpus: Corpus, notebook_id: str) -> dict[str, Any]:
    """project.json loads, ids are unique, every listed file is present with its hash."""
    nb_dir = corpus.notebook_dir(notebook_id)
    doc = project.read(nb_dir, notebook_id)
    ids = [s["id"] for s in doc["sources"]] + [p["id"] for p in doc["pages"]]
    ids += [p["render_id"] for p in doc["pages"]]
    assert len(ids) == len(set(ids)), "duplicate id in project.json"
    for s in doc["sources"]:
        data = (nb_dir / s["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == s["sha256"], s["path"]
        assert len(data) == s["size"]
    for p in doc["pages"]:
        data = (nb_dir / p["render"]["path"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == p["render"]["sha256"], p["render"]["path"]
    assert not (nb_dir / ".ingest-journal.json").exists()
    return doc


def page_ids(req: IngestRequest) -> list[str]:
    return [p.page_id for s in req.sources for p in s.pages]
