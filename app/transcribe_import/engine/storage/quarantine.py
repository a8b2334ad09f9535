"""Quarantine: set an unreadable file aside under corpus/quarantine/ with a report; never delete.

The one way the engine puts a damaged journal, run record or index out of the way.
The file is moved (or, for the index, which is rewritten in place, copied) first
and both folders are fsynced, then the report is written beside it; a kill
between the two leaves a file without its report, which ``held_files`` (run by
doctor) completes, so the trail is never lost.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from transcribe_import.engine.base.clock import stamp_for_filename, utc_now
from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.storage import fsio

if TYPE_CHECKING:
    from transcribe_import.engine.storage.corpus import Corpus

REPORT_FORMAT = "transcribe.quarantine-report"
_REPORT_SUFFIX = ".report.json"


def quarantine(
    corpus: Corpus,
    path: Path,
    label: str,
    reason: str,
    *,
    notebook_id: str | None = None,
    copy: bool = False,
) -> Path:
    """Put ``path`` in quarantine as ``<stamp>-<label><suffix>`` with a report; returns its path."""
    fsio.make_dirs(fsio.corpus_folder(corpus.root, corpus.quarantine_dir))
    target = corpus.quarantine_dir / f"{stamp_for_filename()}-{label}{path.suffix}"
    if copy:
        fsio.atomic_write(target, fsio.read_bytes(path))
    else:
        fsio.replace(path, target)
        fsio.fsync_dir(path.parent)
    fsio.fsync_dir(corpus.quarantine_dir)
    crashpoint("quarantine.after_move")
    write_report(target, notebook_id, str(path), reason)
    return target


def report_path(quarantined: Path) -> Path:
    return quarantined.with_name(quarantined.stem + _REPORT_SUFFIX)


def write_report(target: Path, notebook_id: str | None, origin: str, reason: str) -> None:
    report = {
        "format": REPORT_FORMAT,
        "schema_version": 1,
        "quarantined_file": target.name,
        "original_path": origin,
        "notebook_id": notebook_id,
        "reason": reason,
        "quarantined_at": utc_now(),
    }
    fsio.atomic_write(report_path(target), orjson.dumps(report, option=orjson.OPT_INDENT_2))


def held_files(corpus: Corpus) -> list[Path]:
    """The files kept in quarantine; a missing report (killed after the move) is written now."""
    names = fsio.list_dir(fsio.corpus_folder(corpus.root, corpus.quarantine_dir), missing_ok=True)
    held = [
        corpus.quarantine_dir / n
        for n in names
        if not n.endswith(_REPORT_SUFFIX) and not n.startswith(".")
    ]
    for target in held:
        if not fsio.exists(report_path(target)):
            write_report(target, None, "unknown", "report reconstructed by doctor")
    return held
