"""The export's small tag texts: bag-info.txt's lines and the EXPORT-INCOMPLETE.txt note."""

from __future__ import annotations

from datetime import datetime

from transcribe_import.engine.export.model import ExportStatus
from transcribe_import.engine.storage.bag_format import BAGIT_TXT


def bag_info(
    *,
    software: str,
    started: datetime,
    exported_at: str,
    payload_bytes: int,
    payload_files: int,
    corpus_id: str,
    export_id: str,
    status: ExportStatus,
    notebooks: int,
) -> bytes:
    lines = [
        ("Bag-Software-Agent", software),
        ("Bagging-Date", started.strftime("%Y-%m-%d")),
        ("Payload-Oxum", f"{payload_bytes}.{payload_files}"),
        ("External-Identifier", corpus_id),
        ("Bag-Count", "1 of 1"),
        ("Transcribe-Export-Id", export_id),
        ("Transcribe-Export-Status", str(status)),
        ("Transcribe-Notebook-Count", str(notebooks)),
        ("Transcribe-Exported-At", exported_at),
    ]
    return "".join(f"{k}: {v}\n" for k, v in lines).encode("utf-8")


def incomplete_note(export_id: str, started: str, state: str) -> bytes:
    return (
        f"This folder is an export by transcribe-import (export {export_id}, started "
        f"{started}) that did not finish: {state}\n\n"
        "It is not a valid bag: do not import or archive it. Delete the folder and export "
        "again.\n\n"
        f"(If {BAGIT_TXT} is present, the export was cut short after writing it, or is still "
        "running: transcribe-import refuses to import the bag while this note is here. Only if "
        "the export ended with exit 0 and warned that it could not remove this note is the bag "
        "whole; then delete this note.)\n"
    ).encode()
