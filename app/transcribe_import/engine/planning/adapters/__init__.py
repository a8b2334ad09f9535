"""Import adapters: turn a scan into groups of files, each a proposed plan item.

One module per adapter behind the ``Adapter`` interface (``base.py``); the planner
only ever sees ``AdapterResult``, so adding an adapter touches this registry and
nothing in plan, validate or commit.
"""

from __future__ import annotations

from transcribe_import.engine.planning.adapters.base import (
    Adapter,
    AdapterResult,
    Group,
    NotPlanned,
)
from transcribe_import.engine.planning.adapters.folders import FoldersAdapter
from transcribe_import.engine.planning.adapters.into import IntoAdapter, checked_notebook_id
from transcribe_import.engine.planning.adapters.pdfs import PdfsAdapter
from transcribe_import.engine.planning.adapters.prefix import PrefixAdapter
from transcribe_import.engine.planning.adapters.single import SingleAdapter

__all__ = [
    "ADAPTERS",
    "DEFAULT_MODE",
    "MODES",
    "Adapter",
    "AdapterResult",
    "Group",
    "NotPlanned",
    "adapter_for",
]

ADAPTERS: dict[str, Adapter] = {
    a.name: a
    for a in (FoldersAdapter(), PdfsAdapter(), PrefixAdapter(), SingleAdapter(), IntoAdapter())
}

DEFAULT_MODE = "folders"
# As a person types them: "into" takes its target after a colon.
MODES: tuple[str, ...] = ("folders", "pdfs", "prefix", "single", "into:NOTEBOOK_ID")


def adapter_for(mode: str) -> tuple[Adapter, str | None]:
    """The adapter for a ``--mode`` value, and the target notebook id for ``into:ID``."""
    name, colon, target = mode.partition(":")
    if name == "into":
        return ADAPTERS["into"], checked_notebook_id(target if colon else None)
    if name in ADAPTERS and not colon:
        return ADAPTERS[name], None
    raise ValueError(f"unknown mode {mode!r}; use one of {', '.join(MODES)}")
