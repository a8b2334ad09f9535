"""Small dialogs shared by the pages: a confirmation whose safe answer is the default."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget


def confirm_destructive(
    parent: QWidget, title: str, question: str, details: str, do_it: str, keep: str
) -> bool:
    """Ask before something that cannot be undone; Enter and Esc both choose ``keep``."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle(title)
    box.setText(question)
    box.setInformativeText(details)
    yes = box.addButton(do_it, QMessageBox.ButtonRole.DestructiveRole)
    no = box.addButton(keep, QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(no)
    box.setEscapeButton(no)
    box.exec()
    return box.clickedButton() is yes
