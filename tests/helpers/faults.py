"""The fault walks' step: a command run in-process on a copy of a corpus with the N-th
file-system call failed (storage/fsio's fault plan), its exit status and words kept."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from transcribe_import.cli.main import main
from transcribe_import.engine.storage import fsio


def in_process(capsys: pytest.CaptureFixture[str], data: Path, *args: str) -> tuple[int, str, str]:
    """``transcribe-import --data-dir DATA ARGS…`` in this process: exit status, out, err."""
    rc = main(["--data-dir", str(data), *args])
    out, err = capsys.readouterr()
    return rc, out, err


@dataclass(frozen=True)
class Faulted:
    """One step of a walk: the copy it ran on, what the command did, and which call failed
    (``where``: "fault N (the call)", or "fault N (none)" when the command made fewer);
    ``ops``, every file-system call the command made, in order."""

    work: Path
    rc: int
    out: str
    said: str
    fired: bool
    where: str
    ops: tuple[str, ...]


def faulted_run(
    capsys: pytest.CaptureFixture[str],
    template: Path,
    work: Path,
    n: int,
    err: int,
    persistent: bool,
    args: tuple[str, ...],
    *,
    symlinks: bool = False,
) -> Faulted:
    """``args`` run on ``work``, a fresh copy of ``template``, its ``n``-th file-system call
    failing with ``err`` (and every later one too when ``persistent``)."""
    shutil.copytree(template, work, symlinks=symlinks)
    plan = fsio.FaultPlan(fail_at=n, errno=err, persistent=persistent)
    fsio.install_faults(plan)
    try:
        rc, out, said = in_process(capsys, work, *args)
    finally:
        fsio.install_faults(None)
    where = f"fault {n} ({plan.ops[n - 1] if plan.fired else 'none'})"
    return Faulted(work, rc, out, said, bool(plan.fired), where, tuple(plan.ops))
