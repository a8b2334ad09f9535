"""Recovery over what is on disk: finish or undo dead ingest journals, quarantine corrupt ones.

Everything here is idempotent and safe to kill at any point and run again: it
only moves forward along the journal's states, never deletes a file that
``project.json`` references, and never deletes a journal it cannot read.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.base.findings import Finding, FindingCode, Remedy, Severity
from transcribe_import.engine.base.ids import short_id
from transcribe_import.engine.base.text import counted, quoted_title
from transcribe_import.engine.ingest import journal
from transcribe_import.engine.ingest.finish import promote_and_commit
from transcribe_import.engine.ingest.journal import Journal, JournalInvalid, JournalState
from transcribe_import.engine.storage import fsio, locks, project
from transcribe_import.engine.storage.quarantine import quarantine

if TYPE_CHECKING:
    from collections.abc import Callable

    from transcribe_import.engine.storage.corpus import Corpus

    # A run's id -> the command that commits its frozen plan again once the run has ended
    # (None while it can still be resumed): the remedy is chosen before the finding is worded.
    FinishCommand = Callable[[str], str | None]


# -- recovering one notebook's journal -----------------------------------------------------


def recover_journal(
    corpus: Corpus,
    notebook_id: str,
    *,
    lock_held: bool = False,
    finish_command: FinishCommand | None = None,
) -> list[Finding]:
    """Finish or undo one notebook's dead journal by its state (docs/formats.md), if it has one.

    ``finish_command`` says, for a checkpoint undone, whether its run has ended (doctor's
    question): then Finish Import, not Resume, imports its pages again.
    """
    nb_dir = corpus.notebook_dir(notebook_id)
    path = nb_dir / journal.JOURNAL_FILE
    if not fsio.exists(path):
        return []
    if lock_held:
        return _recover_locked(corpus, notebook_id, nb_dir, finish_command)
    lock = locks.make_lock(nb_dir / journal.LOCK_FILE)
    if not locks.try_acquire(lock):
        return [
            Finding(
                FindingCode.JOURNAL_LIVE,
                Severity.INFO,
                f"{_name(nb_dir, notebook_id)} has an import in progress in another process; "
                "left alone.",
                notebook_id,
                str(path),
            )
        ]
    try:
        return _recover_locked(corpus, notebook_id, nb_dir, finish_command)
    finally:
        lock.release()


def _recover_locked(
    corpus: Corpus, notebook_id: str, nb_dir: Path, finish_command: FinishCommand | None
) -> list[Finding]:
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
        return [
            _finding_back(notebook_id, path, txn, "it had not finished staging", finish_command)
        ]

    if txn.state == JournalState.PROMOTING:
        missing = [f for f in txn.files(nb_dir) if not _present_with_hash(f)]
        if missing:
            _roll_back(nb_dir, txn)
            why = f"{missing[0].final.name} was not staged intact"
            return [_finding_back(notebook_id, path, txn, why, finish_command)]
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


def _finding_back(
    notebook_id: str,
    path: Path,
    txn: Journal,
    why: str,
    finish_command: FinishCommand | None,
) -> Finding:
    """A checkpoint undone: named by the notebook's title, with what imports its pages again
    (the run it belonged to, resumed; committing its plan again once it has ended)."""
    name = _name(path.parent, notebook_id)
    pages = counted(len(txn.pages), "page")
    said = f"an interrupted import of {pages} was undone because {why}; the notebook is as it "
    said += "was before it."
    # The window's words name it by its title alone; the CLI's add its short id.
    situation = f"{_title(name)}: {said}"
    said = f"{name}: {said}"
    run_id = txn.doc.get("import_run_id")
    if not run_id:
        return Finding(
            FindingCode.JOURNAL_ROLLED_BACK,
            Severity.REPAIRED,
            f"{said} Import those pages again.",
            notebook_id,
            str(path),
        )
    command = finish_command(str(run_id)) if finish_command is not None else None
    if command is None:
        remedy = Remedy.RESUME_RUN
        remedy_said = "Resuming its import"
        command = f"transcribe-import resume {short_id(str(run_id))}"
    else:
        remedy = Remedy.FINISH_IMPORT
        remedy_said = "Finishing its import"
    return Finding(
        FindingCode.JOURNAL_ROLLED_BACK,
        Severity.REPAIRED,
        f"{said} {remedy_said} imports them again: `{command}`.",
        notebook_id,
        str(path),
        situation=situation,
        remedies=(remedy,),
        run_id=str(run_id),
    )


def _title(name: str) -> str:
    """A notebook's name as the window says it: its “title” alone, when it has one."""
    return name.rsplit(" (", 1)[0] if name.startswith("“") else name


def _name(nb_dir: Path, notebook_id: str) -> str:
    """The notebook as a person knows it: “title” (short id), or its short id unreadable."""
    try:
        title = project.read(nb_dir, notebook_id).get("title")
    except (OSError, TranscribeError, ValueError):
        title = None
    short = short_id(notebook_id)
    return f"{quoted_title(title)} ({short})" if title else f"Notebook {short}"


def _finding_forward(notebook_id: str, path: Path, txn: Journal) -> Finding:
    return Finding(
        FindingCode.JOURNAL_ROLLED_FORWARD,
        Severity.REPAIRED,
        f"{_title(_name(path.parent, notebook_id))}: an interrupted import of "
        f"{counted(len(txn.pages), 'page')} was completed from its journal.",
        notebook_id,
        str(path),
    )


def quarantine_journal(corpus: Corpus, notebook_id: str, path: Path, reason: str) -> Finding:
    """Move an unreadable journal to corpus/quarantine/ with a report beside it; never delete it."""
    target = quarantine(
        corpus, path, f"{notebook_id}-ingest-journal", reason, notebook_id=notebook_id
    )
    return Finding(
        FindingCode.JOURNAL_QUARANTINED,
        Severity.PROBLEM,
        f"{_name(path.parent, notebook_id)}: its ingest journal could not be read ({reason}); "
        f"it was moved to {target} and the notebook left as its project.json says. Check that "
        "notebook's last import and import it again if pages are missing.",
        notebook_id,
        str(target),
    )
