"""Late pages and rescans, the plan's side: where an item's pages go, what they replace.

An ``import_into_notebook`` item may place its pages (``PlanItem.placement``: at a
1-based position, or after a page) instead of at the end, and may say that some of its
pages are rescans replacing pages of the notebook (``PlanItem.replacements``). Both are
in the plan document, so they are fingerprinted (plan.py); they land in the item's
ingest transactions (ingest/placement.py holds the rules against the notebook).

Here: the edits (``place``, ``replace_page``, ``keep_pages``), pure functions over frozen
items as every plan edit is; each rule as one function making its plan problems, with its
own code, its words and its resolutions (validate asks them all); and ``describe``, the
words the command line uses to say where the pages go and what they replace.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from transcribe_import.engine.ingest import placement as rules
from transcribe_import.engine.ingest.placement import Placement
from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.plan import ImportPlan, Op, PageRef, PlanItem, PlanSource
from transcribe_import.engine.planning.problems import (
    PlanProblem,
    ProblemCode,
    ProblemSeverity,
    Resolution,
    file_name,
    files_of,
)
from transcribe_import.engine.storage import project

# -- naming the item's pages -------------------------------------------------------------------


def _sources_by_page(item: PlanItem) -> dict[str, PlanSource]:
    return {p.page_id: s for s in item.sources for p in s.pages}


def rescan_name(item: PlanItem, page_id: str) -> str:
    """A page of the item as problems name files (``file_name``), and which page of it for
    a file of several pages."""
    source = _sources_by_page(item).get(page_id)
    if source is None:
        return f"page {page_id}"
    if len(source.pages) == 1:
        return file_name(source)
    number = next(k for k, p in enumerate(source.pages, 1) if p.page_id == page_id)
    return f"{file_name(source)} (page {number})"


def page_of_file(item: PlanItem, name: str) -> str:
    """The plan page a person names by its file, as ``order`` names files (``rel``, or a
    base name unique in the item), and ``NAME#N`` for the N-th page of a file of several;
    ValueError in words."""
    ref = PageRef.parse(name)
    try:
        source, k = ordering.source_by_name(item, name), None
    except ValueError:
        if ref.number is None:
            raise
        source, k = ordering.source_by_name(item, ref.file), ref.number
    pages = source.pages
    if k is None and len(pages) > 1:
        raise ValueError(
            f"{source.provenance.rel} has {len(pages)} pages: say which one, as "
            f"{source.name}#N (N from 1 to {len(pages)})"
        )
    k = 1 if k is None else k
    if not 1 <= k <= len(pages):
        raise ValueError(f"{source.provenance.rel} has no page {k} (it has {len(pages)})")
    return pages[k - 1].page_id


# -- the edits -------------------------------------------------------------------------------


def _into_only(item: PlanItem, what: str) -> None:
    if item.op is not Op.IMPORT_INTO_NOTEBOOK:
        raise ValueError(
            f"{item.label} is a new notebook: its pages are in the plan's order, so {what} "
            "only pages added to an existing notebook"
        )


def place(item: PlanItem, *, at: int | None = None, after_page: str | None = None) -> PlanItem:
    """Put the item's new pages at position ``at`` (1: first), or right after the notebook's
    page ``after_page``; neither: at the end. All of them go there together, pages that
    had places of their own (``places``) too. Whether the notebook has that place is
    validate's to say (it may change before the commit)."""
    if at is None and after_page is None:
        return replace(item, placement=None, places=())
    _into_only(item, "a position is for")
    if at is not None and at < 1:
        raise ValueError(f"position {at} is not a place in a notebook: the first page is 1")
    # One place for all of them: the places of their own (``places``) are given up.
    return replace(item, placement=Placement(at=at, after_page=after_page), places=())


