"""Import runs in words: statuses, progress, each item's outcome, a run's history."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from transcribe_import.engine.api import HistoryEntry, RunCounts, RunState
from transcribe_import.engine.base.errors import ErrorCode
from transcribe_import.engine.media.kinds import Turn
from transcribe_import.engine.planning.plan import Op
from transcribe_import.engine.runs.model import HistoryEvent, ItemState, RunStatus, SkipReason
from transcribe_import.gui.values import OutcomeRow, PageTally, RunSummary
from transcribe_import.gui.wording.errors import error_code_words
from transcribe_import.gui.wording.formatting import format_duration, format_local, plural

_t = QCoreApplication.translate


def counts_sentence(run: RunSummary) -> str:
    """What a run left in the corpus, in one sentence: the engine's counts (RunCounts), and
    the items it skipped as planned."""
    n = run.counts
    c = n.notebooks_complete
    parts = [
        plural(
            c,
            _t("RunCounts", "1 notebook committed"),
            _t("RunCounts", "%Ln notebooks committed", "", c),
        )
    ]
    if n.notebooks_incomplete:
        incomplete = n.notebooks_incomplete
        parts.append(
            plural(
                incomplete,
                _t("RunCounts", "1 incomplete (some of its pages landed)"),
                _t("RunCounts", "%Ln incomplete (some of their pages landed)", "", incomplete),
            )
        )
    if run.skipped:
        parts.append(_t("RunCounts", "%Ln skipped", "", run.skipped))
    if n.items_failed:
        parts.append(_t("RunCounts", "%Ln failed", "", n.items_failed))
    if n.items_not_started and run.state is RunState.ENDED:
        parts.append(
            plural(
                n.items_not_started,
                _t("RunCounts", "1 cancelled before it started"),
                _t("RunCounts", "%Ln cancelled before they started", "", n.items_not_started),
            )
        )
    elif n.items_not_started:
        parts.append(_t("RunCounts", "%Ln not done yet", "", n.items_not_started))
    # The pages are the run's in all, the incomplete notebooks' included: said apart from
    # the notebooks committed, so they never read as those notebooks' pages alone.
    return ", ".join(parts) + "; " + pages_landed_words(n) + "."


def pages_landed_words(n: RunCounts) -> str:
    """The pages a run landed and, of them, those a later rescan replaced since (the CLI's
    words say the same, ``cli/runs.pages_landed_words``)."""
    landed = plural(
        n.pages_landed,
        _t("RunCounts", "1 page landed"),
        _t("RunCounts", "%Ln pages landed", "", n.pages_landed),
    )
    if not n.pages_replaced:
        return landed
    return (
        landed
        + " "
        + _t(
            "RunCounts",
            "(%Ln of them replaced since by rescans or turns, kept in the history)",
            "",
            n.pages_replaced,
        )
    )


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
        return plural(
            pages_landed,
            _t(
                "RunStatus",
                "No notebook was finished, but 1 page landed before the end and stays in the "
                "corpus; committing the same plan again imports only the rest.",
            ),
            _t(
                "RunStatus",
                "No notebook was finished, but %Ln pages landed before the end and stay in the "
                "corpus; committing the same plan again imports only the rest.",
                "",
                pages_landed,
            ),
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
            "The import was cancelled; every page that landed before the cancel stays in the "
            "corpus, a notebook stopped part way included. Retry What Did Not Land imports the "
            "rest.",
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
    """A listed run's state (RunState): a live run, a paused one and a crashed one all differ."""
    if run.state is RunState.ENDED:
        if run.partly_undone:
            return _t("RunStatus", "Partly undone")
        return run_status_words(run.status, run.pages_landed)
    return {
        RunState.PAUSED: _t("RunStatus", "Paused, resumable"),
        RunState.INTERRUPTED: _t("RunStatus", "Interrupted, resumable"),
        RunState.LIVE: _t("RunStatus", "Running now"),
    }[run.state]


def run_state_explanation(run: RunSummary) -> str:
    """What the listed run's state means: paused by a person, stopped by a crash, or live."""
    if run.state is RunState.PAUSED:
        return _t(
            "RunStatus",
            "It was paused at a safe point; resume it to finish with the same ids.",
        )
    if run.state is RunState.INTERRUPTED:
        return _t(
            "RunStatus",
            "It stopped before its end (the app was closed or the computer stopped); resume "
            "it to finish with the same ids.",
        )
    if run.partly_undone:
        return _t(
            "RunStatus",
            "Some of its notebooks were undone (they are in the trash); those that had "
            "changed since stayed. Undo This Import takes the rest once nothing blocks them.",
        )
    if run.status is RunStatus.COMPLETE and not run.skipped:
        return _t("RunStatus", "Every notebook was committed.")  # none skipped: say only that
    return run_status_explanation(run.status, run.pages_landed)


