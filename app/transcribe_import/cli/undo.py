"""The undo commands: ``revert RUN_ID`` and ``trash``, and a run's history in words."""

from __future__ import annotations

import argparse
import sys
import threading
from typing import Any

from transcribe_import.cli import signals
from transcribe_import.cli.output import json_out, say
from transcribe_import.cli.run_ids import RUN_ID_HELP
from transcribe_import.engine import api
from transcribe_import.engine.api import Corpus, ExitCode
from transcribe_import.engine.base.errors import Problem
from transcribe_import.engine.base.text import agreeing, counted, shown_within
from transcribe_import.engine.runs.model import HistoryEvent


def add_parsers(sub: Any) -> None:
    rv = sub.add_parser("revert", help="undo an ended import run as a group (into the trash)")
    rv.add_argument("run_id", metavar="RUN_ID", help=RUN_ID_HELP)
    rv.add_argument(
        "--dry-run", action="store_true", help="only list what would be removed and what blocks"
    )
    rv.add_argument(
        "--leave-blocked",
        action="store_true",
        help="undo the run's notebooks nothing blocks, and leave the blocked ones in place",
    )
    rv.add_argument("--json", action="store_true", help="print one JSON document")
    tr = sub.add_parser("trash", help="what reverts moved out of the corpus")
    what = tr.add_mutually_exclusive_group()
    what.add_argument(
        "--purge", metavar="REVERT_ID", help="delete one trash entry for good (cannot be undone)"
    )
    what.add_argument(
        "--restore",
        metavar="REVERT_ID",
        help="put the run a trash entry undid back into the corpus, as it was",
    )
    tr.add_argument("--json", action="store_true", help="print one JSON document")


def _preview_json(preview: api.RevertPreview) -> dict[str, Any]:
    plan = preview.plan
    return {
        "import_run_id": plan.run_id,
        "status": plan.status.value,
        "already_reverted": preview.already_reverted,
        "revert_id": preview.revert_id,
        "unfinished_revert_id": preview.unfinished,
        "ok": plan.ok and not preview.already_reverted and preview.unfinished is None,
        "pages": plan.pages,
        "notebooks": [
            {
                "notebook_id": n.notebook_id,
                "title": n.title,
                "whole": n.whole,
                "source_ids": list(n.source_ids),
                "page_ids": list(n.page_ids),
                "files": list(n.files),
            }
            for n in plan.notebooks
        ],
        "blockers": [
            {"code": b.code.value, "notebook_id": b.notebook_id, "message": b.message}
            for b in plan.blockers
        ],
        "partial": plan.partial,
        "held": [
            {"code": b.code.value, "notebook_id": b.notebook_id, "message": b.message}
            for b in plan.held
        ],
    }


def _say_preview(
    preview: api.RevertPreview, shown: api.ShortIds, *, done: bool, turn: bool
) -> None:
    """What the undo takes (or took) out, each notebook named as `notebooks` lists it;
    ``turn``: the undo of a turn, which puts each page back as it was."""
    plan = preview.plan
    for n in plan.notebooks:
        what = "removed" if done else "to remove"
        counts = f"{counted(len(n.page_ids), 'page')} and {counted(len(n.files), 'file')}"
        where = f"“{shown_within(n.title)}” ({shown(n.notebook_id)})"
        if turn:
            made = agreeing(len(n.page_ids), "the page this turn made", "the pages this turn made")
            back = agreeing(
                len(n.page_ids),
                "the page as it was is back" if done else "the page as it was comes back",
                "the pages as they were are back" if done else "the pages as they were come back",
            )
            say(f"  {what}: {made} in {where}, {counted(len(n.files), 'file')}; {back}")
        elif n.whole:
            say(f"  {what}: notebook {where}, {counts}")
        else:
            say(f"  {what}: {counts} added to {where}; its other pages stay")
    for b in plan.blockers:
        say(f"  BLOCKED [{b.code.value}] {b.message}")
    for b in plan.held:
        say(f"  KEPT [{b.code.value}] {b.message}")


def _say_free_part(plan: api.RevertPlan, run_id: str) -> None:
    """Under a refusal: the notebooks nothing blocks, and the option that undoes them."""
    free = api.free_to_undo(plan)
    if free is None:
        return
    titles = ", ".join(f"“{shown_within(n.title)}”" for n in free.notebooks)
    say(
        f"`transcribe-import revert {run_id} --leave-blocked` undoes the "
        f"{counted(len(free.notebooks), 'notebook')} nothing blocks ({titles}, "
        f"{counted(free.pages, 'page')}) and leaves the blocked ones in place."
    )


