"""The review's page grid as painted: a page's thumbnail, badges and captions, and the spreads.

The grid (gui/pages/review_grid.py) is a QListView over the same PageTableModel as the
table, so both show one list of rows and share one selection; what a cell of the grid
shows is read here from the row (``PageRow``) and painted by ``PageGridDelegate``, which
asks a ThumbnailCache for the picture (rendered off the window's thread) and never waits
for it. ``SpreadsModel`` pairs the same rows into openings (verso | recto) by their labels.
"""

from __future__ import annotations

import enum
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractListModel,
    QCoreApplication,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
)
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from transcribe_import.engine.api import Hint
from transcribe_import.gui.icons import turned
from transcribe_import.gui.models.base import ColumnTableModel
from transcribe_import.gui.models.page_rows import PageRow, says_page_in_file
from transcribe_import.gui.models.plan_pages import PageTableModel
from transcribe_import.gui.thumbnails import ThumbnailCache

Index = QModelIndex | QPersistentModelIndex

# The thumbnails' height on screen, from the zoom slider's left end to its right end; a
# page is three quarters as wide as it is tall (a landscape page fits that width).
MIN_ZOOM, MAX_ZOOM, DEFAULT_ZOOM = 96, 320, 160
ZOOM_STEP = 16
_PAD = 6
_ASPECT = 0.75
# Thumbnails kept scaled to the size on screen: a few screens' worth.
_SCALED_CAPACITY = 400
# Badge pills kept painted: every badge at a few zooms.
_PILLS_KEPT = 64
# Made once at import: the first ``|`` of two kinds of Qt flag makes a new enum member, 5-10 ms
# that the first paint of a plan's grid paid (bench_gui_open.py --big, its gap report).
_PLACEHOLDER_TEXT = Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap


def _tr(text: str) -> str:
    return QCoreApplication.translate("PageGrid", text)


class Badge(enum.Enum):
    """A state a page's thumbnail says with a badge (its words are ``badge_words``)."""

    LEFT_OUT = "left_out"  # excluded by the person, or skipped by the plan
    DUPLICATE = "duplicate"
    IN_QUESTION = "in_question"  # its file has an open ordering question or a problem
    REPLACES = "replaces"  # a rescan that replaces a page of the notebook
    TURNED = "turned"  # a page of the corpus turned (the library): the page as it was in History
    SIDEWAYS = "sideways"  # probably sideways (api.sideways_pages): a hint, never an edit
    # Worth a second look (api.page_hints), one badge a kind: information, never an edit.
    BLANK = "blank"
    TOO_SMALL = "too_small"
    TOO_DARK = "too_dark"
    TOO_LIGHT = "too_light"
    BLURRED = "blurred"


# Fill colours: a badge reads on a light and a dark base alike; its word says it too.
_BADGE_COLOURS = {
    Badge.LEFT_OUT: QColor(0x61, 0x61, 0x61),
    Badge.DUPLICATE: QColor(0x42, 0x85, 0xF4),
    Badge.IN_QUESTION: QColor(0xD3, 0x2F, 0x2F),
    Badge.REPLACES: QColor(0x8E, 0x44, 0xAD),
    Badge.TURNED: QColor(0x5D, 0x40, 0x37),
    Badge.SIDEWAYS: QColor(0xB3, 0x5C, 0x00),
    Badge.BLANK: QColor(0x00, 0x79, 0x6B),
    Badge.TOO_SMALL: QColor(0x6D, 0x4C, 0x41),
    Badge.TOO_DARK: QColor(0x37, 0x47, 0x4F),
    Badge.TOO_LIGHT: QColor(0x82, 0x77, 0x17),
    Badge.BLURRED: QColor(0x45, 0x5A, 0x64),
}


