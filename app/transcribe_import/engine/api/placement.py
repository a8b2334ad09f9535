"""Late pages and rescans: where an into item's pages go, and which page a rescan replaces."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.base.ids import ShortIds
from transcribe_import.engine.planning.plan import ImportPlan, Op, PlanItem
from transcribe_import.engine.planning.problems import Resolution
from transcribe_import.engine.storage.corpus import Corpus


@dataclass(frozen=True)
class NotebookPage:
    """One page of a notebook as a person picks it: its place, names and render.

    ``replaced_by``: for a page a rescan replaced (the history, listed after the pages),
    the page that took its place; None for the notebook's pages.
    """

    position: int | None  # 1-based place in the notebook; None for a replaced page
    page_id: str
    label: str | None
    file: str | None  # the name of the file it was imported from
    render: Path | None
    words: str  # how messages name it ("page 7 (“12v”, scan 7.jpg)")
    replaced_by: str | None = None
    replaced_at: str | None = None


def _manifest(corpus: Corpus, notebook_id: str) -> dict[str, Any]:
    from transcribe_import.engine.storage import project

    return project.read(corpus.notebook_dir(notebook_id), notebook_id)


def notebook_pages(corpus: Corpus, notebook_id: str) -> list[NotebookPage]:
    """A notebook's pages in order, then the pages rescans replaced (TranscribeError when
    the notebook cannot be read)."""
    from transcribe_import.engine.api.library import notebook_folder
    from transcribe_import.engine.ingest import placement
    from transcribe_import.engine.storage import project

    folder = notebook_folder(corpus, notebook_id)
    doc = _manifest(corpus, notebook_id)

    def page(p: dict[str, Any], position: int | None, entry: dict[str, Any]) -> NotebookPage:
        render = p.get("render")
        path = render.get("path") if isinstance(render, dict) else None
        label = p.get("label")
        return NotebookPage(
            position,
            str(p.get("id")),
            label if isinstance(label, str) else None,
            placement.file_name(doc, p.get("source_id")),
            folder / path if isinstance(path, str) else None,
            placement.page_words(doc, str(p.get("id"))),
            entry.get("replaced_by"),
            entry.get("replaced_at"),
        )

    live = [page(p, k, {}) for k, p in enumerate(placement.live_records(doc), 1)]
    return live + [page(e["page"], None, e) for e in project.replaced_entries(doc)]


def place(
    corpus: Corpus, item: PlanItem, *, at: int | None = None, after: str | None = None
) -> PlanItem:
    """Put an into item's new pages at position ``at`` or after the page ``after`` names
    (its id, label, position or the start of its id); neither: at the end. ValueError in
    words when the item or the notebook has no such place."""
    from transcribe_import.engine.ingest.placement import find_page
    from transcribe_import.engine.planning import placement

    if after is None:
        return placement.place(item, at=at)
    if item.op is not Op.IMPORT_INTO_NOTEBOOK:
        return placement.place(item, after_page=after)  # refused, in its words
    return placement.place(item, after_page=find_page(_manifest(corpus, item.notebook_id), after))


def replace_page(corpus: Corpus, item: PlanItem, rescan: str, page: str) -> PlanItem:
    """The item's page ``rescan`` (a plan page id, or its file as ``order`` names files,
    ``FILE#N`` for a page of a file of several) replaces the notebook's page ``page``
    (named as ``place`` reads ``after``). ValueError in words when refused."""
    from transcribe_import.engine.ingest.placement import find_page
    from transcribe_import.engine.planning import placement

    new = _plan_page(item, rescan)
    if item.op is not Op.IMPORT_INTO_NOTEBOOK:
        return placement.replace_page(item, new, page)  # refused, in its words
    return placement.replace_page(item, new, find_page(_manifest(corpus, item.notebook_id), page))


def keep_pages(item: PlanItem, rescans: Sequence[str]) -> PlanItem:
    """Those pages (plan page ids or files) replace nothing: they are added as new pages."""
    from transcribe_import.engine.planning import placement

    return placement.keep_pages(item, [_plan_page(item, r) for r in rescans])


def _plan_page(item: PlanItem, key: str) -> str:
    from transcribe_import.engine.planning import placement

    if any(p.page_id == key for s in item.sources for p in s.pages):
        return key
    return placement.page_of_file(item, key)


def placement_words(corpus: Corpus, item: PlanItem) -> list[str]:
    """Where an into item's pages go and what they replace, in words ([]: at the end, none);
    the notebook's pages named as it is now when it can be read."""
    from transcribe_import.engine.planning import placement
    from transcribe_import.engine.planning.corpus_turns import is_turn, turn_words

    if item.op is not Op.IMPORT_INTO_NOTEBOOK or not (
        item.placement or item.places or item.replacements
    ):
        return []
    try:
        doc: dict[str, Any] | None = _manifest(corpus, item.notebook_id)
    except TranscribeError:
        doc = None
    if is_turn(item):  # a turn of pages in the corpus: its pages turn theirs
        return [turn_words(item, doc)]
    return placement.describe(item, doc)