def cmd_revert(corpus: Corpus, args: argparse.Namespace) -> int:
    # Named as `runs` and `notebooks` list them, taken before the undo moves anything.
    run, notebooks = api.run_short_ids(corpus)(args.run_id), api.notebook_short_ids(corpus)
    if args.dry_run:
        preview = api.preview_revert(corpus, args.run_id, args.leave_blocked)
        return _dry_run(corpus, preview, args, run, notebooks)
    stop = threading.Event()

    def on_signal() -> None:
        say("\ntranscribe-import: stopping the undo at the next safe point.", file=sys.stderr)
        stop.set()

    try:
        # Ctrl-C, SIGTERM or SIGHUP stop it between two moves; `revert` again finishes it.
        with signals.handling(dict.fromkeys(signals.STOP_SIGNALS, on_signal)):
            # finishes a killed undo too
            result = api.revert(corpus, args.run_id, stop.is_set, leave_blocked=args.leave_blocked)
    except api.RevertBlocked as exc:
        preview = api.RevertPreview(exc.plan, False, None, None)
        if args.json:
            json_out({**_preview_json(preview), "dry_run": False})
        elif exc.earlier is not None:  # an earlier undo left half done was dealt with first
            say(f"Run {run} cannot be undone. Before that, {exc.earlier}")
            _say_preview(preview, notebooks, done=False, turn=api.is_turn(corpus, args.run_id))
        else:
            say(f"Run {run} cannot be undone; nothing was changed:")
            _say_preview(preview, notebooks, done=False, turn=api.is_turn(corpus, args.run_id))
        if not args.json:
            _say_free_part(exc.plan, run)
        return ExitCode.PROBLEMS
    done = api.RevertPreview(result.plan, result.already, result.revert_id, None)
    if args.json:
        json_out({**_preview_json(done), "dry_run": False, "trash": str(result.trash_dir)})
    elif result.already:
        say(
            f"Run {run} was undone already (trash entry "
            f"{_revert_shown(corpus, result.revert_id)}); nothing to do."
        )
    else:
        plan = result.plan
        how = "partly undone" if plan.partial else "undone"
        say(f"Run {run} was {how} ({counted(plan.pages, 'page')}, {counted(plan.files, 'file')}):")
        _say_preview(done, notebooks, done=True, turn=api.is_turn(corpus, args.run_id))
        say(
            f"Everything removed is kept in {result.trash_dir}; `transcribe-import trash "
            f"--purge {_revert_shown(corpus, result.revert_id)}` deletes it for good."
        )
    return ExitCode.OK


def _dry_run(
    corpus: Corpus,
    preview: api.RevertPreview,
    args: argparse.Namespace,
    run: str,
    notebooks: api.ShortIds,
) -> int:
    ok = preview.plan.ok or preview.already_reverted or preview.unfinished is not None
    if args.json:
        json_out({**_preview_json(preview), "dry_run": True})
        return ExitCode.OK if ok else ExitCode.PROBLEMS
    if preview.already_reverted:
        entry = _revert_shown(corpus, preview.revert_id)
        say(f"Run {run} was undone already (trash entry {entry}).")
    elif preview.unfinished is not None:
        say(
            f"An undo of run {run} was interrupted (trash entry "
            f"{_revert_shown(corpus, preview.unfinished)}); "
            f"`transcribe-import revert {run}` or `doctor` finishes it."
        )
    else:
        plan = preview.plan
        head = "would undo" if plan.ok else "cannot be undone; nothing was changed"
        if plan.ok and plan.partial:
            head = "would undo part of it, leaving the blocked notebooks in place"
        say(f"Run {run} ({plan.status.value}) {head}:")
        _say_preview(preview, notebooks, done=False, turn=api.is_turn(corpus, args.run_id))
        if plan.ok:
            again = " --leave-blocked" if plan.partial else ""
            say(f"Run `transcribe-import revert {run}{again}` to undo it.")
        else:
            _say_free_part(plan, run)
    return ExitCode.OK if ok else ExitCode.PROBLEMS


def _revert_shown(corpus: Corpus, revert_id: str | None) -> str:
    """A trash entry named as `trash` lists it (which --purge and --restore take back)."""
    return api.revert_short_ids(corpus)(revert_id or "")


