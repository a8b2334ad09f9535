"""The import-run commands of the CLI (plan, validate, order, commit, resume, cancel, runs, show).

Each command is a thin layer over the engine: the window calls the same engine
functions. One JSON document on stdout with --json; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import shlex
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from transcribe_import.cli.exitcodes import (
    EXIT_CANCELLED,
    EXIT_INTERRUPTED,
    EXIT_INVALID_PLAN,
    EXIT_OK,
    EXIT_PROBLEMS,
)
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.planning import edits, ordering
from transcribe_import.engine.planning.plan import (
    DedupeScope,
    ImportPlan,
    OrderingRule,
    PlanDocumentError,
    PlanItem,
    load_plan,
    policy_id_for,
    save_plan,
)
from transcribe_import.engine.planning.planner import build_plan
from transcribe_import.engine.planning.scan import ScanCancelled, ScanProgress, scan
from transcribe_import.engine.planning.validate import ValidationReport, validate
from transcribe_import.engine.runs.executor import (
    EventKind,
    RunControl,
    RunEvent,
    RunResult,
    cancel_run,
    execute_run,
    prepare_run,
)
from transcribe_import.engine.runs.store import RunRecord, RunStatus, RunStore
from transcribe_import.engine.storage.corpus import Corpus


class UsageError(Exception):
    """Bad arguments or an unusable plan file: exit 2 with this one line."""


def _json_out(doc: Any) -> None:
    sys.stdout.buffer.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    sys.stdout.flush()


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
            sys.stderr.write("\r\x1b[K" + text[:150])
            sys.stderr.flush()

    def done(self) -> None:
        if self.live:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _load(path: str) -> ImportPlan:
    try:
        return load_plan(Path(path))
    except PlanDocumentError as exc:
        raise UsageError(str(exc)) from None


# -- plan ----------------------------------------------------------------------------------


def cmd_plan(corpus: Corpus, args: argparse.Namespace) -> int:
    try:
        policy = policy_id_for(args.policy)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.title and args.mode != "single":
        raise UsageError("--title goes with --mode single")
    roots = [Path(p).expanduser().absolute() for p in args.paths]
    progress = _Progress()
    stop = threading.Event()
    with _on_sigint(stop.set):
        gen = scan(roots, workers=args.workers, should_stop=stop.is_set)
        try:
            while True:
                ev: ScanProgress = next(gen)
                progress.show(
                    f"{ev.phase}: {ev.found} page files found, {ev.inspected} "
                    f"inspected — {ev.current}"
                )
        except StopIteration as fin:
            result = fin.value
        except ScanCancelled:
            progress.done()
            print("transcribe-import: scan cancelled; no plan was written.", file=sys.stderr)
            return EXIT_CANCELLED
    progress.done()
    try:
        plan = build_plan(
            corpus,
            result,
            mode=args.mode,
            policy_id=policy,
            title=args.title,
            dedupe_scope=DedupeScope(args.dedupe),
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    save_plan(plan, Path(args.output))
    report = validate(corpus, plan, own_run_ids=set())
    pages = sum(len(s.pages) for it in plan.items for s in it.imported_sources())
    print(f"Wrote {args.output}: {len(plan.items)} notebook(s), {pages} page(s) to import.")
    for it in plan.items:
        print("  " + _item_line(it, report))
    ignored = [i for i in result.ignored if not i.junk]
    not_planned = plan.provenance.get("not_planned", [])
    if ignored or not_planned:
        print(
            f"Not planned: {len(ignored) + len(not_planned)} file(s) "
            "(see provenance in the plan for each reason)."
        )
        for entry in [*not_planned, *({"rel": i.rel, "reason": i.reason} for i in ignored)][:10]:
            print(f"  {entry['rel']}: {entry['reason']}")
    if not report.ok:
        print(
            f"{len(report.errors)} problem(s) to resolve before commit: "
            f"transcribe-import validate {args.output}"
        )
    return EXIT_OK


def _item_line(it: PlanItem, report: ValidationReport) -> str:
    problems = report.for_item(it.item_id)
    errors = [p for p in problems if p.severity == "error"]
    state = "needs a decision" if errors else "ready"
    op = "create" if it.op == "create_notebook" else f"into {it.notebook_id[:8]}"
    pages = sum(len(s.pages) for s in it.imported_sources())
    dups = sum(1 for s in it.sources if s.duplicate and not s.excluded)
    extra = f", {dups} duplicate(s) skipped" if dups else ""
    return f"[{state}] {it.item_id[:8]} {op} “{it.label}”: {pages} page(s){extra}"


# -- validate and order --------------------------------------------------------------------


def _print_report(plan: ImportPlan, report: ValidationReport, plan_path: str = "PLAN") -> None:
    for p in report.problems:
        item = plan.item(p.item_id)
        print(
            f"{p.severity.upper()} [{p.code}] item {item.item_id[:8]} “{item.label}”: {p.message}"
        )
        if p.resolutions:
            print(
                f"    resolve with: transcribe-import order {shlex.quote(plan_path)} "
                f"{item.item_id[:8]} " + " | ".join(_resolution_flag(r) for r in p.resolutions)
            )
    if report.ok:
        print(
            f"The plan is valid: {len(plan.items)} notebook(s), {len(report.warnings)} warning(s)."
        )
    else:
        print(
            f"{len(report.errors)} error(s), {len(report.warnings)} warning(s): "
            "commit is refused until the errors are resolved."
        )


def _resolution_flag(r: str) -> str:
    return {
        "accept": "--accept",
        "name": "--by name",
        "capture_time": "--by capture-time",
        "mtime": "--by mtime",
        "sequence": "--sequence FILE...",
        "exclude": "--exclude FILE...",
    }.get(r, r)


def cmd_validate(corpus: Corpus, args: argparse.Namespace) -> int:
    plan = _load(args.plan)
    report = validate(corpus, plan)
    if args.json:
        _json_out(report.to_json())
    else:
        _print_report(plan, report, args.plan)
    return EXIT_OK if report.ok else EXIT_INVALID_PLAN


def find_item(plan: ImportPlan, key: str) -> PlanItem:
    exact = [it for it in plan.items if it.item_id == key]
    if exact:
        return exact[0]
    by_prefix = [it for it in plan.items if len(key) >= 4 and it.item_id.startswith(key)]
    by_label = [it for it in plan.items if it.label == key or it.title == key]
    found = by_prefix or by_label
    if len(found) == 1:
        return found[0]
    if not found:
        raise UsageError(f"no item {key!r} in the plan; `validate` shows the item ids")
    raise UsageError(f"{key!r} names {len(found)} items; give more of the item id")


def cmd_order(corpus: Corpus, args: argparse.Namespace) -> int:
    plan = _load(args.plan)
    runs = RunStore(corpus).runs_for_plan(plan.plan_id)
    if runs:
        raise TranscribeError(
            ErrorCode.PLAN_FROZEN,
            f"{args.plan} was committed as run {runs[0].run_id} and is frozen; make a new plan "
            "with `plan` to import differently.",
            path=args.plan,
        )
    item = find_item(plan, args.item)
    try:
        if args.accept:
            new = ordering.accept(item)
        elif args.by:
            new = ordering.order_by(item, OrderingRule(args.by.replace("-", "_")))
        elif args.sequence:
            new = ordering.sequence(item, args.sequence)
        elif args.exclude:
            new = _exclude(item, args.exclude)
        else:
            new = _include(item, args.include)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    plan = plan.with_item(new)
    save_plan(plan, Path(args.plan))
    report = validate(corpus, plan)
    remaining = [p for p in report.errors if p.item_id == item.item_id]
    state = "resolved" if not remaining else f"{len(remaining)} error(s) remain"
    print(f"Updated {args.plan}: item {item.item_id[:8]} “{item.label}” — {state}.")
    for p in remaining:
        print(f"  {p.severity.upper()} [{p.code}]: {p.message}")
    return EXIT_OK


def _split_unusable(item: PlanItem, names: list[str]) -> tuple[list[str], list[str]]:
    """Names of unusable files (not sources) go to the item's acknowledged list."""
    unusable = {u["rel"] for u in item.unusable}
    by_base = {rel.rsplit("/", 1)[-1]: rel for rel in unusable}
    rest, ack = [], []
    for n in names:
        rel = n if n in unusable else by_base.get(n)
        (ack if rel else rest).append(rel or n)
    return rest, ack