@dataclass(frozen=True)
class Landing:
    """Where an item's pages land in its notebook once committed, for the review."""

    numbers: dict[str, int]  # plan page id -> its number in the notebook (none: unknown)
    added: int  # pages added as new pages; the others replace pages of the notebook
    replaces: tuple[str, ...]  # what each rescan replaces, in words (planning/placement.py)
    # An item whose pages go in several places (its ``places``): where each block goes, in
    # words, in the order they land ("012.jpg after page 11 (011.jpg)"); () otherwise.
    places: tuple[str, ...] = ()
    # The pages the notebook holds once the item is committed: those there now and the
    # pages it adds (a rescan takes a page's place; a skipped or left-out file adds none).
    # None: the notebook it goes into could not be read.
    total: int | None = None


def landing(corpus: Corpus, item: PlanItem) -> Landing:
    """Where ``item``'s pages land: each page's number in the notebook (a rescan's is the
    number of the page it replaces), how many are new pages, what the rescans replace and
    where each block of new pages goes (pages in several places) in words; the notebook
    read as it is now."""
    from transcribe_import.engine.planning import placement

    doc: dict[str, Any] | None = None
    if item.op is Op.IMPORT_INTO_NOTEBOOK:
        try:
            doc = _manifest(corpus, item.notebook_id)
        except TranscribeError:
            doc = None
    added = placement.added_pages(item)
    there = len(doc.get("pages") or ()) if doc is not None else 0
    unknown = item.op is Op.IMPORT_INTO_NOTEBOOK and doc is None
    return Landing(
        placement.landing(item, doc),
        added,
        tuple(placement.replacement_words(item, doc)),
        tuple(placement.blocks_words(item, doc)),
        None if unknown else there + added,
    )


def completion_target(corpus: Corpus, item: PlanItem) -> str | None:
    """The notebook ``item`` can complete: part of its folder is in it already, the rest is
    new, or it has the item's title and the item's pages continue its page numbers
    (planning/reimport.py); None when there is none."""
    from transcribe_import.engine.planning import reimport

    found = reimport.recognise(corpus, item)
    if found is not None and found.kind is reimport.Recognition.PARTLY_IMPORTED:
        return found.notebook_id
    if found is not None:
        return None
    going_on = reimport.continued_by_title(reimport.title_matches(corpus, item))
    return going_on.notebook_id if going_on is not None else None


def complete_notebook(corpus: Corpus, item: PlanItem) -> PlanItem:
    """``item`` completing the notebook that holds part of its folder, or the notebook of
    its title whose page numbers its pages continue: its new pages go in where their names
    put them among its pages, every page there keeping its id (``order --complete``, the
    window's Complete “X”); an item planning made complete it by default as it is.
    ValueError in words when there is no notebook to complete."""
    from transcribe_import.engine.planning import reimport

    if reimport.completes_by_default(item):
        return item  # planned so already: asking for it again changes nothing
    target = completion_target(corpus, item)
    if target is None:
        raise ValueError(
            f"“{item.label}”: no notebook of the corpus holds part of these files, nor has "
            "their title with page numbers they continue, so there is no notebook to "
            "complete; it is imported as planned"
        )
    manifest = _manifest(corpus, target)
    if reimport.recognise(corpus, item) is None:  # no file held: the notebook it continues
        return reimport.continue_notebook(item, target, manifest)
    return reimport.complete(item, target, manifest)


