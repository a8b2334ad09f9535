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

Over the usual 500 lines: the steps of one transaction (check, claim, journal, stage and
render, promote, and a first transaction's hidden folder) are correct only in this order,
share one lock and one rollback discipline, and are read together; what others call is a
module of its own (``journal``, ``finish``, ``recovery``, ``checkpoints``), and where the
pages go is ``placement``'s, which the transaction asks under its lock.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from transcribe_import.engine.base.clock import utc_now
from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.findings import FindingCode
from transcribe_import.engine.base.ids import check_id, new_id
from transcribe_import.engine.base.text import json_safe
from transcribe_import.engine.ingest import journal, recovery
from transcribe_import.engine.ingest.finish import promote_and_commit
from transcribe_import.engine.ingest.journal import Journal, JournalState
from transcribe_import.engine.ingest.placement import Placement, checked_anchor
from transcribe_import.engine.media import decode
from transcribe_import.engine.media.kinds import MEDIA_EXTENSIONS, RenderedPage, RenderSettings
from transcribe_import.engine.media.sniff import sniff_media_type
from transcribe_import.engine.storage import fsio, locks, project
from transcribe_import.engine.storage.corpus import CREATING_PREFIX, Corpus, IndexEntry


@dataclass(frozen=True)
class RenderSpec:
    """A render to copy as it is (a bag's), with the sha256 it must have; not rendered."""

    path: Path
    sha256: str
    width: int
    height: int
    size: int | None = None  # the planned size: no more is ever read (fsio.open_regular)


@dataclass(frozen=True)
class PageSpec:
    page_id: str
    render_id: str
    page_index: int
    render: RenderSpec | None = None  # None: rendered from the source
    # Keys for the page's project.json entry beyond the importer's own (a bag's labels...).
    extra: Mapping[str, Any] | None = field(default=None, hash=False)
    label: str | None = None  # the plan's page label ("12v"): the entry's "label"


@dataclass(frozen=True)
class SourceSpec:
    """One source file to add, with the sha256 the plan saw and its preallocated ids."""

    source_id: str
    path: Path
    sha256: str
    media_type: str
    pages: tuple[PageSpec, ...]
    provenance: Mapping[str, Any] = field(default_factory=dict)
    # Keys for the source's project.json entry beyond the importer's own (a bag's).
    extra: Mapping[str, Any] | None = field(default=None, hash=False)
    # The pages the import takes from the source in all, when ``pages`` are only some of them
    # (a long source landed over several checkpoints); None: all of them are here.
    page_count: int | None = None
    size: int | None = None  # the planned size: no more is ever read (fsio.open_regular)


@dataclass(frozen=True)
class IngestRequest:
    notebook_id: str
    sources: tuple[SourceSpec, ...]
    import_run_id: str | None = None
    item_id: str | None = None
    cover_page_id: str | None = None  # set only if the notebook has no cover yet
    # A restore (a bag's notebook): the pages land in this order (it may interleave
    # sources), and only into a notebook that holds no other page, so nothing is merged.
    page_order: tuple[str, ...] | None = None
    # skip_existing: a source whose bytes the notebook already holds (as another source) is
    # left out, judged under the notebook lock, so two imports racing into one notebook
    # with the same files never both land them.
    skip_held: bool = False
    # Where the new pages go (ingest/placement.py; None: at the end), checked again under
    # the notebook's lock, and the pages they replace: (new page id, page id it replaces).
    placement: Placement | None = None
    replaces: tuple[tuple[str, str], ...] = ()
    # A restore's pages that a rescan had replaced in the bag's notebook: their files land,
    # their records are the bag's ``replaced_pages`` (which ``NewNotebook.extra`` carries).
    history: tuple[str, ...] = ()


@dataclass(frozen=True)
class NewNotebook:
    """The notebook an ingest creates with its first pages (a ``create_notebook`` item's).

    ``extra``: keys for its project.json beyond the importer's own (a bag's manifest).
    """

    title: str
    import_run_id: str | None = None
    extra: Mapping[str, Any] | None = field(default=None, hash=False)


@dataclass(frozen=True)
class IngestResult:
    notebook_id: str
    txn_id: str | None
    already_present: bool
    pages_added: int
    skipped_held: tuple[str, ...] = ()  # source ids left out: the notebook held their bytes


class IngestCancelled(Exception):
    """The caller asked to stop while staging; the transaction was rolled back."""


@dataclass(frozen=True)
class _Work:
    """How the caller wants this transaction run, handed down each of its steps."""

    settings: RenderSettings
    workers: int  # sources staged at once
    lock_timeout: float  # how long to wait for the notebook's ingest lock
    should_stop: Callable[[], bool] | None
    on_source_staged: Callable[[int, int], None] | None  # (sources staged, of how many)


def _check_request(req: IngestRequest) -> None:
    check_id(req.notebook_id, "notebook_id")
    for opt, what in ((req.import_run_id, "import_run_id"), (req.item_id, "item_id")):
        if opt is not None:
            check_id(opt, what)
    if not req.sources:
        raise ValueError("an ingest needs at least one source")
    seen: set[str] = set()
    for s in req.sources:
        if s.media_type not in MEDIA_EXTENSIONS:
            raise TranscribeError(
                ErrorCode.UNSUPPORTED_MEDIA,
                f"{s.path}: media type {s.media_type} is not supported",
                path=str(s.path),
            )
        ids = [s.source_id] + [i for p in s.pages for i in (p.page_id, p.render_id)]
        for i in ids:
            check_id(i, "id")
            if i in seen:
                raise TranscribeError(ErrorCode.ID_CONFLICT, f"id {i} appears twice in one ingest")
            seen.add(i)
    replaced = [old for _new, old in req.replaces]
    for old in replaced:
        check_id(old, "replaced page id")
    if len(set(replaced)) != len(replaced) or seen & set(replaced):
        raise ValueError("an ingest replaces each page at most once, never by one of its own")


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


def _copy_verified(
    src: Path,
    dest: Path,
    sha256: str,
    *,
    missing: str,
    changed: str,
    size: int | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> tuple[str, int]:
    """Copy ``src`` to ``dest`` and return its (sha256, size), refusing other contents.

    ``missing`` and ``changed`` are the messages for a file gone or no longer the one planned.
    """
    try:
        sha, copied = fsio.copy_hashed(src, dest, size=size, should_stop=should_stop)
    except fsio.ReadStopped:
        raise IngestCancelled() from None
    except FileNotFoundError:
        raise TranscribeError(ErrorCode.SOURCE_MISSING, missing, path=str(src)) from None
    except PermissionError:
        raise TranscribeError(
            ErrorCode.SOURCE_UNREADABLE,
            f"{src} cannot be read (permission denied): fix its permissions and retry.",
            path=str(src),
        ) from None
    except OSError as exc:
        raise fsio.problem_from_oserror(exc, src, "copying") from exc
    if sha != sha256:
        raise TranscribeError(ErrorCode.SOURCE_CHANGED, changed, path=str(src))
    return sha, copied


def _stage_source(
    spec: SourceSpec,
    staging: Path,
    settings: RenderSettings,
    should_stop: Callable[[], bool] | None = None,
    landed: Path | None = None,
) -> tuple[int, list[RenderedPage]]:
    """Copy one source into staging, check its hash, render its pages from the copy.

    Each page's PNG is written as soon as it is rendered and its bytes dropped, so a
    500-page PDF never holds more than one render in memory; a stop request is
    honoured between pages (the caller rolls the transaction back). ``landed``: the
    notebook already holds the source (an earlier checkpoint landed it with some of its
    pages): nothing is copied, these pages are rendered from that copy once its hash is
    checked again.
    """
    ext = MEDIA_EXTENSIONS[spec.media_type]
    staged = staging / f"{spec.source_id}.{ext}"
    if landed is not None:
        sha, size = fsio.hash_file(landed)
        if sha != spec.sha256:
            raise TranscribeError(
                ErrorCode.SOURCE_CHANGED,
                f"{landed} (the notebook's copy of {spec.path}) no longer has the bytes it "
                "landed with; run `transcribe-import doctor --verify-hashes`.",
                path=str(landed),
            )
        staged = landed
    else:
        _sha, size = _copy_verified(
            spec.path,
            staged,
            spec.sha256,
            missing=f"{spec.path} has disappeared since it was scanned: reconnect the disk or "
            "scan again.",
            changed=f"{spec.path} changed since it was scanned (its contents are different): "
            "scan it again before importing.",
            size=spec.size,
            should_stop=should_stop,
        )
    # Rendering reads the verified copy, never the original, so what we render is what we keep.
    sniffed = sniff_media_type(staged, display_path=str(spec.path))
    if sniffed != spec.media_type:
        raise TranscribeError(
            ErrorCode.MEDIA_MISMATCH,
            f"{spec.path} is {sniffed}, not {spec.media_type} as planned: scan it again.",
            path=str(spec.path),
        )
    to_render = [p for p in spec.pages if p.render is None]
    # Not even opened by a decoder when every render is copied (a bag's pages).
    pages = (
        decode.render_pages(
            staged,
            spec.media_type,
            [p.page_index for p in to_render],
            settings,
            display_path=str(spec.path),
            size=size,
        )
        if to_render
        else iter(())
    )
    made: dict[str, RenderedPage] = {}
    for spec_page, r in zip(to_render, pages, strict=False):
        try:
            fsio.write_new(staging / f"{spec_page.render_id}.png", r.png)
        except OSError as exc:
            raise fsio.problem_from_oserror(exc, staging, "writing a page render for") from exc
        made[spec_page.render_id] = dataclasses.replace(r, png=b"")
        if should_stop is not None and should_stop():
            raise IngestCancelled()
    for spec_page in spec.pages:
        if spec_page.render is not None:
            made[spec_page.render_id] = _copy_render(spec_page, staging)
            if should_stop is not None and should_stop():
                raise IngestCancelled()
    rendered = [made[p.render_id] for p in spec.pages if p.render_id in made]
    if len(rendered) != len(spec.pages):
        raise TranscribeError(
            ErrorCode.MEDIA_MISMATCH,
            f"{spec.path} has fewer pages than planned: scan it again.",
            path=str(spec.path),
        )
    crashpoint("ingest.stage.after_source")
    return size, rendered


def _copy_render(page: PageSpec, staging: Path) -> RenderedPage:
    """Stage a bag's render as it is, refusing it unless its bytes have the planned sha256.

    The render was made by the corpus the bag came from; copying it keeps the page exactly
    as it was seen there (no second rendering, no new hash).
    """
    render = page.render
    assert render is not None
    sha, _size = _copy_verified(
        render.path,
        staging / f"{page.render_id}.png",
        render.sha256,
        missing=f"{render.path} (the render of page {page.page_id}) has disappeared since the "
        "bag was planned: reconnect the disk or plan the bag again.",
        changed=f"{render.path} (the render of page {page.page_id}) changed since the bag was "
        "planned (its contents are different): plan the bag again before importing.",
        size=render.size,
    )
    return RenderedPage(page.page_index, b"", render.width, render.height, sha)


def ingest(
    corpus: Corpus,
    req: IngestRequest,
    settings: RenderSettings | None = None,
    *,
    workers: int = 2,
    lock_timeout: float = locks.INGEST_LOCK_TIMEOUT,
    should_stop: Callable[[], bool] | None = None,
    on_source_staged: Callable[[int, int], None] | None = None,
    create: NewNotebook | None = None,
) -> IngestResult:
    """Run one ingest transaction into an existing notebook, or one that creates it.

    With ``create``, a notebook that does not exist yet is created and registered with
    these pages (see the module's docstring); one whose folder exists but is not
    registered (a creation killed between its rename and its registration: boundary 1)
    is registered first. Raises TranscribeError (notebook left exactly as it was, or
    not created) or IngestCancelled.
    """
    work = _Work(settings or RenderSettings(), workers, lock_timeout, should_stop, on_source_staged)
    _check_request(req)
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


def _ingest(corpus: Corpus, req: IngestRequest, nb_dir: Path, work: _Work) -> IngestResult:
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
        f"Notebook {req.notebook_id} is being changed by another import; wait for it and retry.",
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
    corpus: Corpus, req: IngestRequest, create: NewNotebook, work: _Work
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
                IndexEntry(
                    nbid,
                    f"notebooks/{nbid}",
                    create.title,
                    doc["created_at"],
                    create.import_run_id,
                ),
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
    corpus: Corpus, req: IngestRequest, nb_dir: Path, work: _Work, *, new: bool = False
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
        held = {s.get("sha256"): s.get("id") for s in manifest["sources"] if isinstance(s, dict)}
        left_out = [s for s in req.sources if held.get(s.sha256) not in (None, s.source_id)]
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
            f"Notebook {req.notebook_id} already holds {len(have.pages)} other page(s), and a "
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
        sizes, renders = _stage_all(req, staging, work, landed)
    except BaseException:
        _rollback_quietly(nb_dir, txn)
        raise

    for s in txn.doc["sources"]:
        s["size"] = sizes[s["id"]]
    for p in txn.doc["pages"]:
        r = renders[p["render_id"]]
        p["render"] = {
            "path": journal.render_rel_path(p["render_id"]),
            "sha256": r.sha256,
            "width": r.width,
            "height": r.height,
        }
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


def _stage_all(
    req: IngestRequest, staging: Path, work: _Work, landed: Mapping[str, Path]
) -> tuple[dict[str, int], dict[str, RenderedPage]]:
    sizes: dict[str, int] = {}
    renders: dict[str, RenderedPage] = {}
    total = len(req.sources)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, work.workers)) as pool:
        futures = {
            pool.submit(
                _stage_source, s, staging, work.settings, work.should_stop, landed.get(s.source_id)
            ): s
            for s in req.sources
        }
        try:
            for done, fut in enumerate(concurrent.futures.as_completed(futures), 1):
                spec = futures[fut]
                size, rendered = fut.result()
                sizes[spec.source_id] = size
                for page, r in zip(spec.pages, rendered, strict=True):
                    renders[page.render_id] = r
                if work.on_source_staged is not None:
                    work.on_source_staged(done, total)
                if work.should_stop is not None and work.should_stop():
                    raise IngestCancelled()
        except BaseException:
            for f in futures:
                f.cancel()
            raise
    return sizes, renders


def _rollback_quietly(nb_dir: Path, txn: Journal) -> None:
    """Undo a transaction that never reached `promoting`: nothing final was written."""
    try:
        fsio.remove_tree(txn.staging_dir(nb_dir))
        fsio.remove(nb_dir / journal.JOURNAL_FILE)
    except OSError:
        pass  # a journal in `staging` left behind is rolled back by the next recovery
