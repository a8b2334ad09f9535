"""A folder imported before, recognised by its bytes: already imported, or a notebook to complete.

A new notebook whose files the corpus already holds (``Duplicate.IN_CORPUS``, by the
sha256 of the sources in each project.json) is one of two things. Every file held:
the folder was imported already, and the item imports nothing (``ALREADY_IMPORTED``).
Some held, all by one notebook, the others new: an import of that folder stopped half
way, or the folder gained pages since; the item is proposed as completing that notebook
(``PARTLY_IMPORTED``), its new pages going where their names put them among the
notebook's pages, every page already there keeping its id (``complete``).

A new notebook none of whose files the corpus holds, titled as a notebook of the corpus, is
that notebook's next pages when their names continue its page numbers (``continuation``:
"021.jpg" after a notebook ending at "020.jpg"): planning makes it complete that notebook
too, its pages after the notebook's last (``continued_by_title``). A title alone is no
reason: a second volume of "Diary 1931" starting again at page 1 is a notebook of its own.
"""

from __future__ import annotations

import enum
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from transcribe_import.engine.base.clock import utc_now
from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.base.text import natural_key, quoted_title
from transcribe_import.engine.ingest import placement as rules
from transcribe_import.engine.ingest.placement import Placement
from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.dedupe import CorpusHashIndex, HashIndex
from transcribe_import.engine.planning.plan import Duplicate, Op, PlanItem, PlanSource
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import UnfinishedImport

if TYPE_CHECKING:
    from transcribe_import.engine.storage.corpus import Corpus, IndexEntry


# Whether a notebook is incomplete: the import it holds part of, or None.
UnfinishedOf = Callable[[str], UnfinishedImport | None]


class Recognition(enum.StrEnum):
    ALREADY_IMPORTED = "already_imported"  # every file is in the corpus
    PARTLY_IMPORTED = "partly_imported"  # some are, all in one notebook: complete it


class Completion(enum.StrEnum):
    """Why planning made an item complete a notebook by default (``completed``)."""

    FILES = "files"  # part of its files are in that notebook: a folder partly imported
    TITLE = "title"  # that notebook's title, its pages' names continuing its page numbers


@dataclass(frozen=True)
class Recognised:
    """What the corpus holds of an item: in which notebook, and how many of its pages."""

    kind: Recognition
    notebook_id: str
    title: str
    imported_at: str  # the notebook's registration time (ISO 8601, UTC); "" if unknown
    held_pages: int  # the item's pages the corpus holds already
    new_pages: int  # the item's pages it does not (0 when ALREADY_IMPORTED)
    others: tuple[str, ...] = ()  # more notebooks holding some of them (titles)
    # The new pages belong, by their names, in several places among the notebook's.
    scattered: bool = False
    # The notebook is incomplete (runs/incomplete.py): the import it holds part of.
    unfinished: UnfinishedImport | None = None
    # Files left out of that import and left out again (leave_out_as_before), by rel.
    left_out: tuple[str, ...] = ()


def recognise(
    corpus: Corpus,
    item: PlanItem,
    index: HashIndex | None = None,
    unfinished_of: UnfinishedOf | None = None,
) -> Recognised | None:
    """What the corpus holds of ``item`` (a new notebook's files, not left out), or None.

    ``index``: the corpus-wide hash index, refreshed (read here when None). Only a
    ``create_notebook`` item not from a bag is recognised: an into item is already
    aimed at its notebook, and a bag's notebook keeps its ids (planning/bag.py).
    ``unfinished_of``: whether a notebook is incomplete, asked of the notebook to complete
    only (the rule is the run layer's, above this one: engine.api passes it).
    """
    if item.op is not Op.CREATE_NOTEBOOK or item.restore is not None:
        return None
    held = held_sources(item)
    if not held:
        return None
    index = index or CorpusHashIndex.refreshed(corpus)
    votes: Counter[str] = Counter()
    holders: dict[str, set[str]] = {}
    for s in held:
        holders[s.source_id] = index.notebooks_with(s.sha256) - {item.notebook_id}
        votes.update(holders[s.source_id])
    if not votes:
        return None  # the corpus no longer holds them: validate's duplicate words say so
    entries = corpus.index_entries()
    notebook_id = max(votes, key=lambda nbid: (votes[nbid], nbid))
    entry = entries.get(notebook_id)
    held_pages = sum(len(s.pages) for s in held)
    new_pages = item.imported_page_count()
    others = tuple(
        sorted(entries[n].title if n in entries else n for n in votes if n != notebook_id)
    )
    kind = Recognition.ALREADY_IMPORTED if new_pages == 0 else Recognition.PARTLY_IMPORTED
    apart = False
    if kind is Recognition.PARTLY_IMPORTED:
        manifest = _part_of(corpus, notebook_id, item, holders)
        if manifest is None:
            return None
        apart = scattered(item, manifest)
    unfinished = unfinished_of(notebook_id) if unfinished_of and new_pages else None
    return Recognised(
        kind,
        notebook_id,
        entry.title if entry is not None else notebook_id,
        entry.created_at if entry is not None else "",
        held_pages,
        new_pages,
        others if kind is Recognition.ALREADY_IMPORTED else (),
        apart,
        unfinished,
        tuple(left_out_again(item)),
    )


