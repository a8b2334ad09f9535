"""The Corpus view: the corpus's notebooks in a table, its health as doctor reports it, and its
fixity (pages/audit_panel.py: the last full audit, failures with Repair…, an audit to start).

A view only: the window runs doctor on a worker and hands the results here. An incomplete
notebook (part of an import that stopped) is marked in the table; selected, it is explained
below the table with its two actions: *Finish Import* (the window's resume or retry of its
run) and *Undo This Import…* (the undo dialog's preview of undoing that run).

A notebook opens (double-click, Enter, *Open*, the context menu) into the library
(pages/library.py), in place of the list: its pages read-only in the review's page grid.
The list tells notebooks of one title apart by their id and the folder their files came from.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import (
    QDateTime,
    QItemSelection,
    QItemSelectionModel,
    QLocale,
    QPoint,
    QRect,
    QSettings,
    QSize,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QKeySequence, QResizeEvent, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QSizePolicy,
    QStackedWidget,
    QStyle,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from transcribe_import.engine import api
from transcribe_import.engine.api import Corpus, NotebookSummary, RunSummary, UnfinishedImport
from transcribe_import.engine.base.findings import (
    DoctorReport,
    DoctorStop,
    Finding,
    FindingCode,
    Severity,
)
from transcribe_import.gui.icons import SP, finding_icon, standard_icon
from transcribe_import.gui.models.base import SORT_ROLE
from transcribe_import.gui.models.notebooks import NotebookColumn, NotebookTableModel
from transcribe_import.gui.pages.audit_panel import AuditPanel
from transcribe_import.gui.pages.library import LibraryView
from transcribe_import.gui.undo_dialog import UndoDialog
from transcribe_import.gui.widgets import (
    OneLineMiddleElided,
    icon_label,
    push_button,
    selectable_text,
    set_small_icon,
    table_view,
)
from transcribe_import.gui.wording import (
    ButtonWords,
    check_again_words,
    finding_severity_words,
    finding_words,
    incomplete_buttons,
    plural,
    unfinished_import_words,
)
from transcribe_import.gui.workers import TaskSlot

_COLUMN_PADDING = 24
# The Source column's first width: a folder's name and the end of its path, elided between.
_SOURCE_WIDTH = 120
# How the title column wraps a title too long for one line (as the view's delegate does).
_WRAPPED = Qt.TextFlag.TextWordWrap | Qt.TextFlag.TextWrapAnywhere

# Findings that need a person come first, then what doctor repaired, then notes.
_SEVERITY_ORDER = {Severity.PROBLEM: 0, Severity.REPAIRED: 1, Severity.INFO: 2}


def run_summary(corpus: Corpus, run_id: str) -> RunSummary:
    """The run an incomplete notebook's import belongs to, as the undo dialog names it."""
    return api.show_run(corpus, run_id).summary


