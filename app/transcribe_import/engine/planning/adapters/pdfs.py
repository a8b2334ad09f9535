"""Adapter "pdfs": every PDF becomes its own notebook, titled from its file name."""

from __future__ import annotations

from transcribe_import.engine.media.kinds import PDF
from transcribe_import.engine.planning.adapters.base import (
    AdapterResult,
    Group,
    clean_title,
    not_planned,
    result,
    stem,
)
from transcribe_import.engine.planning.plan import Op
from transcribe_import.engine.planning.scan import ScannedFile, ScanResult


def is_pdf(f: ScannedFile) -> bool:
    # A damaged PDF has no media type; its name still says what it was meant to be, and it
    # gets its own item so validate can report it.
    if f.media_type is not None:
        return f.media_type == PDF
    return f.name.lower().endswith(".pdf")


class PdfsAdapter:
    name = "pdfs"

    def group(
        self, scan: ScanResult, *, title: str | None = None, notebook_id: str | None = None
    ) -> AdapterResult:
        groups = []
        skipped = []
        for f in scan.files:
            if not is_pdf(f):
                skipped.append(
                    not_planned(
                        f,
                        "an image in a PDF tree: pdfs mode imports only PDFs; plan images "
                        "by folder",
                    )
                )
                continue
            groups.append(
                Group(
                    op=Op.CREATE_NOTEBOOK,
                    title=clean_title(stem(f.name), f.name),
                    notebook_id=None,
                    files=(f,),
                    label=f.rel,
                    provenance={"adapter": self.name, "pdf": str(f.path)},
                )
            )
        return result(groups, skipped)
