"""The plan under review in words: badges, problems, resolutions, where late pages go, messages."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication

from transcribe_import.engine.planning.plan import Duplicate, Op, PlanItem
from transcribe_import.engine.planning.problems import (
    AmbiguityCode,
    ProblemCode,
    ProblemSeverity,
    Resolution,
)
from transcribe_import.gui.values import PlanItemState
from transcribe_import.gui.wording.corpus import notebook_name
from transcribe_import.gui.wording.formatting import plural

_t = QCoreApplication.translate


def checking_words() -> str:
    """A notebook's badge while its page order is being checked (a moment, on a large plan)."""
    return _t("PlanItemState", "Checking…")


def looking_badge_words() -> str:
    """A notebook's badge, ready but for the look pass: its rescans are not all asked yet."""
    return _t("PlanItemState", "Looking for rescans…")


def plan_state_words(state: PlanItemState) -> str:
    return {
        PlanItemState.ERROR: _t("PlanItemState", "Error"),
        PlanItemState.NEEDS_ORDER_DECISION: _t("PlanItemState", "Needs a decision"),
        PlanItemState.PARTLY_IMPORTED: _t("PlanItemState", "Partly imported"),
        PlanItemState.LOOKS_LIKE: _t("PlanItemState", "A rescan?"),
        PlanItemState.NOTHING_TO_IMPORT: _t("PlanItemState", "Nothing to import"),
        PlanItemState.ALREADY_IMPORTED: _t("PlanItemState", "Already imported"),
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


def op_words(item: PlanItem) -> str:
    """What the item does, short enough for a column."""
    if item.op is Op.CREATE_NOTEBOOK:
        return _t("PlanItemState", "New notebook")
    return _t("PlanItemState", "Into “{title}”").format(title=notebook_name(item.notebook_id))


def op_explanation(item: PlanItem) -> str:
    # Named by its title, never its id (#34): the id is the Corpus view's Id column's.
    if item.op is Op.CREATE_NOTEBOOK:
        return _t("PlanItemState", "Creates a new notebook")
    return _t("PlanItemState", "Adds pages to the notebook “{title}”").format(
        title=notebook_name(item.notebook_id)
    )


def severity_words(severity: ProblemSeverity) -> str:
    """A validation problem's severity, as a screen reader says the icon."""
    return {
        ProblemSeverity.ERROR: _t("Severity", "Error"),
        ProblemSeverity.WARNING: _t("Severity", "Warning"),
        ProblemSeverity.INFO: _t("Severity", "Worth a look"),
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
        ProblemCode.ALREADY_IMPORTED: _t("ProblemCode", "Already imported"),
        ProblemCode.PARTLY_IMPORTED: _t("ProblemCode", "Partly imported already"),
        ProblemCode.COMPLETES: _t("ProblemCode", "Completes its notebook"),
        ProblemCode.LOOKS_LIKE: _t("ProblemCode", "Looks like another page"),
        ProblemCode.BLANK_PAGES: _t("ProblemCode", "Blank pages"),
        ProblemCode.TOO_SMALL: _t("ProblemCode", "Too small to read"),
        ProblemCode.TOO_DARK: _t("ProblemCode", "Too dark"),
        ProblemCode.TOO_LIGHT: _t("ProblemCode", "Too light"),
        ProblemCode.BLURRED: _t("ProblemCode", "Blurred"),
        ProblemCode.SIDEWAYS: _t("ProblemCode", "Sideways: turn it?"),
        AmbiguityCode.DUPLICATE_NUMBER: _t("ProblemCode", "Page number used twice"),
        AmbiguityCode.MISSING_INDEX: _t("ProblemCode", "Next to missing pages"),
        AmbiguityCode.MIXED_MEDIA: _t("ProblemCode", "PDF among images"),
        AmbiguityCode.CONFLICTING_CUES: _t("ProblemCode", "Order in question"),
        AmbiguityCode.MISSING_LEAF: _t("ProblemCode", "A leaf or a side is missing"),
        AmbiguityCode.NO_ORDER_CUE: _t("ProblemCode", "No page number in the names"),
        AmbiguityCode.MIXED_SCHEMES: _t("ProblemCode", "Two numbering schemes"),
        AmbiguityCode.DUPLEX_PASSES: _t("ProblemCode", "Fronts, then backs"),
        AmbiguityCode.AMBIGUOUS_DATE: _t("ProblemCode", "A date read two ways"),
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
        # The decision panel names the notebook (complete_words); this is its short form.
        Resolution.COMPLETE: _t("Resolution", "Complete the notebook"),
        Resolution.NEW_NOTEBOOK: _t("Resolution", "Make a Second Notebook"),
        # A page that looks like another: the three answers to "a rescan?".
        Resolution.RESCAN_REPLACES: _t("Resolution", "Replace"),
        Resolution.KEEP_BOTH: _t("Resolution", "Keep Both"),
        Resolution.LEAVE_OUT: _t("Resolution", "Leave Out"),
        # The decision panel names the notebook (import_into_words); this is its short form.
        Resolution.IMPORT_INTO: _t("Resolution", "Import into that notebook instead"),
        # Pages of one notebook that look like each other: said once for all of them.
        Resolution.NONE_ARE_RESCANS: _t("Resolution", "None Are Rescans"),
        Resolution.LEAVE_OUT_BLANK: _t("Resolution", "Leave Out Blank Pages"),
        # A "Turn it?": the page turned a quarter, as the hint says (or as the person sees).
        Resolution.TURN_CLOCKWISE: _t("Resolution", "Turn It 90° Clockwise"),
        Resolution.TURN_ANTICLOCKWISE: _t("Resolution", "Turn It 90° Anticlockwise"),
    }
    return words[resolution]


def complete_words(notebook_id: str) -> str:
    """The button that completes a notebook with a folder's new pages (Resolution.COMPLETE)."""
    return _t("Resolution", "Complete “{title}”").format(title=notebook_name(notebook_id))


def import_into_words(notebook_id: str) -> str:
    """The button that imports a new notebook's pages into an existing one instead, so that
    its look-alikes of that notebook's pages can replace them (Resolution.IMPORT_INTO)."""
    return _t("Resolution", "Import into “{title}” instead").format(
        title=notebook_name(notebook_id)
    )


def keep_both_for_all_words(n: int, every: bool) -> str:
    """The button that answers Keep Both to ``n`` open rescan questions at once: a group's
    (beside its heading), or ``every`` one of the notebook's (above the groups)."""
    if every:
        return plural(
            n,
            _t("Lookalike", "Keep Both for the 1 Question"),
            _t("Lookalike", "Keep Both for All %Ln Questions", "", n),
        )
    return plural(
        n,
        _t("Lookalike", "Keep Both for the 1 Left"),
        _t("Lookalike", "Keep Both for These %Ln", "", n),
    )


def kept_both_for_all_words() -> str:
    """In place of Keep Both for All once pressed (as wide as the button was: short)."""
    return _t("Lookalike", "Answered: Keep Both.")


def more_alike_words(n: int) -> str:
    """Under the "a rescan?" questions shown: how many more wait, and when they show."""
    return plural(
        n,
        _t(
            "Lookalike",
            "1 more page looks like another; it is asked here once these are answered.",
        ),
        _t(
            "Lookalike",
            "%Ln more pages look like others; they are asked here as these are answered.",
            "",
            n,
        ),
    )


def alike_within_words(n: int) -> str:
    """Beside None Are Rescans: how many pages of the notebook look like other pages of this
    import (of this notebook or of the import's other notebooks)."""
    return plural(
        n,
        _t(
            "Lookalike",
            "1 page of this notebook looks like another page of this import. Different pages "
            "can look alike (the same paper, ruling and hand): if none is a rescan, say so "
            "once, and they are compared only with pages already imported.",
        ),
        _t(
            "Lookalike",
            "%Ln pages of this notebook look like other pages of this import. Different pages "
            "can look alike (the same paper, ruling and hand): if none is a rescan, say so "
            "once, and they are compared only with pages already imported.",
            "",
            n,
        ),
    )


def alike_group_words(notebook_id: str | None, label: str | None) -> str:
    """The heading of the rescan questions about one notebook's pages: ``notebook_id`` a
    notebook of the corpus, else ``label`` a notebook of this import (None: the one under
    review)."""
    if notebook_id is not None:
        return _t("Lookalike", "Like pages of “{title}”, already imported:").replace(
            "{title}", notebook_name(notebook_id)
        )
    if label is None:
        return _t("Lookalike", "Like other pages of this notebook:")
    return _t("Lookalike", "Like pages of “{title}”, in this import:").replace("{title}", label)


def alike_apart_gone_words() -> str:
    """In place of None Are Rescans once fewer than two of the questions it answers are left
    (answered one by one): for one, Keep Both says the same."""
    return _t("Lookalike", "No longer asked: the pages left are answered one by one.")


def answered_words(resolution: Resolution | None) -> str:
    """In place of a rescan question's buttons once it is answered (the row stays where it
    was until the pointer leaves the panel, so nothing moves under it); None: answered
    otherwise (an undo, another edit)."""
    words = {
        Resolution.RESCAN_REPLACES: _t(
            "Lookalike", "Answered: Replace. It takes that page's place."
        ),
        Resolution.KEEP_BOTH: _t("Lookalike", "Answered: Keep Both. Both pages are imported."),
        Resolution.LEAVE_OUT: _t("Lookalike", "Answered: Leave Out. This page is not imported."),
        Resolution.IMPORT_INTO: _t("Lookalike", "Answered: imported into that notebook instead."),
        Resolution.NONE_ARE_RESCANS: _t("Lookalike", "Answered: None Are Rescans."),
    }
    if resolution is None or resolution not in words:
        return _t("Lookalike", "Answered.")
    return words[resolution]


def placement_mode_words() -> list[str]:
    """The choices of where an item's new pages go, in the order PlacementBar lists them."""
    return [
        _t("Placement", "At the end"),
        _t("Placement", "At position"),
        _t("Placement", "After page"),
    ]


def by_names_mode_words() -> str:
    """The placement bar's fourth choice, listed only for pages that go in several places
    (a notebook completed with pages that fill several gaps): each where its name puts it."""
    return _t("Placement", "Each where its name puts it")


def places_words(lines: list[str]) -> str:
    """Where each block of new pages goes (the engine's words, one a line: "012.jpg after
    page 11 (011.jpg)"), in the order they land."""
    said = "\n".join(lines)  # a line starts with a file's name: kept as it is
    tail = _t(
        "Placement",
        "Choosing another place above puts them all there together.",
    )
    return f"{said}\n{tail}"


def placement_title(notebook_id: str, *, new_pages: bool = True) -> str:
    """The placement bar's title: where the new pages go, or, when every page is a rescan,
    where the pages go."""
    if not new_pages:
        return _t("Placement", "Where the pages go in “{title}”").format(
            title=notebook_name(notebook_id)
        )
    return _t("Placement", "Where the new pages go in “{title}”").format(
        title=notebook_name(notebook_id)
    )


def rescans_placed_words(lines: list[str]) -> str:
    """Where the rescans go (the engine's words, one a line: "37.jpg replaces page 37 of
    “Diary 1931” (…)"), and what becomes of the pages they replace."""
    said = "\n".join(lines)  # a line starts with a file's name: kept as it is
    tail = _t(
        "Placement",
        "A rescan takes the place and the number of the page it replaces; that page is "
        "kept in the notebook's history.",
    )
    return f"{said}\n{tail}"


def notebook_page_words(words: str) -> str:
    """A page of the notebook in a list to pick from (the engine's words: "page 7 (…)")."""
    return words[:1].upper() + words[1:]


def replaces_words(words: str) -> str:
    """A page of the plan that is a rescan: what it replaces (the engine's words for it)."""
    return _t("Placement", "Replaces {page}").format(page=words)


def turned_words(words: str) -> str:
    """A page of the corpus turned (the library): where the page as it was is."""
    return _t("Placement", "Turned; {page} as it was is under History").format(page=words)


def replace_dialog_words() -> tuple[str, str, str]:
    """The replace dialog's title, its question, and its choice for "it replaces nothing"."""
    return (
        _t("Placement", "Replace a Notebook Page"),
        _t("Placement", "The selected page is a rescan of:"),
        _t("Placement", "No page: add it as a new page"),
    )


def open_questions_words(count: int) -> str:
    """Beside Commit, when rescan questions are open: how many, and what the commit does
    with them (each page imported as a new one: both kept), so no one commits unaware."""
    return plural(
        count,
        _t(
            "Lookalike",
            "1 rescan question is open: Commit imports that page as a new page beside the page "
            "it looks like (both kept, neither replaced nor left out).",
        ),
        _t(
            "Lookalike",
            "%Ln rescan questions are open: Commit imports each of those pages as a new page "
            "beside the page it looks like (both kept, none replaced nor left out).",
            "",
            count,
        ),
    )
