"""The corpus: open it, the window's claim on it, its notebooks, doctor, page previews, export.

Imports of the media decoders are deferred into ``render_preview`` and ``preview_pixels``; the
export's model
loads no decoder, so listing and the other cheap commands stay fast.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.text import agreeing, counted
from transcribe_import.engine.export.model import ExportProgress, ExportResult
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.runs.undo_findings import refuse_while_half_done
from transcribe_import.engine.storage import fsio
from transcribe_import.engine.storage.corpus import Corpus, NotebookSummary, UnfinishedImport

if TYPE_CHECKING:
    from transcribe_import.engine.base.findings import DoctorReport


def open_corpus(data_dir: Path) -> Corpus:
    """The corpus in ``data_dir`` (created on first use), once the settings are checked."""
    from transcribe_import.engine.storage.locks import check_environment

    check_environment()
    try:
        corpus = Corpus.open(data_dir)
        try:
            store = RunStore(corpus)
        except TranscribeError as exc:
            if exc.code is not ErrorCode.CORPUS_LINK:
                raise
            # import-runs is a link: each command that reads or writes runs refuses it by
            # name, and doctor, which must still open the corpus, reports it.
            return corpus
        # Frozen plans of earlier versions sat among the run records: moved out, crash-safely.
        store.migrate_plan_snapshots()
    except OSError as exc:
        # Both steps are safe to repeat: a retry takes up where a failing disk stopped them.
        where = fsio.failed_path(exc, data_dir)
        raise fsio.problem_from_oserror(
            exc, where, "opening the corpus at", then="try again"
        ) from exc
    return corpus


class WindowClaim:
    """The window lock (``corpus/.window.lock``): held while a window has the corpus open.

    Advisory only: it guards nothing (the corpus, notebook and run locks do that); it lets
    a second window, of any user or process, tell that another has the corpus open.
    """

    def __init__(self, corpus: Corpus) -> None:
        from transcribe_import.engine.storage import locks

        self._lock = locks.make_lock(corpus.root / ".window.lock")
        self.held = locks.try_acquire(self._lock)

    def release(self) -> None:
        if self.held:
            self._lock.release()
            self.held = False


def list_notebooks(corpus: Corpus) -> list[NotebookSummary]:
    """Every registered notebook, oldest first, each with its state (complete or not)."""
    from transcribe_import.engine.runs.incomplete import unfinished_imports

    notebooks = corpus.list_notebooks()
    found = unfinished_imports(corpus)
    return [replace(n, unfinished=found.get(n.notebook_id)) for n in notebooks]


def notebook_title(corpus: Corpus, notebook_id: str) -> str | None:
    """The title a person knows a notebook by, as `notebooks` lists it; None for an id the
    corpus does not hold."""
    return corpus.notebook_title(notebook_id)


def notebook_state(corpus: Corpus, notebook_id: str) -> UnfinishedImport | None:
    """The unfinished import ``notebook_id`` holds part of, or None: it is complete."""
    from transcribe_import.engine.runs.incomplete import unfinished_imports

    return unfinished_imports(corpus, only=notebook_id).get(notebook_id)


def finish_command(corpus: Corpus, unfinished: UnfinishedImport) -> str | None:
    """The command that finishes an incomplete notebook's import (a resume, or a retry);
    None while a process is importing it."""
    from transcribe_import.engine.runs.incomplete import finish_command as command

    return command(corpus, unfinished)


def listing_problems(corpus: Corpus) -> list[str]:
    """Why a notebook listing may be incomplete: a damaged index, notebooks it does not name.

    A listing comes from the index; when the index is missing, damaged or behind the
    notebook folders, an empty or short list would be a lie. Cheap (one directory read),
    read-only: ``check_corpus`` (doctor) is what repairs.
    """
    from transcribe_import.engine.base.ids import is_valid_id
    from transcribe_import.engine.storage import fsio

    out = [
        f"line {d.line_no} of {corpus.index_path} cannot be read ({d.reason})"
        for d in corpus.index_damage()
    ]
    names = fsio.list_dir(corpus.notebooks_dir, missing_ok=True)
    registered = corpus.index_entries()
    unlisted = [n for n in names if is_valid_id(n) and n not in registered]
    if unlisted:
        out.append(
            f"{counted(len(unlisted), 'notebook folder')} in {corpus.notebooks_dir} "
            f"{agreeing(len(unlisted), 'is', 'are')} not in the "
            f"index (for example {sorted(unlisted)[0]})"
        )
    return out


def check_corpus(
    corpus: Corpus, *, verify_hashes: bool = False, restore_from: Sequence[Path] = ()
) -> DoctorReport:
    """Doctor: recover what crashes left, quarantine what cannot be read, report the rest.

    ``restore_from``: files or folders from which missing files are copied back, each only
    when its bytes have the sha256 the notebook recorded.
    """
    from transcribe_import.engine.doctor import doctor

    return doctor(corpus, verify_hashes=verify_hashes, restore_from=restore_from)


def disk_problem(exc: OSError, where: Path) -> TranscribeError:
    """A disk error no step of a command put into words, coded and naming the file: the
    command line's and the window's last resort, never "unexpected error"."""
    path = fsio.failed_path(exc, where)
    return fsio.problem_from_oserror(
        exc,
        path,
        "reading or writing",
        then=(
            "run the command again once the disk is sound: what it finished is kept, and "
            "`transcribe-import doctor` finishes or undoes anything it left half done"
        ),
    )


def remove_empty_notebook(corpus: Corpus, notebook_id: str) -> Path:
    """Remove a notebook that holds no page, on a person's request; returns where it went.

    Refused (TranscribeError, nothing changed) for a notebook with any page or source.
    """
    from transcribe_import.engine.ingest.empty import remove_empty_notebook as remove

    return remove(corpus, notebook_id)


def load_renderer() -> bool:
    """Load the page renderer's library (libvips) now, on the calling thread, once a
    process; whether it is there (without it Pillow renders every page). The looks'
    arithmetic (numpy, through media/lookalike) is loaded with it.

    The window loads them as it is made: loaded by the first thumbnail's worker instead,
    libvips's import held the GIL for 0.1 s and the window went unanswered meanwhile; the
    first notebook's hints, found on the window's thread, imported numpy there (0.4 s, a
    0.5 s stall at a fresh window's first Open Plan…).
    """
    from transcribe_import.engine.media import lookalike, render_vips

    del lookalike  # loaded, not used here

    return render_vips.available()


def render_preview(
    path: Path,
    media_type: str,
    page_index: int,
    max_side: int,
    *,
    shown_as: str,
    corpus: Corpus | None = None,
    sha256: str | None = None,
    size: int | None = None,
) -> bytes:
    """One page of a source file as a PNG no larger than ``max_side``: the window's previews.

    Rendered exactly as an import would (orientation, colour, bounds), only smaller, and
    shrunk on load (media/thumbs.py). With ``corpus`` and the file's ``sha256`` (and its
    planned ``size``), kept in the corpus's thumbnail cache and read from it the next time.
    Raises TranscribeError naming ``shown_as`` when the file cannot be read.
    """
    from transcribe_import.engine.media.thumbs import cache_dir, thumbnail

    cache = cache_dir(corpus.root) if corpus is not None else None
    return thumbnail(
        path,
        media_type,
        page_index,
        max_side,
        shown_as=shown_as,
        sha256=sha256,
        size=size,
        cache=cache,
    )


@dataclass(frozen=True)
class PreviewPixels:
    """A preview's pixels: RGBA, a byte each, rows packed (``width * 4`` bytes a row)."""

    width: int
    height: int
    rgba: bytes


