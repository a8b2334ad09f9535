"""Small dialogs shared by the pages and the window: a question with named answers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtWidgets import QMessageBox, QWidget

from transcribe_import.gui.wording import Question

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
) -> str:
    """Ask ``question`` and wait: the key of the answer chosen (Esc or closing: ``escape``)."""
    box = QMessageBox(parent)
    box.setIcon(icon)
    box.setWindowTitle(title)
    box.setText(question)
    box.setInformativeText(details)
    buttons = {a.key: box.addButton(a.text, a.role) for a in answers}
    box.setDefaultButton(buttons[default])
    box.setEscapeButton(buttons[escape])
    box.exec()
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
