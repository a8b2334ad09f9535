"""The counted I/O-fault walk over doctor, resume, commit, trash --restore and --purge, bags.

As tests/crash/test_fault_walk_undo_export.py does for revert and export: each case copies a
small corpus, makes the N-th file-system call of the command fail with EIO, ENOSPC or EPERM
(once, or from then on), and runs the command in this process. Whatever call fails, the
command ends with one coded line on stderr (never "unexpected error"), or for doctor with
its report naming the file; resume and doctor pause (exit 6) on a disk error, since running
them again finishes. Then, faults off, `doctor` finds the corpus whole or finishes what was
left, and what the command was doing is all done or not done at all.

Every call of each command is failed in turn only in the fast set's stead: to keep the walk
near two minutes on a shared two-core machine, each (command, errno, once/persistent) case
fails every ``STRIDE``-th call from an offset that differs between the six fault kinds, so
the six together fail every call of the command once at least (``_calls`` says which).
"""

from __future__ import annotations

import errno
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest

from transcribe_import.engine import api

from helpers.cli import Exit, cli_json, ok, run_cli
from helpers.faults import faulted_run, in_process
from helpers.shelves import make_shelf

pytestmark = [pytest.mark.crash, pytest.mark.slow]


@dataclass(frozen=True)
class Fault:
    """A fault kind of the walk: its errno, once or from then on, and the first call (less
    one) it fails; it then fails every ``STRIDE``-th call."""

    err: int
    persistent: bool
    offset: int


FAULTS = [
    pytest.param(Fault(errno.EIO, False, 0), id="EIO-once"),
    pytest.param(Fault(errno.EIO, True, 1), id="EIO-persistent"),
    pytest.param(Fault(errno.ENOSPC, False, 2), id="ENOSPC-once"),
    pytest.param(Fault(errno.ENOSPC, True, 3), id="ENOSPC-persistent"),
    pytest.param(Fault(errno.EPERM, False, 4), id="EPERM-once"),
    pytest.param(Fault(errno.EPERM, True, 5), id="EPERM-persistent"),
]
STRIDE = 6  # with the six offsets above: every call failed by one fault kind at least
# What a second doctor may still say once the walk's command failed and doctor ran: the
# crashed commit's run, interrupted (resume finishes it), and notes that are not damage.
STILL_TOLD = {"interrupted_run", "notebook_incomplete", "import_unfinished"}


_cli = in_process


@pytest.fixture(params=FAULTS)
def fault(request: pytest.FixtureRequest) -> Fault:
    """Each fault kind in turn: every walk test runs once per kind."""
    kind: Fault = request.param
    return kind


def _calls(offset: int) -> range:
    """The calls a fault kind fails: 1-based, ``offset`` + 1 then every ``STRIDE``-th."""
    return range(offset + 1, 10_000, STRIDE)


@pytest.fixture(scope="module")
def crashed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A commit of two notebooks SIGKILLed while promoting its third file: ``.creating-*``
    folders, a journal, an interrupted run."""
    root = tmp_path_factory.mktemp("crashed")
    data = root / "data"
    plan = root / "plan.json"
    ok(run_cli(data, "plan", str(make_shelf(root / "shelf", notebooks=2)), "-o", str(plan)))
    proc = run_cli(data, "commit", str(plan), crash_at="ingest.promote.after_file:3")
    assert proc.returncode < 0, proc.stderr  # killed, as asked
    [run] = cli_json(data, "runs", "--json")["runs"]
    return {"data": data, "run": run["import_run_id"]}


@pytest.fixture(scope="module")
def reverted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A run of two notebooks committed, then undone: one trash entry."""
    root = tmp_path_factory.mktemp("reverted")
    data = root / "data"
    plan = root / "plan.json"
    ok(run_cli(data, "plan", str(make_shelf(root / "shelf", notebooks=2)), "-o", str(plan)))
    run_id = cli_json(data, "commit", str(plan), "--json")["import_run_id"]
    revert_id = cli_json(data, "revert", run_id, "--json")["revert_id"]
    return {"data": data, "run": run_id, "revert": revert_id}


