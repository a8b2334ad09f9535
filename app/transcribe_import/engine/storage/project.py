"""project.json, the notebook manifest: the one place that reads, checks and writes its format."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from transcribe_import.engine.base.clock import utc_now
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.ids import is_valid_id
from transcribe_import.engine.storage import fsio

PROJECT_FORMAT = "transcribe.project"
PROJECT_SCHEMA = 1
PROJECT_FILE = "project.json"
# Pages a rescan replaced (docs/formats.md): the notebook's history, never deleted. Each
# entry is {"page": <the page record as it was>, "replaced_by", "import_run_id", "item_id",
# "replaced_at"}; the page's source stays in "sources" and its files stay on disk.
REPLACED_PAGES = "replaced_pages"


def new_project(notebook_id: str, title: str) -> dict[str, Any]:
    now = utc_now()
    return {
        "format": PROJECT_FORMAT,
        "schema_version": PROJECT_SCHEMA,
        "id": notebook_id,
        "title": title,
        "created_at": now,
        "updated_at": now,
        "cover_page_id": None,
        "sources": [],
        "pages": [],
    }


def encode(project: dict[str, Any]) -> bytes:
    return orjson.dumps(project, option=orjson.OPT_INDENT_2) + b"\n"


def parse(data: bytes, *, expected_id: str | None, where: Path) -> dict[str, Any]:
    """Parse and check a manifest; unknown keys are kept untouched for the next rewrite."""
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise _invalid(where, f"is not valid JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != PROJECT_FORMAT:
        raise _invalid(where, "is not a Transcribe project manifest")
    if doc.get("schema_version") != PROJECT_SCHEMA:
        raise _invalid(where, f"has schema_version {doc.get('schema_version')!r}, expected 1")
    if not is_valid_id(doc.get("id")) or (expected_id is not None and doc["id"] != expected_id):
        raise _invalid(where, f"has id {doc.get('id')!r}, which does not match its folder")
    if not isinstance(doc.get("sources"), list) or not isinstance(doc.get("pages"), list):
        raise _invalid(where, "lacks its sources or pages list")
    if not isinstance(doc.get(REPLACED_PAGES, []), list):
        raise _invalid(where, f"has a {REPLACED_PAGES} that is not a list")
    return doc


def _invalid(where: Path, what: str) -> TranscribeError:
    return TranscribeError(
        ErrorCode.NOTEBOOK_INVALID,
        f"{where} {what}; run `transcribe-import doctor` and restore it from a backup if needed.",
        path=str(where),
    )


def read(notebook_dir: Path, expected_id: str | None = None) -> dict[str, Any]:
    path = notebook_dir / PROJECT_FILE

    def missing() -> TranscribeError:
        return TranscribeError(
            ErrorCode.NOTEBOOK_NOT_FOUND,
            f"{path} does not exist; run `transcribe-import doctor` to check the corpus.",
            path=str(path),
        )

    return parse(fsio.read_document(path, missing), expected_id=expected_id, where=path)


def write(notebook_dir: Path, project: dict[str, Any]) -> None:
    fsio.atomic_write(notebook_dir / PROJECT_FILE, encode(project))


def replaced_entries(project: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``replaced_pages`` entries that hold a page record, in the order they were made."""
    entries = project.get(REPLACED_PAGES)
    if not isinstance(entries, list):
        return []
    return [e for e in entries if isinstance(e, dict) and isinstance(e.get("page"), dict)]


def replaced_records(project: dict[str, Any]) -> list[dict[str, Any]]:
    """The page records of the pages a rescan replaced (the history)."""
    return [e["page"] for e in replaced_entries(project)]


def is_turn(replaced_sha256: str | None, replacing_sha256: str | None) -> bool:
    """Whether a page that took another's place is a turn of it (a corpus ``turn``): its
    source has the same bytes. A rescan's are other bytes, and a file the notebook held
    already is never a rescan."""
    return bool(replacing_sha256) and replacing_sha256 == replaced_sha256


