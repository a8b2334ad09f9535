"""The command line (docs/cli.md): a thin layer over the engine."""

from __future__ import annotations

import argparse
import atexit
import os
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from transcribe_import import __version__
from transcribe_import.cli import audit as audit_cli
from transcribe_import.cli import corpus_turns as corpus_turns_cli
from transcribe_import.cli import lookalikes as lookalikes_cli
from transcribe_import.cli import placement as placement_cli
from transcribe_import.cli import runs as runs_cli
from transcribe_import.cli import second_look as second_look_cli
from transcribe_import.cli import signals
from transcribe_import.cli import turns as turns_cli
from transcribe_import.cli import undo as undo_cli
from transcribe_import.cli import watch as watch_cli
from transcribe_import.cli.logfile import QuietFileHandler
from transcribe_import.cli.output import json_out, say
from transcribe_import.cli.run_ids import RUN_ID_HELP
from transcribe_import.engine import api
from transcribe_import.engine.api import Corpus, ExitCode, resolve_data_dir
from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.base.findings import DoctorReport, DoctorStop, FindingCode
from transcribe_import.engine.base.text import agreeing, counted, shown_within


class _Parser(argparse.ArgumentParser):
    # usage errors exit 2 with one line, as docs/cli.md says
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        say(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(ExitCode.USAGE)


DATA_DIR_HELP = (
    "the data directory holding corpus/ (default: $TRANSCRIBE_DATA_DIR, else the platform's "
    "user data directory)"
)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="transcribe-import",
        description="Import scanned notebooks into a corpus. Without a COMMAND it opens the "
        "window.",
        epilog="--data-dir goes before the command or after it: transcribe-import --data-dir "
        "DIR COMMAND ... Each command has its own --help. docs/cli.md describes every "
        "command, its JSON and its exit codes.",
    )
    p.add_argument(
        "--version",
        action="version",
        version=f"transcribe-import {__version__}",
        help="print the version and exit",
    )
    p.add_argument("--data-dir", metavar="DIR", help=DATA_DIR_HELP)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    g = sub.add_parser("gui", help="open the window (the default)")
    g.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="folders or files to scan at once, one notebook per folder",
    )

    n = sub.add_parser("notebooks", help="list the corpus's notebooks, or one notebook's pages")
    n.add_argument(
        "notebook_id",
        nargs="?",
        metavar="NOTEBOOK_ID",
        help="list this notebook's pages (its id, the start of its id as the list shows it, or "
        "its title)",
    )
    n.add_argument("--json", action="store_true", help="print one JSON document")

    pl = sub.add_parser("plan", help="scan PATHs and write a plan document")
    pl.add_argument("paths", nargs="+", metavar="PATH", help="folders and files to scan")
    pl.add_argument(
        "-o", "--output", required=True, metavar="PLAN.json", help="the plan document to write"
    )
    pl.add_argument(
        "--mode",
        default="folders",
        help="folders (default: one notebook per folder), pdfs (one per PDF), prefix (one per "
        "file-name prefix), single (all into one new notebook), into:NOTEBOOK (its id, the start "
        "of its id, or its title), bag (each "
        "PATH a bag from `export`: its notebooks keep their ids)",
    )
    pl.add_argument(
        "--policy",
        default="skip_existing",
        help="duplicate policy: skip_existing (default) or create_duplicate",
    )
    pl.add_argument("--title", help="the notebook title, with --mode single")
    pl.add_argument(
        "--dedupe",
        choices=["notebook", "corpus"],
        default="corpus",
        help="where skip_existing looks for duplicates (default: every notebook of the corpus; "
        "notebook: only the target notebook)",
    )
    pl.add_argument(
        "--workers", type=int, default=2, help="threads hashing files, processes making looks"
    )
    pl.add_argument(
        "--verbose",
        action="store_true",
        help="a line for every notebook and every file not planned (default: the first 5 "
        "notebooks of each state and a count of the rest)",
    )
    placement_cli.add_plan_options(pl)

    v = sub.add_parser("validate", help="list a plan's errors and warnings")
    v.add_argument("plan", metavar="PLAN.json", help="a plan document written by `plan`")
    v.add_argument("--json", action="store_true", help="print one JSON document")
    v.add_argument(
        "--verbose",
        action="store_true",
        help="every problem (default: the first 5 of each code and a count of the rest)",
    )
    second_look_cli.add_hint_options(v)

    o = sub.add_parser("order", help="resolve an item's page order, rewriting the plan")
    o.add_argument("plan", metavar="PLAN.json", help="the plan document, rewritten in place")
    o.add_argument("item", metavar="ITEM_ID", help="an item id (or a unique prefix, or its title)")
    how = o.add_mutually_exclusive_group(required=True)
    how.add_argument("--accept", action="store_true", help="accept the proposed order")
    how.add_argument(
        "--by",
        choices=["name", "capture-time", "mtime", "interleave", "interleave-reversed"],
        help="sort by name, capture time or mtime; or put two duplex passes together "
        "(interleave: front, back, ...; interleave-reversed: the backs' pass reversed)",
    )
    how.add_argument(
        "--verso-first", action="store_true", help="foliated pages: the first page is a verso"
    )
    how.add_argument(
        "--versos-blank",
        action="store_true",
        help="foliated pages: the versos are blank and were not scanned",
    )
    how.add_argument(
        "--sequence",
        nargs="+",
        metavar="FILE",
        help="the whole order; sources left out are excluded",
    )
    how.add_argument("--exclude", nargs="+", metavar="FILE", help="leave these files out")
    how.add_argument("--include", nargs="+", metavar="FILE", help="take excluded files back")
    how.add_argument("--skip", action="store_true", help="a bag's notebook: leave it out")
    how.add_argument(
        "--as-copy", action="store_true", help="a bag's notebook: import it with new ids"
    )
    how.add_argument(
        "--complete",
        action="store_true",
        help="a folder partly imported already: put its new pages into the notebook holding "
        "the others, where their names put them",
    )
    how.add_argument(
        "--new-notebook",
        action="store_true",
        help="a folder partly imported, planned to complete its notebook: make a second "
        "notebook of its pages instead",
    )
    placement_cli.add_order_options(how)
    lookalikes_cli.add_order_options(how, o)
    turns_cli.add_order_options(how)
    second_look_cli.add_order_options(how)

    c = sub.add_parser("commit", help="validate, create the import run and commit it")
    c.add_argument("plan", metavar="PLAN.json", help="the plan document to commit")
    c.add_argument("--workers", type=int, default=2, help="notebooks committed in parallel")
    c.add_argument("--json", action="store_true", help="print one JSON document")

    r = sub.add_parser("resume", help="resume an interrupted run")
    r.add_argument("run_id", metavar="RUN_ID", help=RUN_ID_HELP)
    r.add_argument("--workers", type=int, default=2, help="notebooks committed in parallel")
    r.add_argument("--json", action="store_true", help="print one JSON document")

    k = sub.add_parser("cancel", help="ask the process executing RUN_ID to stop pending items")
    k.add_argument("run_id", metavar="RUN_ID", help=RUN_ID_HELP)

    rs = sub.add_parser("runs", help="list import runs, newest first")
    rs.add_argument("--json", action="store_true", help="print one JSON document")

    sh = sub.add_parser("show", help="one run with its per-item outcomes")
    sh.add_argument("run_id", metavar="RUN_ID", help=RUN_ID_HELP)
    sh.add_argument("--json", action="store_true", help="print one JSON document")

    undo_cli.add_parsers(sub)
    corpus_turns_cli.add_turn_parser(sub)

    d = sub.add_parser("doctor", help="check and recover the corpus")
    d.add_argument("--json", action="store_true", help="print one JSON document")
    d.add_argument("--verify-hashes", action="store_true", help="re-hash every stored file (slow)")
    d.add_argument(
        "--remove-empty",
        metavar="NOTEBOOK_ID",
        help="remove a notebook that holds no page (moved to corpus/quarantine/), after asking",
    )
    d.add_argument("--yes", action="store_true", help="with --remove-empty: do not ask")
    d.add_argument(
        "--restore-from",
        action="append",
        default=[],
        metavar="PATH",
        help="a file or folder (a backup, the original scans) to copy missing files back from; "
        "only bytes with the recorded sha256 are used",
    )

    watch_cli.add_parser(sub)

    e = sub.add_parser("export", help="copy notebooks out as a BagIt bag")
    e.add_argument(
        "notebook_ids", nargs="*", metavar="NOTEBOOK_ID", help="the notebooks to export (or --all)"
    )
    e.add_argument("--all", action="store_true", help="every notebook of the corpus")
    e.add_argument(
        "-o",
        "--output",
        metavar="DIR",
        help="a new or empty folder (default: a fresh one under DIR/exports/)",
    )
    e.add_argument("--json", action="store_true", help="print one JSON document")
    audit_cli.add_parser(sub)
    _data_dir_after_the_command(sub)
    return p