def _one_coded_line(where: str, rc: int, out: str, said: str, doctor: bool) -> str:
    """The outcome's kind, once it is judged to be one coded line (or doctor's report)."""
    assert "unexpected error" not in said and "Traceback" not in said, f"{where}: {said!r}"
    if rc == Exit.OK:
        return "ok"
    # commit says its run's id as soon as the run exists: a fact, before the line of the fault
    lines = [x for x in said.splitlines() if not re.fullmatch(r"Import run \S+ created\.", x)]
    if not doctor and not lines and rc == Exit.INVALID:  # commit's check could not read a source
        assert "commit is refused until the errors are resolved" in out, f"{where}: {out!r}"
        assert "ERROR [source_unreadable]" in out and "shelf/notebook 1/page " in out, out
        return "refused"
    if not doctor and not lines:  # a page file the disk failed to read: that item failed
        assert rc == Exit.PROBLEMS and " be read " in out, out
        assert ": partial" in out or ": failed — nothing was committed." in out, out
        return "item failed"
    if doctor and not lines:  # its report on stdout: a disk error stops it, exit 6
        if rc == Exit.INTERRUPTED:
            assert "Could not finish" in out or "The disk is full" in out, f"{where}: {out!r}"
            return "paused"
        assert rc == Exit.PROBLEMS, f"{where}: exit {rc}: {out!r}"
        return "problems"
    assert len(lines) == 1, f"{where}: {said!r}"
    assert rc in (Exit.PROBLEMS, Exit.INTERRUPTED), f"{where}: exit {rc}: {said!r}"
    # A run the disk stopped says so in its own line, its summary on stdout (runs' words).
    stopped = rc == Exit.INTERRUPTED and " stopped: " in lines[0] and lines[0].startswith("Run ")
    assert stopped or lines[0].startswith("transcribe-import: "), f"{where}: {said!r}"
    return "paused" if rc == Exit.INTERRUPTED else "coded"


def _walk(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    template: Path,
    args: list[str],
    fault: Fault,
) -> tuple[set[str], list[Path]]:
    """Fail the calls ``_calls(fault.offset)`` of ``args`` in turn; the outcomes, and each case's
    corpus after doctor (faults off) ran on it, for the caller to judge."""
    outcomes: set[str] = set()
    cases: list[Path] = []
    for n in _calls(fault.offset):
        work = tmp_path / f"case{n}"
        step = faulted_run(
            capsys, template, work, n, fault.err, fault.persistent, tuple(args), symlinks=True
        )
        work, out, said = step.work, step.out, step.said
        where = f"{args[0]}: {step.where}"
        outcomes.add(_one_coded_line(where, step.rc, out, said, args[0] == "doctor"))
        _cli(capsys, work, "doctor")  # faults off: finishes what was left
        report = api.check_corpus(api.open_corpus(work))
        # Or a leftover the command's own line named, with what clears it (a commit whose
        # disk failed for good while it made its run: "its frozen plan may be left at …").
        left = [
            f"{f.code}: {f.message}"
            for f in report.findings
            if f.code not in STILL_TOLD and not (f.path and f"may be left at {f.path}" in said)
        ]
        assert left == [], f"{where}: the corpus is not whole after doctor: {left}"
        cases.append(work)
        if not step.fired:
            break  # the command made fewer than n calls
    return outcomes, cases


def _resume_finishes(capsys: pytest.CaptureFixture[str], work: Path, run_id: str) -> None:
    """Resumed (faults off), the run lands every page once, or has ended already (the walked
    resume got through, or failed the item whose page file the disk would not read)."""
    _cli(capsys, work, "resume", run_id)
    status = orjson.loads((work / "corpus" / "import-runs" / f"{run_id}.json").read_bytes())
    pages = sum(n["page_count"] for n in _notebooks(capsys, work))
    if status["status"] == "complete":
        assert pages == 6, pages  # every page once: none lost, none doubled
    else:
        assert status["status"] == "partial" and pages < 6, (status["status"], pages)