def badge_words(badge: Badge) -> str:
    return {
        Badge.LEFT_OUT: _tr("Left out"),
        Badge.DUPLICATE: _tr("Duplicate"),
        Badge.IN_QUESTION: _tr("In question"),
        Badge.REPLACES: _tr("Replaces"),
        Badge.TURNED: _tr("Turned"),
        Badge.SIDEWAYS: _tr("Turn it?"),
        Badge.BLANK: _tr("Blank"),
        Badge.TOO_SMALL: _tr("Too small"),
        Badge.TOO_DARK: _tr("Too dark"),
        Badge.TOO_LIGHT: _tr("Too light"),
        Badge.BLURRED: _tr("Blurred"),
    }[badge]


def badges(row: PageRow) -> tuple[Badge, ...]:
    """The badges of a page, in the order they are drawn."""
    source = row.source
    found = []
    if source.excluded or source.planned_skip or row.left_out:
        found.append(Badge.LEFT_OUT)
    if source.duplicate is not None:
        found.append(Badge.DUPLICATE)
    if row.notes:
        found.append(Badge.IN_QUESTION)
    if row.replaces is not None:
        found.append(Badge.REPLACES)
    if row.turned is not None:
        found.append(Badge.TURNED)
    if row.sideways:
        found.append(Badge.SIDEWAYS)
    kinds = {h.hint for h in row.hints}
    found += [_HINT_BADGES[kind] for kind in Hint if kind in kinds]
    return tuple(found)


_HINT_BADGES = {
    Hint.BLANK: Badge.BLANK,
    Hint.TOO_SMALL: Badge.TOO_SMALL,
    Hint.TOO_DARK: Badge.TOO_DARK,
    Hint.TOO_LIGHT: Badge.TOO_LIGHT,
    Hint.BLURRED: Badge.BLURRED,
}


def position_words(row: PageRow) -> str:
    """The first caption line: the page's number in the notebook (– when not imported),
    its label ("12r") and a star for the cover; for a page a rescan replaced, the page now
    in its place ("Replaced by 3 · 2r")."""
    parts = ["–" if row.number is None else str(row.number)]
    if row.replaced_by is not None:
        parts = [_tr("Replaced by {number}").format(number=row.replaced_by)]
    if row.page.label:
        parts.append(row.page.label)
    text = " · ".join(parts)
    return f"★ {text}" if row.is_cover else text


def file_words(row: PageRow) -> str:
    """The second caption line: the file, and which of its pages for a multi-page file."""
    if says_page_in_file(row.source):
        return _tr("{file}, p. {page}").format(file=row.source.name, page=row.page.page_index + 1)
    return row.source.name


def accessible_words(row: PageRow) -> str:
    """What a screen reader says of a cell: its captions and its badges."""
    words = [position_words(row), file_words(row)] + [badge_words(b) for b in badges(row)]
    words += [found.words for found in row.hints]
    return ", ".join(words + ([row.sideways_words] if row.sideways_words else []))


def cell_size(zoom: int, metrics: QFontMetrics) -> QSize:
    """A grid cell at that zoom: the thumbnail box, two caption lines, the padding."""
    width = max(round(zoom * _ASPECT), 88) + 2 * _PAD
    return QSize(width, zoom + 2 * _PAD + 2 * metrics.height() + 2)


# -- spreads -----------------------------------------------------------------------------------


class Side(enum.Enum):
    LEFT = "left"
    RIGHT = "right"


def spread_side(label: str | None) -> Side | None:
    """Where an opening shows a page with that label: a verso (v, b) or a left page (L) on
    the left, a recto (r, a) or a right page (R) on the right; None without a side."""
    if not label:
        return None
    last = label[-1]
    if last in "vbLl":
        return Side.LEFT
    if last in "raR":
        return Side.RIGHT
    return None


Spread = tuple[int | None, int | None]  # the rows of the left and the right page


