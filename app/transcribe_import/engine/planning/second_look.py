"""Pages worth a second look: blank, too small to read, too dark, too light, blurred.

Information for a person, never an error and never in the way of a commit: validate lists
them (severity ``INFO``), the review's grid puts a badge on each page, and a person decides
(leave a page out, scan it again, or let it be). Each hint says its measure in words.

The measures come from the page's small decode (media/page_measures.py, kept with its look)
and, for its size, from the scan (the file's pixels): nothing is decoded here. The rules:

- **blank**: the page has no ink (the look's ``ink1:blank``, media/ink.py: the one rule the
  rescans use too). Told once per notebook ("3 blank pages"), with Leave Out Blank Pages.
- **too small to read**: judged for single-page image files, whose size the scan knows, in
  dpi where the file's recorded resolution can be believed, else against its neighbours.
  Believed: the file records one (JFIF, EXIF, PNG pHYs, TIFF: media/decode.py) between
  ``MIN_RECORDED_DPI`` and ``MAX_RECORDED_DPI``, and the page's size at it, pixels over dpi,
  is a paper size (``PAPER_SIZES``, each side within ``PAPER_SLACK``): under
  ``READABLE_DPI`` it is too small ("about 96 dpi for an A5 page"), at or over it it is not,
  whatever its neighbours. A resolution that makes no paper size is a default, not a
  measure (a phone writes 72 for any photo: a 4032-pixel one would be 1.4 m long), and a
  file that records none says nothing: then a page whose long side is under
  ``SMALL_SHARE`` of the notebook's median long side is too small (a thumbnail or a
  screenshot slipped in among scans), with at least ``MIN_OTHERS`` others.
- **too dark**: its paper, the brightest part of the page, is below ``DARK_PAPER`` of 255.
- **too light**: its paper is white (``LIGHT_PAPER``) and its darkest strokes are no darker
  than ``LIGHT_DARKEST``: the writing is washed out.
- **blurred**: its sharpness is under ``BLURRED_SHARE`` of the median of the notebook's
  written pages (at least ``MIN_OTHERS`` others): a notebook photographed all alike is never
  called blurred, one page shaken among sharp ones is.

Thresholds were set on the labelled set of realistic pages (tests/helpers/pages.py), on
which no ordinary page gets a hint (tests/engine/test_second_look.py), and on pages made
blurred, dark and light from them.
"""

from __future__ import annotations

import enum
import statistics
from collections.abc import Iterator
from dataclasses import dataclass

from transcribe_import.engine.media import page_measures
from transcribe_import.engine.media.kinds import MULTI_PAGE_TYPES, Turn
from transcribe_import.engine.planning.plan import PageRef, PlanItem, PlanPage, PlanSource
from transcribe_import.engine.planning.problems import (
    PlanProblem,
    ProblemCode,
    ProblemSeverity,
    Resolution,
    file_name,
)


class Hint(enum.StrEnum):
    """What makes a page worth a second look (each can be switched off: ``ALL_HINTS``)."""

    BLANK = "blank"
    TOO_SMALL = "too_small"
    TOO_DARK = "too_dark"
    TOO_LIGHT = "too_light"
    BLURRED = "blurred"
    # "Turn it?": the page's long side, or its lines of writing, run the other way
    # (``sideways_turns``; badged on its own, not one of ``page_hints``).
    SIDEWAYS = "sideways"


ALL_HINTS = frozenset(Hint)

SMALL_SHARE = 0.5
READABLE_DPI = 150
MIN_RECORDED_DPI = 50
MAX_RECORDED_DPI = 4800
PAPER_SLACK = 0.04  # a scan's edges are cropped or show a little of the lid
# The paper sizes of notebooks and loose pages, short and long side in millimetres.
PAPER_SIZES = (
    ("A3", 297.0, 420.0),
    ("A4", 210.0, 297.0),
    ("A5", 148.0, 210.0),
    ("A6", 105.0, 148.0),
    ("B5", 176.0, 250.0),
    ("letter", 215.9, 279.4),
    ("legal", 215.9, 355.6),
    ("half-letter", 139.7, 215.9),
)
DARK_PAPER = 110
LIGHT_PAPER = 245
LIGHT_DARKEST = 150
BLURRED_SHARE = 0.4
MIN_OTHERS = 3
# Lines of writing run down the page when its ink varies this many times more from column
# to column than from row to row (page_measures' ``columns`` and ``rows``). The labelled
# set's written pages, upright, are at most 0.6; turned a quarter, 2.5 and more.
SIDEWAYS_LINES = 1.5
# Which way a sideways page reads (``likely_turn``), set on the labelled set's pages turned
# a quarter both ways: the variation across its lines (``columns``) is at most 1.2 for a
# full or half page, 4.1-6.6 for a few words, 6.7 and more for a date line alone or a page
# number; a few words' ``lead`` is within 0.26 of 0 or 1, a lone date line's often near
# 0.5; a page number's variation along its lines (``rows``) is 6.7 and more, a few words'
# at most 4.5.
MANY_LINES = 3.0
FEW_LINES = 7.0
ALONG_LINES = 6.0
LEAD_MARGIN = 0.2