def _part_of(
    corpus: Corpus, notebook_id: str, item: PlanItem, holders: Mapping[str, set[str]]
) -> dict[str, Any] | None:
    """The notebook's manifest when it is an import of part of this folder: it holds every
    file the corpus holds of it, and nothing else. A notebook that merely shares a page or
    two with the folder (a page copied into two folders) is not one to complete with it."""
    if not all(notebook_id in where for where in holders.values()):
        return None  # the held pages are spread over notebooks
    try:
        manifest = project.read(corpus.notebook_dir(notebook_id), notebook_id)
    except TranscribeError:
        return None
    return manifest if notebook_hashes_of(manifest) <= {s.sha256 for s in item.sources} else None


def day_words(stamp: str, now: str | None = None) -> str:
    """ "3 December" (with its year when not this year's), from an ISO 8601 time; "" if none."""
    try:
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        this_year = datetime.fromisoformat((now or utc_now()).replace("Z", "+00:00")).year
    except ValueError:
        return ""
    day = f"{when.day} {when.strftime('%B')}"
    return day if when.year == this_year else f"{day} {when.year}"


def recognised_words(r: Recognised) -> str:
    """The sentence every face shows for a recognised item (validate's problem message)."""
    day = day_words(r.imported_at)
    imported = f" (imported {day})" if day else ""
    where = f"{quoted_title(r.title)}{imported}"
    if r.kind is Recognition.ALREADY_IMPORTED:
        pages = "the only page is" if r.held_pages == 1 else f"all {r.held_pages} pages are"
        if len(r.others) == 1:
            where += f" and “{r.others[0]}”"
        elif r.others:
            where += f" and {len(r.others)} other notebooks"
        return f"Already imported: {pages} in {where}.{_left_out_words(r)}"
    held = "1 page is" if r.held_pages == 1 else f"{r.held_pages} pages are"
    new = "the 1 new page" if r.new_pages == 1 else f"the {r.new_pages} new pages"
    lead = f"{held} already in {where}: complete {quoted_title(r.title)} with {new}"
    if r.unfinished is not None:  # marked incomplete: this is what finishes it
        stopped = _stopped_words(r.unfinished)
        lead = f"{quoted_title(r.title)}{imported} is incomplete: {stopped}. Complete it with {new}"
    if r.scattered:
        return (
            f"{lead}, each where its name puts it among its pages (they fill several gaps), "
            f"rather than making a second notebook of them.{_left_out_words(r)}"
        )
    return (
        f"{lead}, where their names put them among its pages, rather than making a second "
        f"notebook of them.{_left_out_words(r)}"
    )


def _left_out_words(r: Recognised) -> str:
    """What was left out again as in that import, told after the rest ("" when nothing)."""
    if not r.left_out:
        return ""
    if len(r.left_out) == 1:
        return f" {r.left_out[0]} was left out of that import: it is left out again."
    return f" {len(r.left_out)} files left out of that import are left out again."


