"""The corpus in words: its notebooks' names, doctor's findings, undoing an import, the trash."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QCoreApplication, QLocale

from transcribe_import.engine.api import (
    NotebookRevert,
    NotebookSummary,
    RestoreResult,
    RevertBlock,
    RevertBlocker,
    TrashEntry,
    TrashUnfinished,
    UnfinishedImport,
    short_id,
)
from transcribe_import.engine.base.findings import Finding, FindingCode, Remedy
from transcribe_import.engine.base.findings import Severity as FindingSeverity
from transcribe_import.gui.wording.buttons import ButtonWords
from transcribe_import.gui.wording.formatting import format_local, plural

_t = QCoreApplication.translate


# The corpus's notebook titles by id, as the window last listed them: an item that adds
# pages to a notebook is named by the notebook's title, which the plan does not hold.
_notebook_titles: dict[str, str] = {}


def set_notebook_titles(titles: Mapping[str, str]) -> None:
    """The titles ``op_words`` names target notebooks by (the window's latest listing)."""
    _notebook_titles.clear()
    _notebook_titles.update(titles)


def notebook_name(notebook_id: str) -> str:
    """A notebook of the corpus as a person knows it: its title, else its short id."""
    return _notebook_titles.get(notebook_id) or short_id(notebook_id)


def finding_severity_words(severity: FindingSeverity) -> str:
    """A doctor finding's severity: what it asks of a person."""
    return {
        FindingSeverity.PROBLEM: _t("FindingSeverity", "Needs attention"),
        FindingSeverity.REPAIRED: _t("FindingSeverity", "Repaired"),
        FindingSeverity.INFO: _t("FindingSeverity", "Note"),
    }[severity]


def remedy_words(remedy: Remedy) -> str:
    """What finishes or clears a finding, as the window offers it: its own buttons, never a
    command line (the CLI's words for the same remedy are in the finding's message)."""
    return {
        Remedy.FINISH_IMPORT: _t(
            "FindingRemedy", "To finish it, select the notebook in Corpus and choose Finish Import."
        ),
        Remedy.UNDO_IMPORT: _t(
            "FindingRemedy", "Undo This Import shows what undoing it would take out, then does it."
        ),
        Remedy.RESUME_RUN: _t(
            "FindingRemedy", "To finish it, select it in Runs and choose Resume."
        ),
        Remedy.UNDO_RUN: _t(
            "FindingRemedy",
            "To undo that import, select it in Runs and choose Undo This Import…: it shows "
            "what undoing would take out first.",
        ),
        Remedy.CANCEL_RUN: _t(
            "FindingRemedy",
            "To end it, select it in Runs and choose Cancel Run; the pages it landed stay.",
        ),
        Remedy.OPEN_PLAN: _t(
            "FindingRemedy",
            "To import what did not land, open that plan with File › Open Plan… and commit it: "
            "what landed is recognised and not imported twice. To give it up instead, move the "
            "plan file out of the corpus folder.",
        ),
        Remedy.REPAIR_FROM_COPY: _t(
            "FindingRemedy",
            "To repair it, choose Repair… beside it in the Fixity panel below, and a bag, "
            "another corpus's data folder or a backup that holds a copy.",
        ),
    }[remedy]


def finding_words(finding: Finding) -> str:
    """A doctor finding as the window says it: a notebook's file named by its notebook's title
    and its pages' numbers (``file_finding_words``); with remedies, its situation and the
    window's own action for each; else doctor's message as it is."""
    said = file_finding_words(finding)
    if said is not None:
        return said
    if not finding.remedies:
        if finding.command is None:
            return finding.situation or finding.message
        # No button does it: the command it names is typed in a terminal, said so.
        return (
            finding.message
            + " "
            + _t(
                "FindingRemedy",
                "(A command in `quotes` is typed in a terminal; the window has no button for it.)",
            )
        )
    return " ".join([finding.situation, *(remedy_words(r) for r in finding.remedies)])


def file_finding_words(finding: Finding) -> str | None:
    """A finding about one file of a notebook, in the notebook's title and the numbers of the
    pages that show the file (never its id or the stored file's name, which the finding's
    tooltip keeps); None for a finding of another kind."""
    if finding.notebook_id is None or finding.code not in _FILE_FINDINGS:
        return None
    title = notebook_name(finding.notebook_id)
    if finding.pages:
        where = _t("FindingFile", "The file of {pages} of “{title}”").format(
            pages=page_numbers_words(finding.pages), title=title
        )
    else:  # a file no page shows now: a replaced page's, or one its record does not list
        where = _t("FindingFile", "A file kept in “{title}”").format(title=title)
    if finding.code is FindingCode.FILE_RESTORED:
        return _t(
            "FindingFile",
            "{where} was missing; doctor put it back (the same bytes: its checksum matches "
            "the notebook's record).",
        ).format(where=where)
    if finding.code is FindingCode.FILE_HASH_MISMATCH:
        return _t(
            "FindingFile",
            "{where} does not match the notebook's record: it was changed or damaged. "
            "Restore it from a backup.",
        ).format(where=where)
    if finding.code is FindingCode.ORPHAN_FILE:
        return _t(
            "FindingFile",
            "“{title}” holds a file its record does not list (left by an interrupted "
            "change); it is kept. Delete it if you do not need it: its place is in this "
            "row's tooltip.",
        ).format(title=title)
    return _t(
        "FindingFile",
        "{where} is missing from the corpus. Doctor brings it back from the file it was "
        "imported from, or a backup, with `{command}` (typed in a terminal; the window has "
        "no button for it).",
    ).format(where=where, command=finding.command)


# The findings about one file of a notebook, worded by ``file_finding_words``.
_FILE_FINDINGS = frozenset(
    {
        FindingCode.FILE_MISSING,
        FindingCode.FILE_RESTORED,
        FindingCode.FILE_HASH_MISMATCH,
        FindingCode.ORPHAN_FILE,
    }
)


def unreadable_notebook_words(problem: str) -> str:
    return _t("NotebookState", "This notebook cannot be read: {problem}").format(problem=problem)


def notebook_state_words(nb: NotebookSummary) -> str:
    """The Corpus view's State column: complete, or incomplete with the pages that landed."""
    u = nb.unfinished
    if u is None:
        return _t("NotebookState", "Complete")
    if u.pages_expected is None:
        return plural(
            u.pages_landed,
            _t("NotebookState", "Incomplete: 1 page landed"),
            _t("NotebookState", "Incomplete: %Ln pages landed", "", u.pages_landed),
        )
    return plural(
        u.pages_expected,
        _t("NotebookState", "Incomplete: {landed} of 1 page"),
        _t("NotebookState", "Incomplete: {landed} of %Ln pages", "", u.pages_expected),
    ).format(landed=QLocale().toString(u.pages_landed))


def unfinished_import_words(title: str, u: UnfinishedImport) -> str:
    """What an incomplete notebook holds, and what each of its two actions does."""
    landed = plural(
        u.pages_landed,
        _t("NotebookState", "1 page"),
        _t("NotebookState", "%Ln pages", "", u.pages_landed),
    )
    if u.pages_expected is not None:
        landed = plural(
            u.pages_expected,
            _t("NotebookState", "{landed} of its 1 page"),
            _t("NotebookState", "{landed} of its %Ln pages", "", u.pages_expected),
        ).format(landed=QLocale().toString(u.pages_landed))
    if u.running:
        return _t(
            "NotebookState",
            "“{title}” is being imported by another process: {landed} have landed so far.",
        ).format(title=title, landed=landed)
    how = (
        _t("NotebookState", "Finish Import retries it: only what did not land is imported.")
        if u.run_ended
        else _t("NotebookState", "Finish Import resumes it where it stopped.")
    )
    return _t(
        "NotebookState",
        "“{title}” is incomplete: {landed} landed before its import stopped. {how} Undo This "
        "Import shows what undoing that import would take out of the corpus.",
    ).format(title=title, landed=landed, how=how)


def incomplete_buttons() -> tuple[ButtonWords, ButtonWords]:
    """The Corpus view's two actions on an incomplete notebook: finish its import, or undo it."""
    return (
        ButtonWords(
            _t("NotebookState", "F&inish Import"),
            _t("NotebookState", "Finish the import of the selected notebook"),
            _t(
                "NotebookState",
                "Resume or retry the import that stopped: only what did not land is imported",
            ),
        ),
        ButtonWords(
            _t("NotebookState", "&Undo This Import…"),
            _t("NotebookState", "Undo the import of the selected notebook"),
            _t(
                "NotebookState",
                "See what undoing the import would take out of the corpus, then decide",
            ),
        ),
    )


def revert_notebook_words(nb: NotebookRevert, *, turn: bool = False) -> str:
    """What undoing takes out of one notebook (``turn``: the undo of a turn of its pages)."""
    pages = len(nb.page_ids)
    if turn:
        return plural(
            pages,
            _t("Revert", "“{title}”: the 1 page this turn made (the page as it was comes back)"),
            _t(
                "Revert",
                "“{title}”: the %Ln pages this turn made (the pages as they were come back)",
                "",
                pages,
            ),
        ).format(title=nb.title)
    if nb.whole:
        return plural(
            pages,
            _t("Revert", "“{title}”: the whole notebook, 1 page"),
            _t("Revert", "“{title}”: the whole notebook, %Ln pages", "", pages),
        ).format(title=nb.title)
    if nb.replacing:
        # Rescans apart from pages added: undoing a rescan brings back the page it replaced.
        rescans = plural(
            nb.replacing,
            _t("Revert", "1 rescan (the page it replaced comes back)"),
            _t("Revert", "%Ln rescans (the pages they replaced come back)", "", nb.replacing),
        )
        if not nb.added:
            return _t("Revert", "“{title}”: this import's {rescans}; its other pages stay").format(
                title=nb.title, rescans=rescans
            )
        added = plural(
            nb.added,
            _t("Revert", "the 1 page this import added"),
            _t("Revert", "the %Ln pages this import added", "", nb.added),
        )
        return _t("Revert", "“{title}”: {added}, and its {rescans}; its other pages stay").format(
            title=nb.title, added=added, rescans=rescans
        )
    return plural(
        pages,
        _t("Revert", "“{title}”: the 1 page this import added; its other pages stay"),
        _t("Revert", "“{title}”: the %Ln pages this import added; its other pages stay", "", pages),
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
        RevertBlock.REPLACED: _t(
            "Revert",
            "{name}: pages of this import were replaced since, by a later import's rescans or "
            "by a turn. Undo that first (it is above this one in Runs), or keep this one.",
        ),
        RevertBlock.RENAMED: _t(
            "Revert", "{name}: it was renamed since this import; undoing would lose the new name."
        ),
        RevertBlock.NOTEBOOK_CHANGED: _t(
            "Revert",
            "{name}: another tool added its work to the notebook since this import; undoing "
            "would lose that work.",
        ),
        RevertBlock.PAGE_CHANGED: _t(
            "Revert",
            "{name}: {pages} of this import changed since (a label, a transcription, or "
            "other work); undoing would lose that work.",
        ),
        RevertBlock.REORDERED: _t(
            "Revert",
            "{name}: the pages of this import were reordered since; undoing would lose that order.",
        ),
        RevertBlock.COVER_SET: _t(
            "Revert", "{name}: {pages} of this import was made the notebook's cover since."
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
    return said.format(name=name, pages=page_numbers_words(blocker.pages))


def page_numbers_words(numbers: tuple[int, ...]) -> str:
    """Pages by their numbers in the notebook: "page 3", "pages 3 and 7", "pages 2, 5 and
    9" (a page whose number could not be read: "a page")."""
    if not numbers:
        return _t("Revert", "a page")
    if len(numbers) == 1:
        return _t("Revert", "page {n}").format(n=numbers[0])
    head = ", ".join(str(n) for n in numbers[:-1])
    return _t("Revert", "pages {head} and {last}").format(head=head, last=numbers[-1])


def trash_entry_words(entry: TrashEntry) -> str:
    """One trash entry as the Trash list shows it: when, which notebooks, who, how much; and
    for one something stopped half way on, what and what finishes it."""
    shown = ", ".join(f"“{t}”" for t in entry.titles[:3])
    if len(entry.titles) > 3:
        shown += " " + _t("Trash", "and %n more", "", len(entry.titles) - 3)
    said = plural(
        entry.pages,
        _t("Trash", "{when}: {notebooks}, 1 page, {size} — undone by {who}"),
        _t("Trash", "{when}: {notebooks}, %Ln pages, {size} — undone by {who}", "", entry.pages),
    ).format(
        when=format_local(entry.created_at),
        notebooks=shown,
        who=entry.requested_by,
        size=QLocale().formattedDataSize(entry.bytes),
    )
    if entry.unfinished is None:
        return said
    return f"{said}\n{stopped_half_way_words(entry.unfinished)}"


def stopped_half_way_words(unfinished: TrashUnfinished) -> str:
    """What stopped half way on a trash entry, and the button that finishes it."""
    return {
        TrashUnfinished.UNDO: _t(
            "Trash",
            "Stopped half way while being undone: Check Again in the Corpus view finishes the "
            "undo, or puts the import back as it was.",
        ),
        TrashUnfinished.RESTORE: _t(
            "Trash", "Stopped half way while being put back: Put Back finishes it."
        ),
        TrashUnfinished.PURGE: _t(
            "Trash", "Stopped half way while being deleted: Delete for Good finishes it."
        ),
    }[unfinished]


def restored_words(result: RestoreResult) -> str:
    """What Put Back did, from the engine's answer: the notebooks, their pages, the status."""
    shown = ", ".join(f"“{t}”" for t in result.titles[:3])
    if len(result.titles) > 3:
        shown += " " + _t("Trash", "and %n more", "", len(result.titles) - 3)
    pages = (
        _t("Trash", "1 page")
        if result.pages == 1
        else _t("Trash", "{n} pages").format(n=result.pages)
    )
    return _t(
        "Trash", "Put back in the corpus: {notebooks}, {pages}. The import is listed in Runs again."
    ).format(notebooks=shown, pages=pages)
