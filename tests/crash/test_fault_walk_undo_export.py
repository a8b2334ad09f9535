"""The counted I/O-fault walk over `revert`, `trash --purge` and `export`, run as the CLI runs them.

Each case copies a tiny corpus, makes the N-th file-system call of one command fail (ENOSPC
or EIO, once or from then on; N = 1, 2, … until the command makes fewer calls), and runs the
command in this process (the fault plan is per process). Whatever call fails, the command
ends with one line on stderr (never "unexpected error") and the exit code docs/cli.md gives
for it; then, faults off, `doctor` finds the corpus whole or finishes what was left, and a
second `doctor` finds nothing. A revert leaves all of the run or none of it; an export's
exit code agrees with its folder: 0 and a bag that validates, or not 0 and a folder that is
gone or says it is incomplete.
"""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest

from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.base.progress import drive
from transcribe_import.engine.storage import bag_format

from helpers.cli import Exit
from helpers.faults import faulted_run, in_process
from helpers.shelves import make_pages, make_shelf

# Every file-system call of three commands failed in turn, in-process: a minute, not more.
pytestmark = [pytest.mark.crash, pytest.mark.slow]

FAULTS = [
    pytest.param((errno.ENOSPC, False), id="ENOSPC-once"),
    pytest.param((errno.ENOSPC, True), id="ENOSPC-persistent"),
    pytest.param((errno.EIO, False), id="EIO-once"),
    pytest.param((errno.EIO, True), id="EIO-persistent"),
]


_cli = in_process


def _json(capsys: pytest.CaptureFixture[str], data: Path, *args: str) -> dict[str, Any]:
    rc, out, err = _cli(capsys, data, *args, "--json")
    assert rc == Exit.OK, err
    doc: dict[str, Any] = orjson.loads(out)
    return doc


def _commit(capsys: pytest.CaptureFixture[str], data: Path, plan: Path, *args: str) -> str:
    rc, _, err = _cli(capsys, data, "plan", *args, "-o", str(plan))
    assert rc == Exit.OK, err
    return str(_json(capsys, data, "commit", str(plan))["import_run_id"])


def _pages(data: Path) -> dict[str, int]:
    root = data / "corpus" / "notebooks"
    return {
        p.parent.name: len(orjson.loads(p.read_bytes())["pages"])
        for p in root.glob("*/project.json")
    }


