"""A plan's problems as values: their severity, their codes, and what resolves them.

Validate (validate.py) recomputes them; the rules that live elsewhere (ordering/,
placement.py) make them with these codes. The CLI prints them, the window lists them.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from transcribe_import.engine.base.values import fields_json
from transcribe_import.engine.planning.plan import PlanItem, PlanSource


class ProblemSeverity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"
    # Worth knowing, never in the way: a page worth a second look (planning/second_look.py).
    INFO = "info"


class ProblemCode(enum.StrEnum):
    SOURCE_MISSING = "source_missing"
    SOURCE_CHANGED = "source_changed"
    # Scan and ingest say source_unreadable (ErrorCode.SOURCE_UNREADABLE) too.
    SOURCE_UNREADABLE = "source_unreadable"
    MEDIA_MISMATCH = "media_mismatch"
    NOTEBOOK_NOT_FOUND = "notebook_not_found"
    ID_IN_USE = "id_in_use"
    NOTHING_TO_IMPORT = "nothing_to_import"
    DUPLICATES_SKIPPED = "duplicates_skipped"
    TITLE_EXISTS = "title_exists"
    # A notebook from a bag (plan --mode bag):
    UNCHANGED = "unchanged"  # the corpus holds the same notebook: skipped (warning)
    NOTEBOOK_CONFLICT = "notebook_conflict"  # its id holds a different notebook (error)
    BAG_ORDER_CHANGED = "bag_order_changed"  # its sources were reordered in the plan (error)
    RENDERED_AGAIN = "rendered_again"  # some renders are not in the bag as listed (warning)
    # Where an into item's pages go and what they replace (planning/placement.py); the
    # first three are ingest's ErrorCodes of the same rules, checked again at commit.
    PLACEMENT_OUT_OF_RANGE = "placement_out_of_range"
    PLACEMENT_PAGE_NOT_FOUND = "placement_page_not_found"
    REPLACED_PAGE_NOT_FOUND = "replaced_page_not_found"
    PAGE_REPLACED_TWICE = "page_replaced_twice"
    PLACEMENT_ON_NEW_NOTEBOOK = "placement_on_new_notebook"
    REPLACEMENT_LEFT_OUT = "replacement_left_out"  # a rescan is excluded or skipped (warning)
    # A folder imported before (planning/reimport.py), told instead of its duplicates:
    ALREADY_IMPORTED = "already_imported"  # every file is in the corpus (warning)
    PARTLY_IMPORTED = "partly_imported"  # some are, in one notebook: complete it (warning)
    COMPLETES = "completes"  # so planned to complete that notebook by default (warning)
    # A page that looks like one in the corpus or the plan, not its bytes (lookalikes.py):
    LOOKS_LIKE = "looks_like"  # a rescan? Replace, Keep Both or Leave Out (warning)
    # Pages worth a second look (planning/second_look.py), information only:
    BLANK_PAGES = "blank_pages"  # a notebook's blank pages, told once
    TOO_SMALL = "too_small"
    TOO_DARK = "too_dark"
    TOO_LIGHT = "too_light"
    BLURRED = "blurred"
    SIDEWAYS = "sideways"  # "Turn it?": its shape or its writing runs the other way


class AmbiguityCode(enum.StrEnum):
    """Why an item's proposed page order cannot be taken as it is (ordering's checks)."""

    DUPLICATE_NUMBER = "duplicate_number"
    MISSING_INDEX = "missing_index"
    MIXED_MEDIA = "mixed_media"
    CONFLICTING_CUES = "conflicting_cues"
    MISSING_LEAF = "missing_leaf"  # a leaf, or one side of it, is not there
    NO_ORDER_CUE = "no_order_cue"  # the names carry no number
    MIXED_SCHEMES = "mixed_schemes"  # the names follow two numbering schemes at once
    DUPLEX_PASSES = "duplex_passes"  # fronts, then backs: two passes of a scanner
    AMBIGUOUS_DATE = "ambiguous_date"  # 03.04.1931: day first or month first


class Resolution(enum.StrEnum):
    """What settles a problem: the one name the engine, the CLI and the window share.

    The JSON keeps the value; the faces' words are tables keyed by the member.
    """

    # An ambiguous page order (CLI: order ITEM --accept | --by RULE | --sequence ... ):
    ACCEPT = "accept"
    NAME = "name"
    CAPTURE_TIME = "capture_time"
    MTIME = "mtime"
    SEQUENCE = "sequence"
    EXCLUDE = "exclude"
    INTERLEAVE = "interleave"
    INTERLEAVE_REVERSED = "interleave_reversed"
    VERSO_FIRST = "verso_first"
    VERSOS_BLANK = "versos_blank"
    # A notebook_conflict (CLI: order ITEM --skip | --as-copy):
    SKIP = "skip"
    AS_COPY = "as_copy"
    # A placement problem (CLI: order ITEM --at N | --after PAGE | --at-end |
    # --replace FILE PAGE | --no-replace FILE... | --include FILE...):
    AT = "at"
    AFTER = "after"
    AT_END = "at_end"
    REPLACE = "replace"
    NO_REPLACE = "no_replace"
    INCLUDE = "include"
    # A folder partly imported already (CLI: order ITEM --complete): its new pages go into
    # the notebook holding the others (planning/reimport.py).
    COMPLETE = "complete"
    # A folder partly imported, planned to complete that notebook by default (CLI: order
    # ITEM --new-notebook): a second notebook of its pages instead.
    NEW_NOTEBOOK = "new_notebook"
    # A page that looks like another (planning/lookalikes.py; CLI: order ITEM --rescan FILE |
    # --keep-both FILE | --exclude FILE): it replaces the other, both are kept, or it is left out.
    RESCAN_REPLACES = "rescan_replaces"
    KEEP_BOTH = "keep_both"
    LEAVE_OUT = "leave_out"
    # A new notebook's page looks like one of an existing notebook (CLI: order ITEM --into
    # NOTEBOOK): the item is imported into that notebook instead, where Replace is offered.
    IMPORT_INTO = "import_into"
    # Pages of one notebook that look like each other (the same paper, ruling and hand; CLI:
    # order ITEM --none-are-rescans): none is a rescan of another, asked about no more.
    NONE_ARE_RESCANS = "none_are_rescans"
    # A notebook's blank pages (planning/second_look.py; CLI: order ITEM --leave-out-blank):
    # all of them left out, in one edit.
    LEAVE_OUT_BLANK = "leave_out_blank"
    # A page probably sideways (planning/second_look.py; CLI: order ITEM --turn FILE 90 |
    # 270): turned a quarter as its hint says, from its file's upright, in one edit.
    TURN_CLOCKWISE = "turn_clockwise"
    TURN_ANTICLOCKWISE = "turn_anticlockwise"


@dataclass(frozen=True)
class PlanProblem:
    """One problem of a plan, in values a face renders as it likes.

    ``message`` is words for any face, shown as they are: it names files as ``file_name``
    does, and neither the item (``item_id`` says which; the face shows it) nor any face's
    commands. ``hint`` is the CLI's advice for it (its options, e.g. ``--sequence``), or
    None; the window leaves it out. ``files`` names the files the problem concerns as the
    message does (``source_ids`` are the ones that are sources; an unusable file is none),
    for a face to find them, e.g. its rows; ``path`` the one file on disk. ``notebook_id``:
    the existing notebook a resolution acts on (``IMPORT_INTO``: the one to import into;
    any ``LOOKS_LIKE``: the one holding the page it looks like), for a face to name it;
    None for the others.
    """

    severity: ProblemSeverity
    code: ProblemCode | AmbiguityCode
    item_id: str
    message: str
    source_ids: tuple[str, ...] = ()
    path: str | None = None
    resolutions: tuple[Resolution, ...] = ()
    hint: str | None = None
    files: tuple[str, ...] = ()
    notebook_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)


def file_name(source: PlanSource) -> str:
    """How a problem names a file, in its message and in ``files``: the one rule.

    By its path from the scanned folder (``provenance.rel``, e.g. ``box/notebook 1/p1.jpg``):
    unique in the plan, what a person finds on disk, and a name the CLI's ``order`` takes as
    it is. The window shows the same words, next to its table of those files; no face
    rewrites them. An unusable file, not a source, is named by the same ``rel``.
    """
    return source.provenance.rel


def files_of(item: PlanItem, source_ids: Iterable[str]) -> tuple[str, ...]:
    """These sources of ``item`` as problems name them (``file_name``): ``PlanProblem.files``."""
    wanted = tuple(source_ids)
    ids = set(wanted)
    named = {s.source_id: file_name(s) for s in item.sources if s.source_id in ids}
    return tuple(named[sid] for sid in wanted if sid in named)


def unusable_words(entry: Mapping[str, Any]) -> str:
    """Why an unusable file (``PlanItem.unusable``) cannot be imported: the scan's words,
    naming it as ``file_name`` names files. A plan written before the scan named it so
    holds its path on disk there instead (``entry["path"]``): that is named by its rel too.
    """
    return str(entry["message"]).replace(str(entry["path"]), str(entry["rel"]))


@dataclass(frozen=True)
class ValidationReport:
    plan_id: str
    plan_fingerprint: str
    problems: tuple[PlanProblem, ...]
    # Pages worth a second look (planning/second_look.py), severity INFO: kept apart from
    # the problems, so nothing that counts or resolves problems ever meets them.
    information: tuple[PlanProblem, ...] = ()

    # Each of these is a walk over every problem (100,000 of them when a shelf's disk is not
    # there), asked several times a report by the window's summary, its commit button and
    # each notebook's badge: worked out once a report (the report never changes) and shared,
    # so they are tuples.
    @functools.cached_property
    def errors(self) -> tuple[PlanProblem, ...]:
        return tuple([p for p in self.problems if p.severity is ProblemSeverity.ERROR])

    @functools.cached_property
    def warnings(self) -> tuple[PlanProblem, ...]:
        return tuple([p for p in self.problems if p.severity is ProblemSeverity.WARNING])

    @functools.cached_property
    def listed(self) -> tuple[PlanProblem, ...]:
        """Every problem and then the information, as a list shows them: the errors, the
        warnings, the rest, each in the report's order (which is the plan's)."""
        rest = [
            p
            for p in self.problems
            if p.severity is not ProblemSeverity.ERROR and p.severity is not ProblemSeverity.WARNING
        ]
        return (*self.errors, *self.warnings, *rest, *self.information)

    @property
    def ok(self) -> bool:
        return not self.errors

    def for_item(self, item_id: str) -> tuple[PlanProblem, ...]:
        """The problems of one item, in the report's order."""
        return self._by_item.get(item_id, ())

    @functools.cached_property
    def _by_item(self) -> dict[str, tuple[PlanProblem, ...]]:
        grouped: dict[str, list[PlanProblem]] = {}
        for p in self.problems:
            grouped.setdefault(p.item_id, []).append(p)
        return {item_id: tuple(found) for item_id, found in grouped.items()}

    def to_json(self) -> dict[str, Any]:
        return {
            "plan_id": self.plan_id,
            "plan_fingerprint": self.plan_fingerprint,
            "valid": self.ok,
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "problems": [p.to_json() for p in self.problems],
            "information": [p.to_json() for p in self.information],
        }