def waiting_for_corpus_words() -> str:
    """A commit waiting for another import that decides duplicates across the corpus."""
    return _t(
        "Progress",
        "Waiting for another import into this corpus to finish: duplicates across the corpus "
        "are decided one import at a time. Cancel stops this one.",
    )


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
        # Pages of a notebook that failed: most did not fail themselves (one file did).
        parts.append(
            plural(
                tally.failed,
                _t("Progress", "1 not landed (its notebook failed)"),
                _t("Progress", "%Ln not landed (their notebook failed)", "", tally.failed),
            )
        )
    if tally.cancelled:
        parts.append(_t("Progress", "%Ln not imported (cancelled)", "", tally.cancelled))
    return ", ".join(parts)


def elapsed_words(pages: int, seconds: float) -> str:
    """An attempt's pages, its time and its speed, the speed worked out from the time as
    shown: under a minute the time is rounded (to a tenth under 10 s), and "12 pages in 1 s
    (14.1 pages/s)" would not add up."""
    shown = max(0.1, round(seconds, 1)) if seconds < 9.95 else float(round(seconds))
    time = (
        _t("Duration", "{seconds} s").format(seconds=f"{shown:.1f}")
        if shown < 10
        else format_duration(seconds)
    )
    if not pages:  # an attempt with nothing left to land (or none that did) has no speed
        return _t("Progress", "No page landed (it took {time}).").format(time=time)
    rate = pages / (shown if shown < 60 else seconds)
    return plural(
        pages,
        _t("Progress", "1 page in {time} ({rate} pages/s)."),
        _t("Progress", "%Ln pages in {time} ({rate} pages/s).", "", pages),
    ).format(time=time, rate=f"{rate:.1f}")


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


def _added_and_replaced_words(added: int, replaced: int) -> str:
    """A committed item with rescans: the pages it added and those it replaced, apart."""
    added_words = plural(
        added,
        _t("ItemState", "1 page added to the existing notebook"),
        _t("ItemState", "%Ln pages added to the existing notebook", "", added),
    )
    if not added:
        return plural(
            replaced,
            _t("ItemState", "1 page of the existing notebook replaced by a rescan"),
            _t("ItemState", "%Ln pages of the existing notebook replaced by rescans", "", replaced),
        )
    replaced_words = plural(
        replaced,
        _t("ItemState", "1 page of it replaced by a rescan"),
        _t("ItemState", "%Ln pages of it replaced by rescans", "", replaced),
    )
    return f"{added_words}, {replaced_words}"


def _turned_words(pages: int, turns: tuple[int, ...]) -> str:
    """A committed turn of pages in the corpus: how many, and which way they were turned."""
    alike = {Turn(t) for t in turns}
    turn = alike.pop() if len(alike) == 1 else None
    if turn is Turn.NONE:
        return plural(
            pages,
            _t("ItemState", "1 page of the existing notebook turned back upright"),
            _t("ItemState", "%Ln pages of the existing notebook turned back upright", "", pages),
        )
    return (
        plural(
            pages,
            _t("ItemState", "1 page of the existing notebook turned"),
            _t("ItemState", "%Ln pages of the existing notebook turned", "", pages),
        )
        + " "
        + (turn.words if turn is not None else _t("ItemState", "each its own way"))
    )


