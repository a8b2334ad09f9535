"""The ``watch`` command: hot folders on a share taken in as they arrive (docs/cli.md)."""

from __future__ import annotations

import argparse
import logging
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from transcribe_import.cli import signals
from transcribe_import.cli.output import json_out, say
from transcribe_import.cli.runs import UsageError
from transcribe_import.engine import api
from transcribe_import.engine.api import Corpus, ExitCode
from transcribe_import.engine.runs.model import RunControl

log = logging.getLogger(__name__)


def add_parser(sub: Any) -> None:
    w = sub.add_parser(
        "watch",
        help="import what appears in DIRs (hot folders on a share) until stopped",
        description="Poll each DIR and take in every bag or folder dropped there once it is "
        "whole: what is clear is committed, what needs a decision waits in the queue. Runs "
        "until Ctrl-C or SIGTERM.",
    )
    w.add_argument("folders", nargs="*", metavar="DIR", help="the folders to watch")
    w.add_argument("--once", action="store_true", help="one pass, then exit (for scripts)")
    w.add_argument(
        "--settle",
        type=float,
        default=api.DEFAULT_SETTLE_SECONDS,
        metavar="SECONDS",
        help="a folder unchanged this long is whole (default: %(default)g; a folder with a "
        ".done file, or a bag whose files are all there, is taken at once)",
    )
    w.add_argument(
        "--interval",
        type=float,
        default=api.DEFAULT_INTERVAL_SECONDS,
        metavar="SECONDS",
        help="seconds between two passes (default: %(default)g)",
    )
    w.add_argument(
        "--leave-imported",
        action="store_true",
        help="leave an imported drop where it is (default: move it to DIR/.imported/)",
    )
    w.add_argument("--workers", type=int, default=2, help="threads planning and committing")
    w.add_argument(
        "--notify",
        action="store_true",
        help="a desktop notification when a drop waits for a decision (notify-send on Linux, "
        "osascript on macOS)",
    )
    w.add_argument(
        "--queue", action="store_true", help="list the drops waiting for a decision, and exit"
    )
    w.add_argument("--log", action="store_true", help="list every drop record, and exit")
    w.add_argument(
        "--json", action="store_true", help="with --once, --queue or --log: one JSON document"
    )


def cmd_watch(corpus: Corpus, args: argparse.Namespace) -> int:
    if args.queue or args.log:
        if args.queue and args.log:
            raise UsageError("give --queue or --log, not both")
        if args.folders or args.once:
            raise UsageError("--queue and --log take no DIR and no --once")
        return _show_queue(corpus, args.json) if args.queue else _show_log(corpus, args.json)
    if not args.folders:
        raise UsageError("name the folders to watch (DIR...), or give --queue or --log")
    if args.json and not args.once:
        raise UsageError("--json goes with --once, --queue or --log")
    if args.settle < 0 or args.interval <= 0 or args.workers < 1:
        raise UsageError("--settle must be 0 or more, --interval more than 0, --workers at least 1")
    folders = [Path(f).expanduser().absolute() for f in args.folders]
    settings = api.WatchSettings(
        settle=args.settle, leave_imported=args.leave_imported, workers=args.workers
    )
    tell = _Teller(corpus, notify=args.notify, quiet=args.json)
    if args.once:
        return _once(corpus, folders, settings, tell, args.json)
    return _loop(corpus, folders, settings, tell, args.interval)


def _once(
    corpus: Corpus,
    folders: list[Path],
    settings: api.WatchSettings,
    tell: _Teller,
    as_json: bool,
) -> int:
    control = RunControl()
    with signals.handling(dict.fromkeys(signals.STOP_SIGNALS, control.pause)):
        done = signals.answered_at_once(
            lambda: api.watch_pass(corpus, folders, settings, control=control, on_record=tell)
        )
    if as_json:
        json_out(
            {
                "records": [r.to_json() for r in done.records],
                "unreadable": [{"folder": str(f), "why": why} for f, why in done.unreadable],
                "stalled": [{"drop": str(d), "why": why} for d, why in done.stalled],
            }
        )
    else:
        _tell_unreadable(done)
    if control.paused:
        return ExitCode.INTERRUPTED
    return ExitCode.PROBLEMS if done.unreadable or done.stalled else ExitCode.OK


def _loop(
    corpus: Corpus,
    folders: list[Path],
    settings: api.WatchSettings,
    tell: _Teller,
    interval: float,
) -> int:
    stop = threading.Event()
    control = RunControl()

    def on_stop() -> None:
        stop.set()
        control.pause()  # a run being committed stops at its next safe point, resumable

    names = ", ".join(str(f) for f in folders)
    say(
        f"Watching {names} every {interval:g} s (settle time {settings.settle:g} s); Ctrl-C stops.",
        file=sys.stderr,
    )
    with signals.handling(dict.fromkeys(signals.STOP_SIGNALS, on_stop)):
        while not stop.is_set():
            done = signals.answered_at_once(
                lambda: api.watch_pass(corpus, folders, settings, control=control, on_record=tell)
            )
            _tell_unreadable(done)
            stop.wait(interval)
    say(
        "Stopped watching; a drop being imported is taken up where it was by the next watch.",
        file=sys.stderr,
    )
    return ExitCode.OK