def _in_page_order(item: PlanItem, pairs: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(
        (p.page_id, pairs[p.page_id]) for s in item.sources for p in s.pages if p.page_id in pairs
    )


def replace_page(item: PlanItem, page_id: str, old_page_id: str) -> PlanItem:
    """The item's page ``page_id`` (a rescan) replaces the notebook's page ``old_page_id``,
    taking its place; refused, in the rule's words, when another page already replaces it."""
    _into_only(item, "a rescan replaces a page of")
    if page_id not in _sources_by_page(item):
        raise ValueError(f"{item.label} has no page {page_id}")
    pairs = dict(item.replacements)
    pairs[page_id] = old_page_id
    new = replace(item, replacements=_in_page_order(item, pairs))
    twice = _replaced_twice([new])
    if twice:
        raise ValueError(f"{item.label}: {twice[0].message}")
    return new


def keep_pages(item: PlanItem, page_ids: Sequence[str]) -> PlanItem:
    """Those pages replace nothing: they are added as new pages, where the others go."""
    drop = set(page_ids)
    return replace(item, replacements=tuple(r for r in item.replacements if r[0] not in drop))


# -- the rules: each one function, its code, its words, its resolutions ----------------------


def plan_problems(plan: ImportPlan) -> list[PlanProblem]:
    """The rules that need the plan alone (validate adds the notebook's: ``notebook_problems``)."""
    out: list[PlanProblem] = []
    for item in plan.items:
        out += _on_new_notebook(item)
        out += _left_out(item)
    out += _replaced_twice(plan.items)
    return out


def _on_new_notebook(item: PlanItem) -> list[PlanProblem]:
    """A new notebook has no pages to place among or to replace."""
    if item.op is not Op.CREATE_NOTEBOOK:
        return []
    out = []
    if item.placement is not None or item.places:
        out.append(
            PlanProblem(
                ProblemSeverity.ERROR,
                ProblemCode.PLACEMENT_ON_NEW_NOTEBOOK,
                item.item_id,
                "A new notebook's pages go in the plan's order, so a position "
                "for them means nothing. Put them at the end (remove the position).",
                resolutions=(Resolution.AT_END,),
            )
        )
    if item.replacements:
        names = ", ".join(rescan_name(item, new) for new, _old in item.replacements)
        ids = tuple(_source_ids(item, [new for new, _old in item.replacements]))
        out.append(
            PlanProblem(
                ProblemSeverity.ERROR,
                ProblemCode.PLACEMENT_ON_NEW_NOTEBOOK,
                item.item_id,
                f"A new notebook has no pages to replace, yet {names} would "
                "replace some. Add them as pages instead.",
                ids,
                resolutions=(Resolution.NO_REPLACE,),
                files=files_of(item, ids),
            )
        )
    return out


def _replaced_twice(items: Sequence[PlanItem]) -> list[PlanProblem]:
    """A notebook page is replaced by one rescan at most, across the whole plan."""
    by_page: dict[tuple[str, str], list[tuple[PlanItem, str]]] = defaultdict(list)
    for item in items:
        if item.op is Op.IMPORT_INTO_NOTEBOOK:
            for new, old in item.replacements:
                by_page[(item.notebook_id, old)].append((item, new))
    out = []
    for (_nb, old), rescans in by_page.items():
        if len(rescans) < 2:
            continue
        names = " and ".join(rescan_name(it, new) for it, new in rescans)
        item = rescans[-1][0]
        out.append(
            PlanProblem(
                ProblemSeverity.ERROR,
                ProblemCode.PAGE_REPLACED_TWICE,
                item.item_id,
                f"{names} would each replace page {old}; a page is replaced by "
                "one rescan. Keep one of them replacing it and add the others as pages.",
                tuple(sid for it, new in rescans for sid in _source_ids(it, [new])),
                resolutions=(Resolution.NO_REPLACE,),
                files=tuple(f for it, new in rescans for f in files_of(it, _source_ids(it, [new]))),
            )
        )
    return out


def _left_out(item: PlanItem) -> list[PlanProblem]:
    """A rescan left out of the import (excluded, a duplicate) replaces nothing: said so."""
    if not item.replacements:
        return []
    sources = _sources_by_page(item)
    idle = [new for new, _old in item.replacements if new in sources and not sources[new].imported]
    if not idle or item.op is not Op.IMPORT_INTO_NOTEBOOK:
        return []
    names = ", ".join(rescan_name(item, new) for new in idle)
    ids = tuple(_source_ids(item, idle))
    return [
        PlanProblem(
            ProblemSeverity.WARNING,
            ProblemCode.REPLACEMENT_LEFT_OUT,
            item.item_id,
            f"{names} would replace a page but is not imported (left out, or a "
            "duplicate), so that page stays as it is. Include it, or say it replaces nothing.",
            ids,
            resolutions=(Resolution.INCLUDE, Resolution.NO_REPLACE),
            files=files_of(item, ids),
        )
    ]


def notebook_problems(item: PlanItem, manifest: Mapping[str, Any]) -> list[PlanProblem]:
    """The item's placement and rescans against its notebook as it is now (``manifest``)."""
    if item.op is not Op.IMPORT_INTO_NOTEBOOK or not (
        item.placement or item.places or item.replacements
    ):
        return []
    out = []
    for where, block in _placed_blocks(item):
        refusal = rules.placement_refusal(manifest, where)
        if refusal is not None:
            how = Resolution.AT if where.at is not None else Resolution.AFTER
            advice = "Choose another place for them, or put them at the end."
            named: tuple[str, ...] = tuple(block) if item.places else ()
            out.append(_refused(item, refusal, advice, named, (how, Resolution.AT_END)))
    sources = _sources_by_page(item)
    for new, old in item.replacements:
        if new not in sources or not sources[new].imported:
            continue  # _left_out says so
        refusal = rules.replaced_refusal(manifest, old, new, rescan_name(item, new))
        if refusal is not None:
            advice = "Say which page it replaces, or add it as a new page."
            ids = (sources[new].source_id,)
            out.append(
                _refused(item, refusal, advice, ids, (Resolution.REPLACE, Resolution.NO_REPLACE))
            )
    return out


def _refused(
    item: PlanItem,
    refusal: rules.Refusal,
    advice: str,
    source_ids: tuple[str, ...],
    resolutions: tuple[Resolution, ...],
) -> PlanProblem:
    """A rule against the notebook said no: its code and words, then what to do."""
    return PlanProblem(
        ProblemSeverity.ERROR,
        ProblemCode(refusal.code.value),
        item.item_id,
        f"{refusal.words} {advice}",
        source_ids,
        resolutions=resolutions,
        files=files_of(item, source_ids),
    )


def _placed_blocks(item: PlanItem) -> list[tuple[Placement, list[str]]]:
    """The item's blocks of new pages with a place (not at the end), each place once: the
    sources that go there (``rules.blocks``)."""
    ids = [s.source_id for s in item.imported_sources()]
    if not ids and item.placement is not None:
        return [(item.placement, [])]  # nothing to place yet: the place is still checked
    out: dict[Placement, list[str]] = {}
    for where, block in rules.blocks(ids, item.placement, item.places):
        if where is not None:
            out.setdefault(where, []).extend(block)
    return list(out.items())


def _source_ids(item: PlanItem, page_ids: Sequence[str]) -> list[str]:
    sources = _sources_by_page(item)
    return list(dict.fromkeys(sources[p].source_id for p in page_ids if p in sources))


# -- where the pages land ----------------------------------------------------------------------


def landing(item: PlanItem, manifest: Mapping[str, Any] | None) -> dict[str, int]:
    """Each imported page of the item and its number in the notebook once committed (plan
    page id -> 1-based position): the number a person sees beside it in the review.

    A new notebook's pages are numbered in the plan's order. An into item's land by the
    ingest's own rule (``apply_pages``, on a copy of the notebook's page list): a rescan
    in the place of the page it replaces, the other pages at the placement; a page the
    notebook holds already (landed by an earlier run of the plan) where it is. When the
    notebook cannot be read (``manifest`` None) or refuses the placement, the new pages have
    no place to tell (validate says why): none of them is numbered; nor is a rescan whose
    page the notebook does not have.
    """
    imported = [p.page_id for s in item.imported_sources() for p in s.pages]
    if item.op is not Op.IMPORT_INTO_NOTEBOOK:
        return {page_id: k for k, page_id in enumerate(imported, 1)}
    if manifest is None:
        return {}
    if any(rules.placement_refusal(manifest, where) for where, _ids in _placed_blocks(item)):
        return {}
    records = rules.live_records(manifest)
    held = {str(p.get("id")) for p in records}
    pairs = {
        new: old
        for new, old in item.replacements
        if new not in held and rules.replaced_refusal(manifest, old, new, new) is None
    }
    refused = {new for new, _old in item.replacements if new not in held and new not in pairs}
    # A copy of the notebook's pages and history, each block landing on it in turn.
    copy: dict[str, Any] = {
        "pages": [{"id": p.get("id")} for p in records],
        project.REPLACED_PAGES: [
            {"page": {"id": e["page"].get("id")}, "replaced_by": e.get("replaced_by")}
            for e in project.replaced_entries(dict(manifest))
        ],
    }
    sources = {s.source_id: s for s in item.imported_sources()}
    for where, ids in rules.blocks(list(sources), item.placement, item.places):
        rules.apply_pages(
            copy,
            [
                {"id": p.page_id}
                for sid in ids
                for p in sources[sid].pages
                if p.page_id not in held and p.page_id not in refused
            ],
            placement=rules.anchor(copy, where),
            replacements=pairs,
            import_run_id=None,
            item_id=None,
            now="",
        )
    wanted = set(imported)
    return {str(p["id"]): k for k, p in enumerate(copy["pages"], 1) if p["id"] in wanted}


def added_pages(item: PlanItem) -> int:
    """How many of the item's imported pages are added as new pages (the others replace
    pages of its notebook)."""
    replacing = {new for new, _old in item.replacements}
    return sum(1 for s in item.imported_sources() for p in s.pages if p.page_id not in replacing)


# -- in words --------------------------------------------------------------------------------


def replaced_words(manifest: Mapping[str, Any], page_id: str) -> str:
    """The notebook's page a rescan replaces, as a person finds it, naming where the rescan
    goes: "page 37 of “Diary 1931” (“12v”, 37.jpg)". Once replaced (the plan committed), its
    number is that of the page in its place now: "page 37 of “Diary 1931” (37.jpg), now
    replaced"."""
    nb = rules.notebook_words(manifest)
    now = rules.live_page(manifest, page_id)
    if now is None:  # not a page of the notebook: validate says so
        return f"page {page_id} of {nb}"
    number = [p.get("id") for p in rules.live_records(manifest)].index(now) + 1
    # page_words: "page 37 (…)" for a page of the notebook, "page ID (…), now replaced" else.
    said = rules.page_words(manifest, page_id).removeprefix(
        f"page {number}" if now == page_id else f"page {page_id}"
    )
    return f"page {number} of {nb}{said}"


def replacement_words(item: PlanItem, manifest: Mapping[str, Any] | None) -> list[str]:
    """What each imported rescan of the item replaces, and so where it goes: "37.jpg
    replaces page 37 of “Diary 1931” (37.jpg)" ([]: none). ``manifest``: the notebook as
    it is now; None names its pages by id."""
    if item.op is not Op.IMPORT_INTO_NOTEBOOK:
        return []
    sources = _sources_by_page(item)
    out = []
    for new, old in item.replacements:
        if new in sources and sources[new].imported:
            named = replaced_words(manifest, old) if manifest is not None else f"page {old}"
            out.append(f"{rescan_name(item, new)} replaces {named}")
    return out


# -- in words --------------------------------------------------------------------------------


def describe(item: PlanItem, manifest: Mapping[str, Any] | None) -> list[str]:
    """Where the item's pages go and what they replace, for a person (nothing to say: []).

    ``manifest``: the target notebook as it is now, to name its pages; None names them by id.
    """
    if item.op is not Op.IMPORT_INTO_NOTEBOOK:
        return []
    if item.places:
        return blocks_words(item, manifest) + replacement_words(item, manifest)
    out = []
    p = item.placement if added_pages(item) else None  # no new pages: no place for them
    if p is not None:
        out.append(f"new pages {place_words(p, manifest)}")
    return out + replacement_words(item, manifest)


def place_words(p: Placement | None, manifest: Mapping[str, Any] | None) -> str:
    """Where a place is in the notebook as it is now (``manifest``; None: named by ids):
    "at position 3, before page 3 (…)", "after page 11 (…)", "at the end"."""
    if p is None:
        return "at the end"
    if p.after_page is not None:
        named = rules.page_words(manifest, p.after_page) if manifest is not None else None
        return f"after {named or f'page {p.after_page}'}"
    ids = None if manifest is None else [q.get("id") for q in rules.live_records(manifest)]
    if ids is not None and p.at == len(ids) + 1:
        return f"at position {p.at}, the end"
    if ids is not None and p.at is not None and 1 <= p.at <= len(ids):
        assert manifest is not None
        return f"at position {p.at}, before {rules.page_words(manifest, str(ids[p.at - 1]))}"
    return f"at position {p.at}"


def blocks_words(item: PlanItem, manifest: Mapping[str, Any] | None) -> list[str]:
    """Where each block of the item's new pages goes, in the order they land: "012.jpg
    after page 11 (011.jpg)", "040.jpg to 042.jpg at the end" (a block of rescans only:
    nothing, each rescan going where the page it replaces is); [] for an item whose pages
    have one place (no ``places``)."""
    if item.op is not Op.IMPORT_INTO_NOTEBOOK or not item.places:
        return []
    replacing = {new for new, _old in item.replacements}
    sources = {s.source_id: s for s in item.imported_sources()}
    out = []
    for where, ids in rules.blocks(list(sources), item.placement, item.places):
        added = [sid for sid in ids if any(p.page_id not in replacing for p in sources[sid].pages)]
        if not added:
            continue
        first, last = file_name(sources[added[0]]), file_name(sources[added[-1]])
        names = first if len(added) == 1 else f"{first} to {last}"
        out.append(f"{names} {place_words(where, manifest)}")
    return out