def _data_dir_after_the_command(sub: argparse._SubParsersAction[_Parser]) -> None:
    """``--data-dir`` is taken after the command too (``plan … --data-dir D``): given there,
    it wins over one before the command; absent, the one before (or none) stands."""
    for command in sub.choices.values():
        command.add_argument(
            "--data-dir", metavar="DIR", default=argparse.SUPPRESS, help=DATA_DIR_HELP
        )


def cmd_notebooks(corpus: Corpus, args: argparse.Namespace) -> int:
    if args.notebook_id is not None:
        try:
            notebook_id = api.notebook_id_for(corpus, args.notebook_id)
        except ValueError as exc:
            raise runs_cli.UsageError(str(exc)) from None
        return placement_cli.cmd_pages(corpus, notebook_id, args.json)
    notebooks = api.list_notebooks(corpus)
    index_problems = api.listing_problems(corpus)
    problems = index_problems + api.unfinished_undos(corpus)  # half moved: not whole either
    code = ExitCode.PROBLEMS if problems else ExitCode.OK
    if args.json:
        json_out(
            {
                "corpus": str(corpus.root),
                "notebooks": [n.to_json() for n in notebooks],
                "problems": problems,
            }
        )
        return code
    if not notebooks and not problems:
        say(f"No notebooks yet in {corpus.root}.")
    width = max((len(shown_within(n.title)) for n in notebooks), default=0)
    short = api.notebook_short_ids(corpus)
    for n in notebooks:
        pages = "?" if n.page_count is None else str(n.page_count)
        noun = agreeing(n.page_count or 0, "page", "pages")  # "?" pages when unknown
        title = shown_within(n.title)  # the whole title is in --json
        line = f"{short(n.notebook_id)}  {title:<{width}}  {pages:>5} {noun:<5}  "
        line += n.created_at[:19]
        say(line + (f"  PROBLEM: {n.problem}" if n.problem else ""))
        if n.unfinished is not None:
            say(f"    INCOMPLETE: {_unfinished_words(corpus, n.unfinished)}")
    for problem in problems:
        say(f"PROBLEM: {problem}.")
    if index_problems:
        say(
            "This list may be incomplete: run `transcribe-import doctor`, which repairs the "
            "index from the notebooks' own project.json files."
        )
    return code


