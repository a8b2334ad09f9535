"""The start step: what to import and how it maps to notebooks, and what doctor found waiting.

Folders and files come from a drop anywhere on the window (the window hands them
here), from Add Folder… and Add Files…, or from the command line. The mapping is
the engine's adapter mode (``AdapterMode``): folders, single (with a title) or into a notebook.
Interrupted runs and quarantined journals are told here first, with a way to act.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from pathlib import Path

from PySide6.QtCore import QRectF, QSettings, QSize, Qt, Signal
from PySide6.QtGui import QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from transcribe_import.engine.api import Draft, NotebookSummary, RunState
from transcribe_import.engine.base.findings import DoctorReport, FindingCode
from transcribe_import.engine.base.text import natural_key
from transcribe_import.engine.planning.plan import AdapterMode, ModeName
from transcribe_import.gui.dialogs import FolderKind, choose_files, choose_folder
from transcribe_import.gui.icons import SP, standard_icon
from transcribe_import.gui.values import RunSummary
from transcribe_import.gui.widgets import icon_label, push_button, selectable_text
from transcribe_import.gui.wording import (
    ButtonWords,
    format_local,
    format_local_epoch,
    plural,
    start_buttons,
)

# What doctor reports that the start view tells of: work waiting for a person's decision.
_QUARANTINE_CODES = {
    FindingCode.JOURNAL_QUARANTINED,
    FindingCode.RUN_QUARANTINED,
}


class DropZone(QWidget):
    """The framed invitation to drop; the drop itself is handled by the whole window.

    Painted from the palette on every paint, so a switch between light and dark
    applies at once (a style sheet would keep the colours it was first given).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMinimumHeight(150)
        self._highlight = False

    def set_highlight(self, on: bool) -> None:
        if on != self._highlight:
            self._highlight = on
            self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        palette = self.palette()
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        border = QPalette.ColorRole.Highlight if self._highlight else QPalette.ColorRole.Mid
        fill = QPalette.ColorRole.AlternateBase if self._highlight else QPalette.ColorRole.Base
        painter.setPen(QPen(palette.color(border), 2, Qt.PenStyle.DashLine))
        painter.setBrush(palette.color(fill))
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(1, 1, -1, -1), 8, 8)


# Incomplete notebooks told one by one on the start page; the rest in one line.
INCOMPLETE_SHOWN = 3


