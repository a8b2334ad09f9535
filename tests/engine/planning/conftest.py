"""Planning test fixtures: a notebook that already holds pages, for plans that place among them."""

from __future__ import annotations

from pathlib import Path

import pytest

from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import ingest_pages, page_ids
from helpers.shelves import make_pages


@pytest.fixture
def held(corpus: Corpus, notebook: str, tmp_path: Path) -> list[str]:
    """The notebook holds four pages; their ids in order."""
    return page_ids(
        ingest_pages(corpus, notebook, make_pages(tmp_path / "held", 4, name="held {i}.jpg"))
    )
