"""``order PLAN ITEM --leave-out-blank`` and validate's ``--no-hint KIND``: the pages worth a
second look (planning/second_look.py) on the command line.

``validate`` lists them as ``INFO`` lines, never errors; ``--leave-out-blank`` leaves every
blank page of the notebook out in one edit (``api.leave_out_blank``), which ``--include``
takes back a file at a time.
"""

from __future__ import annotations

import argparse

from transcribe_import.engine import api
from transcribe_import.engine.base.text import counted
from transcribe_import.engine.planning.plan import PlanItem


def add_order_options(how: argparse._MutuallyExclusiveGroup) -> None:
    how.add_argument(
        "--leave-out-blank",
        action="store_true",
        help="leave out every blank page of the notebook (validate's blank_pages), in one edit",
    )


def wants_leave_out_blank(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "leave_out_blank", False))


def order_edit(item: PlanItem) -> tuple[PlanItem, str]:
    """The item with its blank pages left out, and what was done in words (ValueError in
    words when it has none)."""
    count = len(api.blank_page_refs(item))
    new = api.leave_out_blank(item)
    return new, f"{counted(count, 'blank page')} left out"


def add_hint_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-hint",
        action="append",
        default=[],
        choices=[h.value for h in api.Hint],
        metavar="KIND",
        help="do not tell pages worth a second look of this kind: "
        + ", ".join(h.value for h in api.Hint)
        + " (may be given again)",
    )


def hints_asked(args: argparse.Namespace) -> frozenset[api.Hint]:
    """The kinds of hint ``--no-hint`` leaves on."""
    off = {api.Hint(v) for v in getattr(args, "no_hint", [])}
    return frozenset(h for h in api.Hint if h not in off)
