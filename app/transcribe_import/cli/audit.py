"""`transcribe-import audit`: fixity checks on a budget, their report, repair from a copy."""

from __future__ import annotations

import argparse
import re
import threading
from pathlib import Path
from typing import Any

from transcribe_import.cli import runs as runs_cli
from transcribe_import.cli import signals
from transcribe_import.cli.output import json_out, say
from transcribe_import.engine import api
from transcribe_import.engine.api import Corpus, ExitCode
from transcribe_import.engine.audit.model import AuditEnd, RepairRefusal
from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.base.text import agreeing, counted

_UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """``20GB`` (10^9), ``500MiB`` (2^20), ``1.5TB``, ``123`` (bytes) as a number of bytes."""
    m = _SIZE.match(text)
    unit = m.group(2).lower() if m else ""
    if m is None or unit not in _UNITS or float(m.group(1)) <= 0:
        raise runs_cli.UsageError(
            f"--budget {text!r} is not an amount of data; write it like 20GB, 500MB or 1TiB"
        )
    return int(float(m.group(1)) * _UNITS[unit])


def add_parser(sub: Any) -> None:
    a = sub.add_parser(
        "audit",
        help="re-hash the corpus's files on a budget (fixity), report, repair from a copy",
    )
    a.add_argument(
        "--budget",
        metavar="SIZE",
        help="read at most this much in this run (20GB, 500MB, 1TiB); the next run goes on",
    )
    a.add_argument(
        "--minutes", type=float, metavar="N", help="stop after N minutes; the next run goes on"
    )
    a.add_argument(
        "--all",
        action="store_true",
        help="finish the current round: every file not yet checked in it (the default)",
    )
    a.add_argument(
        "--report",
        action="store_true",
        help="check nothing: what was checked, what never was, the oldest check, every failure",
    )
    a.add_argument(
        "--repair-from",
        metavar="FOLDER",
        help="copy back each failed file from an exported bag, a data folder or a backup, "
        "only where its bytes have the recorded sha256",
    )
    a.add_argument("--json", action="store_true", help="print one JSON document")


def cmd_audit(corpus: Corpus, args: argparse.Namespace) -> int:
    bounded = args.budget is not None or args.minutes is not None
    if args.report or args.repair_from is not None:
        if bounded or args.all or (args.report and args.repair_from is not None):
            raise runs_cli.UsageError(
                "--report and --repair-from go alone (no --budget, --minutes or --all), "
                "one at a time"
            )
        if args.report:
            return _report(corpus, args.json)
        return _repair(corpus, Path(args.repair_from).expanduser().absolute(), args.json)
    if args.all and bounded:
        raise runs_cli.UsageError("--all checks the whole round: give it without a budget")
    if args.minutes is not None and args.minutes <= 0:
        raise runs_cli.UsageError("--minutes takes a number of minutes above 0")
    budget = api.AuditBudget(
        max_bytes=None if args.budget is None else parse_size(args.budget),
        max_seconds=None if args.minutes is None else args.minutes * 60,
    )
    return _run(corpus, budget, args.json)


def _run(corpus: Corpus, budget: api.AuditBudget, as_json: bool) -> int:
    stop = threading.Event()
    progress = runs_cli._Progress()

    def show(ev: api.AuditProgress) -> None:
        progress.show(
            f"round {ev.round}: {ev.files_done}/{ev.files_total} "
            f"{agreeing(ev.files_total, 'file', 'files')}, {ev.bytes_done // 1_048_576} MiB, "
            f"{counted(ev.failures, 'failure')} — {ev.current}"
        )

    try:
        # Ctrl-C, SIGTERM or SIGHUP stop the audit after the file it reads: what it checked
        # is recorded, and the next run goes on from there.
        with signals.handling(dict.fromkeys(signals.STOP_SIGNALS, stop.set)):
            result = api.drive(api.run_audit(corpus, budget, should_stop=stop.is_set), show)
    except TranscribeError:
        progress.done()
        raise
    progress.done()
    code = _run_code(result)
    if as_json:
        json_out(result.to_json())
        return code
    nothing = result.files_checked == 0 and result.skipped_changed == 0
    if nothing and result.end is AuditEnd.ROUND_COMPLETE:
        say(f"No notebook of {corpus.root} records a file yet: nothing to check.")
        return code
    said = (
        f"Checked {counted(result.files_checked, 'file')} "
        f"({result.bytes_checked / 1e6:.1f} MB) of round {result.round} in "
        f"{result.seconds:.1f} s: "
    )
    said += (
        f"{counted(len(result.failures), 'failure')}."
        if result.failures
        else "all hold their recorded bytes."
    )
    say(said)
    for failure in api.failure_words(result.failures):
        say(f"  FAILED {failure}")
    if result.skipped_changed:
        say(
            f"  {counted(result.skipped_changed, 'file')} changed by an import or an undo "
            "while being read; not recorded, and checked again in the next round."
        )
    left = counted(result.left_in_round, "file")
    if result.end is AuditEnd.ROUND_COMPLETE:
        say(f"Round {result.round} is complete: every file of the corpus was checked in it.")
    elif result.end is AuditEnd.BUDGET_SPENT:
        say(f"The budget is spent; {left} of round {result.round} left for the next run.")
    else:
        say(
            f"Stopped; {left} of round {result.round} left: the next "
            "`transcribe-import audit` goes on where this one stopped."
        )
    if result.failures:
        say(
            "Repair with `transcribe-import audit --repair-from FOLDER` (an exported bag, "
            "another corpus's data folder or a backup)."
        )
    return code


