"""Adapter "folders" (the default): one notebook per folder that directly holds page files."""

from __future__ import annotations

from pathlib import Path

from transcribe_import.engine.planning.adapters.base import (
    AdapterResult,
    Group,
    clean_title,
    folder_label,
    in_natural_order,
    result,
)
from transcribe_import.engine.planning.plan import Op
from transcribe_import.engine.planning.scan import ScannedFile, ScanResult


class FoldersAdapter:
    """Boxes of notebooks work: box/nb1 and box/nb2 are two notebooks, box's own pages a third.

    Files given directly (not in a given folder) group by the folder they are in.
    """

    name = "folders"

    def group(
        self, scan: ScanResult, *, title: str | None = None, notebook_id: str | None = None
    ) -> AdapterResult:
        # Keyed by the folder as walked (not by rel): two folders whose names differ only in
        # Unicode normalisation share a rel but are different notebooks.
        by_folder: dict[Path, list[ScannedFile]] = {}
        for f in scan.files:
            by_folder.setdefault(f.path.parent, []).append(f)
        groups = []
        for folder, files in by_folder.items():
            label = folder_label(files[0])
            groups.append(
                Group(
                    op=Op.CREATE_NOTEBOOK,
                    title=clean_title(label.rsplit("/", 1)[-1], label),
                    notebook_id=None,
                    files=in_natural_order(files),
                    label=label,
                    provenance={"adapter": self.name, "folder": str(folder)},
                )
            )
        return result(groups)
