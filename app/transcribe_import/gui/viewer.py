"""A readable view of one page, or of the two pages of a disputed pair side by side.

The pages are rendered by the engine as an import would render them, only at
``PREVIEW_SIDE`` pixels, on a preview cache's own threads (thumbnails.py); the viewer
shows them fitted to its size, or zoomed (Ctrl+wheel, + and -, 0 to fit again). The same
widget is the pane beside the page table and the full-window view (``ViewerDialog``,
double-click or Space on a page). It pages through the notebook (Left/Right, PageUp/PageDown,
Home/End) by asking for another page (``page_requested``): the review selects it, and the
viewer follows the selection, so the grid, the table and the viewer never disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QSize, Qt, Signal, Slot
from PySide6.QtGui import (
    QAction,
    QKeyEvent,
    QKeySequence,
    QPixmap,
    QResizeEvent,
    QShortcut,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from transcribe_import.engine.media.kinds import Turn
from transcribe_import.engine.planning.plan import PlanSource
from transcribe_import.gui.icons import turned
from transcribe_import.gui.thumbnails import ThumbnailCache

PREVIEW_SIDE = 1600  # enough to read handwriting on a full HD screen
MIN_ZOOM, MAX_ZOOM = 0.1, 4.0
ZOOM_STEP = 1.25

Page = tuple[PlanSource, int]  # a source and a page index in it


@dataclass(frozen=True)
class Place:
    """Where the page shown stands among the pages the viewer pages through."""

    number: int  # 1-based, among what the viewer pages through
    count: int
    label: str | None = None  # the page's own label ("12r"), if it has one
    # A plan's page: its number in the notebook once committed, of the pages the notebook
    # then holds (the engine's landing: a skipped duplicate or a left-out page is not one of
    # them, and says why in ``not_a_page``). ``notebook_pages`` None: ``number`` of ``count``.
    in_notebook: int | None = None
    notebook_pages: int | None = None
    not_a_page: str | None = None


# The keys that page through, and the page each goes to (from the current one, of a count).
_PAGING_KEYS = (
    (Qt.Key.Key_Left, lambda n, _count: n - 1),
    (Qt.Key.Key_PageUp, lambda n, _count: n - 1),
    (Qt.Key.Key_Right, lambda n, _count: n + 1),
    (Qt.Key.Key_PageDown, lambda n, _count: n + 1),
    (Qt.Key.Key_Home, lambda _n, _count: 0),
    (Qt.Key.Key_End, lambda _n, count: count - 1),
)


def page_name(page: Page) -> str:
    """A page as the viewer names it: its file, and which page of it for a multi-page file."""
    source, index = page
    return source.name + (f", page {index + 1}" if source.pages and len(source.pages) > 1 else "")


class PageViewer(QWidget):
    """One or two pages, fitted or zoomed; follows the preview cache as renders arrive."""

    zoom_changed = Signal(object)  # the zoom factor, or None when fitted
    page_requested = Signal(int)  # paging: the 0-based place of the page to show next

    def __init__(self, previews: ThumbnailCache, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.previews = previews
        self._pages: list[Page] = []
        self._turns: list[int] = []  # each shown page's turn in the plan, in degrees
        self._place: Place | None = None
        self._zoom: float | None = None  # None: fit to the view
        self._labels: list[QLabel] = []
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        self.caption.setAccessibleName(self.tr("The pages shown"))
        self._row = QHBoxLayout()
        self._row.setContentsMargins(0, 0, 0, 0)
        self._holder = QWidget()
        self._holder.setLayout(self._row)
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidget(self._holder)
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.scroll_area.setAccessibleName(self.tr("Page preview"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.caption)
        layout.addWidget(self.scroll_area, 1)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        previews.ready.connect(self._on_ready)
        for keys, slot in (
            ((QKeySequence.StandardKey.ZoomIn, "+", "="), self.zoom_in),
            ((QKeySequence.StandardKey.ZoomOut, "-"), self.zoom_out),
            (("0",), self.fit),
        ):
            for key in keys:
                sc = QShortcut(QKeySequence(key), self)
                sc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
                sc.activated.connect(slot)
        # Shortcuts, not key presses: the scroll area would take the arrows for scrolling.
        for paging_key, to in _PAGING_KEYS:
            paging = QShortcut(QKeySequence(paging_key), self)
            paging.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            paging.activated.connect(lambda to=to: self._go(to))
        self.set_pages([])

    # -- what is shown -------------------------------------------------------------------

    def pages(self) -> list[Page]:
        return list(self._pages)

    def place(self) -> Place | None:
        return self._place

    def turns(self) -> list[int]:
        """How far each shown page is turned, in degrees, as it is drawn."""
        return list(self._turns)

    def set_pages(
        self, pages: Sequence[Page], place: Place | None = None, turns: Sequence[int] = ()
    ) -> None:
        """Show these pages (two side by side at most); asks the cache for each. ``place``:
        where the one page shown stands, said in the caption and paged from. ``turns``: how
        far the plan turns each page clockwise (none given: not turned), shown so."""
        self._pages = list(pages)[:2]
        self._turns = [*turns, *[0] * len(self._pages)][: len(self._pages)]
        self._place = place if len(self._pages) == 1 else None
        while self._labels:
            self._labels.pop().deleteLater()
        for _ in self._pages:
            label = QLabel()
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
            self._row.addWidget(label, 1)
            self._labels.append(label)
        self.caption.setText(self._caption())
        self._refresh()

    def _caption(self) -> str:
        """ "Page N of M · label · file" for one page; both files for a pair."""
        names = [page_name(p) for p in self._pages]
        place = self._place
        if place is None:
            return "  |  ".join(names) if names else self.tr("Select a page to see it larger.")
        if place.notebook_pages is None:
            parts = [self.tr("Page {n} of {count}").format(n=place.number, count=place.count)]
        elif place.in_notebook is None:
            parts = [place.not_a_page or self.tr("Not a page of the notebook")]
        else:
            parts = [
                self.tr("Page {n} of {count}").format(
                    n=place.in_notebook, count=place.notebook_pages
                )
            ]
        if place.label:
            parts.append(place.label)
        return " · ".join([*parts, *names])

    def _go(self, to: Callable[[int, int], int]) -> None:
        place = self._place
        if place is None or place.count == 0:
            return
        target = max(0, min(place.count - 1, to(place.number - 1, place.count)))
        if target != place.number - 1:
            self.page_requested.emit(target)

    def pixmaps(self) -> list[QPixmap | None]:
        """Each shown page's rendered preview, once it has arrived (tests look at them)."""
        got = [self.previews.request(s, i) for s, i in self._pages]
        return [None if p is None else turned(p, t) for p, t in zip(got, self._turns, strict=True)]

    # -- zoom ----------------------------------------------------------------------------

    @property
    def zoom(self) -> float | None:
        return self._zoom

    @Slot()
    def zoom_in(self) -> None:
        self._set_zoom((self._zoom or self._fit_factor()) * ZOOM_STEP)

    @Slot()
    def zoom_out(self) -> None:
        self._set_zoom((self._zoom or self._fit_factor()) / ZOOM_STEP)

    @Slot()
    def fit(self) -> None:
        self._zoom = None
        self.scroll_area.setWidgetResizable(True)
        self._refresh()
        self.zoom_changed.emit(None)

    def _set_zoom(self, factor: float) -> None:
        self._zoom = max(MIN_ZOOM, min(MAX_ZOOM, factor))
        self._refresh()
        self.zoom_changed.emit(self._zoom)

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            (self.zoom_in if event.angleDelta().y() > 0 else self.zoom_out)()
            event.accept()
            return
        super().wheelEvent(event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._zoom is None:
            self._refresh()

    # -- painting ------------------------------------------------------------------------

    def _fit_factor(self) -> float:
        """The zoom at which every shown page fits the view (1.0 with nothing yet)."""
        shown = [p for p in self.pixmaps() if p is not None]
        if not shown:
            return 1.0
        area = self.scroll_area.viewport().size()
        width = max(1, area.width() // max(1, len(self._pages)) - 8)
        height = max(1, area.height() - 8)
        return min(min(width / p.width(), height / p.height()) for p in shown)

    def _refresh(self) -> None:
        factor = self._zoom if self._zoom is not None else self._fit_factor()
        for (source, index), label, pixmap in zip(
            self._pages, self._labels, self.pixmaps(), strict=True
        ):
            if pixmap is None:
                why = self.previews.failure(source.source_id, index)
                label.setPixmap(QPixmap())
                label.setText(why or self.tr("Rendering the page…"))
                continue
            size = QSize(
                max(1, round(pixmap.width() * factor)), max(1, round(pixmap.height() * factor))
            )
            dpr = self.devicePixelRatioF()
            scaled = pixmap.scaled(
                size * dpr,
                Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation,
            )
            scaled.setDevicePixelRatio(dpr)
            label.setPixmap(scaled)
            label.setMinimumSize(size if self._zoom is not None else QSize(0, 0))
        self.scroll_area.setWidgetResizable(self._zoom is None)
        if self._zoom is not None:
            self._holder.adjustSize()

    @Slot(str, int)
    def _on_ready(self, source_id: str, page_index: int) -> None:
        if any(s.source_id == source_id and i == page_index for s, i in self._pages):
            self._refresh()


def turn_actions(
    parent: QWidget, turn: Callable[[Turn], None], after: str
) -> tuple[QAction, QAction]:
    """Turn Right and Turn Left (Ctrl+R, Ctrl+Shift+R) of the page a viewer shows, for its
    ``actions``: each calls ``turn`` with its step; ``after``: what becomes of the turn, said
    in their tooltip after which keys do what."""
    tr = parent.tr
    right = QAction(tr("Turn &Right"), parent)
    right.setShortcut(QKeySequence("Ctrl+R"))
    right.triggered.connect(lambda: turn(Turn.QUARTER))
    left = QAction(tr("Turn &Left"), parent)
    left.setShortcut(QKeySequence("Ctrl+Shift+R"))
    left.triggered.connect(lambda: turn(Turn.THREE_QUARTERS))
    for action in (right, left):
        action.setToolTip(
            tr("Turn the page shown: right (Ctrl+R) or left (Ctrl+Shift+R).") + " " + after
        )
    return right, left


class ViewerDialog(QDialog):
    """The full-window view of the selected page(s); Escape or Space closes it.

    ``actions``: what the view it was opened from does to the page shown (the library's Turn
    Right and Turn Left), each a button beside Close and its shortcut live in the dialog, so
    the page is turned where it is looked at.
    """

    def __init__(
        self,
        previews: ThumbnailCache,
        pages: Sequence[Page],
        parent: QWidget,
        place: Place | None = None,
        actions: Sequence[QAction] = (),
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Page Viewer"))
        self.viewer = PageViewer(previews, self)
        self.viewer.set_pages(pages, place)
        paging = self.tr(
            "Left and Right (or Page Up and Page Down) go to the page before or after, Home "
            "and End to the first and the last; Ctrl+wheel, + and - zoom; 0 fits the page "
            "again; Space or Escape closes."
        )
        # The page shown's own actions, each with its keys: "Turn Right (Ctrl+R), …".
        native = QKeySequence.SequenceFormat.NativeText
        named = [f"{a.text().replace('&', '')} ({a.shortcut().toString(native)})" for a in actions]
        hint = QLabel(" ".join([paging, *([", ".join(named) + "."] if named else [])]))
        hint.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        row = QHBoxLayout()
        self.action_buttons: list[QToolButton] = []
        for action in actions:
            button = QToolButton(self)
            button.setDefaultAction(action)  # its words, its enabled state, its tooltip
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
            self.addAction(action)  # its shortcut works while the dialog has the focus
            row.addWidget(button)
            self.action_buttons.append(button)
        row.addWidget(buttons, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.viewer, 1)
        layout.addWidget(hint)
        layout.addLayout(row)
        screen = parent.screen().availableGeometry() if parent.screen() else None
        if screen is not None:
            self.resize(screen.size() * 0.9)
        self.viewer.setFocus()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Space:
            self.accept()
            return
        super().keyPressEvent(event)