def _stopped_words(u: UnfinishedImport) -> str:
    """ "its import stopped after 32 of its 70 pages" (the notebook's mark, in words)."""
    if u.running:
        return "another process is importing it right now"
    if u.pages_expected is None:
        return f"its import stopped after {u.pages_landed} of its pages"
    return f"its import stopped after {u.pages_landed} of its {u.pages_expected} pages"


# -- completing a notebook ----------------------------------------------------------------------


def complete(item: PlanItem, notebook_id: str, manifest: Mapping[str, Any]) -> PlanItem:
    """``item`` as an import into ``notebook_id`` (its ``manifest`` read now): the files it
    holds are in-notebook duplicates (skipped), the new pages land where their names put
    them among its pages (``places_by_names``): in several places when they fill several
    gaps. Nothing of the notebook changes but the
    new pages: every page already there keeps its id."""
    held = notebook_hashes_of(manifest)
    sources = tuple(
        replace(s, duplicate=Duplicate.IN_NOTEBOOK)
        if s.sha256 in held and s.duplicate is not Duplicate.IN_PLAN
        else s
        for s in item.sources
    )
    into = replace(
        item,
        op=Op.IMPORT_INTO_NOTEBOOK,
        notebook_id=notebook_id,
        title=None,
        sources=sources,
        cover_page_id=None,
        replacements=(),
    )
    placement, places = places_by_names(into, manifest)
    return replace(into, placement=placement, places=places)


# An item's provenance: planning made it complete a notebook by default (``completed``),
# and what it was as a new notebook, so that ``as_new_notebook`` makes it one again:
# {"notebook_id", "title", "cover_page_id", "in_corpus": [source ids held elsewhere],
# "by": a Completion (a plan written before it was kept: "files")}.
COMPLETES_BY_DEFAULT = "completes_by_default"
# An item's provenance: a person chose a second notebook rather than the completion
# planning made (``as_new_notebook``): the Completion it undid.
SECOND_NOTEBOOK = "second_notebook"


def completed(
    item: PlanItem, notebook_id: str, manifest: Mapping[str, Any], by: Completion
) -> PlanItem:
    """``item`` completing the notebook ``notebook_id``: what planning does by default, since
    the new pages of a folder imported before (``Completion.FILES``) belong with the pages
    already imported, and a folder of a notebook's title whose pages continue its page
    numbers (``Completion.TITLE``) is its next pages: after its last page, by their names
    as for a folder partly imported (a page numbered as one it holds goes beside it). What
    the item was as a new notebook is kept on it."""
    was = {
        "notebook_id": item.notebook_id,
        "title": item.title,
        "cover_page_id": item.cover_page_id,
        "in_corpus": [s.source_id for s in item.sources if s.duplicate is Duplicate.IN_CORPUS],
        "by": str(by),
        # Whether its order was taken as planned before: a gap the notebook's pages fill
        # (``continue_notebook``) is a gap again in a second notebook.
        "order_resolved": item.ordering.resolved,
    }
    if by is Completion.TITLE:
        done = continue_notebook(item, notebook_id, manifest)
    else:
        done = complete(item, notebook_id, manifest)
    return replace(done, provenance={**done.provenance, COMPLETES_BY_DEFAULT: was})


def continue_notebook(item: PlanItem, notebook_id: str, manifest: Mapping[str, Any]) -> PlanItem:
    """``item``, whose pages continue the page numbers of the notebook ``notebook_id``
    (``continuation``), as an import into it (``complete``); its order taken as planned
    when the only pages missing from its folder are pages the notebook holds."""
    done = complete(item, notebook_id, manifest)
    return ordering.accept(done) if _gaps_are_its_pages(done, manifest) else done


def _gaps_are_its_pages(item: PlanItem, manifest: Mapping[str, Any]) -> bool:
    """Whether the only doubt about ``item``'s order is pages missing from its folder that
    the notebook it continues holds (a rescan of page 3, then pages 5 and 6: page 4 is in
    the notebook), so nothing is missing and the order stands as planned."""
    doubts = ordering.find_ambiguities(item)
    if not doubts or any(d.code is not ordering.AmbiguityCode.MISSING_INDEX for d in doubts):
        return False
    names = [rules.file_name(manifest, p.get("source_id")) for p in rules.live_records(manifest)]
    ours = [n for s in item.imported_sources() if (n := numbered(s.name)) is not None]
    if not ours or len(ours) < len(item.imported_sources()):
        return False
    pattern = ours[0].pattern
    mine = [n.number for n in ours if n.pattern == pattern]
    theirs = {n.number for name in names if name and (n := numbered(name)) and n.pattern == pattern}
    return all(k in theirs or k in mine for k in range(min(mine), max(mine) + 1))