def _exclude(item: PlanItem, names: list[str]) -> PlanItem:
    rest, ack = _split_unusable(item, names)
    if rest:
        item = ordering.exclude(item, rest)
    if ack:
        item = edits.acknowledge_unusable(item, ack)
    return item


def _include(item: PlanItem, names: list[str]) -> PlanItem:
    rest, ack = _split_unusable(item, names)
    if ack:
        raise ValueError(f"{ack[0]} cannot be imported (it is unusable): fix it and plan again")
    return ordering.include(item, rest)


# -- commit and resume ---------------------------------------------------------------------


@contextlib.contextmanager
def _on_sigint(handler: Any) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, lambda *_: handler())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


@contextlib.contextmanager
def _run_signals(control: RunControl) -> Iterator[None]:
    """Ctrl-C cancels the run; SIGTERM/SIGHUP pause it (resumable)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_int(*_: Any) -> None:
        print(
            "\ntranscribe-import: cancelling — items in progress are rolled back, committed "
            "notebooks stay.",
            file=sys.stderr,
        )
        control.cancel()

    def on_term(*_: Any) -> None:
        print(
            "\ntranscribe-import: stopping at the next safe point; the run can be resumed.",
            file=sys.stderr,
        )
        control.pause()

    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    signal.signal(signal.SIGINT, on_int)
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, on_term)
    try:
        yield
    finally:
        for s, h in saved.items():
            signal.signal(s, h)


def _execute(corpus: Corpus, run_id: str, args: argparse.Namespace) -> int:
    control = RunControl()
    progress = _Progress()
    started = time.monotonic()

    def on_event(ev: RunEvent) -> None:
        if ev.kind is EventKind.ITEM_FINISHED and ev.outcome is not None:
            rate = ev.pages_done / max(1e-6, time.monotonic() - started)
            progress.show(
                f"{ev.pages_done}/{ev.pages_total} pages, {rate:.1f} pages/s — "
                f"item {ev.item_id[:8] if ev.item_id else ''} {ev.outcome.state}",
                force=True,
            )

    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    with _run_signals(control):
        result = execute_run(
            corpus, run_id, workers=args.workers, control=control, on_event=on_event
        )
    progress.done()
    return _report_result(result, args)


def _report_result(result: RunResult, args: argparse.Namespace) -> int:
    record = result.record
    if args.json:
        _json_out(
            {
                **record.summary(),
                "paused": result.paused,
                "already_done": result.already_done,
                "verification_problems": list(result.verification_problems),
                "items": [o.to_json() for o in record.outcomes().values()],
            }
        )
    else:
        counts = record.counts()
        if result.already_done:
            print(
                f"Run {result.run_id} had already ended: {_status_words(result.status)}. "
                "Nothing was done."
            )
        elif result.paused or result.superseded:
            print(
                f"Run {result.run_id} stopped with {counts['pending']} item(s) pending; "
                f"resume it with `transcribe-import resume {result.run_id}`."
            )
        else:
            print(f"Run {result.run_id}: {_status_words(result.status)}.")
        print(
            f"  committed {counts['committed']}, skipped {counts['skipped']}, failed "
            f"{counts['failed']}, cancelled before start {counts['cancelled_pending']}, "
            f"pending {counts['pending']}; {record.summary()['pages_committed']} pages "
            "committed."
        )
        for o in record.outcomes().values():
            if o.failure_message:
                print(f"  FAILED item {o.item_id[:8]}: {o.failure_message}")
        for problem in result.verification_problems:
            print(f"  WARNING {problem}")
    return _exit_for(result)


def _status_words(status: RunStatus) -> str:
    return {
        RunStatus.COMPLETE: "complete — every item committed or skipped as planned",
        RunStatus.PARTIAL: "partial — some items committed, some failed",
        RunStatus.FAILED: "failed — nothing was committed",
        RunStatus.CANCELLED: "cancelled — no item had been committed, no page was added",
        RunStatus.CANCELLED_WITH_COMMITS: "cancelled with commits — what was committed before "
        "the cancel stays",
        RunStatus.RUNNING: "interrupted — resumable",
        RunStatus.PENDING: "not started",
    }[status]


def _exit_for(result: RunResult) -> int:
    if result.paused or result.superseded or not result.status.terminal:
        return EXIT_INTERRUPTED
    if result.status is RunStatus.COMPLETE:
        return EXIT_OK
    if result.status in (RunStatus.CANCELLED, RunStatus.CANCELLED_WITH_COMMITS):
        return EXIT_CANCELLED
    return EXIT_PROBLEMS


def cmd_commit(corpus: Corpus, args: argparse.Namespace) -> int:
    plan = _load(args.plan)
    report = validate(corpus, plan)
    if not report.ok:
        if args.json:
            _json_out(report.to_json())
        else:
            _print_report(plan, report, args.plan)
        return EXIT_INVALID_PLAN
    record, existing = prepare_run(
        corpus,
        plan,
        discovery={
            "plan_file": str(Path(args.plan).absolute()),
            "roots": plan.provenance.get("roots", []),
            "mode": plan.provenance.get("mode"),
        },
    )
    if existing and not args.json:
        print(
            f"This plan was committed before as run {record.run_id} "
            f"({record.status}); continuing it.",
            file=sys.stderr,
        )
    elif not args.json:
        print(f"Import run {record.run_id} created.", file=sys.stderr)
    return _execute(corpus, record.run_id, args)


def cmd_resume(corpus: Corpus, args: argparse.Namespace) -> int:
    record = RunStore(corpus).load(args.run_id)
    if record.status.terminal:
        raise UsageError(
            f"run {args.run_id} already ended ({record.status}); a finished run is "
            "never reopened — commit its plan again to retry what did not land"
        )
    return _execute(corpus, args.run_id, args)


def cmd_cancel(corpus: Corpus, args: argparse.Namespace) -> int:
    record = cancel_run(corpus, args.run_id)
    if record.status.terminal:
        print(f"Run {args.run_id}: {_status_words(record.status)}.")
        return EXIT_CANCELLED
    print(
        f"Cancel requested: the process executing run {args.run_id} stops its pending items "
        "at the next safe point."
    )
    return EXIT_OK


def cmd_runs(corpus: Corpus, args: argparse.Namespace) -> int:
    store = RunStore(corpus)
    records = store.list_runs()
    rows = []
    for r in records:
        row = r.summary()
        row["interrupted"] = not r.status.terminal and not store.is_locked(r.run_id)
        rows.append(row)
    if args.json:
        _json_out({"runs": rows})
        return EXIT_OK
    if not rows:
        print("No import runs yet.")
    for row in rows:
        c = row["counts"]
        state = "interrupted (resumable)" if row["interrupted"] else row["status"]
        print(
            f"{row['import_run_id']}  {row['created_at'][:19]}  {state:<24} "
            f"{c['committed']} committed, {c['skipped']} skipped, {c['failed']} failed, "
            f"{c['pending'] + c['cancelled_pending']} not done"
        )
    return EXIT_OK


def cmd_show(corpus: Corpus, args: argparse.Namespace) -> int:
    store = RunStore(corpus)
    record = store.load(args.run_id)
    plan = store.load_plan(args.run_id, record)
    if args.json:
        _json_out({**record.doc, "plan": plan.to_document()})
        return EXIT_OK
    _print_run(record, plan)
    return EXIT_OK


def _print_run(record: RunRecord, plan: ImportPlan) -> None:
    print(f"Run {record.run_id} — {_status_words(record.status)}")
    print(
        f"  plan {record.plan_id} (fingerprint {record.plan_fingerprint[:12]}…), "
        f"policy {record.doc['import_policy_id']}, attempt {record.attempt}"
    )
    print(f"  created {record.created_at}, updated {record.doc.get('updated_at')}")
    for o in record.outcomes().values():
        item = plan.item(o.item_id)
        line = f"  {o.state:<17} {o.item_id[:8]} “{item.label}”"
        if o.page_count:
            line += f": {o.page_count} page(s) into {o.notebook_id}"
        if o.skipped_sources:
            line += f", {len(o.skipped_sources)} duplicate(s) skipped"
        if o.failure_message:
            line += f" — {o.failure_message}"
        print(line)
    for h in record.doc.get("history", []):
        print(f"  history: {h['at']} {h['event']} (attempt {h['attempt']}, by {h.get('by')})")
