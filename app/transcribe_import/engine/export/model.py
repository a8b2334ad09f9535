"""The vocabulary of an export: statuses, progress events, what is missing, results.

The bag's file names, manifests and chain hash are the bag format's (storage/bag_format.py).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from transcribe_import.engine.base.values import fields_json

# The window names the incomplete marker from here (gui/export_dialog.py); its home is the
# bag format's.
from transcribe_import.engine.storage.bag_format import INCOMPLETE as INCOMPLETE
from transcribe_import.engine.storage.corpus import UnfinishedImport, unfinished_json

EXPORTS_DIR = "exports"  # under the data directory: where exports go by default
# The manifest line of a file whose expected hash is unknown (its project.json was unreadable):
# no bytes hash to it, so every validator reports the file as missing.
UNKNOWN_SHA256 = "0" * 64


class ExportStatus(enum.StrEnum):
    COMPLETE = "complete"  # every listed file is in the bag with its recorded hash
    PARTIAL = "partial"  # the bag was finished, but MANIFEST.json's `missing` is not empty
    CANCELLED = "cancelled"  # stopped on request: the folder says EXPORT-INCOMPLETE


class MissingReason(enum.StrEnum):
    MISSING = "missing"  # the corpus file does not exist
    HASH_MISMATCH = "hash_mismatch"  # its bytes are not the ones project.json records
    UNREADABLE = "unreadable"  # reading it failed (permissions, an I/O error)
    MANIFEST_INVALID = "manifest_invalid"  # the notebook's project.json cannot be used


class FileKind(enum.StrEnum):
    PROJECT = "project"
    SOURCE = "source"
    RENDER = "render"


@dataclass(frozen=True)
class MissingFile:
    """A file the export should have carried and did not, with why and what to do."""

    path: str  # in the bag: "data/notebooks/<id>/sources/<id>.jpg"
    notebook_id: str
    kind: FileKind
    expected_sha256: str | None
    reason: MissingReason
    message: str

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)


@dataclass(frozen=True)
class NotebookExport:
    """One notebook of an export as MANIFEST.json lists it.

    ``status`` says what the bag carries of the notebook as it was; ``unfinished``, whether
    the notebook held the whole of its import then (``state`` in its JSON, as `notebooks`).
    """

    notebook_id: str
    title: str | None
    status: ExportStatus
    source_count: int | None
    page_count: int | None
    unfinished: UnfinishedImport | None = None

    def to_json(self) -> dict[str, Any]:
        doc = fields_json(self)
        del doc["unfinished"]
        return {**doc, **unfinished_json(self.unfinished)}

    @classmethod
    def of(
        cls,
        nb: Exported,
        export: ExportStatus,
        missing: Sequence[MissingFile],
        unfinished: Mapping[str, UnfinishedImport],
    ) -> NotebookExport:
        """A notebook of an export that ended ``export``: partial if a file of it is missing,
        marked incomplete if it held part of an unfinished import."""
        status = export
        if export is not ExportStatus.CANCELLED:
            lost = any(m.notebook_id == nb.notebook_id for m in missing)
            status = ExportStatus.PARTIAL if lost else ExportStatus.COMPLETE
        return cls(
            nb.notebook_id,
            nb.title,
            status,
            nb.source_count,
            nb.page_count,
            unfinished.get(nb.notebook_id),
        )


class Exported(Protocol):
    """What an export knows of a notebook it copied (its snapshot, export/bag.py)."""

    @property
    def notebook_id(self) -> str: ...
    @property
    def title(self) -> str | None: ...
    @property
    def source_count(self) -> int | None: ...
    @property
    def page_count(self) -> int | None: ...


class ExportPhase(enum.StrEnum):
    RESERVED = "reserved"  # the destination is locked and checked empty
    COPYING = "copying"  # one payload file was copied (or found missing)
    FINISHING = "finishing"  # writing the tag files
    DONE = "done"


@dataclass(frozen=True)
class ExportProgress:
    """One step of an export, as a progress bar shows it."""

    phase: ExportPhase
    files_done: int
    files_total: int
    bytes_done: int
    bytes_total: int
    notebook_id: str | None = None
    current: str | None = None  # the bag path just handled
    missing: MissingFile | None = None  # set when that file could not be carried


@dataclass(frozen=True)
class ExportResult:
    """What an export did: where, its status, what it carried and what it could not."""

    destination: Path
    export_id: str
    corpus_id: str
    status: ExportStatus
    notebooks: tuple[NotebookExport, ...]
    files: Mapping[str, str] = field(repr=False)  # bag path -> sha256 of each payload file
    missing: tuple[MissingFile, ...]
    payload_bytes: int
    chain_hash: str | None  # None when cancelled (no MANIFEST.json was written)
    # What the bag is whole without but a person should do (a leftover file to delete); the
    # CLI says it on stderr, so the JSON document keeps its shape.
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "destination": str(self.destination),
            "export_id": self.export_id,
            "corpus_id": self.corpus_id,
            "status": str(self.status),
            "notebooks": [n.to_json() for n in self.notebooks],
            "files": len(self.files),
            "payload_bytes": self.payload_bytes,
            "missing": [m.to_json() for m in self.missing],
            "chain_hash": self.chain_hash,
        }
