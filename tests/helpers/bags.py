"""Bags built by hand, exactly as docs/formats.md ("The export bag") describes them.

``bag_from_corpus`` copies notebooks of a corpus into a bag the way the export does
(project.json byte for byte, the sources and renders it lists) and ``seal`` writes the tag
files: manifest-sha256.txt, bag-info.txt, MANIFEST.json with its chain hash, README.md,
bagit.txt and tagmanifest-sha256.txt. Written from the documented format, not with the
app's export, so the import is tested against the contract itself; ``tests/cli`` also
round-trips through the real ``export``. A test that tampers with a bag edits it after
sealing, and reseals only what it wants to look consistent (``seal_tags``).
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import orjson

TAG_FILES = ("bag-info.txt", "bagit.txt", "MANIFEST.json", "manifest-sha256.txt", "README.md")
BAGIT = b"BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def chain_hash(files: Iterable[tuple[str, str]]) -> str:
    """The chain hash as docs/formats.md defines it (not the app's function)."""
    h = hashlib.sha256(b"").digest()
    for path, digest in sorted(files, key=lambda kv: kv[0].encode()):
        h = hashlib.sha256(h + path.encode() + b"\0" + digest.encode()).digest()
    return h.hex()


def _lines(entries: dict[str, str]) -> bytes:
    return "".join(
        f"{entries[k]}  {k}\n" for k in sorted(entries, key=lambda k: k.encode())
    ).encode()


def payload(bag: Path) -> dict[str, str]:
    """bag path -> sha256 of every file under data/."""
    return {
        p.relative_to(bag).as_posix(): sha256(p)
        for p in sorted((bag / "data").rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def bag_from_corpus(
    notebook_dirs: Sequence[Path],
    dest: Path,
    *,
    edit: Callable[[dict[str, Any]], None] | None = None,
) -> Path:
    """A sealed bag of these notebook folders; ``edit`` changes each project.json first
    (the bag then carries the edited bytes, as if the corpus had held them)."""
    for nb_dir in notebook_dirs:
        doc = orjson.loads((nb_dir / "project.json").read_bytes())
        target = dest / "data" / "notebooks" / doc["id"]
        target.mkdir(parents=True)
        for s in doc["sources"]:
            (target / s["path"]).parent.mkdir(exist_ok=True)
            shutil.copyfile(nb_dir / s["path"], target / s["path"])
        for p in doc["pages"]:
            (target / p["render"]["path"]).parent.mkdir(exist_ok=True)
            shutil.copyfile(nb_dir / p["render"]["path"], target / p["render"]["path"])
        if edit is None:
            shutil.copyfile(nb_dir / "project.json", target / "project.json")
        else:
            edit(doc)
            (target / "project.json").write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    seal(dest)
    return dest


def edit_project(bag: Path, notebook_id: str, edit: Callable[[dict[str, Any]], None]) -> None:
    """Change one notebook's project.json in the bag and seal it again (a consistent bag)."""
    path = bag / "data" / "notebooks" / notebook_id / "project.json"
    doc = orjson.loads(path.read_bytes())
    edit(doc)
    path.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    seal(bag)


def seal(bag: Path, *, manifest: dict[str, str] | None = None) -> None:
    """Write every tag file from the payload as it is now (or from ``manifest``)."""
    entries = payload(bag) if manifest is None else manifest
    (bag / "manifest-sha256.txt").write_bytes(_lines(entries))
    on_disk = [p for p in (bag / "data").rglob("*") if p.is_file() and not p.is_symlink()]
    size = sum(p.stat().st_size for p in on_disk)
    notebooks = []
    for k in sorted(entries):
        if k.endswith("/project.json") and (bag / k).is_file():
            doc = orjson.loads((bag / k).read_bytes())
            notebooks.append(
                {
                    "notebook_id": doc["id"],
                    "title": doc.get("title"),
                    "status": "complete",
                    "source_count": len(doc["sources"]),
                    "page_count": len(doc["pages"]),
                }
            )
    (bag / "bag-info.txt").write_bytes(
        (
            "Bag-Software-Agent: hand-built by tests/helpers/bags.py\n"
            "Bagging-Date: 2026-12-02\n"
            f"Payload-Oxum: {size}.{len(on_disk)}\n"
            "External-Identifier: 2ba87373-f1b2-4c39-afdb-2ab0be68fb9e\n"
            "Bag-Count: 1 of 1\n"
            "Transcribe-Export-Id: 0e0c4a53-1f55-4a3e-9a57-52b4e1b1c6a1\n"
            "Transcribe-Export-Status: complete\n"
            f"Transcribe-Notebook-Count: {len(notebooks)}\n"
            "Transcribe-Exported-At: 2026-12-02T18:26:03.614761Z\n"
        ).encode()
    )
    manifest_json = {
        "format": "transcribe.export",
        "schema_version": 1,
        "export_id": "0e0c4a53-1f55-4a3e-9a57-52b4e1b1c6a1",
        "corpus_id": "2ba87373-f1b2-4c39-afdb-2ab0be68fb9e",
        "exported_at": "2026-12-02T18:26:03.614761Z",
        "software": "tests/helpers/bags.py",
        "status": "complete",
        "notebooks": notebooks,
        "files": entries,
        "missing": [],
        "chain_hash": chain_hash(entries.items()),
    }
    (bag / "MANIFEST.json").write_bytes(orjson.dumps(manifest_json, option=orjson.OPT_INDENT_2))
    (bag / "README.md").write_text("A bag built by hand for a test.\n", encoding="utf-8")
    (bag / "bagit.txt").write_bytes(BAGIT)
    seal_tags(bag)


def seal_tags(bag: Path) -> None:
    """Rewrite only tagmanifest-sha256.txt, so edited tag files look consistent."""
    (bag / "tagmanifest-sha256.txt").write_bytes(
        _lines({name: sha256(bag / name) for name in TAG_FILES if (bag / name).is_file()})
    )


def notebook_dir(bag: Path, notebook_id: str) -> Path:
    return bag / "data" / "notebooks" / notebook_id


def project_of(bag: Path, notebook_id: str) -> dict[str, Any]:
    doc: dict[str, Any] = orjson.loads(
        (notebook_dir(bag, notebook_id) / "project.json").read_bytes()
    )
    return doc