def spreads_of(labels: Sequence[str | None]) -> list[Spread]:
    """The openings of pages in order, by their labels: a left page opens a spread, a right
    page closes the one a left page opened or stands alone on the right (the first recto, a
    page after a missing verso); a page without a side stands alone on the right."""
    spreads: list[Spread] = []
    for row, label in enumerate(labels):
        side = spread_side(label)
        if side is Side.LEFT:
            spreads.append((row, None))
        elif side is Side.RIGHT and spreads and spreads[-1][1] is None:
            spreads[-1] = (spreads[-1][0], row)
        else:
            spreads.append((None, row))
    return spreads


def has_sides(labels: Sequence[str | None]) -> bool:
    """Whether pages of these labels name leaf and side, so that spreads say something."""
    return any(spread_side(label) is not None for label in labels)


class SpreadsModel(QAbstractListModel):
    """The pages of the table model paired into openings; one row a spread. Read-only."""

    def __init__(self, pages: ColumnTableModel[PageRow], parent: QObject | None = None) -> None:
        # The review's pages, or the library's (models/library.py): any model of page rows.
        super().__init__(parent)
        self.pages = pages
        # Read from the pages when first asked after they change (None: not yet): a
        # notebook of 5,000 pages chosen while the grid is shown pays nothing for them.
        self._spreads: list[Spread] | None = None
        self._spread_of: dict[int, int] | None = None
        pages.modelReset.connect(self._reset)
        pages.layoutChanged.connect(self._reset)
        pages.dataChanged.connect(self._on_pages_changed)

    def spread(self, row: int) -> Spread:
        return self._read()[row]

    def spread_of(self, page_row: int) -> int | None:
        """The spread a page row is in."""
        if self._spread_of is None:
            self._spread_of = {
                page: i for i, pair in enumerate(self._read()) for page in pair if page is not None
            }
        return self._spread_of.get(page_row)

    def _read(self) -> list[Spread]:
        if self._spreads is None:
            pages = self.pages
            # The review's rows are made as they are read: its labels come without them.
            labels = (
                pages.page_labels()
                if isinstance(pages, PageTableModel)
                else [r.page.label for r in pages.rows()]
            )
            self._spreads = spreads_of(labels)
        return self._spreads

    def _reset(self) -> None:
        self.beginResetModel()
        self._spreads = self._spread_of = None
        self.endResetModel()

    def _on_pages_changed(self, first: QModelIndex, last: QModelIndex) -> None:
        if self._spreads is None:
            return  # not read since the pages changed: nothing shown of them to change
        rows = [s for r in (first.row(), last.row()) if (s := self.spread_of(r)) is not None]
        if rows:
            self.dataChanged.emit(self.index(min(rows)), self.index(max(rows)))

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._read())

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        spreads = self._read()
        if not index.isValid() or not 0 <= index.row() < len(spreads):
            return None
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return " | ".join(
                accessible_words(self.pages.row(p)) if p is not None else _tr("no page")
                for p in spreads[index.row()]
            )
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable


# -- painting ---------------------------------------------------------------------------------


class Pictures:
    """Where the grid's thumbnails come from: the review's 160-pixel cache, or a cache of
    320-pixel renders above that height on screen (made when first needed).

    While the grid moves (a scroll, a zoom) it asks only for what a cache already holds:
    a fling past 2,000 pages would otherwise queue a render of every page it passes, and
    those renders would compete with the window for the machine long after. Once it
    settles, ``settle`` lets every cell on screen ask.
    """

    def __init__(self, shared: ThumbnailCache, parent: QObject, large_side: int) -> None:
        self._shared = shared
        self._parent = parent
        self._large_side = large_side
        self._large: ThumbnailCache | None = None
        self._held: set[tuple[int, str, int]] = set()  # (cache, source, page) it has rendered
        self.moving = False
        self.ready_large: Callable[[str, int], None] | None = None
        shared.ready.connect(lambda sid, i: self._held.add((id(shared), sid, i)))

    def cache_for(self, height: float) -> ThumbnailCache:
        """The cache whose renders are sharp at that height in device pixels."""
        if height <= self._shared.side * 1.1:
            return self._shared
        if self._large is None:
            large = ThumbnailCache(
                capacity=150, threads=1, parent=self._parent, side=self._large_side
            )
            large.ready.connect(lambda sid, i: self._held.add((id(large), sid, i)))
            if self.ready_large is not None:
                large.ready.connect(self.ready_large)
            self._large = large
        return self._large

    def own_caches(self) -> list[ThumbnailCache]:
        return [] if self._large is None else [self._large]

    def picture(self, cache: ThumbnailCache, row: PageRow) -> QPixmap | None:
        """The page's thumbnail from that cache, if there; a render is asked for only
        while the grid stands still."""
        index = row.page.page_index
        if self.moving and (id(cache), row.source.source_id, index) not in self._held:
            return None
        return cache.request(row.source, index)


