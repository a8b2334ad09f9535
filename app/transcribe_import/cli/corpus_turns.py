"""``turn NOTEBOOK PAGE... ANGLE``: pages already in a notebook turned on the command line.

The turn is a run of its own (``api.plan_corpus_turn``, ``api.turn_in_corpus``), run as a
commit's is (Ctrl-C cancels, SIGTERM pauses, ``resume`` finishes it) and undone by
``revert``; its lines say what was turned and how to undo it.
"""

from __future__ import annotations

import argparse
from typing import Any

from transcribe_import.cli.output import json_out, say
from transcribe_import.cli.runs import UsageError, _report_result, _run_signals
from transcribe_import.engine import api
from transcribe_import.engine.api import Corpus, ExitCode
from transcribe_import.engine.base.text import shown_within
from transcribe_import.engine.runs.model import RunControl, RunStatus


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
    run = api.run_short_ids(corpus)(result.run_id)  # as `runs` lists it
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
    say(f"“{shown_within(turn.title)}”: {turn.words} (run {run}).")
    kept = (
        "The page as it was is kept"
        if len(turn.positions) == 1
        else "The pages as they were are kept"
    )
    say(f"{kept} in the notebook's history; undo the turn with `transcribe-import revert {run}`.")
    return ExitCode.OK
