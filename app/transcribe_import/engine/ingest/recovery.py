"""Recovery over what is on disk: finish or undo dead ingest journals, quarantine corrupt ones.

Everything here is idempotent and safe to kill at any point and run again: it
only moves forward along the journal's states, never deletes a file that
``project.json`` references, and never deletes a journal it cannot read.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from transcribe_import.engine.base.clock import stamp_for_filename, utc_now
from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.ingest import journal
from transcribe_import.engine.ingest.journal import Journal, JournalInvalid, JournalState
from transcribe_import.engine.storage import fsio, locks, project

if TYPE_CHECKING:
    from transcribe_import.engine.storage.corpus import Corpus


class Severity(enum.StrEnum):
    REPAIRED = "repaired"  # recovery acted, the corpus is whole again
    PROBLEM = "problem"  # needs a person
    INFO = "info"


class FindingCode(enum.StrEnum):
    JOURNAL_ROLLED_BACK = "journal_rolled_back"
    JOURNAL_ROLLED_FORWARD = "journal_rolled_forward"
    JOURNAL_QUARANTINED = "journal_quarantined"
    JOURNAL_LIVE = "journal_live"
    JOURNAL_UNRECOVERABLE = "journal_unrecoverable"
    REGISTRATION_COMPLETED = "registration_completed"
    INCOMPLETE_CREATE_REMOVED = "incomplete_create_removed"
    UNREGISTERED_DIRECTORY = "unregistered_directory"
    REGISTERED_WITHOUT_MANIFEST = "registered_without_manifest"
    MANIFEST_INVALID = "manifest_invalid"
    FILE_MISSING = "file_missing"
    FILE_HASH_MISMATCH = "file_hash_mismatch"
    ORPHAN_FILE = "orphan_file"
    DUPLICATE_ID = "duplicate_id"
    INDEX_DAMAGED = "index_damaged"
    INDEX_REPAIRED = "index_repaired"
    QUARANTINE_PRESENT = "quarantine_present"
    IO_ERROR = "io_error"
    INTERRUPTED_RUN = "interrupted_run"
    RUN_QUARANTINED = "run_quarantined"


@dataclass(frozen=True)
class Finding:
    code: FindingCode
    severity: Severity
    message: str
    notebook_id: str | None = None
    path: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "code": str(self.code),
            "severity": str(self.severity),
            "message": self.message,
            "notebook_id": self.notebook_id,
            "path": self.path,
        }


# -- the forward path shared by ingest and recovery ----------------------------------------


def promote_and_commit(nb_dir: Path, txn: Journal) -> None:
    """From `promoting`: move staged files into place, then commit the manifest.

    Used by a live ingest and by recovery alike, so both take the same steps.
    A file already at its final place (an earlier attempt moved it) is left there.
    """
    moved = False
    for f in txn.files(nb_dir):
        if fsio.exists(f.staged):
            fsio.make_dirs(f.final.parent)
            fsio.replace(f.staged, f.final)
            moved = True
            crashpoint("ingest.promote.after_file")
    if moved:
        for sub in ("sources", "renders"):
            if fsio.exists(nb_dir / sub):
                fsio.fsync_dir(nb_dir / sub)
    if txn.state != JournalState.MANIFEST_PENDING:
        txn.doc["state"] = JournalState.MANIFEST_PENDING.value
        txn.doc["updated_at"] = utc_now()
        journal.write(nb_dir, txn)
    crashpoint("ingest.after_promote")
    commit_manifest(nb_dir, txn)


def commit_manifest(nb_dir: Path, txn: Journal) -> None:
    """From `manifest_pending`: make project.json list the journal's entries, then clear it."""
    manifest = project.read(nb_dir, txn.doc["notebook_id"])
    have = project.ids_of(manifest)
    new_sources = [s for s in txn.sources if s["id"] not in have.sources]
    new_pages = [p for p in txn.pages if p["id"] not in have.pages]
    if new_sources or new_pages:
        manifest["sources"].extend(new_sources)
        manifest["pages"].extend(new_pages)
        cover = txn.doc.get("cover_page_id")
        if cover and not manifest.get("cover_page_id"):
            manifest["cover_page_id"] = cover
        manifest["updated_at"] = utc_now()
        project.write(nb_dir, manifest)
    crashpoint("ingest.after_manifest")
    fsio.remove_tree(txn.staging_dir(nb_dir))
    crashpoint("ingest.after_staging_removed")
    fsio.remove(nb_dir / journal.JOURNAL_FILE)
    fsio.fsync_dir(nb_dir)
    crashpoint("ingest.after_journal_removed")


# -- recovering one notebook's journal -----------------------------------------------------


def recover_journal(corpus: Corpus, notebook_id: str, *, lock_held: bool = False) -> list[Finding]:
    """Apply project-on-disk.md's recovery rules to one notebook's journal, if it has one."""
    nb_dir = corpus.notebook_dir(notebook_id)
    path = nb_dir / journal.JOURNAL_FILE
    if not fsio.exists(path):
        return []
    if lock_held:
        return _recover_locked(corpus, notebook_id, nb_dir)
    lock = locks.make_lock(nb_dir / journal.LOCK_FILE)
    if not locks.try_acquire(lock):
        return [
            Finding(
                FindingCode.JOURNAL_LIVE,
                Severity.INFO,
                f"Notebook {notebook_id} has an import in progress in another process; left alone.",
                notebook_id,
                str(path),
            )
        ]
    try:
        return _recover_locked(corpus, notebook_id, nb_dir)
    finally:
        lock.release()