@dataclass(frozen=True)
class PageHint:
    """One page's hint: which, on which page (its id and file), and its measure in words."""

    hint: Hint
    page_id: str
    source_id: str
    ref: PageRef  # the file as problems name it (``problems.file_name``); FILE#N for a page
    words: str

    @property
    def file(self) -> str:
        return str(self.ref)


def _page_ref(source: PlanSource, page: PlanPage) -> PageRef:
    name = file_name(source)
    if source.media_type in MULTI_PAGE_TYPES or len(source.pages) + len(source.left_out) > 1:
        return PageRef(name, page.page_index + 1)
    return PageRef(name)


def _pages(item: PlanItem) -> Iterator[tuple[PlanSource, PlanPage]]:
    for source in item.imported_sources():
        for page in source.pages:
            if page.render is None:  # a bag's page lands as the bag made it
                yield source, page


def page_hints(item: PlanItem, hints: frozenset[Hint] = ALL_HINTS) -> tuple[PageHint, ...]:
    """The hints ``hints`` of the pages ``item`` imports, in the item's order."""
    if not hints:
        return ()
    pages = list(_pages(item))
    measured = {p.page_id: page_measures.from_look(p.look) for _s, p in pages}
    blank = {p.page_id for _s, p in pages if _is_blank(p)}
    written = [m for pid, m in measured.items() if m is not None and pid not in blank]
    sharp = statistics.median(m.sharpness for m in written) if written else 0.0
    sizes = [_long_side(s) for s, _p in pages if _sized(s)]
    median_side = statistics.median(sizes) if sizes else 0
    out: list[PageHint] = []
    for source, page in pages:
        m = measured[page.page_id]

        def hint(kind: Hint, words: str, src: PlanSource = source, pg: PlanPage = page) -> None:
            if kind in hints:
                out.append(PageHint(kind, pg.page_id, src.source_id, _page_ref(src, pg), words))

        if page.page_id in blank:
            hint(Hint.BLANK, "blank: nothing written on it")
            continue
        if _sized(source):
            small = _too_small(source, median_side, len(sizes) - 1)
            if small:
                hint(Hint.TOO_SMALL, small)
        if m is None:
            continue
        if m.paper < DARK_PAPER:
            hint(Hint.TOO_DARK, f"too dark: its brightest part is {_percent(m.paper)} of white")
        elif m.paper >= LIGHT_PAPER and m.darkest >= LIGHT_DARKEST:
            hint(
                Hint.TOO_LIGHT,
                f"too light: its darkest strokes are {_percent(m.darkest)} of white",
            )
        if len(written) > MIN_OTHERS and m.sharpness < BLURRED_SHARE * sharp:
            hint(
                Hint.BLURRED,
                "blurred: much blurrier than the notebook's other pages "
                f"(sharpness {m.sharpness:.2f} against {sharp:.2f})",
            )
    return tuple(out)


def _is_blank(page: PlanPage) -> bool:
    from transcribe_import.engine.media.lookalike import is_blank

    return is_blank(page.look)


def _percent(level: int) -> str:
    return f"{round(100 * level / 255)} %"


def _sized(source: PlanSource) -> bool:
    width, height = source.provenance.width, source.provenance.height
    return (
        source.media_type not in MULTI_PAGE_TYPES
        and len(source.pages) == 1
        and bool(width)
        and bool(height)
    )


def _long_side(source: PlanSource) -> int:
    return max(source.provenance.width or 0, source.provenance.height or 0)


def paper_of(width: int, height: int, dpi: float) -> str | None:
    """The paper size (``PAPER_SIZES``' name) a page of ``width`` × ``height`` pixels is at
    ``dpi``, either way up, or None when it is none of them."""
    short, long = sorted((width / dpi * 25.4, height / dpi * 25.4))
    for name, paper_short, paper_long in PAPER_SIZES:
        if (
            abs(short - paper_short) <= PAPER_SLACK * paper_short
            and abs(long - paper_long) <= PAPER_SLACK * paper_long
        ):
            return name
    return None


