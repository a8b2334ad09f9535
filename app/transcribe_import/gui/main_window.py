"""The main window: the import steps (start, scan, review, commit), the Runs and Corpus views.

The window decides nothing about an import: it moves frozen engine values between
the pages and the workers that call the engine (scan and plan, validate, commit,
resume, doctor), and keeps the session's plan as the only plan state. Long work runs
on QThreads; closing during a commit asks whether to pause or cancel, tells the
worker, and waits for it with the window showing "Stopping…" before it closes.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QByteArray,
    QCoreApplication,
    QRect,
    QSettings,
    Qt,
    QTimer,
    QUrl,
    Signal,
)
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDesktopServices,
    QDragEnterEvent,
    QDragLeaveEvent,
    QDropEvent,
    QGuiApplication,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMenu,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from transcribe_import import __version__
from transcribe_import.engine import api
from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.base.findings import DoctorReport
from transcribe_import.engine.planning.plan import ImportPlan
from transcribe_import.engine.planning.validate import ValidationReport
from transcribe_import.engine.storage.corpus import Corpus, NotebookSummary
from transcribe_import.gui.dialogs import Answer, Role, ask
from transcribe_import.gui.export_dialog import ExportDialog
from transcribe_import.gui.pages.commit import CommitPage
from transcribe_import.gui.pages.corpus import CorpusPage
from transcribe_import.gui.pages.review import ReviewPage
from transcribe_import.gui.pages.runs import RunsPage
from transcribe_import.gui.pages.scan import ScanPage
from transcribe_import.gui.pages.start import MODE_FOLDERS, StartPage
from transcribe_import.gui.session import ImportSession
from transcribe_import.gui.settings_dialog import (
    ImportSettings,
    SettingsDialog,
    load_settings,
    save_settings,
)
from transcribe_import.gui.values import CorpusCheck, OpenedPlan, ScanOutcome, Validation
from transcribe_import.gui.wording import (
    error_text,
    plural,
    set_notebook_titles,
    stop_on_close_answers,
    stop_on_close_words,
    unsaved_review_answers,
    unsaved_review_words,
)
from transcribe_import.gui.workers import (
    TaskSlot,
    check_corpus,
    keep_draft,
    list_drafts,
    list_notebooks,
    read_for_review,
    validate_plan,
)

DEFAULT_SIZE = (1100, 720)
# Room kept for the title bar and borders before the window manager says how large they are.
FRAME_ALLOWANCE = (8, 36)
GEOMETRY_KEY = "MainWindow/geometry"
NAV_SPLITTER_KEY = "MainWindow/navigationSplitter"
RUNS_SPLITTER_KEY = "MainWindow/runsSplitter"
REVIEW_SPLITTER_KEY = "MainWindow/reviewSplitter"
REVIEW_MAIN_SPLITTER_KEY = "MainWindow/reviewMainSplitter"

# Edits come in bursts (a drag, a few Ctrl+Up); validate once the burst is over.
VALIDATE_DEBOUNCE_MS = 300
DRAFT_DEBOUNCE_MS = 700  # a burst of edits is one write of the draft


def guide_html() -> str:
    """The short guide Help › Guide shows (words in one place: here, through tr)."""
    tr = QCoreApplication.translate
    return tr(
        "Guide",
        "<h3>Importing scanned notebooks</h3>"
        "<ol>"
        "<li><b>Choose</b>: drop folders of page photos, PDFs or TIFFs on the window, or use "
        "Add Folder. Say how they become notebooks: one per folder, all into one new "
        "notebook, or into one the corpus has.</li>"
        "<li><b>Scan</b>: the files are read and a plan is proposed. Nothing is imported "
        "yet.</li>"
        "<li><b>Review</b>: check each notebook's page order. Where the order is in doubt "
        "(a page number twice, a camera counter that rolled over) the window asks you to "
        "decide. Leave out pages you do not want, rename, choose the cover. Commit is "
        "possible once validation finds no error.</li>"
        "<li><b>Commit</b>: each notebook lands whole or not at all. Pause stops at a safe "
        "point and can be resumed, even after a crash; after a partial run, Retry What Did "
        "Not Land imports the rest, never doubling a page.</li>"
        "</ol>"
        "<p><b>Runs</b> lists every import and its outcomes; <b>Corpus</b> lists the "
        "notebooks and checks the corpus's health. Nothing is ever written next to your "
        "source files.</p>",
    )


def available_geometry(window: QWidget) -> QRect:
    """The free area of the screen the window opens on (the tests give a 1024x768 one)."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else QRect()


class Section:
    IMPORT = 0
    RUNS = 1
    CORPUS = 2


def ask_stop_on_close(parent: QWidget) -> str | None:
    """Closing during a commit: "pause", "cancel", or None to keep importing."""
    pause, cancel, keep = stop_on_close_answers()
    answer = ask(
        parent,
        *stop_on_close_words(),
        (
            Answer("pause", pause, Role.AcceptRole),
            Answer("cancel", cancel, Role.DestructiveRole),
            Answer("keep", keep, Role.RejectRole),
        ),
        default="pause",
        escape="keep",
    )
    return None if answer == "keep" else answer


def ask_unsaved_review(parent: QWidget, draft_problem: str | None) -> str:
    """Quitting with review decisions in no plan file: "save", "quit" or "cancel".

    ``draft_problem``: why the draft could not be written just now (None: it was, and the
    decisions are offered back on the next start, which the question says).
    """
    kept = draft_problem is None
    save, quit_, cancel = unsaved_review_answers(kept)
    return ask(
        parent,
        *unsaved_review_words(draft_problem),
        (
            Answer("save", save, Role.ActionRole),
            Answer("quit", quit_, Role.AcceptRole if kept else Role.DestructiveRole),
            Answer("cancel", cancel, Role.RejectRole),
        ),
        # Either keeps every decision while the draft is written; else Enter saves.
        default="quit" if kept else "save",
        escape="cancel",
        icon=QMessageBox.Icon.Question if kept else QMessageBox.Icon.Warning,
    )