def _recover_locked(corpus: Corpus, notebook_id: str, nb_dir: Path) -> list[Finding]:
    path = nb_dir / journal.JOURNAL_FILE
    # We hold the ingest lock, so a temp file of atomic_write here belongs to a dead writer.
    fsio.remove_stale_temps(nb_dir)
    try:
        data = fsio.read_bytes(path)
    except FileNotFoundError:
        return []
    try:
        txn = journal.parse(data, notebook_id)
    except JournalInvalid as exc:
        return [quarantine_journal(corpus, notebook_id, path, str(exc))]

    if txn.state == JournalState.STAGING:
        _roll_back(nb_dir, txn)
        return [_finding_back(notebook_id, path, txn, "it had not finished staging")]

    if txn.state == JournalState.PROMOTING:
        missing = [f for f in txn.files(nb_dir) if not _present_with_hash(f)]
        if missing:
            _roll_back(nb_dir, txn)
            why = f"{missing[0].final.name} was not staged intact"
            return [_finding_back(notebook_id, path, txn, why)]
        promote_and_commit(nb_dir, txn)
        return [_finding_forward(notebook_id, path, txn)]

    # manifest_pending: the promoted files must be there; roll forward only onto whole files.
    manifest = project.read(nb_dir, notebook_id)
    have = project.ids_of(manifest)
    if not all(s["id"] in have.sources for s in txn.sources):
        bad = [f for f in txn.files(nb_dir) if not _present_with_hash(f)]
        if bad:
            return [
                quarantine_journal(
                    corpus,
                    notebook_id,
                    path,
                    f"manifest_pending but {bad[0].final} is missing or damaged",
                )
            ]
    promote_and_commit(nb_dir, txn)
    return [_finding_forward(notebook_id, path, txn)]


def _present_with_hash(f: journal.StagedFile) -> bool:
    """A file counts if it is staged or final with the journaled hash (boundaries 3 and 4)."""
    if f.sha256 is None:
        return False
    for candidate in (f.final, f.staged):
        try:
            if fsio.is_file(candidate) and fsio.hash_file(candidate)[0] == f.sha256:
                return True
        except FileNotFoundError:
            continue
    return False


def _roll_back(nb_dir: Path, txn: Journal) -> None:
    """Delete what this journal staged or promoted, but never a file project.json references."""
    manifest = project.read(nb_dir, txn.doc["notebook_id"])
    keep = project.referenced_files(manifest)
    for f in txn.files(nb_dir):
        rel = f.final.relative_to(nb_dir).as_posix()
        if rel not in keep:
            fsio.remove(f.final)
    fsio.remove_tree(txn.staging_dir(nb_dir))
    crashpoint("recover.after_rollback_files")
    fsio.remove(nb_dir / journal.JOURNAL_FILE)
    fsio.fsync_dir(nb_dir)


def _finding_back(notebook_id: str, path: Path, txn: Journal, why: str) -> Finding:
    return Finding(
        FindingCode.JOURNAL_ROLLED_BACK,
        Severity.REPAIRED,
        f"Notebook {notebook_id}: an interrupted import ({len(txn.pages)} pages) was undone "
        f"because {why}; the notebook is as it was before it. Import those pages again.",
        notebook_id,
        str(path),
    )


def _finding_forward(notebook_id: str, path: Path, txn: Journal) -> Finding:
    return Finding(
        FindingCode.JOURNAL_ROLLED_FORWARD,
        Severity.REPAIRED,
        f"Notebook {notebook_id}: an interrupted import of {len(txn.pages)} pages was "
        "completed from its journal.",
        notebook_id,
        str(path),
    )


def quarantine_journal(corpus: Corpus, notebook_id: str, path: Path, reason: str) -> Finding:
    """Move an unreadable journal to corpus/quarantine/ with a report beside it; never delete it."""
    fsio.make_dirs(corpus.quarantine_dir)
    base = f"{stamp_for_filename()}-{notebook_id}-ingest-journal"
    target = corpus.quarantine_dir / f"{base}.json"
    fsio.replace(path, target)
    fsio.fsync_dir(corpus.quarantine_dir)
    fsio.fsync_dir(path.parent)
    crashpoint("quarantine.after_move")
    write_quarantine_report(target, notebook_id, str(path), reason)
    return Finding(
        FindingCode.JOURNAL_QUARANTINED,
        Severity.PROBLEM,
        f"Notebook {notebook_id}: its ingest journal could not be read ({reason}); it was moved "
        f"to {target} and the notebook left as its project.json says. Check that notebook's "
        "last import and import it again if pages are missing.",
        notebook_id,
        str(target),
    )


def report_path(quarantined: Path) -> Path:
    return quarantined.with_name(quarantined.stem + ".report.json")


def write_quarantine_report(
    target: Path, notebook_id: str | None, origin: str, reason: str
) -> None:
    report = {
        "format": "transcribe.quarantine-report",
        "schema_version": 1,
        "quarantined_file": target.name,
        "original_path": origin,
        "notebook_id": notebook_id,
        "reason": reason,
        "quarantined_at": utc_now(),
    }
    fsio.atomic_write(report_path(target), orjson.dumps(report, option=orjson.OPT_INDENT_2))
