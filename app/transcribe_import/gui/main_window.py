"""The main window: the shell holding the import steps, the Runs and Corpus views, the menus.

The import itself (scan → review → commit) is the ImportFlow's (import_flow.py), which the
window holds: the window shows its pages, keeps the corpus's health and listing current
(doctor and the listing run on QThreads), and, closing during a commit, asks how to stop
it (gui/stopping.py), tells the worker, and waits for it showing "Stopping…" before it
closes (after the undo's preview, when the import is to be undone).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QByteArray, QRect, QSettings, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDesktopServices,
    QDragEnterEvent,
    QDragLeaveEvent,
    QDropEvent,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QDialog,
    QFrame,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QStyle,
    QWidget,
)

from transcribe_import.engine.api import Corpus, NotebookSummary
from transcribe_import.engine.base.findings import DoctorReport
from transcribe_import.gui.dialogs import FolderKind, SourcesAnswer, ask_sources, choose_folder
from transcribe_import.gui.export_dialog import ExportDialog
from transcribe_import.gui.help import about_html, guide_html, help_box, shortcuts_html
from transcribe_import.gui.import_flow import ImportFlow
from transcribe_import.gui.navigation import ImportSteps, views_list
from transcribe_import.gui.pages.commit import CommitPage
from transcribe_import.gui.pages.corpus import CorpusPage
from transcribe_import.gui.pages.review import ReviewPage
from transcribe_import.gui.pages.runs import RunsPage
from transcribe_import.gui.pages.scan import ScanPage
from transcribe_import.gui.pages.start import StartPage
from transcribe_import.gui.session import ImportSession
from transcribe_import.gui.settings_dialog import (
    ImportSettings,
    SettingsDialog,
    load_settings,
    save_settings,
)
from transcribe_import.gui.values import CorpusCheck, RunSummary
from transcribe_import.gui.watching import DropLogDialog, FolderWatch
from transcribe_import.gui.window_geometry import (
    available_geometry,
    fit_on_screen,
    restore_geometry,
    save_geometry,
)
from transcribe_import.gui.wording import StopChoice, plural, set_notebook_titles
from transcribe_import.gui.workers import TaskSlot, check_corpus, list_notebooks

DEFAULT_SIZE = (1100, 720)
NAV_SPLITTER_KEY = "MainWindow/navigationSplitter"
RUNS_SPLITTER_KEY = "MainWindow/runsSplitter"
REVIEW_SPLITTER_KEY = "MainWindow/reviewSplitter"
# The review's split above its Problems pane is not kept: a pane dragged small for one
# review squeezed every later one (issue 23); earlier versions' value is removed.
STALE_KEYS = ("MainWindow/reviewMainSplitter",)


class Section:
    IMPORT = 0
    RUNS = 1
    CORPUS = 2


class MainWindow(QMainWindow):
    """One corpus: import into it step by step, look back at its runs, see its notebooks."""

    # Emitted on the GUI thread once a health check has ended and the window shows its result.
    health_checked = Signal()

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
        self.flow = ImportFlow(self)
        # File › Watch a Folder…: hot folders polled while the window is open (watching.py).
        self.folder_watch = FolderWatch(
            corpus, self, notifier=self.flow.long_imports.backend.notifier
        )
        self.folder_watch.imported.connect(self._corpus_changed)
        self.folder_watch.review_waiting.connect(self.flow.list_drafts)
        self._build_menus()
        self._build_status_bar()
        self._restore_state()

        # The window's one-call work, each kind one at a time: doctor, listing.
        self._checks = TaskSlot(
            self,
            progress=self._show_notebooks,
            done=self._checked,
            failed=self.corpus_page.show_failure,
            ended=self._check_ended,
        )
        self._listings = TaskSlot(self, done=self._show_notebooks)

        self.show_import_page(self.start_page)
        self.check_health(list_first=True)
        self.flow.list_drafts()

    # -- building --------------------------------------------------------------------------

    def _build_pages(self) -> None:
        self.start_page = StartPage(self._settings)
        self.scan_page = ScanPage(self.corpus)
        self.review_page = ReviewPage(self.session, settings=self._settings)
        self.commit_page = CommitPage(self.corpus)
        self.runs_page = RunsPage(self.corpus)
        self.corpus_page = CorpusPage(self.corpus, settings=self._settings)

        self.start_page.show_run_requested.connect(self.show_run)
        self.start_page.show_health_requested.connect(self._show_health)
        self.start_page.notebook_requested.connect(self.show_notebook)
        self.scan_page.running_changed.connect(self._busy_changed)
        self.commit_page.running_changed.connect(self._commit_running_changed)
        self.commit_page.run_finished.connect(self._run_finished)
        self.commit_page.show_run_requested.connect(self.show_run)
        self.commit_page.open_corpus_requested.connect(self.open_corpus_folder)
        self.commit_page.progressed.connect(self._commit_progressed)
        self.runs_page.cancel_own_requested.connect(self.commit_page.ask_cancel)
        self.commit_page.undo_requested.connect(self._undo_stopped_run)
        self.runs_page.own_run = self.commit_page.current_run_id
        self.runs_page.listed.connect(self._runs_listed)
        self.runs_page.corpus_changed.connect(self._corpus_changed)
        self.corpus_page.check_requested.connect(self._check_again_clicked)
        self.corpus_page.export_requested.connect(self.export_notebooks)
        self.runs_page.added_requested.connect(self.show_added)
        self.corpus_page.library.back_to_run_requested.connect(self.show_run)

        self.import_area = ImportSteps(
            (self.start_page, self.scan_page, self.review_page, self.commit_page)
        )

        self.sections = QStackedWidget()
        for w in (self.import_area, self.runs_page, self.corpus_page):
            self.sections.addWidget(w)

        self.nav = views_list(self.style())
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
        self.new_import_action.triggered.connect(self.flow.new_import)
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
        self.watch_action = QAction(self.tr("&Watch a Folder…"), self)
        self.watch_action.setStatusTip(
            self.tr("Import what is dropped in a folder (a share) as it arrives")
        )
        self.watch_action.triggered.connect(self._watch_folder)
        self.stop_watching_action = QAction(self.tr("Stop Watc&hing"), self)
        self.stop_watching_action.setEnabled(False)
        self.stop_watching_action.triggered.connect(self.folder_watch.stop)
        self.folder_watch.changed.connect(
            lambda: self.stop_watching_action.setEnabled(bool(self.folder_watch.folders()))
        )
        self.watch_log_action = QAction(self.tr("Watch &Log…"), self)
        self.watch_log_action.setStatusTip(
            self.tr("Everything dropped in a watched folder, and what became of it")
        )
        self.watch_log_action.triggered.connect(self.show_watch_log)
        file_menu.addAction(self.watch_action)
        file_menu.addAction(self.stop_watching_action)
        file_menu.addAction(self.watch_log_action)
        # The same plan documents as the command line's `plan -o`, `validate` and `commit`.
        self.open_plan_action = QAction(self.tr("Open &Plan…"), self)
        self.open_plan_action.setShortcut(QKeySequence(self.tr("Ctrl+Shift+L")))
        self.open_plan_action.setStatusTip(self.tr("Review a plan file made here or by the CLI"))
        self.open_plan_action.triggered.connect(self.flow.open_plan_dialog)
        self.save_plan_action = QAction(self.tr("Sa&ve Plan As…"), self)
        self.save_plan_action.setShortcut(QKeySequence(self.tr("Ctrl+S")))
        self.save_plan_action.setStatusTip(
            self.tr("Write the plan under review to a file the CLI can validate and commit")
        )
        self.save_plan_action.triggered.connect(self.flow.save_plan_dialog)
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
        self.statusBar().addPermanentWidget(self.folder_watch.label)
        self.statusBar().addPermanentWidget(self.notebook_count_label)

    def _restore_state(self) -> None:
        restored = restore_geometry(self, self._settings, DEFAULT_SIZE)
        fit_on_screen(self, available_geometry(self), centre=not restored)
        for key, splitter in self._splitters().items():
            state = self._settings.value(key)
            if isinstance(state, QByteArray | bytes) and state:
                splitter.restoreState(state)

    def settings(self) -> QSettings:
        """The window's own settings: sizes, splitters, the file dialogs' last folders."""
        return self._settings

    def fit_on_screen(self, available: QRect, *, centre: bool = False) -> None:
        """Keep the whole window inside ``available`` (window_geometry.fit_on_screen)."""
        fit_on_screen(self, available, centre=centre)

    def _splitters(self) -> dict[str, QSplitter]:
        return {
            NAV_SPLITTER_KEY: self.splitter,
            RUNS_SPLITTER_KEY: self.runs_page.splitter,
            REVIEW_SPLITTER_KEY: self.review_page.splitter,
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
        self.import_area.show_step(page)
        self.show_section(Section.IMPORT)

    def current_page(self) -> QWidget:
        """The page the user sees now."""
        section = self.sections.currentWidget()
        page = self.import_area.current_step() if section is self.import_area else section
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

    def _watch_folder(self) -> None:
        folder = choose_folder(
            self, self._settings, FolderKind.SCANS, self.tr("Choose a Folder to Watch")
        )
        if folder is not None:
            self.folder_watch.watch(folder)

    def show_watch_log(self) -> DropLogDialog:
        dialog = DropLogDialog(self.corpus, self)
        dialog.open()
        return dialog

    def _add_files(self) -> None:
        if self._accepts_drops():
            self.show_import_page(self.start_page)
            self.start_page.choose_files()

    # -- scan ------------------------------------------------------------------------------

    def open_forwarded(self, paths: Sequence[Path]) -> None:
        """A second start of the app handed its paths here: come forward and take them.

        With nothing under way they are scanned at once, as on the command line; during a
        scan, a commit or a review they are only added, so nothing in progress is replaced.
        Other folders already on the list to scan stay on it only if the person says so.
        """
        self.setWindowState(self.windowState() & ~Qt.WindowState.WindowMinimized)
        self.show()
        self.raise_()
        self.activateWindow()
        if not paths:
            return
        busy = self.scan_page.is_running() or self.commit_page.is_running()
        if not busy and not self._closing and not self._take_forwarded(paths):
            return
        if busy or self.session.plan is not None or self._closing:
            if self._accepts_drops():
                self.add_paths(paths)
            else:
                self.statusBar().showMessage(
                    self.tr("An import is running; add those folders when it has ended."), 8000
                )
            return
        self.flow.prescan(paths)

    def _take_forwarded(self, paths: Sequence[Path]) -> bool:
        """Other folders on the list to scan: ask whether the handed ones replace them or
        join them (docs/cli.md, gui); whether the handed ones are taken at all."""
        handed = [p.expanduser().absolute() for p in paths]
        listed = [p for p in self.start_page.paths() if p not in handed]
        if not listed:
            return True
        answer = ask_sources(self, listed, handed)
        if answer is SourcesAnswer.REPLACE:
            self.start_page.clear_sources()
        return answer is not SourcesAnswer.CANCEL

    def tell_other_window(self) -> None:
        """Another window has this corpus open (another user, or one that did not answer)."""
        self.other_window_notice = self.tr(
            "Another Transcribe Import window has this corpus open. Both can work safely: "
            "each import locks what it writes. But each window shows the other's imports "
            "only after Refresh or Check Again."
        )
        self.statusBar().showMessage(self.other_window_notice)
        self.help_box = help_box(self, self.tr("Corpus Open Elsewhere"), self.other_window_notice)

    def _busy_changed(self, _busy: bool) -> None:
        busy = self.scan_page.is_running() or self.commit_page.is_running()
        for action in (self.new_import_action, self.add_folder_action, self.add_files_action):
            action.setEnabled(not busy)

    # -- validation ------------------------------------------------------------------------

    # -- drafts ----------------------------------------------------------------------------

    # -- commit ----------------------------------------------------------------------------

    def _commit_progressed(self) -> None:
        """The status bar's count moves as new notebooks land, not only when the run ends."""
        self._show_notebook_count(self._count_before_commit + self.commit_page.notebooks_created())

    def _commit_running_changed(self, running: bool) -> None:
        if running:
            self._count_before_commit = self._listed_count
        self.runs_page.set_commit_running(running)
        self.corpus_page.set_commit_running(running)
        self.corpus_page.set_check_allowed(
            not running and not self._checks.is_busy(),
            self.tr("The corpus is checked again once the import has ended") if running else "",
        )
        self._busy_changed(running)
        if not running and self._close_when_stopped and not self.commit_page.undo_follows():
            # The worker has ended and its thread is gone: nothing is half-written now.
            QTimer.singleShot(0, self.close)

    def _close_after_ended(self, how: StopChoice) -> None:
        """The import ended while the close question was open: there is nothing left to
        stop, so the window closes; with Stop and Undo, once the undo's preview of the run
        that ended is done (undone or kept), as when the stop ended it."""
        run = self.commit_page.ended_run()
        undoable = run is not None and run.status.revertible and run.pages_landed > 0
        if how is StopChoice.UNDO and run is not None and undoable:
            self._undo_stopped_run(run)
        else:
            QTimer.singleShot(0, self.close)

    def _undo_stopped_run(self, run: RunSummary) -> None:
        """Stop and Undo This Import: the run has ended; its undo's preview opens over Runs,
        and a window closing closes once that dialog is done (undone or kept)."""
        self.show_run(run.run_id)
        dialog = self.runs_page.open_undo(run, self if self._close_when_stopped else None)
        if self._close_when_stopped:
            dialog.finished.connect(self.close)

    def _run_finished(self, _result: object) -> None:
        # Doctor again, then the listing: the Corpus view's health and count include the import.
        self.check_health()
        if not self._checks.is_busy():
            self.list_notebooks()
        self.runs_page.refresh(select=self.commit_page.run_id)

    def _corpus_changed(self) -> None:
        """An undo took notebooks or pages out: the health and the listing follow."""
        self.check_health()
        if not self._checks.is_busy():
            self.list_notebooks()

    def show_run(self, run_id: str) -> None:
        self.show_section(Section.RUNS)
        self.runs_page.select_run(run_id)

    def show_notebook(self, notebook_id: str) -> None:
        self.show_section(Section.CORPUS)
        self.corpus_page.open_notebook(notebook_id)

    def show_added(self, run_id: str) -> None:
        self.show_section(Section.CORPUS)
        self.corpus_page.open_run(run_id)

    def _runs_listed(self) -> None:
        model = self.runs_page.model
        interrupted = [model.run(r) for r in range(model.rowCount()) if model.run(r).interrupted]
        self.start_page.set_interrupted_runs(interrupted)

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
        self.corpus_page.findings_view.setFocus()

    def export_notebooks(self) -> None:
        """File › Export Notebooks… (and Export… in the Corpus view): a dialog that can cancel,
        on the Corpus view's selection or open notebook, where any notebook can be chosen."""
        if self._closing or (self.export_dialog is not None and self.export_dialog.is_running()):
            return
        chosen, listed = self.corpus_page.export_choice(), self.corpus_page.notebook_model.rows()
        if self.export_dialog is not None:
            self.export_dialog.deleteLater()
        self.export_dialog = ExportDialog(self.corpus, chosen, self, choices=listed)
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
            self.corpus_page.audit_panel.refresh()  # its reminder follows the new setting
            rejudged = self.flow.rejudge_duplicates()  # the review open, by the new setting
            self.statusBar().showMessage(
                self.tr("Settings saved. The data directory applies on the next start.")
                if restart
                else self.tr("Settings saved; the notebooks under review were judged again.")
                if rejudged
                else self.tr("Settings saved; they apply to the next scan or commit."),
                8000,
            )
        dialog.deleteLater()

    def show_guide(self) -> None:
        """Help › Guide: the four steps and what the app promises, in a few lines."""
        self.help_box = help_box(self, self.tr("Guide"), guide_html())

    def show_shortcuts(self) -> None:
        """Help › Keyboard Shortcuts: every key, read from the actions that have one."""
        text = shortcuts_html(self.menuBar(), self.review_page.actions())
        self.help_box = help_box(self, self.tr("Keyboard Shortcuts"), text)

    def show_about(self) -> None:
        QMessageBox.about(self, self.tr("About Transcribe Import"), about_html(self.corpus.root))

    # -- closing ---------------------------------------------------------------------------

    def is_stopping(self) -> bool:
        return self._close_when_stopped

    def is_closing(self) -> bool:
        return self._closing

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.commit_page.is_running():
            event.ignore()
            if self._close_when_stopped:
                return  # already stopping; the window closes when the worker has ended
            # The run is held while asked, and stopped as the answer says.
            how = self.commit_page.ask_stop(closing=True)
            if how is StopChoice.CONTINUE:
                return
            self._close_when_stopped = True
            if not self.commit_page.is_running():
                self._close_after_ended(how)
                return
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
        if not self._closing and not self.flow.review_may_close():
            event.ignore()  # Cancel, or Save Plan As… cancelled or failed: nothing is closed
            return
        self._closing = True
        save_geometry(self, self._settings)
        for key, splitter in self._splitters().items():
            self._settings.setValue(key, splitter.saveState())
        for key in STALE_KEYS:
            self._settings.remove(key)
        # The other workers are short or stop within milliseconds when asked; a QThread
        # destroyed while running aborts the process, so each is waited for.
        self.scan_page.stop_and_wait()
        self.runs_page.stop_and_wait()
        self.corpus_page.stop_and_wait()
        self.flow.close()
        self.folder_watch.close()
        self._listings.close()
        if self.export_dialog is not None:
            self.export_dialog.stop_and_wait()  # a cancelled export says so in its folder
        if self._checks.is_busy():
            # doctor has no cancel point; its checks read metadata only, so waiting is short.
            self.corpus_page.health_summary.setText(self.tr("Finishing the check before closing…"))
        self._checks.close()
        self.review_page.shutdown()
        super().closeEvent(event)
