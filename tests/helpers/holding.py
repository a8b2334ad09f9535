"""Holding a command's process at a named point (TRANSCRIBE_STOP_AT): it stops itself with
SIGSTOP there, the test sends what it wants while it is stopped, and lets it go on.

Imported as a module (``holding.stop_at``, ``holding.wait_stopped``…): the steps of one hold.
"""

from __future__ import annotations

import os
import signal
import subprocess

from helpers.cli import TIMEOUT


def stop_at(*points: str) -> dict[str, str]:
    """The ``env`` that makes a CLI process stop itself at each of these points, once each."""
    return {"TRANSCRIBE_STOP_AT": ",".join(points)}


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
