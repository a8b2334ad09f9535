"""A scan's progress events: the values a face shows while a scan runs (no I/O, no decoders)."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class ScanPhase(enum.StrEnum):
    WALKING = "walking"
    INSPECTING = "inspecting"


@dataclass(frozen=True)
class ScanProgress:
    phase: ScanPhase
    found: int  # page files found so far
    inspected: int  # page files sniffed, probed and hashed so far
    current: str  # rel of the folder being walked, or of the file being inspected