def _notebooks(capsys: pytest.CaptureFixture[str], work: Path) -> list[dict[str, Any]]:
    rc, out, said = _cli(capsys, work, "notebooks", "--json")
    assert rc == Exit.OK, said
    found: list[dict[str, Any]] = orjson.loads(out)["notebooks"]
    return found


def test_doctor_fault_walk(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    crashed: dict[str, Any],
    fault: Fault,
) -> None:
    outcomes, cases = _walk(tmp_path, capsys, crashed["data"], ["doctor"], fault)
    assert "paused" in outcomes
    for work in cases[:: max(1, len(cases) // 3)]:  # a few: each resume costs a commit
        _resume_finishes(capsys, work, crashed["run"])


# A fault at the unlink of an ended run's cancel marker leaves the marker, said as a warning in
# the log (harmless: a marker of an ended run is never read again); a clean-clone run hit it.
@pytest.mark.allow_logged_warnings(r"cancel marker of ended run \S+ left in place")
def test_resume_fault_walk(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    crashed: dict[str, Any],
    fault: Fault,
) -> None:
    run_id = crashed["run"]
    # One notebook at a time: with two lanes the N-th file-system call is a different call
    # from run to run, and a case's outcome was not the same twice (one CI run failed so).
    args = ["resume", run_id, "--workers", "1"]
    outcomes, cases = _walk(tmp_path, capsys, crashed["data"], args, fault)
    assert "ok" in outcomes and outcomes & {"paused", "coded"}, outcomes
    for work in cases[:: max(1, len(cases) // 3)]:
        _resume_finishes(capsys, work, run_id)


def _all_or_nothing(capsys: pytest.CaptureFixture[str], work: Path, run_id: str) -> str:
    """The run is back whole, or whole in the trash: never half."""
    status = orjson.loads((work / "corpus" / "import-runs" / f"{run_id}.json").read_bytes())
    pages = sum(n["page_count"] for n in _notebooks(capsys, work))
    if status["status"] == "complete":
        assert pages == 6, pages
        return "back"
    assert status["status"] == "reverted" and pages == 0, (status["status"], pages)
    return "in the trash"


def test_restore_fault_walk(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    reverted: dict[str, Any],
    fault: Fault,
) -> None:
    args = ["trash", "--restore", reverted["revert"]]
    outcomes, cases = _walk(tmp_path, capsys, reverted["data"], args, fault)
    assert "ok" in outcomes and "coded" in outcomes, outcomes
    states = {_all_or_nothing(capsys, work, reverted["run"]) for work in cases}
    assert "back" in states, states


def test_purge_fault_walk(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    reverted: dict[str, Any],
    fault: Fault,
) -> None:
    revert_id = reverted["revert"]
    args = ["trash", "--purge", revert_id]
    outcomes, cases = _walk(tmp_path, capsys, reverted["data"], args, fault)
    assert "ok" in outcomes, outcomes
    for work in cases:
        left = sorted(p.name for p in (work / "corpus" / "trash").iterdir())
        assert left in ([], [revert_id]), left  # purged whole by doctor, or kept whole


@pytest.fixture(scope="module")
def planned(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A plan of one notebook of two pages, and the corpus it was planned against."""
    root = tmp_path_factory.mktemp("planned")
    data = root / "data"
    plan = root / "plan.json"
    ok(
        run_cli(
            data, "plan", str(make_shelf(root / "shelf", notebooks=1, pages=2)), "-o", str(plan)
        )
    )
    return {"data": data, "plan": plan}


def _commit_finishes(capsys: pytest.CaptureFixture[str], work: Path, plan: Path) -> str:
    """After the walked commit and doctor (faults off), ``resume`` (a run was made) or the
    commit again (none was, or it failed an item) lands the notebook's two pages once: none
    lost, none doubled."""
    runs = orjson.loads(_cli(capsys, work, "runs", "--json")[1])["runs"]
    if runs and runs[0]["status"] not in ("failed", "partial"):  # a run to resume (or ended)
        rc, _, said = _cli(capsys, work, "resume", runs[0]["import_run_id"])
        how = "resumed"
    else:  # no run, or one that ended without its pages (a source the disk would not read)
        rc, _, said = _cli(capsys, work, "commit", str(plan))
        how = "committed again"
    assert rc == Exit.OK, said
    [notebook] = _notebooks(capsys, work)
    assert notebook["page_count"] == 2, notebook
    return how


# A commit refused by the disk notes the refusal in the History of a run it would retry; a
# disk failing for good fails that note too, which is logged (the refusal is still told).
# As in the resume walk, a fault at the unlink of an ended run's cancel marker (logged, harmless).
@pytest.mark.allow_logged_warnings(
    r"a refused retry of plan \S+ is not in History",
    r"cancel marker of ended run \S+ left in place",
)
def test_commit_fault_walk(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    planned: dict[str, Any],
    fault: Fault,
) -> None:
    """Main (#36): commit was in no fault walk, and 15 of its faulted runs said "unexpected
    error". Every call of a commit failed in turn: one coded line, or a pause (exit 6) with
    the run's own line; doctor then finds the corpus whole, and the run finishes."""
    plan: Path = planned["plan"]
    # One notebook at a time, so the N-th call is the same call in every case; a first commit
    # in this process on a throwaway copy, so that one-off work (a log folder made) is done.
    args = ["commit", str(plan), "--workers", "1"]
    warm = tmp_path / "warm"
    shutil.copytree(planned["data"], warm)
    assert _cli(capsys, warm, *args)[0] == Exit.OK
    outcomes, cases = _walk(tmp_path, capsys, planned["data"], args, fault)
    assert "ok" in outcomes and outcomes & {"paused", "coded"}, outcomes
    finished = {_commit_finishes(capsys, work, plan) for work in cases[:: max(1, len(cases) // 4)]}
    assert finished, cases


@pytest.fixture(autouse=True)
def _quick_and_contained(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As in test_fault_walk_undo_export: the log beside the test, fsync a no-op (the walk
    judges what a failing call leaves, not durability; the hook still fails fsync calls)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(os, "fsync", lambda fd: None)


def _calls_made(
    capsys: pytest.CaptureFixture[str], template: Path, work: Path, args: list[str]
) -> tuple[str, ...]:
    """The file-system calls ``args`` makes on a copy of ``template``, none failed."""
    step = faulted_run(capsys, template, work, 10**9, errno.EIO, False, tuple(args))
    shutil.rmtree(work)
    return step.ops


def _first_call(
    capsys: pytest.CaptureFixture[str], template: Path, work: Path, args: list[str], op: str
) -> int:
    """The number of the first ``op`` call ``args`` makes on a copy of ``template``."""
    return _calls_made(capsys, template, work, args).index(op) + 1


# Each errno as every command codes it (oserrors.problem_from_oserror), and its advice.
DOCTOR_DISK_ERRORS = [
    pytest.param(errno.EPERM, "permission_denied", "Check its permissions", id="EPERM"),
    pytest.param(errno.EACCES, "permission_denied", "Check its permissions", id="EACCES"),
    pytest.param(errno.ENOSPC, "disk_full", "free some space", id="ENOSPC"),
    pytest.param(errno.EDQUOT, "disk_full", "free some space", id="EDQUOT"),
    pytest.param(errno.EROFS, "read_only", "Make the disk writable", id="EROFS"),
    pytest.param(errno.EIO, "io_error", "Check the disk", id="EIO"),
]


@pytest.mark.parametrize(("err", "code", "advice"), DOCTOR_DISK_ERRORS)
def test_doctor_that_cannot_remove_a_dead_creation_pauses_and_names_it(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    crashed: dict[str, Any],
    err: int,
    code: str,
    advice: str,
) -> None:
    """Main: "transcribe-import: unexpected error: [Errno 1] Operation not permitted"; then
    every disk error was filed ``io_error``. Now each errno has the code every other command
    gives it, and the finding names the file, says what was kept and what finishes it."""
    work = tmp_path / "work"
    n = _first_call(capsys, crashed["data"], work, ["doctor"], "rmtree")
    for args in (["doctor"], ["doctor", "--json"]):
        step = faulted_run(capsys, crashed["data"], work, n, err, False, tuple(args))
        rc, out, said = step.rc, step.out, step.said
        assert rc == Exit.INTERRUPTED and said == "", said
        if args[-1] == "--json":
            [finding] = [f for f in orjson.loads(out)["findings"] if f["severity"] == "problem"]
            assert finding["code"] == code, finding
            assert "/corpus/notebooks/.creating-" in finding["path"], finding
            break
        [line] = [x for x in out.splitlines() if x.startswith("[problem] ")]
        assert "recovering " in line and "/corpus/notebooks/.creating-" in line, line
        assert os.strerror(err) in line or code == "disk_full", line
        assert line.endswith(
            f"{advice} and run `transcribe-import doctor` again once the disk is sound: what "
            "doctor repaired so far is kept, and it finishes the rest."
        ), line
        shutil.rmtree(work)
    rc, _, _ = _cli(capsys, work, "doctor")  # the disk sound again: it finishes
    assert not any(p.name.startswith(".creating-") for p in (work / "corpus/notebooks").iterdir())
    _resume_finishes(capsys, work, crashed["run"])


def test_resume_that_meets_an_io_error_on_an_unlink_pauses_in_one_coded_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], crashed: dict[str, Any]
) -> None:
    """Main: exit 1 and "unexpected error"."""
    work = tmp_path / "work"
    run_id = crashed["run"]
    n = _first_call(capsys, crashed["data"], work, ["resume", run_id], "rmtree")
    step = faulted_run(capsys, crashed["data"], work, n, errno.EIO, False, ("resume", run_id))
    rc, said = step.rc, step.said
    assert rc == Exit.INTERRUPTED, said
    [line] = said.splitlines()
    assert line.startswith("transcribe-import: Could not finish reading or writing "), line
    assert "/corpus/notebooks/.creating-" in line and "Input/output error" in line
    _resume_finishes(capsys, work, run_id)


def test_a_restore_whose_entry_cannot_be_removed_says_the_entry_stayed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reverted: dict[str, Any]
) -> None:
    """Main: "the entry has left the trash" though renaming it failed (finding 7)."""
    work = tmp_path / "work"
    revert_id = reverted["revert"]
    args = ["trash", "--restore", revert_id]
    ops = _calls_made(capsys, reverted["data"], work, args)
    hide = max(i for i, op in enumerate(ops) if op == "replace") + 1  # the purge's rename
    step = faulted_run(capsys, reverted["data"], work, hide, errno.EIO, False, tuple(args))
    rc, out, said = step.rc, step.out, step.said
    assert rc == Exit.OK and said == "", said
    assert out.endswith(
        "again; its trash entry could not be removed (it holds nothing of the run now): "
        f"`transcribe-import trash --purge {revert_id[:8]}` deletes it.\n"
    ), out
    assert _all_or_nothing(capsys, work, reverted["run"]) == "back"
    rc, _, said = _cli(capsys, work, "trash", "--purge", revert_id)
    assert rc == Exit.OK, said
    assert not (work / "corpus" / "trash" / revert_id).exists()


def test_doctor_names_the_whole_path_of_a_file_it_cannot_remove_inside_a_creation(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    crashed: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The issue's steps (`chattr +i` on one page of the `.creating-*` folder, then doctor):
    the unlink that fails is of one file deep in the folder, which shutil's walk named by its
    name alone ("Could not finish recovering 1133….png"). The finding names where it is."""
    work = tmp_path / "work"
    shutil.copytree(crashed["data"], work)
    real_unlink = os.unlink
    refused: list[str] = []

    def immutable_png(path: Any, *, dir_fd: int | None = None) -> None:
        if str(path).endswith(".png") and not refused:
            refused.append(str(path))
            raise PermissionError(errno.EPERM, os.strerror(errno.EPERM), str(path))
        real_unlink(path, dir_fd=dir_fd)

    monkeypatch.setattr(os, "unlink", immutable_png)
    rc, out, _ = _cli(capsys, work, "doctor", "--json")
    monkeypatch.setattr(os, "unlink", real_unlink)

    assert rc == Exit.INTERRUPTED and refused, out
    [finding] = [f for f in orjson.loads(out)["findings"] if f["severity"] == "problem"]
    assert finding["code"] == "permission_denied", finding
    where = Path(finding["path"])
    assert where.name == refused[0] and where.is_file(), finding  # the whole path, still there
    assert where.is_relative_to(work / "corpus" / "notebooks"), finding
    assert ".creating-" in str(where) and str(where) in finding["message"], finding
    rc, _, _ = _cli(capsys, work, "doctor")  # the file removable again: doctor finishes
    assert not any(p.name.startswith(".creating-") for p in (work / "corpus/notebooks").iterdir())
    _resume_finishes(capsys, work, crashed["run"])


@pytest.fixture(scope="module")
def bagged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A bag exported from a corpus of one notebook, an empty corpus, and its plan of the bag."""
    root = tmp_path_factory.mktemp("bagged")
    source = root / "source"
    plan = root / "plan.json"
    ok(run_cli(source, "plan", str(make_shelf(root / "shelf", notebooks=1)), "-o", str(plan)))
    ok(run_cli(source, "commit", str(plan)))
    bag = root / "bag"
    ok(run_cli(source, "export", "--all", "-o", str(bag)))
    data = root / "data"
    ok(run_cli(data, "notebooks"))
    bag_plan = root / "bag-plan.json"
    ok(run_cli(data, "plan", str(bag), "--mode", "bag", "-o", str(bag_plan)))
    return {"data": data, "bag": bag, "plan": bag_plan}


# As in the commit walk: a refused retry's note and an ended run's cancel marker that the
# disk fails are logged, harmless, while the refusal or the run's end is said.
@pytest.mark.allow_logged_warnings(
    r"a refused retry of plan \S+ is not in History",
    r"cancel marker of ended run \S+ left in place",
)
@pytest.mark.parametrize("step", ["plan", "commit"])
def test_bag_import_fault_walk(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    bagged: dict[str, Any],
    step: str,
    fault: Fault,
) -> None:
    """Main (#36): 9 of the faulted bag imports said "unexpected error". Planning a bag and
    committing its plan, every call failed in turn: never that, at most one line on stderr
    besides the run's id, and doctor then finds the corpus whole."""
    if step == "plan":
        args = ("plan", str(bagged["bag"]), "--mode", "bag", "-o", str(tmp_path / "p.json"))
    else:
        args = ("commit", str(bagged["plan"]), "--workers", "1")
    for n in _calls(fault.offset):
        faulted = faulted_run(
            capsys, bagged["data"], tmp_path / f"case{n}", n, fault.err, fault.persistent, args
        )
        said = [
            x
            for x in faulted.said.splitlines()
            if x and not re.fullmatch(r"Import run \S+ created\.", x)
        ]
        where = f"{step}: {faulted.where}: {faulted.said!r}"
        assert "unexpected error" not in faulted.said and "Traceback" not in faulted.said, where
        assert len(said) <= 1, where
        _cli(capsys, faulted.work, "doctor")  # faults off: finishes what was left
        report = api.check_corpus(api.open_corpus(faulted.work))
        left = [  # or a leftover the command's own line named (as in the commit walk)
            f.code
            for f in report.findings
            if f.code not in STILL_TOLD
            and not (f.path and f"may be left at {f.path}" in faulted.said)
        ]
        assert left == [], f"{where}: the corpus is not whole after doctor: {left}"
        shutil.rmtree(faulted.work)
        if not faulted.fired:
            break