class StartPage(QWidget):
    """Choose folders and files, choose the mapping, start the scan."""

    scan_requested = Signal()
    resume_requested = Signal(str)  # run id
    show_run_requested = Signal(str)  # run id
    show_health_requested = Signal()
    retry_requested = Signal(str)  # run id: Finish Import of an incomplete notebook
    notebook_requested = Signal(str)  # notebook id: show it in the Corpus view
    review_requested = Signal()  # back to the plan under review
    draft_requested = Signal(str)  # plan id: continue the review kept as a draft
    draft_discard_requested = Signal(str)  # plan id
    sources_changed = Signal()

    def __init__(self, settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # Where the file dialogs were last left (the window's settings).
        self._settings = settings if settings is not None else QSettings()
        style = self.style()

        # -- notices: interrupted runs and quarantined journals ----------------------------
        self.notices = QGroupBox(self.tr("Waiting for you"))
        self.notices.setAccessibleName(self.tr("Interrupted imports and corpus problems"))
        self._notice_layout = QVBoxLayout(self.notices)
        self.notices.hide()
        self._interrupted: list[RunSummary] = []
        self._drafts: list[Draft] = []
        self._quarantine_messages: list[str] = []
        self._incomplete: list[NotebookSummary] = []  # since an import that has ended

        # -- drop zone and the list of what will be scanned ---------------------------------
        self.drop_zone = DropZone()
        self.drop_zone.setAccessibleName(self.tr("Drop folders or page files here"))
        icon = QLabel()
        icon.setPixmap(style.standardIcon(SP.SP_DirIcon).pixmap(QSize(48, 48)))
        icon.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.drop_label = QLabel(
            self.tr(
                "<p style='font-size:large'><b>Drop folders of page scans here</b></p>"
                "<p>or page files: JPEG, PNG, TIFF, WebP, HEIC, PDF</p>"
            )
        )
        self.drop_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.drop_label.setWordWrap(True)
        w = start_buttons()
        self.add_folder_button = push_button(w.add_folder, SP.SP_DirOpenIcon, self.choose_folder)
        self.add_files_button = push_button(w.add_files, SP.SP_FileIcon, self.choose_files)
        add_row = QHBoxLayout()
        add_row.addStretch(1)
        add_row.addWidget(self.add_folder_button)
        add_row.addWidget(self.add_files_button)
        add_row.addStretch(1)
        zone_layout = QVBoxLayout(self.drop_zone)
        zone_layout.addStretch(1)
        zone_layout.addWidget(icon)
        zone_layout.addWidget(self.drop_label)
        zone_layout.addLayout(add_row)
        zone_layout.addStretch(1)

        self.sources_list = QListWidget()
        self.sources_list.setAccessibleName(self.tr("Folders and files to scan"))
        self.sources_list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.sources_list.setMaximumHeight(100)
        self.sources_list.itemSelectionChanged.connect(self._update_buttons)
        self.remove_button = push_button(w.remove, SP.SP_DialogDiscardButton, self.remove_selected)
        self.clear_button = push_button(w.clear, clicked=self.clear_sources)
        list_buttons = QVBoxLayout()
        list_buttons.addWidget(self.remove_button)
        list_buttons.addWidget(self.clear_button)
        list_buttons.addStretch(1)
        self.sources_box = QGroupBox(self.tr("To scan"))
        sources_layout = QHBoxLayout(self.sources_box)
        sources_layout.addWidget(self.sources_list, 1)
        sources_layout.addLayout(list_buttons)

        # -- how they map to notebooks -------------------------------------------------------
        self.mapping_box = QGroupBox(self.tr("Notebooks"))
        self.folders_radio = QRadioButton(self.tr("One notebook per fol&der"))
        self.folders_radio.setToolTip(
            self.tr(
                "Every folder that holds page files becomes a new notebook titled after it; "
                "a box of notebook folders works"
            )
        )
        self.single_radio = QRadioButton(self.tr("Everything into one &new notebook titled"))
        self.title_edit = QLineEdit()
        self.title_edit.setAccessibleName(self.tr("Title of the new notebook"))
        self.title_edit.textChanged.connect(self._update_buttons)
        self.into_radio = QRadioButton(self.tr("In&to an existing notebook"))
        self.notebook_combo = QComboBox()
        self.notebook_combo.setAccessibleName(self.tr("Existing notebook to import into"))
        self.notebook_combo.setMinimumContentsLength(24)
        self.notebook_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.mode_group = QButtonGroup(self)
        for i, radio in enumerate((self.folders_radio, self.single_radio, self.into_radio)):
            self.mode_group.addButton(radio, i)
            radio.setAccessibleName(radio.text().replace("&", ""))
        self.folders_radio.setChecked(True)
        self.mode_group.idToggled.connect(self._mode_toggled)
        # The choice made, the field it needs takes the typing (issue 13): a click or Alt+N.
        self.single_radio.clicked.connect(self._focus_title)
        self.into_radio.clicked.connect(self._focus_notebook)
        grid = QGridLayout(self.mapping_box)
        grid.addWidget(self.folders_radio, 0, 0, 1, 2)
        grid.addWidget(self.single_radio, 1, 0)
        grid.addWidget(self.title_edit, 1, 1)
        grid.addWidget(self.into_radio, 2, 0)
        grid.addWidget(self.notebook_combo, 2, 1)
        grid.setColumnStretch(1, 1)

        self.scan_button = push_button(w.scan, SP.SP_MediaPlay, self.scan_requested)
        self.scan_button.setDefault(True)
        self.hint_label = QLabel()
        self.hint_label.setAccessibleName(self.tr("What is needed before scanning"))
        self.error_icon = icon_label(standard_icon(SP.SP_MessageBoxCritical))
        self.error_label = selectable_text(QLabel())
        self.error_label.setAccessibleName(self.tr("Why the last scan stopped"))
        self.error_row = QWidget()
        error_layout = QHBoxLayout(self.error_row)
        error_layout.setContentsMargins(0, 0, 0, 0)
        error_layout.addWidget(self.error_icon, 0, Qt.AlignmentFlag.AlignTop)
        error_layout.addWidget(self.error_label, 1)
        self.error_row.hide()
        self.review_button = push_button(w.back_to_review, SP.SP_ArrowBack, self.review_requested)
        self.review_button.hide()
        scan_row = QHBoxLayout()
        scan_row.addWidget(self.hint_label, 1)
        scan_row.addWidget(self.review_button)
        scan_row.addWidget(self.scan_button)

        layout = QVBoxLayout(self)
        layout.addWidget(self.notices)
        layout.addWidget(self.drop_zone, 1)
        layout.addWidget(self.sources_box)
        layout.addWidget(self.mapping_box)
        layout.addWidget(self.error_row)
        layout.addLayout(scan_row)

        self._paths: list[Path] = []
        self._suggested_title = ""  # the title last put in title_edit for the first path
        self._notebooks: list[NotebookSummary] = []
        self.set_notebooks([])
        self._refresh_sources()

    # -- sources ---------------------------------------------------------------------------

    def paths(self) -> list[Path]:
        return list(self._paths)

    def add_paths(self, paths: Iterable[Path]) -> int:
        """Add folders and files (duplicates once); returns how many were new."""
        known = set(self._paths)
        added = 0
        for p in paths:
            p = Path(p).expanduser().absolute()
            if p not in known:
                known.add(p)
                self._paths.append(p)
                added += 1
        if added:
            self._refresh_sources()
        return added

    def remove_selected(self) -> None:
        rows = sorted({self.sources_list.row(i) for i in self.sources_list.selectedItems()})
        for r in reversed(rows):
            del self._paths[r]
        self._refresh_sources()

    def clear_sources(self) -> None:
        self._paths.clear()
        self._refresh_sources()

    def choose_folder(self) -> None:
        folder = choose_folder(
            self, self._settings, FolderKind.SCANS, self.tr("Add a Folder of Page Scans")
        )
        if folder is not None:
            self.add_paths([folder])

    def choose_files(self) -> None:
        files = choose_files(
            self,
            self._settings,
            FolderKind.SCANS,
            self.tr("Add Page Files"),
            self.tr(
                "Page files (*.jpg *.jpeg *.png *.tif *.tiff *.webp *.heic *.heif *.pdf);;"
                "All files (*)"
            ),
        )
        self.add_paths(files)

    def _refresh_sources(self) -> None:
        self.sources_list.clear()
        for p in self._paths:
            pixmap = SP.SP_DirIcon if p.is_dir() else SP.SP_FileIcon
            item = QListWidgetItem(standard_icon(pixmap), str(p))
            item.setToolTip(str(p))
            self.sources_list.addItem(item)
        self.sources_box.setVisible(bool(self._paths))
        # As the engine would title it (a file by its name without extension), following
        # the first path on the list until the person types a title of their own.
        first = self._paths[0] if self._paths else None
        suggested = "" if first is None else first.stem if first.is_file() else first.name
        if self.title_edit.text() in ("", self._suggested_title):
            self.title_edit.setText(suggested)
        self._suggested_title = suggested
        self.show_error(None)
        self.sources_changed.emit()
        self._update_buttons()

    def set_plan_waiting(self, waiting: bool) -> None:
        """Offer to go back to a plan under review (folders were dropped while reviewing)."""
        self.review_button.setVisible(waiting)

    def show_error(self, message: str | None) -> None:
        """Say why the last scan stopped (None: say nothing)."""
        self.error_label.setText(message or "")
        self.error_row.setVisible(bool(message))

    # -- mapping ---------------------------------------------------------------------------

    def set_notebooks(self, notebooks: Sequence[NotebookSummary]) -> None:
        """The corpus's notebooks, for "into an existing notebook"; keeps the current pick."""
        current = self.notebook_combo.currentData()
        self._notebooks = list(notebooks)
        # Incomplete since an import that has ended (a resumable one is told as a run).
        incomplete = [
            nb
            for nb in self._notebooks
            if nb.unfinished is not None and nb.unfinished.run_ended and not nb.unfinished.running
        ]
        if incomplete != self._incomplete:
            self._incomplete = incomplete
            self._rebuild_notices()
        self.notebook_combo.clear()
        for nb in sorted(self._notebooks, key=lambda n: natural_key(n.title)):
            if nb.page_count is None:
                text = self.tr("{title} (pages unknown)").format(title=nb.title)
            else:
                text = plural(
                    nb.page_count,
                    self.tr("{title} (1 page)"),
                    self.tr("{title} (%Ln pages)", "", nb.page_count),
                ).format(title=nb.title)
            self.notebook_combo.addItem(text, nb.notebook_id)
        if current is not None:
            i = self.notebook_combo.findData(current)
            if i >= 0:
                self.notebook_combo.setCurrentIndex(i)
        self.into_radio.setEnabled(bool(self._notebooks))
        self.into_radio.setToolTip(
            "" if self._notebooks else self.tr("The corpus has no notebooks yet")
        )
        if not self._notebooks and self.into_radio.isChecked():
            self.folders_radio.setChecked(True)
        self._mode_toggled()

    def mode(self) -> AdapterMode:
        """The engine's adapter mode for the choice made."""
        if self.single_radio.isChecked():
            return AdapterMode(ModeName.SINGLE)
        if self.into_radio.isChecked():
            return AdapterMode.into(self.notebook_combo.currentData())
        return AdapterMode(ModeName.FOLDERS)

    def title(self) -> str | None:
        return self.title_edit.text().strip() or None if self.single_radio.isChecked() else None

    def set_mode(self, mode: AdapterMode) -> None:
        if mode.name is ModeName.SINGLE:
            self.single_radio.setChecked(True)
        elif mode.name is ModeName.INTO:
            i = self.notebook_combo.findData(mode.target)
            if i >= 0:
                self.notebook_combo.setCurrentIndex(i)
                self.into_radio.setChecked(True)
        else:
            self.folders_radio.setChecked(True)

    def _mode_toggled(self, *_: object) -> None:
        self.title_edit.setEnabled(self.single_radio.isChecked())
        self.notebook_combo.setEnabled(self.into_radio.isChecked())
        self._update_buttons()

    def _focus_title(self) -> None:
        if self.single_radio.isChecked():
            self.title_edit.setFocus(Qt.FocusReason.OtherFocusReason)
            self.title_edit.selectAll()

    def _focus_notebook(self) -> None:
        if self.into_radio.isChecked():
            self.notebook_combo.setFocus(Qt.FocusReason.OtherFocusReason)

    def ready_problem(self) -> str | None:
        """Why the scan cannot start yet, or None."""
        if not self._paths:
            return self.tr("Add folders or files to scan.")
        if self.single_radio.isChecked() and not self.title_edit.text().strip():
            return self.tr("Give the new notebook a title.")
        if self.into_radio.isChecked() and self.notebook_combo.currentData() is None:
            return self.tr("Pick the notebook to import into.")
        return None

    def _update_buttons(self) -> None:
        problem = self.ready_problem()
        self.scan_button.setEnabled(problem is None)
        self.hint_label.setText(problem or "")
        self.remove_button.setEnabled(bool(self.sources_list.selectedItems()))

    # -- notices ---------------------------------------------------------------------------

    def set_interrupted_runs(self, runs: Sequence[RunSummary]) -> None:
        self._interrupted = list(runs)
        self._rebuild_notices()

    def set_doctor_report(self, report: DoctorReport) -> None:
        self._quarantine_messages = [
            f.message for f in report.findings if f.code in _QUARANTINE_CODES
        ]
        self._rebuild_notices()

    def set_drafts(self, drafts: Sequence[Draft]) -> None:
        """The reviews kept as drafts (the one on screen left out by the caller)."""
        self._drafts = list(drafts)
        self._rebuild_notices()

    def drafts(self) -> list[Draft]:
        return list(self._drafts)

    def interrupted_runs(self) -> list[RunSummary]:
        return list(self._interrupted)

    def notice_texts(self) -> list[str]:
        return [
            w.text()
            for w in self.notices.findChildren(QLabel)
            if w.objectName() == "noticeText" and not _in_stale_notice(w)
        ]

    def notice_buttons(self, text: str) -> list[QPushButton]:
        """The notices' buttons named ``text`` (tests, and reaching them from elsewhere)."""
        return [
            b
            for b in self.notices.findChildren(QPushButton)
            if b.text() == text and not _in_stale_notice(b)
        ]

    def _rebuild_notices(self) -> None:
        w = start_buttons()
        while self._notice_layout.count():
            item = self._notice_layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                # Later, not now: this may run inside the click of one of its own buttons.
                widget.hide()
                widget.setProperty("stale", True)
                widget.deleteLater()
        for run in self._interrupted:
            done = run.committed + run.skipped + run.failed
            total = done + run.not_done
            where = ", ".join(f"“{Path(r).name or r}”" for r in run.roots[:2])
            text = (
                self.tr(
                    "<b>An import is paused</b> ({when}{where}): {done} of {total} done, "
                    "{pages}. Resume it to finish with the same ids."
                )
                if run.state is RunState.PAUSED
                else self.tr(
                    "<b>An import was interrupted</b> ({when}{where}): {done} of {total} "
                    "done, {pages}. Resume it to finish with the same ids."
                )
            ).format(
                when=html.escape(format_local(run.created_at)),
                where=self.tr(", from {roots}").format(roots=html.escape(where)) if where else "",
                done=done,
                # "0 of 1 notebook done", "2 of 5 notebooks done": the noun agrees with the total.
                total=plural(total, self.tr("1 notebook"), self.tr("%Ln notebooks", "", total)),
                pages=plural(
                    run.pages_landed,
                    self.tr("1 page landed"),
                    self.tr("%Ln pages landed", "", run.pages_landed),
                ),
            )
            resume = self._relay(w.resume_run, SP.SP_MediaPlay, "resume_requested", run.run_id)
            show = self._relay(w.show_run, None, "show_run_requested", run.run_id)
            self._add_notice(SP.SP_MessageBoxWarning, text, [resume, show])
        for draft in self._drafts:
            when = html.escape(format_local_epoch(draft.saved_at))
            notebooks = plural(
                draft.notebooks,
                self.tr("1 notebook"),
                self.tr("%Ln notebooks", "", draft.notebooks),
            )
            pages = plural(draft.pages, self.tr("1 page"), self.tr("%Ln pages", "", draft.pages))
            if draft.problem is None and draft.drop is not None:
                text = self.tr(
                    "<b>A dropped folder needs a decision</b>: “{name}” in {folder}: {why} "
                    "Review its plan ({notebooks}, {pages}), or discard it (the drop stays "
                    "where it is)."
                ).format(
                    name=html.escape(draft.drop.name),
                    folder=html.escape(draft.drop.folder),
                    why=html.escape(draft.drop.message or ""),
                    notebooks=notebooks,
                    pages=pages,
                )
            elif draft.problem is None:
                text = self.tr(
                    "<b>A review was not finished</b> (kept {when}): {notebooks}, {pages}. "
                    "Continue it where you left it, or discard it."
                ).format(
                    when=when,
                    notebooks=notebooks,
                    pages=pages,
                )
            else:
                text = self.tr("<b>A kept review cannot be opened</b> (kept {when}): {why}").format(
                    when=when, why=html.escape(draft.problem)
                )
            buttons = []
            if draft.problem is None:
                buttons.append(
                    self._relay(
                        w.continue_review, SP.SP_ArrowForward, "draft_requested", draft.plan_id
                    )
                )
            buttons.append(
                self._relay(
                    w.discard_review, SP.SP_TrashIcon, "draft_discard_requested", draft.plan_id
                )
            )
            self._add_notice(SP.SP_FileDialogDetailedView, text, buttons)
        for nb in self._incomplete[:INCOMPLETE_SHOWN]:
            self._add_incomplete_notice(nb)
        if len(self._incomplete) > INCOMPLETE_SHOWN:
            more = len(self._incomplete) - INCOMPLETE_SHOWN
            text = plural(
                more,
                self.tr("<b>1 more notebook is incomplete.</b> The Corpus view lists it."),
                self.tr(
                    "<b>%Ln more notebooks are incomplete.</b> The Corpus view lists them.",
                    "",
                    more,
                ),
            )
            self._add_notice(SP.SP_MessageBoxInformation, text, [])
        if self._quarantine_messages:
            n = len(self._quarantine_messages)
            text = (
                plural(
                    n,
                    self.tr("<b>Doctor moved an unreadable file to quarantine.</b>"),
                    self.tr("<b>Doctor moved %Ln unreadable files to quarantine.</b>", "", n),
                )
                + " "
                + html.escape(self._quarantine_messages[0])
            )
            show = push_button(w.show_health, clicked=self.show_health_requested)
            self._add_notice(SP.SP_MessageBoxInformation, text, [show])
        self.notices.setVisible(
            bool(self._interrupted or self._quarantine_messages or self._drafts or self._incomplete)
        )

    def _add_incomplete_notice(self, nb: NotebookSummary) -> None:
        """A notebook whose import ended before all its pages landed: Finish Import (a
        retry: only what did not land), or look at it first."""
        u = nb.unfinished
        assert u is not None
        w = start_buttons()
        landed = plural(u.pages_landed, self.tr("1 page"), self.tr("%Ln pages", "", u.pages_landed))
        if u.pages_expected is not None:
            landed = plural(
                u.pages_expected,
                self.tr("{landed} of its 1 page"),
                self.tr("{landed} of its %Ln pages", "", u.pages_expected),
            ).format(landed=u.pages_landed)
        text = self.tr(
            "<b>A notebook is incomplete</b>: “{title}”, {landed} landed before its import "
            "stopped. Finish Import imports only what did not land."
        ).format(title=html.escape(nb.title), landed=landed)
        finish = self._relay(w.finish_import, SP.SP_MediaPlay, "retry_requested", u.run_id)
        show = self._relay(w.show_notebook, None, "notebook_requested", nb.notebook_id)
        self._add_notice(SP.SP_MessageBoxWarning, text, [finish, show])

    def _relay(self, words: ButtonWords, icon: SP | None, signal: str, value: str) -> QPushButton:
        """A notice's button that emits this page's ``signal`` (its attribute's name) with
        ``value`` (a run, plan or notebook id) when clicked."""
        button = push_button(words, icon, self._relay_clicked)
        button.setProperty("relay", signal)
        button.setProperty("value", value)
        return button

    # One bound method reading the button's properties: a lambda over self made PySide
    # crash when the window was garbage-collected.
    def _relay_clicked(self) -> None:
        button = self.sender()
        getattr(self, str(button.property("relay"))).emit(str(button.property("value")))

    def _add_notice(self, pixmap: SP, text: str, buttons: list[QPushButton]) -> None:
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        icon = icon_label(standard_icon(pixmap))
        label = selectable_text(QLabel(text))
        label.setObjectName("noticeText")
        layout.addWidget(icon, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(label, 1)
        for b in buttons:
            layout.addWidget(b, 0, Qt.AlignmentFlag.AlignTop)
        self._notice_layout.addWidget(row)


def _in_stale_notice(widget: QWidget) -> bool:
    """Whether ``widget`` belongs to a notice taken away (hidden, deleted on a later turn)."""
    notice = widget.parentWidget()
    return notice is not None and bool(notice.property("stale"))