def as_new_notebook(item: PlanItem) -> PlanItem:
    """``item``, completing a notebook by default (``completed``), made the new notebook it
    was planned as: a second notebook of the folder, its files held elsewhere skipped as
    duplicates again (``order --new-notebook``, the window's Make a Second Notebook).
    ValueError in words when planning did not make it complete one."""
    was = item.provenance.get(COMPLETES_BY_DEFAULT)
    if item.op is not Op.IMPORT_INTO_NOTEBOOK or not isinstance(was, dict):
        raise ValueError(
            f"“{item.label}” does not complete a notebook by default, so there is no new "
            "notebook to make of it instead; it is imported as planned"
        )
    held = set(was.get("in_corpus") or ())
    sources = tuple(
        replace(s, duplicate=Duplicate.IN_CORPUS)
        if s.source_id in held and s.duplicate is Duplicate.IN_NOTEBOOK
        else s
        for s in item.sources
    )
    provenance = {k: v for k, v in item.provenance.items() if k != COMPLETES_BY_DEFAULT}
    provenance[SECOND_NOTEBOOK] = str(completion_of(was))
    resolved = was.get("order_resolved")
    ordering_was = (
        replace(item.ordering, resolved=resolved) if isinstance(resolved, bool) else item.ordering
    )
    return replace(
        item,
        ordering=ordering_was,
        op=Op.CREATE_NOTEBOOK,
        notebook_id=str(was["notebook_id"]),
        title=was.get("title"),
        cover_page_id=was.get("cover_page_id"),
        sources=sources,
        placement=None,
        places=(),
        replacements=(),
        provenance=provenance,
    )


def completes_by_default(item: PlanItem) -> bool:
    """Whether planning made ``item`` complete a notebook (``completed``), still so."""
    return item.op is Op.IMPORT_INTO_NOTEBOOK and COMPLETES_BY_DEFAULT in item.provenance


def completion_of(was: Any) -> Completion:
    """Why an item's provenance (``COMPLETES_BY_DEFAULT``'s value) says it completes its
    notebook; a plan written before the reason was kept completes a folder partly imported."""
    by = was.get("by") if isinstance(was, dict) else None
    return Completion(by) if by in set(Completion) else Completion.FILES


def completes_by_title(item: PlanItem) -> bool:
    """Whether planning made ``item`` complete the notebook of its title whose page numbers
    its pages continue (``continued_by_title``), still so."""
    return completes_by_default(item) and (
        completion_of(item.provenance[COMPLETES_BY_DEFAULT]) is Completion.TITLE
    )


def completing_words(item: PlanItem, title: str, unfinished: UnfinishedImport | None) -> str:
    """What an item completing a notebook by default does, in words (validate's message);
    ``unfinished``: the import the notebook holds part of, when it is marked incomplete."""
    new = item.imported_page_count()
    pages = "the 1 new page" if new == 1 else f"the {new} new pages"
    was = item.provenance[COMPLETES_BY_DEFAULT]
    held = len(was.get("in_corpus") or ())
    files = "1 file" if held == 1 else f"{held} files"
    lead = f"Completes {quoted_title(title)} with {pages}"
    if unfinished is not None:  # marked incomplete: this is what finishes it
        lead = (
            f"{quoted_title(title)} is incomplete: {_stopped_words(unfinished)}. "
            f"Completes it with {pages}"
        )
    where = (
        "each where its name puts it among its pages (they fill several gaps)"
        if item.places
        else "where their names put them among its pages"
    )
    if completion_of(was) is Completion.TITLE:
        # Not at the end only for a page numbered as one it holds: a rescan, or kept both.
        at_end = item.placement is None and not item.places
        where = (
            "after its last page"
            if at_end
            else "each where its name puts it among its pages (a page numbered as one of "
            "its own goes beside it)"
        )
        return (
            f"{lead}, {where}: this folder has its "
            "title, and the names of its pages continue its page numbers. A second notebook "
            "of them is made only if you choose it."
        )
    return (
        f"{lead}, {where}: {files} of this folder {'is' if held == 1 else 'are'} in it "
        "already. A second notebook of them is made only if you choose it."
    )