def record_line(r: api.DropRecord, runs: Callable[[str], str]) -> str:
    """One drop record in words: what happened to the drop (``watch`` and ``--log``); its
    run named by ``runs``, as `runs` lists it (the drop log on disk keeps the whole id)."""
    where = f"{r.name} in {r.folder}"
    state = r.state
    if state is api.DropState.FOUND:
        return f"{where}: found ({r.kind}); taken once it is whole"
    if state is api.DropState.WAITING:
        if r.code is not None:
            return f"{where}: its check refused it ({r.message}); refused if it stays so"
        return f"{where}: still changing; waiting"
    if state is api.DropState.COMMITTING:
        return f"{where}: whole and clear; importing it (plan {r.plan_id})"
    if state is api.DropState.IMPORTED:
        moved = f"; moved to {r.moved_to}" if r.moved_to else "; left where it is"
        return f"{where}: imported as run {runs(r.run_id or '')}{moved}"
    if state is api.DropState.NEEDS_REVIEW:
        return f"{where}: needs a decision: {r.message}"
    if state is api.DropState.REFUSED:
        return f"{where}: refused: {r.message}; moved to {r.moved_to} with a README"
    return f"{where}: {r.message}; left alone"


class _Teller:
    """Each record as it is written: its line on stdout (not with --json), and with --notify
    a desktop notification for a drop that waits for a decision."""

    def __init__(self, corpus: Corpus, *, notify: bool, quiet: bool) -> None:
        self.corpus = corpus
        self.quiet = quiet
        self.notify = notify
        self._command = _notify_command() if notify else None
        if notify and self._command is None:
            say(
                "transcribe-import: --notify: this system has no notify-send (Linux: install "
                "libnotify-bin) or osascript (macOS); drops waiting are listed by "
                "`watch --queue`.",
                file=sys.stderr,
            )

    def __call__(self, r: api.DropRecord) -> None:
        if not self.quiet:
            # The runs as they are now: a pass adds one for each drop it imports.
            say(record_line(r, api.run_short_ids(self.corpus)))
            sys.stdout.flush()
        if self._command is not None and r.state is api.DropState.NEEDS_REVIEW:
            title = "A dropped folder needs a decision"
            body = f"{r.name} in {r.folder}: {r.message} (transcribe-import watch --queue)"
            try:
                subprocess.run(
                    [*self._command, title, body],
                    timeout=NOTIFY_TIMEOUT_S,
                    capture_output=True,
                    check=False,
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                log.info("desktop notification not shown: %s", exc)


# A notification is told in milliseconds; a desktop that hangs must not hold the watch.
NOTIFY_TIMEOUT_S = 5.0


def _notify_command() -> list[str] | None:
    """The argv that shows a notification here (title and body are appended), or None."""
    if sys.platform == "darwin" and shutil.which("osascript"):
        # The texts go in as arguments, never into the script's source.
        return [
            "osascript",
            "-e",
            "on run argv",
            "-e",
            "display notification (item 2 of argv) with title (item 1 of argv)",
            "-e",
            "end run",
        ]
    found = shutil.which("notify-send")
    return [found, "--app-name=Transcribe Import"] if found else None


def _tell_unreadable(done: api.PassResult) -> None:
    for folder, why in done.unreadable:
        say(
            f"transcribe-import: {folder} cannot be read ({why}); is the share connected? "
            "It is read again next pass.",
            file=sys.stderr,
        )
    for drop, why in done.stalled:
        say(f"transcribe-import: {drop} was not taken this pass: {why}", file=sys.stderr)


def _show_queue(corpus: Corpus, as_json: bool) -> int:
    queue = api.drop_queue(corpus)
    drafts = {d.plan_id: d.path for d in api.list_drafts(corpus)}
    if as_json:
        json_out(
            {
                "queue": [
                    {
                        **r.to_json(),
                        "draft": str(drafts[r.plan_id]) if r.plan_id in drafts else None,
                    }
                    for r in queue
                ]
            }
        )
        return ExitCode.OK
    if not queue:
        say("No drop waits for a decision.")
    for r in queue:
        say(f"{r.name} in {r.folder} ({r.at[:19]}): {r.message}")
        draft = drafts.get(r.plan_id or "")
        if draft is not None:
            say(
                f"    its plan: {draft} — `transcribe-import validate` it, settle it with "
                "`order`, then `commit` it; the next pass moves the drop to .imported/."
            )
        elif r.run_id is not None:
            say(f"    its run: `transcribe-import show {api.run_short_ids(corpus)(r.run_id)}`")
    return ExitCode.OK


def _show_log(corpus: Corpus, as_json: bool) -> int:
    log = api.drop_log(corpus)
    if as_json:
        json_out({"records": [r.to_json() for r in log]})
        return ExitCode.OK
    if not log:
        say("No drop seen yet.")
    runs = api.run_short_ids(corpus)
    for r in log:
        say(f"{r.at[:19]}  {record_line(r, runs)}")
    return ExitCode.OK
