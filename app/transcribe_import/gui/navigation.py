"""How the window's views are reached: the list of views, and the import's steps one at a time."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSize
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QStackedWidget,
    QStyle,
    QVBoxLayout,
    QWidget,
)


def views_list(style: QStyle) -> QListWidget:
    """The window's list of views (Import, Runs, Corpus), in the order of their sections."""
    views = QListWidget()
    views.setAccessibleName(views.tr("Views"))
    for pixmap, text, tip in (
        (
            QStyle.StandardPixmap.SP_FileDialogNewFolder,
            views.tr("Import"),
            views.tr("Scan, review and commit folders of scans (Ctrl+1)"),
        ),
        (
            QStyle.StandardPixmap.SP_FileDialogContentsView,
            views.tr("Runs"),
            views.tr("Past imports, their outcomes, and Resume (Ctrl+2)"),
        ),
        (
            QStyle.StandardPixmap.SP_DriveHDIcon,
            views.tr("Corpus"),
            views.tr("The corpus's notebooks and its health (Ctrl+3)"),
        ),
    ):
        item = QListWidgetItem(style.standardIcon(pixmap), text)
        item.setToolTip(tip)
        views.addItem(item)
    views.setMinimumWidth(90)
    return views


class ShownPageStack(QStackedWidget):
    """A stack of pages that asks the room of the page it shows, not of its tallest page.

    A QStackedWidget is as tall as the tallest of its pages: in the window's scroll area
    the Commit view scrolled at 800x600 because the Start view (its notices) or another
    hidden page needed more height than the window had (#34).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.currentChanged.connect(self.updateGeometry)

    def sizeHint(self) -> QSize:
        page = self.currentWidget()
        return super().sizeHint() if page is None else page.sizeHint()

    def minimumSizeHint(self) -> QSize:
        page = self.currentWidget()
        return super().minimumSizeHint() if page is None else page.minimumSizeHint()

    def hasHeightForWidth(self) -> bool:
        page = self.currentWidget()
        return page is not None and page.hasHeightForWidth()

    def heightForWidth(self, width: int) -> int:
        page = self.currentWidget()
        if page is None or not page.hasHeightForWidth():
            return -1
        return page.heightForWidth(width)


class ImportSteps(QWidget):
    """The import's step pages, one at a time, under a line saying which step this is."""

    def __init__(self, pages: Sequence[QWidget], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.stack = ShownPageStack()
        for page in pages:
            self.stack.addWidget(page)
        self._labels = [
            QLabel(text)
            for text in (
                self.tr("1  Choose"),
                self.tr("2  Scan"),
                self.tr("3  Review"),
                self.tr("4  Commit"),
            )
        ]
        steps = QHBoxLayout()
        steps.setContentsMargins(9, 6, 9, 0)  # in line with the pages' own margins
        for i, label in enumerate(self._labels):
            if i:
                arrow = QLabel("›")
                arrow.setEnabled(False)
                steps.addWidget(arrow)
            steps.addWidget(label)
        steps.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(steps)
        layout.addWidget(self.stack, 1)

    def hasHeightForWidth(self) -> bool:
        return self.stack.hasHeightForWidth()

    def heightForWidth(self, width: int) -> int:
        """The steps' line and the page shown: a layout would ask the stack's own layout,
        which answers for the tallest page (see ShownPageStack)."""
        height = self.stack.heightForWidth(width)
        return height if height < 0 else self.stack.y() + height

    def show_step(self, page: QWidget) -> None:
        """Show ``page``, its step's name in bold; steps not reached yet read dimmed."""
        self.stack.setCurrentWidget(page)
        current = self.stack.indexOf(page)
        for i, label in enumerate(self._labels):
            font = label.font()
            font.setBold(i == current)
            label.setFont(font)
            # Dimmed from the palette, in light and dark alike.
            label.setEnabled(i <= current)

    def current_step(self) -> QWidget | None:
        return self.stack.currentWidget()
