"""The views' buttons and commands, and the questions asked before what cannot be undone."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from PySide6.QtCore import QCoreApplication

from transcribe_import.gui.wording.stopping import cancel_run_question_details

_t = QCoreApplication.translate


class ButtonWords(NamedTuple):
    """A button's words: its text (with its Alt letter), what a screen reader calls it, its tip
    (none: "")."""

    text: str
    name: str
    tip: str = ""


class Question(NamedTuple):
    """The words of a question asked before something that cannot be undone: its window
    title, the question, what doing it means, the answer that does it, the one that keeps."""

    title: str
    question: str
    details: str
    do_it: str
    keep: str


def cancel_run_question() -> Question:
    """Before cancelling an interrupted run from the Runs view."""
    return Question(
        _t("RunsPage", "Cancel Run"),
        _t("RunsPage", "End this import without finishing it?"),
        cancel_run_question_details(),
        _t("RunsPage", "Cancel Run"),
        _t("RunsPage", "Keep It Resumable"),
    )


def purge_question(what: str) -> Question:
    """Before deleting one trash entry (``what``: the entry as the trash lists it) for good."""
    return Question(
        _t("TrashDialog", "Delete for Good"),
        _t("TrashDialog", "Delete these pages for good?"),
        _t(
            "TrashDialog", "{what}\n\nThe files are removed from the disk; this cannot be undone."
        ).format(what=what),
        _t("TrashDialog", "Delete for Good"),
        _t("TrashDialog", "Keep Them"),
    )


def _button(context: str, text: str, name: str, tip: str = "") -> ButtonWords:
    """A button's words, each translated in ``context`` (the view that shows it)."""
    return ButtonWords(_t(context, text), _t(context, name), _t(context, tip) if tip else "")


def resume_words() -> ButtonWords:
    """Resume, as the commit view and the Runs view both offer it."""
    return _button(
        "RunButtons",
        "&Resume",
        "Resume the run",
        "Finish the run with the same ids; what landed is not doubled",
    )


def retry_words() -> ButtonWords:
    """Retry What Did Not Land, as the commit view and the Runs view both offer it."""
    return _button(
        "RunButtons",
        "Re&try What Did Not Land",
        "Retry what did not land",
        "Commit the run's plan again: only what is not in the corpus yet is imported; "
        "pages already committed are never doubled",
    )


# Each view's buttons' words in one table; the view adds the icon and what a click does
# (``widgets.push_button``).
class StartButtons(NamedTuple):
    add_folder: ButtonWords
    add_files: ButtonWords
    remove: ButtonWords
    clear: ButtonWords
    scan: ButtonWords
    back_to_review: ButtonWords
    resume_run: ButtonWords
    show_run: ButtonWords
    continue_review: ButtonWords
    discard_review: ButtonWords
    show_health: ButtonWords
    finish_import: ButtonWords
    show_notebook: ButtonWords


def start_buttons() -> StartButtons:
    """The start view's buttons, and those of its notices (a run, a kept review, quarantine)."""
    return StartButtons(
        _button("StartPage", "&Add Folder…", "Add a folder to import"),
        _button("StartPage", "Add F&iles…", "Add page files to import"),
        _button("StartPage", "Re&move", "Remove the selected folders and files"),
        _button("StartPage", "C&lear", "Remove every folder and file"),
        _button(
            "StartPage",
            "&Scan",
            "Scan the folders and files",
            "Find the page files and propose a plan; nothing is imported yet",
        ),
        _button(
            "StartPage",
            "Back to &Review",
            "Back to the plan under review",
            "The plan made by the last scan is still there; a new scan replaces it",
        ),
        _button("StartPage", "Resume", "Resume the interrupted import"),
        _button("StartPage", "Show Run", "Show the interrupted import in Runs"),
        _button("StartPage", "Continue Review", "Continue the review kept as a draft"),
        _button("StartPage", "Discard", "Discard the kept review"),
        _button("StartPage", "Show Corpus Health", "Show the corpus health findings"),
        _button(
            "StartPage",
            "Finish Import",
            "Finish the incomplete notebook's import",
            "Retries its import: only what did not land is imported, with the same ids",
        ),
        _button("StartPage", "Show Notebook", "Show the incomplete notebook in the Corpus view"),
    )