def confirm_discard_plan(parent: QWidget) -> bool:
    """A plan with edits is about to be replaced: ask first."""
    answer = QMessageBox.question(
        parent,
        parent.tr("Discard the Plan?"),
        parent.tr(
            "The plan under review has changes that were not imported. Discard them and start "
            "again?"
        ),
        QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
        QMessageBox.StandardButton.Cancel,
    )
    return answer == QMessageBox.StandardButton.Discard


class MainWindow(QMainWindow):
    """One corpus: import into it step by step, look back at its runs, see its notebooks."""

    # Emitted on the GUI thread once a health check has ended and the window shows its result.
    health_checked = Signal()
    # Emitted when a validation result was handed to the session (current or stale).
    validation_done = Signal()
    # Emitted once a plan file or a kept draft that was opened is under review.
    plan_opened = Signal()

    def __init__(self, corpus: Corpus, settings: QSettings | None = None) -> None:
        super().__init__()
        self.corpus = corpus
        self._settings = settings if settings is not None else QSettings()
        self.import_settings: ImportSettings = load_settings(self._settings)
        # No parent: a child of the window would be destroyed before the review page, and its
        # undo stack's last signals would reach the page's half-destroyed undo actions.
        self.session = ImportSession(corpus)
        self._close_when_stopped = False
        self._closing = False
        self._listed_count = 0
        self._count_before_commit = 0
        self.export_dialog: ExportDialog | None = None
        self.help_box: QMessageBox | None = None
        self.other_window_notice = ""

        self.setWindowTitle(self.tr("Transcribe Import"))
        self.setAcceptDrops(True)
        self._build_pages()
        self._build_menus()
        self._build_status_bar()
        self._restore_state()

        # The window's one-call work, each kind one at a time: doctor, listing, validation.
        self._checks = TaskSlot(
            self,
            progress=self._show_notebooks,
            done=self._checked,
            failed=self.corpus_page.show_failure,
            ended=self._check_ended,
        )
        self._listings = TaskSlot(self, done=self._show_notebooks)
        self._validations = TaskSlot(
            self,
            done=self._validated,
            failed=self._validate_failed,
            ended=self.validation_done.emit,
        )
        self._validate_timer = QTimer(self, singleShot=True, interval=VALIDATE_DEBOUNCE_MS)
        self._validate_timer.timeout.connect(self.validate_plan)
        self.session.item_changed.connect(self._plan_edited)
        # The plan under review is kept as a draft as it changes (corpus/drafts/), so a
        # quit, a crash or a power cut loses no decision; offered back on the next start.
        self._drafts = TaskSlot(self, done=self._draft_kept, failed=self._draft_failed)
        self._draft_lists = TaskSlot(self, done=self._drafts_listed, failed=self._draft_failed)
        # Plans are read for review off the GUI thread (100,000 sources: about a second).
        self._plan_opens = TaskSlot(self, done=self._plan_opened, failed=self._open_failed)
        self._drafted: ImportPlan | None = None  # the plan the draft holds, as last written
        self._draft_timer = QTimer(self, singleShot=True, interval=DRAFT_DEBOUNCE_MS)
        self._draft_timer.timeout.connect(self._keep_draft)
        self.session.item_changed.connect(self._draft_timer.start)
        self.session.plan_changed.connect(self._plan_replaced)
        self.start_page.draft_requested.connect(self.continue_draft)
        self.start_page.draft_discard_requested.connect(self.discard_draft)

        self.show_import_page(self.start_page)
        self.check_health(list_first=True)
        self.list_drafts()

    # -- building --------------------------------------------------------------------------

    def _build_pages(self) -> None:
        self.start_page = StartPage()
        self.scan_page = ScanPage(self.corpus)
        self.review_page = ReviewPage(self.session)
        self.commit_page = CommitPage(self.corpus)
        self.runs_page = RunsPage(self.corpus)
        self.corpus_page = CorpusPage(self.corpus)

        self.start_page.scan_requested.connect(self.start_scan)
        self.start_page.resume_requested.connect(self.resume_run)
        self.start_page.show_run_requested.connect(self.show_run)
        self.start_page.show_health_requested.connect(self._show_health)
        self.start_page.review_requested.connect(self._back_to_review)
        self.scan_page.planned.connect(self._scan_planned)
        self.scan_page.cancelled.connect(self._scan_cancelled)
        self.scan_page.failed.connect(self._scan_failed)
        self.scan_page.running_changed.connect(self._busy_changed)
        self.review_page.validate_requested.connect(self.validate_plan)
        self.review_page.commit_requested.connect(self.commit_plan)
        self.commit_page.running_changed.connect(self._commit_running_changed)
        self.commit_page.run_finished.connect(self._run_finished)
        self.commit_page.plan_invalid.connect(self._plan_invalid)
        self.commit_page.show_run_requested.connect(self.show_run)
        self.commit_page.new_import_requested.connect(self.new_import)
        self.commit_page.open_corpus_requested.connect(self.open_corpus_folder)
        self.commit_page.resume_requested.connect(self.resume_run)
        self.commit_page.retry_requested.connect(self.retry_run)
        self.commit_page.progressed.connect(self._commit_progressed)
        self.runs_page.resume_requested.connect(self.resume_run)
        self.runs_page.retry_requested.connect(self.retry_run)
        self.runs_page.cancel_own_requested.connect(self.commit_page.ask_cancel)
        self.runs_page.own_run = self.commit_page.current_run_id
        self.runs_page.listed.connect(self._runs_listed)
        self.runs_page.corpus_changed.connect(self._corpus_changed)
        self.corpus_page.check_requested.connect(self._check_again_clicked)

        # The corpus view's parts under the names the window has always had (its tests and
        # the screenshot script reach them through the window).
        page = self.corpus_page
        self.notebook_model = page.notebook_model
        self.notebook_table = page.notebook_table
        self.notebook_stack = page.notebook_stack
        self.loading_label = page.loading_label
        self.empty_label = page.empty_label
        self.health_summary = page.health_summary
        self.health_icon = page.health_icon
        self.findings_view = page.findings_view
        self.check_again_button = page.check_again_button

        # The import steps, one at a time, under a line saying which step this is.
        self.import_stack = QStackedWidget()
        for p in (self.start_page, self.scan_page, self.review_page, self.commit_page):
            self.import_stack.addWidget(p)
        self._step_labels = [
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
        for i, label in enumerate(self._step_labels):
            if i:
                arrow = QLabel("›")
                arrow.setEnabled(False)
                steps.addWidget(arrow)
            steps.addWidget(label)
        steps.addStretch(1)
        self.import_area = QWidget()
        import_layout = QVBoxLayout(self.import_area)
        import_layout.setContentsMargins(0, 0, 0, 0)
        import_layout.addLayout(steps)
        import_layout.addWidget(self.import_stack, 1)

        self.sections = QStackedWidget()
        for w in (self.import_area, self.runs_page, self.corpus_page):
            self.sections.addWidget(w)

        style = self.style()
        self.nav = QListWidget()
        self.nav.setAccessibleName(self.tr("Views"))
        for pixmap, text, tip in (
            (
                QStyle.StandardPixmap.SP_FileDialogNewFolder,
                self.tr("Import"),
                self.tr("Scan, review and commit folders of scans (Ctrl+1)"),
            ),
            (
                QStyle.StandardPixmap.SP_FileDialogContentsView,
                self.tr("Runs"),
                self.tr("Past imports, their outcomes, and Resume (Ctrl+2)"),
            ),
            (
                QStyle.StandardPixmap.SP_DriveHDIcon,
                self.tr("Corpus"),
                self.tr("The corpus's notebooks and its health (Ctrl+3)"),
            ),
        ):
            item = QListWidgetItem(style.standardIcon(pixmap), text)
            item.setToolTip(tip)
            self.nav.addItem(item)
        self.nav.setMinimumWidth(90)
        self.nav.currentRowChanged.connect(self._nav_changed)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("navigationSplitter")
        # A window narrower than a page's minimum (the review page's command row is wide)
        # scrolls instead of refusing to shrink: small screens still fit the window.
        self.sections_scroll = QScrollArea()
        self.sections_scroll.setWidget(self.sections)
        self.sections_scroll.setWidgetResizable(True)
        self.sections_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.splitter.addWidget(self.nav)
        self.splitter.addWidget(self.sections_scroll)
        self.splitter.setStretchFactor(1, 1)
        # As wide as its words and no wider: on a 1024-pixel screen the review page's table
        # needs every pixel (issue 13).
        nav_width = max(
            self.nav.minimumWidth(), self.nav.sizeHintForColumn(0) + 2 * self.nav.frameWidth() + 8
        )
        self.splitter.setSizes([nav_width, DEFAULT_SIZE[0] - nav_width])
        self.splitter.setChildrenCollapsible(False)
        self.setCentralWidget(self.splitter)

    def _build_menus(self) -> None:
        style = self.style()
        file_menu = self.menuBar().addMenu(self.tr("&File"))
        self.new_import_action = QAction(
            style.standardIcon(QStyle.StandardPixmap.SP_FileDialogNewFolder),
            self.tr("&New Import"),
            self,
        )
        self.new_import_action.setShortcut(QKeySequence(self.tr("Ctrl+N")))
        self.new_import_action.setStatusTip(self.tr("Start again with other folders"))
        self.new_import_action.triggered.connect(self.new_import)
        self.add_folder_action = QAction(
            style.standardIcon(QStyle.StandardPixmap.SP_DirOpenIcon), self.tr("Add &Folder…"), self
        )
        self.add_folder_action.setShortcut(QKeySequence(self.tr("Ctrl+O")))
        self.add_folder_action.triggered.connect(self._add_folder)
        self.add_files_action = QAction(
            style.standardIcon(QStyle.StandardPixmap.SP_FileIcon), self.tr("Add F&iles…"), self
        )
        self.add_files_action.setShortcut(QKeySequence(self.tr("Ctrl+Shift+O")))
        self.add_files_action.triggered.connect(self._add_files)
        self.open_folder_action = QAction(
            style.standardIcon(QStyle.StandardPixmap.SP_DirIcon),
            self.tr("&Open Corpus Folder"),
            self,
        )
        self.open_folder_action.setStatusTip(self.tr("Show the corpus folder in the file manager"))
        self.open_folder_action.triggered.connect(self.open_corpus_folder)
        self.settings_action = QAction(self.tr("&Settings…"), self)
        self.settings_action.setShortcut(QKeySequence(self.tr("Ctrl+,")))
        self.settings_action.setMenuRole(QAction.MenuRole.PreferencesRole)
        self.settings_action.triggered.connect(self.show_settings)
        self.quit_action = QAction(self.tr("&Quit"), self)
        self.quit_action.setShortcut(QKeySequence(self.tr("Ctrl+Q")))
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        self.quit_action.triggered.connect(self.close)
        for a in (self.new_import_action, self.add_folder_action, self.add_files_action):
            file_menu.addAction(a)
        # The same plan documents as the command line's `plan -o`, `validate` and `commit`.
        self.open_plan_action = QAction(self.tr("Open &Plan…"), self)
        self.open_plan_action.setShortcut(QKeySequence(self.tr("Ctrl+Shift+L")))
        self.open_plan_action.setStatusTip(self.tr("Review a plan file made here or by the CLI"))
        self.open_plan_action.triggered.connect(self._open_plan_dialog)
        self.save_plan_action = QAction(self.tr("Sa&ve Plan As…"), self)
        self.save_plan_action.setShortcut(QKeySequence(self.tr("Ctrl+S")))
        self.save_plan_action.setStatusTip(
            self.tr("Write the plan under review to a file the CLI can validate and commit")
        )
        self.save_plan_action.triggered.connect(self._save_plan_dialog)
        self.save_plan_action.setEnabled(False)
        self.session.plan_changed.connect(
            lambda: self.save_plan_action.setEnabled(self.session.plan is not None)
        )
        file_menu.addSeparator()
        file_menu.addAction(self.open_plan_action)
        file_menu.addAction(self.save_plan_action)
        self.export_action = QAction(self.tr("&Export Notebooks…"), self)
        self.export_action.setStatusTip(
            self.tr("Copy the notebooks selected in the Corpus view out as a BagIt bag")
        )
        self.export_action.triggered.connect(self.export_notebooks)
        file_menu.addSeparator()
        file_menu.addAction(self.export_action)
        file_menu.addAction(self.open_folder_action)
        file_menu.addAction(self.settings_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)

        # The review page's own undo and redo: their keys work while it has the focus.
        edit_menu = self.menuBar().addMenu(self.tr("&Edit"))
        edit_menu.addAction(self.review_page.undo_action)
        edit_menu.addAction(self.review_page.redo_action)

        view_menu = self.menuBar().addMenu(self.tr("&View"))
        self.section_actions: list[QAction] = []
        for section, text in (
            (Section.IMPORT, self.tr("&Import")),
            (Section.RUNS, self.tr("&Runs")),
            (Section.CORPUS, self.tr("&Corpus")),
        ):
            action = QAction(text, self)
            action.setShortcut(QKeySequence(f"Ctrl+{section + 1}"))
            action.setData(section)
            action.triggered.connect(self._section_action)
            view_menu.addAction(action)
            self.section_actions.append(action)

        help_menu = self.menuBar().addMenu(self.tr("&Help"))
        self.guide_action = QAction(self.tr("&Guide"), self)
        self.guide_action.setShortcut(QKeySequence(QKeySequence.StandardKey.HelpContents))
        self.guide_action.triggered.connect(self.show_guide)
        help_menu.addAction(self.guide_action)
        self.shortcuts_action = QAction(self.tr("&Keyboard Shortcuts"), self)
        self.shortcuts_action.triggered.connect(self.show_shortcuts)
        help_menu.addAction(self.shortcuts_action)
        help_menu.addSeparator()
        self.about_action = QAction(self.tr("&About Transcribe Import"), self)
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        self.about_action.triggered.connect(self.show_about)
        help_menu.addAction(self.about_action)

    def _build_status_bar(self) -> None:
        self.corpus_path_label = QLabel(self.tr("Corpus: {root}").format(root=self.corpus.root))
        self.corpus_path_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.corpus_path_label.setAccessibleName(self.tr("Corpus folder"))
        self.notebook_count_label = QLabel()
        self.notebook_count_label.setAccessibleName(self.tr("Notebooks in the corpus"))
        self.statusBar().addWidget(self.corpus_path_label, 1)
        self.statusBar().addPermanentWidget(self.notebook_count_label)

    def _restore_state(self) -> None:
        geometry = self._settings.value(GEOMETRY_KEY, QByteArray())
        restored = isinstance(geometry, QByteArray) and self.restoreGeometry(geometry)
        if not restored:
            self.resize(*DEFAULT_SIZE)
        self.fit_on_screen(available_geometry(self), centre=not restored)
        for key, splitter in self._splitters().items():
            state = self._settings.value(key)
            if isinstance(state, QByteArray | bytes) and state:
                splitter.restoreState(state)

    def fit_on_screen(self, available: QRect, *, centre: bool = False) -> None:
        """Keep the whole window inside ``available`` (the screen less its panels).

        The default size, or one remembered from a larger monitor, is cut to the screen and
        moved onto it, so no control starts off screen (a 1024x768 laptop, a projector).
        """
        if available.isEmpty():
            return
        frame = self.frameGeometry()
        # What the title bar and borders add: unknown until the window manager has framed
        # the window, so a usual title bar's worth is kept free until then.
        extra_w = frame.width() - self.width()
        extra_h = frame.height() - self.height()
        if extra_w <= 0 and extra_h <= 0:
            extra_w, extra_h = FRAME_ALLOWANCE
        width = min(self.width(), available.width() - extra_w)
        height = min(self.height(), available.height() - extra_h)
        if (width, height) != (self.width(), self.height()):
            self.resize(width, height)
        frame = self.frameGeometry()
        if centre:
            frame.moveCenter(available.center())
        left = min(max(frame.left(), available.left()), available.right() - frame.width() + 1)
        top = min(max(frame.top(), available.top()), available.bottom() - frame.height() + 1)
        self.move(left, top)

    def _splitters(self) -> dict[str, QSplitter]:
        return {
            NAV_SPLITTER_KEY: self.splitter,
            RUNS_SPLITTER_KEY: self.runs_page.splitter,
            REVIEW_SPLITTER_KEY: self.review_page.splitter,
            REVIEW_MAIN_SPLITTER_KEY: self.review_page.main_splitter,
        }

    # -- navigation ------------------------------------------------------------------------

    def show_section(self, section: int) -> None:
        self.nav.setCurrentRow(section)

    def _section_action(self) -> None:
        action = self.sender()
        if isinstance(action, QAction):
            self.show_section(int(action.data()))

    def _nav_changed(self, row: int) -> None:
        if row < 0:
            return
        self.sections.setCurrentIndex(row)
        if row == Section.RUNS:
            self.runs_page.refresh()

    def show_import_page(self, page: QWidget) -> None:
        self.import_stack.setCurrentWidget(page)
        current = self.import_stack.indexOf(page)
        for i, label in enumerate(self._step_labels):
            font = label.font()
            font.setBold(i == current)
            label.setFont(font)
            # Steps not reached yet read dimmed, from the palette, in light and dark alike.
            label.setEnabled(i <= current)
        self.show_section(Section.IMPORT)

    def current_page(self) -> QWidget:
        """The page the user sees now."""
        section = self.sections.currentWidget()
        page = self.import_stack.currentWidget() if section is self.import_area else section
        assert page is not None, "the stacks are filled when the window is built"
        return page

    # -- drag and drop ---------------------------------------------------------------------

    @staticmethod
    def _dropped_paths(event: QDragEnterEvent | QDropEvent) -> list[Path]:
        mime = event.mimeData()
        if not mime.hasUrls():
            return []
        return [Path(u.toLocalFile()) for u in mime.urls() if u.isLocalFile() and u.toLocalFile()]

    def _accepts_drops(self) -> bool:
        return not (self.scan_page.is_running() or self.commit_page.is_running())

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._dropped_paths(event) and self._accepts_drops():
            event.acceptProposedAction()
            self.start_page.drop_zone.set_highlight(True)
        else:
            event.ignore()

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self.start_page.drop_zone.set_highlight(False)
        super().dragLeaveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        self.start_page.drop_zone.set_highlight(False)
        paths = self._dropped_paths(event)
        if not paths or not self._accepts_drops():
            event.ignore()
            return
        event.acceptProposedAction()
        self.add_paths(paths)

    def add_paths(self, paths: Sequence[Path]) -> None:
        """Folders and files to scan, from a drop, a dialog or the command line."""
        added = self.start_page.add_paths(paths)
        self.show_import_page(self.start_page)
        self.start_page.set_plan_waiting(self.session.plan is not None)
        self.statusBar().showMessage(
            plural(added, self.tr("1 item added."), self.tr("%Ln items added.", "", added)), 4000
        )

    def _add_folder(self) -> None:
        if self._accepts_drops():
            self.show_import_page(self.start_page)
            self.start_page.choose_folder()

    def _add_files(self) -> None:
        if self._accepts_drops():
            self.show_import_page(self.start_page)
            self.start_page.choose_files()

    # -- scan ------------------------------------------------------------------------------

    def start_scan(self) -> None:
        """Scan what the start page lists, with the mapping it shows."""
        if self.scan_page.is_running() or self.commit_page.is_running() or self._closing:
            return
        problem = self.start_page.ready_problem()
        if problem is not None:
            self.statusBar().showMessage(problem, 5000)
            return
        if self._plan_has_edits() and not confirm_discard_plan(self):
            return
        s = self.import_settings
        paths = tuple(self.start_page.paths())
        try:
            mode = api.mode_for(paths, self.start_page.mode())
        except ValueError as exc:
            self.statusBar().showMessage(str(exc), 8000)
            return
        self.scan_page.start(
            api.PlanRequest(
                paths,
                mode=mode,
                policy_id=s.policy_id,
                title=None if mode == "bag" else self.start_page.title(),
                dedupe_scope=s.dedupe_scope,
                settings=s.render,
                workers=s.workers,
            )
        )
        self.show_import_page(self.scan_page)

    def prescan(self, paths: Sequence[Path]) -> None:
        """Command-line PATHs: add them and scan with the default mapping once the loop runs.

        Deferred so the window is on screen first; a window closed before then scans nothing.
        """
        self.start_page.add_paths(paths)
        self.start_page.set_mode(MODE_FOLDERS)
        QTimer.singleShot(0, self._start_prescan)

    def open_forwarded(self, paths: Sequence[Path]) -> None:
        """A second start of the app handed its paths here: come forward and take them.

        With nothing under way they are scanned at once, as on the command line; during a
        scan, a commit or a review they are only added, so nothing in progress is replaced.
        """
        self.setWindowState(self.windowState() & ~Qt.WindowState.WindowMinimized)
        self.show()
        self.raise_()
        self.activateWindow()
        if not paths:
            return
        busy = self.scan_page.is_running() or self.commit_page.is_running()
        if busy or self.session.plan is not None or self._closing:
            if self._accepts_drops():
                self.add_paths(paths)
            else:
                self.statusBar().showMessage(
                    self.tr("An import is running; add those folders when it has ended."), 8000
                )
            return
        self.prescan(paths)

    def tell_other_window(self) -> None:
        """Another window has this corpus open (another user, or one that did not answer)."""
        self.other_window_notice = self.tr(
            "Another Transcribe Import window has this corpus open. Both can work safely: "
            "each import locks what it writes. But each window shows the other's imports "
            "only after Refresh or Check Again."
        )
        self.statusBar().showMessage(self.other_window_notice)
        self._help_box(self.tr("Corpus Open Elsewhere"), self.other_window_notice)

    def _start_prescan(self) -> None:
        if self.isVisible() and not self._closing:
            self.start_scan()

    def _scan_planned(self, outcome: ScanOutcome) -> None:
        self.session.set_plan(outcome.plan)
        self.start_page.set_plan_waiting(False)
        self.show_import_page(self.review_page)
        self.statusBar().showMessage(self.scan_page.last_outcome_text(outcome), 8000)
        self.review_page.setFocus()
        # Once the plan is on screen: a validation started at once would compete with the
        # first layout of a large plan for the GIL.
        self._validate_timer.start()

    def _back_to_review(self) -> None:
        if self.session.plan is not None:
            self.show_import_page(self.review_page)

    def _scan_cancelled(self) -> None:
        self.show_import_page(self.start_page)
        self.statusBar().showMessage(self.tr("Scan cancelled; nothing was planned."), 8000)

    def _scan_failed(self, message: str) -> None:
        self.show_import_page(self.start_page)
        self.start_page.show_error(self.tr("The scan stopped: {message}").format(message=message))

    def _busy_changed(self, _busy: bool) -> None:
        busy = self.scan_page.is_running() or self.commit_page.is_running()
        for action in (self.new_import_action, self.add_folder_action, self.add_files_action):
            action.setEnabled(not busy)

    # -- validation ------------------------------------------------------------------------

    # -- drafts ----------------------------------------------------------------------------

    def _plan_replaced(self) -> None:
        # A plan as scanned or opened holds no decision yet: its draft is written with the
        # first edit, or on closing (a draft of 100,000 sources is 0.2 s of JSON encoding,
        # which the first look at a large plan need not wait behind).
        self._draft_timer.stop()
        self.list_drafts()

    def _keep_draft(self) -> None:
        plan = self.session.plan
        if plan is None or self._closing or self.commit_page.is_running():
            return
        if self._drafts.is_busy():
            self._draft_timer.start()  # the one being written ends soon; then this one
            return
        self._drafts.run(keep_draft, self.corpus, plan)

    def _draft_kept(self, plan: ImportPlan) -> None:
        self._drafted = plan

    def _keep_draft_now(self) -> str | None:
        """Write the draft of the plan under review now, unless the last one written is it.

        None when the draft holds the plan as it is; else why it could not be written.
        """
        self._draft_timer.stop()
        self._drafts.wait()  # one writer at a time
        plan = self.session.plan
        if plan is None or plan is self._drafted:
            return None
        try:
            api.save_draft(self.corpus, plan)
        except (OSError, TranscribeError) as exc:
            return error_text(exc)
        self._drafted = plan
        return None

    def _draft_failed(self, message: str) -> None:
        self.statusBar().showMessage(
            self.tr("The review could not be kept as a draft: {why}").format(why=message), 15000
        )

    def list_drafts(self) -> None:
        """Offer the kept reviews on the start page (not the one on screen), read on a worker."""
        self._draft_lists.run(list_drafts, self.corpus)

    def _drafts_listed(self, drafts: list[api.Draft]) -> None:
        current = None if self.session.plan is None else self.session.plan.plan_id
        self.start_page.set_drafts([d for d in drafts if d.plan_id != current])

    def continue_draft(self, plan_id: str) -> None:
        self._open_for_review(plan_id)

    def _open_for_review(self, source: Path | str) -> bool:
        """Read a plan file (a Path) or a kept draft (its plan id) on a worker, then review it.

        False when the window cannot take another plan now, or the person kept the one
        under review.
        """
        if self.scan_page.is_running() or self.commit_page.is_running():
            return False
        if self._plan_has_edits() and not confirm_discard_plan(self):
            return False
        self.statusBar().showMessage(self.tr("Opening the plan…"))
        self._plan_opens.run(read_for_review, self.corpus, source)
        return True

    def _plan_opened(self, opened: OpenedPlan) -> None:
        if opened.plan is None:
            self.statusBar().showMessage(opened.problem, 15000)
            return
        if self.scan_page.is_running() or self.commit_page.is_running() or self._closing:
            self.statusBar().clearMessage()
            return  # a scan or a commit began while it was read: that one goes on
        self.statusBar().clearMessage()
        self.session.set_plan(opened.plan)
        if opened.from_draft:
            self._drafted = opened.plan  # the draft on disk is this plan
        self.start_page.set_plan_waiting(False)
        self.show_import_page(self.review_page)
        self._validate_timer.start()
        self.plan_opened.emit()

    def _open_failed(self, message: str) -> None:
        self.statusBar().showMessage(message, 15000)

    def _open_plan_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Open Plan"), "", self.tr("Plan files (*.json);;All files (*)")
        )
        if path:
            self.open_plan(Path(path))

    def open_plan(self, path: Path) -> bool:
        """Review the plan in ``path`` (a file ``plan -o`` or Save Plan wrote), once read.

        Whether it is being read (``plan_opened`` once it is under review; a file that is
        not a plan is told in the status bar and leaves the review as it was).
        """
        return self._open_for_review(path)

    def _save_plan_dialog(self) -> bool:
        """Save Plan As…: ask where, then write; whether the plan was saved."""
        if self.session.plan is None:
            return False
        path, _ = QFileDialog.getSaveFileName(
            self, self.tr("Save Plan"), "plan.json", self.tr("Plan files (*.json)")
        )
        return bool(path) and self.save_plan(Path(path))

    def save_plan(self, path: Path) -> bool:
        """Write the plan under review to ``path`` (what `validate PATH` reads)."""
        plan = self.session.plan
        if plan is None:
            return False
        try:
            api.save_plan_file(plan, path)
        except (OSError, TranscribeError) as exc:
            self.statusBar().showMessage(
                self.tr("The plan was not saved: {why}").format(why=exc), 15000
            )
            return False
        if self.session.plan is plan:
            self.session.undo_stack.setClean()  # every decision so far is in a plan file
        self.statusBar().showMessage(self.tr("Plan saved to {path}").format(path=path), 8000)
        return True

    def discard_draft(self, plan_id: str) -> None:
        try:
            api.discard_draft(self.corpus, plan_id)
        except OSError as exc:
            self._draft_failed(str(exc))
        self.list_drafts()

    def _plan_edited(self, _item_id: str) -> None:
        self._validate_timer.start()  # restarted by every edit: one validation per burst

    def validate_plan(self) -> None:
        """Validate the plan as it is now on a worker; a result for an older plan is dropped."""
        self._validate_timer.stop()
        plan = self.session.plan
        if plan is None or self._closing:
            return
        s = self.import_settings
        # While one runs, this one waits its turn.
        self._validations.run(validate_plan, self.corpus, plan, s.render, s.workers)
        self.statusBar().showMessage(self.tr("Validating the plan…"))

    def is_validating(self) -> bool:
        return self._validations.is_busy() or self._validate_timer.isActive()

    def _validated(self, validation: Validation) -> None:
        report = validation.report
        if self.session.plan is not validation.plan:
            # Edited while it ran: the report is about the past. Told by identity, since the
            # fingerprint of a 100,000-source plan takes the GUI thread most of a second.
            self.validate_plan()
            return
        self.session.set_report(report)
        if self.session.report is report:
            errors, warnings = len(report.errors), len(report.warnings)
            if errors:
                text = plural(
                    errors,
                    self.tr("Validated: 1 error to resolve before commit."),
                    self.tr("Validated: %Ln errors to resolve before commit.", "", errors),
                )
            elif warnings:
                text = plural(
                    warnings,
                    self.tr("Validated: ready to commit, with 1 warning."),
                    self.tr("Validated: ready to commit, with %Ln warnings.", "", warnings),
                )
            else:
                text = self.tr("Validated: ready to commit.")
            self.statusBar().showMessage(text, 8000)
        else:
            self.validate_plan()  # edited while it ran: this report is about the past

    def _validate_failed(self, message: str) -> None:
        self.statusBar().showMessage(
            self.tr("Validation could not finish: {message}").format(message=message)
        )

    # -- commit ----------------------------------------------------------------------------

    def commit_plan(self) -> None:
        """Commit the reviewed plan; only when its latest validation found no error."""
        plan = self.session.plan
        if plan is not None and self.review_page.can_commit():
            self._start_run(partial(self._commit_reviewed, plan))

    def _commit_reviewed(self, plan: ImportPlan, **how: Any) -> None:
        self.review_page.thumbnails.cancel()  # the import needs the cores more than the thumbnails
        self.commit_page.commit_plan(plan, **how)

    def resume_run(self, run_id: str) -> None:
        """Resume an interrupted run in the commit view."""
        self._start_run(
            partial(self.commit_page.resume, run_id),
            self.tr("Another import is running; resume this one when it has ended."),
        )

    def retry_run(self, run_id: str) -> None:
        """Retry What Did Not Land: commit an ended run's plan again (never doubling a page)."""
        self._start_run(
            partial(self.commit_page.retry, run_id),
            self.tr("Another import is running; retry this one when it has ended."),
        )

    def _start_run(self, start: Callable[..., None], busy: str = "") -> None:
        """``start(settings=..., workers=...)`` a run in the commit view with the import
        settings; nothing while closing, nor while a scan or an import runs (``busy`` says
        so)."""
        if self._closing or self._close_when_stopped:
            return
        if self.commit_page.is_running() or self.scan_page.is_running():
            if busy:
                self.statusBar().showMessage(busy, 8000)
            return
        s = self.import_settings
        self.statusBar().clearMessage()
        start(settings=s.render, workers=s.workers)
        self.show_import_page(self.commit_page)

    def _commit_progressed(self) -> None:
        """The status bar's count moves as new notebooks land, not only when the run ends."""
        self._show_notebook_count(self._count_before_commit + self.commit_page.notebooks_created())

    def _commit_running_changed(self, running: bool) -> None:
        if running:
            self._count_before_commit = self._listed_count
            # The run holds the plan now (prepare_commit dropped its draft): keep no other.
            self._draft_timer.stop()
        self.runs_page.set_commit_running(running)
        self.corpus_page.set_check_allowed(
            not running and not self._checks.is_busy(),
            self.tr("The corpus is checked again once the import has ended") if running else "",
        )
        self._busy_changed(running)
        if not running and self._close_when_stopped:
            # The worker has ended and its thread is gone: nothing is half-written now.
            QTimer.singleShot(0, self.close)

    def _run_finished(self, _result: object) -> None:
        # Doctor again, then the listing: the Corpus view's health and count include the import.
        self.check_health()
        if not self._checks.is_busy():
            self.list_notebooks()
        self.runs_page.refresh(select=self.commit_page.run_id)
        if self.commit_page.run_id is not None:
            # The plan is frozen in its run now (resumed from Runs if paused); editing it
            # would only be refused.
            self.session.set_plan(None)

    def _corpus_changed(self) -> None:
        """An undo took notebooks or pages out: the health and the listing follow."""
        self.check_health()
        if not self._checks.is_busy():
            self.list_notebooks()

    def _plan_invalid(self, report: ValidationReport) -> None:
        self.session.set_report(report)
        self.show_import_page(self.review_page)
        self.statusBar().showMessage(
            self.tr("The plan no longer validates; nothing was committed. See the problems."),
            10000,
        )

    def show_run(self, run_id: str) -> None:
        self.show_section(Section.RUNS)
        self.runs_page.select_run(run_id)

    def _runs_listed(self) -> None:
        model = self.runs_page.model
        interrupted = [model.run(r) for r in range(model.rowCount()) if model.run(r).interrupted]
        self.start_page.set_interrupted_runs(interrupted)

    def new_import(self) -> None:
        if self.scan_page.is_running() or self.commit_page.is_running():
            return
        if self._plan_has_edits() and not confirm_discard_plan(self):
            return
        if self.session.plan is not None:
            self.discard_draft(self.session.plan.plan_id)  # the person chose to drop it
        self.session.set_plan(None)
        self.start_page.clear_sources()
        self.start_page.set_plan_waiting(False)
        self.show_import_page(self.start_page)

    def _plan_has_edits(self) -> bool:
        return self.session.plan is not None and self.session.undo_stack.count() > 0

    # -- the corpus ------------------------------------------------------------------------

    def check_health(self, *, list_first: bool = False) -> None:
        """Run doctor off the GUI thread; the notebooks are listed again when it is done."""
        if self._checks.is_busy() or self.commit_page.is_running() or self._closing:
            return
        self.corpus_page.set_checking(True)
        self._checks.run(check_corpus, self.corpus, list_first)

    def _check_again_clicked(self) -> None:
        self.check_health()

    def is_checking(self) -> bool:
        return self._checks.is_busy()

    def _checked(self, check: CorpusCheck) -> None:
        self._show_report(check.report)
        self._show_notebooks(check.notebooks)
        self.start_page.set_interrupted_runs(check.interrupted)

    def _check_ended(self) -> None:
        self.corpus_page.set_checking(False)
        self.health_checked.emit()

    def list_notebooks(self) -> None:
        if not self._closing:
            self._listings.run(list_notebooks, self.corpus)

    def _show_notebooks(self, notebooks: Sequence[NotebookSummary]) -> None:
        self.corpus_page.show_notebooks(notebooks)
        self.start_page.set_notebooks(notebooks)
        set_notebook_titles({nb.notebook_id: nb.title for nb in notebooks})
        self._listed_count = len(notebooks)
        n = self._listed_count
        if self.commit_page.is_running():
            n = max(n, self._count_before_commit + self.commit_page.notebooks_created())
        self._show_notebook_count(n)

    def _show_notebook_count(self, n: int) -> None:
        self.notebook_count_label.setText(
            self.tr("1 notebook") if n == 1 else self.tr("%n notebooks", "", n)
        )

    def _show_report(self, report: DoctorReport) -> None:
        self.corpus_page.show_report(report)
        self.start_page.set_doctor_report(report)

    def _show_health(self) -> None:
        self.show_section(Section.CORPUS)
        self.findings_view.setFocus()

    def export_notebooks(self) -> None:
        """File › Export Notebooks…: the Corpus view's selection, in a dialog that can cancel."""
        if self._closing or (self.export_dialog is not None and self.export_dialog.is_running()):
            return
        selected = self.corpus_page.selected_notebooks()
        if not selected:
            self.show_section(Section.CORPUS)
            self.statusBar().showMessage(
                self.tr("Select the notebooks to export here, then choose Export Notebooks…"),
                8000,
            )
            return
        if self.export_dialog is not None:
            self.export_dialog.deleteLater()
        self.export_dialog = ExportDialog(self.corpus, selected, self)
        self.export_dialog.open()

    # -- menus -----------------------------------------------------------------------------

    def open_corpus_folder(self) -> None:
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.corpus.root))):
            QMessageBox.warning(
                self,
                self.tr("Open Corpus Folder"),
                self.tr("No file manager could open {root}.").format(root=self.corpus.root),
            )

    def show_settings(self) -> None:
        dialog = SettingsDialog(self.import_settings, self.corpus.data_dir, self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            values = dialog.values()
            restart = values.data_dir != self.import_settings.data_dir
            self.import_settings = values
            save_settings(self._settings, values)
            self.statusBar().showMessage(
                self.tr("Settings saved. The data directory applies on the next start.")
                if restart
                else self.tr("Settings saved; they apply to the next scan or commit."),
                8000,
            )
        dialog.deleteLater()

    def show_guide(self) -> None:
        """Help › Guide: the four steps and what the app promises, in a few lines."""
        self._help_box(self.tr("Guide"), guide_html())

    def show_shortcuts(self) -> None:
        """Help › Keyboard Shortcuts: every key, read from the actions that have one."""
        rows = []
        for menu_action in self.menuBar().actions():
            menu = menu_action.menu()
            if not isinstance(menu, QMenu):  # QAction.menu() is typed QObject
                continue
            for action in menu.actions():
                keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
                if keys:
                    rows.append((action.text().replace("&", ""), keys))
        for action in self.review_page.actions():
            keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            if keys and all(text != action.text().replace("&", "") for text, _ in rows):
                rows.append((action.text().replace("&", ""), keys))
        rows.append((self.tr("A button or field with an underlined letter"), self.tr("Alt+letter")))
        table = "".join(
            f"<tr><td>{html.escape(text)}</td><td><b>{html.escape(keys)}</b></td></tr>"
            for text, keys in rows
        )
        self._help_box(
            self.tr("Keyboard Shortcuts"),
            self.tr("<p>The review page's keys work while it has the focus.</p>")
            + f"<table cellspacing='6'>{table}</table>",
        )

    def _help_box(self, title: str, text: str) -> None:
        box = QMessageBox(self)
        box.setWindowTitle(title)
        box.setIcon(QMessageBox.Icon.Information)
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setText(text)
        box.setStandardButtons(QMessageBox.StandardButton.Close)
        box.open()
        self.help_box = box

    def show_about(self) -> None:
        QMessageBox.about(
            self,
            self.tr("About Transcribe Import"),
            self.tr(
                "<p><b>Transcribe Import {version}</b></p>"
                "<p>Brings scanned notebooks into a local Transcribe corpus, safely.</p>"
                "<p>Corpus: {root}</p>"
            ).format(version=__version__, root=html.escape(str(self.corpus.root))),
        )

    # -- closing ---------------------------------------------------------------------------

    def is_stopping(self) -> bool:
        return self._close_when_stopped

    def _review_may_close(self) -> bool:
        """Whether closing may go on, as far as the review goes.

        The plan under review is written as a draft first, so a quit loses no decision.
        Decisions in no plan file (edits since the scan, the plan opened, or the last Save
        Plan As: the undo stack is off its clean point) are asked about, in words that say
        the draft keeps them, or that it could not.
        """
        if self.session.plan is None:
            return True
        problem = self._keep_draft_now()
        if self.session.undo_stack.isClean():
            return True
        answer = ask_unsaved_review(self, problem)
        if answer == "save":
            return self._save_plan_dialog()
        return answer == "quit"

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.commit_page.is_running():
            event.ignore()
            if self._close_when_stopped:
                return  # already stopping; the window closes when the worker has ended
            how = ask_stop_on_close(self)
            if how is None:
                return
            self._close_when_stopped = True
            if how == "cancel":
                self.commit_page.cancel()
            else:
                self.commit_page.pause()
            # Visible while the worker finishes the item it is on; nothing else can be started.
            self.setWindowTitle(self.tr("Stopping… — Transcribe Import"))
            self.statusBar().showMessage(
                self.tr("Stopping the import at a safe point before closing…")
            )
            self.sections.setEnabled(False)
            self.nav.setEnabled(False)
            self.menuBar().setEnabled(False)
            self.show_import_page(self.commit_page)
            return
        if not self._closing and not self._review_may_close():
            event.ignore()  # Cancel, or Save Plan As… cancelled or failed: nothing is closed
            return
        self._closing = True
        self._settings.setValue(GEOMETRY_KEY, self.saveGeometry())
        for key, splitter in self._splitters().items():
            self._settings.setValue(key, splitter.saveState())
        self._validate_timer.stop()
        # The other workers are short or stop within milliseconds when asked; a QThread
        # destroyed while running aborts the process, so each is waited for.
        self.scan_page.stop_and_wait()
        self.runs_page.stop_and_wait()
        self._validations.close()
        self._drafts.close()
        self._draft_lists.close()
        self._plan_opens.close()  # a plan being read is dropped with the window
        self._listings.close()
        if self.export_dialog is not None:
            self.export_dialog.stop_and_wait()  # a cancelled export says so in its folder
        if self._checks.is_busy():
            # doctor has no cancel point; its checks read metadata only, so waiting is short.
            self.health_summary.setText(self.tr("Finishing the check before closing…"))
        self._checks.close()
        self.review_page.shutdown()
        super().closeEvent(event)
