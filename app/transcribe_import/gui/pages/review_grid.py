"""The review's page grid and spreads: a notebook's pages as thumbnails, zoomed, reordered by drag.

The grid is a QListView in icon mode over the table's own model (PageTableModel) and on
the table's own selection model: a page selected in one is selected in the other, and every
review command (buttons, keys, the context menu) acts on it alike. A drop becomes the
model's ``dropMimeData``, the same undoable ``ordering.move`` a drop on the table makes.
Cells are painted by models/page_grid.py from thumbnails rendered off the window's thread;
the views only lay them out, so 2,000 pages scroll as fast as 20.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

from PySide6.QtCore import (
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    QPoint,
    QRect,
    QSettings,
    Qt,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtGui import (
    QAction,
    QDrag,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QKeySequence,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
    QShowEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QListView,
    QSlider,
    QToolButton,
    QWidget,
)

from transcribe_import.gui.models.page_grid import (
    DEFAULT_ZOOM,
    MAX_ZOOM,
    MIN_ZOOM,
    ZOOM_STEP,
    GridLook,
    PageGridDelegate,
    Pictures,
    SpreadsDelegate,
    SpreadsModel,
    has_sides,
)
from transcribe_import.gui.models.page_rows import PageColumn
from transcribe_import.gui.models.plan_pages import PageTableModel
from transcribe_import.gui.thumbnails import ThumbnailCache

# What the review remembers between sessions (in the window's settings).
VIEW_KEY = "review/pageView"
ZOOM_KEY = "review/gridZoom"
# Above this height on screen (device pixels) the shared 160-pixel thumbnails would be
# blown up: the grid renders its own, sharper ones (a few dozen are on screen at that size).
LARGE_SIDE = 320
SETTLE_MS = 120


class PageView(enum.StrEnum):
    """How the review shows a notebook's pages; the value is what the settings keep."""

    GRID = "grid"
    DETAILS = "details"
    SPREADS = "spreads"


DEFAULT_VIEW = PageView.GRID