def _run_code(result: api.AuditResult) -> int:
    if result.failures:
        return ExitCode.PROBLEMS
    if result.end is AuditEnd.STOPPED:
        return ExitCode.INTERRUPTED
    return ExitCode.OK


def _report(corpus: Corpus, as_json: bool) -> int:
    report = api.audit_report(corpus)
    code = ExitCode.PROBLEMS if report.failures else ExitCode.OK
    if as_json:
        json_out(report.to_json())
        return code
    say(
        f"{counted(report.files_total, 'file')} recorded in {corpus.root}: "
        f"{report.files_checked} checked at least once, {len(report.never_checked)} never."
    )
    if report.oldest_check is not None:
        oldest = report.oldest_check
        say(f"Oldest check: {_when(oldest.last_checked)} ({api.file_words(oldest.file)}).")
    for f in report.never_checked[:10]:
        say(f"  NEVER CHECKED {api.file_words(f)}")
    if len(report.never_checked) > 10:
        say(f"  ... and {len(report.never_checked) - 10} more (--json lists every file).")
    full = report.last_full_audit
    if full is None:
        say("No full audit yet: run `transcribe-import audit --all`.")
    else:
        say(
            f"Last full audit: round {full.round}, finished {_when(full.finished_at)}, "
            f"{counted(full.failures, 'failure')}."
        )
    if report.round and report.left_in_round:
        say(f"Round {report.round} goes on: {counted(report.left_in_round, 'file')} left.")
    if report.failures:
        n = len(report.failures)
        say(f"{counted(n, 'file')} failed {agreeing(n, 'its', 'their')} last check:")
        for words in api.failure_words(report.failures):
            say(f"  FAILED {words}")
    else:
        say("No file failed its last check.")
    if report.damaged_lines:
        n = report.damaged_lines
        say(
            f"The fixity log has {counted(n, 'unreadable line')} (a kill cut a write short, "
            f"or damage); {agreeing(n, 'it is', 'they are')} skipped and kept."
        )
    return code


_REFUSAL_WORDS = {
    RepairRefusal.NO_COPY: "no file in the folder has its recorded sha256",
    RepairRefusal.OTHER_BYTES: "the copy there has other bytes",
    RepairRefusal.BUSY: "an import is writing into its notebook; try again when it ends",
    RepairRefusal.CHANGED: "its notebook no longer records it with that sha256",
}


def _repair(corpus: Corpus, source: Path, as_json: bool) -> int:
    stop = threading.Event()
    with signals.handling(dict.fromkeys(signals.STOP_SIGNALS, stop.set)):
        result = api.repair_from(corpus, source, should_stop=stop.is_set)
    code = ExitCode.PROBLEMS if result.not_repaired else ExitCode.OK
    if as_json:
        json_out(result.to_json())
        return code
    if not result.repaired and not result.not_repaired:
        say("No file failed its last check: nothing to repair.")
    for r in result.repaired:
        say(f"REPAIRED {api.file_words(r.file)} from {r.copied_from}")
    for n in result.not_repaired:
        seen = f" ({n.copy_seen})" if n.copy_seen else ""
        say(f"NOT REPAIRED {api.file_words(n.file)}: {_REFUSAL_WORDS[n.reason]}{seen}")
    if result.not_repaired:
        say(
            f"{counted(len(result.not_repaired), 'file')} could not be repaired from {source}; "
            "try another copy (a bag, a backup), or the original scans with "
            "`transcribe-import doctor --restore-from`."
        )
    return code


def _when(stamp: str | None) -> str:
    return "never" if stamp is None else f"{stamp[:19].replace('T', ' ')} UTC"