def _unfinished_words(corpus: Corpus, u: api.UnfinishedImport) -> str:
    """What an incomplete notebook holds of its import, and the command that finishes it."""
    # "32 of 70 pages", "1 of 1 page": the noun agrees with the total, or when that is
    # unknown with what landed.
    total = u.pages_landed if u.pages_expected is None else u.pages_expected
    expected = "?" if u.pages_expected is None else str(u.pages_expected)
    command = api.finish_command(corpus, u)
    then = "a process is importing it now" if command is None else f"finish it with `{command}`"
    pages = agreeing(total, "page", "pages")
    run = api.run_short_ids(corpus)(u.run_id)
    return f"{u.pages_landed} of {expected} {pages} of import run {run} landed; {then}."


def _checked_words(report: DoctorReport, corpus: Corpus) -> str:
    """doctor's first line: how many notebooks it checked, and, when it stopped before them
    all, where, why and what lets it check them (its finding, below, says more)."""
    checked = f"Checked {counted(report.notebooks_checked, 'notebook')} in {corpus.root}"
    if report.stopped is DoctorStop.LINK:
        return (
            f"Stopped before checking the notebooks in {corpus.root}: a link in the corpus "
            "(below) stops every repair. Put the real folder back as said, then run doctor "
            "again to check them."
        )
    if report.stopped is DoctorStop.UNDO_RUNNING:
        return (
            f"Stopped before checking the notebooks in {corpus.root}: an undo running in "
            "another process is moving notebooks (below). Run doctor again once it has ended "
            "to check them."
        )
    if report.stopped is DoctorStop.DISK:
        return (
            f"{checked}, then stopped at a disk error (below). Run doctor again once the disk "
            "is sound to check them all."
        )
    return f"{checked}."