def import_into(corpus: Corpus, item: PlanItem, notebook: str) -> PlanItem:
    """``item``, a new notebook, imported into the corpus's notebook ``notebook`` (its id,
    the start of its id, or its title) instead, as Complete does (planning/reimport.py):
    its files that notebook holds are skipped, its new pages go where their names put them
    among the notebook's pages, and none of the notebook's pages changes; its look-alikes of
    that notebook's pages can then replace them (``order --into``, the window's Import into
    “X” instead). ValueError in words when it cannot."""
    from transcribe_import.engine.planning import reimport

    if item.op is not Op.CREATE_NOTEBOOK:
        raise ValueError(
            f"“{item.label}” is imported into a notebook of the corpus already; only a new "
            "notebook's pages can be imported into one instead"
        )
    if item.restore is not None:
        raise ValueError(
            f"“{item.label}” comes from a bag and keeps its own notebook and ids, so it "
            "cannot be imported into another notebook"
        )
    notebook_id = notebook_named(corpus, notebook)
    try:
        manifest = _manifest(corpus, notebook_id)
    except TranscribeError as exc:
        raise ValueError(str(exc)) from None
    return reimport.complete(item, notebook_id, manifest)


def notebook_id_for(corpus: Corpus, key: str) -> str:
    """The notebook a command's NOTEBOOK_ID names: a whole id as it is (found or not, so
    that the command's own words say it is not there), else as ``notebook_named`` finds it
    (the start of its id, as the lists show it, or its title); ValueError in words."""
    from transcribe_import.engine.base.ids import is_valid_id

    return key if is_valid_id(key) else notebook_named(corpus, key)


def notebook_short_ids(corpus: Corpus) -> ShortIds:
    """How every line names a notebook of this corpus: as ``run_short_ids`` names runs."""
    return corpus.notebook_short_ids()


def notebook_named(corpus: Corpus, key: str) -> str:
    """The notebook of the corpus ``key`` names: its id, the start of its id (at least 4
    characters), or its title; ValueError in words when none or several."""
    from transcribe_import.engine.base.ids import ids_by_prefix

    entries = corpus.index_entries()
    found = ids_by_prefix(key, entries) or [n for n, e in entries.items() if e.title == key]
    if len(found) == 1:
        return found[0]
    if found:
        raise ValueError(f"{key!r} names {len(found)} notebooks: give more of its id")
    raise ValueError(
        f"the corpus has no notebook {key!r}: name it by its id, the start of its id or its "
        "title (`transcribe-import notebooks` lists them)"
    )


def answer_lookalike(
    corpus: Corpus, plan: ImportPlan, item_id: str, name: str, how: Resolution
) -> PlanItem:
    """The item with its page ``name`` that looks like another answered ``how``: Replace
    (``RESCAN_REPLACES``), ``KEEP_BOTH`` or ``LEAVE_OUT`` (planning/lookalikes.py); the
    CLI's ``order --rescan | --keep-both | --exclude``, the window's three buttons.
    ValueError in words when it does not apply."""
    from transcribe_import.engine.planning import lookalikes

    return lookalikes.answer(corpus, plan, item_id, name, how)


@dataclass(frozen=True)
class AnsweredQuestion:
    """A rescan question answered (``answer_lookalikes``): the page, as ``order`` names it,
    and the page it looks like, as its question names it."""

    name: str
    other: str  # "page 37 of “Diary 1931”", "Box/36.jpg"
    in_plan: bool  # the other page is one of this import's (else the corpus's)


@dataclass(frozen=True)
class Answered:
    """Several rescan questions answered at once: the item after, and the questions
    answered, in the order they were asked."""

    item: PlanItem
    answered: tuple[AnsweredQuestion, ...]


def answer_lookalikes(
    corpus: Corpus, plan: ImportPlan, item_id: str, names: Sequence[str] | None, how: Resolution
) -> Answered:
    """The item with the questions about its pages ``names`` answered ``how`` (as
    ``answer_lookalike``), or, for ``names`` None, every question about its pages that the
    answer fits; with the pages answered. The CLI's ``order --keep-both FILE... | --all``
    and ``--rescan FILE... | --all``. ValueError in words, nothing answered, when one of
    them does not apply."""
    from transcribe_import.engine.planning import lookalikes

    item, done = lookalikes.answer_many(corpus, plan, item_id, names, how)
    answered = (AnsweredQuestion(f.name, f.other.words, f.other.notebook_id is None) for f in done)
    return Answered(item, tuple(answered))


def none_are_rescans(corpus: Corpus, plan: ImportPlan, item_id: str) -> PlanItem:
    """The item with its pages said to be no rescans of one another nor of the pages of the
    import's other notebooks (None Are Rescans: its pages are compared with the corpus's
    only); the CLI's ``order --none-are-rescans``, the window's button. ValueError in words
    when no page of it looks like another page of the import."""
    from transcribe_import.engine.planning import lookalikes

    return lookalikes.answer_all_apart(corpus, plan, item_id)
