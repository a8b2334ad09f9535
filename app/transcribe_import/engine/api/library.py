"""The library: what an import put in the corpus, read back from the notebooks' manifests.

Read-only. A notebook's pages in order (its ``project.json``'s ``pages``), the pages rescans
replaced (its History), the cover, where its files came from and whether it is incomplete;
and the pages one run added (the pages whose sources carry the run's id). The window shows
these values in its page grid; nothing here writes.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from transcribe_import.engine.api.corpus import notebook_state
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus, UnfinishedImport


@dataclass(frozen=True)
class StoredSource:
    """One file a notebook holds (``sources/<id>.<ext>``), as its manifest records it."""

    source_id: str
    sha256: str
    media_type: str
    size: int
    path: Path  # the stored copy in the notebook folder: the bytes that were imported
    original_path: str  # where it was imported from (information only)
    rel: str  # the same, relative to the folder that was scanned
    page_count: int
    import_run_id: str | None
    mtime: str

    @property
    def name(self) -> str:
        """The name of the file it was imported from."""
        return posixpath.basename((self.rel or self.original_path).replace("\\", "/"))


@dataclass(frozen=True)
class StoredPage:
    """One page of a notebook: its place, its file, its render; a replaced page says by what."""

    position: int | None  # 1-based place in the notebook; None for a replaced page
    page_id: str
    label: str | None
    source: StoredSource
    page_index: int  # which page of its file (a PDF page, a TIFF frame), from 0
    render: Path | None
    replaced_by: str | None = None
    replaced_at: str | None = None
    replaced_in_run: str | None = None  # the run whose rescan replaced it
    # How far the page is turned clockwise from its file (project.json's ``turn``): its
    # render is upright, its file is not, so a picture made of the file is turned so much.
    turn: int = 0
    # A replaced page whose place a turn of it took (``turn``, the library's Turn): the page
    # now in its place is the same bytes, turned (``turned_in_place``).
    replaced_by_turn: bool = False


@dataclass(frozen=True)
class NotebookLibrary:
    """A notebook as the library shows it; ``pages`` and ``history`` may be one run's only."""

    notebook_id: str
    title: str
    folder: Path
    created_at: str
    cover_page_id: str | None  # the cover: ``cover_page_id``, else the first page
    page_count: int  # every page of the notebook, whichever are shown
    source_folders: tuple[str, ...]  # the folders its files came from, first seen first
    unfinished: UnfinishedImport | None
    pages: tuple[StoredPage, ...]
    history: tuple[StoredPage, ...]  # the pages rescans replaced, oldest first
    run_id: str | None = None  # set: only the pages this run added (and those it replaced)


def _text(value: Any, default: str = "") -> str:
    return value if isinstance(value, str) else default


def source_folders(manifest: Mapping[str, Any]) -> tuple[str, ...]:
    """The folders a notebook's files were imported from, in the order first seen."""
    folders: dict[str, None] = {}
    for s in manifest.get("sources", []):
        prov = s.get("provenance") if isinstance(s, dict) else None
        path = prov.get("original_path") if isinstance(prov, dict) else None
        if isinstance(path, str) and path:
            folders.setdefault(posixpath.dirname(path.replace("\\", "/")) or path, None)
    return tuple(folders)


def _sources(folder: Path, manifest: Mapping[str, Any]) -> dict[str, StoredSource]:
    out: dict[str, StoredSource] = {}
    for s in manifest.get("sources", []):
        if not isinstance(s, dict) or not isinstance(s.get("id"), str):
            continue
        given = s.get("provenance")
        prov: Mapping[str, Any] = given if isinstance(given, dict) else {}
        size, count = s.get("size"), s.get("page_count")
        run = s.get("import_run_id")
        out[s["id"]] = StoredSource(
            s["id"],
            _text(s.get("sha256")),
            _text(s.get("media_type")),
            size if isinstance(size, int) else -1,
            folder / _text(s.get("path")),
            _text(prov.get("original_path")),
            _text(prov.get("rel")),
            count if isinstance(count, int) else 1,
            run if isinstance(run, str) else None,
            _text(prov.get("mtime")),
        )
    return out


def _page(
    folder: Path,
    sources: Mapping[str, StoredSource],
    record: Mapping[str, Any],
    position: int | None,
    entry: Mapping[str, Any],
) -> StoredPage | None:
    source = sources.get(record.get("source_id"))  # type: ignore[arg-type]
    if source is None:
        return None  # a page without its source: doctor reports it, the library cannot show it
    render = record.get("render")
    path = render.get("path") if isinstance(render, dict) else None
    index, label = record.get("page_index"), record.get("label")
    replaced_in = entry.get("import_run_id")
    return StoredPage(
        position,
        _text(record.get("id")),
        label if isinstance(label, str) else None,
        source,
        index if isinstance(index, int) else 0,
        folder / path if isinstance(path, str) else None,
        entry.get("replaced_by"),
        entry.get("replaced_at"),
        replaced_in if isinstance(replaced_in, str) else None,
        project.turn_of(dict(record)),
    )


