"""File › Export Notebooks…: the chosen notebooks out as a BagIt bag, with progress and Cancel.

The dialog lists the corpus's notebooks with a check box each, the ones chosen where it was
opened (the Corpus view's selection, the notebook open in the library) already checked; what
the export made, or why it stopped, is said in the dialog itself, wrapped, never cut.

The export runs as an ``EngineTask`` of ``export_task`` (one call of ``api.export_notebooks``)
in a ``TaskSlot``; the dialog only shows its progress and its result. Cancel sets an event
the engine polls between files and between chunks of a file, so the task ends within a
moment and the folder it leaves says it is incomplete.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable, Generator, Sequence
from pathlib import Path

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QCloseEvent, QDesktopServices
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from transcribe_import.engine import api
from transcribe_import.engine.api import Corpus, NotebookSummary
from transcribe_import.engine.export.model import (
    EXPORTS_DIR,
    INCOMPLETE,
    ExportPhase,
    ExportProgress,
    ExportResult,
    ExportStatus,
)
from transcribe_import.gui.wording import plural
from transcribe_import.gui.workers import ProgressThrottle, TaskSlot


def export_task(
    corpus: Corpus,
    notebook_ids: tuple[str, ...],
    destination: Path | None,
    should_stop: Callable[[], bool],
) -> Generator[ExportProgress, None, ExportResult]:
    """The export, yielding the progress events a ``ProgressThrottle`` lets through (and every
    file it could not carry)."""
    export = api.Events(
        api.export_notebooks(corpus, notebook_ids, destination, should_stop=should_stop)
    )
    throttle = ProgressThrottle()
    for event in export:
        if throttle.shows(event.phase, anyway=event.missing is not None):
            yield event
    return export.result


def _mib(n: int) -> str:
    return f"{n / 1_048_576:.1f}"


class ExportDialog(QDialog):
    """Where to export, then the export's progress, then what it made; Cancel while it runs."""

    ended = Signal(object)  # the ExportResult, or None when the export failed

    def __init__(
        self,
        corpus: Corpus,
        notebooks: Sequence[NotebookSummary],
        parent: QWidget | None = None,
        *,
        choices: Sequence[NotebookSummary] | None = None,
    ) -> None:
        super().__init__(parent)
        self.corpus = corpus
        self.notebook_ids = tuple(n.notebook_id for n in notebooks)
        # Every notebook that can be chosen (None: only those given), in the list's order.
        self._choices = list(notebooks if choices is None else choices)
        self.destination: Path | None = None  # None: a fresh folder under exports/
        self.exported: ExportResult | None = None
        self._stop = threading.Event()
        self._slot = TaskSlot(
            self,
            progress=self._progress,
            done=self._done,
            failed=self._failed,
            ended=self._task_ended,
        )

        self.setWindowTitle(self.tr("Export Notebooks"))
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.choice_list = self._choice_list()
        self.destination_label = QLabel()
        self.destination_label.setWordWrap(True)
        self.destination_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.choose_button = QPushButton(self.tr("&Choose Folder…"))
        self.choose_button.setToolTip(self.tr("Export into a new or empty folder of your choice"))
        self.choose_button.clicked.connect(self.choose_destination)
        where = QHBoxLayout()
        where.addWidget(self.destination_label, 1)
        where.addWidget(self.choose_button, 0, Qt.AlignmentFlag.AlignTop)

        self.progress_bar = QProgressBar()
        self.progress_bar.setAccessibleName(self.tr("Export progress"))
        self.progress_bar.hide()
        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.problems_view = QPlainTextEdit()
        self.problems_view.setReadOnly(True)
        self.problems_view.setAccessibleName(self.tr("Files that could not be exported"))
        self.problems_view.hide()

        self.buttons = QDialogButtonBox()
        self.export_button = self.buttons.addButton(
            self.tr("&Export"), QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.export_button.setDefault(True)
        self.export_button.clicked.connect(self.start)
        self.cancel_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.cancel_button.clicked.connect(self.reject)
        self.show_folder_button = self.buttons.addButton(
            self.tr("&Show Folder"), QDialogButtonBox.ButtonRole.ActionRole
        )
        self.show_folder_button.clicked.connect(self.show_folder)
        self.show_folder_button.hide()
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.close_button.clicked.connect(self.accept)
        self.close_button.hide()

        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.choice_list)
        layout.addLayout(where)
        layout.addWidget(self.progress_bar)
        layout.addWidget(self.status_label)
        layout.addWidget(self.problems_view, 1)
        layout.addWidget(self.buttons)
        self._show_destination()
        self._show_chosen()
        self.resize(600, self.sizeHint().height())

    # -- before the export ---------------------------------------------------------------

    def _choice_list(self) -> QListWidget:
        """The notebooks, each with a check box; two of one title told apart by id and pages."""
        view = QListWidget()
        view.setAccessibleName(self.tr("Notebooks to export"))
        chosen = set(self.notebook_ids)
        for nb in self._choices:
            n = nb.page_count
            pages = (
                self.tr("pages unknown")
                if n is None
                else plural(n, self.tr("1 page"), self.tr("%Ln pages", "", n))
            )
            item = QListWidgetItem(
                self.tr("“{title}” · {id} · {pages}").format(
                    title=nb.title, id=api.short_id(nb.notebook_id), pages=pages
                )
            )
            item.setToolTip(nb.notebook_id)
            item.setData(Qt.ItemDataRole.UserRole, nb.notebook_id)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            checked = nb.notebook_id in chosen
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
            view.addItem(item)
        # Two to six rows tall, never squeezed by the words below it as they grow.
        view.setSpacing(2)
        rows = min(max(2, view.count()), 6)
        row_height = max(view.sizeHintForRow(0), view.fontMetrics().height()) + 2 * 2
        view.setFixedHeight(rows * row_height + 2 * view.frameWidth() + 4)
        view.itemChanged.connect(self._choice_changed)
        return view

    def set_chosen(self, notebook_ids: Sequence[str]) -> None:
        """Check exactly these notebooks (as a person ticking their boxes would)."""
        for row in range(self.choice_list.count()):
            item = self.choice_list.item(row)
            wanted = item.data(Qt.ItemDataRole.UserRole) in notebook_ids
            item.setCheckState(Qt.CheckState.Checked if wanted else Qt.CheckState.Unchecked)

    def _choice_changed(self, _item: QListWidgetItem) -> None:
        view = self.choice_list
        self.notebook_ids = tuple(
            view.item(r).data(Qt.ItemDataRole.UserRole)
            for r in range(view.count())
            if view.item(r).checkState() == Qt.CheckState.Checked
        )
        self._show_chosen()

    def _show_chosen(self) -> None:
        chosen = [nb for nb in self._choices if nb.notebook_id in self.notebook_ids]
        n = len(chosen)
        titles = ", ".join(f"“{nb.title}”" for nb in chosen[:3]) + (", …" if n > 3 else "")
        if not n:
            text = self.tr("Choose the notebooks to export as a BagIt bag.")
        else:
            text = plural(
                n,
                self.tr("Export 1 notebook ({titles}) as a BagIt bag."),
                self.tr("Export %Ln notebooks ({titles}) as a BagIt bag.", "", n),
            ).format(titles=titles)
        self.summary.setText(text)
        self.export_button.setEnabled(bool(n) and not self.is_running())

    def _show_destination(self) -> None:
        if self.destination is None:
            text = self.tr(
                "Into a new folder in {folder}, named after the notebooks and the date."
            ).format(folder=self.corpus.data_dir / EXPORTS_DIR)
        else:
            text = self.tr("Into {folder} (it must be new or empty).").format(
                folder=self.destination
            )
        self.destination_label.setText(text)

    def choose_destination(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Export Into Folder"))
        if folder:
            self.set_destination(Path(folder))

    def set_destination(self, folder: Path | None) -> None:
        self.destination = folder
        self._show_destination()

    # -- the export ----------------------------------------------------------------------

    def is_running(self) -> bool:
        return self._slot.is_busy()

    def start(self) -> None:
        if self.is_running() or self.exported is not None or not self.notebook_ids:
            return
        self.export_button.setEnabled(False)
        self.choose_button.setEnabled(False)
        self.choice_list.setEnabled(False)
        self.cancel_button.setText(self.tr("&Cancel Export"))
        self.progress_bar.setRange(0, 0)
        self.progress_bar.show()
        self.status_label.setText(self.tr("Reserving the folder…"))
        self._slot.run(
            export_task, self.corpus, self.notebook_ids, self.destination, self._stop.is_set
        )

    def cancel(self) -> None:
        """Ask the running export to stop; the folder it leaves will say it is incomplete."""
        if self.is_running():
            self._stop.set()
            self.cancel_button.setEnabled(False)
            self.status_label.setText(self.tr("Cancelling…"))

    def stop_and_wait(self) -> None:
        """The window is closing: stop the export and wait for its thread (a moment)."""
        self._stop.set()
        self._slot.close()

    def _progress(self, event: ExportProgress) -> None:
        self.progress_bar.setRange(0, max(1, event.files_total))
        self.progress_bar.setValue(event.files_done)
        if event.phase is ExportPhase.FINISHING:
            text = self.tr("Writing the manifests…")
        else:
            text = self.tr("{done} of {total} files, {mib} of {total_mib} MiB").format(
                done=event.files_done,
                total=event.files_total,
                mib=_mib(event.bytes_done),
                total_mib=_mib(event.bytes_total),
            )
        self.status_label.setText(text)
        if event.missing is not None:
            self.problems_view.show()
            self.problems_view.appendPlainText(event.missing.message)

    def _done(self, result: ExportResult) -> None:
        self.exported = result
        files = len(result.files)
        where = html.escape(str(result.destination))
        if result.status is ExportStatus.COMPLETE:
            text = self.tr(
                "<b>Exported.</b> {files} files are in {where}: a complete BagIt bag. Its "
                "README.md says how to check it without this app."
            )
        elif result.status is ExportStatus.PARTIAL:
            text = plural(
                len(result.missing),
                self.tr(
                    "<b>Exported with problems.</b> 1 file could not be copied (listed below), "
                    "so the bag in {where} is marked partial and does not validate. Repair the "
                    "corpus (Check Again on the Corpus page) and export again."
                ),
                self.tr(
                    "<b>Exported with problems.</b> {missing} files could not be copied (listed "
                    "below), so the bag in {where} is marked partial and does not validate. "
                    "Repair the corpus (Check Again on the Corpus page) and export again."
                ),
            )
        else:
            text = self.tr(
                "<b>Export cancelled.</b> {where} holds an incomplete export ({marker} says "
                "so); it is not a valid bag: delete it."
            )
        self.status_label.setText(
            text.format(files=files, where=where, missing=len(result.missing), marker=INCOMPLETE)
        )
        self.progress_bar.setRange(0, 1)
        self.progress_bar.setValue(1 if result.status is not ExportStatus.CANCELLED else 0)
        self.show_folder_button.show()
        self.ended.emit(result)

    def _failed(self, message: str) -> None:
        self.progress_bar.hide()
        self.status_label.setText(
            self.tr("<b>The export did not run to its end.</b> {message}").format(
                message=html.escape(message)
            )
        )
        self.ended.emit(None)

    def _task_ended(self) -> None:
        self.export_button.hide()
        self.cancel_button.hide()
        self.close_button.show()
        self.close_button.setDefault(True)
        self.close_button.setFocus()
        # Grown to its words: the result is read here, whole, not in a status bar.
        layout = self.layout()
        if layout is not None:
            layout.activate()
        self.resize(self.width(), max(self.height(), self.heightForWidth(self.width())))

    def show_folder(self) -> None:
        if self.exported is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.exported.destination)))

    # -- closing -------------------------------------------------------------------------

    def reject(self) -> None:
        if self.is_running():
            self.cancel()  # closes once the export has stopped and said so
            return
        super().reject()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.is_running():
            self.cancel()
            event.ignore()
            return
        super().closeEvent(event)
