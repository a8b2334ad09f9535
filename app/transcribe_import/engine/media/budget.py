"""Decoding memory shared by every worker of the process: one budget, estimated per page.

A 16-bit 88-megapixel PNG is inside the decompression-bomb limit and still takes about
1.5 GB to decode and convert; six workers decoding six of them at once would need 9 GB.
So every decode first holds its estimated working memory (``estimate``) from one
process-wide ``DECODE_BUDGET``: pages that fit run side by side, and a huge page waits
until the others have finished. A page larger than the whole budget runs alone, never
refused: the bomb limit, not this budget, decides what is too big.

The budget is a quarter of the machine's memory, between 512 MiB and 4 GiB. The pixel
estimate is deliberately generous (``BYTES_PER_PIXEL``): measured in bench/bench_memory.py.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator

# Decoded pixels as Pillow holds them (up to 4 bytes), and the copies a render makes of
# them (display-mode conversion, size cap, transpose) at their peak: measured, not guessed.
BYTES_PER_PIXEL = 16
MIN_BUDGET = 512 * 1024 * 1024
MAX_BUDGET = 4 * 1024 * 1024 * 1024


def estimate(width: int, height: int) -> int:
    """The working memory, in bytes, of decoding and rendering one page of this size."""
    return max(1, width) * max(1, height) * BYTES_PER_PIXEL


def default_budget() -> int:
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        physical = 8 * 1024 * 1024 * 1024  # unknown: as if 8 GiB
    return max(MIN_BUDGET, min(MAX_BUDGET, physical // 4))


class MemoryBudget:
    """Bytes held by the decodes in flight; a hold waits until its bytes fit."""

    def __init__(self, limit: int) -> None:
        self.limit = max(1, limit)
        self._in_use = 0
        self._peak = 0
        self._cond = threading.Condition()

    @property
    def in_use(self) -> int:
        with self._cond:
            return self._in_use

    @property
    def peak(self) -> int:
        """The most ever held at once (tests and the benchmark read it)."""
        with self._cond:
            return self._peak

    @contextlib.contextmanager
    def hold(self, nbytes: int) -> Iterator[None]:
        held = self.take(nbytes)
        try:
            yield
        finally:
            self.give(held)

    def take(self, nbytes: int) -> int:
        """Hold ``nbytes`` once they fit, and return what is held, for ``give`` (``hold``
        where the memory outlives one block: a page handed to another thread)."""
        # A page larger than the budget takes all of it: it waits for the others, then
        # runs alone, instead of being refused or waiting for ever.
        n = min(max(0, nbytes), self.limit)
        with self._cond:
            while self._in_use and self._in_use + n > self.limit:
                self._cond.wait()
            self._in_use += n
            self._peak = max(self._peak, self._in_use)
        return n

    def give(self, held: int) -> None:
        """Give back what ``take`` returned."""
        with self._cond:
            self._in_use -= held
            self._cond.notify_all()


DECODE_BUDGET = MemoryBudget(default_budget())
