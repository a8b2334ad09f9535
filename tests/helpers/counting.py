"""Work counted, not timed: how many function calls a step makes, and how that grows as
its input doubles (tests/engine/test_linear_costs.py and the tests that cite it).

A step whose work is linear does twice the extra work from 2N to 4N that it did from N to
2N (a fixed cost cancels out); one that compares every item with every other does four
times. ``LIMIT`` leaves room for the items' own variety.
"""

from __future__ import annotations

import io
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from transcribe_import.engine.media import check, decode

PER_FOLDER = 20
LIMIT = 2.5


def _tiny_jpeg() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (16, 24), (230, 225, 210)).save(buf, "JPEG", quality=75)
    return buf.getvalue()


def tiny_shelf(root: Path, pages: int) -> Path:
    """``pages`` small JPEG pages in folders of ``PER_FOLDER``, every file's bytes its own,
    each last modified an hour ago, as a shelf scanned long after it was written: which of its
    files the scan cache holds as racy (planning/scan_cache.py) would otherwise depend on how
    fast they were written, and the work counted with it."""
    tiny = _tiny_jpeg()
    for n in range(pages):
        folder = root / f"Notebook {n // PER_FOLDER + 1:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        page = folder / f"page {n % PER_FOLDER + 1:02d}.jpg"
        page.write_bytes(tiny + n.to_bytes(4, "big"))
        aged(page)
    return root


def counted(step: Callable[[], Any]) -> tuple[int, Any]:
    """How many function calls ``step`` makes (in this thread and any it starts), and its
    result."""
    calls = 0

    def count(_frame: object, event: str, _arg: object) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    threading.setprofile(count)  # type: ignore[arg-type]
    sys.setprofile(count)  # type: ignore[arg-type]
    try:
        result = step()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    return calls, result


def growth(counts: list[int]) -> float:
    """The extra work from 2N to 4N over the extra work from N to 2N: 2 when linear."""
    small, middle, large = counts
    return (large - middle) / max(1, middle - small)


def aged(path: Path, at_ns: int | None = None) -> Path:
    """``path`` with a modification time an hour past (or ``at_ns``): a file no scan cache
    holds as racy (planning/scan_cache.py)."""
    at = time.time_ns() - 3600 * 10**9 if at_ns is None else at_ns
    os.utime(path, ns=(at, at))
    return path


class FileReads:
    """The files read (and hashed: ``check.read_once``) and probed (``decode.probe``) from
    here on, by name, counted where it is done."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.read: list[str] = []
        self.probed: list[str] = []
        real_read, real_probe = check.read_once, decode.probe

        def read_once(path: Path, *args: Any, **kw: Any) -> check.FileRead:
            self.read.append(Path(path).name)
            return real_read(path, *args, **kw)

        def probe(path: Path, *args: Any, **kw: Any) -> Any:
            self.probed.append(Path(path).name)
            return real_probe(path, *args, **kw)

        monkeypatch.setattr(check, "read_once", read_once)
        monkeypatch.setattr(decode, "probe", probe)

    def taken(self) -> tuple[list[str], list[str]]:
        """The files read and the files probed since the last call, sorted."""
        out = sorted(self.read), sorted(self.probed)
        self.read.clear()
        self.probed.clear()
        return out
