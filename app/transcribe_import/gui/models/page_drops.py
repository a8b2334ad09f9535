"""What a drag of pages in the review carries: its sources and pages, as a MIME body.

Written by ``PageTableModel.mimeData`` and read back by its drop; a drag is taken only by
the notebook it came from. Moving what it carries is the model's (``ordering.move``,
page_moves.py).
"""

from __future__ import annotations

from typing import Any

import orjson
from PySide6.QtCore import QByteArray, QMimeData

from transcribe_import.gui.models.page_moves import PageKey

SOURCES_MIME_TYPE = "application/x-transcribe-import-plan-sources"


def drag_data(item_id: str, source_ids: list[str], pages: list[PageKey]) -> QMimeData:
    """The dragged rows: their sources by id (whole files move) and their pages (some pages
    of one PDF move among its pages: page_moves.py)."""
    data = QMimeData()
    body = {"item_id": item_id, "source_ids": source_ids, "pages": [list(p) for p in pages]}
    data.setData(SOURCES_MIME_TYPE, QByteArray(orjson.dumps(body)))
    return data


def _body(data: QMimeData, item_id: str | None) -> dict[str, Any] | None:
    """What a drag carries, if it comes from ``item_id``; None otherwise."""
    if item_id is None or not data.hasFormat(SOURCES_MIME_TYPE):
        return None
    try:
        body = orjson.loads(bytes(data.data(SOURCES_MIME_TYPE).data()))
    except orjson.JSONDecodeError:
        return None
    if not isinstance(body, dict) or body.get("item_id") != item_id:
        return None
    return body


def dragged_sources(data: QMimeData, item_id: str | None) -> list[str] | None:
    """The source ids a drag carries, if it comes from ``item_id``; None otherwise."""
    ids = (_body(data, item_id) or {}).get("source_ids")
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        return None
    return ids


def dragged_pages(data: QMimeData, item_id: str | None) -> list[PageKey]:
    """The pages a drag carries, as (source id, index in its file)."""
    pages = (_body(data, item_id) or {}).get("pages")
    if not isinstance(pages, list):
        return []
    return [
        (p[0], p[1])
        for p in pages
        if isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and type(p[1]) is int
    ]
