"""The pages of a file of several (a PDF, a multi-page TIFF): leave some out, take them back,
put them in another order; and any page turned a quarter, a half or three quarters.

A source's ``pages`` are the ones imported, in the order chosen; the pages left out are
its ``left_out`` (in the plan body, so fingerprinted), kept so that they can be taken
back. A person names a page ``FILE#N``, N its page number in the file, which stays the
same whatever is left out or moved. The CLI's ``order`` (``--exclude``, ``--include``,
``--sequence`` with such names, through ``api.reorder``) and the window's Leave Out and
Include make these edits.

A page's turn (``turn_pages``, ``order --turn``, the review's Turn) is kept on the page: the
render is made upright, the source kept byte for byte. ``probably_sideways`` finds the pages
worth a "Turn it?": never turned without the person's word.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from transcribe_import.engine.media.kinds import MULTI_PAGE_TYPES, Turn
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


def turn_pages(item: PlanItem, names: Sequence[PageRef], turn: Turn) -> PlanItem:
    """The pages named turned ``turn`` clockwise from their file's upright (``Turn.NONE``
    takes a turn back): ``FILE`` turns every page of the file, ``FILE#N`` page N of a file
    of several. ValueError in words for a name that is no file or page of the item."""
    if not names:
        raise ValueError("name the files to turn, then the angle: FILE... 90")
    turns: dict[str, Turn] = {}
    for name in names:
        if names_page(item, name):
            turns[page_named(item, name)[1].page_id] = turn
        else:
            source = ordering.source_by_name(item, str(name))
            turns.update((p.page_id, turn) for p in (*source.pages, *source.left_out))
    return with_turns(item, turns)


def with_turns(item: PlanItem, turns: Mapping[str, Turn]) -> PlanItem:
    """``item`` with each page in ``turns`` (by page id) turned as given; ValueError for a
    page id not of the item, or a page that brings its own render (a bag's, copied as it is,
    so never turned)."""
    found: set[str] = set()
    sources = []
    for source in item.sources:
        rel = source.provenance.rel
        pages = tuple(_turned(p, rel, turns, found) for p in source.pages)
        left_out = tuple(_turned(p, rel, turns, found) for p in source.left_out)
        sources.append(replace(source, pages=pages, left_out=left_out))
    unknown = [pid for pid in turns if pid not in found]
    if unknown:
        raise ValueError(f"{item.label} has no page {unknown[0]}")
    return replace(item, sources=tuple(sources))


def _turned(page: PlanPage, rel: str, turns: Mapping[str, Turn], found: set[str]) -> PlanPage:
    turn = turns.get(page.page_id)
    if turn is None:
        return page
    found.add(page.page_id)
    if turn and page.render is not None:
        raise ValueError(
            f"{rel}: page {page.page_index + 1} comes with its render from the bag, which is "
            "copied as it is: turn it in the notebook it came from and export it again"
        )
    return replace(page, turn=turn)


# "Sideways?": a page whose long side runs across when the notebook's run down (or the
# other way). Long: at least 15 % longer than the short side, so a square-ish photo or
# scan of a near-square page is never said sideways. Said only against at least
# SIDEWAYS_MIN_OTHERS other pages of known size, of which at least SIDEWAYS_SHARE are the
# other shape: a notebook of mixed shapes (a sketchbook with some plans turned by design)
# gets no hint at all.
SIDEWAYS_RATIO = 1.15
SIDEWAYS_MIN_OTHERS = 3
SIDEWAYS_SHARE = 0.8


def probably_sideways(item: PlanItem) -> frozenset[str]:
    """The imported pages (by page id) that are probably sideways: landscape in a portrait
    notebook, or portrait in a landscape one, as the page will land (its file's EXIF
    orientation and its turn applied). Only single-page image files are judged: their
    upright size is known from the scan without decoding; a PDF's or a TIFF's pages are not.
    A page a person turned a quarter is theirs, as for its writing
    (second_look.writing_sideways): counted among the others, never asked about again (the
    quarter turns a "Turn it?" offers, from the file's upright, would leave it as it is)."""
    shapes: dict[str, int] = {}  # page id -> +1 portrait, -1 landscape, 0 neither
    theirs: set[str] = set()  # pages a person turned a quarter
    for source in item.imported_sources():
        width, height = source.provenance.width, source.provenance.height
        if source.media_type in MULTI_PAGE_TYPES or len(source.pages) != 1:
            continue
        if not width or not height:
            continue
        page = source.pages[0]
        if page.turn in (Turn.QUARTER, Turn.THREE_QUARTERS):
            width, height = height, width
            theirs.add(page.page_id)
        shapes[page.page_id] = (
            1 if height >= width * SIDEWAYS_RATIO else -1 if width >= height * SIDEWAYS_RATIO else 0
        )
    others = len(shapes) - 1
    if others < SIDEWAYS_MIN_OTHERS:
        return frozenset()
    of_shape = {shape: list(shapes.values()).count(shape) for shape in (1, -1)}
    return frozenset(
        page_id
        for page_id, shape in shapes.items()
        if shape and of_shape[-shape] >= SIDEWAYS_SHARE * others and page_id not in theirs
    )
