"""Small dialogs shared by the pages and the window: a question with named answers, and the
file dialogs, each opening in the folder the last one of its kind was left in."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from PySide6.QtCore import QDir, QSettings, SignalInstance
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from transcribe_import.gui.wording import Question, sources_question

Role = QMessageBox.ButtonRole


@dataclass(frozen=True)
class Answer:
    """One button of a question: what it says, its role, and the key ``ask`` returns for it."""

    key: str
    text: str
    role: Role


def ask(
    parent: QWidget,
    title: str,
    question: str,
    details: str,
    answers: Sequence[Answer],
    *,
    default: str,
    escape: str,
    icon: QMessageBox.Icon = QMessageBox.Icon.Question,
    moot_on: SignalInstance | None = None,
) -> str:
    """Ask ``question`` and wait: the key of the answer chosen (Esc or closing: ``escape``).

    ``moot_on``: a signal after which the question means nothing any more (the import it
    asks about has ended): the box closes by itself, as Esc would.
    """
    box = QMessageBox(parent)
    box.setIcon(icon)
    box.setWindowTitle(title)
    box.setText(question)
    box.setInformativeText(details)
    buttons = {a.key: box.addButton(a.text, a.role) for a in answers}
    box.setDefaultButton(buttons[default])
    box.setEscapeButton(buttons[escape])
    if moot_on is not None:
        moot_on.connect(box.reject)
    try:
        box.exec()
    finally:
        if moot_on is not None:
            moot_on.disconnect(box.reject)
    clicked = box.clickedButton()
    return next((key for key, button in buttons.items() if button is clicked), escape)


def confirm_destructive(parent: QWidget, words: Question) -> bool:
    """Ask before something that cannot be undone; Enter and Esc both choose ``keep``."""
    answers = (
        Answer("do", words.do_it, Role.DestructiveRole),
        Answer("keep", words.keep, Role.RejectRole),
    )
    answer = ask(
        parent,
        words.title,
        words.question,
        words.details,
        answers,
        default="keep",
        escape="keep",
        icon=QMessageBox.Icon.Warning,
    )
    return answer == "do"


class SourcesAnswer(Enum):
    """What becomes of the list to scan when ``gui PATH`` hands over other paths."""

    REPLACE = "replace"
    ADD = "add"
    CANCEL = "cancel"


def ask_sources(parent: QWidget, listed: Sequence[Path], handed: Sequence[Path]) -> SourcesAnswer:
    """Replace the list with ``handed``, add them to it, or cancel; Enter replaces, Esc
    cancels (``handed`` is what was just opened: scanning it alone is what is most often
    meant; the folders taken off the list are only taken off)."""
    words = sources_question(listed, handed)
    answers = (
        Answer(SourcesAnswer.REPLACE.value, words.replace, Role.AcceptRole),
        Answer(SourcesAnswer.ADD.value, words.add, Role.ActionRole),
        Answer(SourcesAnswer.CANCEL.value, words.cancel, Role.RejectRole),
    )
    key = ask(
        parent,
        words.title,
        words.question,
        words.details,
        answers,
        default=SourcesAnswer.REPLACE.value,
        escape=SourcesAnswer.CANCEL.value,
    )
    return SourcesAnswer(key)


class FolderKind(Enum):
    """Which file dialog: each starts where the last one of its kind was left (issue 23)."""

    SCANS = "scans"  # Add Folder…, Add Files…
    PLANS = "plans"  # Open Plan…, Save Plan As…


def _key(kind: FolderKind) -> str:
    return f"FileDialogs/{kind.value}"


def start_folder(settings: QSettings, kind: FolderKind) -> str:
    """Where a ``kind`` dialog opens: the folder its last one was left in, if it is still
    there, else the home folder (never the program's own folder, the working directory)."""
    value = settings.value(_key(kind), "")
    if isinstance(value, str) and value and Path(value).is_dir():
        return value
    return QDir.homePath()


def remember_folder(settings: QSettings, kind: FolderKind, folder: Path) -> None:
    settings.setValue(_key(kind), str(folder))


def choose_folder(
    parent: QWidget, settings: QSettings, kind: FolderKind, title: str
) -> Path | None:
    """A folder the person picks; the next dialog opens beside it, in the folder holding it."""
    chosen = QFileDialog.getExistingDirectory(parent, title, start_folder(settings, kind))
    if not chosen:
        return None
    remember_folder(settings, kind, Path(chosen).parent)
    return Path(chosen)


def choose_files(
    parent: QWidget, settings: QSettings, kind: FolderKind, title: str, filters: str
) -> list[Path]:
    """Files the person picks (one or more); the next dialog opens in their folder."""
    chosen, _ = QFileDialog.getOpenFileNames(parent, title, start_folder(settings, kind), filters)
    if chosen:
        remember_folder(settings, kind, Path(chosen[0]).parent)
    return [Path(f) for f in chosen]


def choose_file(
    parent: QWidget, settings: QSettings, kind: FolderKind, title: str, filters: str
) -> Path | None:
    """One file to open."""
    chosen, _ = QFileDialog.getOpenFileName(parent, title, start_folder(settings, kind), filters)
    if not chosen:
        return None
    remember_folder(settings, kind, Path(chosen).parent)
    return Path(chosen)


def choose_save_file(
    parent: QWidget, settings: QSettings, kind: FolderKind, title: str, name: str, filters: str
) -> Path | None:
    """Where to write a new file, ``name`` proposed in the last folder of its kind."""
    start = str(Path(start_folder(settings, kind)) / name)
    chosen, _ = QFileDialog.getSaveFileName(parent, title, start, filters)
    if not chosen:
        return None
    remember_folder(settings, kind, Path(chosen).parent)
    return Path(chosen)
