"""Plan edits besides page order (which lives in ordering.py): title, cover, unusable files, bags.

The CLI's `order` and the window's edits both go through these functions, so a
plan edited either way has the same shape. Each returns a new frozen item.

A notebook from a bag whose id the corpus uses for a different notebook (validate's
``notebook_conflict``) is settled by one of two edits: ``skip_notebook`` leaves it out,
``import_as_copy`` makes it a new notebook with new ids. Nothing is merged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.planning.plan import ImportPlan, Op, PlanItem, Restore, save_plan
from transcribe_import.engine.storage import fsio

if TYPE_CHECKING:
    from transcribe_import.engine.storage.corpus import Corpus


def rename(item: PlanItem, title: str) -> PlanItem:
    """A new notebook's title; an existing notebook (import into) keeps its own."""
    title = title.strip()
    if item.op is not Op.CREATE_NOTEBOOK:
        raise ValueError("only a new notebook can be renamed in a plan")
    if not title:
        raise ValueError("a notebook needs a title")
    return replace(item, title=title)


def set_cover(item: PlanItem, page_id: str | None) -> PlanItem:
    """Choose the cover page (None: the first page in notebook order, as the contract says)."""
    if page_id is not None:
        pages = {p.page_id for s in item.imported_sources() for p in s.pages}
        if page_id not in pages:
            raise ValueError("the cover must be one of the pages that will be imported")
    return replace(item, cover_page_id=page_id)


def acknowledge_unusable(item: PlanItem, rels: list[str]) -> PlanItem:
    """Leave out unusable files (corrupt, encrypted...): each stops being a validate error."""
    known = {u["rel"] for u in item.unusable}
    unknown = [r for r in rels if r not in known]
    if unknown:
        raise ValueError(f"{unknown[0]} is not an unusable file of this notebook")
    return replace(item, acknowledged=tuple(dict.fromkeys([*item.acknowledged, *rels])))


def unacknowledge_unusable(item: PlanItem, rels: list[str]) -> PlanItem:
    return replace(item, acknowledged=tuple(a for a in item.acknowledged if a not in rels))


def drafts_dir(corpus: Corpus) -> Path:
    """The window's drafts folder, refused (``corpus_link``) when a link is on the way."""
    return fsio.corpus_folder(corpus.root, corpus.runs_dir / "drafts")


def save_draft(corpus: Corpus, plan: ImportPlan) -> Path:
    """Keep the window's plan as a disposable draft (scan/plan may write only these)."""
    fsio.make_dirs(drafts_dir(corpus))
    path = drafts_dir(corpus) / f"{plan.plan_id}.json"
    save_plan(plan, path)
    return path


# -- a bag's notebook whose id the corpus already uses: skip it, or import it as a copy ------


def _remap(value: Any, ids: Mapping[str, str]) -> Any:
    """``value`` with every string that is one of the old ids (keys too) made the new id.

    Carried keys may name pages (a transcription keyed by page id): a copy must point them
    at its own pages, and an id is a UUID, so no other string is ever taken for one.
    """
    if isinstance(value, str):
        return ids.get(value, value)
    if isinstance(value, dict):
        return {ids.get(k, k): _remap(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [_remap(v, ids) for v in value]
    return value


def import_as_copy(item: PlanItem) -> PlanItem:
    """The bag's notebook as a new notebook: every id new, carried keys pointed at them.

    The item id stays (the plan's items do not change); the title says it is a copy.
    """
    if item.restore is None:
        raise ValueError(
            f"{item.label}: only a notebook planned from a bag can be imported as a copy"
        )
    ids: dict[str, str] = {item.notebook_id: new_id()}
    for s in item.sources:
        ids[s.source_id] = new_id()
        for p in s.pages:
            ids[p.page_id] = new_id()
            ids[p.render_id] = new_id()
    sources = tuple(
        replace(
            s,
            source_id=ids[s.source_id],
            pages=tuple(
                replace(
                    p,
                    page_id=ids[p.page_id],
                    render_id=ids[p.render_id],
                    extra=_remap(dict(p.extra), ids) if p.extra else None,
                )
                for p in s.pages
            ),
            duplicate=None,  # "unchanged" was about the old ids
            extra=_remap(dict(s.extra), ids) if s.extra else None,
        )
        for s in item.sources
    )
    restore = Restore(
        _remap(dict(item.restore.manifest), ids),
        tuple(ids[p] for p in item.restore.page_order),
        tuple(ids[p] for p in item.restore.history),
    )
    return replace(
        item,
        notebook_id=ids[item.notebook_id],
        title=f"{item.title} (copy)",
        sources=sources,
        cover_page_id=ids.get(item.cover_page_id) if item.cover_page_id else None,
        restore=restore,
        provenance={**item.provenance, "copy_of": item.notebook_id},
    )


def skip_notebook(item: PlanItem) -> PlanItem:
    """Leave the bag's notebook out of the import: every source excluded, nothing lands."""
    if item.restore is None:
        raise ValueError(f"{item.label}: only a notebook planned from a bag is skipped this way")
    return replace(item, sources=tuple(replace(s, excluded=True) for s in item.sources))