def _too_small(source: PlanSource, median_side: float, others: int) -> str | None:
    """Why the page file is too small to read, in words, or None: by the resolution it
    records when that can be believed (it makes the page a paper size), else against the
    notebook's other pages."""
    width, height = source.provenance.width or 0, source.provenance.height or 0
    dpi = source.provenance.dpi
    if dpi is not None and MIN_RECORDED_DPI <= dpi <= MAX_RECORDED_DPI:
        paper = paper_of(width, height, dpi)
        if paper is not None:
            if dpi >= READABLE_DPI:
                return None
            article = "an" if paper[0] in "AEIOU" else "a"
            return (
                f"too small to read: about {round(dpi)} dpi for {article} {paper} page "
                f"({width} × {height} pixels)"
            )
    side = max(width, height)
    if others >= MIN_OTHERS and side < SMALL_SHARE * median_side:
        return (
            f"too small to read: {width} × {height} pixels, {_fraction(side / median_side)} "
            f"the size of the notebook's other pages ({round(median_side)} pixels long)"
        )
    return None


def _fraction(share: float) -> str:
    if share >= 1 / 3:
        return "under half"
    if share >= 1 / 4:
        return "under a third"
    return f"about 1/{round(1 / share)} of"


def writing_sideways(item: PlanItem) -> dict[str, Turn | None]:
    """The written pages ``item`` imports whose lines of writing run down the page as it
    will land (its turn applied), by page id, each with the turn from its file's upright
    that likely sets it right (``likely_turn``), or None when its writing is too little to
    say which way it reads. A page a person turned a quarter is theirs: it is not asked
    about again by its writing."""
    out: dict[str, Turn | None] = {}
    for _source, page in _pages(item):
        m = page_measures.from_look(page.look)
        if m is None or m.rows <= 0 or page.turn in (Turn.QUARTER, Turn.THREE_QUARTERS):
            continue
        if m.columns >= SIDEWAYS_LINES * m.rows:  # in the file, upright as it is
            out[page.page_id] = likely_turn(m)
    return out


def likely_turn(m: page_measures.Measures) -> Turn | None:
    """The quarter turn that likely sets upright a page whose lines of writing run down it
    (``m``, its measures as it is in its file), or None when the evidence is weak.

    Lines start at one margin and end ragged, so more of the ink lies at the side they
    start from (``lead``): at the top, the page was turned a quarter clockwise, and 270°
    sets it upright; at the bottom, 90°. That holds for several lines, not for one: a date
    line or a page number lies where it was written (a date at the right, a number in the
    top corner), not at the side the writing starts from. So the angle is said only for a
    page of many lines (its ink varies little across them: ``columns`` under
    ``MANY_LINES``), or of a few lines (under ``FEW_LINES``) whose ink lies clearly at one
    side (``lead`` at least ``LEAD_MARGIN`` from even) and that is no lone mark (the ink
    varies along its lines under ``ALONG_LINES``: a page number is a blob, varying as
    much along as across). A sparser page is offered both turns."""
    many = m.columns < MANY_LINES
    few = m.columns < FEW_LINES and m.rows < ALONG_LINES and abs(m.lead - 0.5) >= LEAD_MARGIN
    if not (many or few):
        return None
    return Turn.THREE_QUARTERS if m.lead >= 0.5 else Turn.QUARTER


@dataclass(frozen=True)
class Sideways:
    """Why a page is worth a "Turn it?" and the turn (from its file's upright) that likely
    sets it right, None when nothing says which way it reads: only its shape says it is
    sideways (``by_writing`` False), or its writing runs down the page but is too little to
    tell (``likely_turn``)."""

    turn: Turn | None
    by_writing: bool

    @property
    def words(self) -> str:
        """What the "Turn it?" says of the page, in words."""
        if self.turn is not None:
            return f"its lines of writing run down the page. Turn it {self.turn.words}?"
        if self.by_writing:
            return (
                "its writing runs down the page, too little of it to tell which way up: "
                "which way reads upright is yours to see. Turn it?"
            )
        return "its long side runs across the notebook's other pages. Turn it?"


def sideways_turns(item: PlanItem, hints: frozenset[Hint] = ALL_HINTS) -> dict[str, Sideways]:
    """The pages ``item`` imports worth a "Turn it?" (by page id), each with why and the
    turn (from its file's upright, as ``page_edits.turn_pages`` takes it) that likely sets
    it right: its lines of writing running down the page (``writing_sideways``), which say
    the angle when there is writing enough, or its shape, landscape among portrait pages or
    the other way (``page_edits.probably_sideways``), which alone cannot (None: right or
    left is the person's to see). A hint, never an edit; none when ``hints`` leaves out
    ``SIDEWAYS``."""
    from transcribe_import.engine.planning import page_edits

    if Hint.SIDEWAYS not in hints:
        return {}
    writing = {pid: Sideways(turn, True) for pid, turn in writing_sideways(item).items()}
    shape = {pid: Sideways(None, False) for pid in page_edits.probably_sideways(item)}
    return shape | writing


def sideways_words(sideways: Sideways) -> str:
    """What a "Turn it?" says of a page (``sideways_turns``' value for it), in words."""
    return sideways.words


