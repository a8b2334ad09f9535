"""The per-notebook ingest journal (.ingest-journal.json): its states, format and strict parser.

The journal is written before anything it describes, and it holds exactly the
source and page entries the transaction will add to ``project.json``, and where the
pages go (``placement``, ``replacements``), so recovery can finish a transaction from
the journal alone. Paths inside it are
never trusted: they are recomputed from ids and media types.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from transcribe_import.engine.base.ids import is_sha256, is_valid_id
from transcribe_import.engine.base.values import DocField
from transcribe_import.engine.media.kinds import MEDIA_EXTENSIONS
from transcribe_import.engine.storage import fsio

JOURNAL_FILE = ".ingest-journal.json"
JOURNAL_FORMAT = "transcribe.ingest-journal"
JOURNAL_SCHEMA = 1
STAGING_DIR = ".staging"
LOCK_FILE = ".ingest.lock"


class JournalState(enum.StrEnum):
    STAGING = "staging"
    PROMOTING = "promoting"
    MANIFEST_PENDING = "manifest_pending"


class JournalInvalid(Exception):
    """The journal cannot be read or does not follow the schema: it goes to quarantine."""


@dataclass(frozen=True)
class StagedFile:
    """One file the transaction writes: where it is staged and where it ends up."""

    staged: Path
    final: Path
    sha256: str | None  # None for a render not yet made (journal still in `staging`)


def _entries(value: Any) -> list[dict[str, Any]]:
    """A copy of a journal's list of sources or pages (checked as such when it was read)."""
    return list(value)


@dataclass
class Journal:
    doc: dict[str, Any]

    txn_id = DocField("txn_id", str)
    state = DocField("state", JournalState)
    sources = DocField("sources", _entries)
    pages = DocField("pages", _entries)

    def staging_dir(self, notebook_dir: Path) -> Path:
        return notebook_dir / STAGING_DIR / self.txn_id

    def files(self, notebook_dir: Path) -> list[StagedFile]:
        """Every file this journal names, sources first, in journal order."""
        staging = self.staging_dir(notebook_dir)
        out = []
        for s in self.doc["sources"]:
            rel = source_rel_path(s["id"], s["media_type"])
            out.append(StagedFile(staging / Path(rel).name, notebook_dir / rel, s["sha256"]))
        for p in self.doc["pages"]:
            rel = render_rel_path(p["render_id"])
            render = p.get("render")
            sha = render["sha256"] if isinstance(render, dict) else None
            out.append(StagedFile(staging / Path(rel).name, notebook_dir / rel, sha))
        return out

    def encode(self) -> bytes:
        return orjson.dumps(self.doc, option=orjson.OPT_INDENT_2) + b"\n"


def source_rel_path(source_id: str, media_type: str) -> str:
    return f"sources/{source_id}.{MEDIA_EXTENSIONS[media_type]}"


def render_rel_path(render_id: str) -> str:
    return f"renders/{render_id}.png"


def write(notebook_dir: Path, journal: Journal) -> None:
    fsio.atomic_write(notebook_dir / JOURNAL_FILE, journal.encode())


def parse(data: bytes, notebook_id: str) -> Journal:
    """Parse a journal strictly; anything unexpected raises JournalInvalid (never guessed at)."""
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise JournalInvalid(f"not valid JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise JournalInvalid("not a JSON object")
    if doc.get("format") != JOURNAL_FORMAT or doc.get("schema_version") != JOURNAL_SCHEMA:
        raise JournalInvalid("not an ingest journal of schema version 1")
    if doc.get("notebook_id") != notebook_id:
        raise JournalInvalid(f"names notebook {doc.get('notebook_id')!r}, not its own folder")
    if not is_valid_id(doc.get("txn_id")):
        raise JournalInvalid("txn_id is not a UUID")
    if doc.get("state") not in {s.value for s in JournalState}:
        raise JournalInvalid(f"unknown state {doc.get('state')!r}")
    sources, pages = doc.get("sources"), doc.get("pages")
    if not isinstance(sources, list) or not isinstance(pages, list) or not sources:
        raise JournalInvalid("sources or pages missing")
    source_ids: set[str] = set()
    for s in sources:
        if (
            not isinstance(s, dict)
            or not is_valid_id(s.get("id"))
            or not is_sha256(s.get("sha256"))
            or s.get("media_type") not in MEDIA_EXTENSIONS
            or s.get("path") != source_rel_path(s["id"], s["media_type"])
        ):
            raise JournalInvalid("a source entry is malformed")
        source_ids.add(s["id"])
    state = doc["state"]
    seen: set[str] = set()
    for p in pages:
        if (
            not isinstance(p, dict)
            or not is_valid_id(p.get("id"))
            or not is_valid_id(p.get("render_id"))
            or p.get("source_id") not in source_ids
            or not isinstance(p.get("page_index"), int)
        ):
            raise JournalInvalid("a page entry is malformed")
        render = p.get("render")
        if state != JournalState.STAGING and (
            not isinstance(render, dict)
            or not is_sha256(render.get("sha256"))
            or render.get("path") != render_rel_path(p["render_id"])
        ):
            raise JournalInvalid("a page lacks its render hash past the staging state")
        for pid in (p["id"], p["render_id"]):
            if pid in seen:
                raise JournalInvalid("an id appears twice")
            seen.add(pid)
    _check_placement(doc, {p["id"] for p in pages})
    return Journal(doc)


def _check_placement(doc: dict[str, Any], page_ids: set[str]) -> None:
    """The optional keys of a transaction that places its pages (ingest/placement.py).

    ``placement``: ``{"after_page_id": <a page id, or null for the start>}``;
    ``replacements``: ``{<a page of this journal>: <the notebook page it replaces>}``;
    ``history``: pages of this journal whose records are in ``replaced_pages`` already
    (a bag's replaced pages: only their files land).
    """
    placement = doc.get("placement")
    if placement is not None and (
        not isinstance(placement, dict)
        or set(placement) != {"after_page_id"}
        or not (placement["after_page_id"] is None or is_valid_id(placement["after_page_id"]))
    ):
        raise JournalInvalid("placement is malformed")
    replacements = doc.get("replacements", {})
    if not isinstance(replacements, dict) or not all(
        new in page_ids and is_valid_id(old) and old not in page_ids
        for new, old in replacements.items()
    ):
        raise JournalInvalid("replacements are malformed")
    if len(set(replacements.values())) != len(replacements):
        raise JournalInvalid("a page is replaced twice")
    history = doc.get("history", [])
    if not isinstance(history, list) or not all(
        h in page_ids and h not in replacements for h in history
    ):
        raise JournalInvalid("history is malformed")