def source_folders(corpus: Corpus, notebook_ids: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """The Source column's folders, read on a worker (one manifest a notebook)."""
    return api.notebook_sources(corpus, notebook_ids)


class CorpusPage(QWidget):
    """One corpus: its notebooks in a table, the latest doctor report below them."""

    check_requested = Signal()  # also after an undo: the health and the listing follow
    resume_requested = Signal(str)  # run id: Finish Import of a run that can be resumed
    retry_requested = Signal(str)  # run id: Finish Import of a run that has ended
    export_requested = Signal()  # Export…: the window's dialog, on ``export_choice``

    def __init__(
        self, corpus: Corpus, parent: QWidget | None = None, settings: QSettings | None = None
    ) -> None:
        super().__init__(parent)
        self.corpus = corpus
        self._columns_fitted = False
        root = str(corpus.root)

        self.notebook_model = NotebookTableModel(parent=self)
        self._sort_model = QSortFilterProxyModel(self)
        self._sort_model.setSourceModel(self.notebook_model)
        self._sort_model.setSortRole(SORT_ROLE)
        # The search box filters by title, as a person remembers a notebook.
        self._sort_model.setFilterKeyColumn(NotebookColumn.TITLE)
        self._sort_model.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self._sort_model.setFilterRole(Qt.ItemDataRole.DisplayRole)

        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText(self.tr("Part of a title"))
        self.search_edit.setAccessibleName(self.tr("Search the notebooks by title"))
        self.search_edit.textChanged.connect(self._search_changed)
        search_label = QLabel(self.tr("&Search:"))
        search_label.setBuddy(self.search_edit)
        self.shown_label = QLabel()
        self.shown_label.setAccessibleName(self.tr("How many notebooks are shown"))
        search_row = QHBoxLayout()
        search_row.addWidget(search_label)
        search_row.addWidget(self.search_edit, 1)
        search_row.addWidget(self.shown_label)

        self.notebook_table = table_view(
            self._sort_model,
            self.tr("Notebooks"),
            selection=QAbstractItemView.SelectionMode.ExtendedSelection,
        )
        self.notebook_table.setSortingEnabled(True)
        # Oldest first, the order `transcribe-import notebooks` prints, so the two agree.
        self.notebook_table.sortByColumn(NotebookColumn.CREATED, Qt.SortOrder.AscendingOrder)
        header = self.notebook_table.horizontalHeader()
        # The title takes the room the short columns (fitted to what they hold, show_notebooks)
        # leave, and wraps onto more lines rather than being cut ("Parish reg…, volume 1"
        # at 800x600): the rows are as tall as the longest title needs (``_fit_rows``). The
        # source, one line elided in the middle (the whole folder in its tooltip), keeps the
        # folder's name that tells two notebooks of one title apart, and widens by hand.
        header.setSectionResizeMode(NotebookColumn.TITLE, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(NotebookColumn.SOURCE, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(NotebookColumn.SOURCE, _SOURCE_WIDTH)
        self.notebook_table.setWordWrap(True)
        self.notebook_table.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.notebook_table.setItemDelegateForColumn(
            NotebookColumn.SOURCE, OneLineMiddleElided(self.notebook_table)
        )
        # One height for every row, not each row fitted to its contents: that reads every
        # cell of every row on each listing and resize (seconds at a thousand notebooks).
        rows = self.notebook_table.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self._one_line_height = rows.defaultSectionSize()
        self._title_widths: list[tuple[int, str]] = []  # (one line's width, title), widest first
        header.sectionResized.connect(self._title_resized)
        self.notebook_table.selectionModel().selectionChanged.connect(self._show_unfinished)
        self.undo_dialog: UndoDialog | None = None
        self._commit_running = False
        self._runs = TaskSlot(self, done=self._open_undo, failed=self._undo_failed)
        self.unfinished_panel = self._unfinished_panel()
        self.context_menu: QMenu | None = None
        self._sources = TaskSlot(self, done=self.notebook_model.set_sources)
        self.notebook_table.doubleClicked.connect(self.open_selected)
        for key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            opening = QShortcut(QKeySequence(key), self.notebook_table)
            opening.setContext(Qt.ShortcutContext.WidgetShortcut)
            opening.activated.connect(self.open_selected)
        self.notebook_table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.notebook_table.customContextMenuRequested.connect(self._context_menu)
        self.open_button = push_button(
            ButtonWords(
                self.tr("&Open"),
                self.tr("Open the selected notebook"),
                self.tr("See its pages in order, read-only (double-click or Enter)"),
            ),
            SP.SP_DirOpenIcon,
            self.open_selected,
        )
        self.export_button = push_button(
            ButtonWords(
                self.tr("E&xport…"),
                self.tr("Export the selected notebooks"),
                self.tr("Copy the selected notebooks out of the corpus as a BagIt bag"),
            ),
            SP.SP_DialogSaveButton,
            self.export_requested,
        )
        self.notebook_table.selectionModel().selectionChanged.connect(self._update_actions)

        self.loading_label = self._centred_label(
            self.tr("Reading the notebooks in {root}…").format(root=root)
        )
        self.empty_label = self._centred_label(
            self.tr(
                "<p><b>No notebooks in {root} yet.</b></p>"
                "<p>This corpus is empty. Notebooks stored in it are listed here with their "
                "page counts; File › Open Corpus Folder shows where it is.</p>"
            ).format(root=html.escape(root))
        )
        self.empty_label.setAccessibleName(self.tr("No notebooks"))

        self.notebook_stack = QStackedWidget()
        for page in (self.loading_label, self.notebook_table, self.empty_label):
            self.notebook_stack.addWidget(page)

        self.health_icon = icon_label()
        # A fixed box, so the summary does not shift when the icon comes and goes.
        icon_size = self.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)
        self.health_icon.setFixedSize(icon_size, icon_size)
        self.health_summary = selectable_text(QLabel())
        self.health_summary.setAccessibleName(self.tr("Corpus health summary"))
        # A signal, not a lambda: a lambda over self made PySide crash when the window was
        # garbage-collected ("shared QObject was deleted directly").
        self.check_again_button = push_button(
            check_again_words(), SP.SP_BrowserReload, self.check_requested
        )

        self.findings_view = FindingsView()
        self.findings_view.setAccessibleName(self.tr("Corpus health findings"))
        self.findings_view.hide()

        summary_row = QHBoxLayout()
        summary_row.addWidget(self.health_icon, 0, Qt.AlignmentFlag.AlignTop)
        summary_row.addWidget(self.health_summary, 1)
        summary_row.addWidget(self.check_again_button, 0, Qt.AlignmentFlag.AlignTop)

        self.health_panel = QGroupBox(self.tr("Corpus health"))
        health_layout = QVBoxLayout(self.health_panel)
        health_layout.addLayout(summary_row)

        # Fixity over the years: the last full audit, its failures, an audit started here.
        self.audit_panel = AuditPanel(corpus, settings if settings is not None else QSettings())

        search_row.addWidget(self.open_button)
        search_row.addWidget(self.export_button)
        self.list_page = QWidget()
        # The style's margins, as the library's and the other sections': the list does not
        # jump left and touch the window's edge when All Notebooks comes back to it.
        layout = QVBoxLayout(self.list_page)
        layout.addLayout(search_row)
        layout.addWidget(self.notebook_stack, 1)
        layout.addWidget(self.unfinished_panel, 0)
        layout.addWidget(self.health_panel, 0)
        # Below the health box, not in it: a box holding wrapped words is as tall as they
        # need and no shorter, so the findings inside it could not give up their room on a
        # small screen; here they shrink to their least, and scroll (see heightForWidth).
        layout.addWidget(self.findings_view, 0)
        layout.addWidget(self.audit_panel, 0)

        # The library in place of the list while a notebook is open; All Notebooks goes back.
        self.library = LibraryView(corpus, settings=settings)  # its view and zoom remembered there
        self.library.back_requested.connect(self.show_list)
        self.library.export_requested.connect(self.export_requested)
        self.library.finish_requested.connect(self._finish)
        self.library.undo_requested.connect(self._undo)
        self.library.turned.connect(self.check_requested)
        self.page_stack = QStackedWidget()
        self.page_stack.addWidget(self.list_page)
        self.page_stack.addWidget(self.library)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.page_stack)
        self._update_actions()

    def _unfinished_panel(self) -> QWidget:
        """What the selected incomplete notebook holds, with Finish Import and Undo This
        Import…; hidden while no incomplete notebook is selected."""
        panel = QWidget()
        self.unfinished_icon = icon_label()
        set_small_icon(self.unfinished_icon, standard_icon(SP.SP_MessageBoxInformation))
        self.unfinished_label = selectable_text(QLabel())
        self.unfinished_label.setWordWrap(True)
        self.unfinished_label.setAccessibleName(self.tr("The selected notebook's import"))
        finish, undo = incomplete_buttons()
        self.finish_button = push_button(finish, SP.SP_MediaPlay, self._finish_clicked)
        self.undo_button = push_button(undo, SP.SP_TrashIcon, self._undo_clicked)
        row = QHBoxLayout(panel)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.unfinished_icon, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(self.unfinished_label, 1)
        row.addWidget(self.undo_button, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(self.finish_button, 0, Qt.AlignmentFlag.AlignTop)
        panel.hide()
        return panel

    def _centred_label(self, text: str) -> QLabel:
        label = selectable_text(QLabel(text))
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        label.setMargin(24)
        return label

    def _search_changed(self, text: str) -> None:
        self._sort_model.setFilterFixedString(text.strip())
        self._show_count()

    def _show_count(self) -> None:
        total = self.notebook_model.rowCount()
        shown = self._sort_model.rowCount()
        if shown == total:
            self.shown_label.clear()
        else:
            self.shown_label.setText(
                self.tr("{shown} of {total} shown").format(
                    shown=QLocale().toString(shown), total=QLocale().toString(total)
                )
            )

    def selected_notebooks(self) -> list[NotebookSummary]:
        """The selected notebooks, in the order the table shows them."""
        rows = self.notebook_table.selectionModel().selectedRows()
        source_rows = sorted(rows, key=lambda index: index.row())
        return [
            self.notebook_model.notebook(self._sort_model.mapToSource(index).row())
            for index in source_rows
        ]

    def _select(self, notebook_ids: set[str]) -> None:
        chosen = QItemSelection()
        model = self.notebook_model
        for row in range(model.rowCount()):
            if model.notebook(row).notebook_id in notebook_ids:
                index = self._sort_model.mapFromSource(model.index(row, 0))
                chosen.select(index, index)
        flags = QItemSelectionModel.SelectionFlag
        self.notebook_table.selectionModel().select(chosen, flags.ClearAndSelect | flags.Rows)

    # -- the library: a notebook opened, exported ------------------------------------------

    def heightForWidth(self, width: int) -> int:
        """The least height the page needs at ``width``: its wrapped words whole, and the
        notebook table and the health findings (each scrolls itself) at their least.

        The window's sections scroll area makes a page as tall as this; by the page's
        preferred height (those two views at their full height) it made the Corpus view
        scroll at 800x600. Given more room, the views take it as before.
        """
        height = super().heightForWidth(width)
        if height < 0:
            return height
        for view in (self.notebook_stack, self.findings_view):
            if view.isVisibleTo(self.list_page):
                height -= max(0, view.sizeHint().height() - view.minimumSizeHint().height())
        return max(height, self.minimumSizeHint().height())

    def _update_actions(self, *_: object) -> None:
        chosen = self.selected_notebooks()
        readable = [nb for nb in chosen if nb.problem is None]
        self.open_button.setEnabled(len(readable) == 1 and len(chosen) == 1)
        self.export_button.setEnabled(bool(readable))

    def open_selected(self, *_: object) -> None:
        """Open the selected notebook in the library (one, readable)."""
        chosen = self.selected_notebooks()
        if len(chosen) == 1 and chosen[0].problem is None:
            self.open_notebook(chosen[0].notebook_id)

    def open_notebook(self, notebook_id: str) -> None:
        self.page_stack.setCurrentWidget(self.library)
        self.library.open_notebook(notebook_id)

    def open_run(self, run_id: str) -> None:
        """The library on what the import ``run_id`` added (Runs › Show What This Import Added)."""
        self.page_stack.setCurrentWidget(self.library)
        self.library.open_run(run_id)

    def show_list(self) -> None:
        self.page_stack.setCurrentWidget(self.list_page)
        self.notebook_table.setFocus()

    def export_choice(self) -> list[NotebookSummary]:
        """What Export… exports: the notebook open in the library, else the selection."""
        if self.page_stack.currentWidget() is self.library:
            shown = self.library.notebook()
            shown_id = None if shown is None else shown.notebook_id
            return [nb for nb in self.notebook_model.rows() if nb.notebook_id == shown_id]
        return self.selected_notebooks()

    def _context_menu(self, pos: QPoint) -> None:
        if self.notebook_table.indexAt(pos).isValid():
            self.notebook_menu().popup(self.notebook_table.viewport().mapToGlobal(pos))

    def notebook_menu(self) -> QMenu:
        """The selected notebooks' actions: Open, Export…, and for an incomplete one Finish
        Import and Undo This Import…, each enabled as its button is."""
        if self.context_menu is not None:
            self.context_menu.deleteLater()
        menu = QMenu(self)
        menu.addAction(self.open_button.text(), self.open_selected).setEnabled(
            self.open_button.isEnabled()
        )
        menu.addAction(self.export_button.text(), self.export_requested.emit).setEnabled(
            self.export_button.isEnabled()
        )
        if self.selected_unfinished() is not None:
            menu.addSeparator()
            for button in (self.finish_button, self.undo_button):
                menu.addAction(button.text(), button.click).setEnabled(button.isEnabled())
        self.context_menu = menu
        return menu

    def selected_unfinished(self) -> NotebookSummary | None:
        """The first selected notebook that is incomplete, if any."""
        return next((nb for nb in self.selected_notebooks() if nb.unfinished), None)

    def _show_unfinished(self, *_: object) -> None:
        nb = self.selected_unfinished()
        self.unfinished_panel.setVisible(nb is not None)
        if nb is not None and nb.unfinished is not None:
            self.unfinished_label.setText(unfinished_import_words(nb.title, nb.unfinished))
        # Another process importing it (its run is live) finishes it, or stops it resumable.
        idle = not self._commit_running and not (nb and nb.unfinished and nb.unfinished.running)
        for button in (self.finish_button, self.undo_button):
            button.setEnabled(idle)

    def set_commit_running(self, running: bool) -> None:
        """While the window commits, neither action starts: one import at a time, and an
        undo never moves files under a commit (as in the Runs view)."""
        self._commit_running = running
        self._show_unfinished()
        self.library.allow_actions(not running)

    def _finish_clicked(self) -> None:
        nb = self.selected_unfinished()
        if nb is not None and nb.unfinished is not None:
            self._finish(nb.unfinished)

    def _finish(self, u: UnfinishedImport) -> None:
        """Finish Import (here or in the library): a retry of an ended run, else a resume."""
        if not self._commit_running:
            (self.retry_requested if u.run_ended else self.resume_requested).emit(u.run_id)

    def _undo_clicked(self) -> None:
        nb = self.selected_unfinished()
        if nb is not None and nb.unfinished is not None and self.undo_button.isEnabled():
            self._undo(nb.unfinished.run_id)

    def _undo(self, run_id: str) -> None:
        """Undo This Import… (here or in the library): its preview, once the run is read."""
        if not self._runs.is_busy() and not self._commit_running:
            self._runs.run(run_summary, self.corpus, run_id)

    def _open_undo(self, run: RunSummary) -> None:
        dialog = UndoDialog(self.corpus, run, self)
        dialog.reverted.connect(self.check_requested)
        dialog.reverted.connect(self.library.reread)  # a turn's undo keeps the page count
        self.undo_dialog = dialog  # the tests drive it; one at a time
        dialog.open()

    def _undo_failed(self, message: str) -> None:
        if self.page_stack.currentWidget() is self.library:  # asked there: told there
            self.library.tell(message)
        else:
            self.unfinished_label.setText(message)

    def stop_and_wait(self) -> None:
        """Wait for a run's loading and the library's reading (short) before the window closes."""
        self._runs.close()
        self._sources.close()
        self.audit_panel.stop_and_wait()
        self.library.stop_and_wait()

    # -- results from the window's workers -------------------------------------------------

    def set_checking(self, checking: bool) -> None:
        self.check_again_button.setEnabled(not checking)
        if checking:
            self.health_icon.clear()
            self.health_summary.setText(self.tr("Checking the corpus…"))

    def set_check_allowed(self, allowed: bool, why: str = "") -> None:
        """While an import runs, doctor waits (it would find the import's work half-done)."""
        self.check_again_button.setEnabled(allowed)
        self.check_again_button.setToolTip(
            why or self.tr("Run doctor again: recover interrupted work and look for problems")
        )

    def _fit_column(self, column: int, *, widen_only: bool = False) -> None:
        table = self.notebook_table
        before = table.columnWidth(column)
        table.resizeColumnToContents(column)
        width = table.columnWidth(column) + _COLUMN_PADDING
        table.setColumnWidth(column, max(width, before) if widen_only else width)

    def _title_resized(self, column: int, _old: int, new: int) -> None:
        if column == NotebookColumn.TITLE:
            # The header tells before it takes the new width: columnWidth is the old one.
            self._fit_rows(new)

    def _fit_rows(self, title_width: int | None = None) -> None:
        """Every row as tall as the title that needs the most lines at the title column's
        width: each title whole, wrapped, and one line high while every title fits one."""
        table = self.notebook_table
        metrics = table.fontMetrics()
        margin = 2 * (table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) + 1)
        if title_width is None:
            title_width = table.columnWidth(NotebookColumn.TITLE)
        width = max(1, title_width - margin)
        tallest = metrics.lineSpacing()
        for one_line, title in self._title_widths:
            if one_line <= width:
                break  # widest first: the rest fit on one line
            box = metrics.boundingRect(QRect(0, 0, width, 1 << 20), _WRAPPED, title)
            tallest = max(tallest, box.height())
        height = max(self._one_line_height, self._one_line_height - metrics.lineSpacing() + tallest)
        rows = table.verticalHeader()
        if rows.defaultSectionSize() != height:  # else no relayout for nothing
            rows.setDefaultSectionSize(height)

    def show_notebooks(self, notebooks: Sequence[NotebookSummary]) -> None:
        # A new listing keeps the selection (a check run meanwhile must not drop it).
        selected = {nb.notebook_id for nb in self.selected_notebooks()}
        self.notebook_model.set_notebooks(notebooks)
        if selected:
            self._select(selected)
        if notebooks and not self._columns_fitted:
            # Fitted once, with room to breathe; later listings keep what the user dragged.
            self._columns_fitted = True
            for column in (
                NotebookColumn.PAGES,
                NotebookColumn.CREATED,
                NotebookColumn.STATE,
                NotebookColumn.ID,
            ):
                self._fit_column(column)
        elif notebooks:
            # A state read later can be wider (Incomplete, with its icon): widened, never
            # narrowed, so it is never cut to "Incompl…" and what the user dragged stays.
            self._fit_column(NotebookColumn.STATE, widen_only=True)
        metrics = self.notebook_table.fontMetrics()
        self._title_widths = sorted(
            ((metrics.horizontalAdvance(nb.title), nb.title) for nb in notebooks), reverse=True
        )
        self._fit_rows()
        page = self.notebook_table if notebooks else self.empty_label
        self.notebook_stack.setCurrentWidget(page)
        self._show_count()
        self._sources.run(source_folders, self.corpus, tuple(nb.notebook_id for nb in notebooks))
        self._update_actions()
        self._show_unfinished()  # the selection's rows are new values: their state may differ
        self.audit_panel.refresh()  # an import or an undo changes what there is to check
        self._follow_listing(notebooks)

    def _follow_listing(self, notebooks: Sequence[NotebookSummary]) -> None:
        """The notebook open in the library read again when a new listing counts other pages
        in it (an import or an undo changed it); back to the list when it is gone. A run's
        pages stay as they were read: the Runs view shows them again on request."""
        shown = self.library.notebook()
        if self.page_stack.currentWidget() is not self.library or shown is None:
            return
        if self.library.run_id is not None:
            return
        listed = next((nb for nb in notebooks if nb.notebook_id == shown.notebook_id), None)
        if listed is None:
            self.show_list()
        elif listed.page_count != shown.page_count:
            self.library.open_notebook(shown.notebook_id)

    def show_report(self, report: DoctorReport) -> None:
        findings = sorted(report.findings, key=lambda f: _SEVERITY_ORDER.get(f.severity, 9))
        problems = sum(f.severity == Severity.PROBLEM for f in findings)
        repaired = sum(f.severity == Severity.REPAIRED for f in findings)
        checked = self._checked_words(report)
        when = QLocale().toString(
            QDateTime.currentDateTime().time(), QLocale.FormatType.ShortFormat
        )
        incomplete = sum(f.code is FindingCode.NOTEBOOK_INCOMPLETE for f in findings)
        if report.clean and incomplete:
            # Nothing is damaged, but the corpus is not whole either: never "whole" then.
            outcome = plural(
                incomplete,
                self.tr("Nothing is damaged, but 1 notebook holds only part of its import"),
                self.tr(
                    "Nothing is damaged, but %n notebooks hold only part of their import",
                    "",
                    incomplete,
                ),
            )
        elif report.clean:
            outcome = self.tr("Nothing to report: the corpus is whole")
        else:
            parts = []
            if problems:
                parts.append(
                    self.tr("1 needs attention")
                    if problems == 1
                    else self.tr("%n need attention", "", problems)
                )
            if repaired:
                parts.append(self.tr("%n repaired", "", repaired))
            outcome = ", ".join(parts)
        self.health_summary.setText(
            self.tr("{outcome} ({checked}, at {when}).").format(
                outcome=outcome, checked=checked, when=when
            )
        )
        if problems:
            self._set_health_icon(SP.SP_MessageBoxWarning)
        else:  # a tick only when whole: an incomplete notebook is a note, not a success
            icon = SP.SP_MessageBoxInformation if incomplete else SP.SP_DialogApplyButton
            self._set_health_icon(icon)
        self.findings_view.set_items([self._finding_item(f) for f in findings])

    def _checked_words(self, report: DoctorReport) -> str:
        """How many notebooks the check read, or where it stopped before them and what lets
        it go on (the finding below says more)."""
        if report.stopped is DoctorStop.LINK:
            return self.tr(
                "no notebook checked: a link in the corpus stops the check; put the real "
                "folder back, then Check Again"
            )
        if report.stopped is DoctorStop.UNDO_RUNNING:
            return self.tr(
                "no notebook checked: an undo in another process is moving notebooks; "
                "Check Again once it has ended"
            )
        n = report.notebooks_checked
        checked = (
            self.tr("1 notebook checked") if n == 1 else self.tr("%n notebooks checked", "", n)
        )
        if report.stopped is DoctorStop.DISK:
            return self.tr("{checked}, then a disk error stopped the check").format(checked=checked)
        return checked

    def show_failure(self, message: str) -> None:
        self.health_summary.setText(
            self.tr("The check could not finish: {message}").format(message=message)
        )
        self._set_health_icon(SP.SP_MessageBoxCritical)
        self.findings_view.set_items([])

    def _finding_item(self, finding: Finding) -> QTableWidgetItem:
        label = finding_severity_words(finding.severity)
        words = finding_words(finding)  # the window's actions, not the CLI's commands
        item = QTableWidgetItem(finding_icon(finding.severity), words)
        # Screen readers hear the severity the icon shows.
        item.setData(Qt.ItemDataRole.AccessibleTextRole, f"{label}: {words}")
        item.setToolTip(f"{label} ({finding.code})" + (f"\n{finding.path}" if finding.path else ""))
        return item

    def _set_health_icon(self, pixmap: QStyle.StandardPixmap) -> None:
        set_small_icon(self.health_icon, standard_icon(pixmap))


class FindingsView(QTableWidget):
    """Doctor's findings, one wrapped row each, as tall as its first few rows and no taller.

    A table rather than a list because its rows take the height of their wrapped text;
    the height it asks for lets one finding take one line's room, not half the window.
    """

    VISIBLE_ROWS = 4
    VISIBLE_LINES = 8

    def __init__(self) -> None:
        super().__init__(0, 1)
        self.horizontalHeader().hide()
        self.verticalHeader().hide()
        self.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.setShowGrid(False)
        self.setWordWrap(True)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)

    def set_items(self, items: list[QTableWidgetItem]) -> None:
        """Show ``items``, one a row; hide the view when there are none."""
        self.setRowCount(0)
        self.setRowCount(len(items))
        for row, item in enumerate(items):
            self.setItem(row, 0, item)
        self.setVisible(bool(items))
        self.updateGeometry()

    def sizeHint(self) -> QSize:
        rows = range(min(self.rowCount(), self.VISIBLE_ROWS))
        # Findings wrap to several lines each: at most VISIBLE_LINES, so the notebooks'
        # table keeps the room on a small screen; the rest scrolls.
        lines = self.fontMetrics().lineSpacing() * self.VISIBLE_LINES
        height = min(sum(self.rowHeight(r) for r in rows), lines) + 2 * self.frameWidth()
        return QSize(super().sizeHint().width(), height)

    def minimumSizeHint(self) -> QSize:
        return QSize(super().minimumSizeHint().width(), min(self.sizeHint().height(), 60))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        # Rows wrap to the width, so a new width means new row heights and a new height.
        self.updateGeometry()
