"""Where an item's new pages go in an existing notebook, and which page a rescan replaces.

The placement bar is shown for an "into an existing notebook" item only. It offers the
engine's three placements (at the end, at a position, after a page of the notebook) and
says which the plan holds; a choice is handed to the review page as
``placement_chosen(at, after)``, which makes it an undoable engine edit (``api.place``).
Below, in the engine's words (``api.landing``), where each rescan goes: the place of the
page it replaces. When every page is a rescan there are no new pages to place, and the
bar says only that. An item whose new pages go in several places (a notebook completed
with pages that fill several gaps) has a fourth choice, *Each where its name puts it*,
listed while it holds, and below it where each block goes; another choice puts them all
in that one place (``api.place``: undoable, as every edit).
``ask_replaced_page`` asks which notebook page a rescan replaces. Neither decides anything.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from transcribe_import.engine import api
from transcribe_import.engine.planning.plan import Op, PlanItem
from transcribe_import.gui.pages.review_parts import WrappingLabel
from transcribe_import.gui.widgets import selectable_text
from transcribe_import.gui.wording import (
    by_names_mode_words,
    notebook_page_words,
    placement_mode_words,
    placement_title,
    places_words,
    replace_dialog_words,
    rescans_placed_words,
)

AT_END, AT_POSITION, AFTER_PAGE, BY_NAMES = range(4)


class PlacementBar(QGroupBox):
    """At the end | At position N | After page P, for the item shown (hidden otherwise)."""

    placement_chosen = Signal(object, object)  # at: int | None, after: page id | None

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.mode_combo = QComboBox()
        self.mode_combo.addItems(placement_mode_words())
        self.mode_combo.setAccessibleName(self.tr("Where the new pages go"))
        self.position_spin = QSpinBox()
        self.position_spin.setMinimum(1)
        self.position_spin.setKeyboardTracking(False)  # one edit when typed, not per digit
        self.position_spin.setAccessibleName(self.tr("Position of the first new page"))
        self.after_combo = QComboBox()
        self.after_combo.setAccessibleName(self.tr("Page the new pages follow"))
        label = QLabel(self.tr("New pa&ges go:"))
        label.setBuddy(self.mode_combo)
        # The row that places the new pages: hidden when every page is a rescan.
        self.new_pages_row = QWidget()
        row = QHBoxLayout(self.new_pages_row)
        row.setContentsMargins(0, 0, 0, 0)
        for widget in (label, self.mode_combo, self.position_spin, self.after_combo):
            row.addWidget(widget)
        row.addStretch(1)
        # Pages in several places: where each block goes.
        self.places_label = selectable_text(WrappingLabel())
        self.places_label.setTextFormat(Qt.TextFormat.PlainText)
        # Where each rescan goes: the place (and the number) of the page it replaces.
        self.rescans_label = selectable_text(WrappingLabel())
        self.rescans_label.setTextFormat(Qt.TextFormat.PlainText)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(9, 2, 9, 6)
        layout.addWidget(self.new_pages_row)
        layout.addWidget(self.places_label)
        layout.addWidget(self.rescans_label)
        self._showing = False  # True while the widgets are set from the plan, not by a person
        self.mode_combo.currentIndexChanged.connect(self._on_changed)
        self.position_spin.valueChanged.connect(self._on_changed)
        self.after_combo.currentIndexChanged.connect(self._on_changed)
        self.hide()

    def show_item(
        self,
        item: PlanItem | None,
        pages: list[api.NotebookPage],
        landing: api.Landing | None = None,
    ) -> None:
        """Show where ``item``'s pages go among ``pages`` (the notebook's, in order);
        ``landing``: the engine's words for its rescans and its count of new pages."""
        if item is None or item.op is not Op.IMPORT_INTO_NOTEBOOK:
            self.hide()
            return
        live = [p for p in pages if p.position is not None]
        rescans = landing.replaces if landing is not None else ()
        new_pages = landing is None or landing.added > 0 or not rescans
        self.new_pages_row.setVisible(new_pages)
        self.rescans_label.setText(rescans_placed_words(list(rescans)) if rescans else "")
        self.rescans_label.setVisible(bool(rescans))
        places = landing.places if landing is not None else ()
        self.places_label.setText(places_words(list(places)) if places else "")
        self.places_label.setVisible(bool(places) and new_pages)
        self._showing = True
        try:
            self.setTitle(placement_title(item.notebook_id, new_pages=new_pages))
            self.after_combo.clear()
            for p in live:
                self.after_combo.addItem(notebook_page_words(p.words), p.page_id)
            self.position_spin.setMaximum(len(live) + 1)
            # The fourth choice is listed while the item's pages go in several places.
            if item.places and self.mode_combo.count() == BY_NAMES:
                self.mode_combo.addItem(by_names_mode_words())
            elif not item.places and self.mode_combo.count() > BY_NAMES:
                self.mode_combo.removeItem(BY_NAMES)
            placed = item.placement
            if item.places:
                mode = BY_NAMES
            elif placed is None:
                mode = AT_END
            elif placed.at is not None:
                mode = AT_POSITION
                self.position_spin.setValue(placed.at)
            else:
                mode = AFTER_PAGE
                row = self.after_combo.findData(placed.after_page)
                if row < 0:  # not a page of the notebook (validate says so): shown as it is
                    self.after_combo.addItem(str(placed.after_page), placed.after_page)
                    row = self.after_combo.count() - 1
                self.after_combo.setCurrentIndex(row)
            self.mode_combo.setCurrentIndex(mode)
            self._sync_visible()
        finally:
            self._showing = False
        self.show()

    def choose(self, mode: int) -> None:
        """Put the focus on the control of ``mode`` (a problem's resolution button)."""
        self.mode_combo.setCurrentIndex(mode)
        target = {AT_POSITION: self.position_spin, AFTER_PAGE: self.after_combo}.get(mode)
        (target or self.mode_combo).setFocus()

    def _sync_visible(self) -> None:
        mode = self.mode_combo.currentIndex()
        self.position_spin.setVisible(mode == AT_POSITION)
        self.after_combo.setVisible(mode == AFTER_PAGE)

    @Slot()
    def _on_changed(self) -> None:
        self._sync_visible()
        if self._showing:
            return
        mode = self.mode_combo.currentIndex()
        if mode == AT_POSITION:
            self.placement_chosen.emit(self.position_spin.value(), None)
        elif mode == AFTER_PAGE and self.after_combo.currentData() is not None:
            self.placement_chosen.emit(None, self.after_combo.currentData())
        elif mode == AT_END:
            self.placement_chosen.emit(None, None)


def ask_replaced_page(
    parent: QWidget, pages: list[api.NotebookPage], now: str | None
) -> tuple[bool, str | None]:
    """Ask which of the notebook's ``pages`` a rescan replaces (``now``: the one it replaces
    in the plan); (asked, page id or None for "none: add it as a new page")."""
    live = [p for p in pages if p.position is not None]
    title, question, none = replace_dialog_words()
    choices = [none] + [notebook_page_words(p.words) for p in live]
    current = next((k + 1 for k, p in enumerate(live) if p.page_id == now), 0)
    choice, ok = QInputDialog.getItem(parent, title, question, choices, current, False)
    if not ok:
        return False, None
    index = choices.index(choice)
    return True, live[index - 1].page_id if index else None
