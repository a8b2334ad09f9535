"""SIGKILL a real `transcribe-import export` mid-copy and mid-finish: the folder it leaves says it
is incomplete and never validates, its lock is free, and a new export refuses to reuse it."""

from __future__ import annotations

import fcntl
from pathlib import Path

import bagit
import pytest

from transcribe_import.engine.base.errors import ErrorCode

from helpers.cli import Exit, ok, run_cli
from helpers.export import make_corpus, refusal

pytestmark = pytest.mark.crash


@pytest.mark.parametrize(
    "point",
    [
        "export.after_file:1",  # project.json of the first notebook only
        "export.after_file:3",  # mid-notebook
        "export.after_file:9",  # into the second notebook
        "atomic_write.before_replace:2",  # the first tag file, payload all written
        "export.before_bagit",  # every tag file but bagit.txt
    ],
)
def test_a_killed_export_leaves_a_folder_that_says_so_and_never_validates(tmp_path, point):
    shelf = make_corpus(tmp_path)
    dest = tmp_path / "out"

    proc = run_cli(shelf.data, "export", "--all", "-o", str(dest), crash_at=point)

    assert proc.returncode == Exit.KILLED, (point, proc.stderr)
    assert "running" in (dest / "EXPORT-INCOMPLETE.txt").read_text()
    assert not (dest / "bagit.txt").exists()
    with pytest.raises(bagit.BagError):
        bagit.Bag(str(dest)).validate()
    refused = refusal(dest)
    assert refused.code is ErrorCode.BAG_INVALID and "did not finish" in str(refused)
    assert refused.path == str(dest / "EXPORT-INCOMPLETE.txt")

    # The dead export's lock is free (an OS lock dies with its process) ...
    with open(dest / ".export.lock", "rb") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
    # ... but its folder is not empty, so nothing is ever mixed into it.
    again = ok(run_cli(shelf.data, "export", "--all", "-o", str(dest)), Exit.USAGE)
    assert "is not empty" in again.stderr
    # A fresh folder works, and the corpus is whole.
    ok(run_cli(shelf.data, "export", "--all", "-o", str(tmp_path / "retry")))
    bagit.Bag(str(tmp_path / "retry")).validate()
    ok(run_cli(shelf.data, "doctor"), Exit.OK)


def test_a_kill_after_the_commit_point_leaves_a_whole_bag(tmp_path: Path):
    """bagit.txt is written last of the bag's files: once it is there, every byte was verified
    and fsynced, so the bag is valid; the stale marker says how to read that case."""
    shelf = make_corpus(tmp_path)
    dest = tmp_path / "out"

    proc = run_cli(shelf.data, "export", "--all", "-o", str(dest), crash_at="export.after_bagit")

    assert proc.returncode == Exit.KILLED
    bagit.Bag(str(dest)).validate()
    assert "the bag is whole" in (dest / "EXPORT-INCOMPLETE.txt").read_text()


@pytest.mark.parametrize("point", ["export.after_note", "atomic_write.before_replace:1"])
def test_an_export_killed_at_its_first_writes_leaves_a_folder_that_says_so(tmp_path, point):
    """Main (#36): killed at its first atomic write, the folder held only
    ``.EXPORT-INCOMPLETE.txt.tmp-…`` and ``.export.lock`` (``ls`` showed it empty), and a new
    export into it was refused as "not empty". The note is now the first thing written."""
    shelf = make_corpus(tmp_path)
    dest = tmp_path / "out"

    proc = run_cli(shelf.data, "export", "--all", "-o", str(dest), crash_at=point)

    assert proc.returncode == Exit.KILLED, (point, proc.stderr)
    visible = sorted(p.name for p in dest.iterdir() if not p.name.startswith("."))
    assert visible[0] == "EXPORT-INCOMPLETE.txt", visible
    assert "running" in (dest / "EXPORT-INCOMPLETE.txt").read_text()
    refused = refusal(dest)
    assert refused.code is ErrorCode.BAG_INVALID and "did not finish" in str(refused)
    again = ok(run_cli(shelf.data, "export", "--all", "-o", str(dest)), Exit.USAGE)
    assert "is not empty" in again.stderr
