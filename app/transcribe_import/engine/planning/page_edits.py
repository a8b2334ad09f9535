"""The pages of a file of several (a PDF, a multi-page TIFF): leave some out, take them back,
put them in another order.

A source's ``pages`` are the ones imported, in the order chosen; the pages left out are
its ``left_out`` (in the plan body, so fingerprinted), kept so that they can be taken
back. A person names a page ``FILE#N``, N its page number in the file, which stays the
same whatever is left out or moved. The CLI's ``order`` (``--exclude``, ``--include``,
``--sequence`` with such names, through ``api.reorder``) and the window's Leave Out and
Include make these edits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.plan import (
    OrderingRule,
    PageRef,
    PlanItem,
    PlanPage,
    PlanSource,
)


def names_page(item: PlanItem, ref: PageRef) -> bool:
    """Whether ``ref`` is a page of a file of several rather than a file (a file of the item
    whose own name ends in #N is that file)."""
    if ref.number is None:
        return False
    try:
        ordering.source_by_name(item, str(ref))
    except ValueError:
        return True
    return False


def page_named(item: PlanItem, ref: PageRef) -> tuple[PlanSource, PlanPage]:
    """The page ``ref`` names: page N of the file (its number in the file, so it stays the
    same whatever is left out or moved); ValueError in words."""
    if ref.number is None:
        raise ValueError(f"{ref.file!r} names no page: name one as FILE#N, N its page number")
    number = ref.number
    source = ordering.source_by_name(item, ref.file)
    wanted = number - 1
    for page in (*source.pages, *source.left_out):
        if page.page_index == wanted:
            return source, page
    total = len(source.pages) + len(source.left_out)
    raise ValueError(f"{source.provenance.rel} has no page {number} (it has {total})")


def _with_source(item: PlanItem, new: PlanSource) -> PlanItem:
    return replace(
        item, sources=tuple(new if s.source_id == new.source_id else s for s in item.sources)
    )


def leave_out_pages(item: PlanItem, names: Sequence[PageRef]) -> PlanItem:
    """Leave pages of a file of several out (``FILE#N`` each): the file's other pages are
    imported, in their order. Leaving out every page of a file excludes the file (so it
    can be included again whole)."""
    for name in names:
        source, page = page_named(item, name)
        if page not in source.pages:
            continue  # left out already
        kept = tuple(p for p in source.pages if p != page)
        if not kept:
            every = tuple(sorted((*source.pages, *source.left_out), key=lambda p: p.page_index))
            new = replace(source, pages=every, left_out=(), excluded=True)
        else:
            new = replace(source, pages=kept, left_out=(*source.left_out, page))
        item = _with_source(item, new)
        if item.cover_page_id == page.page_id:
            item = replace(item, cover_page_id=None)
    return item


def take_back_pages(item: PlanItem, names: Sequence[PageRef]) -> PlanItem:
    """Import left-out pages again (``FILE#N`` each), each where its number puts it among
    the file's pages when they are in file order, else at the end of them."""
    for name in names:
        source, page = page_named(item, name)
        if page not in source.left_out:
            continue
        in_order = [p.page_index for p in source.pages] == sorted(
            p.page_index for p in source.pages
        )
        pages = (*source.pages, page)
        if in_order:
            pages = tuple(sorted(pages, key=lambda p: p.page_index))
        rest = tuple(p for p in source.left_out if p != page)
        item = _with_source(item, replace(source, pages=pages, left_out=rest, excluded=False))
    return item


def order_pages(item: PlanItem, names: Sequence[PageRef]) -> PlanItem:
    """The pages of one file of several in the order given (``FILE#N`` each); its pages not
    named are left out. ValueError when the names are of several files, or none."""
    picked = [page_named(item, n) for n in names]
    files = {s.source_id for s, _page in picked}
    if len(files) != 1:
        raise ValueError("give the pages of one file, each as FILE#N, in the order wanted")
    source = picked[0][0]
    pages = tuple(dict.fromkeys(page for _s, page in picked))
    every = (*source.pages, *source.left_out)
    rest = tuple(sorted((p for p in every if p not in pages), key=lambda p: p.page_index))
    new = replace(source, pages=pages, left_out=rest, excluded=False)
    item = _with_source(item, new)
    if item.cover_page_id in {p.page_id for p in rest}:
        item = replace(item, cover_page_id=None)
    return replace(item, ordering=replace(item.ordering, rule=OrderingRule.SEQUENCE, resolved=True))
