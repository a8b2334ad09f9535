"""Export test setup: the bagit validator reports through its exceptions, not its log."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def quiet_bagit() -> Iterator[None]:
    """bagit logs a WARNING for each bad file before it raises; the tests check what it raises."""
    logger = logging.getLogger("bagit")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)
