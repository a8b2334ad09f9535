"""Holding a command's process at a named point (TRANSCRIBE_STOP_AT): it stops itself with
SIGSTOP there, the test sends what it wants while it is stopped, and lets it go on.

Imported as a module (``holding.stop_at``, ``holding.wait_stopped``…): the steps of one hold.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

from helpers.cli import TIMEOUT, ok, run_cli, start_cli
from helpers.shelves import make_shelf


def stop_at(*points: str) -> dict[str, str]:
    """The ``env`` that makes a CLI process stop itself at each of these points, once each."""
    return {"TRANSCRIBE_STOP_AT": ",".join(points)}


def held_commit(tmp: Path, *points: str) -> tuple[Path, subprocess.Popen[str]]:
    """A shelf of three notebooks planned for ``tmp/data``, and its commit (one worker,
    ``--json``) started to stop at ``points``: the data folder and the process, stopped at
    the first point once this returns."""
    data, plan = tmp / "data", tmp / "plan.json"
    ok(run_cli(data, "plan", str(make_shelf(tmp / "shelf", notebooks=3)), "-o", str(plan)))
    commit = start_cli(data, "commit", str(plan), "--workers", "1", "--json", env=stop_at(*points))
    wait_stopped(commit)
    return data, commit


def wait_stopped(proc: subprocess.Popen[str]) -> None:
    """Block until ``proc`` has stopped itself at its next stop point (an event, not a poll)."""
    _pid, status = os.waitpid(proc.pid, os.WUNTRACED)
    if not os.WIFSTOPPED(status):
        proc.returncode = os.waitstatus_to_exitcode(status)
        out, err = proc.communicate(timeout=TIMEOUT)
        raise AssertionError(f"never stopped: exit {proc.returncode}\n{err}\n{out}")


def go_on(proc: subprocess.Popen[str], *sigs: signal.Signals) -> None:
    """Send ``sigs`` to the stopped ``proc`` (held until it runs again), then let it go on."""
    for sig in sigs:
        proc.send_signal(sig)
    proc.send_signal(signal.SIGCONT)


def finish(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """Wait for ``proc`` to exit (killing it if a test left it stopped); its stdout, stderr."""
    try:
        return proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