def notebook_hashes_of(manifest: Mapping[str, Any]) -> set[str]:
    """The sha256 of a manifest's sources."""
    return {
        str(s["sha256"])
        for s in manifest.get("sources", ())
        if isinstance(s, dict) and isinstance(s.get("sha256"), str)
    }


def _places(item: PlanItem, manifest: Mapping[str, Any]) -> tuple[list[str], list[int]]:
    """The notebook's page ids, and for each new page file of the item how many of them
    its name puts before it: those up to the last whose file name sorts before it."""
    pages = [str(p["id"]) for p in rules.live_records(manifest)]
    names = {
        s.get("id"): rules.file_name(manifest, s.get("id"))
        for s in manifest.get("sources", ())
        if isinstance(s, dict)
    }
    keys = [
        None if (n := names.get(p.get("source_id"))) is None else natural_key(n)
        for p in rules.live_records(manifest)
    ]
    places = []
    for s in item.imported_sources():
        mine = natural_key(s.name)
        places.append(
            max((k + 1 for k, key in enumerate(keys) if key is not None and key < mine), default=0)
        )
    return pages, places


def scattered(item: PlanItem, manifest: Mapping[str, Any]) -> bool:
    """Whether the item's new pages belong, by their names, in more than one place among
    the notebook's pages (they land in blocks, each in its place)."""
    return len(set(_places(item, manifest)[1])) > 1


def places_by_names(
    item: PlanItem, manifest: Mapping[str, Any]
) -> tuple[Placement | None, tuple[tuple[str, Placement], ...]]:
    """Where the item's new pages go by the names of their files among the notebook's:
    each right after the last page whose file name sorts before it (at 1 when none does;
    at the end when that is the last page). The first new page's place is the item's
    ``placement``; every new page whose place differs has its own (``places``)."""
    pages, places = _places(item, manifest)
    if not places:
        return None, ()
    sources = item.imported_sources()
    first = _place(places[0], pages)
    own = []
    for s, k in zip(sources, places, strict=True):
        if k == places[0]:
            continue
        # The end as a place of its own: after the last page (a page it names, so a block
        # that lands before it at the end does not come after it).
        own.append((s.source_id, _place(k, pages) or Placement(after_page=pages[-1])))
    return first, tuple(own)


def _place(k: int, pages: Sequence[str]) -> Placement | None:
    """The place after the notebook's first ``k`` pages: at 1, after page k, or the end."""
    if k == len(pages):
        return None
    if k == 0:
        return Placement(at=1)
    return Placement(after_page=pages[k - 1])


# -- a notebook of the same title ---------------------------------------------------------------

# A file name's last number, with the text before and after it (the extension apart).
_NUMBERED = re.compile(r"^(.*?)(\d+)(\D*)$")


@dataclass(frozen=True)
class Numbered:
    """A page file's name as a number in a pattern: "p021.jpg" is 21 of ("p", "")."""

    pattern: tuple[str, str]
    number: int


def numbered(name: str) -> Numbered | None:
    """``name``'s last number and the text around it (case aside, extension apart: a page
    scanned again as a TIFF keeps its number); None when its stem has no number."""
    stem = name.rsplit(".", 1)[0] if "." in name else name
    found = _NUMBERED.match(stem)
    if found is None:
        return None
    before, number, after = found.groups()
    return Numbered((before.casefold(), after.casefold()), int(number))


@dataclass(frozen=True)
class Continuation:
    """Whether a new notebook's pages continue a notebook's page numbers, with the two
    names that say it (for words: the notebook's last page's file, the item's first)."""

    continues: bool
    last: str | None
    first: str | None


