"""The ingest transaction's finish step: promote staged files, commit project.json, end.

A live ingest and recovery of a dead one take exactly these steps, from the journal's
``promoting`` or ``manifest_pending`` state, so both end the same way.
"""

from __future__ import annotations

from pathlib import Path

from transcribe_import.engine.base.clock import utc_now
from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.ingest import journal, placement
from transcribe_import.engine.ingest.journal import Journal, JournalState
from transcribe_import.engine.storage import fsio, project


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
    """From `manifest_pending`: make project.json list the journal's entries, then clear it.

    The pages go where the journal says (``placement.apply_pages``): at the end, after a
    page, or in the place of the page each rescan replaces.
    """
    manifest = project.read(nb_dir, txn.doc["notebook_id"])
    have = project.ids_of(manifest)
    new_sources = [s for s in txn.sources if s["id"] not in have.sources]
    # A page the notebook lists (or once listed: a rescan replaced it) is never added again;
    # a bag's replaced pages (history) bring only their files, their records came with it.
    history = set(txn.doc.get("history", []))
    new_pages = [p for p in txn.pages if p["id"] not in have.landed and p["id"] not in history]
    landed = placement.land_history(manifest, [p for p in txn.pages if p["id"] in history])
    if new_sources or new_pages or landed:
        now = utc_now()
        manifest["sources"].extend(new_sources)
        placement.apply_pages(
            manifest,
            new_pages,
            placement=txn.doc.get("placement"),
            replacements=txn.doc.get("replacements", {}),
            import_run_id=txn.doc.get("import_run_id"),
            item_id=txn.doc.get("item_id"),
            now=now,
        )
        cover = txn.doc.get("cover_page_id")
        if cover and not manifest.get("cover_page_id"):
            manifest["cover_page_id"] = cover
        manifest["updated_at"] = now
        project.write(nb_dir, manifest)
    crashpoint("ingest.after_manifest")
    fsio.remove_tree(txn.staging_dir(nb_dir))
    crashpoint("ingest.after_staging_removed")
    fsio.remove(nb_dir / journal.JOURNAL_FILE)
    fsio.fsync_dir(nb_dir)
    crashpoint("ingest.after_journal_removed")
