"""Adapter "into": everything scanned is added to one existing notebook."""

from __future__ import annotations

from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.base.ids import check_id
from transcribe_import.engine.planning.adapters.base import (
    AdapterResult,
    Group,
    in_natural_order,
    result,
    roots_label,
)
from transcribe_import.engine.planning.plan import Op
from transcribe_import.engine.planning.scan import ScanResult


def checked_notebook_id(value: str | None) -> str:
    """``value`` if it is a notebook id (a lower-case UUID); ValueError saying what to do."""
    if value is None or not value:
        raise ValueError(
            "mode into needs the target notebook: into:NOTEBOOK "
            "(`transcribe-import notebooks` lists them)"
        )
    try:
        return check_id(value, "notebook id")
    except TranscribeError:
        raise ValueError(
            f"mode into:{value}: {value!r} is not a notebook id (a lower-case UUID); "
            "`transcribe-import notebooks` lists the ids"
        ) from None


class IntoAdapter:
    name = "into"

    def group(
        self, scan: ScanResult, *, title: str | None = None, notebook_id: str | None = None
    ) -> AdapterResult:
        target = checked_notebook_id(notebook_id)
        if not scan.files:
            return result([])
        group = Group(
            op=Op.IMPORT_INTO_NOTEBOOK,
            title=None,
            notebook_id=target,
            files=in_natural_order(scan.files),
            label=roots_label(scan.roots),
            provenance={"adapter": self.name, "roots": [str(r) for r in scan.roots]},
        )
        return result([group])
