"""The ingest transaction: add sources and pages to one notebook, all or nothing.

stage → journal → promote → atomic ``project.json`` replace (docs/formats.md).
Every id is preallocated by the caller, so a retry after any crash lands on the
same ids and ingesting ids the manifest already lists is a no-op.

A notebook is created by the transaction that lands its first pages (``create``):
that transaction runs in a hidden ``notebooks/.creating-<id>/`` folder, which is
renamed into place and registered only once its ``project.json`` lists the pages,
so a notebook never appears without pages and a creation stopped or killed before
that leaves nothing the corpus shows (the hidden folder is removed by the next
attempt or by doctor).

This module holds the order of the steps (check, claim, journal, stage, promote, and a
first transaction's hidden folder), which share one lock and one rollback discipline.
Each step's work is a module of its own: the request (``request``), copying and
rendering (``staging``), the journal (``journal``), promoting (``finish``), recovery
(``recovery``), long sources (``checkpoints``) and where the pages go (``placement``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from transcribe_import.engine.base.clock import utc_now
from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.findings import FindingCode
from transcribe_import.engine.base.ids import check_id, new_id
from transcribe_import.engine.base.text import counted, json_safe
from transcribe_import.engine.ingest import held, journal, recovery
from transcribe_import.engine.ingest.finish import promote_and_commit
from transcribe_import.engine.ingest.journal import Journal, JournalState
from transcribe_import.engine.ingest.placement import checked_anchor

# The request's values are re-exported: callers name them with ``ingest`` from here.
from transcribe_import.engine.ingest.request import (
    IngestCancelled,
    IngestRequest,
    IngestResult,
    NewNotebook,
    PageSpec,
    RenderSpec,
    SourceSpec,
    Work,
    check_request,
)
from transcribe_import.engine.ingest.staging import stage_all
from transcribe_import.engine.media import thumbs
from transcribe_import.engine.media.kinds import RenderSettings
from transcribe_import.engine.storage import fsio, locks, project
from transcribe_import.engine.storage.corpus import CREATING_PREFIX, Corpus, IndexEntry

__all__ = [
    "IngestCancelled",
    "IngestRequest",
    "IngestResult",
    "NewNotebook",
    "PageSpec",
    "RenderSpec",
    "SourceSpec",
    "creating_dir",
    "ingest",
    "recover_creation",
    "remove_dead_creation",
]


def _journal_for(
    req: IngestRequest, txn_id: str, manifest: dict[str, Any], where: dict[str, Any] | None
) -> Journal:
    """The journal of ``req`` into the notebook ``manifest`` (read under its lock);
    ``where``: the page the new pages follow (``placement.anchor``), None for the end."""
    # A rescan keeps the label of the page it replaces ("12v"), unless it has its own.
    replaces = dict(req.replaces)
    labels = {
        p.get("id"): p["label"]
        for p in manifest["pages"]
        if isinstance(p, dict) and isinstance(p.get("label"), str)
    }
    sources: list[dict[str, Any]] = []
    pages: list[dict[str, Any]] = []
    for s in req.sources:
        # A bag's own keys first, so the importer's (ids, hashes, paths) always win.
        entry: dict[str, Any] = {
            **dict(s.extra or {}),
            "id": s.source_id,
            "sha256": s.sha256,
            "media_type": s.media_type,
            "size": None,
            "path": journal.source_rel_path(s.source_id, s.media_type),
            "page_count": len(s.pages) if s.page_count is None else s.page_count,
            "import_run_id": req.import_run_id,
            "item_id": req.item_id,
            "provenance": {"original_path": json_safe(str(s.path)), **dict(s.provenance)},
        }
        sources.append(entry)
        for p in s.pages:
            label = p.label if p.label is not None else labels.get(replaces.get(p.page_id))
            pages.append(
                {
                    **dict(p.extra or {}),
                    **({"label": label} if label is not None else {}),
                    "id": p.page_id,
                    "source_id": s.source_id,
                    "page_index": p.page_index,
                    "render_id": p.render_id,
                    "render": None,
                    # Later scans find rescans of it by this, without decoding it again.
                    **({"look": p.look} if p.look is not None else {}),
                    **({project.TURN: int(p.turn)} if p.turn else {}),
                }
            )
    if req.page_order is not None:
        position = {pid: k for k, pid in enumerate(req.page_order)}
        pages.sort(key=lambda p: position.get(p["id"], len(position)))
    now = utc_now()
    doc: dict[str, Any] = {
        "format": journal.JOURNAL_FORMAT,
        "schema_version": journal.JOURNAL_SCHEMA,
        "txn_id": txn_id,
        "notebook_id": req.notebook_id,
        "import_run_id": req.import_run_id,
        "item_id": req.item_id,
        "state": JournalState.STAGING.value,
        "cover_page_id": req.cover_page_id,
        "created_at": now,
        "updated_at": now,
        "sources": sources,
        "pages": pages,
    }
    # Only when there is something to say, so a plain append's journal is as it always was.
    ours = {p["id"] for p in pages}
    if where is not None:
        doc["placement"] = where
    if any(new in ours for new in replaces):
        doc["replacements"] = {new: old for new, old in replaces.items() if new in ours}
    if req.history:
        doc["history"] = [h for h in req.history if h in ours]
    return Journal(doc)


def ingest(
    corpus: Corpus,
    req: IngestRequest,
    settings: RenderSettings | None = None,
    *,
    workers: int = 2,
    lock_timeout: float = locks.INGEST_LOCK_TIMEOUT,
    should_stop: Callable[[], bool] | None = None,
    on_source_staged: Callable[[int], None] | None = None,
    create: NewNotebook | None = None,
) -> IngestResult:
    """Run one ingest transaction into an existing notebook, or one that creates it.

    With ``create``, a notebook that does not exist yet is created and registered with
    these pages (see the module's docstring); one whose folder exists but is not
    registered (a creation killed between its rename and its registration: boundary 1)
    is registered first. Raises TranscribeError (notebook left exactly as it was, or
    not created) or IngestCancelled.
    """
    work = Work(
        settings or RenderSettings(),
        workers,
        lock_timeout,
        should_stop,
        on_source_staged,
        thumbs.cache_dir(corpus.root),
    )
    check_request(req)
    nb_dir = corpus.notebook_dir(req.notebook_id)
    try:
        if create is not None:
            if not fsio.exists(nb_dir):
                made = _ingest_new(corpus, req, create, work)
                if made is not None:
                    return made
            elif not corpus.is_registered(req.notebook_id):
                # The winner is the project.json on disk: complete its registration.
                corpus.create_notebook(
                    req.notebook_id, create.title, import_run_id=create.import_run_id
                )
        return _ingest(corpus, req, nb_dir, work)
    except OSError as exc:
        # Each phase has already left the notebook whole (or its journal for recovery).
        raise fsio.problem_from_oserror(exc, nb_dir, "importing into notebook") from exc


def _ingest(corpus: Corpus, req: IngestRequest, nb_dir: Path, work: Work) -> IngestResult:
    if not fsio.is_dir(nb_dir):
        raise TranscribeError(
            ErrorCode.NOTEBOOK_NOT_FOUND,
            f"Notebook {req.notebook_id} does not exist in {corpus.root}.",
            item=req.notebook_id,
        )
    lock = locks.make_lock(nb_dir / journal.LOCK_FILE)
    with locks.hold(
        lock,
        work.lock_timeout,
        ErrorCode.NOTEBOOK_BUSY,
        lambda: (
            f"Notebook {corpus.notebook_short_ids()(req.notebook_id)} is being changed by "
            "another process (an import, or an undo of a run); wait for it and retry."
        ),
    ):
        # We hold the ingest lock: an atomic_write temp here belongs to a dead writer (a claim
        # killed mid-write leaves one and no journal, so recovery never sees it).
        fsio.remove_stale_temps(nb_dir)
        if fsio.exists(nb_dir / journal.JOURNAL_FILE):
            # A journal whose lock we could take belongs to a dead process: recover it first.
            recovery.recover_journal(corpus, req.notebook_id, lock_held=True)
            if fsio.exists(nb_dir / journal.JOURNAL_FILE):
                raise TranscribeError(
                    ErrorCode.JOURNAL_PENDING,
                    f"Notebook {req.notebook_id} has an unfinished transaction that could not "
                    "be recovered; run `transcribe-import doctor`.",
                    item=req.notebook_id,
                )
        return _ingest_locked(corpus, req, nb_dir, work)


def creating_dir(corpus: Corpus, notebook_id: str) -> Path:
    """The hidden folder where a notebook's first transaction runs before it is renamed in.

    Its ``.ingest.lock`` is held while that transaction runs (and becomes the notebook's
    own ingest lock file once the folder is renamed into place): a folder whose lock
    is free belongs to a dead attempt and is removed (``remove_dead_creation``).
    """
    return corpus.notebooks_dir / f"{CREATING_PREFIX}{check_id(notebook_id, 'notebook_id')}"


def remove_dead_creation(corpus: Corpus, notebook_id: str) -> bool:
    """Remove the hidden folder of a creation nobody runs; the caller holds the corpus lock.

    Returns False, leaving it, when a live process holds its lock. Its pages were never
    shown: the run that made it imports them again.
    """
    shell = creating_dir(corpus, notebook_id)
    if not fsio.exists(shell):
        return True
    lock = locks.make_lock(shell / journal.LOCK_FILE)
    if not locks.try_acquire(lock):
        return False
    try:
        fsio.remove_tree(shell)
        fsio.fsync_dir(corpus.notebooks_dir)
    finally:
        lock.release()
    return True


def recover_creation(corpus: Corpus, notebook_id: str, create: NewNotebook) -> None:
    """What a dead attempt left of a notebook's creation: boundaries 1 and 2, before work.

    A folder renamed into place but not registered is registered (its project.json wins);
    a hidden creation folder nobody runs is removed.
    """
    if fsio.exists(creating_dir(corpus, notebook_id)):
        with corpus.locked():
            remove_dead_creation(corpus, notebook_id)
    if fsio.exists(corpus.notebook_dir(notebook_id)) and not corpus.is_registered(notebook_id):
        corpus.create_notebook(notebook_id, create.title, import_run_id=create.import_run_id)


def _ingest_new(
    corpus: Corpus, req: IngestRequest, create: NewNotebook, work: Work
) -> IngestResult | None:
    """Create the notebook with this transaction's pages; None if it exists by now."""
    nbid = req.notebook_id
    final = corpus.notebook_dir(nbid)
    shell = creating_dir(corpus, nbid)
    lock = locks.make_lock(shell / journal.LOCK_FILE)
    busy = TranscribeError(
        ErrorCode.NOTEBOOK_BUSY,
        f"Notebook {nbid} is being created by another import; wait for it and retry.",
        item=nbid,
    )
    # Made and locked under the corpus lock, so doctor (which removes a creation folder
    # whose lock is free under that lock too) never takes one being started for a dead one.
    with corpus.locked():
        if fsio.exists(final):
            return None  # created since we looked: an ordinary transaction into it
        if not remove_dead_creation(corpus, nbid):
            raise busy
        fsio.make_dirs(shell)
        if not locks.try_acquire(lock):
            raise busy
    try:
        doc = project.new_project(nbid, create.title)
        if create.import_run_id is not None:
            doc["import_run_id"] = create.import_run_id
        if create.extra:
            doc.update(create.extra)
        try:
            project.write(shell, doc)
            result = _ingest_locked(corpus, req, shell, work, new=True)
        except BaseException:
            _remove_shell_quietly(shell)
            raise
        crashpoint("create.first_checkpoint.before_rename")
        with corpus.locked():
            if fsio.exists(final):
                _remove_shell_quietly(shell)
                raise TranscribeError(
                    ErrorCode.ID_CONFLICT,
                    f"Notebook {nbid} appeared while its first pages were being imported; "
                    "run `transcribe-import doctor`, then commit the plan again.",
                    item=req.item_id,
                )
            fsio.replace(shell, final)
            fsio.fsync_dir(corpus.notebooks_dir)
            crashpoint("create.before_register")
            corpus.register(
                IndexEntry.of_notebook(nbid, create.title, doc["created_at"], create.import_run_id),
                new_folder=True,
            )
    finally:
        lock.release()
    crashpoint("create.after_register")
    return result


def _remove_shell_quietly(shell: Path) -> None:
    try:
        fsio.remove_tree(shell)
    except OSError:
        pass  # never shown; the next attempt or doctor removes it


def _ingest_locked(
    corpus: Corpus, req: IngestRequest, nb_dir: Path, work: Work, *, new: bool = False
) -> IngestResult:
    """The transaction, with the notebook's ingest lock held (``new``: in its hidden folder)."""
    manifest = project.read(nb_dir, req.notebook_id)
    have = project.ids_of(manifest)
    wanted_sources = {s.source_id for s in req.sources}
    wanted_pages = {p.page_id for s in req.sources for p in s.pages}
    if wanted_sources <= have.sources and wanted_pages <= have.landed:
        return IngestResult(req.notebook_id, None, True, 0)
    # A source the notebook holds already with the same bytes, whose pages here it does not:
    # the next pages of a long source an earlier checkpoint began (checkpoints.split).
    held_sha = {
        str(e.get("id")): e.get("sha256") for e in manifest["sources"] if isinstance(e, dict)
    }
    continuing = {
        s.source_id
        for s in req.sources
        if s.source_id in have.sources and held_sha.get(s.source_id) == s.sha256
    }
    # A bag's replaced pages are in the manifest's history already (it came with the bag's
    # replaced_pages): theirs are the only ids of this request the history may hold.
    history = set(req.history)
    if not history <= have.replaced:
        raise TranscribeError(
            ErrorCode.ID_CONFLICT,
            f"Notebook {req.notebook_id} does not list the replaced pages this import brings "
            "back in its replaced_pages; plan the bag again.",
            item=req.item_id,
        )
    taken = (wanted_sources & have.sources) - continuing
    taken |= (wanted_pages - history) & have.landed
    taken |= {
        p.render_id for s in req.sources for p in s.pages if p.page_id not in history
    } & have.renders
    if taken:
        raise TranscribeError(
            ErrorCode.ID_CONFLICT,
            f"Notebook {req.notebook_id} already uses some of these ids ({sorted(taken)[0]}…) "
            "for other pages; make a new plan.",
            item=req.item_id,
        )
    skipped: tuple[str, ...] = ()
    if req.skip_held:
        hashes = held.source_hashes(manifest)
        left_out = [s for s in req.sources if held.held_as_another(hashes, s.sha256, s.source_id)]
        if left_out:
            skipped = tuple(s.source_id for s in left_out)
            keep = tuple(s for s in req.sources if s.source_id not in skipped)
            pages = {p.page_id for s in keep for p in s.pages}
            cover = req.cover_page_id if req.cover_page_id in pages else None
            req = dataclasses.replace(req, sources=keep, cover_page_id=cover)
            if not keep:
                return IngestResult(req.notebook_id, None, False, 0, skipped)
    if req.page_order is not None and have.pages:
        # Validate said the notebook was free; another import got there since. A restore
        # lands a whole notebook or nothing: it is never merged into other pages.
        raise TranscribeError(
            ErrorCode.ID_CONFLICT,
            f"Notebook {req.notebook_id} already holds {counted(len(have.pages), 'other page')}, "
            "and a "
            "notebook from a bag is never merged into them; validate the plan again and skip "
            "it or import it as a copy.",
            item=req.item_id,
        )

    # Where the pages go in the notebook as it is now, each rule checked again (the notebook
    # may have changed since the plan was validated): a refusal changes nothing.
    where = checked_anchor(
        manifest,
        req.placement,
        req.replaces,
        {p.page_id: str(s.path) for s in req.sources for p in s.pages},
        item=req.item_id,
    )
    txn = _journal_for(req, new_id(), manifest, where)
    staging = txn.staging_dir(nb_dir)
    try:
        # The journal first: a staging folder never exists without the journal naming it,
        # so a crash here leaves nothing that recovery would not find (doctor reports a
        # staging folder without a journal as a problem for a person).
        journal.write(nb_dir, txn)
        fsio.make_dirs(staging)
    except OSError as exc:
        _rollback_quietly(nb_dir, txn)
        raise fsio.problem_from_oserror(exc, nb_dir, "starting an import into") from exc
    crashpoint("ingest.after_claim")
    if new:
        crashpoint("create.first_checkpoint.after_claim")

    try:
        landed = {
            s.source_id: nb_dir / journal.source_rel_path(s.source_id, s.media_type)
            for s in req.sources
            if s.source_id in continuing
        }
        sizes, renders = stage_all(req, staging, work, landed)
    except BaseException:
        _rollback_quietly(nb_dir, txn)
        raise

    for s in txn.doc["sources"]:
        s["size"] = sizes[s["id"]]
    for p in txn.doc["pages"]:
        r = renders[p["render_id"]]
        p["render"] = project.render_record(
            journal.render_rel_path(p["render_id"]), r.sha256, r.width, r.height, r.renderer
        )
    txn.doc["state"] = JournalState.PROMOTING.value
    txn.doc["updated_at"] = utc_now()
    try:
        journal.write(nb_dir, txn)
    except OSError as exc:
        # The journal still says `staging` (or is the old file): rolling back is safe.
        _rollback_quietly(nb_dir, txn)
        raise fsio.problem_from_oserror(exc, nb_dir, "recording the staged pages of") from exc
    crashpoint("ingest.after_stage")

    try:
        promote_and_commit(nb_dir, txn)
    except OSError as exc:
        if new:
            raise  # the hidden folder is dropped whole: nothing of it was ever shown
        # Past this point the journal decides: finish or undo it the way a restart would.
        try:
            findings = recovery.recover_journal(corpus, req.notebook_id, lock_held=True)
        except (OSError, TranscribeError):
            findings = []  # the journal stays and blocks the notebook until doctor recovers it
        if not any(f.code == FindingCode.JOURNAL_ROLLED_FORWARD for f in findings):
            raise fsio.problem_from_oserror(exc, nb_dir, "saving pages into") from exc
    return IngestResult(req.notebook_id, txn.txn_id, False, len(txn.doc["pages"]), skipped)


def _rollback_quietly(nb_dir: Path, txn: Journal) -> None:
    """Undo a transaction that never reached `promoting`: nothing final was written."""
    try:
        fsio.remove_tree(txn.staging_dir(nb_dir))
        fsio.remove(nb_dir / journal.JOURNAL_FILE)
    except OSError:
        pass  # a journal in `staging` left behind is rolled back by the next recovery
