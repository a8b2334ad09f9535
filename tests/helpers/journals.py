"""Ingest journals as a killed process leaves them, written by hand for recovery's tests."""

from __future__ import annotations

from pathlib import Path

import orjson

from transcribe_import.engine.base.ids import new_id


def staging_journal(nb_dir: Path, notebook_id: str, run_id: str | None = None) -> None:
    """What a process killed while staging leaves in ``nb_dir``: a journal of one source (a
    JPEG of one page, by run ``run_id`` or by none), never promoted."""
    source = new_id()
    doc = {
        "format": "transcribe.ingest-journal",
        "schema_version": 1,
        "txn_id": new_id(),
        "notebook_id": notebook_id,
        "import_run_id": run_id,
        "item_id": None,
        "state": "staging",
        "cover_page_id": None,
        "created_at": "x",
        "updated_at": "x",
        "sources": [
            {
                "id": source,
                "sha256": "0" * 64,
                "media_type": "image/jpeg",
                "size": None,
                "path": f"sources/{source}.jpg",
                "page_count": 1,
            }
        ],
        "pages": [],
    }
    (nb_dir / ".ingest-journal.json").write_bytes(orjson.dumps(doc))