def cmd_doctor(corpus: Corpus, args: argparse.Namespace) -> int:
    if args.remove_empty is not None:
        return _remove_empty(corpus, args.remove_empty, args)
    if args.yes:
        raise runs_cli.UsageError("--yes goes with --remove-empty NOTEBOOK_ID")
    report = api.check_corpus(
        corpus,
        verify_hashes=args.verify_hashes,
        restore_from=[Path(p).expanduser().absolute() for p in args.restore_from],
    )
    if args.json:
        json_out(report.to_json())
    else:
        say(_checked_words(report, corpus))
        for f in report.findings:
            say(f"[{f.severity}] {f.message}")
        incomplete = sum(f.code is FindingCode.NOTEBOOK_INCOMPLETE for f in report.findings)
        if report.clean and incomplete:
            # Not whole: a notebook holds part of its import (a note, since nothing is damaged).
            say(
                f"Nothing is damaged, but {counted(incomplete, 'notebook')} "
                f"{agreeing(incomplete, 'holds', 'hold')} only part of "
                f"{agreeing(incomplete, 'its', 'their')} import: finish or undo it as said above."
            )
        elif report.clean:
            say("Nothing to report: the corpus is whole.")
    return api.exit_code_for_doctor(report)


def _remove_empty(corpus: Corpus, notebook_id: str, args: argparse.Namespace) -> int:
    """doctor --remove-empty: asks first (or --yes); refused unless the notebook holds no page."""
    shown = api.notebook_short_ids(corpus)(notebook_id)  # as `notebooks` lists it
    if not args.yes:
        if not sys.stdin.isatty():
            raise runs_cli.UsageError(
                f"removing notebook {shown} needs a confirmation: run it in a terminal, "
                "or add --yes"
            )
        answer = input(f"Remove notebook {shown}, which holds no page? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            say("Nothing was removed.")
            return ExitCode.OK
    where = api.remove_empty_notebook(corpus, notebook_id)
    if args.json:
        json_out({"removed": notebook_id, "moved_to": str(where)})
    else:
        say(
            f"Notebook {shown} (no page) was removed from the corpus; its folder is now in {where}."
        )
    return ExitCode.OK


def cmd_export(corpus: Corpus, args: argparse.Namespace) -> int:
    if args.all and args.notebook_ids:
        raise runs_cli.UsageError("give NOTEBOOK_IDs or --all, not both")
    if not args.all and not args.notebook_ids:
        raise runs_cli.UsageError(
            "name the notebooks to export (NOTEBOOK_ID...; `transcribe-import notebooks` lists "
            "them) or give --all"
        )
    output = Path(args.output) if args.output else None
    stop = threading.Event()
    progress = runs_cli._Progress()

    def show(ev: api.ExportProgress) -> None:
        progress.show(
            f"{ev.files_done}/{ev.files_total} {agreeing(ev.files_total, 'file', 'files')}, "
            f"{ev.bytes_done // 1_048_576}/{ev.bytes_total // 1_048_576} MiB — "
            f"{ev.current or ev.phase}"
        )
        # Told at once on a terminal (an export can be long); the summary lists it too.
        if ev.missing is not None and progress.live and not args.json:
            progress.done()
            say(f"transcribe-import: {ev.missing.message}", file=sys.stderr)

    try:
        # Ctrl-C, SIGTERM or SIGHUP end the export cleanly: its folder then says it is incomplete.
        with signals.handling(dict.fromkeys(signals.STOP_SIGNALS, stop.set)):
            events = api.export_notebooks(
                corpus, None if args.all else args.notebook_ids, output, should_stop=stop.is_set
            )
            result = api.drive(events, show)
    except TranscribeError as exc:
        progress.done()
        say(f"transcribe-import: {exc}", file=sys.stderr)
        return api.exit_code_for_export_error(exc)
    progress.done()
    for warning in result.warnings:  # the bag is whole: a leftover, not a failure
        say(f"transcribe-import: warning: {warning}", file=sys.stderr)
    if args.json:
        json_out(result.to_json())
        return api.exit_code_for_export(result)
    where = result.destination
    files = len(result.files)
    if result.status is api.ExportStatus.CANCELLED:
        say(
            f"Export cancelled after {counted(files, 'file')}; {where} holds an incomplete export "
            "(it says so in EXPORT-INCOMPLETE.txt and is not a valid bag): delete it."
        )
    else:
        say(
            f"Exported {counted(len(result.notebooks), 'notebook')}, {counted(files, 'file')} "
            f"({counted(result.payload_bytes, 'byte')}) to {where}: {result.status}."
        )
        for m in result.missing:
            say(f"  MISSING [{m.reason}] {m.path}: {m.message}")
        if result.missing:
            say(
                f"  {counted(len(result.missing), 'file')} could not be copied, so the bag "
                "does not validate; repair the corpus and export again."
            )
        say(f"  chain hash {result.chain_hash}")
    return api.exit_code_for_export(result)


def cmd_gui(data_dir: Path, args: argparse.Namespace) -> int:
    from transcribe_import.gui.app import run_gui  # Qt is loaded only when a window is wanted

    return run_gui(data_dir, [Path(p) for p in getattr(args, "paths", [])])


def _log_traceback(data_dir: Path) -> str:
    """Append the traceback being handled to the error log; the words that say where it is
    (or, when the log cannot be written, that it could not be: never a second traceback)."""
    log_dir = _log_dir()
    try:
        log_dir.mkdir(parents=True, exist_ok=True)
    except OSError:
        log_dir = data_dir
    path = log_dir / "transcribe-import-error.log"
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write(traceback.format_exc())
            f.write("\n")
    except OSError as exc:
        return (
            f"Its details could not be written to {path} ({exc.strerror or exc}); please "
            "include this line when you report this."
        )
    return f"Details were written to {path}; please include that file when you report this."


COMMANDS: dict[str, Callable[[Corpus, argparse.Namespace], int]] = {
    "notebooks": cmd_notebooks,
    "doctor": cmd_doctor,
    "export": cmd_export,
    "audit": audit_cli.cmd_audit,
    "plan": runs_cli.cmd_plan,
    "validate": runs_cli.cmd_validate,
    "order": runs_cli.cmd_order,
    "commit": runs_cli.cmd_commit,
    "resume": runs_cli.cmd_resume,
    "cancel": runs_cli.cmd_cancel,
    "runs": runs_cli.cmd_runs,
    "show": runs_cli.cmd_show,
    "revert": undo_cli.cmd_revert,
    "trash": undo_cli.cmd_trash,
    "turn": corpus_turns_cli.cmd_turn,
    "watch": watch_cli.cmd_watch,
}


LOG_NAME = "transcribe-import.log"


def _quiet_libraries() -> None:
    """Nothing raw from a library reaches the terminal: it goes to the log file instead.

    The decoders' warnings about a file are caught by media and logged at INFO with the
    file's name (a warning that refuses a file is a coded error there); any other Python
    warning, and every log record of INFO or more, is appended to ``transcribe-import.log``
    in the user log directory (created only when something is written). With a handler on
    the root logger, Python no longer prints unhandled WARNING records on stderr either. A
    log that cannot be written (a full disk) drops its records quietly (``cli/logfile``).
    """
    import logging

    logging.captureWarnings(True)
    logging.getLogger("transcribe_import").setLevel(logging.INFO)
    root = logging.getLogger()
    if any(h.get_name() == LOG_NAME for h in root.handlers):
        return  # main() called again in one process
    handler: logging.Handler
    try:
        log_dir = _log_dir()
        log_dir.mkdir(parents=True, exist_ok=True)
        handler = QuietFileHandler(str(log_dir / LOG_NAME))  # never a word on the terminal
    except OSError:
        handler = logging.NullHandler()  # no log folder: still nothing on the terminal
    handler.setLevel(logging.INFO)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.set_name(LOG_NAME)  # how a second main() in one process knows it
    root.addHandler(handler)


def _log_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_log_dir("Transcribe", appauthor=False))