def continuation(item: PlanItem, manifest: Mapping[str, Any]) -> Continuation:
    """Whether ``item``'s pages look like the next pages of the notebook ``manifest``: the
    names of its files and of the notebook's last page carry a number in one pattern; the
    lowest of its numbers above the notebook's highest in that pattern is the one after it
    ("021.jpg" and on, after a notebook whose pages go up to "020.jpg"); and each of its
    numbers not above it is the number of a page the notebook holds (a rescan of that page:
    asked about by its look). Numbers that start again or only overlap the notebook's, a
    number skipped, or a name without a number, are no continuation: a second volume, or
    rescans alone (which ``looks_like`` asks to import into that notebook)."""
    names = [rules.file_name(manifest, p.get("source_id")) for p in rules.live_records(manifest)]
    mine = [s.name for s in item.imported_sources()]
    last = names[-1] if names else None
    first = mine[0] if mine else None
    end = numbered(last) if last is not None else None
    ours = [numbered(n) for n in mine]
    if end is None or not ours or any(n is None or n.pattern != end.pattern for n in ours):
        return Continuation(False, last, first)
    held = {
        n.number
        for name in names
        if name is not None and (n := numbered(name)) is not None and n.pattern == end.pattern
    }
    top = max(held)
    numbers = [n.number for n in ours if n is not None]
    above = [k for k in numbers if k > top]
    again = all(k in held for k in numbers if k <= top)
    return Continuation(bool(above) and min(above) == top + 1 and again, last, first)


@dataclass(frozen=True)
class TitleMatch:
    """A notebook of the corpus titled as a new notebook, and whether its pages go on."""

    notebook_id: str
    entry: IndexEntry
    continuation: Continuation
    manifest: Mapping[str, Any] | None  # None: unreadable now (validate says so elsewhere)


def titled(corpus: Corpus) -> dict[str, list[str]]:
    """The corpus's notebooks by title (case aside): read once for a plan's items."""
    out: dict[str, list[str]] = {}
    for nbid, entry in corpus.index_entries().items():
        out.setdefault(entry.title.casefold(), []).append(nbid)
    return out


def title_matches(
    corpus: Corpus, item: PlanItem, by_title: Mapping[str, Sequence[str]] | None = None
) -> list[TitleMatch]:
    """The corpus's notebooks titled as ``item`` (case aside), each with whether the item's
    pages continue its page numbers; none for an item that is no new notebook of a folder.
    ``by_title``: ``titled(corpus)``, read here when None."""
    if item.op is not Op.CREATE_NOTEBOOK or item.restore is not None or not item.title:
        return []
    ids = (by_title if by_title is not None else titled(corpus)).get(item.title.casefold(), ())
    entries = corpus.index_entries()
    out = []
    for nbid in ids:
        entry = entries.get(nbid)
        if nbid == item.notebook_id or entry is None:
            continue
        try:
            manifest: Mapping[str, Any] | None = project.read(corpus.notebook_dir(nbid), nbid)
        except TranscribeError:
            manifest = None
        goes_on = continuation(item, manifest) if manifest is not None else None
        out.append(TitleMatch(nbid, entry, goes_on or Continuation(False, None, None), manifest))
    return out


def continued_by_title(matches: Sequence[TitleMatch]) -> TitleMatch | None:
    """The one notebook of the item's title whose page numbers its pages continue, which
    planning makes it complete; None when none does, or several do (which one is meant is
    not for planning to guess: the words say so)."""
    going_on = [m for m in matches if m.continuation.continues and m.manifest is not None]
    return going_on[0] if len(going_on) == 1 else None