def turned_in_place(page: StoredPage, sha_of: Mapping[str, str]) -> bool:
    """Whether the page that took ``page``'s place is a turn of it: the same bytes (a
    rescan's are other bytes: storage/project.is_turn)."""
    return project.is_turn(page.source.sha256, sha_of.get(page.replaced_by or ""))


def notebook_folder(corpus: Corpus, notebook_id: str) -> Path:
    """The folder of a registered notebook; TranscribeError (``notebook_not_found``) for an
    id the corpus does not hold."""
    from transcribe_import.engine.base.ids import is_valid_id

    if not is_valid_id(notebook_id) or not corpus.is_registered(notebook_id):
        raise TranscribeError(
            ErrorCode.NOTEBOOK_NOT_FOUND,
            f"The corpus at {corpus.root} has no notebook {notebook_id!r}: it was never "
            "imported there, or it was undone since. `transcribe-import notebooks` lists them.",
            item=notebook_id,
        )
    return corpus.notebook_dir(notebook_id)


def read_notebook(
    corpus: Corpus, notebook_id: str, *, run_id: str | None = None
) -> NotebookLibrary:
    """A notebook's pages in order, its history, cover, source folders and state; with
    ``run_id``, only the pages that run added and those its rescans replaced.

    TranscribeError (naming the notebook) when it is not in the corpus or cannot be read.
    """
    from transcribe_import.engine.storage import project

    folder = notebook_folder(corpus, notebook_id)
    doc = project.read(folder, notebook_id)
    sources = _sources(folder, doc)
    records = [p for p in doc["pages"] if isinstance(p, dict)]
    pages = [_page(folder, sources, p, k, {}) for k, p in enumerate(records, 1)]
    history = [_page(folder, sources, e["page"], None, e) for e in project.replaced_entries(doc)]
    sha_of = {p.page_id: p.source.sha256 for p in [*pages, *history] if p is not None}
    history = [
        p if p is None else replace(p, replaced_by_turn=turned_in_place(p, sha_of)) for p in history
    ]
    shown = [p for p in pages if p is not None]
    replaced = [p for p in history if p is not None]
    if run_id is not None:
        shown = [p for p in shown if p.source.import_run_id == run_id]
        replaced = [p for p in replaced if p.replaced_in_run == run_id]
    cover = doc.get("cover_page_id")
    if not isinstance(cover, str):
        cover = _text(records[0].get("id")) if records else None
    return NotebookLibrary(
        notebook_id,
        _text(doc.get("title"), notebook_id),
        folder,
        _text(doc.get("created_at")),
        cover,
        len(records),
        source_folders(doc),
        notebook_state(corpus, notebook_id),
        tuple(shown),
        tuple(replaced),
        run_id,
    )


def _run_notebook_ids(corpus: Corpus, run_id: str) -> list[str]:
    """The notebooks a run's plan names, in plan order (every notebook of the corpus when
    its frozen plan cannot be read: the pages' run ids are what counts)."""
    from transcribe_import.engine.runs.store import RunStore

    store = RunStore(corpus)
    record = store.load(run_id)  # TranscribeError naming the run when there is none
    try:
        plan = store.load_plan(run_id, record)
    except TranscribeError:
        return [n.notebook_id for n in corpus.list_notebooks()]
    return list(dict.fromkeys(item.notebook_id for item in plan.items))


def run_pages(corpus: Corpus, run_id: str) -> list[NotebookLibrary]:
    """What one import added: each notebook that holds pages of ``run_id`` (or pages it
    replaced), with only those pages, in the plan's order. Undone runs add nothing."""
    found = []
    for notebook_id in _run_notebook_ids(corpus, run_id):
        if not corpus.is_registered(notebook_id):
            continue  # never created, or undone since
        notebook = read_notebook(corpus, notebook_id, run_id=run_id)
        if notebook.pages or notebook.history:
            found.append(notebook)
    return found


def notebook_sources(corpus: Corpus, notebook_ids: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """The folders each notebook's files came from (the Corpus list's Source column);
    a notebook that cannot be read is left out (the listing says why already)."""
    from transcribe_import.engine.storage import project

    out: dict[str, tuple[str, ...]] = {}
    for notebook_id in notebook_ids:
        try:
            out[notebook_id] = source_folders(
                project.read(corpus.notebook_dir(notebook_id), notebook_id)
            )
        except (TranscribeError, OSError):
            continue
    return out
