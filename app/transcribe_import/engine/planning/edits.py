"""Plan edits besides page order (which lives in ordering.py): title, cover, unusable files.

The CLI's `order` and the window's edits both go through these functions, so a
plan edited either way has the same shape. Each returns a new frozen item.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from transcribe_import.engine.planning.plan import ImportPlan, Op, PlanItem, save_plan
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
    return corpus.runs_dir / "drafts"


def save_draft(corpus: Corpus, plan: ImportPlan) -> Path:
    """Keep the window's plan as a disposable draft (scan/plan may write only these)."""
    fsio.make_dirs(drafts_dir(corpus))
    path = drafts_dir(corpus) / f"{plan.plan_id}.json"
    save_plan(plan, path)
    return path
