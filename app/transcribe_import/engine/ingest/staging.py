"""Staging one transaction's sources: each copied and its hash checked, its pages rendered.

A bag's renders are copied as they are instead. Everything is written into the
transaction's staging folder; promoting it is ``finish``'s, and the order of the steps
is ``transaction``'s.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from transcribe_import.engine.base.crashpoints import crashpoint
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.ingest.request import (
    IngestCancelled,
    IngestRequest,
    PageSpec,
    SourceSpec,
    Work,
)
from transcribe_import.engine.media import render as rendering
from transcribe_import.engine.media import thumbs
from transcribe_import.engine.media.kinds import (
    MEDIA_EXTENSIONS,
    RenderedPage,
    RenderSettings,
    RenderStopped,
)
from transcribe_import.engine.media.render_vips import Thumbnails
from transcribe_import.engine.media.sniff import sniff_media_type
from transcribe_import.engine.storage import fsio

# A failed source's advice past Retry: what landed stays, and a new scan finishes the same
# notebook (planning/reimport.py proposes Complete), never a second one.
_FINISH_ADVICE = (
    "To import the folder as it is now, scan it again: the pages already imported are "
    "recognised, and the rest are offered to complete the same notebook."
)


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
    except OSError as exc:
        raise _copy_problem(exc, src, dest, missing) from exc
    if sha != sha256:
        raise TranscribeError(ErrorCode.SOURCE_CHANGED, changed, path=str(src))
    return sha, copied


def _copy_problem(exc: OSError, src: Path, dest: Path, missing: str) -> TranscribeError:
    """A failed copy, said as whose it is, naming that file: the source's (gone, not
    readable) or the corpus's (a full disk, a folder it may not write into), which a source
    is not to be blamed for."""
    where = fsio.failed_path(exc, dest)  # a write's error often names no file: the copy's
    if not isinstance(exc, fsio.RefusedRead) and str(where) != str(src):
        return fsio.problem_from_oserror(exc, where, f"copying {src} into")
    if isinstance(exc, FileNotFoundError):
        return TranscribeError(ErrorCode.SOURCE_MISSING, missing, path=str(src))
    if isinstance(exc, PermissionError):
        return TranscribeError(
            ErrorCode.SOURCE_UNREADABLE,
            f"{src} cannot be read (permission denied): fix its permissions and retry.",
            path=str(src),
        )
    return fsio.problem_from_oserror(exc, src, "copying")


def stage_source(
    spec: SourceSpec,
    staging: Path,
    settings: RenderSettings,
    should_stop: Callable[[], bool] | None = None,
    landed: Path | None = None,
    thumbnails: Path | None = None,
) -> tuple[int, list[RenderedPage]]:
    """Copy one source into staging, check its hash, render its pages from the copy.

    Each page's PNG is written as soon as it is rendered and its bytes dropped, so a
    500-page PDF never holds more than one render in memory; a stop request is
    honoured between pages (the caller rolls the transaction back). ``landed``: the
    notebook already holds the source (an earlier checkpoint landed it with some of its
    pages): nothing is copied, these pages are rendered from that copy once its hash is
    checked again. ``thumbnails``: the corpus's thumbnail cache, given the thumbnails
    made of each render (thumbs.COMMIT_SIDES), so the pages need no decode to be shown.
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
            missing=f"{spec.path} has disappeared since it was scanned: reconnect the disk and "
            f"retry the import. {_FINISH_ADVICE}",
            changed=f"{spec.path} changed since it was scanned (its contents are different). "
            f"{_FINISH_ADVICE}",
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
        rendering.render_pages(
            staged,
            spec.media_type,
            [p.page_index for p in to_render],
            settings,
            display_path=str(spec.path),
            size=size,
            should_stop=should_stop,
            thumbnails=None
            if thumbnails is None
            else Thumbnails(thumbs.keeper(thumbnails, spec.sha256), thumbs.COMMIT_SIDES),
            turns={p.page_index: p.turn for p in to_render if p.turn},
        )
        if to_render
        else iter(())
    )
    made: dict[str, RenderedPage] = {}
    for spec_page, r in zip(to_render, _stoppable(pages), strict=False):
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


def _stoppable(pages: Iterator[RenderedPage]) -> Iterator[RenderedPage]:
    """``pages``, a render a stop request ended mid-page raised as the stop it is."""
    try:
        yield from pages
    except RenderStopped:
        raise IngestCancelled() from None


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
    # The bag's renderer ("" when its project.json records none: doctor then tries both).
    return RenderedPage(
        page.page_index, b"", render.width, render.height, sha, render.renderer or ""
    )


def stage_all(
    req: IngestRequest, staging: Path, work: Work, landed: Mapping[str, Path]
) -> tuple[dict[str, int], dict[str, RenderedPage]]:
    sizes: dict[str, int] = {}
    renders: dict[str, RenderedPage] = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, work.workers)) as pool:
        futures = {
            pool.submit(
                stage_source,
                s,
                staging,
                work.settings,
                work.should_stop,
                landed.get(s.source_id),
                work.thumbnails,
            ): s
            for s in req.sources
        }
        try:
            for fut in concurrent.futures.as_completed(futures):
                spec = futures[fut]
                size, rendered = fut.result()
                sizes[spec.source_id] = size
                for page, r in zip(spec.pages, rendered, strict=True):
                    renders[page.render_id] = r
                if work.on_source_staged is not None:
                    work.on_source_staged(len(spec.pages))
                if work.should_stop is not None and work.should_stop():
                    raise IngestCancelled()
        except BaseException:
            for f in futures:
                f.cancel()
            raise
    return sizes, renders
