"""Adapter for a bag another tool made: its ``data/`` planned as folder mode plans a folder.

The bag was checked whole (``storage/bag_format.verify_bag``) and its page files scanned
against that check (``planning/bag.scan_payload``). Each folder of page files under
``data/`` is a notebook titled by its name, as in folder mode; the page files directly in
``data/`` are one titled from bag-info.txt (``planning/bag.flat_title``), never "data".
Each notebook keeps bag-info.txt as its provenance in project.json.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from transcribe_import.engine.planning.adapters.base import AdapterResult, result
from transcribe_import.engine.planning.adapters.folders import FoldersAdapter
from transcribe_import.engine.planning.bag import flat_title, notebook_provenance
from transcribe_import.engine.planning.scan import ScanResult
from transcribe_import.engine.storage.bag_format import DATA, VerifiedBag


class ForeignBagAdapter:
    """Folder mode over the payloads of ``bags`` (bags this app did not export)."""

    name = "bag"

    def __init__(self, bags: Sequence[VerifiedBag]) -> None:
        self.bags = tuple(bags)

    def group(
        self, scan: ScanResult, *, title: str | None = None, notebook_id: str | None = None
    ) -> AdapterResult:
        planned = FoldersAdapter().group(scan)
        groups = []
        for group in planned.groups:
            folder = group.files[0].path.parent
            bag = next(b for b in self.bags if b.root in folder.parents)
            groups.append(
                dataclasses.replace(
                    group,
                    title=flat_title(bag) if folder == bag.root / DATA else group.title,
                    provenance={
                        **group.provenance,
                        "adapter": self.name,
                        "bag": str(bag.root),
                        "notebook": notebook_provenance(bag),
                    },
                )
            )
        return result(groups, planned.not_planned)
