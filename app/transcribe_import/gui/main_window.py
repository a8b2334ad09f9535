"""The main window: the shell holding the import steps, the Runs and Corpus views, the menus.

The shell builds the pages, menus and status bar, wires them together, navigates and keeps
its sizes. The jobs are the parts it holds, each in its own module: the import (scan →
review → commit) is ``import_flow.ImportFlow`` (``window.flow``); the paths to scan come in
through ``path_intake.PathIntake`` (``window.intake``); the corpus's health and listing are
``corpus_health.CorpusHealth``'s (``window.health``); the menus' dialogs are
``window_dialogs.WindowDialogs``' (``window.dialogs``); closing, and stopping a commit on
the way, is ``window_closing.WindowClosing``'s (``window.closing``).
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect, QSettings, Qt
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDragLeaveEvent,
    QDropEvent,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QMainWindow,
    QScrollArea,
    QSplitter,
    QStyle,
    QWidget,
)

from transcribe_import.engine.api import Corpus
from transcribe_import.gui.corpus_health import CorpusHealth
from transcribe_import.gui.import_flow import ImportFlow
from transcribe_import.gui.navigation import ImportSteps, ShownPageStack, views_list
from transcribe_import.gui.pages.commit import CommitPage
from transcribe_import.gui.pages.corpus import CorpusPage
from transcribe_import.gui.pages.review import ReviewPage
from transcribe_import.gui.pages.runs import RunsPage
from transcribe_import.gui.pages.scan import ScanPage
from transcribe_import.gui.pages.start import StartPage
from transcribe_import.gui.path_intake import PathIntake
from transcribe_import.gui.session import ImportSession
from transcribe_import.gui.settings_dialog import ImportSettings, load_settings
from transcribe_import.gui.watching import FolderWatch
from transcribe_import.gui.window_closing import WindowClosing
from transcribe_import.gui.window_dialogs import WindowDialogs
from transcribe_import.gui.window_geometry import (
    available_geometry,
    fit_on_screen,
    restore_geometry,
    save_geometry,
)

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

    def __init__(self, corpus: Corpus, settings: QSettings | None = None) -> None:
        super().__init__()
        self.corpus = corpus
        self._settings = settings if settings is not None else QSettings()
        self.import_settings: ImportSettings = load_settings(self._settings)
        # No parent: a child of the window would be destroyed before the review page, and its
        # undo stack's last signals would reach the page's half-destroyed undo actions.
        self.session = ImportSession(corpus)
        self.session.hints = self.import_settings.hints  # the settings' choice, remembered
        self.closing = WindowClosing(self, self)

        self.setWindowTitle(self.tr("Transcribe Import"))
        self.setAcceptDrops(True)
        self._build_pages()
        self.flow = ImportFlow(self)
        self.intake = PathIntake(self, self)
        self.dialogs = WindowDialogs(self, self)
        # File › Watch a Folder…: hot folders polled while the window is open (watching.py).
        self.folder_watch = FolderWatch(
            corpus, self, notifier=self.flow.long_imports.backend.notifier
        )
        self.folder_watch.review_waiting.connect(self.flow.list_drafts)
        self._build_menus()
        self._build_status_bar()
        self._restore_state()
        self.health = CorpusHealth(self, self.notebook_count_label, self)
        self._connect_parts()

        self.show_import_page(self.start_page)
        self.health.check(list_first=True)
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
        self.runs_page.cancel_own_requested.connect(self.commit_page.ask_cancel)
        self.runs_page.own_run = self.commit_page.current_run_id
        self.runs_page.listed.connect(self._runs_listed)
        self.runs_page.added_requested.connect(self.show_added)
        self.corpus_page.library.back_to_run_requested.connect(self.show_run)

        self.import_area = ImportSteps(
            (self.start_page, self.scan_page, self.review_page, self.commit_page)
        )

        self.sections = ShownPageStack()
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

    def _connect_parts(self) -> None:
        """The pages' requests to the parts that are not pages: health, dialogs, closing."""
        self.commit_page.open_corpus_requested.connect(self.dialogs.open_corpus_folder)
        self.commit_page.progressed.connect(self.health.commit_progressed)
        self.commit_page.undo_requested.connect(self.closing.undo_stopped_run)
        self.runs_page.corpus_changed.connect(self.health.corpus_changed)
        self.corpus_page.check_requested.connect(self.health.check)
        self.corpus_page.export_requested.connect(self.dialogs.export_notebooks)
        self.folder_watch.imported.connect(self.health.corpus_changed)

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
        self.add_folder_action.triggered.connect(self.intake.add_folder)
        self.add_files_action = QAction(
            style.standardIcon(QStyle.StandardPixmap.SP_FileIcon), self.tr("Add F&iles…"), self
        )
        self.add_files_action.setShortcut(QKeySequence(self.tr("Ctrl+Shift+O")))
        self.add_files_action.triggered.connect(self.intake.add_files)
        self.open_folder_action = QAction(
            style.standardIcon(QStyle.StandardPixmap.SP_DirIcon),
            self.tr("&Open Corpus Folder"),
            self,
        )
        self.open_folder_action.setStatusTip(self.tr("Show the corpus folder in the file manager"))
        self.open_folder_action.triggered.connect(self.dialogs.open_corpus_folder)
        self.settings_action = QAction(self.tr("&Settings…"), self)
        self.settings_action.setShortcut(QKeySequence(self.tr("Ctrl+,")))
        self.settings_action.setMenuRole(QAction.MenuRole.PreferencesRole)
        self.settings_action.triggered.connect(self.dialogs.show_settings)
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
        self.watch_action.triggered.connect(self.dialogs.watch_folder)
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
        self.watch_log_action.triggered.connect(self.dialogs.show_watch_log)
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
        self.save_plan_action.triggered.connect(self.flow.save_plan_as)
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
        self.export_action.triggered.connect(self.dialogs.export_notebooks)
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
        edit_menu.addSeparator()
        edit_menu.addAction(self.review_page.leave_out_blank_action)

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
        self.guide_action.triggered.connect(self.dialogs.show_guide)
        help_menu.addAction(self.guide_action)
        self.shortcuts_action = QAction(self.tr("&Keyboard Shortcuts"), self)
        self.shortcuts_action.triggered.connect(self.dialogs.show_shortcuts)
        help_menu.addAction(self.shortcuts_action)
        help_menu.addSeparator()
        self.about_action = QAction(self.tr("&About Transcribe Import"), self)
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        self.about_action.triggered.connect(self.dialogs.show_about)
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

    def _show_health(self) -> None:
        self.show_section(Section.CORPUS)
        self.corpus_page.findings_view.setFocus()

    def show_run(self, run_id: str) -> None:
        self.show_section(Section.RUNS)
        self.runs_page.select_run(run_id)

    def show_notebook(self, notebook_id: str) -> None:
        self.show_section(Section.CORPUS)
        self.corpus_page.open_notebook(notebook_id)

    def show_added(self, run_id: str) -> None:
        self.show_section(Section.CORPUS)
        self.corpus_page.open_run(run_id)

    def bring_forward(self) -> None:
        """Come to the front, restored if minimised (another start of the app asked)."""
        self.setWindowState(self.windowState() & ~Qt.WindowState.WindowMinimized)
        self.show()
        self.raise_()
        self.activateWindow()

    # -- drag and drop: the intake's -------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        self.intake.drag_enter(event)

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self.intake.drag_leave(event)
        super().dragLeaveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        self.intake.drop(event)

    # -- the parts' news -------------------------------------------------------------------

    def _busy_changed(self, _busy: bool) -> None:
        busy = self.scan_page.is_running() or self.commit_page.is_running()
        for action in (self.new_import_action, self.add_folder_action, self.add_files_action):
            action.setEnabled(not busy)

    def _commit_running_changed(self, running: bool) -> None:
        self.health.commit_running_changed(running)
        self.runs_page.set_commit_running(running)
        self.corpus_page.set_commit_running(running)
        self.corpus_page.set_check_allowed(
            not running and not self.health.is_checking(),
            self.tr("The corpus is checked again once the import has ended") if running else "",
        )
        self._busy_changed(running)
        if not running:
            self.closing.commit_ended()

    def _run_finished(self, _result: object) -> None:
        # Doctor again, then the listing: the Corpus view's health and count include the import.
        self.health.corpus_changed()
        self.runs_page.refresh(select=self.commit_page.run_id)

    def _runs_listed(self) -> None:
        model = self.runs_page.model
        interrupted = [model.run(r) for r in range(model.rowCount()) if model.run(r).interrupted]
        self.start_page.set_interrupted_runs(interrupted)

    # -- closing: the closing part's -------------------------------------------------------

    def is_stopping(self) -> bool:
        return self.closing.is_stopping()

    def is_closing(self) -> bool:
        return self.closing.is_closing()

    def save_state(self) -> None:
        """The window's size and place and its splitters, kept for the next start."""
        save_geometry(self, self._settings)
        for key, splitter in self._splitters().items():
            self._settings.setValue(key, splitter.saveState())
        for key in STALE_KEYS:
            self._settings.remove(key)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.closing.close_event(event):
            super().closeEvent(event)
