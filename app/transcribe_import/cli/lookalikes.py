"""Rescans on the command line: the answers to "a rescan?" as ``order`` options.

``order PLAN ITEM --rescan FILE...`` (Replace: each FILE is a rescan of the page it looks
like, which it replaces, the old page kept in the notebook's history), ``--keep-both
FILE...`` (it is not a rescan: asked no more, in this plan nor, once committed, in any later
one) and ``--exclude FILE...`` (Leave Out, the option every left-out file takes). FILE is
named as ``validate`` names it, ``FILE#N`` for a page of a file of several; ``--all`` instead
of the files answers every question of the item (for ``--rescan``: every one Replace is
offered on). A new notebook's page that looks like a page of an existing notebook is offered
``--into NOTEBOOK`` first: the item is imported into that notebook instead, where
``--rescan`` can then replace the page. ``--none-are-rescans`` answers for a whole notebook
whose pages look like each other or like the import's other notebooks' (blank forms, ruled
pages in one hand): none is a rescan of another, and they are compared with the corpus's
pages only.
Every answer is an ``engine.api`` call (planning/lookalikes.py, api/placement.py).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from transcribe_import.engine import api
from transcribe_import.engine.api import Corpus
from transcribe_import.engine.planning.plan import ImportPlan, PlanItem
from transcribe_import.engine.planning.problems import PlanProblem, ProblemCode, Resolution

# The order options of a look-alike's answers (validate's "resolve with").
RESOLUTION_FLAGS = {
    Resolution.IMPORT_INTO: "--into NOTEBOOK",
    Resolution.RESCAN_REPLACES: "--rescan FILE",
    Resolution.KEEP_BOTH: "--keep-both FILE",
    Resolution.LEAVE_OUT: "--exclude FILE",
    Resolution.NONE_ARE_RESCANS: "--none-are-rescans",
}


def add_order_options(
    how: argparse._MutuallyExclusiveGroup, parser: argparse.ArgumentParser
) -> None:
    how.add_argument(
        "--rescan",
        nargs="*",
        metavar="FILE",
        help="pages that look like others: each is a rescan, and replaces the page it looks "
        "like (the old one kept in the notebook's history); --all: every page Replace is "
        "offered for",
    )
    how.add_argument(
        "--keep-both",
        nargs="*",
        metavar="FILE",
        help="pages that look like others: none is a rescan; keep both, and do not ask again; "
        "--all: every page asked about",
    )
    how.add_argument(
        "--none-are-rescans",
        action="store_true",
        help="pages of the notebook that look like each other or like pages of the import's "
        "other notebooks: none is a rescan; they are compared with the corpus's pages only",
    )
    how.add_argument(
        "--into",
        metavar="NOTEBOOK",
        help="a new notebook: import its pages into NOTEBOOK (its id, the start of its id, or "
        "its title) instead, where a page that looks like one of its pages can replace it",
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="with --rescan or --keep-both: answer every rescan question of the item",
    )


def wants_answer(args: argparse.Namespace) -> bool:
    """Whether ``order`` was asked an answer to rescan questions (ValueError in words when
    ``--all`` goes with no answer, or with files named too)."""
    many = args.rescan if args.rescan is not None else args.keep_both
    if args.all and many is None:
        raise ValueError("--all goes with --rescan or --keep-both")
    if many is not None and bool(many) == args.all:
        option = "--rescan" if args.rescan is not None else "--keep-both"
        raise ValueError(
            f"{option} takes the files it answers, or --all for every rescan question of the "
            "item, not both"
            if args.all
            else f"{option} needs the files it answers (as validate names them), or --all"
        )
    return many is not None or args.into is not None or args.none_are_rescans


def order_edit(
    corpus: Corpus, plan: ImportPlan, item: PlanItem, args: argparse.Namespace
) -> tuple[PlanItem, str]:
    """The item with the answer given, and what it did in words for ``order``'s line ("" when
    the line's other words say it: where a rescan goes in a notebook, what is still open);
    ValueError in words when it does not apply."""
    if args.into is not None:
        return api.import_into(corpus, item, args.into), ""
    if args.none_are_rescans:
        return api.none_are_rescans(corpus, plan, item.item_id), ""
    names = None if args.all else (args.rescan or args.keep_both)
    how = Resolution.RESCAN_REPLACES if args.rescan is not None else Resolution.KEEP_BOTH
    done = api.answer_lookalikes(corpus, plan, item.item_id, names, how)
    if how is Resolution.KEEP_BOTH:
        return done.item, "kept both: " + listed(
            [f"{q.name} beside {q.other}" for q in done.answered]
        )
    # A rescan of a notebook's page is said where the line says where the pages go.
    here = [f"{q.name} replaces {q.other} (left out)" for q in done.answered if q.in_plan]
    return done.item, listed(here)


def listed(said: Sequence[str], most: int = 3) -> str:
    """``a, b and c``; beyond ``most``, the first ones and how many more."""
    shown = list(said[:most])
    if len(said) > most:
        shown.append(f"{len(said) - most} more")
    if len(shown) < 2:
        return "".join(shown)
    return ", ".join(shown[:-1]) + " and " + shown[-1]


def all_at_once(problems: Sequence[PlanProblem]) -> tuple[int, str] | None:
    """How many rescan questions an item has, and the ``order`` options that answer them all
    at once (``--keep-both --all | --rescan --all | --none-are-rescans``, each where it
    fits), when it has more than one; None otherwise."""
    asked = [p for p in problems if p.code is ProblemCode.LOOKS_LIKE]
    if len(asked) < 2:
        return None
    offered = {r for p in asked for r in p.resolutions}
    options = ["--keep-both --all"]
    if Resolution.RESCAN_REPLACES in offered:
        options.append("--rescan --all")
    if Resolution.NONE_ARE_RESCANS in offered:
        options.append("--none-are-rescans")
    return len(asked), " | ".join(options)
