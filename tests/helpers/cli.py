"""The command line as a user runs it: a real ``python -m transcribe_import`` process.

Every call runs with no ``TRANSCRIBE_*`` variable of the test process (so neither the
user's settings nor the ``data_dir`` fixture leak in) except those passed in ``env``;
an unexpected error's traceback log (``XDG_STATE_HOME``) goes beside the data folder.
"""

from __future__ import annotations

import enum
import hashlib
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson
import pytest


class Exit(enum.IntEnum):
    """What a command's process returns: its exit status as docs/cli.md defines it (written
    out, not imported from the app, so a changed number in the app fails the tests that pin
    it), or KILLED, a process SIGKILLed."""

    OK = 0
    PROBLEMS = 1
    USAGE = 2
    INVALID = 3
    CANCELLED = 4
    LOCKED = 5
    INTERRUPTED = 6
    KILLED = -signal.SIGKILL


TIMEOUT = 120.0
DRIVER = Path(__file__).resolve().parents[1] / "crash" / "driver.py"


def cli_env(
    data: Path | None = None, *, crash_at: str | None = None, env: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of a CLI process: ours without ``TRANSCRIBE_*``, then ``env``.

    ``crash_at`` sets ``TRANSCRIBE_CRASH_AT`` (the process SIGKILLs itself at that point).
    """
    out = {k: v for k, v in os.environ.items() if not k.startswith("TRANSCRIBE_")}
    # Checkpoints of 32 pages whatever the pace, as in-process (tests/conftest.py).
    out["TRANSCRIBE_CHECKPOINT_SECONDS"] = "1000000"
    out.update(env or {})
    where = data if data is not None else out.get("TRANSCRIBE_DATA_DIR")
    if where is not None:
        out["XDG_STATE_HOME"] = str(Path(where).parent / "state")
    if crash_at:
        out["TRANSCRIBE_CRASH_AT"] = crash_at
    return out


def cli_argv(data: Path | None, *args: str) -> list[str]:
    """``python -m transcribe_import [--data-dir DATA] ARGS...``."""
    head = [sys.executable, "-m", "transcribe_import"]
    return [*head, "--data-dir", str(data), *args] if data is not None else [*head, *args]


def run_cli(
    data: Path | None,
    *args: str,
    crash_at: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = TIMEOUT,
) -> subprocess.CompletedProcess[str]:
    """Run the command line to its end; ``data`` None gives no ``--data-dir``."""
    return subprocess.run(
        cli_argv(data, *args),
        env=cli_env(data, crash_at=crash_at, env=env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def start_cli(
    data: Path | None,
    *args: str,
    crash_at: str | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.Popen[str]:
    """Start the command line without waiting (stdout and stderr piped, text)."""
    return subprocess.Popen(
        cli_argv(data, *args),
        env=cli_env(data, crash_at=crash_at, env=env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def ok(
    proc: subprocess.CompletedProcess[str], rc: int = Exit.OK
) -> subprocess.CompletedProcess[str]:
    """``proc`` exited with ``rc`` and printed no traceback; returned for chaining."""
    assert proc.returncode == rc, (proc.args[3:], proc.returncode, proc.stderr, proc.stdout)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def cli_json(data: Path | None, *args: str, rc: int = Exit.OK) -> dict[str, Any]:
    """Run a ``--json`` command (pass ``--json`` in ``args``) and parse its stdout."""
    doc: dict[str, Any] = orjson.loads(ok(run_cli(data, *args), rc).stdout)
    return doc


def plan_cli(data: Path, tmp: Path, *roots: Path, mode: str = "folders") -> Path:
    """``plan ROOT... --mode MODE`` into the next free ``tmp/plan-N.json``: that file."""
    plan = tmp / f"plan-{len(list(tmp.glob('plan-*.json')))}.json"
    ok(run_cli(data, "plan", *map(str, roots), "--mode", mode, "-o", str(plan)))
    return plan


def commit_cli(data: Path, plan: Path) -> str:
    """``commit PLAN --json``: the new run's id."""
    return str(cli_json(data, "commit", str(plan), "--json")["import_run_id"])


def imported(data: Path, tmp: Path, *roots: Path, mode: str = "folders") -> str:
    """``plan`` then ``commit`` of ``roots`` through the command line: the run's id."""
    return commit_cli(data, plan_cli(data, tmp, *roots, mode=mode))


def assert_doctor_clean(data: Path) -> None:
    """``doctor --json`` exits 0 with no finding at all."""
    report = cli_json(data, "doctor", "--json")
    assert report["clean"] and report["findings"] == [], report["findings"]


def notebook_files(data: Path) -> dict[str, str]:
    """Every file under the corpus's notebooks folder: relative path -> sha256."""
    root = data / "corpus" / "notebooks"
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def read_only_argv(data: Path, *args: str) -> list[str]:
    """The CLI over ``data`` mounted read-only (root: a private bind mount; others: chmod)."""
    argv = cli_argv(data, *args)
    if os.geteuid() != 0:
        for p in [data, *data.rglob("*")]:
            if not p.is_symlink():
                p.chmod(p.stat().st_mode & ~0o222)
        return argv
    if shutil.which("unshare") is None:
        pytest.skip("root without unshare: no way to make a read-only corpus here")
    probe = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "true"], capture_output=True
    )
    if probe.returncode != 0:
        pytest.skip("root without mount namespaces: no way to make a read-only corpus here")
    mount = 'mount --bind -o ro "$0" "$0" && exec "$@"'
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", mount, str(data), *argv]


# -- the crash driver (tests/crash/driver.py): one engine action in a real process ----------


def run_driver(data: Path, *args: str, crash_at: str | None = None) -> int:
    """Run the driver; its exit status, which must be 0 or death by SIGKILL."""
    proc = subprocess.run(
        [sys.executable, str(DRIVER), str(data), *args],
        env=cli_env(data, crash_at=crash_at),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    if proc.returncode not in (0, Exit.KILLED):
        raise AssertionError(proc.stderr)
    return proc.returncode


def start_driver(data: Path, *args: str) -> subprocess.Popen[str]:
    """Start the driver without waiting (stdout and stderr piped, text)."""
    return subprocess.Popen(
        [sys.executable, str(DRIVER), str(data), *args],
        env=cli_env(data),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
