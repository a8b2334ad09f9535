"""Shared test setup: Qt offscreen, and every test pointed at its own temporary corpus."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Tests import helper modules (media_factory, ...) from this folder.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh data directory; TRANSCRIBE_DATA_DIR points at it so nothing touches the user's."""
    d = tmp_path / "data"
    monkeypatch.setenv("TRANSCRIBE_DATA_DIR", str(d))
    return d
