"""How far a look pass has gone (planning/look_pass.py): the value it hands on as it goes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class LooksMade:
    """The pass so far: the looks found since the last report (page key → look, None for a
    page that has none), and how many pages of the pass are done."""

    looks: Mapping[str, str | None]
    pages_done: int
    pages_total: int

    @property
    def finished(self) -> bool:
        return self.pages_done >= self.pages_total