def preview_pixels(
    path: Path,
    media_type: str,
    page_index: int,
    max_side: int,
    *,
    shown_as: str,
    corpus: Corpus | None = None,
    sha256: str | None = None,
    size: int | None = None,
) -> PreviewPixels:
    """``render_preview``'s page as its pixels, decoded here.

    The window's workers make their thumbnails' QImage over these bytes, which takes none of
    Qt's locks. Qt's image readers (``QImage.fromData``) probe their plugins, and a probe
    makes a signal connection under Qt's signal-slot lock while the worker holds the GIL
    through the PySide call; the window's thread, holding that lock in a disconnect that
    called back into Python, waited for the GIL, and the window hung for good (a deadlock
    CI met on 2026-12-07 in tests/gui/test_stop_question.py). Raises TranscribeError naming
    ``shown_as`` when the file cannot be read or its preview cannot be decoded.
    """
    from transcribe_import.engine.media.thumbs import rgba_pixels

    png = render_preview(
        path,
        media_type,
        page_index,
        max_side,
        shown_as=shown_as,
        corpus=corpus,
        sha256=sha256,
        size=size,
    )
    try:
        width, height, rgba = rgba_pixels(png)
    except (OSError, ValueError) as exc:
        raise TranscribeError(
            ErrorCode.CORRUPT_IMAGE, f"{shown_as}: the preview is unreadable ({exc})", item=shown_as
        ) from exc
    return PreviewPixels(width, height, rgba)


def export_notebooks(
    corpus: Corpus,
    notebook_ids: Sequence[str] | None,
    destination: Path | None = None,
    *,
    should_stop: Callable[[], bool] | None = None,
) -> Generator[ExportProgress, None, ExportResult]:
    """Export notebooks (None: every notebook, oldest first) as a BagIt bag.

    A generator of progress events whose return value is the ``ExportResult``; without
    ``destination``, a fresh folder under the data directory's ``exports/``. See
    ``engine/export/bag.export_bag`` for what is refused and when.
    """
    from transcribe_import.engine.export.bag import export_bag
    from transcribe_import.engine.runs.incomplete import unfinished_imports
    from transcribe_import.engine.storage.fsio import problem_from_oserror

    try:
        ids = (
            [n.notebook_id for n in corpus.list_notebooks()]
            if notebook_ids is None
            else list(notebook_ids)
        )
        # Judged just before the snapshot: an import landing in between can only leave a
        # notebook marked incomplete that is whole, never the other way round.
        unfinished = unfinished_imports(corpus)
    except OSError as exc:
        where = fsio.failed_path(exc, corpus.index_path)  # the index, or a run record
        raise problem_from_oserror(exc, where, "reading") from exc
    # An undo moving the notebooks' files would leave the bag short of them, as if damaged.
    refuse_while_half_done(corpus, ids, "export these notebooks")
    return export_bag(corpus, ids, destination, should_stop=should_stop, unfinished=unfinished)
