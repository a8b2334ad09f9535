"""Late pages and rescans on the command line: ``plan --at/--after``, ``order`` edits, pages.

``plan --mode into:NOTEBOOK --at N | --after PAGE`` places the new pages; ``order PLAN ITEM``
takes ``--at N``, ``--after PAGE``, ``--at-end``, ``--replace FILE PAGE`` and
``--no-replace FILE...``; ``notebooks NOTEBOOK_ID`` lists a notebook's pages, so a person
can name one. PAGE is a page's id, its label, its position, or the start of its id (the
engine reads it: ``ingest/placement.find_page``). Every edit is an ``engine.api`` call.
"""

from __future__ import annotations

import argparse
from typing import Any

from transcribe_import.cli.output import json_out, say
from transcribe_import.engine import api
from transcribe_import.engine.api import Corpus, ExitCode
from transcribe_import.engine.base.text import counted
from transcribe_import.engine.planning.plan import ImportPlan, Op, PlanItem
from transcribe_import.engine.planning.problems import Resolution

PAGE_HELP = "a page of the notebook: its position (1 is the first), its label, or its id"

# The order options of a placement problem's resolutions (validate's "resolve with").
RESOLUTION_FLAGS = {
    Resolution.AT: "--at N",
    Resolution.AFTER: "--after PAGE",
    Resolution.AT_END: "--at-end",
    Resolution.REPLACE: "--replace FILE PAGE",
    Resolution.NO_REPLACE: "--no-replace FILE...",
    Resolution.INCLUDE: "--include FILE...",
}


def _position(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a position (a whole number)") from None


def add_plan_options(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--at",
        type=_position,
        metavar="N",
        help="with --mode into:NOTEBOOK: the new pages go at position N (1: before the first page)",
    )
    where.add_argument(
        "--after",
        metavar="PAGE",
        help=f"with --mode into:NOTEBOOK: the new pages go after PAGE, {PAGE_HELP}",
    )


def add_order_options(how: argparse._MutuallyExclusiveGroup) -> None:
    how.add_argument(
        "--at", type=_position, metavar="N", help="into a notebook: pages at position N"
    )
    how.add_argument("--after", metavar="PAGE", help="into a notebook: pages after PAGE")
    how.add_argument("--at-end", action="store_true", help="into a notebook: pages at the end")
    how.add_argument(
        "--replace",
        nargs=2,
        metavar=("FILE", "PAGE"),
        help="into a notebook: FILE (FILE#N for a page of a file of several) is a rescan "
        "that replaces PAGE",
    )
    how.add_argument("--no-replace", nargs="+", metavar="FILE", help="these files replace nothing")


def wants_placement(args: argparse.Namespace) -> bool:
    """Whether ``order`` was asked a placement edit (not an order resolution)."""
    return (
        args.at is not None
        or args.after is not None
        or args.at_end
        or args.replace is not None
        or args.no_replace is not None
    )


def order_edit(corpus: Corpus, item: PlanItem, args: argparse.Namespace) -> PlanItem:
    """The placement edit ``order`` was asked (ValueError in words when refused)."""
    if args.replace is not None:
        rescan, page = args.replace
        return api.replace_page(corpus, item, rescan, page)
    if args.no_replace is not None:
        return api.keep_pages(item, args.no_replace)
    return api.place(corpus, item, at=args.at, after=args.after)


def place_planned(corpus: Corpus, plan: ImportPlan, args: argparse.Namespace) -> ImportPlan:
    """``plan --at/--after``: the into item's pages placed (ValueError in words when they
    do not fit). An item planned to complete a notebook keeps its places by name unless
    they are given."""
    given = args.at is not None or args.after is not None
    for item in plan.items:
        if item.op is Op.IMPORT_INTO_NOTEBOOK and (given or not api.completes_by_default(item)):
            plan = plan.with_item(api.place(corpus, item, at=args.at, after=args.after))
    return plan


def words(corpus: Corpus, item: PlanItem) -> str:
    """``; new pages at …; FILE replaces …`` for an item line ("" when at the end)."""
    said = api.placement_words(corpus, item)
    return "".join(f"; {w}" for w in said)


def cmd_pages(corpus: Corpus, notebook_id: str, as_json: bool) -> int:
    """``notebooks NOTEBOOK_ID``: the notebook's pages, then the pages rescans replaced."""
    pages = api.notebook_pages(corpus, notebook_id)
    # A page a turn replaced is the same file turned, not a rescan: said so, with its run.
    turned = api.turns_taken(corpus, notebook_id)
    if as_json:
        json_out({"notebook_id": notebook_id, "pages": [_page_json(p, turned) for p in pages]})
        return ExitCode.OK
    live = [p for p in pages if p.position is not None]
    say(f"Notebook {api.notebook_short_ids(corpus)(notebook_id)}: {counted(len(live), 'page')}.")
    for p in live:
        say(f"  {p.position:>4}  {p.page_id}  {p.label or '':<8} {p.file or ''}")
    for p in pages:
        if p.position is None:
            how = f", {turned[p.page_id]}" if p.page_id in turned else ""
            say(
                f"  replaced  {p.page_id}  {p.label or '':<8} {p.file or ''}  by page "
                f"{p.replaced_by} on {p.replaced_at}{how}"
            )
    return ExitCode.OK


def _page_json(p: api.NotebookPage, turned: dict[str, str]) -> dict[str, Any]:
    return {
        "position": p.position,
        "page_id": p.page_id,
        "label": p.label,
        "file": p.file,
        "render": None if p.render is None else str(p.render),
        "replaced_by": p.replaced_by,
        "replaced_at": p.replaced_at,
        "replaced_by_turn": p.page_id in turned,
    }
