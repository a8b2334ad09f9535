"""SIGKILL a real `transcribe-import export` mid-copy and mid-finish: the folder it leaves says it
is incomplete and never validates, its lock is free, and a new export refuses to reuse it."""

from __future__ import annotations

import errno
import fcntl
from pathlib import Path

import bagit
import pytest

from transcribe_import.cli.main import main
from transcribe_import.engine.base.errors import ErrorCode
from transcribe_import.engine.storage import fsio

from helpers.cli import Exit, ok, run_cli
from helpers.export import make_corpus, refusal

pytestmark = pytest.mark.crash


def _refused_as_unfinished(data: Path, dest: Path) -> None:
    """A new export into ``dest``, left by a killed one, is refused: the folder is not
    empty, named by its note (not by a temp file the kill left), with what to do."""
    again = ok(run_cli(data, "export", "--all", "-o", str(dest)), Exit.USAGE)
    assert "is not empty" in again.stderr
    assert (
        "e.g. 'EXPORT-INCOMPLETE.txt': an export that did not finish, as its "
        "EXPORT-INCOMPLETE.txt says; delete the folder"
    ) in again.stderr, again.stderr


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
    _refused_as_unfinished(shelf.data, dest)
    # A fresh folder works, and the corpus is whole.
    ok(run_cli(shelf.data, "export", "--all", "-o", str(tmp_path / "retry")))
    bagit.Bag(str(tmp_path / "retry")).validate()
    ok(run_cli(shelf.data, "doctor"), Exit.OK)


def test_a_kill_after_the_commit_point_leaves_a_bag_the_import_refuses_until_the_note_goes(
    tmp_path: Path,
):
    """bagit.txt is written last of the bag's files: once it is there, every byte was verified
    and fsynced, so the bag validates as BagIt. But the export did not end saying so, and its
    note is still there: ``plan`` (bag mode, and the detection of a bag in any mode) refuses
    it by the note's name, saying to export again, or to delete the note only after an export
    that ended with exit 0."""
    shelf = make_corpus(tmp_path)
    dest = tmp_path / "out"

    proc = run_cli(shelf.data, "export", "--all", "-o", str(dest), crash_at="export.after_bagit")

    assert proc.returncode == Exit.KILLED
    bagit.Bag(str(dest)).validate()
    note = (dest / "EXPORT-INCOMPLETE.txt").read_text()
    assert "running" in note and "refuses to import the bag while this note is here" in note
    _refused_by_the_note(tmp_path, dest)

    # A person who knows better (the note says when) deletes it: the bag is then taken whole.
    (dest / "EXPORT-INCOMPLETE.txt").unlink()
    target = tmp_path / "target"
    ok(run_cli(target, "plan", str(dest), "--mode", "bag", "-o", str(tmp_path / "plan.json")))


def _refused_by_the_note(tmp_path: Path, dest: Path) -> None:
    """``plan --mode bag`` and ``plan`` (which finds the bag itself) refuse ``dest`` in one line
    naming its EXPORT-INCOMPLETE.txt and what to do, planning nothing."""
    target = tmp_path / "target"
    plan = tmp_path / "refused-plan.json"
    for mode in (["--mode", "bag"], []):
        proc = ok(run_cli(target, "plan", str(dest), *mode, "-o", str(plan)), Exit.PROBLEMS)
        [line] = proc.stderr.splitlines()
        assert f"{dest / 'EXPORT-INCOMPLETE.txt'}: is here beside bagit.txt" in line, line
        assert "Export the notebooks again into a new folder" in line, line
        assert "(code bag_invalid)" in line, line
        assert not plan.exists()
    refused = refusal(dest)
    assert refused.code is ErrorCode.BAG_INVALID
    assert refused.path == str(dest / "EXPORT-INCOMPLETE.txt")


def _calls_until_bagit_written(data: Path, dest: Path) -> int:
    """How many file-system calls an export into ``dest`` has made once ``bagit.txt`` is in
    place (its atomic write's last call, the fsync of its folder, included)."""
    counting = fsio.FaultPlan(fail_at=10**9)
    seen: list[int] = []
    real = fsio.atomic_write

    def noting(path: Path, payload: bytes) -> None:
        real(path, payload)
        if path.name == "bagit.txt":
            seen.append(counting.count)

    fsio.install_faults(counting)
    try:
        with pytest.MonkeyPatch.context() as m:
            m.setattr(fsio, "atomic_write", noting)
            assert main(["--data-dir", str(data), "export", "--all", "-o", str(dest)]) == Exit.OK
    finally:
        fsio.install_faults(None)
    [n] = seen
    return n


@pytest.mark.parametrize(
    ("persistent", "rc"),
    [
        pytest.param(True, Exit.PROBLEMS, id="fails-after-bagit"),
        pytest.param(False, Exit.OK, id="note-left-with-a-warning"),
    ],
)
def test_an_export_whose_disk_fails_after_bagit_leaves_a_bag_the_import_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], persistent: bool, rc: int
):
    """Main (#36): an export that failed (exit 1) after writing bagit.txt was accepted by
    ``plan --mode bag``. Failed for good at the fsync that seals bagit.txt (EIO from then on),
    the export exits 1 in one coded line; bagit.txt and the note cannot be taken away, and the
    import refuses the folder by the note's name. Failed once there, at the note's removal,
    the export ends 0 with a warning to delete the note, and the import refuses it until then.
    """
    shelf = make_corpus(tmp_path)
    sealed = _calls_until_bagit_written(shelf.data, tmp_path / "counted")
    dest = tmp_path / "out"
    # Persistent: from the fsync of bagit.txt's folder on. Once: the call after it, the note's
    # removal (a failing fsync of bagit.txt alone is undone: bagit.txt is removed again).
    fault = fsio.FaultPlan(
        fail_at=sealed if persistent else sealed + 1, errno=errno.EIO, persistent=persistent
    )
    fsio.install_faults(fault)
    try:
        got = main(["--data-dir", str(shelf.data), "export", "--all", "-o", str(dest)])
    finally:
        fsio.install_faults(None)
    _out, err = capsys.readouterr()

    assert fault.fired, "the fault never came"
    assert got == rc, err
    [line] = err.splitlines()
    assert "Traceback" not in err and "unexpected error" not in err
    if persistent:
        assert line.startswith("transcribe-import: ") and "stopped" in line, line
        assert "bagit.txt could not be removed: delete the folder" in line, line
    else:
        assert line.startswith("transcribe-import: warning: "), line
        assert "EXPORT-INCOMPLETE.txt could not be removed" in line, line
    assert (dest / "bagit.txt").is_file() and (dest / "EXPORT-INCOMPLETE.txt").is_file()
    _refused_by_the_note(tmp_path, dest)
    ok(run_cli(shelf.data, "doctor"), Exit.OK)


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
    _refused_as_unfinished(shelf.data, dest)
