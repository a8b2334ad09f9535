"""Export notebooks as a BagIt bag (docs/formats.md, "The export bag"); beside runs, never above."""

from transcribe_import.engine.export.bag import export_bag, resolve_notebooks
from transcribe_import.engine.export.destination import default_destination
from transcribe_import.engine.export.model import (
    ExportPhase,
    ExportProgress,
    ExportResult,
    ExportStatus,
    FileKind,
    MissingFile,
    MissingReason,
    NotebookExport,
    chain_hash,
)
from transcribe_import.engine.export.verify import BagCheck, verify_bag

__all__ = [
    "BagCheck",
    "ExportPhase",
    "ExportProgress",
    "ExportResult",
    "ExportStatus",
    "FileKind",
    "MissingFile",
    "MissingReason",
    "NotebookExport",
    "chain_hash",
    "default_destination",
    "export_bag",
    "resolve_notebooks",
    "verify_bag",
]