def title_words(item: PlanItem, matches: Sequence[TitleMatch]) -> str:
    """What a new notebook titled as notebooks of the corpus (``matches``) does, truly:
    why it makes a second one (its pages do not continue that notebook's page numbers, or a
    person chose so), in the words validate's ``title_exists`` warning carries. ``matches``
    is not empty."""
    title = item.title
    going_on = [m for m in matches if m.continuation.continues]
    chosen = ", as you chose" if item.provenance.get(SECOND_NOTEBOOK) else ""
    if len(matches) > 1:
        lead = f"{len(matches)} notebooks titled {quoted_title(title)} already exist"
        if len(going_on) == 1:
            return (
                f"{lead}, and these pages continue the page numbers of one of them; this "
                f"makes another one{chosen}."
            )
        many = f"{len(going_on)} of them" if going_on else "none of them"
        return (
            f"{lead}, and these pages continue the page numbers of {many}, so this makes "
            "another one. To add them to one of those instead, import them into it."
        )
    [match] = matches
    day = day_words(match.entry.created_at)
    lead = f"A notebook titled {quoted_title(title)} already exists" + (
        f" (imported {day})" if day else ""
    )
    if match.continuation.continues:
        return (
            f"{lead}, and the names of these pages continue its page numbers; this makes a "
            f"second notebook of them{chosen}."
        )
    c = match.continuation
    detail = f" (its last page is {c.last}; this folder's first is {c.first})"
    return (
        f"{lead}, and the names of these pages do not continue its page numbers"
        f"{detail if c.last and c.first else ''}, so this makes a second notebook. Rename it "
        "in the plan if that is not what you want."
    )


# -- what a person left out of that import ----------------------------------------------------

# An item's provenance: the files left out again as they were left out of an earlier import
# of the same folder, as [{"rel", "notebook_id", "run_id"}] (``leave_out_as_before``).
LEFT_OUT_BEFORE = "left_out_before"


@dataclass(frozen=True)
class LeftOut:
    """A file a person left out of an import into ``notebook_id`` (Leave Out, a rescan's
    Replace, ``order --exclude``), as that run's record keeps it (its ``discovery``)."""

    sha256: str
    notebook_id: str
    run_id: str


def leave_out_as_before(
    item: PlanItem, index: HashIndex, before: Mapping[str, Mapping[str, LeftOut]]
) -> PlanItem:
    """A folder imported before, scanned again: the files a person left out of that import
    (``before``: notebook id → sha256 → LeftOut) are left out again, said on the item, so
    the folder is not proposed as "new pages" to complete the notebook with, and a blank
    page or a replaced rescan left out then does not come back unasked. Include takes one
    back. Only a new notebook (not a bag's) whose other files that notebook holds."""
    if item.op is not Op.CREATE_NOTEBOOK or item.restore is not None:
        return item
    held = held_sources(item)
    if not held or not before:
        return item
    notebooks = sorted(set().union(*(index.notebooks_with(s.sha256) for s in held)))
    again: list[dict[str, str]] = []
    sources = []
    for s in item.sources:
        hit = next((before[n][s.sha256] for n in notebooks if s.sha256 in before.get(n, {})), None)
        if hit is None or s.excluded or s.duplicate is not None:
            sources.append(s)
            continue
        sources.append(replace(s, excluded=True))
        again.append(
            {"rel": s.provenance.rel, "notebook_id": hit.notebook_id, "run_id": hit.run_id}
        )
    # A file that could not be imported (broken, encrypted) and was left out then: its
    # leaving out is said again, so the folder asks nothing it was answered before.
    acknowledged = list(item.acknowledged)
    for u in item.unusable:
        sha, rel = str(u.get("sha256") or ""), str(u.get("rel"))
        hit = next((before[n][sha] for n in notebooks if sha in before.get(n, {})), None)
        if hit is None or rel in acknowledged:
            continue
        acknowledged.append(rel)
        again.append({"rel": rel, "notebook_id": hit.notebook_id, "run_id": hit.run_id})
    if not again:
        return item
    provenance = {**item.provenance, LEFT_OUT_BEFORE: again}
    return replace(
        item, sources=tuple(sources), provenance=provenance, acknowledged=tuple(acknowledged)
    )


def left_out_again(item: PlanItem) -> list[str]:
    """The files of ``item`` left out again as before (their rels), still left out."""
    rels = [str(e.get("rel")) for e in item.provenance.get(LEFT_OUT_BEFORE) or []]
    out = {s.provenance.rel for s in item.sources if s.excluded} | set(item.acknowledged)
    return [rel for rel in rels if rel in out]


def held_sources(item: PlanItem) -> Sequence[PlanSource]:
    """The sources the corpus holds already (the ones a recognition counts)."""
    return [s for s in item.sources if not s.excluded and s.duplicate is Duplicate.IN_CORPUS]