class _IconList(QListView):
    """A list view in icon mode at a shared zoom, that Ctrl+wheel zooms."""

    zoom_requested = Signal(int)  # a step: +1 larger, -1 smaller

    def __init__(self, look: GridLook, name: str) -> None:
        super().__init__()
        self.look = look
        # Icon mode, not a wrapping list: a shift-click there selects the rectangle between
        # the two cells, not the pages between them in notebook order.
        self.setViewMode(QListView.ViewMode.IconMode)
        # Static: the icon mode's own moves (free placement) are not an order; drags are ours.
        self.setMovement(QListView.Movement.Static)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setLayoutMode(QListView.LayoutMode.Batched)
        self.setBatchSize(200)
        # Every cell the same size: the layout does not ask each of 2,000 rows for its own.
        self.setUniformItemSizes(True)
        self.setSpacing(4)
        self.setWrapping(True)
        self.setSelectionRectVisible(True)
        self.setMouseTracking(True)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setAccessibleName(name)
        self.setTabKeyNavigation(False)
        self._laid_out_at = 0  # the zoom the cells were last laid out at

    def apply_zoom(self) -> None:
        """Lay the cells out again at the look's zoom (the delegate reads it); a hidden
        view only when it is shown (a layout of 2,000 cells is most of a zoom step)."""
        self._laid_out_at = 0
        if self.isVisible():
            self._lay_out()

    def _lay_out(self) -> None:
        self._laid_out_at = self.look.zoom
        self.verticalScrollBar().setSingleStep(max(20, self.look.zoom // 4))
        self.scheduleDelayedItemsLayout()
        self.viewport().update()

    def showEvent(self, event: QShowEvent) -> None:
        if self._laid_out_at != self.look.zoom:
            self._lay_out()
        super().showEvent(event)

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            delta = event.angleDelta().y()
            if delta:
                self.zoom_requested.emit(1 if delta > 0 else -1)
            event.accept()
            return
        super().wheelEvent(event)


class PageGrid(_IconList):
    """The pages of one notebook as thumbnails, in notebook order; dragged to reorder."""

    def __init__(
        self,
        model: PageTableModel,
        selection: QItemSelectionModel,
        look: GridLook,
        actions: Sequence[QAction],
    ) -> None:
        super().__init__(look, self.tr("Pages of the notebook as thumbnails, in notebook order"))
        self.setModel(model)
        self.setModelColumn(PageColumn.THUMBNAIL)
        # The table's selection: one selection, whichever view shows it.
        own = self.selectionModel()
        self.setSelectionModel(selection)
        own.deleteLater()
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setItemDelegate(PageGridDelegate(model, look, self))
        # setMovement(Static) turned dragging off; the drags here are the grid's own.
        self.setDragEnabled(True)
        self.setAcceptDrops(True)
        self.viewport().setAcceptDrops(True)
        self.setDropIndicatorShown(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.addActions(list(actions))
        self._drop_row: int | None = None  # where a drag would land now (before that row)
        self.page_model = model

    # -- drag and drop: the table model's own move ---------------------------------------

    def drop_row(self, pos: QPoint) -> int:
        """The row a drop at ``pos`` lands before: past a cell's middle, after that cell."""
        index = self.indexAt(pos)
        if not index.isValid():
            # Past the last cell (or in a row's empty end): after the nearest cell before it.
            count = self.page_model.rowCount()
            for row in range(count - 1, -1, -1):
                rect = self.visualRect(self.page_model.index(row, PageColumn.THUMBNAIL))
                if rect.top() <= pos.y() and (rect.bottom() < pos.y() or rect.left() <= pos.x()):
                    return row + 1
            return 0
        rect = self.visualRect(index)
        return index.row() + (1 if pos.x() > rect.center().x() else 0)

    def startDrag(self, supportedActions: Qt.DropAction) -> None:
        rows = sorted({i.row() for i in self.selectionModel().selectedRows()})
        if not rows:
            return
        data = self.page_model.mimeData(
            [self.page_model.index(r, PageColumn.THUMBNAIL) for r in rows]
        )
        drag = QDrag(self)
        drag.setMimeData(data)
        first = self.page_model.index(rows[0], PageColumn.THUMBNAIL)
        rect = self.visualRect(first)
        if not rect.isEmpty():
            drag.setPixmap(self.viewport().grab(rect).scaledToWidth(min(rect.width(), 96)))
        drag.exec(Qt.DropAction.MoveAction, Qt.DropAction.MoveAction)
        self._set_drop_row(None)

    def _accepts(self, event: QDragMoveEvent | QDropEvent) -> bool:
        return self.page_model.canDropMimeData(
            event.mimeData(), Qt.DropAction.MoveAction, -1, -1, QModelIndex()
        )

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._accepts(event):
            event.setDropAction(Qt.DropAction.MoveAction)
            event.accept()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if not self._accepts(event):
            event.ignore()
            return
        pos = event.position().toPoint()
        self._set_drop_row(self.drop_row(pos))
        self._auto_scroll(pos)
        event.setDropAction(Qt.DropAction.MoveAction)
        event.accept()

    def dragLeaveEvent(self, event: object) -> None:
        self._set_drop_row(None)

    def dropEvent(self, event: QDropEvent) -> None:
        self._set_drop_row(None)
        if not self._accepts(event):
            event.ignore()
            return
        row = self.drop_row(event.position().toPoint())
        moved = self.page_model.dropMimeData(
            event.mimeData(), Qt.DropAction.MoveAction, row, 0, QModelIndex()
        )
        # Accepted as a copy: the drag's source must not remove anything (the move is done).
        event.setDropAction(Qt.DropAction.CopyAction if moved else Qt.DropAction.IgnoreAction)
        event.accept()

    def _auto_scroll(self, pos: QPoint) -> None:
        bar = self.verticalScrollBar()
        margin = max(24, self.look.zoom // 3)
        if pos.y() < margin:
            bar.setValue(bar.value() - bar.singleStep())
        elif pos.y() > self.viewport().height() - margin:
            bar.setValue(bar.value() + bar.singleStep())

    def _set_drop_row(self, row: int | None) -> None:
        if row != self._drop_row:
            self._drop_row = row
            self.viewport().update()

    def drop_indicator(self) -> QRect | None:
        """Where the line that shows a drag's landing place is drawn, if a drag is over."""
        row = self._drop_row
        count = self.page_model.rowCount()
        if row is None or count == 0:
            return None
        after = row >= count
        rect = self.visualRect(self.page_model.index(count - 1 if after else row, 0))
        x = rect.right() + 2 if after else rect.left() - 2
        return QRect(x - 1, rect.top(), 3, rect.height())

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        line = self.drop_indicator()
        if line is not None:
            painter = QPainter(self.viewport())
            painter.setPen(QPen(self.palette().color(QPalette.ColorRole.Highlight), 3))
            painter.drawLine(line.center().x(), line.top(), line.center().x(), line.bottom())
            painter.end()


class SpreadsView(_IconList):
    """The pages in openings, verso | recto; choosing a spread selects its pages."""

    pages_chosen = Signal(list)  # the page rows of the spreads chosen, in order

    def __init__(self, model: SpreadsModel, look: GridLook) -> None:
        super().__init__(look, self.tr("Pages of the notebook in openings, verso beside recto"))
        self.spreads = model
        self.setModel(model)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setItemDelegate(SpreadsDelegate(model, look, self))
        self.setSpacing(10)  # the openings apart, their two pages together
        self._following = False
        self.selectionModel().selectionChanged.connect(self._on_selection_changed)

    @Slot(QItemSelection, QItemSelection)
    def _on_selection_changed(self, selected: QItemSelection, deselected: QItemSelection) -> None:
        if self._following:
            return
        spreads = sorted(i.row() for i in self.selectionModel().selectedIndexes())
        rows = [p for s in spreads for p in self.spreads.spread(s) if p is not None]
        self.pages_chosen.emit(rows)

    def follow(self, page_rows: Sequence[int]) -> None:
        """Show the spreads of the pages selected elsewhere (no echo back)."""
        spreads = sorted({s for r in page_rows if (s := self.spreads.spread_of(r)) is not None})
        self._following = True
        try:
            selection = QItemSelection()
            for s in spreads:
                index = self.spreads.index(s)
                selection.select(index, index)
            flags = QItemSelectionModel.SelectionFlag.ClearAndSelect
            self.selectionModel().select(selection, flags)
            if spreads:
                current = self.spreads.index(spreads[0])
                self.selectionModel().setCurrentIndex(
                    current, QItemSelectionModel.SelectionFlag.NoUpdate
                )
                self.scrollTo(current)
        finally:
            self._following = False


class ViewBar(QWidget):
    """The switch between Grid, Details and Spreads, and the thumbnails' zoom slider."""

    view_chosen = Signal(str)  # a PageView value
    zoom_chosen = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        tr = self.tr
        self.buttons: dict[PageView, QToolButton] = {}
        self.group = QButtonGroup(self)
        self.group.setExclusive(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        # Keys, not Alt letters: the review's buttons and menus have taken every letter
        # these words have (Ctrl+1 to 3 are the window's sections); a button's key works
        # while the review is on screen.
        for view, text, tip, key in (
            (PageView.GRID, tr("Grid"), tr("The pages as thumbnails (Ctrl+wheel zooms)"), "Alt+1"),
            (PageView.DETAILS, tr("Details"), tr("The pages as a table of their files"), "Alt+2"),
            (
                PageView.SPREADS,
                tr("Spreads"),
                tr("Verso beside recto, for notebooks whose files name leaf and side"),
                "Alt+3",
            ),
        ):
            button = QToolButton()
            button.setText(text)
            button.setShortcut(QKeySequence(key))
            button.setToolTip(f"{tip} ({key})")
            button.setAccessibleName(text)
            button.setCheckable(True)
            button.clicked.connect(lambda _checked=False, v=view: self.view_chosen.emit(v.value))
            self.group.addButton(button)
            self.buttons[view] = button
            layout.addWidget(button)
        layout.addStretch(1)
        self.zoom_label = QLabel(tr("&Zoom"))
        self.zoom_slider = QSlider(Qt.Orientation.Horizontal)
        self.zoom_slider.setRange(MIN_ZOOM, MAX_ZOOM)
        self.zoom_slider.setSingleStep(ZOOM_STEP)
        self.zoom_slider.setPageStep(4 * ZOOM_STEP)
        self.zoom_slider.setValue(DEFAULT_ZOOM)
        self.zoom_slider.setFixedWidth(140)
        self.zoom_slider.setAccessibleName(tr("Thumbnail size"))
        self.zoom_slider.setToolTip(tr("Thumbnail size (Ctrl+wheel over the pages)"))
        self.zoom_label.setBuddy(self.zoom_slider)
        self.zoom_slider.valueChanged.connect(self.zoom_chosen)
        layout.addWidget(self.zoom_label)
        layout.addWidget(self.zoom_slider)

    def show_view(self, view: PageView, *, spreads_possible: bool) -> None:
        self.buttons[view].setChecked(True)
        self.buttons[PageView.SPREADS].setEnabled(spreads_possible or view is PageView.SPREADS)
        zoomable = view is not PageView.DETAILS
        self.zoom_label.setVisible(zoomable)
        self.zoom_slider.setVisible(zoomable)


class GridViews:
    """The grid and the spreads of the review, their zoom and the caches they paint from.

    ``shared`` is the review's 160-pixel thumbnail cache (the table's too); a zoom above
    it paints from a cache of larger renders, made when first needed.
    """

    def __init__(
        self,
        model: PageTableModel,
        selection: QItemSelectionModel,
        shared: ThumbnailCache,
        actions: Sequence[QAction],
        settings: QSettings,
    ) -> None:
        self._settings = settings
        # Its larger renders' cache lives as long as the shared one (the review's).
        self.pictures = Pictures(shared, shared, LARGE_SIDE)
        self.look = GridLook(self.remembered_zoom(), self.pictures, self._device_ratio)
        self.grid = PageGrid(model, selection, self.look, actions)
        self.spreads_model = SpreadsModel(model, self.grid)
        self.spreads = SpreadsView(self.spreads_model, self.look)
        self.pictures.ready_large = self._on_large_ready
        # Renders wait while the pages move: asked for once they stand still this long.
        self._settle = QTimer(self.grid)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self._on_settled)
        for view in (self.grid, self.spreads):
            view.apply_zoom()
            view.verticalScrollBar().valueChanged.connect(self._on_moved)
        # A cell paints its page's badges and captions from the whole row, not only from
        # the thumbnail column a change may leave out (``PageTableModel._all_changed``).
        model.dataChanged.connect(self._repaint)

    def _repaint(self, first: QModelIndex, last: QModelIndex) -> None:
        if first == last:
            return  # one cell (a thumbnail come): the view updates it itself
        for view in (self.grid, self.spreads):
            view.viewport().update()

    def _device_ratio(self) -> float:
        return self.grid.devicePixelRatioF()

    def _on_moved(self) -> None:
        self.pictures.moving = True
        self._settle.start()

    def _on_settled(self) -> None:
        self.pictures.moving = False
        for view in (self.grid, self.spreads):
            view.viewport().update()

    def remembered_zoom(self) -> int:
        value = self._settings.value(ZOOM_KEY, DEFAULT_ZOOM)
        try:
            zoom = int(str(value))
        except ValueError:
            zoom = DEFAULT_ZOOM
        return max(MIN_ZOOM, min(MAX_ZOOM, zoom))

    def remembered_view(self) -> PageView:
        value = self._settings.value(VIEW_KEY, DEFAULT_VIEW.value)
        try:
            return PageView(str(value))
        except ValueError:
            return DEFAULT_VIEW

    def remember_view(self, view: PageView) -> None:
        self._settings.setValue(VIEW_KEY, view.value)

    def set_zoom(self, zoom: int) -> None:
        zoom = max(MIN_ZOOM, min(MAX_ZOOM, zoom))
        if zoom == self.look.zoom:
            return
        self.look.zoom = zoom
        self._settings.setValue(ZOOM_KEY, zoom)
        self._on_moved()
        current = self.grid.currentIndex()
        for view in (self.grid, self.spreads):
            view.apply_zoom()
        if current.isValid():
            self.grid.scrollTo(current)

    def _on_large_ready(self, source_id: str, page_index: int) -> None:
        model = self.grid.page_model
        row = model.row_of((source_id, page_index))
        if row is None:
            return
        self.grid.update(model.index(row, PageColumn.THUMBNAIL))
        spread = self.spreads_model.spread_of(row)
        if spread is not None:
            self.spreads.update(self.spreads_model.index(spread))

    def spreads_possible(self) -> bool:
        """Whether the notebook's pages name leaf and side, so spreads say something."""
        return has_sides(self.grid.page_model.page_labels())

    def caches(self) -> list[ThumbnailCache]:
        """The caches this owns (the shared one is the review's)."""
        return self.pictures.own_caches()
