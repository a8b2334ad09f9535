"""The stop question: how a commit is stopped, from its Stop Import… button or on closing.

Its words are ``wording.stopping``'s; its answers are ``StopChoice`` members. Asked on
closing it also offers Pause; asked from the commit view, Pause is that view's own button.
"""

from __future__ import annotations

from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import QMessageBox, QWidget

from transcribe_import.gui.dialogs import Answer, Role, ask
from transcribe_import.gui.wording import (
    StopChoice,
    stop_choice_words,
    stop_on_close_question,
    stop_question,
)

# The roles place the buttons: the stops on the left, Keep Importing (Esc) last.
_ROLES = {
    StopChoice.PAUSE: Role.AcceptRole,
    StopChoice.KEEP: Role.AcceptRole,
    StopChoice.UNDO: Role.DestructiveRole,
    StopChoice.CONTINUE: Role.RejectRole,
}


def ask_stop(parent: QWidget, *, closing: bool, ended: SignalInstance | None = None) -> StopChoice:
    """Ask how to stop the running import; ``CONTINUE`` (also Esc) stops nothing.

    Enter keeps importing from the commit view (stopping is asked for, never fallen into);
    on closing it pauses, the stop that loses nothing. ``ended``: the import's end, which
    closes the question (nothing is left to stop) as ``CONTINUE``.
    """
    words = stop_on_close_question() if closing else stop_question()
    choices = [c for c in StopChoice if closing or c is not StopChoice.PAUSE]
    answer = ask(
        parent,
        words.title,
        words.question,
        words.details,
        [Answer(c.value, stop_choice_words(c, closing), _ROLES[c]) for c in choices],
        default=(StopChoice.PAUSE if closing else StopChoice.CONTINUE).value,
        escape=StopChoice.CONTINUE.value,
        icon=QMessageBox.Icon.Warning,
        moot_on=ended,
    )
    return StopChoice(answer)