def outcome_details(row: OutcomeRow) -> str:
    """Why an item ended as it did: the skip reason, the failure message, what landed."""
    o = row.outcome
    dups = len(o.skipped_sources)
    if o.state is ItemState.COMMITTED:
        # A retry finds the pages an earlier run landed in the notebook it began: the
        # notebook was created then, and this run added to it.
        where = (
            _t("ItemState", "into a new notebook")
            if row.op is Op.CREATE_NOTEBOOK and not o.pages_already_in
            else _t("ItemState", "into the existing notebook")
        )
        pages = plural(
            o.page_count,
            _t("ItemState", "1 page"),
            _t("ItemState", "%Ln pages", "", o.page_count),
        )
        text = f"{pages} {where}"
        replacing = row.pages_replacing
        if row.turns and o.page_count:
            text = _turned_words(o.page_count, row.turns)
        elif replacing and o.page_count:
            text = _added_and_replaced_words(o.page_count - replacing, replacing)
        if o.pages_already_in:
            text += "; " + _already_in_words(o.pages_already_in)
        if dups:
            text += "; " + plural(
                dups,
                _t("ItemState", "1 duplicate file skipped"),
                _t("ItemState", "%Ln duplicate files skipped", "", dups),
            )
        return text
    if o.state is ItemState.SKIPPED:
        if o.skip_classification is SkipReason.ALL_DUPLICATES:
            return _t("ItemState", "Every file is already in the corpus")
        return _t("ItemState", "Nothing to import: every file was left out")
    # An item lands in checkpoints: one stopped half way keeps the pages that landed.
    kept = (
        " "
        + plural(
            o.pages_landed,
            _t("ItemState", "1 page of it landed and stays in the notebook."),
            _t("ItemState", "%Ln pages of it landed and stay in the notebook.", "", o.pages_landed),
        )
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
        return plural(
            o.pages_landed,
            _t("ItemState", "1 page landed so far; the rest follow when the run is resumed."),
            _t(
                "ItemState",
                "%Ln pages landed so far; the rest follow when the run is resumed.",
                "",
                o.pages_landed,
            ),
        )
    # A retry's item: this run's pages are counted apart from those an earlier run landed.
    already = "; " + _already_in_words(o.pages_already_in) if o.pages_already_in else ""
    if row.started and row.pages_staged:
        # Staged: copied and rendered in the checkpoint in flight, which lands them together.
        return (
            _t(
                "ItemState", "{landed} of {planned} pages landed so far, {staged} more being saved"
            ).format(landed=o.pages_landed, planned=row.pages_planned, staged=row.pages_staged)
            + already
        )
    if row.started and o.pages_landed:
        return (
            _t("ItemState", "{landed} of {planned} pages landed so far").format(
                landed=o.pages_landed, planned=row.pages_planned
            )
            + already
        )
    if row.started:
        being = max(0, row.pages_planned - o.pages_already_in)
        return (
            plural(
                being,
                _t("ItemState", "1 page being imported"),
                _t("ItemState", "%Ln pages being imported", "", being),
            )
            + already
        )
    return _already_in_words(o.pages_already_in) if o.pages_already_in else ""


def _already_in_words(pages: int) -> str:
    """The pages of an item an earlier run landed, which its notebook holds already."""
    return plural(
        pages,
        _t("ItemState", "1 page was in from an earlier run"),
        _t("ItemState", "%Ln pages were in from an earlier run", "", pages),
    )


def _failure_words(message: str | None, code: str | None) -> str:
    """Why an item failed: the message every failure records, else its code's words."""
    if message:
        return message
    try:
        return error_code_words(ErrorCode(code or ""))
    except ValueError:  # a record written without either, or by a later version
        return _t("ItemState", "The run's record does not say why")


def history_event_words(event: HistoryEvent) -> str:
    """What one kind of transition in a run's history was ({event}: the entry as recorded)."""
    return {
        HistoryEvent.CREATED: _t("RunHistory", "Created"),
        HistoryEvent.STARTED: _t("RunHistory", "Started"),
        HistoryEvent.RESUMED: _t("RunHistory", "Resumed"),
        HistoryEvent.PAUSED: _t("RunHistory", "Paused"),
        HistoryEvent.CANCEL_REQUESTED: _t("RunHistory", "Cancel requested"),
        HistoryEvent.REVERT_REQUESTED: _t("RunHistory", "Undo requested"),
        HistoryEvent.REVERTED: _t("RunHistory", "Undone as a group"),
        HistoryEvent.PARTLY_REVERTED: _t(
            "RunHistory", "Partly undone; the notebooks blocked from undoing were left in place"
        ),
        HistoryEvent.REVERT_ABANDONED: _t(
            "RunHistory", "Undo abandoned; the import was left as it was"
        ),
        HistoryEvent.RESTORE_REQUESTED: _t("RunHistory", "Putting back from the trash requested"),
        HistoryEvent.RESTORED: _t("RunHistory", "Put back from the trash"),
        HistoryEvent.RETRIED: _t("RunHistory", "Retried: a new run imports what did not land"),
        HistoryEvent.RETRY_REFUSED: _t("RunHistory", "Retry refused; no new run began"),
        HistoryEvent.ENDED: _t("RunHistory", "Ended"),
        HistoryEvent.UNKNOWN: _t(
            "RunHistory", "Recorded by a newer version of the app (“{event}”)"
        ),
    }[event]


def history_words(entry: HistoryEntry, run: RunSummary | None = None) -> str:
    """One transition of a run's audit history: when, what, which attempt, who asked.

    ``run``: the run as it stands, so that its end reads as its row does (the pages it
    landed, when it still stands as it ended).
    """
    if entry.event is HistoryEvent.ENDED and entry.status is not None:
        landed = run.pages_landed if run is not None and run.status is entry.status else 0
        status = run_status_words(entry.status, landed)
        what = _t("RunHistory", "Ended: {status}").format(status=status)
    else:
        what = history_event_words(entry.event).format(event=entry.recorded)
    # Attempts are counted from 1 (the creation comes before the first): a person reads
    # only that a step came after a resume, never an attempt number (#34).
    line = _t("RunHistory", "{when}  {what}").format(when=format_local(entry.at), what=what)
    resumes = entry.attempt - 1
    if resumes >= 1 and entry.event is not HistoryEvent.RESUMED:  # a resume says so itself
        line += " " + plural(
            resumes,
            _t("RunHistory", "(after it was resumed)"),
            _t("RunHistory", "(after it was resumed %Ln times)", "", resumes),
        )
    if entry.requested_by:
        line += " " + _t("RunHistory", "— asked by {who}").format(who=entry.requested_by)
    if entry.detail.get("retry_run_id"):
        line += " " + _t("RunHistory", "(the new import is listed in Runs)")
    if entry.detail.get("why"):
        line += ": " + str(entry.detail["why"])
    return line
