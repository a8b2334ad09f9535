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


# -- bags other tools make --------------------------------------------------------------------

# How the tests make bags the way archives hand them over, with bagit-python (the Library of
# Congress's own implementation), or by hand where it cannot (BagIt 0.97).
FOREIGN_KINDS = ("standard", "sha512", "0.97-md5", "nested", "nfd", "extra-tags")


def _pages(folder: Path, names: Sequence[str]) -> None:
    from media_factory import make_jpeg

    for name in names:
        make_jpeg(folder / name, (60, 80), label=f"{folder.name[-2:]}{name}")


def foreign_bag(dest: Path, kind: str) -> tuple[Path, dict[str, int]]:
    """A bag of page files made as ``kind`` (FOREIGN_KINDS), and the notebooks it should
    plan to: title -> pages."""
    import unicodedata

    import bagit

    dest.mkdir(parents=True)
    if kind == "0.97-md5":
        _pages(dest / "data", ["p1.jpg", "p2.jpg"])
        lines = "".join(
            f"{hashlib.md5((dest / 'data' / n).read_bytes()).hexdigest()} data/{n}\n"
            for n in ("p1.jpg", "p2.jpg")
        )
        (dest / "manifest-md5.txt").write_text(lines)
        (dest / "bagit.txt").write_text("BagIt-Version: 0.97\nTag-File-Character-Encoding: UTF-8\n")
        return dest, {dest.name: 2}
    if kind == "sha512":
        _pages(dest, ["page 1.jpg", "page 2.jpg", "page 3.jpg"])
        bagit.make_bag(str(dest), {"Title": "Letters home"}, checksums=["sha512"])
        return dest, {"Letters home": 3}
    if kind == "nested":
        _pages(dest / "Box 1" / "Diary 1931", ["p1.jpg", "p2.jpg"])
        _pages(dest / "Box 1" / "Diary 1932", ["p1.jpg"])
        bagit.make_bag(str(dest))
        return dest, {"Diary 1931": 2, "Diary 1932": 1}
    if kind == "nfd":
        folder = unicodedata.normalize("NFD", "Tagebuch Müller")
        _pages(dest / folder, [unicodedata.normalize("NFD", f"Seite {n} é.jpg") for n in (1, 2)])
        bagit.make_bag(str(dest))
        return dest, {"Tagebuch Müller": 2}
    _pages(dest, ["page 1.jpg", "page 2.jpg"])
    bag = bagit.make_bag(str(dest), {"External-Identifier": "MS 1931/4"})
    if kind == "extra-tags":
        # A tag folder listed in the tag manifests, and a tag file listed nowhere (RFC 8493
        # allows both; Bagger and DART write such files).
        (dest / "metadata").mkdir()
        (dest / "metadata" / "mods.xml").write_text("<mods/>\n")
        bag.save(manifests=True)
        (dest / "notes.txt").write_text("scanned at the county archive\n")
    return dest, {"MS 1931/4": 2}


def damage(bag: Path, how: str) -> tuple[str, str]:
    """Damage a standard foreign bag ``how``; returns the file the refusal must name and
    its ``bag_*`` code."""
    if how == "holey":
        (bag / "fetch.txt").write_text("https://example.org/p3.jpg 1234 data/page 3.jpg\n")
        return "fetch.txt", "bag_missing_file"
    if how == "altered":
        page = bag / "data" / "page 2.jpg"
        data = bytearray(page.read_bytes())
        data[200] ^= 0xFF
        page.write_bytes(bytes(data))
        return "data/page 2.jpg", "bag_hash_mismatch"
    if how == "added":
        shutil.copyfile(bag / "data" / "page 1.jpg", bag / "data" / "page 9.jpg")
        return "data/page 9.jpg", "bag_unlisted_file"
    if how == "removed":
        (bag / "data" / "page 2.jpg").unlink()
        return "data/page 2.jpg", "bag_missing_file"
    if how == "outside":
        with (bag / "manifest-sha256.txt").open("a") as f:
            f.write(f"{sha256(bag / 'bag-info.txt')}  bag-info.txt\n")
        return "manifest-sha256.txt", "bag_invalid"
    if how == "flood":
        with (bag / "manifest-sha256.txt").open("a") as f:
            f.writelines(f"{'0' * 64}  data/x{n}\n" for n in range(5000))
        return "manifest-sha256.txt", "bag_invalid"
    raise ValueError(how)


DAMAGE = ("holey", "altered", "added", "removed", "outside", "flood")
