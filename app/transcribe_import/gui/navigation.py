"""How the window's views are reached: the list of views, and the import's steps one at a time."""

from __future__ import annotations

from collections.abc import Sequence

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


class ImportSteps(QWidget):
    """The import's step pages, one at a time, under a line saying which step this is."""

    def __init__(self, pages: Sequence[QWidget], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.stack = QStackedWidget()
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
