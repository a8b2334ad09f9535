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
from transcribe_import.engine.planning.plan import AdapterMode, ModeName

__all__ = [
    "ADAPTERS",
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


def adapter_for(mode: AdapterMode) -> tuple[Adapter, str | None]:
    """The adapter for a mode, and the target notebook's id for ``into`` (an id by now: the
    corpus resolved a prefix or a title, ``api.plan_paths``)."""
    if mode.name is ModeName.BAG:
        raise ValueError("mode bag plans bags, not scanned files: planning/bag.py plans them")
    if mode.name is ModeName.INTO:
        return ADAPTERS[mode.name], checked_notebook_id(mode.target)
    return ADAPTERS[mode.name], None