def turned_entries(project: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``replaced_pages`` entries whose page a turn replaced (``is_turn``), not a rescan."""
    sha_of = {
        s.get("id"): s.get("sha256") for s in project.get("sources", []) if isinstance(s, dict)
    }
    pages = [p for p in project.get("pages", []) if isinstance(p, dict)] + replaced_records(project)
    source_of = {p.get("id"): p.get("source_id") for p in pages}
    return [
        e
        for e in replaced_entries(project)
        if is_turn(
            sha_of.get(e["page"].get("source_id")), sha_of.get(source_of.get(e.get("replaced_by")))
        )
    ]


@dataclass(frozen=True)
class ManifestIds:
    sources: frozenset[str]
    pages: frozenset[str]  # the notebook's pages now (``pages``)
    renders: frozenset[str]  # every render id, the replaced pages' included
    replaced: frozenset[str] = frozenset()  # page ids in ``replaced_pages`` (the history)

    @property
    def landed(self) -> frozenset[str]:
        """Every page id that landed in the notebook: its pages and those a rescan replaced."""
        return self.pages | self.replaced


def ids_of(project: dict[str, Any]) -> ManifestIds:
    live = [p for p in project["pages"] if isinstance(p, dict)]
    history = replaced_records(project)
    return ManifestIds(
        sources=frozenset(str(s.get("id")) for s in project["sources"] if isinstance(s, dict)),
        pages=frozenset(str(p.get("id")) for p in live),
        renders=frozenset(str(p.get("render_id")) for p in [*live, *history]),
        replaced=frozenset(str(p.get("id")) for p in history),
    )


def page_records(project: dict[str, Any]) -> list[dict[str, Any]]:
    """Every page record with files in the notebook: its pages, then the replaced ones."""
    return [p for p in project["pages"] if isinstance(p, dict)] + replaced_records(project)


# The library that made a page's render ("libvips 8.18.7 (render 3)"), a key of
# ``pages[].render``: another renderer may give other bytes, so doctor renders a lost render
# again only with the one that made it. Absent in renders made before it was recorded (by
# Pillow), and in renders copied from a bag.
RENDERER = "renderer"


def render_record(
    path: str, sha256: str, width: int, height: int, renderer: str | None
) -> dict[str, Any]:
    """A page's ``render`` as project.json records it."""
    record: dict[str, Any] = {"path": path, "sha256": sha256, "width": width, "height": height}
    if renderer:
        record[RENDERER] = renderer
    return record


def renderer_of(page: dict[str, Any]) -> str | None:
    """The renderer a page's render records, None when it records none (see ``RENDERER``)."""
    render = page.get("render")
    got = render.get(RENDERER) if isinstance(render, dict) else None
    return got if isinstance(got, str) and got else None


# How far a person turned a page clockwise (90, 180 or 270 degrees), after its source's
# own EXIF orientation: its render is made upright, its source kept as it is. Absent on a
# page not turned (and on every page written before turns).
TURN = "turn"
TURNS = frozenset({90, 180, 270})


def turn_of(page: dict[str, Any]) -> int:
    """A page's recorded turn in degrees, 0 when it records none (or one this app never
    writes: its render was then made unturned)."""
    got = page.get(TURN)
    return got if isinstance(got, int) and not isinstance(got, bool) and got in TURNS else 0


def referenced_files(project: dict[str, Any]) -> set[str]:
    """Relative paths of every file the manifest lists (sources and renders, the history's
    included: a replaced page's files stay in the notebook)."""
    files: set[str] = set()
    for s in project["sources"]:
        if isinstance(s, dict) and isinstance(s.get("path"), str):
            files.add(s["path"])
    for p in page_records(project):
        render = p.get("render")
        if isinstance(render, dict) and isinstance(render.get("path"), str):
            files.add(render["path"])
    return files