@pytest.fixture
def template(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """Run A created two notebooks of 1 page; run B added 1 page to the first."""
    data = tmp_path / "template"
    shelf = sorted(make_shelf(tmp_path / "shelf", notebooks=2, pages=1).iterdir())
    a = _commit(capsys, data, tmp_path / "a.json", *map(str, shelf))
    first = sorted(_pages(data))[0]
    make_pages(tmp_path / "late", 1, name="late {i}.png")
    b = _commit(
        capsys, data, tmp_path / "b.json", str(tmp_path / "late"), "--mode", f"into:{first}"
    )
    return {"data": data, "a": a, "b": b, "first": first}


@dataclass(frozen=True)
class FaultWalk:
    """The test's folder and output, and the fault each call of the walk fails with."""

    tmp_path: Path
    capsys: pytest.CaptureFixture[str]
    err: int
    persistent: bool

    def run(self, template: Path, args: list[str], check: Callable[[Path, int], str]) -> set[str]:
        return _walk(self, template, args, check)


@pytest.fixture(params=FAULTS)
def walk(
    request: pytest.FixtureRequest, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> FaultWalk:
    err, persistent = request.param
    return FaultWalk(tmp_path, capsys, err, persistent)


def _walk(
    walk: FaultWalk, template: Path, args: list[str], check: Callable[[Path, int], str]
) -> set[str]:
    """Fail each call of ``args`` in turn; ``check(work, rc)`` judges the outcome and names it."""
    tmp_path, capsys, err, persistent = walk.tmp_path, walk.capsys, walk.err, walk.persistent
    outcomes: set[str] = set()
    n = 0
    while True:
        n += 1
        assert n < 400, "the walk never got past the faults"
        step = faulted_run(capsys, template, tmp_path / f"case{n}", n, err, persistent, tuple(args))
        work, rc, out, said, where = step.work, step.rc, step.out, step.said, step.where
        if rc != Exit.OK:
            lines = said.splitlines()
            if not lines and args[0] == "export":  # a corpus file unreadable: a partial bag
                assert ": partial." in out and "  MISSING [" in out, out
            elif not lines:  # a revert refused: its causes on stdout, each with its code
                assert "nothing was changed" in out and "  BLOCKED [revert_" in out, out
            else:
                assert len(lines) == 1, f"{where}: exit {rc}, not one line: {said!r} {out!r}"
                assert lines[0].startswith("transcribe-import: "), f"{where}: {said!r}"
                assert "unexpected error" not in said, f"{where}: {said!r}"
            assert rc == Exit.PROBLEMS, f"{where}: exit {rc}: {said!r}"
        outcomes.add(check(work, rc))
        first_rc, _, report = _cli(capsys, work, "doctor")  # faults off: finishes what was left
        assert first_rc in (Exit.OK, Exit.PROBLEMS), f"{where}: doctor: {report}"
        if first_rc != Exit.OK:  # it repaired something: now the corpus is whole
            rc2, _, report = _cli(capsys, work, "doctor")
            assert rc2 == Exit.OK, f"{where}: the corpus is not whole after doctor: {report}"
        outcomes.add(check(work, -1))
        shutil.rmtree(work)
        if not step.fired:
            return outcomes  # the command made fewer than n calls: each was failed once


@pytest.mark.parametrize("which", ["b", "a"], ids=["pages-out", "notebooks-out"])
def test_revert_fault_walk(walk: FaultWalk, template: dict[str, Any], which: str) -> None:
    data: Path = template["data"]
    if which == "a":  # run A is revertable only once B is undone: undo B in the template
        rc, _, said = _cli(walk.capsys, data, "revert", template["b"])
        assert rc == Exit.OK, said
    before = _pages(data)
    run_id = str(template[which])

    def check(work: Path, rc: int) -> str:
        now = _pages(work)
        record = orjson.loads((work / "corpus" / "import-runs" / f"{run_id}.json").read_bytes())
        if rc == Exit.OK:
            assert record["status"] == "reverted"
        if rc == -1:  # after doctor: all of the run, or none of it
            assert now == before or record["status"] == "reverted", now
            if record["status"] == "reverted":
                assert now != before and all(now.get(k, 0) <= v for k, v in before.items())
            return record["status"]
        return "ok" if rc == Exit.OK else "coded"

    outcomes = walk.run(data, ["revert", run_id], check)
    assert {"coded", "ok", "reverted"} <= outcomes


def test_purge_fault_walk(walk: FaultWalk, template: dict[str, Any]) -> None:
    data: Path = template["data"]
    rc, _, said = _cli(walk.capsys, data, "revert", template["b"])
    assert rc == Exit.OK, said
    (revert_id,) = [e["revert_id"] for e in _json(walk.capsys, data, "trash")["entries"]]
    pages = _pages(data)

    def check(work: Path, rc: int) -> str:
        assert _pages(work) == pages, "a purge touched a notebook"
        left = sorted(p.name for p in (work / "corpus" / "trash").iterdir())
        if rc == Exit.OK or (rc == -1 and revert_id not in left):
            assert left == [], left
            return "purged"
        assert revert_id in left or f".purging-{revert_id}" in left
        return "kept"

    outcomes = walk.run(data, ["trash", "--purge", revert_id], check)
    assert "purged" in outcomes


def test_export_fault_walk(walk: FaultWalk, template: dict[str, Any]) -> None:
    data: Path = template["data"]
    dest = walk.tmp_path / "bag"
    pages = _pages(data)

    def check(work: Path, rc: int) -> str:
        assert _pages(work) == pages, "an export touched the corpus"
        if rc == -1:
            return "corpus whole"
        try:
            if rc == Exit.OK and (dest / "EXPORT-INCOMPLETE.txt").exists():
                # The note's removal failed (a warning said to delete it): refused till then.
                with pytest.raises(TranscribeError, match="EXPORT-INCOMPLETE.txt: is here"):
                    drive(bag_format.verify_bag(dest))
                return "complete, note left"
            if rc == Exit.OK:
                drive(bag_format.verify_bag(dest))
                return "complete"
            if not dest.exists():
                return "nothing left"
            left = sorted(p.name for p in dest.iterdir())
            if "EXPORT-INCOMPLETE.txt" in left:  # never taken for a bag, bagit.txt or not
                with pytest.raises(TranscribeError, match="EXPORT-INCOMPLETE.txt: is here"):
                    drive(bag_format.verify_bag(dest))
                return "marked incomplete"
            if (dest / "bagit.txt").exists():  # a partial bag: it says so, and is refused
                with pytest.raises(TranscribeError):
                    drive(bag_format.verify_bag(dest))
                return "partial"
            # The disk failed for good before the note could be written: at most the lock file.
            assert left in ([], [".export.lock"]), left
            return "lock file at most"
        finally:
            shutil.rmtree(dest, ignore_errors=True)

    outcomes = walk.run(data, ["export", "--all", "--output", str(dest)], check)
    assert {"complete", "marked incomplete"} <= outcomes


@pytest.fixture(autouse=True)
def _quick_and_contained(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An unexpected error's log goes beside the test's folders, never into the home; and
    fsync is a no-op. The walk judges what a failing call leaves behind, not durability (the
    SIGKILL crash tests do): the fault hook still counts and fails every fsync call, and a
    thousand real ones on a shared two-core machine cost most of the walk's time."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(os, "fsync", lambda fd: None)
