"""The service files in packaging/watch/ run a `watch` command the CLI accepts."""

from __future__ import annotations

import plistlib
import shlex
from pathlib import Path

from transcribe_import.cli.main import build_parser

WATCH = Path(__file__).resolve().parents[2] / "packaging" / "watch"


def _parses(argv: list[str]) -> None:
    args = build_parser().parse_args(argv)
    assert args.command == "watch" and args.folders and not args.once


def test_the_systemd_unit_runs_watch_until_stopped_by_sigterm() -> None:
    lines = (WATCH / "transcribe-import-watch.service").read_text().splitlines()
    keys = dict(line.split("=", 1) for line in lines if "=" in line and not line.startswith("#"))
    argv = shlex.split(keys["ExecStart"])
    assert argv[0] == "%h/.local/bin/transcribe-import"
    _parses(argv[1:])
    assert keys["KillSignal"] == "SIGTERM" and keys["Restart"] == "on-failure"


def test_the_launchd_agent_runs_watch() -> None:
    doc = plistlib.loads((WATCH / "org.transcribe.TranscribeImport.watch.plist").read_bytes())
    assert doc["Label"] == "org.transcribe.TranscribeImport.watch"
    _parses(doc["ProgramArguments"][1:])
    assert doc["KeepAlive"] == {"SuccessfulExit": False}
