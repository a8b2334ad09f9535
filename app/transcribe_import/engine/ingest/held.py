"""What a notebook holds already, by bytes: the one rule for a duplicate inside a notebook.

Planning asks it (``dedupe.classify``, ``IN_NOTEBOOK``) and so does the commit, under the
notebook's lock (``transaction``, ``skip_held``): one function, so the two never disagree
about which source is a duplicate. It lives here, below planning, because the commit is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def source_hashes(manifest: Mapping[str, Any]) -> dict[str, str]:
    """sha256 -> source id of the sources a notebook's ``project.json`` lists."""
    return {
        s["sha256"]: s["id"]
        for s in manifest["sources"]
        if isinstance(s, dict) and isinstance(s.get("sha256"), str) and isinstance(s.get("id"), str)
    }


def held_as_another(hashes: Mapping[str, str] | None, sha256: str, source_id: str | None) -> bool:
    """Whether the notebook holds these bytes as another source (a duplicate of it).

    ``hashes`` is the notebook's ``source_hashes`` (None or empty: a notebook that does
    not exist yet). ``source_id`` is the source's own id: a notebook holding the source
    itself (a retry after its import landed) holds no duplicate of it.
    """
    owner = hashes.get(sha256) if hashes else None
    return owner is not None and owner != source_id
