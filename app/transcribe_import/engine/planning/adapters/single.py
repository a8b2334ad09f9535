"""Adapter "single": everything scanned becomes one new notebook."""

from __future__ import annotations

from transcribe_import.engine.base.text import display_name
from transcribe_import.engine.planning.adapters.base import (
    AdapterResult,
    Group,
    clean_title,
    in_natural_order,
    result,
    roots_label,
    stem,
)
from transcribe_import.engine.planning.plan import Op
from transcribe_import.engine.planning.scan import ScanResult


class SingleAdapter:
    name = "single"

    def group(
        self, scan: ScanResult, *, title: str | None = None, notebook_id: str | None = None
    ) -> AdapterResult:
        if title is not None and not title.strip():
            raise ValueError("the notebook title is empty; give a title or leave it out")
        if not scan.files:
            return result([])
        if title is None:
            first = scan.roots[0]
            name = display_name(first.name or str(first))
            # A file given directly names the notebook without its extension.
            is_file = any(f.path == first for f in scan.files)
            title = stem(name) if is_file else name
        label = roots_label(scan.roots)
        group = Group(
            op=Op.CREATE_NOTEBOOK,
            title=clean_title(title, label),
            notebook_id=None,
            files=in_natural_order(scan.files),
            label=label,
            provenance={"adapter": self.name, "roots": [str(r) for r in scan.roots]},
        )
        return result([group])