class ActionWords(NamedTuple):
    """A command's words: its menu text (with its Alt letter), its tip, its key ("": none)."""

    text: str
    tip: str
    shortcut: str = ""


def _command(context: str, text: str, tip: str, shortcut: str = "") -> ActionWords:
    return ActionWords(_t(context, text), _t(context, tip), shortcut)


class ReviewActions(NamedTuple):
    move_up: ActionWords
    move_down: ActionWords
    sort_name: ActionWords
    sort_capture: ActionWords
    sort_mtime: ActionWords
    exclude: ActionWords
    include: ActionWords
    rename: ActionWords
    cover: ActionWords
    replace: ActionWords
    turn_right: ActionWords
    turn_left: ActionWords
    leave_out_blank: ActionWords
    validate: ActionWords
    commit: ActionWords


def review_actions() -> ReviewActions:
    """The review view's commands (its buttons, menus and keys act through them)."""
    c = "ReviewPage"
    return ReviewActions(
        _command(c, "Move &up", "Move the selected pages one place up", "Ctrl+Up"),
        _command(c, "Move &down", "Move the selected pages one place down", "Ctrl+Down"),
        _command(c, "By &name", "Put every page in the order of the file names"),
        _command(c, "By &capture time", "Put every page in the order the camera took them"),
        _command(
            c, "By &modification time", "Put every page in the order the files were last changed"
        ),
        _command(c, "&Leave Out", "Leave the selected pages out of the import", "Del"),
        _command(c, "&Include", "Import the selected excluded pages after all", "Ins"),
        _command(c, "&Rename…", "Change the title of the new notebook", "F2"),
        _command(c, "Set as c&over", "Make the selected page the notebook's cover"),
        _command(
            c,
            "Repl&aces…",
            "Say the selected page is a rescan that replaces a page of the notebook",
        ),
        _command(
            c,
            "Turn ri&ght",
            "Turn the selected pages a quarter turn clockwise (their files are not changed)",
            "Ctrl+R",
        ),
        _command(
            c,
            "Turn le&ft",
            "Turn the selected pages a quarter turn anticlockwise (their files are not changed)",
            "Ctrl+Shift+R",
        ),
        _command(
            c,
            "Leave Out &Blank Pages",
            "Leave out every page of the notebook with nothing written on it (one step, undoable)",
        ),
        _command(
            c,
            "Valida&te",
            "Check the whole plan against the files and the corpus as they are now",
            "F5",
        ),
        _command(c, "&Commit", "Import the plan into the corpus"),
    )


def cancel_scan_words() -> ButtonWords:
    return _button(
        "ScanPage",
        "&Cancel Scan",
        "Cancel the scan",
        "Stop scanning; nothing is planned or imported",
    )


class CommitButtons(NamedTuple):
    pause: ButtonWords
    cancel: ButtonWords
    open_folder: ButtonWords
    show_run: ButtonWords
    new_import: ButtonWords
    scan_again: ButtonWords


def commit_buttons() -> CommitButtons:
    """The commit view's buttons but Resume and Retry (``resume_words``, ``retry_words``)."""
    return CommitButtons(
        _button(
            "CommitPage",
            "&Pause",
            "Pause the import",
            "Stop at the next safe point; the run can be resumed from Runs",
        ),
        _button(
            "CommitPage",
            "&Stop Import…",
            "Stop the import",
            "Stop importing: keep the pages that landed, or undo the import",
        ),
        _button("CommitPage", "&Open Corpus Folder", "Open the corpus folder"),
        _button("CommitPage", "&Show in Runs", "Show this run in the Runs view"),
        _button("CommitPage", "&New Import", "Start a new import"),
        _button(
            "CommitPage",
            "Scan &Again",
            "Scan that run's folders again",
            "A new review of the folders as they are now: what is imported already is "
            "recognised, and the rest is offered to complete the same notebooks",
        ),
    )


