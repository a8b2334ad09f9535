"""Pages turned on the command line: in a plan (``order PLAN ITEM --turn FILE... ANGLE``) and
in the corpus (``turn NOTEBOOK PAGE... ANGLE``).

FILE is named as ``validate`` names it (``FILE#N`` for one page of a file of several); ANGLE
is 90, 180 or 270 degrees clockwise, from the file's own upright (its EXIF orientation), or 0
to take a turn back. The turn is an ``engine.api`` call (planning/page_edits.turn_pages).
``validate`` says which pages are probably sideways (``api.sideways_pages``): a hint, with
the command that turns them, never an edit. ``turn`` turns pages already in a notebook: a
run of its own (``api.turn_in_corpus``), undone by ``revert``.
"""

from __future__ import annotations

import argparse
import shlex
from typing import Any

from transcribe_import.cli.output import json_out, say
from transcribe_import.engine import api
from transcribe_import.engine.api import Corpus, ExitCode
from transcribe_import.engine.media.kinds import Turn
from transcribe_import.engine.planning.plan import ImportPlan, PageRef, PlanItem
from transcribe_import.engine.runs.model import RunControl, RunStatus


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


def add_turn_parser(sub: Any) -> None:
    t = sub.add_parser(
        "turn", help="turn pages already in a notebook (a run of its own, undone by revert)"
    )
    t.add_argument(
        "notebook_id",
        metavar="NOTEBOOK_ID",
        help="the notebook (its id, the start of its id, or its title)",
    )
    t.add_argument(
        "words",
        nargs="+",
        metavar="PAGE",
        help="PAGE... ANGLE: the pages (position, label, file name or id) and the angle, 90, "
        "180 or 270 degrees clockwise from the file's upright; 0 takes a turn back",
    )
    t.add_argument("--json", action="store_true", help="print one JSON document")


def cmd_turn(corpus: Corpus, args: argparse.Namespace) -> int:
    # cli/runs imports this module for ``order --turn``: its run helpers are read here.
    from transcribe_import.cli.runs import UsageError, _report_result, _run_signals

    *pages, angle = args.words
    if not pages:
        raise UsageError("turn takes the pages, then the angle: turn NOTEBOOK PAGE... 90")
    if not angle.isdigit():
        raise UsageError(
            f"turn ends with the angle (90, 180 or 270 degrees clockwise, 0 to take a turn "
            f"back), not {angle!r}: turn NOTEBOOK PAGE... 90"
        )
    try:
        notebook_id = api.notebook_id_for(corpus, args.notebook_id)
        turn = api.plan_corpus_turn(corpus, notebook_id, pages, int(angle))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    control = RunControl()
    with _run_signals(control):  # Ctrl-C cancels, SIGTERM pauses: as a commit's run
        result = api.turn_in_corpus(corpus, turn, control=control)
    if result.status is not RunStatus.COMPLETE:  # stopped, paused or failed: as commit says it
        return _report_result(corpus, result, args)
    run = api.short_id(result.run_id)
    if args.json:
        json_out(
            {
                "import_run_id": result.run_id,
                "status": str(result.status),
                "notebook_id": notebook_id,
                "pages": list(turn.positions),
                "turn": turn.turns[0],
                "page_ids": list(turn.page_ids),
            }
        )
        return api.exit_code_for_result(result)
    say(f"“{turn.title}”: {turn.words} (run {run}).")
    say(
        "The pages as they were are kept in the notebook's history; undo the turn with "
        f"`transcribe-import revert {run}`."
    )
    return ExitCode.OK
