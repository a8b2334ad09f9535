"""What the window says about engine values, in one place: states, codes, counts, times.

Every text goes through QCoreApplication.translate with a literal context and text, so
lupdate finds it; a missing translation leaves the English. The pages and models ask
here and never keep their own tables of words for engine states, so a run status or a
problem code reads the same wherever the window shows it. Over the usual 500 lines by
design: the words are in one place.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import NamedTuple

from PySide6.QtCore import QCoreApplication, QDate, QDateTime, QLocale, QTime

from transcribe_import.engine.api import (
    HistoryEntry,
    NotebookRevert,
    RevertBlock,
    RevertBlocker,
    TrashEntry,
)
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.findings import Severity as FindingSeverity
from transcribe_import.engine.planning.plan import Duplicate, Op, PlanItem
from transcribe_import.engine.planning.problems import (
    AmbiguityCode,
    ProblemCode,
    Resolution,
    Severity,
)
from transcribe_import.engine.runs.model import ItemState, RunStatus
from transcribe_import.gui.values import OutcomeRow, PageTally, PlanItemState, RunSummary

_t = QCoreApplication.translate

# -- counts ----------------------------------------------------------------------------------


def plural(n: int, one: str, many: str) -> str:
    """``one`` when n is 1, else ``many``: right in English with no translation loaded.

    Both texts come from tr() at the call site (so lupdate finds them); ``many`` is given
    n, so a translation's own plural forms still apply to it.
    """
    return one if n == 1 else many


def counts_sentence(counts: Mapping[str, int], pages: int) -> str:
    """What a run committed, skipped, failed and left undone, in one sentence."""
    c = counts["committed"]
    parts = [
        plural(
            c,
            _t("RunCounts", "1 notebook committed"),
            _t("RunCounts", "%Ln notebooks committed", "", c),
        )
        + " ("
        + plural(pages, _t("RunCounts", "1 page"), _t("RunCounts", "%Ln pages", "", pages))
        + ")"
    ]
    if counts["skipped"]:
        parts.append(_t("RunCounts", "%Ln skipped", "", counts["skipped"]))
    if counts["failed"]:
        parts.append(_t("RunCounts", "%Ln failed", "", counts["failed"]))
    if counts["cancelled_pending"]:
        parts.append(
            _t("RunCounts", "%Ln cancelled before they started", "", counts["cancelled_pending"])
        )
    if counts["pending"]:
        parts.append(_t("RunCounts", "%Ln not done yet", "", counts["pending"]))
    return ", ".join(parts) + "."


# Whole phrases per count, not "error(s)": they translate, and read, as phrases.
def errors_words(n: int) -> str:
    return _t("Severity", "1 error") if n == 1 else _t("Severity", "{n} errors").format(n=n)


def warnings_words(n: int) -> str:
    return _t("Severity", "1 warning") if n == 1 else _t("Severity", "{n} warnings").format(n=n)


# -- times -----------------------------------------------------------------------------------


def parse_timestamp(iso: str) -> datetime | None:
    """An on-disk timestamp (UTC, ISO 8601 with Z) as an aware datetime, or None if unreadable."""
    try:
        value = datetime.fromisoformat(iso)
    except ValueError:
        return None
    # The formats always write UTC; a value without an offset is read as UTC, not local time.
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def format_local_epoch(seconds: float) -> str:
    """A moment given in seconds since the epoch (a file's mtime), as ``format_local`` says it."""
    local = QDateTime.fromMSecsSinceEpoch(int(seconds * 1000))
    if QLocale().language() == QLocale.Language.C:
        return local.toString("yyyy-MM-dd HH:mm")
    return QLocale().toString(local, QLocale.FormatType.ShortFormat)


def format_local(iso: str, fmt: QLocale.FormatType = QLocale.FormatType.ShortFormat) -> str:
    """``iso`` in the user's time zone and locale; the raw text when it cannot be read."""
    value = parse_timestamp(iso)
    if value is None:
        return iso
    local = QDateTime.fromMSecsSinceEpoch(int(value.timestamp() * 1000))
    locale = QLocale()
    if locale.language() == QLocale.Language.C:
        # The C locale's short format is "2 12 2026 08:00", which reads as nothing; ISO is clear.
        return local.toString(
            "yyyy-MM-dd HH:mm" if fmt == QLocale.FormatType.ShortFormat else "yyyy-MM-dd HH:mm:ss t"
        )
    return locale.toString(local, fmt)


def format_wall_time(iso: str) -> str:
    """A capture time as the camera's clock showed it (EXIF has no zone: never converted)."""
    try:
        value = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    if value.tzinfo is not None:
        return format_local(iso)
    wall = QDateTime(
        QDate(value.year, value.month, value.day), QTime(value.hour, value.minute, value.second)
    )
    locale = QLocale()
    if locale.language() == QLocale.Language.C:
        return wall.toString("yyyy-MM-dd HH:mm:ss")
    # Photos of one notebook are often seconds apart: the seconds tell their order.
    time_format = locale.timeFormat(QLocale.FormatType.ShortFormat)
    if "s" not in time_format:
        time_format = time_format.replace("mm", "mm:ss", 1)
    return locale.toString(
        wall, f"{locale.dateFormat(QLocale.FormatType.ShortFormat)} {time_format}"
    )


def format_duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds < 60:
        return _t("Duration", "%n s", "", seconds)
    minutes = round(seconds / 60)
    if minutes < 60:
        return _t("Duration", "%n min", "", minutes)
    return _t("Duration", "{h} h {m} min").format(h=minutes // 60, m=minutes % 60)


# -- import runs -----------------------------------------------------------------------------


def run_status_words(status: RunStatus, pages_landed: int = 0) -> str:
    """A run's status in words; ``cancelled`` and ``cancelled_with_commits`` never read alike.

    ``pages_landed``: the run's pages in the corpus (items land in checkpoints, so a run
    cancelled with no notebook finished may still have added pages).
    """
    if pages_landed and status is RunStatus.CANCELLED:
        return _t("RunStatus", "Cancelled, some pages kept")
    return {
        RunStatus.COMPLETE: _t("RunStatus", "Complete"),
        RunStatus.PARTIAL: _t("RunStatus", "Partly imported"),
        RunStatus.FAILED: _t("RunStatus", "Failed"),
        RunStatus.CANCELLED: _t("RunStatus", "Cancelled, nothing committed"),
        RunStatus.CANCELLED_WITH_COMMITS: _t("RunStatus", "Cancelled after some commits"),
        RunStatus.REVERTED: _t("RunStatus", "Undone"),
        RunStatus.RUNNING: _t("RunStatus", "Running"),
        RunStatus.PENDING: _t("RunStatus", "Not started"),
    }[status]


def run_status_explanation(status: RunStatus, pages_landed: int = 0) -> str:
    """One sentence on what the status means for the corpus (``pages_landed``: as above)."""
    if pages_landed and status in (RunStatus.CANCELLED, RunStatus.FAILED):
        return _t(
            "RunStatus",
            "No notebook was finished, but %Ln pages landed before the end and stay in the "
            "corpus; committing the same plan again imports only the rest.",
            "",
            pages_landed,
        )
    return {
        RunStatus.COMPLETE: _t("RunStatus", "Every notebook was committed, or skipped as planned."),
        RunStatus.PARTIAL: _t(
            "RunStatus",
            "Some notebooks were committed and some were not; Retry What Did Not Land imports "
            "only the rest, and never doubles a page.",
        ),
        RunStatus.FAILED: _t(
            "RunStatus",
            "Nothing was committed; once the cause is fixed, Retry What Did Not Land tries again.",
        ),
        RunStatus.CANCELLED: _t(
            "RunStatus",
            "The import was cancelled before anything was committed: the corpus is unchanged.",
        ),
        RunStatus.CANCELLED_WITH_COMMITS: _t(
            "RunStatus",
            "The import was cancelled; the notebooks committed before the cancel stay in the "
            "corpus.",
        ),
        RunStatus.REVERTED: _t(
            "RunStatus",
            "The import was undone as a group: what it added is kept in the trash until you "
            "delete it for good (Trash…).",
        ),
        RunStatus.RUNNING: _t(
            "RunStatus", "The import is running; its outcomes are listed as they land."
        ),
        RunStatus.PENDING: _t("RunStatus", "The run has not started."),
    }[status]


def run_state_words(run: RunSummary) -> str:
    """A listed run's state: a live run, a paused one and a crashed one all differ."""
    if run.interrupted and run.paused:
        return _t("RunStatus", "Paused, resumable")
    if run.interrupted:
        return _t("RunStatus", "Interrupted, resumable")
    if not run.status.terminal:
        return _t("RunStatus", "Running now")
    return run_status_words(run.status, run.pages_landed)


def run_state_explanation(run: RunSummary) -> str:
    """What the listed run's state means: paused by a person, stopped by a crash, or live."""
    if run.interrupted and run.paused:
        return _t(
            "RunStatus",
            "It was paused at a safe point; resume it to finish with the same ids.",
        )
    if run.interrupted:
        return _t(
            "RunStatus",
            "It stopped before its end (the app was closed or the computer stopped); resume "
            "it to finish with the same ids.",
        )
    return run_status_explanation(run.status, run.pages_landed)


def progress_words(tally: PageTally) -> str:
    """The commit bar's words: pages landed of all, and what did not land, named."""
    if not tally.total:
        return _t("Progress", "No pages to import")
    parts = [
        _t("Progress", "{landed} of {total} pages landed").format(
            landed=tally.landed, total=tally.total
        )
        if tally.total != 1
        else _t("Progress", "{landed} of 1 page landed").format(landed=tally.landed)
    ]
    if tally.skipped:
        parts.append(_t("Progress", "%Ln already in the corpus", "", tally.skipped))
    if tally.failed:
        parts.append(_t("Progress", "%Ln failed", "", tally.failed))
    if tally.cancelled:
        parts.append(_t("Progress", "%Ln not imported (cancelled)", "", tally.cancelled))
    return ", ".join(parts)


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


def _question(
    context: str, title: str, question: str, details: str, do_it: str, keep: str
) -> Question:
    """A question's words, each translated in ``context`` (the view that asks it)."""
    return Question(*(_t(context, text) for text in (title, question, details, do_it, keep)))


def cancel_import_question() -> Question:
    """Before cancelling the import the commit view runs; says plainly what stays."""
    return _question(
        "CommitPage",
        "Cancel Import",
        "Cancel this import?",
        "Notebooks not started yet will not be imported, and the one being imported now "
        "is rolled back. Notebooks already committed stay in the corpus: cancelling never "
        "removes them.",
        "Cancel Import",
        "Keep Importing",
    )


def cancel_run_question() -> Question:
    """Before cancelling an interrupted run from the Runs view."""
    return _question(
        "RunsPage",
        "Cancel Run",
        "End this import without finishing it?",
        "Its notebooks not yet committed will not be imported. Notebooks already committed "
        "stay in the corpus: cancelling never removes them.",
        "Cancel Run",
        "Keep It Resumable",
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


# -- the views' buttons ---------------------------------------------------------------------
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
            "&Cancel Import…",
            "Cancel the import",
            "Stop importing; notebooks already committed stay in the corpus",
        ),
        _button("CommitPage", "&Open Corpus Folder", "Open the corpus folder"),
        _button("CommitPage", "&Show in Runs", "Show this run in the Runs view"),
        _button("CommitPage", "&New Import", "Start a new import"),
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


# -- the items of a run ----------------------------------------------------------------------


def outcome_words(row: OutcomeRow, live: bool = True) -> str:
    """The outcome in words; a pending item is "waiting" in a live run, "not done" in a record."""
    if row.state is ItemState.PENDING:
        if row.started:
            return _t("ItemState", "Importing…")
        return _t("ItemState", "Waiting") if live else _t("ItemState", "Not done yet")
    return {
        ItemState.COMMITTED: _t("ItemState", "Committed"),
        ItemState.SKIPPED: _t("ItemState", "Skipped"),
        ItemState.FAILED: _t("ItemState", "Failed"),
        ItemState.CANCELLED_PENDING: _t("ItemState", "Cancelled"),
    }[row.state]


def outcome_details(row: OutcomeRow) -> str:
    """Why an item ended as it did: the skip reason, the failure message, what landed."""
    o = row.outcome
    dups = len(o.skipped_sources)
    if o.state is ItemState.COMMITTED:
        where = (
            _t("ItemState", "into a new notebook")
            if row.op is Op.CREATE_NOTEBOOK
            else _t("ItemState", "into the existing notebook")
        )
        pages = plural(
            o.page_count,
            _t("ItemState", "1 page"),
            _t("ItemState", "%Ln pages", "", o.page_count),
        )
        text = f"{pages} {where}"
        if dups:
            text += "; " + plural(
                dups,
                _t("ItemState", "1 duplicate file skipped"),
                _t("ItemState", "%Ln duplicate files skipped", "", dups),
            )
        return text
    if o.state is ItemState.SKIPPED:
        if o.skip_classification == "all_duplicates":
            return _t("ItemState", "Every file is already in the corpus")
        return _t("ItemState", "Nothing to import: every file was left out")
    # An item lands in checkpoints: one stopped half way keeps the pages that landed.
    kept = (
        " "
        + _t("ItemState", "%Ln pages of it landed and stay in the notebook.", "", o.pages_landed)
        if o.pages_landed
        else ""
    )
    if o.state is ItemState.FAILED:
        return _failure_words(o.failure_message, o.failure_code) + kept
    if o.state is ItemState.CANCELLED_PENDING:
        if kept:
            return _t("ItemState", "Cancelled before it was finished.") + kept
        return _t("ItemState", "Not imported: the run was cancelled before it started")
    if o.pages_landed and not row.started:
        return _t(
            "ItemState",
            "%Ln pages landed so far; the rest follow when the run is resumed.",
            "",
            o.pages_landed,
        )
    if row.started and o.pages_landed:
        return _t("ItemState", "{landed} of {planned} pages landed so far").format(
            landed=o.pages_landed, planned=row.pages_planned
        )
    if row.started:
        return plural(
            row.pages_planned,
            _t("ItemState", "1 page being imported"),
            _t("ItemState", "%Ln pages being imported", "", row.pages_planned),
        )
    return ""


def _failure_words(message: str | None, code: str | None) -> str:
    """Why an item failed: the message every failure records, else its code's words."""
    if message:
        return message
    try:
        return error_code_words(ErrorCode(code or ""))
    except ValueError:  # a record written without either, or by a later version
        return _t("ItemState", "The run's record does not say why")


# -- the plan under review -------------------------------------------------------------------


def checking_words() -> str:
    """A notebook's badge while its page order is being checked (a moment, on a large plan)."""
    return _t("PlanItemState", "Checking…")


def plan_state_words(state: PlanItemState) -> str:
    return {
        PlanItemState.ERROR: _t("PlanItemState", "Error"),
        PlanItemState.NEEDS_ORDER_DECISION: _t("PlanItemState", "Needs a decision"),
        PlanItemState.DUPLICATE_SKIPS: _t("PlanItemState", "Duplicate skips"),
        PlanItemState.READY: _t("PlanItemState", "Ready"),
    }[state]


def not_imported_title(n: int) -> str:
    """The Not imported list's label (Alt+M: Alt+N is the notebooks list's)."""
    return plural(
        n,
        _t("PlanItemState", "Not i&mported: 1 file found that this plan leaves out"),
        _t("PlanItemState", "Not i&mported: %Ln files found that this plan leaves out", "", n),
    )


def not_imported_header_words() -> str:
    return _t(
        "PlanItemState",
        "Not imported: files found beside the notebook's pages that the plan leaves out",
    )


def not_imported_words(rels: Sequence[str]) -> str:
    """What the count of a notebook's files not imported stands for, naming a few."""
    n = len(rels)
    names = ", ".join(rel.rsplit("/", 1)[-1] for rel in rels[:3]) + (", …" if n > 3 else "")
    return (
        plural(
            n,
            _t("PlanItemState", "1 file found beside these pages is not imported: {names}."),
            _t(
                "PlanItemState",
                "%Ln files found beside these pages are not imported: {names}.",
                "",
                n,
            ),
        ).format(names=names)
        + " "
        + _t("PlanItemState", "The Not imported list says why.")
    )


# The corpus's notebook titles by id, as the window last listed them: an item that adds
# pages to a notebook is named by the notebook's title, which the plan does not hold.
_notebook_titles: dict[str, str] = {}


def set_notebook_titles(titles: Mapping[str, str]) -> None:
    """The titles ``op_words`` names target notebooks by (the window's latest listing)."""
    _notebook_titles.clear()
    _notebook_titles.update(titles)


def notebook_name(notebook_id: str) -> str:
    """A notebook of the corpus as a person knows it: its title, else its short id."""
    return _notebook_titles.get(notebook_id) or notebook_id[:8]


def op_words(item: PlanItem) -> str:
    """What the item does, short enough for a column."""
    if item.op is Op.CREATE_NOTEBOOK:
        return _t("PlanItemState", "New notebook")
    return _t("PlanItemState", "Into “{title}”").format(title=notebook_name(item.notebook_id))


def op_explanation(item: PlanItem) -> str:
    if item.op is Op.CREATE_NOTEBOOK:
        return _t("PlanItemState", "Creates a new notebook (id {id})").format(id=item.notebook_id)
    return _t("PlanItemState", "Adds pages to the notebook “{title}” (id {id})").format(
        title=notebook_name(item.notebook_id), id=item.notebook_id
    )


def severity_words(severity: Severity) -> str:
    """A validation problem's severity, as a screen reader says the icon."""
    return {
        Severity.ERROR: _t("Severity", "Error"),
        Severity.WARNING: _t("Severity", "Warning"),
    }[severity]


def problem_words(code: str) -> str:
    """A page's problem in a few words: ``code`` is a ProblemCode or an AmbiguityCode.

    Every member has words (tests/gui/test_wording.py): a raw code is never shown.
    """
    words: dict[str, str] = {
        ProblemCode.SOURCE_MISSING: _t("ProblemCode", "File missing"),
        ProblemCode.SOURCE_CHANGED: _t("ProblemCode", "Changed since the scan"),
        ProblemCode.SOURCE_UNREADABLE: _t("ProblemCode", "Cannot be read"),
        ProblemCode.MEDIA_MISMATCH: _t("ProblemCode", "Not what the scan found"),
        ProblemCode.NOTEBOOK_NOT_FOUND: _t("ProblemCode", "Notebook not in the corpus"),
        ProblemCode.ID_IN_USE: _t("ProblemCode", "Its id is already in use"),
        ProblemCode.NOTHING_TO_IMPORT: _t("ProblemCode", "Nothing to import"),
        ProblemCode.DUPLICATES_SKIPPED: _t("ProblemCode", "Duplicates skipped"),
        ProblemCode.TITLE_EXISTS: _t("ProblemCode", "A notebook has this title"),
        ProblemCode.UNCHANGED: _t("ProblemCode", "Already in the corpus, unchanged"),
        ProblemCode.NOTEBOOK_CONFLICT: _t("ProblemCode", "Its id holds another notebook"),
        ProblemCode.BAG_ORDER_CHANGED: _t("ProblemCode", "Order differs from the bag"),
        ProblemCode.RENDERED_AGAIN: _t("ProblemCode", "Preview made again"),
        ProblemCode.PLACEMENT_OUT_OF_RANGE: _t("ProblemCode", "Position past the end"),
        ProblemCode.PLACEMENT_PAGE_NOT_FOUND: _t("ProblemCode", "Follows a page not there"),
        ProblemCode.REPLACED_PAGE_NOT_FOUND: _t("ProblemCode", "Replaces a page not there"),
        ProblemCode.PAGE_REPLACED_TWICE: _t("ProblemCode", "Another file replaces that page"),
        ProblemCode.PLACEMENT_ON_NEW_NOTEBOOK: _t("ProblemCode", "A new notebook has no pages"),
        ProblemCode.REPLACEMENT_LEFT_OUT: _t("ProblemCode", "Left out: replaces nothing"),
        AmbiguityCode.DUPLICATE_NUMBER: _t("ProblemCode", "Page number used twice"),
        AmbiguityCode.MISSING_INDEX: _t("ProblemCode", "Next to missing pages"),
        AmbiguityCode.MIXED_MEDIA: _t("ProblemCode", "PDF among images"),
        AmbiguityCode.CONFLICTING_CUES: _t("ProblemCode", "Order in question"),
        AmbiguityCode.MISSING_LEAF: _t("ProblemCode", "A leaf or a side is missing"),
        AmbiguityCode.NO_ORDER_CUE: _t("ProblemCode", "No page number in the names"),
        AmbiguityCode.MIXED_SCHEMES: _t("ProblemCode", "Two numbering schemes"),
        AmbiguityCode.DUPLEX_PASSES: _t("ProblemCode", "Fronts, then backs"),
    }
    return words[code]


def duplicate_words(duplicate: Duplicate) -> str:
    return {
        Duplicate.IN_NOTEBOOK: _t("Duplicate", "Already in the notebook: skipped"),
        Duplicate.IN_CORPUS: _t("Duplicate", "Already in the corpus: skipped"),
        Duplicate.IN_PLAN: _t("Duplicate", "Earlier in this plan: skipped"),
    }[duplicate]


def resolution_words(resolution: str) -> str:
    """The button that settles a problem the engine's way named ``resolution`` (a Resolution).

    Every member has words (tests/gui/test_wording.py): a raw name is never shown.
    """
    words: dict[str, str] = {
        Resolution.ACCEPT: _t("Resolution", "Accept this order"),
        Resolution.CAPTURE_TIME: _t("Resolution", "Order by capture time"),
        Resolution.NAME: _t("Resolution", "Order by name"),
        Resolution.MTIME: _t("Resolution", "Order by modification time"),
        # The window offers no button for it: pages are dragged or moved instead.
        Resolution.SEQUENCE: _t("Resolution", "Put the pages in order yourself"),
        Resolution.EXCLUDE: _t("Resolution", "Leave the selected pages out"),
        Resolution.INTERLEAVE: _t("Resolution", "Interleave fronts and backs"),
        Resolution.INTERLEAVE_REVERSED: _t("Resolution", "Interleave, the backs' pass reversed"),
        Resolution.VERSO_FIRST: _t("Resolution", "The first page is a verso"),
        Resolution.VERSOS_BLANK: _t("Resolution", "The versos are blank (not scanned)"),
        Resolution.SKIP: _t("Resolution", "Leave this notebook out"),
        Resolution.AS_COPY: _t("Resolution", "Import it as a copy (new ids)"),
        Resolution.AT: _t("Resolution", "Choose another position"),
        Resolution.AFTER: _t("Resolution", "Choose another page to follow"),
        Resolution.AT_END: _t("Resolution", "Put the pages at the end"),
        Resolution.REPLACE: _t("Resolution", "Choose the page it replaces…"),
        Resolution.NO_REPLACE: _t("Resolution", "Add it as a new page instead"),
        Resolution.INCLUDE: _t("Resolution", "Include it"),
    }
    return words[resolution]


# -- late pages and rescans (an import into an existing notebook) ----------------------------


def placement_mode_words() -> list[str]:
    """The choices of where an item's new pages go, in the order PlacementBar lists them."""
    return [
        _t("Placement", "At the end"),
        _t("Placement", "At position"),
        _t("Placement", "After page"),
    ]


def placement_title(notebook_id: str) -> str:
    return _t("Placement", "Where the new pages go in “{title}”").format(
        title=notebook_name(notebook_id)
    )


def notebook_page_words(words: str) -> str:
    """A page of the notebook in a list to pick from (the engine's words: "page 7 (…)")."""
    return words[:1].upper() + words[1:]


def replaces_words(words: str) -> str:
    """A page of the plan that is a rescan: what it replaces (the engine's words for it)."""
    return _t("Placement", "Replaces {page}").format(page=words)


def replace_dialog_words() -> tuple[str, str, str]:
    """The replace dialog's title, its question, and its choice for "it replaces nothing"."""
    return (
        _t("Placement", "Replace a Notebook Page"),
        _t("Placement", "The selected page is a rescan of:"),
        _t("Placement", "No page: add it as a new page"),
    )


# Engine messages also serve the CLI and name its options: "(--sequence)", "(order --exclude
# ...)", "(`transcribe-import notebooks`)". The window has buttons for those instead.
_CLI_HINT = re.compile(r"\s*\([^()]*(?:--|`)[^()]*\)")


def plain_message(message: str, label: str | None = None) -> str:
    """An engine message for the window: without the CLI's option names or a leading label."""
    text = _CLI_HINT.sub("", message)
    if label and text.startswith(f"{label}: "):
        text = text[len(label) + 2 :]
    return text


def item_message(message: str, item: PlanItem | None, label: str | None = None) -> str:
    """An engine message about one item, for the window: its files by name, not by path.

    The CLI names files by their path as validate shows it, so a person can type it; in
    the window, next to a table of those files, the name alone reads better. A name two
    files of the item share keeps its path.
    """
    text = plain_message(message, label)
    if item is None:
        return text
    paths: list[tuple[str, str]] = []
    uses: Counter[str] = Counter()
    for s in item.sources:
        paths += [(s.provenance.path, s.name), (s.provenance.rel, s.name)]
        uses[s.name] += 1
    for u in item.unusable:
        rel = str(u.get("rel", ""))
        name = rel.rsplit("/", 1)[-1]
        paths += [(str(u.get("path", "")), name), (rel, name)]
        uses[name] += 1
    # Longest first, so an absolute path is not cut to "/tmp/" + a shortened rel.
    for path, name in sorted(set(paths), key=lambda p: -len(p[0])):
        if path and uses[name] == 1:
            text = text.replace(path, name)
    # "bomb.png cannot be used: bomb.png: ..." says the name once, where the window puts it.
    if label and text.startswith(f"{label}: "):
        text = text[len(label) + 2 :]
    return text


# -- the corpus ------------------------------------------------------------------------------


def finding_severity_words(severity: FindingSeverity) -> str:
    """A doctor finding's severity: what it asks of a person."""
    return {
        FindingSeverity.PROBLEM: _t("FindingSeverity", "Needs attention"),
        FindingSeverity.REPAIRED: _t("FindingSeverity", "Repaired"),
        FindingSeverity.INFO: _t("FindingSeverity", "Note"),
    }[severity]


def unreadable_notebook_words(problem: str) -> str:
    return _t("NotebookState", "This notebook cannot be read: {problem}").format(problem=problem)


# -- the window's questions ------------------------------------------------------------------


def stop_on_close_words() -> tuple[str, str, str]:
    """Closing during a commit: the title, the question and what each answer does."""
    return (
        _t("Quit", "Import in Progress"),
        _t("Quit", "An import is running. Stop it before closing?"),
        _t(
            "Quit",
            "Pause keeps the run resumable: open the window again and resume it from Runs. "
            "Cancel stops it for good. Either way, notebooks already committed stay in the "
            "corpus and the one in progress is finished or rolled back cleanly.",
        ),
    )


def stop_on_close_answers() -> tuple[str, str, str]:
    """The answers to ``stop_on_close_words``: pause, cancel, keep importing."""
    return (
        _t("Quit", "Pause and Close"),
        _t("Quit", "Cancel Import and Close"),
        _t("Quit", "Keep Importing"),
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


# -- errors ----------------------------------------------------------------------------------


def error_code_words(code: str) -> str:
    """An engine error code (an ErrorCode) in words, for a failure recorded without its message.

    Every member has words (tests/gui/test_wording.py): a raw code is never shown.
    """
    words: dict[str, str] = {
        ErrorCode.EMPTY_FILE: _t("ErrorCode", "The file is empty"),
        ErrorCode.UNSUPPORTED_MEDIA: _t("ErrorCode", "Not a supported page file"),
        ErrorCode.CORRUPT_IMAGE: _t("ErrorCode", "The image is damaged"),
        ErrorCode.DECOMPRESSION_BOMB: _t("ErrorCode", "The image is too large to open"),
        ErrorCode.ENCRYPTED_PDF: _t("ErrorCode", "The PDF is encrypted"),
        ErrorCode.CORRUPT_PDF: _t("ErrorCode", "The PDF is damaged"),
        ErrorCode.EMPTY_PDF: _t("ErrorCode", "The PDF has no pages"),
        ErrorCode.SOURCE_MISSING: _t("ErrorCode", "A file is missing"),
        ErrorCode.SOURCE_CHANGED: _t("ErrorCode", "A file changed since the scan"),
        ErrorCode.SOURCE_UNREADABLE: _t("ErrorCode", "A file cannot be read"),
        ErrorCode.MEDIA_MISMATCH: _t("ErrorCode", "A file is not what the scan found"),
        ErrorCode.DISK_FULL: _t("ErrorCode", "The disk is full"),
        ErrorCode.IO_ERROR: _t("ErrorCode", "Reading or writing failed"),
        ErrorCode.READ_ONLY: _t("ErrorCode", "The corpus cannot be written to"),
        ErrorCode.CORPUS_BUSY: _t("ErrorCode", "Another process is using the corpus"),
        ErrorCode.NOTEBOOK_BUSY: _t("ErrorCode", "Another process is using the notebook"),
        ErrorCode.RUN_BUSY: _t("ErrorCode", "Another process is running this import"),
        ErrorCode.CORPUS_INVALID: _t("ErrorCode", "The corpus cannot be read"),
        ErrorCode.NOTEBOOK_NOT_FOUND: _t("ErrorCode", "The notebook is not in the corpus"),
        ErrorCode.NOTEBOOK_INVALID: _t("ErrorCode", "The notebook cannot be read"),
        ErrorCode.ID_CONFLICT: _t("ErrorCode", "An id is already in use"),
        ErrorCode.INVALID_ID: _t("ErrorCode", "An id is not valid"),
        ErrorCode.JOURNAL_PENDING: _t("ErrorCode", "Unfinished work waits for recovery"),
        ErrorCode.PLACEMENT_OUT_OF_RANGE: _t("ErrorCode", "A position is past the notebook's end"),
        ErrorCode.PLACEMENT_PAGE_NOT_FOUND: _t("ErrorCode", "The page to follow is not there"),
        ErrorCode.REPLACED_PAGE_NOT_FOUND: _t("ErrorCode", "The page to replace is not there"),
        ErrorCode.RUN_NOT_FOUND: _t("ErrorCode", "The import run is not there"),
        ErrorCode.RUN_CORRUPT: _t("ErrorCode", "The import run cannot be read"),
        ErrorCode.RUN_TERMINAL: _t("ErrorCode", "The import run has ended"),
        ErrorCode.PLAN_FROZEN: _t("ErrorCode", "The plan belongs to a run and cannot change"),
        ErrorCode.REVERT_BLOCKED: _t("ErrorCode", "The import cannot be undone"),
        ErrorCode.REVERT_UNFINISHED: _t("ErrorCode", "An undo was interrupted"),
        ErrorCode.TRASH_NOT_FOUND: _t("ErrorCode", "The trash entry is not there"),
        ErrorCode.BAD_SETTING: _t("ErrorCode", "A setting is not valid"),
        ErrorCode.EXPORT_LOCKED: _t("ErrorCode", "Another export is writing into that folder"),
        ErrorCode.EXPORT_DESTINATION_NOT_EMPTY: _t("ErrorCode", "The export folder is not empty"),
        ErrorCode.EXPORT_DESTINATION_INVALID: _t("ErrorCode", "The export folder cannot be used"),
        ErrorCode.EXPORT_NOTHING: _t("ErrorCode", "There is no notebook to export"),
        ErrorCode.BAG_INVALID: _t("ErrorCode", "Not a bag this app can read"),
        ErrorCode.BAG_UNSAFE_PATH: _t("ErrorCode", "The bag points outside itself"),
        ErrorCode.BAG_HASH_MISMATCH: _t("ErrorCode", "A file in the bag was changed"),
        ErrorCode.BAG_MISSING_FILE: _t("ErrorCode", "A file of the bag is missing"),
        ErrorCode.BAG_UNLISTED_FILE: _t("ErrorCode", "The bag holds a file it does not list"),
    }
    return words[code]


def error_text(exc: BaseException, where: object = None) -> str:
    """One line a person can act on, for an exception a worker caught."""
    if isinstance(exc, TranscribeError):
        return str(exc)
    if isinstance(exc, OSError):
        return f"{exc.filename or where or ''}: {exc.strerror or exc}".lstrip(": ")
    return _t("ErrorCode", "unexpected error: {error}").format(error=repr(exc))


# -- undoing an import and the trash ---------------------------------------------------------


def history_words(entry: HistoryEntry) -> str:
    """One transition of a run's audit history: when, what, which attempt, who asked."""
    what = {
        "created": _t("RunHistory", "Created"),
        "started": _t("RunHistory", "Started"),
        "resumed": _t("RunHistory", "Resumed"),
        "paused": _t("RunHistory", "Paused"),
        "cancel_requested": _t("RunHistory", "Cancel requested"),
        "revert_requested": _t("RunHistory", "Undo requested"),
        "reverted": _t("RunHistory", "Undone as a group"),
        "revert_abandoned": _t("RunHistory", "Undo abandoned; the import was left as it was"),
    }.get(entry.event)
    if what is None:
        try:
            what = _t("RunHistory", "Ended: {status}").format(
                status=run_status_words(RunStatus(entry.event))
            )
        except ValueError:
            what = entry.event
    line = _t("RunHistory", "{when}  {what} (attempt {attempt})").format(
        when=format_local(entry.at), what=what, attempt=entry.attempt
    )
    if entry.requested_by:
        line += " " + _t("RunHistory", "— asked by {who}").format(who=entry.requested_by)
    if entry.detail.get("why"):
        line += ": " + str(entry.detail["why"])
    return line


def revert_notebook_words(nb: NotebookRevert) -> str:
    """What undoing takes out of one notebook."""
    pages = len(nb.page_ids)
    if nb.whole:
        return _t("Revert", "“{title}”: the whole notebook, %Ln page(s)", "", pages).format(
            title=nb.title
        )
    return _t(
        "Revert", "“{title}”: the %Ln page(s) this import added; its other pages stay", "", pages
    ).format(title=nb.title)


def revert_blocker_words(blocker: RevertBlocker) -> str:
    """Why a revert is refused, naming the notebook by its title and saying what to do.

    Causes whose sentence needs a file's path (a changed or unreadable file) are the
    engine's own message, which names it.
    """
    words: dict[RevertBlock, str | None] = {
        RevertBlock.LATER_PAGES: _t(
            "Revert",
            "{name}: a later import added pages to it. Undo that import first (it is above "
            "this one in Runs), or keep this one.",
        ),
        RevertBlock.NOTEBOOK_CHANGED: _t(
            "Revert",
            "{name}: it was renamed, or another tool added to it, since this import; undoing "
            "would lose that work.",
        ),
        RevertBlock.PAGE_CHANGED: _t(
            "Revert",
            "{name}: a page of this import was changed since (a label, a transcription, or "
            "other work); undoing would lose it.",
        ),
        RevertBlock.REORDERED: _t(
            "Revert",
            "{name}: the pages of this import were reordered since; undoing would lose that order.",
        ),
        RevertBlock.COVER_SET: _t(
            "Revert", "{name}: a page of this import was made the notebook's cover since."
        ),
        RevertBlock.NOT_ENDED: _t(
            "Revert", "The import has not ended: resume it or cancel it first, then undo it."
        ),
        RevertBlock.NOTHING_LANDED: _t(
            "Revert", "This import added nothing to the corpus, so there is nothing to undo."
        ),
        # The engine's sentence names the file (a changed file, an unreadable project.json).
        RevertBlock.FILE_CHANGED: None,
        RevertBlock.UNREADABLE: None,
    }
    said = words[blocker.code]
    if said is None:
        return blocker.message
    title = blocker.title or (notebook_name(blocker.notebook_id) if blocker.notebook_id else "")
    name = f"“{title}”" if title else ""
    return said.format(name=name)


def trash_entry_words(entry: TrashEntry) -> str:
    """One trash entry as the Trash list shows it: when, which notebooks, who, how much."""
    shown = ", ".join(f"“{t}”" for t in entry.titles[:3])
    if len(entry.titles) > 3:
        shown += " " + _t("Trash", "and %n more", "", len(entry.titles) - 3)
    return _t(
        "Trash", "{when}: {notebooks}, %Ln page(s), {size} — undone by {who}", "", entry.pages
    ).format(
        when=format_local(entry.created_at),
        notebooks=shown,
        who=entry.requested_by,
        size=QLocale().formattedDataSize(entry.bytes),
    )
