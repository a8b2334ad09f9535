"""The files an audit checks: every source and render a notebook's project.json records a
sha256 for, each named by its notebook's title and the page numbers it holds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from transcribe_import.engine.audit.model import AuditedFile, FileKind
from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.base.ids import is_sha256
from transcribe_import.engine.base.text import quoted_title
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus


def audited_files(corpus: Corpus) -> list[AuditedFile]:
    """Every recorded file of every registered notebook whose project.json loads, in the
    notebooks' order; a notebook that cannot be read is doctor's to report, not the audit's."""
    out: list[AuditedFile] = []
    for entry in corpus.index_entries().values():
        try:
            manifest = project.read(corpus.root / entry.directory, entry.notebook_id)
        except TranscribeError:
            continue
        out.extend(notebook_files(entry.notebook_id, manifest))
    return out


def notebook_files(notebook_id: str, manifest: dict[str, Any]) -> Iterator[AuditedFile]:
    """A notebook's recorded files: its sources, then its pages' renders (history last)."""
    title = manifest.get("title") if isinstance(manifest.get("title"), str) else notebook_id
    live = [p for p in manifest["pages"] if isinstance(p, dict)]
    numbers: dict[str, list[int]] = {}
    for n, page in enumerate(live, 1):
        numbers.setdefault(str(page.get("source_id")), []).append(n)
    for s in manifest["sources"]:
        if not isinstance(s, dict) or not isinstance(s.get("path"), str):
            continue
        if not is_sha256(s.get("sha256")):
            continue
        size = s.get("size")
        pages = tuple(numbers.get(str(s.get("id")), ()))
        yield AuditedFile(
            notebook_id,
            str(title),
            s["path"],
            FileKind.SOURCE,
            s["sha256"],
            size if isinstance(size, int) and not isinstance(size, bool) else None,
            pages,
            replaced=not pages,
        )
    history = project.replaced_records(manifest)
    for n, page in enumerate([*live, *history], 1):
        render = page.get("render")
        if not isinstance(render, dict) or not isinstance(render.get("path"), str):
            continue
        if not is_sha256(render.get("sha256")):
            continue
        in_history = n > len(live)
        yield AuditedFile(
            notebook_id,
            str(title),
            render["path"],
            FileKind.RENDER,
            render["sha256"],
            None,
            () if in_history else (n,),
            replaced=in_history,
        )


def recorded(corpus: Corpus, notebook_id: str, path: str) -> AuditedFile | None:
    """The file as the notebook's project.json records it now (None: it no longer does)."""
    try:
        manifest = project.read(corpus.notebook_dir(notebook_id), notebook_id)
    except TranscribeError:
        return None
    for f in notebook_files(notebook_id, manifest):
        if f.path == path:
            return f
    return None


def page_words(file: AuditedFile) -> str:
    """Which pages a file is, for a person: "page 3", "pages 3–5", "a replaced page"."""
    if not file.pages:
        return "a replaced page" if file.kind is FileKind.RENDER else "no page now (replaced)"
    if len(file.pages) == 1:
        return f"page {file.pages[0]}"
    first, last = file.pages[0], file.pages[-1]
    if list(file.pages) == list(range(first, last + 1)):
        return f"pages {first}–{last}"
    return "pages " + ", ".join(str(p) for p in file.pages)


def file_words(file: AuditedFile) -> str:
    """A file named for a person: “Title”, page 3 (sources/<id>.jpg)."""
    return f"{quoted_title(file.title)}, {page_words(file)} ({file.kind} {file.path})"
