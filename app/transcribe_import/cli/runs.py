"""The import-run commands of the CLI (plan, validate, order, commit, resume, cancel, runs, show).

Each command is a thin layer over the engine: the window calls the same engine
functions. One JSON document on stdout with --json; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import shlex
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from transcribe_import.cli import lookalikes as lookalikes_cli
from transcribe_import.cli import placement as placement_cli
from transcribe_import.cli import second_look as second_look_cli
from transcribe_import.cli import signals
from transcribe_import.cli import turns as turns_cli
from transcribe_import.cli.output import json_out, say
from transcribe_import.cli.undo import history_line
from transcribe_import.engine import api
from transcribe_import.engine.api import Corpus, ExitCode
from transcribe_import.engine.base.text import agreeing, counted, for_terminal, shown_within
from transcribe_import.engine.planning.plan import (
    AdapterMode,
    DedupeScope,
    ImportPlan,
    ModeName,
    Op,
    OrderingRule,
    PageRef,
    PlanDocumentError,
    PlanItem,
    load_plan,
    policy_id_for,
    save_plan,
)
from transcribe_import.engine.planning.problems import PlanProblem, ProblemCode, Resolution
from transcribe_import.engine.runs.model import (
    EventKind,
    RunControl,
    RunEvent,
    RunResult,
    RunStatus,
)

if TYPE_CHECKING:
    from transcribe_import.engine.planning.problems import ValidationReport
    from transcribe_import.engine.planning.scan_progress import ScanProgress


# Every RUN_ID argument's help (api.resolve_run_id is the rule).
class UsageError(Exception):
    """Bad arguments or an unusable plan file: exit 2 with this one line."""


class _Progress:
    """One updating line on stderr when it is a terminal; silent otherwise."""

    def __init__(self) -> None:
        self.live = sys.stderr.isatty()
        self._last = 0.0

    def show(self, text: str, force: bool = False) -> None:
        if not self.live:
            return
        now = time.monotonic()
        if force or now - self._last > 0.1:
            self._last = now
            sys.stderr.write("\r\x1b[K" + for_terminal(text[:150]))
            sys.stderr.flush()

    def done(self) -> None:
        if self.live:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _load(path: str) -> ImportPlan:
    try:
        return load_plan(Path(path))
    except PlanDocumentError as exc:
        raise UsageError(hinted(str(exc), exc.hint)) from None


# -- plan ----------------------------------------------------------------------------------


@contextlib.contextmanager
def _collector_resting() -> Iterator[None]:
    """The cyclic garbage collector resting while ``plan`` or ``validate`` runs (on again
    after, if it was).

    A plan made again of 20,000 pages builds millions of short-lived objects (the scan's
    files, the plan's values, its documents, its checks), each freed by its reference count:
    they hold no reference cycle to speak of (1,284 unreachable objects after a plan of
    5,000 pages). The collector's passes over them found nothing and cost a tenth of the
    command's CPU (bench/RESULTS.md). The window rests it the same way while its workers
    run (gui/workers.py), for its thread's sake.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def cmd_plan(corpus: Corpus, args: argparse.Namespace) -> int:
    with _collector_resting():
        return _plan(corpus, args)


def _plan(corpus: Corpus, args: argparse.Namespace) -> int:
    try:
        policy = policy_id_for(args.policy)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    try:
        mode = AdapterMode.parse(args.mode)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.title and mode.name is not ModeName.SINGLE:
        raise UsageError("--title goes with --mode single")
    if (args.at is not None or args.after is not None) and mode.name is not ModeName.INTO:
        raise UsageError("--at and --after go with --mode into:NOTEBOOK")
    roots = tuple(Path(p).expanduser().absolute() for p in args.paths)
    progress = _Progress()
    stop = threading.Event()

    def on_progress(ev: ScanProgress) -> None:
        progress.show(
            f"{ev.phase}: {ev.found} page files found, {ev.inspected} inspected — {ev.current}"
        )

    with signals.handling({signal.SIGINT: stop.set}):
        try:
            request = api.PlanRequest(
                roots,
                mode=mode,
                policy_id=policy,
                title=args.title,
                dedupe_scope=DedupeScope(args.dedupe),
                workers=args.workers,
            )
            planned = api.plan_paths(
                corpus, request, should_stop=stop.is_set, on_progress=on_progress
            )
        except ValueError as exc:
            progress.done()
            raise UsageError(str(exc)) from None
        plan = (
            None
            if planned is None
            else _with_looks(corpus, planned.plan, args.workers, stop, progress)
        )
    progress.done()
    if planned is None or plan is None:
        say("transcribe-import: scan cancelled; no plan was written.", file=sys.stderr)
        return ExitCode.CANCELLED
    result = planned.scan
    try:
        plan = placement_cli.place_planned(corpus, plan, args)
    except ValueError as exc:
        raise UsageError(f"{exc}; no plan was written") from None
    save_plan(plan, Path(args.output))
    report = _validated(corpus, plan, progress)
    from transcribe_import.engine.planning.problems import ProblemCode  # loaded by validate

    # Told under their item's line: the folder was imported before, where, and what to do.
    recognised = {
        ProblemCode.ALREADY_IMPORTED,
        ProblemCode.PARTLY_IMPORTED,
        ProblemCode.COMPLETES,
        ProblemCode.LOOKS_LIKE,
        ProblemCode.TITLE_EXISTS,  # a notebook of that title: why this makes a second one
    }
    kept = sum(it.history_page_count() for it in plan.items)  # a bag's, as its lines say
    pages = plan.imported_page_count() - kept
    history = f", {counted(kept, 'earlier page')} kept in history" if kept else ""
    say(
        f"Wrote {args.output}: {counted(len(plan.items), 'notebook')}, "
        f"{counted(pages, 'page')} to import{history}."
    )
    kinds = [_item_kind(it, report) for it in plan.items]
    shown, cut = first_of_each(kinds, None if args.verbose else SHOWN_PER_KIND)
    for it, show in zip(plan.items, shown, strict=True):
        if not show:
            continue
        say("  " + _item_line(corpus, it, report) + placement_cli.words(corpus, it))
        for p in report.for_item(it.item_id):
            if p.code in recognised:
                say("    " + problem_text(p))
        at_once = lookalikes_cli.all_at_once(report.for_item(it.item_id))
        if at_once is not None:
            say(f"    Or answer {_all_of(at_once[0])} at once (order {at_once[1]}).")
    for kind, (hidden, total) in cut.items():
        say(f"  … and {hidden} more [{kind}] ({total} in all; --verbose lists them all)")
    ignored = [i for i in result.ignored if not i.junk]
    not_planned = plan.provenance.get("not_planned", [])
    if ignored or not_planned:
        say(
            f"Not planned: {counted(len(ignored) + len(not_planned), 'file')} "
            "(see provenance in the plan for each reason)."
        )
        entries = [*not_planned, *({"rel": i.rel, "reason": i.reason} for i in ignored)]
        for entry in entries if args.verbose else entries[:10]:
            say(f"  {entry['rel']}: {entry['reason']}")
        if not_planned and mode.name in (ModeName.PDFS, ModeName.PREFIX):
            # The adapters' words say "plan by folder"; this is the option that does it.
            say("  To plan those by folder: --mode folders.")
    nothing = api.nothing_to_import(plan)
    if nothing is not None:
        say(nothing)
    if not report.ok:
        say(
            f"{counted(len(report.errors), 'problem')} to resolve before commit: "
            f"transcribe-import validate {args.output}"
        )
    return ExitCode.OK


def _validated(
    corpus: Corpus,
    plan: ImportPlan,
    progress: _Progress,
    hints: frozenset[api.Hint] | None = None,
) -> ValidationReport:
    """``api.validate_plan`` with its progress on the live line: a shelf's first validation
    verifies its rescans' candidate pairs for minutes. Each part of the work is told from 0
    to its own total (files, then pairs, then files), so the line counts "checked" only."""

    def told(done: int, total: int) -> None:
        progress.show(f"validating the plan: {done:,} of {total:,} checked", force=done == total)

    try:
        return api.validate_plan(corpus, plan, hints=hints, progress=told)
    finally:
        progress.done()


def _with_looks(
    corpus: Corpus, plan: ImportPlan, workers: int, stop: threading.Event, progress: _Progress
) -> ImportPlan | None:
    """``plan`` with its JPEG and PDF pages' looks (the look pass, after the scan), so the
    plan written can find rescans; None when Ctrl-C stopped it."""
    looks: dict[str, str | None] = {}
    passing = api.look_pass(plan, corpus=corpus, workers=workers, should_stop=stop.is_set)
    for made in passing:
        looks.update(made.looks)
        progress.show(
            f"looks: {made.pages_done} of {counted(made.pages_total, 'page')} looked at for rescans"
        )
    if stop.is_set():
        return None
    return api.with_looks(plan, looks)


# The badge in the CLI's words: with a report, an ambiguous page order is one of its errors.
_STATE_WORDS = {
    api.PlanItemState.ERROR: "needs a decision",
    api.PlanItemState.NEEDS_ORDER_DECISION: "needs a decision",
    api.PlanItemState.PARTLY_IMPORTED: "partly imported",
    api.PlanItemState.LOOKS_LIKE: "a rescan?",
    api.PlanItemState.NOTHING_TO_IMPORT: "nothing to import",
    api.PlanItemState.ALREADY_IMPORTED: "already imported",
    api.PlanItemState.DUPLICATE_SKIPS: "ready",
    api.PlanItemState.READY: "ready",
}


def _item_kind(it: PlanItem, report: ValidationReport) -> str:
    """The word in brackets that starts an item's line: its state in the CLI's words."""
    # Here, not at the top: validate loads the decoders, and a report exists only once
    # they are loaded anyway (`runs`, `show`, `cancel` must start without them).
    from transcribe_import.engine.planning.problems import ProblemCode

    state = api.item_state(it, report)
    if state is not api.PlanItemState.ERROR and any(
        p.code == ProblemCode.UNCHANGED for p in report.for_item(it.item_id)
    ):
        return "unchanged"
    return _STATE_WORDS[state]


def _item_line(corpus: Corpus, it: PlanItem, report: ValidationReport) -> str:
    kind = _item_kind(it, report)
    if kind == "unchanged":
        # A bag's notebook the corpus holds byte for byte: not "0 pages, N duplicates"
        said = f"[unchanged] {api.short_id(it.item_id)} “{shown_within(it.label)}”"
        return said + ": already in the corpus, nothing to import"
    said = f"[{kind}] {api.short_id(it.item_id)} "
    if it.op is Op.CREATE_NOTEBOOK:
        said += f"create “{shown_within(it.label)}”"
    else:
        # The notebook by its title, as `notebooks` lists it; the folder's name beside it
        # only when it differs. The item's short id stays: `order PLAN ITEM` takes it.
        title = api.notebook_title(corpus, it.notebook_id) or api.short_id(it.notebook_id)
        label, shown = shown_within(it.label), shown_within(title)
        said += f"“{label}” into “{shown}”" if title != it.label else f"into “{shown}”"
    # Pages as the notebook will hold them; a bag's history pages said apart.
    kept = it.history_page_count()
    pages = it.imported_page_count() - kept
    history = f", {counted(kept, 'earlier page')} kept in its history" if kept else ""
    dups = len(it.planned_skips())
    extra = f", {counted(dups, 'duplicate')} skipped" if dups else ""
    return f"{said}: {counted(pages, 'page')}{history}{extra}"


# How many lines of one kind (an item's state, a problem's code) `plan` and `validate` print
# before they count the rest: a shelf of 40,000 notebooks reads as a summary, not a scroll.
SHOWN_PER_KIND = 5


def first_of_each(
    kinds: Sequence[str], limit: int | None
) -> tuple[list[bool], dict[str, tuple[int, int]]]:
    """Which lines to print, in their order, so that at most ``limit`` of each kind are
    printed (None: every line); and, for each kind with lines left out, in the order the kinds
    first come, how many were left out and how many there are in all."""
    totals: dict[str, int] = {}
    shown: list[bool] = []
    for kind in kinds:
        totals[kind] = totals.get(kind, 0) + 1
        shown.append(limit is None or totals[kind] <= limit)
    cut = {
        kind: (total - limit, total)
        for kind, total in totals.items()
        if limit is not None and total > limit
    }
    return shown, cut


# -- validate and order --------------------------------------------------------------------


def problem_text(problem: PlanProblem) -> str:
    """A problem's words on the command line: the engine's message with the CLI's hint."""
    return hinted(problem.message, problem.hint)


def hinted(message: str, hint: str | None) -> str:
    """The engine's words with the CLI's advice for them (a problem's or an error's hint).

    The hint (``--sequence``, ``order --exclude "x.jpg"``) goes in brackets at the end of
    the message's last sentence, where the message's advice names what it stands for."""
    if hint is None:
        return message
    body, stop = (message[:-1], ".") if message.endswith(".") else (message, "")
    return f"{body} ({hint}){stop}"


def _print_report(
    plan: ImportPlan,
    report: ValidationReport,
    plan_path: str = "PLAN",
    verbose: bool = True,
) -> None:
    """The report's problems, each with how to resolve it, then the totals; unless
    ``verbose``, the first few of each code and a count of the rest."""
    shown, cut = first_of_each(
        [p.code for p in report.problems], None if verbose else SHOWN_PER_KIND
    )
    problems = [p for p, show in zip(report.problems, shown, strict=True) if show]
    # After an item's last rescan question printed: how to answer all of them at once.
    last_question = {p.item_id: p for p in problems if p.code is ProblemCode.LOOKS_LIKE}
    for p in problems:
        item = plan.item(p.item_id)
        # A problem with resolutions names its options once, on its "resolve with" line: the
        # hint in brackets would name them again (a rescan question printed its four twice).
        say(
            f"{p.severity.upper()} [{p.code}] item {api.short_id(item.item_id)} "
            f"“{shown_within(item.label)}”: " + (p.message if p.resolutions else problem_text(p))
        )
        command = f"transcribe-import order {shlex.quote(plan_path)} {api.short_id(item.item_id)}"
        if p.resolutions:
            say(f"    resolve with: {command} {resolve_options(p)}")
        if p is last_question.get(p.item_id):
            at_once = lookalikes_cli.all_at_once(report.for_item(p.item_id))
            if at_once is not None:
                count, options = at_once
                say(f"    or answer {_all_of(count)} at once: {command} {options}")
    every = f"transcribe-import validate {shlex.quote(plan_path)} --verbose"
    for code, (hidden, total) in cut.items():
        say(f"… and {hidden} more [{code}] ({total} in all; {every} lists them all)")
    for p in report.information:  # pages worth a second look: never counted as problems
        item = plan.item(p.item_id)
        short = api.short_id(item.item_id)
        say(f"INFO [{p.code}] item {short} “{shown_within(item.label)}”: {p.message}")
        if p.resolutions:
            command = f"transcribe-import order {shlex.quote(plan_path)} {short}"
            say(f"    resolve with: {command} {resolve_options(p)}")
    told = len(report.information)
    notes = f", {counted(told, 'note')} on pages worth a second look" if told else ""
    if report.ok:
        say(
            f"The plan is valid: {counted(len(plan.items), 'notebook')}, "
            f"{counted(len(report.warnings), 'warning')}{notes}."
        )
    else:
        say(
            f"{counted(len(report.errors), 'error')}, {counted(len(report.warnings), 'warning')}"
            f"{notes}: commit is refused until the errors are resolved."
        )


def _all_of(n: int) -> str:
    return "both" if n == 2 else f"all {n}"


# The order options of each resolution (validate's "resolve with"), every one of them.
RESOLUTION_FLAGS: dict[Resolution, str] = {
    Resolution.ACCEPT: "--accept",
    Resolution.NAME: "--by name",
    Resolution.CAPTURE_TIME: "--by capture-time",
    Resolution.MTIME: "--by mtime",
    Resolution.INTERLEAVE: "--by interleave",
    Resolution.INTERLEAVE_REVERSED: "--by interleave-reversed",
    Resolution.VERSO_FIRST: "--verso-first",
    Resolution.VERSOS_BLANK: "--versos-blank",
    Resolution.SEQUENCE: "--sequence FILE...",
    Resolution.EXCLUDE: "--exclude FILE...",
    Resolution.SKIP: "--skip",
    Resolution.AS_COPY: "--as-copy",
    Resolution.COMPLETE: "--complete",
    Resolution.NEW_NOTEBOOK: "--new-notebook",
    Resolution.LEAVE_OUT_BLANK: "--leave-out-blank",
    **turns_cli.RESOLUTION_FLAGS,
    **placement_cli.RESOLUTION_FLAGS,
    **lookalikes_cli.RESOLUTION_FLAGS,
}


def resolve_options(problem: PlanProblem) -> str:
    """The ``order`` options that resolve ``problem``: the hint's own, which name its files
    (``--keep-both "Box/p3.jpg"``), when the hint is an ``order`` command; else each
    resolution's option (``--sequence FILE...``)."""
    if problem.hint is not None and problem.hint.startswith(ORDER_HINT):
        return problem.hint.removeprefix(ORDER_HINT)
    return " | ".join(RESOLUTION_FLAGS[r] for r in problem.resolutions)


# How a hint that is a whole ``order`` command starts (the engine's hints for a problem
# whose resolutions name its files: a rescan question, a file to leave out, Complete).
ORDER_HINT = "order "


def cmd_validate(corpus: Corpus, args: argparse.Namespace) -> int:
    with _collector_resting():
        plan = _load(args.plan)
        hints = second_look_cli.hints_asked(args)
        report = _validated(corpus, plan, _Progress(), hints)
    if args.json:
        json_out(report.to_json())
    else:
        _print_report(plan, report, args.plan, args.verbose)
    return ExitCode.OK if report.ok else ExitCode.INVALID_PLAN


def find_item(plan: ImportPlan, key: str) -> PlanItem:
    named = set(api.ids_by_prefix(key, [it.item_id for it in plan.items]))
    by_prefix = [it for it in plan.items if it.item_id in named]
    if len(by_prefix) == 1 and by_prefix[0].item_id == key:
        return by_prefix[0]
    by_label = [it for it in plan.items if it.label == key or it.title == key]
    found = by_prefix or by_label
    if len(found) == 1:
        return found[0]
    if not found:
        raise UsageError(f"no item {key!r} in the plan; `validate` shows the item ids")
    raise UsageError(f"{key!r} names {len(found)} items; give more of the item id")


def cmd_order(corpus: Corpus, args: argparse.Namespace) -> int:
    plan = _load(args.plan)
    api.check_plan_editable(corpus, plan, args.plan)
    item = find_item(plan, args.item)
    answered = ""  # what an answer or a turn did, when no other words say it
    try:
        if args.complete:
            new = api.complete_notebook(corpus, item)
        elif args.new_notebook:
            new = api.as_new_notebook(item)
        elif lookalikes_cli.wants_answer(args):
            new, answered = lookalikes_cli.order_edit(corpus, plan, item, args)
        elif placement_cli.wants_placement(args):
            new = placement_cli.order_edit(corpus, item, args)
        elif args.turn is not None:
            new, answered = turns_cli.order_edit(item, args.turn)
        elif second_look_cli.wants_leave_out_blank(args):
            new, answered = second_look_cli.order_edit(item)
        else:
            new = _reorder(item, args)
    except api.NothingToOrderBy as exc:  # the orders that can be had, as this command's options
        options = " or ".join(f"`{RESOLUTION_FLAGS[r]}`" for r in exc.instead)
        raise UsageError(f"{exc}; order them with {options} instead") from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    plan = plan.with_item(new)
    save_plan(plan, Path(args.plan))
    report = api.validate_plan(corpus, plan)
    state, remaining = still_open(report, item.item_id)
    said = f"{answered}; " if answered else ""
    say(
        f"Updated {args.plan}: item {api.short_id(item.item_id)} “{shown_within(item.label)}” — "
        f"{said}{state}" + placement_cli.words(corpus, new) + "."
    )
    for p in remaining:
        say(f"  {p.severity.upper()} [{p.code}]: {problem_text(p)}")
    unlisted = len(report.for_item(item.item_id)) - len(remaining)
    if unlisted:
        say(f"  … and {unlisted} more (validate {shlex.quote(args.plan)} lists every one)")
    return ExitCode.OK


# The open warnings ``order`` lists under its line, at most (validate lists every one).
LISTED_WARNINGS = 5


def still_open(report: ValidationReport, item_id: str) -> tuple[str, list[PlanProblem]]:
    """What ``order`` says is left of an item after an edit, and the problems it lists under
    its line (every error, then the first warnings): "resolved" only when nothing is left, so
    a rescan question or another warning still open is counted, never hidden behind a word
    that says all is settled. The other items' errors and questions are counted after it."""
    from transcribe_import.engine.planning.problems import ProblemSeverity

    mine = report.for_item(item_id)
    errors = [p for p in mine if p.severity is ProblemSeverity.ERROR]
    warnings = [p for p in mine if p.severity is not ProblemSeverity.ERROR]
    state = _tally(mine, item=True) or "resolved"
    if not errors and warnings:
        state = f"no error; {state}"
    elsewhere = _tally([p for p in report.problems if p.item_id != item_id], item=False)
    if elsewhere:
        state += f"; in the plan's other notebooks: {elsewhere} (validate lists them)"
    return state, [*errors, *warnings[:LISTED_WARNINGS]]


def _tally(problems: Sequence[PlanProblem], *, item: bool) -> str:
    """``2 errors remain, 3 rescan questions still open, 1 other warning``: for an item,
    every problem; for the rest of the plan, only what stops or asks (errors, questions)."""
    from transcribe_import.engine.planning.problems import ProblemCode, ProblemSeverity

    errors = sum(p.severity is ProblemSeverity.ERROR for p in problems)
    questions = sum(p.code is ProblemCode.LOOKS_LIKE for p in problems)
    others = len(problems) - errors - questions
    parts = []
    if errors:
        parts.append(f"{counted(errors, 'error')} {agreeing(errors, 'remains', 'remain')}")
    if questions:
        parts.append(f"{counted(questions, 'rescan question')} still open")
    if others and item:
        parts.append(counted(others, "other warning" if questions else "warning"))
    return ", ".join(parts)


def _refs(names: list[str] | None) -> list[PageRef] | None:
    """Files and pages as typed (``FILE``, ``FILE#N``)."""
    return None if names is None else [PageRef.parse(n) for n in names]


def _reorder(item: PlanItem, args: argparse.Namespace) -> PlanItem:
    return api.reorder(
        item,
        accept=args.accept,
        by=OrderingRule(args.by.replace("-", "_")) if args.by else None,
        sequence=_refs(args.sequence),
        exclude=_refs(args.exclude),
        include=_refs(args.include),
        skip=args.skip,
        as_copy=args.as_copy,
        verso_first=args.verso_first,
        versos_blank=args.versos_blank,
    )


# -- commit and resume ---------------------------------------------------------------------


def _run_signals(control: RunControl) -> contextlib.AbstractContextManager[None]:
    """Ctrl-C cancels the run; SIGTERM/SIGHUP pause it (resumable)."""

    def on_int() -> None:
        print(
            "\ntranscribe-import: cancelling at the next safe point — every page already in "
            "the corpus stays; commit the plan again to import the rest.",
            file=sys.stderr,
        )
        control.cancel()

    def on_term() -> None:
        print(
            "\ntranscribe-import: stopping at the next safe point; the run can be resumed.",
            file=sys.stderr,
        )
        control.pause()

    return signals.handling(
        {signal.SIGINT: on_int, signal.SIGTERM: on_term, signal.SIGHUP: on_term}
    )


# Said once when another commit is deciding duplicates across the corpus (EventKind).
WAITING_FOR_CORPUS = (
    "transcribe-import: waiting for another import into this corpus to finish: duplicates "
    "across the corpus are decided one import at a time (Ctrl-C cancels this one)."
)


def progress_line(ev: RunEvent, rate: float) -> str | None:
    """The live line for a run's event (None: it changes nothing shown): the run's pages
    landed, and the item's in its notebook (a retry finds some an earlier run landed),
    with those of its checkpoint in flight staged so far; ``rate``:
    the pages per second this attempt landed (api.AttemptPace)."""
    if ev.outcome is None or ev.kind not in (
        EventKind.ITEM_FINISHED,
        EventKind.PAGES_LANDED,
        EventKind.PAGES_STAGED,
    ):
        return None
    if ev.kind is EventKind.ITEM_FINISHED:
        what = str(ev.outcome.state)
    else:
        what = f"{counted(ev.outcome.pages_landed + ev.outcome.pages_already_in, 'page')} in"
        if ev.kind is EventKind.PAGES_STAGED:
            what += f", {ev.pages_staged} more staged"
    return (
        f"{ev.pages_done}/{ev.pages_total} {agreeing(ev.pages_total, 'page', 'pages')}, "
        f"{rate:.1f} pages/s — "
        f"item {api.short_id(ev.item_id) if ev.item_id else ''} {what}"
    )


def _execute(
    corpus: Corpus, prepared: api.PreparedRun, args: argparse.Namespace, *, said: str = ""
) -> int:
    """Execute the prepared run under its signals, from the line ``said`` that names it on.

    The handlers come before that line: a SIGTERM just after "Import run … created." killed
    the process (exit 143, no words), leaving the run to look crashed.
    """
    control = RunControl()
    with _run_signals(control):
        if said:
            say(said, file=sys.stderr)
        api.crashpoint("commit.announced")
        if args.workers < 1:
            raise UsageError("--workers must be at least 1")
        result = _executed(corpus, prepared, args, control)
    return _report_result(corpus, result, args)


def _executed(
    corpus: Corpus, prepared: api.PreparedRun, args: argparse.Namespace, control: RunControl
) -> RunResult:
    run_id = prepared.run_id
    progress = _Progress()
    # The speed counts only the pages this attempt lands (api.AttemptPace), not those a
    # retry or a resume finds in the corpus already.
    start = api.pace_start(corpus, prepared.plan, prepared.record) if progress.live else None
    pace = api.AttemptPace(start or api.PaceStart(), time.monotonic())

    def on_event(ev: RunEvent) -> None:
        pace.observe(ev)
        if ev.kind is EventKind.WAITING_FOR_CORPUS:
            progress.done()
            print(WAITING_FOR_CORPUS, file=sys.stderr, flush=True)
        line = progress_line(ev, pace.rate(time.monotonic()))
        if line is not None:
            progress.show(line, force=ev.kind is EventKind.ITEM_FINISHED)

    result = signals.answered_at_once(
        lambda: api.execute(
            corpus, run_id, workers=args.workers, control=control, on_event=on_event
        )
    )
    progress.done()
    return result


def _report_result(corpus: Corpus, result: RunResult, args: argparse.Namespace) -> int:
    record = result.record
    run = api.result_summary(corpus, result)
    if args.json:
        json_out(
            {
                **record.summary(),
                **run.state_json(),
                "paused": result.paused,
                "stopped_by": result.stopped_by,
                "already_done": result.already_done,
                "verification_problems": list(result.verification_problems),
                "items": [o.to_json() for o in record.outcomes().values()],
            }
        )
    else:
        counts = record.counts()
        short = api.run_short_ids(corpus)(result.run_id)
        if result.already_done:
            say(f"Run {short} had already ended: {_state_words(run)}. Nothing was done.")
        elif result.stopped_by is not None:
            say(f"Run {short} stopped: {result.stopped_by}", file=sys.stderr)
            say(
                f"Run {short} is interrupted with "
                f"{counted(counts['pending'], 'item')} pending; when the cause is fixed, "
                "resume it with `transcribe-import resume "
                f"{short}` (same ids, nothing is imported twice)."
            )
        elif result.paused or result.superseded:
            say(
                f"Run {short} stopped with {counted(counts['pending'], 'item')} pending; "
                f"resume it with `transcribe-import resume {short}`."
            )
        else:
            say(f"Run {short}: {_state_words(run)}.")
        say(_counts_line(run))
        for o in record.outcomes().values():
            if o.failure_message:
                say(f"  FAILED item {api.short_id(o.item_id)}: {o.failure_message}")
        for problem in result.verification_problems:
            say(f"  WARNING {problem}")
    return api.exit_code_for_result(result)


def _counts_line(run: api.RunSummary) -> str:
    """The run's counts (api.RunCounts), as every surface says them."""
    n = run.counts
    return (
        f"  {counted(n.notebooks_complete, 'notebook')} complete, "
        f"{n.notebooks_incomplete} incomplete (some of their pages landed), "
        f"{run.skipped} skipped, {n.items_failed} failed, "
        f"{n.items_not_started} not started; {pages_landed_words(n)}."
    )


def pages_landed_words(n: api.RunCounts) -> str:
    """The pages a run landed and, of them, those a later rescan replaced since: the one
    way ``runs``, ``show`` and ``commit`` say them (the window's words say the same)."""
    words = f"{counted(n.pages_landed, 'page')} landed"
    if n.pages_replaced:
        words += (
            f" ({n.pages_replaced} of them replaced since by rescans or turns, kept in the history)"
        )
    return words


def _state_label(run: api.RunSummary) -> str:
    """The run's state in a word or two, as ``runs`` lists it: ``show`` says the same state."""
    if run.state is api.RunState.ENDED:
        return f"{run.status}, partly undone" if run.partly_undone else str(run.status)
    return {
        api.RunState.LIVE: "running",
        api.RunState.PAUSED: "paused (resumable)",
        api.RunState.INTERRUPTED: "interrupted (resumable)",
    }[run.state]


def _state_words(run: api.RunSummary) -> str:
    """The run's state in words (api.RunState); an ended one by its terminal status.

    Items land in checkpoints, so a run with no item committed may still have added pages
    (of items it cancelled or that failed half way): then it never says none was added.
    """
    pages = run.pages_landed
    if run.state is not api.RunState.ENDED:
        return {
            api.RunState.LIVE: "running — a process is executing it now",
            api.RunState.PAUSED: "paused — resumable",
            api.RunState.INTERRUPTED: "interrupted — resumable",
        }[run.state]
    if run.partly_undone:
        return (
            f"{run.status}, partly undone — some of its notebooks were undone (in the trash), "
            "those that changed since stayed; `revert` takes the rest once nothing blocks them"
        )
    if pages and run.status is RunStatus.CANCELLED:
        return (
            f"cancelled — no item was completed, but {counted(pages, 'page')} of the items in "
            "progress landed and stay; commit the plan again to finish them"
        )
    if pages and run.status is RunStatus.FAILED:
        return (
            f"failed — no item was completed; {counted(pages, 'page')} that landed before the "
            f"failure {agreeing(pages, 'stays', 'stay')}"
        )
    return {
        RunStatus.COMPLETE: "complete — every item committed or skipped as planned",
        RunStatus.PARTIAL: "partial — some items committed, some failed",
        RunStatus.FAILED: "failed — nothing was committed",
        RunStatus.CANCELLED: "cancelled — no item had been committed, no page was added",
        RunStatus.CANCELLED_WITH_COMMITS: "cancelled with commits — every page that landed "
        "before the cancel stays",
        RunStatus.REVERTED: "reverted — undone as a group; what it added is in the trash",
    }[run.status]


def cmd_commit(corpus: Corpus, args: argparse.Namespace) -> int:
    plan = _load(args.plan)
    try:
        prepared = api.prepare_commit(corpus, plan, plan_file=Path(args.plan))
    except api.NothingToImport as nothing:
        if args.json:
            json_out({"plan_id": plan.plan_id, "nothing_to_import": True, "message": str(nothing)})
        else:
            say(str(nothing))
        return ExitCode.OK
    except api.PlanInvalid as invalid:
        if args.json:
            json_out(invalid.report.to_json())
        else:
            _print_report(plan, invalid.report, args.plan, verbose=False)
        return ExitCode.INVALID_PLAN
    record = prepared.record
    run = api.run_short_ids(corpus)(record.run_id)  # as `runs` lists it
    if args.json:
        said = ""
    elif prepared.continued:
        said = f"This plan was committed before as run {run} ({record.status}); continuing it."
    else:
        said = f"Import run {run} created."
    return _execute(corpus, prepared, args, said=said)


def cmd_resume(corpus: Corpus, args: argparse.Namespace) -> int:
    prepared = api.prepare_resume(corpus, args.run_id)
    record = prepared.record
    if record.status.terminal:
        # Said as its status, with its exit code: a resume after a kill that came between
        # the terminal status and the exit must not look like a usage error.
        run = api.run_summary(corpus, record)
        if args.json:
            json_out({**record.summary(), **run.state_json(), "already_done": True})
        else:
            say(
                f"Run {api.run_short_ids(corpus)(record.run_id)} had already ended: "
                f"{_state_words(run)}. "
                "Nothing was done; a finished run is never reopened (commit its plan again "
                "to retry what did not land)."
            )
            for undo in api.unfinished_undos(corpus, record.run_id):
                say(f"  NOTE: {undo}.")
        return api.exit_code_for_status(record.status)
    return _execute(corpus, prepared, args)


def cmd_cancel(corpus: Corpus, args: argparse.Namespace) -> int:
    record = api.cancel(corpus, args.run_id)
    short = api.run_short_ids(corpus)(record.run_id)
    if record.status.terminal:
        run = api.run_summary(corpus, record)
        say(f"Run {short}: {_state_words(run)}.")
        say(_counts_line(run))
        for e in record.doc.get("errors", []):
            say(f"  NOTE: {e.get('message')}")
        return ExitCode.CANCELLED
    say(
        f"Cancel requested: the process executing run {short} stops its pending items "
        "at the next safe point; every page already in the corpus stays."
    )
    return ExitCode.OK


def cmd_runs(corpus: Corpus, args: argparse.Namespace) -> int:
    listings = api.list_runs(corpus)
    rows = [listing.summary.to_json(listing.record) for listing in listings]
    problems = api.run_listing_problems(corpus) + api.unfinished_undos(corpus)
    code = ExitCode.PROBLEMS if problems else ExitCode.OK
    if args.json:
        json_out({"runs": rows, "problems": problems})
        return code
    if not rows and not problems:
        say("No import runs yet.")
    short = api.run_short_ids(corpus)
    for listing in listings:
        run = listing.summary
        n = run.counts
        say(
            f"{short(run.run_id)}  {run.created_at[:19]}  {_state_label(run):<24} "
            f"{n.notebooks_complete} complete, {n.notebooks_incomplete} incomplete, "
            f"{run.skipped} skipped, {n.items_failed} failed, {n.items_not_started} not "
            f"started; {pages_landed_words(n)}"
        )
    for problem in problems:
        say(f"PROBLEM: {problem}.")
    return code


# The files ``show`` names that a run did not import; ``--json`` lists them all.
NOT_IMPORTED_SHOWN = 20


def cmd_show(corpus: Corpus, args: argparse.Namespace) -> int:
    detail = api.show_run(corpus, args.run_id)
    if args.json:
        not_imported = [
            {"file": n.rel, "reason": n.reason, "item_id": n.item_id} for n in detail.not_imported
        ]
        json_out(
            {
                **detail.record.doc,
                **detail.summary.state_json(),
                # Each item's pages as its notebook holds them (api.show_run): they add up
                # to run_counts even where a kill left the record's count behind the disk.
                "items": [r.outcome.to_json() for r in detail.rows],
                "not_imported": not_imported,
                "plan": detail.plan.to_document(),
            }
        )
        return ExitCode.OK
    _print_run(detail, corpus)
    return ExitCode.OK


def _print_run(detail: api.RunDetail, corpus: Corpus) -> None:
    record, plan = detail.record, detail.plan
    run_short, notebook_short = api.run_short_ids(corpus), api.notebook_short_ids(corpus)
    say(f"Run {run_short(record.run_id)} — {_state_words(detail.summary)}")
    say(_counts_line(detail.summary))
    say(
        f"  plan {record.plan_id} (fingerprint {record.plan_fingerprint[:12]}…), "
        f"policy {record.doc['import_policy_id']}, attempt {record.attempt}"
    )
    say(f"  created {record.created_at}, updated {record.doc.get('updated_at')}")
    for o in (r.outcome for r in detail.rows):
        item = plan.item(o.item_id)
        line = f"  {o.state:<17} {api.short_id(o.item_id)} “{shown_within(item.label)}”"
        if o.pages_landed:  # the run's count adds these up (replaced since or not)
            line += f": {counted(o.pages_landed, 'page')} into {notebook_short(o.notebook_id)}"
        if o.skipped_sources:
            line += f", {counted(len(o.skipped_sources), 'duplicate')} skipped"
        if o.failure_message:
            line += f" — {o.failure_message}"
        say(line + placement_cli.words(corpus, item))
    if detail.not_imported:
        say(f"  not imported: {counted(len(detail.not_imported), 'file')} its scan found")
        for n in detail.not_imported[:NOT_IMPORTED_SHOWN]:
            say(f"    {n.sentence}")
        if len(detail.not_imported) > NOT_IMPORTED_SHOWN:
            more = len(detail.not_imported) - NOT_IMPORTED_SHOWN
            say(f"    … and {more} more (show {run_short(record.run_id)} --json lists each)")
    say("  history:")
    for h in api.run_history(record):
        say(f"    {history_line(h, run_short, api.revert_short_ids(corpus))}")