def cmd_trash(corpus: Corpus, args: argparse.Namespace) -> int:
    if args.restore:
        back = api.restore_from_trash(corpus, args.restore)
        if isinstance(back, api.LeftTrash):
            return _done_already(corpus, back, args)
        if args.json:
            json_out({"restored": back.to_json()})
        else:
            titles = ", ".join(map(shown_within, back.titles))
            left = (
                "the entry has left the trash."
                if back.entry_removed
                else "its trash entry could not be removed (it holds nothing of the run now): "
                f"`transcribe-import trash --purge {_revert_shown(corpus, back.revert_id)}` "
                "deletes it."
            )
            say(
                f"Put run {api.run_short_ids(corpus)(back.run_id)} back from trash entry "
                f"{_revert_shown(corpus, back.revert_id)}: "
                f"{_count(back.notebooks, 'notebook')} ({titles}), "
                f"{_count(back.pages, 'page')}, {_count(back.files, 'file')}. "
                f"The run is {back.status.value} again; {left}"
            )
        return ExitCode.OK
    if args.purge:
        entry = api.purge_trash(corpus, args.purge)
        if isinstance(entry, api.LeftTrash):
            return _done_already(corpus, entry, args)
        if args.json:
            json_out({"purged": entry.to_json()})
        else:
            say(
                f"Deleted trash entry {api.short_id(entry.revert_id)} (the undo of run "
                f"{api.run_short_ids(corpus)(entry.run_id)}): "
                f"{counted(entry.pages, 'page')}, {counted(entry.files, 'file')}, "
                f"{_size(entry.bytes)}."
            )
        return ExitCode.OK
    entries, problems = api.list_trash(corpus)
    if args.json:
        json_out(
            {
                "entries": [e.to_json() for e in entries],
                "problems": [_problem_json(p.problem) for p in problems],
            }
        )
        return ExitCode.PROBLEMS if problems else ExitCode.OK
    if not entries and not problems:
        say("The trash is empty.")
    reverts, runs = api.revert_short_ids(corpus), api.run_short_ids(corpus)
    for e in entries:
        # Ids as `runs` shows them (8 characters, which --purge and --restore take back).
        short = reverts(e.revert_id)
        state = _STATE_WORDS.get(e.state, " — {state}").format(state=e.state, id=short)
        say(
            f"{short}  {e.created_at}  undo of run {runs(e.run_id)} by {e.requested_by}: "
            f"{counted(e.notebooks, 'notebook')} ({', '.join(map(shown_within, e.titles))}), "
            f"{counted(e.pages, 'page')}, {_size(e.bytes)}{state}"
        )
    for p in problems:
        say(f"PROBLEM {p}")
    return ExitCode.PROBLEMS if problems else ExitCode.OK


# How `trash` tells an entry's state beside its line (none for a finished undo).
_STATE_WORDS = {
    "done": "",
    "moving": " — UNFINISHED: run doctor",
    "restoring": " — being put back, stopped half way: `transcribe-import trash --restore {id}` "
    "or doctor finishes it",
    "restored": " — put back, stopped before its end: `transcribe-import trash --restore {id}` "
    "or doctor finishes it",
    "purging": " — being deleted, stopped half way: `transcribe-import trash --purge {id}` "
    "or doctor finishes it",
}


def _done_already(corpus: Corpus, gone: api.LeftTrash, args: argparse.Namespace) -> int:
    """Restore or purge asked again once done: said so, nothing changed, exit 0 (as revert)."""
    if args.json:
        json_out({"already_done": gone.to_json()})
    else:
        say(gone.words(api.run_short_ids(corpus), api.revert_short_ids(corpus)))
    return ExitCode.OK


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _problem_json(problem: Problem) -> dict[str, Any]:
    """An entry that cannot be read, as ``--json`` names it: its code, message and file."""
    return {
        "code": problem.code.value,
        "message": problem.message,
        "path": problem.path,
        "item": problem.item,
    }


def _size(n: int) -> str:
    """A byte count as people read it (MiB: 1,048,576 bytes)."""
    if n < 1024:
        return counted(n, "byte")
    value = n / 1024
    for unit in ("KiB", "MiB"):
        if value < 1024:
            return f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"


HISTORY_WORDS = {
    HistoryEvent.CREATED: "created",
    HistoryEvent.STARTED: "started",
    HistoryEvent.RESUMED: "resumed",
    HistoryEvent.PAUSED: "paused",
    HistoryEvent.CANCEL_REQUESTED: "cancel requested",
    HistoryEvent.REVERT_REQUESTED: "undo requested",
    HistoryEvent.REVERTED: "undone as a group (reverted)",
    HistoryEvent.PARTLY_REVERTED: "partly undone, its blocked notebooks left in place",
    HistoryEvent.REVERT_ABANDONED: "undo abandoned, the run was left as it was",
    HistoryEvent.RESTORE_REQUESTED: "putting back from the trash requested",
    HistoryEvent.RESTORED: "put back from the trash (restored)",
    HistoryEvent.RETRIED: "retried by a new run",
    HistoryEvent.RETRY_REFUSED: "retry refused, no new run began",
    HistoryEvent.ENDED: "ended {status}",
    HistoryEvent.UNKNOWN: "recorded by a newer version of the app ({event})",
}


def history_line(h: api.HistoryEntry, runs: api.ShortIds, reverts: api.ShortIds) -> str:
    """One audit entry in words: when, what, which attempt, who did it and who asked; the
    runs and trash entries it names as `runs` and `trash` list them."""
    what = HISTORY_WORDS[h.event].format(status=h.status, event=h.recorded)
    line = f"{h.at}  {what} (attempt {h.attempt}"
    if h.actor:
        line += f", by {h.actor}"
    if h.requested_by:
        line += f", asked by {h.requested_by}"
    line += ")"
    if h.detail.get("retry_of"):
        line += f"; retries run {runs(str(h.detail['retry_of']))}"
    if h.detail.get("retry_run_id"):
        line += f"; retried as run {runs(str(h.detail['retry_run_id']))}"
    if h.detail.get("revert_id"):
        line += f"; trash entry {reverts(str(h.detail['revert_id']))}"
    if h.detail.get("why"):
        line += f": {h.detail['why']}"
    return line