def blank_pages(item: PlanItem) -> tuple[PageRef, ...]:
    """The blank pages ``item`` imports, named as ``order --exclude`` takes them."""
    return tuple(h.ref for h in page_hints(item, frozenset({Hint.BLANK})))


_CODES = {
    Hint.BLANK: ProblemCode.BLANK_PAGES,
    Hint.TOO_SMALL: ProblemCode.TOO_SMALL,
    Hint.TOO_DARK: ProblemCode.TOO_DARK,
    Hint.TOO_LIGHT: ProblemCode.TOO_LIGHT,
    Hint.BLURRED: ProblemCode.BLURRED,
}

# The edits a "Turn it?" offers: the likely angle's, or both quarters when nothing says
# which way the page reads (``Sideways.turn`` None); each with its ``order`` option.
_TURNS = {
    Turn.QUARTER: Resolution.TURN_CLOCKWISE,
    Turn.THREE_QUARTERS: Resolution.TURN_ANTICLOCKWISE,
}


BLANK_NAMED = 5  # the blank pages a notebook's one line names; the rest are counted


def item_problems(item: PlanItem, hints: frozenset[Hint] = ALL_HINTS) -> list[PlanProblem]:
    """Validate's information on ``item``'s pages worth a second look: one for its blank
    pages together, then, in page order, one for each other hint of a page and one for each
    page worth a "Turn it?" (``sideways_turns``), offering the turn as its resolution."""
    found = page_hints(item, hints)
    out: list[PlanProblem] = []
    blank = [h for h in found if h.hint is Hint.BLANK]
    if blank:
        count = len(blank)
        # A few named, the rest counted: a notebook of 60 blank pages made a row of 60 paths
        # in the window's Problems (``files`` holds them all, for the CLI's --json and edits).
        shown = [h.file for h in blank[:BLANK_NAMED]]
        names = ", ".join(shown) + (f" and {count - len(shown)} more" if count > len(shown) else "")
        out.append(
            PlanProblem(
                ProblemSeverity.INFO,
                ProblemCode.BLANK_PAGES,
                item.item_id,
                f"{count} blank page{'s' if count != 1 else ''}, nothing written on "
                f"{'them' if count != 1 else 'it'}: {names}",
                tuple(dict.fromkeys(h.source_id for h in blank)),
                resolutions=(Resolution.LEAVE_OUT_BLANK,),
                hint="order --leave-out-blank",
                files=tuple(h.file for h in blank),
            )
        )
    # Then a line for each other hint and each "Turn it?", in the notebook's page order.
    order = {page.page_id: n for n, (_source, page) in enumerate(_pages(item))}
    lines = [
        (
            order[h.page_id],
            PlanProblem(
                ProblemSeverity.INFO,
                _CODES[h.hint],
                item.item_id,
                f"{h.file}: {h.words}",
                (h.source_id,),
                files=(h.file,),
            ),
        )
        for h in found
        if h.hint is not Hint.BLANK
    ]
    turns = sideways_turns(item, hints)
    lines += [
        (order[page.page_id], _turn_it(item, source, page, turns[page.page_id]))
        for source, page in _pages(item)
        if page.page_id in turns
    ]
    out += [line for _n, line in sorted(lines, key=lambda line: line[0])]
    return out


def turn_as_hinted(item: PlanItem, file: str, resolution: Resolution) -> PlanItem:
    """A "Turn it?" answered: the page it names (``file``, as its problem's ``files``)
    turned a quarter as ``resolution`` says, from its file's upright, in one edit
    (``page_edits.turn_pages``); ValueError in words for a resolution that is no turn or a
    name that is no page of ``item``."""
    from transcribe_import.engine.planning import page_edits

    return page_edits.turn_pages(item, [PageRef.parse(file)], hinted_turn(resolution))


def hinted_turn(resolution: Resolution) -> Turn:
    """The turn a "Turn it?"'s ``resolution`` makes, from the file's upright; ValueError in
    words for a resolution that is no turn."""
    turns = {r: t for t, r in _TURNS.items()}
    if resolution not in turns:
        raise ValueError(f"{resolution} does not turn a page")
    return turns[resolution]


def _turn_it(item: PlanItem, source: PlanSource, page: PlanPage, sideways: Sideways) -> PlanProblem:
    ref = str(_page_ref(source, page))
    turn = sideways.turn
    angles: tuple[Turn, ...] = (turn,) if turn is not None and turn in _TURNS else tuple(_TURNS)
    name = ref.replace('"', '\\"')
    return PlanProblem(
        ProblemSeverity.INFO,
        ProblemCode.SIDEWAYS,
        item.item_id,
        f"{ref}: {sideways.words}",
        (source.source_id,),
        resolutions=tuple(_TURNS[a] for a in angles),
        hint="order " + " | ".join(f'--turn "{name}" {int(a)}' for a in angles),
        files=(ref,),
    )