@dataclass
class GridLook:
    """What every cell of a view is painted at: the zoom, and where its thumbnails come from."""

    zoom: int
    pictures: Pictures
    device_ratio: Callable[[], float]


class PageCellPainter:
    """Paints one page (a thumbnail, its badges, two caption lines) into a rectangle."""

    def __init__(self, look: GridLook) -> None:
        self.look = look
        self._scaled_cache: OrderedDict[tuple[int, int, int, float], QPixmap] = OrderedDict()
        self._turned_cache: OrderedDict[tuple[int, int], QPixmap] = OrderedDict()
        self._pills: dict[tuple[Badge, int, str, float], QPixmap] = {}
        self._bold_font: tuple[str, QFont, QFontMetrics] | None = None

    def paint_page(
        self, painter: QPainter, rect: QRect, row: PageRow, option: QStyleOptionViewItem
    ) -> None:
        zoom = self.look.zoom
        metrics = option.fontMetrics
        box_w = round(zoom * _ASPECT)
        box = QRect(rect.x() + (rect.width() - box_w) // 2, rect.y() + _PAD, box_w, zoom)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        palette = option.palette
        pictures = self.look.pictures
        cache = pictures.cache_for(zoom * self.look.device_ratio())
        pixmap = pictures.picture(cache, row)
        left_out = row.source.excluded or row.source.planned_skip or row.left_out
        if pixmap is None:
            self._placeholder(painter, box, row, cache, palette)
        else:
            if row.page.turn:  # the thumbnail is of the file; the page imports turned
                pixmap = self._turned(pixmap, row.page.turn)
            self._thumbnail(painter, box, pixmap, faded=left_out)
        self._badges(painter, box, badges(row), option)
        text_role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        painter.setPen(palette.color(text_role))
        line = QRect(rect.x() + 2, box.bottom() + 3, rect.width() - 4, metrics.height())
        bold, bold_metrics = self._bold(option.font)
        painter.setFont(bold)
        painter.drawText(
            line,
            Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop,
            bold_metrics.elidedText(position_words(row), Qt.TextElideMode.ElideRight, line.width()),
        )
        painter.setFont(option.font)
        line.translate(0, metrics.height())
        painter.drawText(
            line,
            Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop,
            metrics.elidedText(file_words(row), Qt.TextElideMode.ElideMiddle, line.width()),
        )

    def _bold(self, font: QFont) -> tuple[QFont, QFontMetrics]:
        """The first caption line's font (the cell's, bold) and its metrics, made once a font."""
        key = font.key()
        kept = self._bold_font
        if kept is None or kept[0] != key:
            bold = QFont(font)
            bold.setBold(True)
            kept = self._bold_font = (key, bold, QFontMetrics(bold))
        return kept[1], kept[2]

    def _thumbnail(self, painter: QPainter, box: QRect, pixmap: QPixmap, *, faded: bool) -> None:
        size = QSize(pixmap.width(), pixmap.height())
        size.scale(box.size(), Qt.AspectRatioMode.KeepAspectRatio)
        target = QRect(
            box.x() + (box.width() - size.width()) // 2,
            box.y() + (box.height() - size.height()) // 2,
            size.width(),
            size.height(),
        )
        if faded:
            painter.setOpacity(0.35)
        if self.look.pictures.moving:
            # A quick scale while the pages move; the smooth one once they stand still.
            painter.drawPixmap(target, pixmap)
        else:
            painter.drawPixmap(target.topLeft(), self._scaled(pixmap, size))
        painter.setOpacity(1.0)

    def _turned(self, pixmap: QPixmap, degrees: int) -> QPixmap:
        """The thumbnail turned ``degrees`` clockwise, as the page's render will be, turned
        once (kept beside the scaled ones, by the same rule)."""
        key = (pixmap.cacheKey(), degrees)
        found = self._turned_cache.get(key)
        if found is not None:
            self._turned_cache.move_to_end(key)
            return found
        made = turned(pixmap, degrees)
        self._turned_cache[key] = made
        while len(self._turned_cache) > _SCALED_CAPACITY:
            self._turned_cache.popitem(last=False)
        return made

    def _scaled(self, pixmap: QPixmap, size: QSize) -> QPixmap:
        """The thumbnail smoothly scaled to ``size``, scaled once: a smooth scale at each
        paint was most of a repaint's time (bench/bench_grid.py)."""
        dpr = self.look.device_ratio()
        key = (pixmap.cacheKey(), size.width(), size.height(), dpr)
        found = self._scaled_cache.get(key)
        if found is not None:
            self._scaled_cache.move_to_end(key)
            return found
        scaled = pixmap.scaled(
            size * dpr,
            Qt.AspectRatioMode.KeepAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )
        scaled.setDevicePixelRatio(dpr)
        self._scaled_cache[key] = scaled
        while len(self._scaled_cache) > _SCALED_CAPACITY:
            self._scaled_cache.popitem(last=False)
        return scaled

    @staticmethod
    def _placeholder(
        painter: QPainter, box: QRect, row: PageRow, cache: ThumbnailCache, palette: QPalette
    ) -> None:
        painter.fillRect(box, palette.color(QPalette.ColorRole.AlternateBase))
        painter.setPen(palette.color(QPalette.ColorRole.PlaceholderText))
        why = cache.failure(row.source.source_id, row.page.page_index)
        painter.drawText(
            box.adjusted(4, 4, -4, -4),
            _PLACEHOLDER_TEXT,
            _tr("No preview") if why else "…",
        )

    def _badges(
        self, painter: QPainter, box: QRect, shown: Sequence[Badge], option: QStyleOptionViewItem
    ) -> None:
        y = box.y() + 3
        for badge in shown:
            pill = self._pill(badge, box.width() - 6, option)
            painter.drawPixmap(box.x() + 3, y, pill)
            y += round(pill.height() / pill.devicePixelRatio()) + 2

    def _pill(self, badge: Badge, widest: int, option: QStyleOptionViewItem) -> QPixmap:
        """A badge's pill (its colour, its words in white), painted once per badge, width
        and font, then drawn as a picture: one copy per badge and cell at each paint, not a
        smoothed rounded shape and an elided line of text (a grid's first paint, in the
        plan of 100,000 pages shown, was 23-49 ms of cells: bench_gui_shelf.py)."""
        dpr = self.look.device_ratio()
        key = (badge, widest, option.font.key(), dpr)
        found = self._pills.get(key)
        if found is not None:
            return found
        metrics = option.fontMetrics
        words = badge_words(badge)
        width = min(metrics.horizontalAdvance(words) + 8, widest)
        height = metrics.height() + 2
        pill = QPixmap(round(width * dpr), round(height * dpr))
        pill.setDevicePixelRatio(dpr)
        pill.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pill)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setFont(option.font)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(_BADGE_COLOURS[badge])
        rect = QRect(0, 0, width, height)
        painter.drawRoundedRect(rect, 4, 4)
        painter.setPen(QColor(Qt.GlobalColor.white))
        painter.drawText(
            rect,
            Qt.AlignmentFlag.AlignCenter,
            metrics.elidedText(words, Qt.TextElideMode.ElideRight, width - 4),
        )
        painter.end()
        if len(self._pills) >= _PILLS_KEPT:
            self._pills.clear()  # a zoom or a font at a time: the few of the last ones
        self._pills[key] = pill
        return pill


