"""Rescans on the command line: the answers to "a rescan?" as ``order`` options.

``order PLAN ITEM --rescan FILE`` (Replace: FILE is a rescan of the page it looks like, which
it replaces, the old page kept in the notebook's history), ``--keep-both FILE`` (it is not a
rescan: asked no more, in this plan nor, once committed, in any later one) and
``--exclude FILE`` (Leave Out, the option every left-out file takes). FILE is named as
``validate`` names it, ``FILE#N`` for a page of a file of several. A new notebook's page
that looks like a page of an existing notebook is offered ``--into NOTEBOOK`` first: the
item is imported into that notebook instead, where ``--rescan`` can then replace the page.
``--none-are-rescans`` answers for a whole notebook whose pages look like each other (blank
forms, ruled pages in one hand): none is a rescan of another, and they are not compared with
each other any more.
Every answer is an ``engine.api`` call (planning/lookalikes.py, api/placement.py).
"""

from __future__ import annotations

import argparse

from transcribe_import.engine import api
from transcribe_import.engine.api import Corpus
from transcribe_import.engine.planning.plan import ImportPlan, PlanItem
from transcribe_import.engine.planning.problems import Resolution

# The order options of a look-alike's answers (validate's "resolve with").
RESOLUTION_FLAGS = {
    Resolution.IMPORT_INTO: "--into NOTEBOOK",
    Resolution.RESCAN_REPLACES: "--rescan FILE",
    Resolution.KEEP_BOTH: "--keep-both FILE",
    Resolution.LEAVE_OUT: "--exclude FILE",
    Resolution.NONE_ARE_RESCANS: "--none-are-rescans",
}


def add_order_options(how: argparse._MutuallyExclusiveGroup) -> None:
    how.add_argument(
        "--rescan",
        metavar="FILE",
        help="a page that looks like another: it is a rescan, and replaces that page (the old "
        "one kept in the notebook's history)",
    )
    how.add_argument(
        "--keep-both",
        metavar="FILE",
        help="a page that looks like another: it is not a rescan; keep both, and do not ask again",
    )
    how.add_argument(
        "--none-are-rescans",
        action="store_true",
        help="pages of the notebook that look like each other: none is a rescan of another; "
        "they are compared with the corpus's pages only, not with each other",
    )
    how.add_argument(
        "--into",
        metavar="NOTEBOOK",
        help="a new notebook: import its pages into NOTEBOOK (its id, the start of its id, or "
        "its title) instead, where a page that looks like one of its pages can replace it",
    )


def wants_answer(args: argparse.Namespace) -> bool:
    return (
        args.rescan is not None
        or args.keep_both is not None
        or args.into is not None
        or args.none_are_rescans
    )


def order_edit(
    corpus: Corpus, plan: ImportPlan, item: PlanItem, args: argparse.Namespace
) -> PlanItem:
    """The item with the answer given (ValueError in words when it does not apply)."""
    if args.into is not None:
        return api.import_into(corpus, item, args.into)
    if args.none_are_rescans:
        return api.none_are_rescans(corpus, plan, item.item_id)
    if args.rescan is not None:
        return api.answer_lookalike(
            corpus, plan, item.item_id, args.rescan, Resolution.RESCAN_REPLACES
        )
    return api.answer_lookalike(corpus, plan, item.item_id, args.keep_both, Resolution.KEEP_BOTH)