def main(argv: Sequence[str] | None = None) -> int:
    # One scope for the whole command, its last line included: a signal it answered
    # (signals.handling) decides the exit code, and a second one cannot change it. Without
    # ``argv`` this is the process's own command line, which exits right after: its handlers
    # stay to the end. A caller that passes ``argv`` (a test) gets its own back.
    with signals.command(to_the_end=argv is None):
        code = _main(argv)
        api.crashpoint("cli.after_command")  # its last line printed, the exit code chosen
    api.crashpoint("cli.after_scope")  # the earlier handlers back, unless kept to the end
    if argv is None:
        # Run first of the exit's callbacks: after the wait for the process's threads (a
        # signal still stops a hung one), before the teardown that puts the defaults back.
        atexit.register(_at_teardown)
    return code


def _at_teardown() -> None:
    signals.ignored_from_here()
    api.crashpoint("cli.at_teardown")  # nothing but the interpreter's teardown after this


# The commands that running again finishes: a disk error pauses them (exit 6).
FINISH_LATER = frozenset({"resume", "doctor"})


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    _quiet_libraries()
    data_dir = resolve_data_dir(args.data_dir)
    try:
        if args.command in (None, "gui"):
            return cmd_gui(data_dir, args)
        corpus = api.open_corpus(data_dir)
        if getattr(args, "run_id", None) is not None:
            # Every RUN_ID may be a unique prefix, as an item id may (`runs` shows 8 characters).
            args.run_id = api.resolve_run_id(corpus, args.run_id)
        return COMMANDS[args.command](corpus, args)
    except runs_cli.UsageError as exc:
        say(f"transcribe-import: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    except TranscribeError as exc:
        say(f"transcribe-import: {exc}", file=sys.stderr)
        return api.exit_code_for_error(exc, finishes_later=args.command in FINISH_LATER)
    except KeyboardInterrupt:
        say("transcribe-import: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`show RUN | head`): nothing more can be written to it, and
        # Python's own flush at exit must not fail again on the closed pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        say("transcribe-import: the output was cut short (its reader closed it).", file=sys.stderr)
        return ExitCode.PROBLEMS
    except OSError as exc:  # a disk error no step put into words: still one coded line
        problem = api.disk_problem(exc, data_dir)
        say(f"transcribe-import: {problem}", file=sys.stderr)
        return api.exit_code_for_error(problem, finishes_later=args.command in FINISH_LATER)
    except Exception as exc:  # noqa: BLE001 - last resort: one line for the user, the rest logged
        said = _log_traceback(data_dir)
        say(f"transcribe-import: unexpected error: {exc}. {said}", file=sys.stderr)
        return ExitCode.PROBLEMS