def paint_panel(painter: QPainter, option: QStyleOptionViewItem) -> None:
    """A cell's background: the highlight when selected, a frame when it has the focus.

    Painted here, not by the style: some styles draw no selection behind an icon view's item.
    """
    state = option.state
    rect = option.rect.adjusted(1, 1, -1, -1)
    palette = option.palette
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    if state & QStyle.StateFlag.State_Selected:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(palette.color(QPalette.ColorRole.Highlight))
        painter.drawRoundedRect(rect, 5, 5)
    elif state & QStyle.StateFlag.State_MouseOver:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(palette.color(QPalette.ColorRole.Midlight))
        painter.drawRoundedRect(rect, 5, 5)
    if state & QStyle.StateFlag.State_HasFocus:
        painter.setPen(palette.color(QPalette.ColorRole.Dark))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(rect, 5, 5)


class _CellDelegate(QStyledItemDelegate):
    """A cell of a grid view: its background, then what the subclass's ``paint_cell`` draws."""

    def __init__(self, rows: QAbstractItemModel, look: GridLook, parent: QWidget) -> None:
        super().__init__(parent)
        self._rows = rows
        self.cell = PageCellPainter(look)

    def _paint_in_panel(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: Index,
        paint_cell: Callable[[QPainter, QStyleOptionViewItem, int], None],
    ) -> None:
        if not 0 <= index.row() < self._rows.rowCount():
            return
        painter.save()
        paint_panel(painter, option)
        paint_cell(painter, option, index.row())
        painter.restore()


