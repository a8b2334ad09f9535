"""Every sentence the window says about stopping an import, in one place, each pinned by a
test of what it describes (tests/gui/test_stop_question.py).

What stopping really does: pages land in the corpus a checkpoint at a time and a stop
never takes them out; the checkpoint being written when the stop comes is dropped and
the notebook it belongs to keeps what landed before it. *Stop, Keep What Landed* ends the
run there (Retry What Did Not Land imports the rest with the same ids); *Stop and Undo
This Import* ends it and then opens the undo's preview, which takes the run's pages out
into the trash only when the person confirms it.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

from PySide6.QtCore import QCoreApplication

_t = QCoreApplication.translate


class StopChoice(enum.Enum):
    """An answer to a stop question (the commit view's, or the one asked on closing)."""

    PAUSE = "pause"  # stop at a safe point, resumable (asked on closing only)
    KEEP = "keep"  # Stop, Keep What Landed: the run ends, its pages stay
    UNDO = "undo"  # Stop and Undo This Import: the run ends, then its undo's preview opens
    CONTINUE = "continue"  # Keep Importing: nothing is stopped


class StopQuestion(NamedTuple):
    """A stop question's words: its title, the question, what each answer does."""

    title: str
    question: str
    details: str


def stop_choice_words(choice: StopChoice, closing: bool) -> str:
    """A stop question's answer; on closing the window, its answers say so."""
    if closing:
        return {
            StopChoice.PAUSE: _t("Quit", "Pause and Close"),
            StopChoice.KEEP: _t("Quit", "Stop, Keep What Landed"),
            StopChoice.UNDO: _t("Quit", "Stop and Undo This Import"),
            StopChoice.CONTINUE: _t("Quit", "Keep Importing"),
        }[choice]
    return {
        StopChoice.PAUSE: _t("CommitPage", "Pause"),
        StopChoice.KEEP: _t("CommitPage", "Stop, Keep What Landed"),
        StopChoice.UNDO: _t("CommitPage", "Stop and Undo This Import"),
        StopChoice.CONTINUE: _t("CommitPage", "Keep Importing"),
    }[choice]


def stop_question() -> StopQuestion:
    """The commit view's Stop Import…: what stays, and how each way of stopping ends."""
    return StopQuestion(
        _t("CommitPage", "Stop Import"),
        _t("CommitPage", "Stop this import?"),
        _t(
            "CommitPage",
            "Pages already in the corpus stay there: they land a few at a time, and stopping "
            "never takes them out. Notebooks not started are not imported.\n\n"
            "While you decide, the import waits: no notebook starts, and the one being "
            "imported stops after its next few pages land. Keep Importing goes on from "
            "there.\n\n"
            "Stop, Keep What Landed: the run ends here. A notebook stopped part way keeps the "
            "pages that landed; Retry What Did Not Land imports the rest.\n\n"
            "Stop and Undo This Import: the run ends, then you see what undoing it takes out "
            "of the corpus (into the trash) before anything is taken out.",
        ),
    )


def stop_on_close_question() -> StopQuestion:
    """Closing during a commit: pause, stop one way or the other, or keep importing."""
    return StopQuestion(
        _t("Quit", "Import in Progress"),
        _t("Quit", "An import is running. Stop it before closing?"),
        _t(
            "Quit",
            "While you decide, the import waits: no notebook starts, and the one being "
            "imported stops after its next few pages land.\n\n"
            "Pause and Close keeps the run resumable: open the window again and resume it "
            "from Runs.\n\n"
            "Stop, Keep What Landed ends the run: the pages that landed stay in the corpus, a "
            "notebook stopped part way included, and Retry What Did Not Land (Runs) imports "
            "the rest.\n\n"
            "Stop and Undo This Import ends the run, then shows what undoing it takes out "
            "before the window closes.\n\n"
            "Whichever you choose, pages already in the corpus stay until you undo the import.",
        ),
    )


def waiting_for_answer_words() -> str:
    """The commit view while a stop question is open: the run is held until the answer."""
    return _t("CommitPage", "Waiting for your answer: no notebook starts meanwhile.")


def stopping_words(choice: StopChoice) -> str:
    """What the commit view says while the run stops, after each answer."""
    return {
        StopChoice.PAUSE: _t("CommitPage", "Pausing at the next safe point…"),
        StopChoice.KEEP: _t(
            "CommitPage", "Stopping at the next safe point… the pages already in stay."
        ),
        StopChoice.UNDO: _t(
            "CommitPage",
            "Stopping at the next safe point… then what undoing the import takes out is shown.",
        ),
        StopChoice.CONTINUE: "",
    }[choice]


def undo_not_possible_words() -> str:
    """Stop and Undo asked, but the run did not end (a full disk, say, left it resumable)."""
    return _t(
        "CommitPage",
        "It could not be undone: the run did not end, so nothing was taken out. Resume it "
        "from Runs, or cancel it there, and then undo it.",
    )


def nothing_to_undo_words() -> str:
    """Stop and Undo asked, but the run ended before any of its pages landed."""
    return _t(
        "CommitPage",
        "None of its pages had landed when it stopped, so there is nothing to undo: the "
        "corpus holds nothing of this run.",
    )


def cancel_run_question_details() -> str:
    """Runs › Cancel on a run no process executes: what ending it keeps."""
    return _t(
        "RunsPage",
        "Its notebooks not started will not be imported. Every page already in the corpus "
        "stays, a notebook it stopped part way included: Retry What Did Not Land imports "
        "the rest, and Undo This Import… takes all of it out.",
    )