class RunsButtons(NamedTuple):
    refresh: ButtonWords
    cancel_run: ButtonWords
    undo: ButtonWords
    trash: ButtonWords


def runs_buttons() -> RunsButtons:
    """The Runs view's buttons but Resume and Retry (``resume_words``, ``retry_words``)."""
    return RunsButtons(
        _button("RunsPage", "Refre&sh", "List the runs again"),
        _button(
            "RunsPage",
            "&Cancel Run…",
            "Cancel the selected run",
            "End the run without finishing it; notebooks already committed stay",
        ),
        _button(
            "RunsPage",
            "&Undo This Import…",
            "Undo the selected import as a group",
            "Take every notebook and page this import added out of the corpus, into the "
            "trash; shows what it removes, and what blocks it, before anything is done",
        ),
        _button(
            "RunsPage",
            "Tr&ash…",
            "Show the trash",
            "Imports you undid, kept whole until you delete them for good",
        ),
    )


def check_again_words() -> ButtonWords:
    return _button(
        "CorpusPage",
        "&Check Again",
        "Check the corpus again",
        "Run doctor again: recover interrupted work and look for problems",
    )


def unsaved_review_words(draft_problem: str | None) -> tuple[str, str, str]:
    """Quitting with review decisions in no plan file: the title, the question, and what
    becomes of them (kept as a draft, unless the draft could not be written)."""
    if draft_problem is None:
        details = _t(
            "Quit",
            "They are kept as a draft in the corpus: the next time the window opens, Continue "
            "Review brings them back. Save Plan As… also writes them to a file that the "
            "command line can validate and commit.",
        )
    else:
        details = _t(
            "Quit",
            "They could not be kept as a draft ({why}), so quitting now loses them. Save Plan "
            "As… writes them to a file you choose.",
        ).format(why=draft_problem)
    return (
        _t("Quit", "Quit Transcribe Import"),
        _t("Quit", "The review has decisions that are in no plan file yet."),
        details,
    )


def unsaved_review_answers(draft_kept: bool) -> tuple[str, str, str]:
    """The answers to ``unsaved_review_words``: save, quit, cancel."""
    return (
        _t("Quit", "Save Plan As…"),
        _t("Quit", "Quit, Keep the Draft") if draft_kept else _t("Quit", "Quit Without Saving"),
        _t("Quit", "Cancel"),
    )


class SourcesQuestion(NamedTuple):
    """Paths handed over by ``gui PATH`` while the list to scan holds others: the question
    and its three answers (the default replaces: what was just opened is what is meant)."""

    title: str
    question: str
    details: str
    replace: str
    add: str
    cancel: str


def _names(paths: Sequence[Path]) -> str:
    shown = ", ".join(f"“{p.name or p}”" for p in paths[:2])
    more = len(paths) - 2
    return shown if more <= 0 else _t("Start", "{names} and %n more", "", more).format(names=shown)


def sources_question(listed: Sequence[Path], handed: Sequence[Path]) -> SourcesQuestion:
    """Before ``handed`` joins or replaces the ``listed`` folders and files to scan."""
    return SourcesQuestion(
        _t("Start", "Folders to Scan"),
        _t("Start", "The list to scan already holds {listed}. Replace it with {handed}?").format(
            listed=_names(listed), handed=_names(handed)
        ),
        _t(
            "Start",
            "Replace the List takes {listed} off the list; nothing on disk changes. Add to the "
            "List keeps them all, to be scanned together. Cancel leaves the list as it was.",
        ).format(listed=_names(listed)),
        _t("Start", "&Replace the List"),
        _t("Start", "&Add to the List"),
        _t("Start", "Cancel"),
    )