class PageGridDelegate(_CellDelegate):
    """A cell of the page grid: one page of the table model's row, at the look's zoom."""

    def __init__(self, model: PageTableModel, look: GridLook, parent: QWidget) -> None:
        super().__init__(model, look, parent)
        self._model = model

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        return cell_size(self.cell.look.zoom, option.fontMetrics)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        self._paint_in_panel(painter, option, index, self.paint_cell)

    def paint_cell(self, painter: QPainter, option: QStyleOptionViewItem, row: int) -> None:
        self.cell.paint_page(painter, option.rect, self._model.row(row), option)


class SpreadsDelegate(_CellDelegate):
    """A cell of the spreads view: the left and the right page of one opening, a gutter between."""

    def __init__(self, model: SpreadsModel, look: GridLook, parent: QWidget) -> None:
        super().__init__(model, look, parent)
        self._model = model

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        one = cell_size(self.cell.look.zoom, option.fontMetrics)
        return QSize(2 * one.width() + _PAD, one.height())

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        self._paint_in_panel(painter, option, index, self.paint_cell)

    def paint_cell(self, painter: QPainter, option: QStyleOptionViewItem, spread: int) -> None:
        half = (option.rect.width() - _PAD) // 2
        pages = self._model.pages
        for n, page_row in enumerate(self._model.spread(spread)):
            if page_row is None or page_row >= pages.rowCount():
                continue
            rect = QRect(
                option.rect.x() + n * (half + _PAD), option.rect.y(), half, option.rect.height()
            )
            self.cell.paint_page(painter, rect, pages.row(page_row), option)
        gutter_x = option.rect.x() + half + _PAD // 2
        painter.setPen(option.palette.color(QPalette.ColorRole.Mid))
        painter.drawLine(gutter_x, option.rect.y() + _PAD, gutter_x, option.rect.bottom() - _PAD)
        # Each opening framed: side by side, two spreads would read as one row of pages.
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(option.rect.adjusted(1, 1, -1, -1), 5, 5)
