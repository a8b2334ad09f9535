"""Path intake: folders and files to scan, from a drop, File › Add…, or another start.

The window holds one ``PathIntake`` (``window.intake``) and hands it its drag events; a
second start of the app forwards its paths here (``open_forwarded``). Paths go on the Start
view's list, or are scanned at once when nothing is under way. What it uses of the window is
named in ``IntakeHost``, so the window imports it and it never imports the window.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject
from PySide6.QtGui import QDragEnterEvent, QDragLeaveEvent, QDropEvent
from PySide6.QtWidgets import QStatusBar, QWidget

from transcribe_import.gui.dialogs import SourcesAnswer, ask_sources
from transcribe_import.gui.import_flow import ImportFlow
from transcribe_import.gui.session import ImportSession
from transcribe_import.gui.window_pages import WindowPages
from transcribe_import.gui.wording import plural


class IntakeHost(WindowPages, Protocol):
    """What the intake uses of the window that holds it."""

    @property
    def session(self) -> ImportSession: ...
    @property
    def flow(self) -> ImportFlow: ...
    def window(self) -> QWidget: ...  # Qt's: the window itself, the parent of the question
    def statusBar(self) -> QStatusBar: ...
    def show_import_page(self, page: QWidget) -> None: ...
    def is_closing(self) -> bool: ...
    def bring_forward(self) -> None: ...


class PathIntake(QObject):
    """Where the paths to scan come in: drops, File › Add Folder…/Add Files…, other starts."""

    def __init__(self, host: IntakeHost, parent: QObject) -> None:
        super().__init__(parent)
        self._host = host

    # -- drag and drop ---------------------------------------------------------------------

    @staticmethod
    def _dropped_paths(event: QDragEnterEvent | QDropEvent) -> list[Path]:
        mime = event.mimeData()
        if not mime.hasUrls():
            return []
        return [Path(u.toLocalFile()) for u in mime.urls() if u.isLocalFile() and u.toLocalFile()]

    def accepts_drops(self) -> bool:
        return not (self._host.scan_page.is_running() or self._host.commit_page.is_running())

    def drag_enter(self, event: QDragEnterEvent) -> None:
        if self._dropped_paths(event) and self.accepts_drops():
            event.acceptProposedAction()
            self._host.start_page.drop_zone.set_highlight(True)
        else:
            event.ignore()

    def drag_leave(self, _event: QDragLeaveEvent) -> None:
        self._host.start_page.drop_zone.set_highlight(False)

    def drop(self, event: QDropEvent) -> None:
        self._host.start_page.drop_zone.set_highlight(False)
        paths = self._dropped_paths(event)
        if not paths or not self.accepts_drops():
            event.ignore()
            return
        event.acceptProposedAction()
        self.add_paths(paths)

    # -- the list to scan ------------------------------------------------------------------

    def add_paths(self, paths: Sequence[Path]) -> None:
        """Folders and files to scan, from a drop, a dialog or the command line."""
        host = self._host
        added = host.start_page.add_paths(paths)
        host.show_import_page(host.start_page)
        host.start_page.set_plan_waiting(host.session.plan is not None)
        host.statusBar().showMessage(
            plural(added, self.tr("1 item added."), self.tr("%Ln items added.", "", added)), 4000
        )

    def add_folder(self) -> None:
        if self.accepts_drops():
            self._host.show_import_page(self._host.start_page)
            self._host.start_page.choose_folder()

    def add_files(self) -> None:
        if self.accepts_drops():
            self._host.show_import_page(self._host.start_page)
            self._host.start_page.choose_files()

    # -- another start of the app ----------------------------------------------------------

    def open_forwarded(self, paths: Sequence[Path]) -> None:
        """A second start of the app handed its paths here: come forward and take them.

        With nothing under way they are scanned at once, as on the command line; during a
        scan, a commit or a review they are only added, so nothing in progress is replaced.
        Other folders already on the list to scan stay on it only if the person says so.
        """
        host = self._host
        host.bring_forward()
        if not paths:
            return
        busy = host.scan_page.is_running() or host.commit_page.is_running()
        if not busy and not host.is_closing() and not self._take_forwarded(paths):
            return
        if busy or host.session.plan is not None or host.is_closing():
            if self.accepts_drops():
                self.add_paths(paths)
            else:
                host.statusBar().showMessage(
                    self.tr("An import is running; add those folders when it has ended."), 8000
                )
            return
        host.flow.prescan(paths)

    def _take_forwarded(self, paths: Sequence[Path]) -> bool:
        """Other folders on the list to scan: ask whether the handed ones replace them or
        join them (docs/cli.md, gui); whether the handed ones are taken at all."""
        handed = [p.expanduser().absolute() for p in paths]
        listed = [p for p in self._host.start_page.paths() if p not in handed]
        if not listed:
            return True
        answer = ask_sources(self._host.window(), listed, handed)
        if answer is SourcesAnswer.REPLACE:
            self._host.start_page.clear_sources()
        return answer is not SourcesAnswer.CANCEL
