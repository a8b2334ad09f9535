"""``order PLAN ITEM --turn FILE... ANGLE``: pages turned on the command line.

FILE is named as ``validate`` names it (``FILE#N`` for one page of a file of several); ANGLE
is 90, 180 or 270 degrees clockwise, from the file's own upright (its EXIF orientation), or 0
to take a turn back. The turn is an ``engine.api`` call (planning/page_edits.turn_pages).
``validate`` says which pages are probably sideways (``api.sideways_pages``): a hint, with
the command that turns them, never an edit.
"""

from __future__ import annotations

import argparse
import shlex

from transcribe_import.engine import api
from transcribe_import.engine.media.kinds import Turn
from transcribe_import.engine.planning.plan import ImportPlan, PageRef, PlanItem


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
    turn = Turn.of(degrees)
    said = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]
    return new, f"{said} {'no longer turned' if turn is Turn.NONE else 'turned ' + turn.words}"


def sideways_lines(
    plan: ImportPlan, plan_path: str, hints: frozenset[api.Hint] | None = None
) -> list[str]:
    """``validate``'s lines for the pages probably sideways, an item at a time: which files,
    and the command that turns them. By its shape alone, which way reads upright is the
    person's to see; by its lines of writing, the likely angle is said (each page a line)."""
    lines = []
    for item in plan.items:
        turns = api.sideways_turns(item, hints)
        command = f"transcribe-import order {shlex.quote(plan_path)} {item.item_id[:8]}"
        for source in item.imported_sources():
            for page in source.pages:
                angle = turns.get(page.page_id)
                if angle is None:
                    continue
                name = source.provenance.rel
                if len(source.pages) + len(source.left_out) > 1:
                    name = f"{name}#{page.page_index + 1}"
                lines.append(
                    f"HINT item {item.item_id[:8]} “{item.label}”: {name}: "
                    + api.sideways_words(angle)
                )
                lines.append(f"    turn with: {command} --turn {shlex.quote(name)} {int(angle)}")
        files = [
            s.provenance.rel
            for s in item.imported_sources()
            if any(p.page_id in turns and turns[p.page_id] is None for p in s.pages)
        ]
        if not files:
            continue
        named = " ".join(shlex.quote(f) for f in files)
        lines.append(
            f"HINT item {item.item_id[:8]} “{item.label}”: {', '.join(files)} "
            f"{'looks' if len(files) == 1 else 'look'} sideways, the long side across the "
            "notebook's other pages. Turn it? (90: clockwise, 270: anticlockwise)"
        )
        lines.append(
            f"    turn with: transcribe-import order {shlex.quote(plan_path)} "
            f"{item.item_id[:8]} --turn {named} 90|270"
        )
    return lines
