"""One notebook's page as a row of the review's pages table, and what each of its cells says."""

from __future__ import annotations

import enum
import html
from dataclasses import dataclass

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QLocale
from PySide6.QtGui import QPixmap

from transcribe_import.engine.api import PageHint
from transcribe_import.engine.media.kinds import MULTI_PAGE_TYPES
from transcribe_import.engine.planning.plan import PlanPage, PlanSource
from transcribe_import.engine.planning.problems import ProblemSeverity
from transcribe_import.gui.icons import severity_icon, small_pixmap
from transcribe_import.gui.models.base import RIGHT, Column
from transcribe_import.gui.wording import (
    duplicate_words,
    format_wall_time,
    problem_words,
    replaces_words,
    turned_words,
)


def _tr(context: str, text: str) -> str:
    return QCoreApplication.translate(context, text)


class PageColumn(enum.IntEnum):
    THUMBNAIL = 0
    FILE = 1
    SOURCE_PAGE = 2
    CAPTURED = 3
    SIZE = 4
    WARNING = 5


Note = tuple[str, str, ProblemSeverity]  # code, message for a person, severity


@dataclass(frozen=True)
class PageRow:
    """One page of the item as the table shows it, with what is known about its file."""

    item_id: str
    source: PlanSource
    page: PlanPage
    source_pos: int  # where the source stands in item.sources: what ordering.move counts
    page_pos: int  # the page's place in its file; a file's size is said on its first page
    number: int | None  # its number in the notebook; None: not imported, or its place unknown
    is_cover: bool
    notes: tuple[Note, ...]  # the ambiguities and problems of its file
    replaces: str | None = None  # a rescan: the notebook page it replaces, in words
    replaced_by: int | None = None  # a page a rescan replaced (History): the page now in its place
    turned: str | None = None  # a page of the corpus turned: the page as it was, in words
    # Landscape among portrait pages, or the other way (api.sideways_pages): "Turn it?".
    sideways: bool = False
    sideways_words: str | None = None  # why, and the likely angle (api.sideways_words)
    # Worth a second look (api.page_hints: blank, too small, too dark or light, blurred).
    hints: tuple[PageHint, ...] = ()
    # A page of a file of several the person left out (the source's ``left_out``): shown,
    # greyed, after the file's imported pages, so that it can be seen and taken back.
    left_out: bool = False

    @property
    def imported(self) -> bool:
        """Whether the page lands: its file is imported and it was not left out of it."""
        return self.source.imported and not self.left_out

    @property
    def key(self) -> tuple[str, int]:
        return (self.source.source_id, self.page.page_index)


def says_page_in_file(source: PlanSource) -> bool:
    """Whether the source's rows say which of its pages each is (a PDF, a multi-page TIFF)."""
    return source.media_type in MULTI_PAGE_TYPES or len(source.pages) > 1


def _source_page(row: PageRow) -> str:
    source = row.source
    if says_page_in_file(source):
        return _tr("PageTableModel", "p. {page} of {count}").format(
            page=row.page.page_index + 1, count=len(source.pages) + len(source.left_out)
        )
    return ""


def _captured(row: PageRow) -> str:
    captured = row.source.provenance.captured_at
    return format_wall_time(captured) if isinstance(captured, str) and captured else ""


def _captured_tooltip(row: PageRow) -> str | None:
    captured = row.source.provenance.captured_at
    if not captured:
        return None
    return _tr("PageTableModel", "Taken {when} by the camera's clock").format(when=captured)


def _size(row: PageRow) -> str:
    size = row.source.provenance.size
    if size < 0 or row.page_pos != 0:
        return ""
    return QLocale().formattedDataSize(size)


def _warnings(row: PageRow) -> str:
    source = row.source
    words = []
    if source.excluded:
        words.append(_tr("PageTableModel", "Excluded"))
    if source.duplicate is not None:
        words.append(duplicate_words(source.duplicate))
    if row.replaces is not None:
        words.append(replaces_words(row.replaces))
    if row.turned is not None:
        words.append(turned_words(row.turned))
    if row.replaced_by is not None:
        words.append(replaced_by_words(row.replaced_by))
    words += [problem_words(code) for code, _, _ in row.notes]
    words += [found.words for found in row.hints]
    return "; ".join(words)


def _warning_icon(row: PageRow) -> QPixmap | None:
    # A pixmap keeps its own (small) size; an icon would grow to the thumbnails' size.
    if any(sev is ProblemSeverity.ERROR for _, _, sev in row.notes):
        return small_pixmap(severity_icon(ProblemSeverity.ERROR))
    if row.notes or row.source.planned_skip:
        return small_pixmap(severity_icon(ProblemSeverity.WARNING))
    return None


def _warning_tooltip(row: PageRow) -> str | None:
    messages = [m for _, m, _ in row.notes]
    if row.replaces is not None:
        messages.insert(0, replaces_words(row.replaces))
    if row.turned is not None:
        messages.insert(0, turned_words(row.turned))
    if row.replaced_by is not None:
        messages.insert(0, replaced_by_words(row.replaced_by))
    if row.source.duplicate is not None:
        messages.insert(0, duplicate_words(row.source.duplicate))
    messages += [found.words for found in row.hints]  # each with its measure
    if row.sideways_words:
        messages.append(row.sideways_words)
    if not messages:
        return None
    # Rich text, so a long message wraps instead of running off the screen.
    return "".join(f"<p>{html.escape(m)}</p>" for m in messages)


def replaced_by_words(number: int) -> str:
    """A page a rescan replaced (the library's History): the page in its place now."""
    return _tr("PageTableModel", "Replaced by page {number}").format(number=number)


def replaced_words(page_id: str | None, named: dict[str, str]) -> str | None:
    """What a rescan replaces, in words (``named``: the notebook's pages in words, by id)."""
    if page_id is None:
        return None
    return named.get(page_id, page_id)  # not a page of the notebook: validate says so


PAGE_COLUMNS: tuple[Column[PageRow], ...] = (
    # Its picture and why there is none come from the thumbnail cache: see cell().
    Column(
        QT_TRANSLATE_NOOP("PageTableModel", "Preview"),
        accessible=lambda row: _tr("PageTableModel", "Preview of {name}").format(
            name=row.source.name
        ),
    ),
    Column(
        QT_TRANSLATE_NOOP("PageTableModel", "File"),
        display=lambda row: row.source.name,
        tooltip=lambda row: row.source.provenance.path,
    ),
    Column(QT_TRANSLATE_NOOP("PageTableModel", "Page in file"), display=_source_page),
    Column(
        QT_TRANSLATE_NOOP("PageTableModel", "Captured"),
        display=_captured,
        tooltip=_captured_tooltip,
    ),
    Column(QT_TRANSLATE_NOOP("PageTableModel", "Size"), display=_size, align=RIGHT),
    Column(
        QT_TRANSLATE_NOOP("PageTableModel", "Warning"),
        display=_warnings,
        decoration=_warning_icon,
        tooltip=_warning_tooltip,
    ),
)
