"""``order PLAN ITEM --turn FILE... ANGLE``: pages turned on the command line.

FILE is named as ``validate`` names it (``FILE#N`` for one page of a file of several); ANGLE
is 90, 180 or 270 degrees clockwise, from the file's own upright (its EXIF orientation), or 0
to take a turn back. The turn is an ``engine.api`` call (planning/page_edits.turn_pages).
``validate`` says which pages are probably sideways (``api.sideways_turns``): an ``INFO``
line each, with the command that turns it by the likely angle, never an edit. Pages already in
a notebook are turned by ``turn`` (cli/corpus_turns.py).
"""

from __future__ import annotations

import argparse

from transcribe_import.engine import api
from transcribe_import.engine.media.kinds import Turn
from transcribe_import.engine.planning.plan import PageRef, PlanItem
from transcribe_import.engine.planning.problems import Resolution

# How ``validate`` names a "Turn it?"'s turns (its hint names the file itself).
RESOLUTION_FLAGS = {
    Resolution.TURN_CLOCKWISE: "--turn FILE 90",
    Resolution.TURN_ANTICLOCKWISE: "--turn FILE 270",
}


def add_order_options(how: argparse._MutuallyExclusiveGroup) -> None:
    how.add_argument(
        "--turn",
        nargs="+",
        metavar="FILE",
        help="FILE... ANGLE: turn these files' pages (FILE#N: one page) ANGLE degrees "
        "clockwise, 90, 180 or 270; 0 takes a turn back",
    )


def order_edit(item: PlanItem, words: list[str]) -> tuple[PlanItem, str]:
    """The item with the pages turned, and what was done in words (ValueError in words for
    a missing or wrong angle, or a name that is no file of the item)."""
    *names, angle = words
    if not names:
        raise ValueError("--turn takes the files, then the angle: --turn FILE... 90")
    try:
        degrees = int(angle)
    except ValueError:
        raise ValueError(
            f"--turn ends with the angle (90, 180 or 270 degrees clockwise, 0 to take a turn "
            f"back), not {angle!r}: --turn FILE... 90"
        ) from None
    new = api.turn_pages(item, [PageRef.parse(n) for n in names], degrees)
    said = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]
    return new, f"{said} {api.turned_words([Turn.of(degrees)])}"
