"""The first signal decides: a later one, at any delay, is answered in the first one's words
and changes neither the state nor the exit code; an export keeps its handlers until the
process has exited (issue #36). Real processes, held at named points or waited for by the
line they print; never a sleep."""

from __future__ import annotations

import signal
from pathlib import Path

import orjson
import pytest

from helpers import holding
from helpers.cli import Exit, assert_doctor_clean, cli_json, ok, run_cli, start_cli
from helpers.export import make_corpus
from helpers.shelves import make_shelf

pytestmark = pytest.mark.crash

PAUSING = "transcribe-import: stopping at the next safe point; the run can be resumed."
CANCELLING = "cancelling at the next safe point"


def _plan(tmp: Path, data: Path) -> Path:
    plan = tmp / "plan.json"
    ok(run_cli(data, "plan", str(make_shelf(tmp / "shelf", notebooks=3)), "-o", str(plan)))
    return plan


def test_ctrl_c_just_after_sigterm_keeps_the_pause(tmp_path: Path) -> None:
    """Main: both lines printed, exit 4 and the run cancelled_with_commits (not resumable)."""
    data = tmp_path / "data"
    plan = _plan(tmp_path, data)
    env = {**holding.stop_at("run.after_item_outcome"), "PYTHONUNBUFFERED": "1"}
    commit = start_cli(data, "commit", str(plan), "--workers", "1", "--json", env=env)
    try:
        holding.wait_stopped(commit)  # the first item committed
        holding.go_on(commit, signal.SIGTERM)
        assert commit.stderr is not None
        while PAUSING not in (line := commit.stderr.readline()):  # the first one answered
            assert line, "the process ended without answering SIGTERM"
        commit.send_signal(signal.SIGINT)  # at once: during the run, or after it
    finally:
        out, err = holding.finish(commit)
    assert commit.returncode == Exit.INTERRUPTED, err
    assert CANCELLING not in err
    result = orjson.loads(out)
    assert result["paused"] is True and result["status"] == "running"
    [run] = cli_json(data, "runs", "--json")["runs"]
    assert run["interrupted"]
    assert cli_json(data, "resume", result["import_run_id"], "--json")["status"] == "complete"
    assert_doctor_clean(data)


# The last two: the process's last line of Python, and its teardown (signals ignored there).
LATE = ["cli.after_command", "cli.after_scope", "cli.at_teardown"]


def test_ctrl_c_the_moment_the_summary_is_printed_keeps_the_exit(tmp_path: Path) -> None:
    """Main: exit 130. The interpreter's teardown puts the default actions back and takes
    tenths of a second (numpy, libvips), and a Ctrl-C then killed the process after its
    summary (8 of 8 tries by hand)."""
    data = tmp_path / "data"
    plan = _plan(tmp_path, data)
    env = {**holding.stop_at("run.after_item_outcome"), "PYTHONUNBUFFERED": "1"}
    commit = start_cli(data, "commit", str(plan), "--workers", "1", env=env)
    try:
        holding.wait_stopped(commit)
        holding.go_on(commit, signal.SIGTERM)
        assert commit.stdout is not None
        while "stopped with" not in (line := commit.stdout.readline()):  # its summary
            assert line, "the process ended without its summary"
        commit.send_signal(signal.SIGINT)  # at once: as it exits
    finally:
        out, err = holding.finish(commit)
    assert commit.returncode == Exit.INTERRUPTED, err
    assert CANCELLING not in err and "Traceback" not in err


@pytest.mark.parametrize("late", LATE)
def test_a_signal_after_the_summary_keeps_the_first_ones_words_and_exit(
    tmp_path: Path, late: str
) -> None:
    """A different second signal, as late as the process's teardown."""
    data = tmp_path / "data"
    plan = _plan(tmp_path, data)
    env = holding.stop_at("run.after_item_outcome", late)
    commit = start_cli(data, "commit", str(plan), "--workers", "1", "--json", env=env)
    try:
        holding.wait_stopped(commit)
        holding.go_on(commit, signal.SIGTERM)
        holding.wait_stopped(commit)  # its summary printed, its exit code chosen
        holding.go_on(commit, signal.SIGINT)
    finally:
        out, err = holding.finish(commit)
    assert commit.returncode == Exit.INTERRUPTED, err
    # answered in the first's words, or at the teardown ignored (no Python code runs there)
    assert err.count(PAUSING) == (1 if late == "cli.at_teardown" else 2), err
    assert CANCELLING not in err
    assert orjson.loads(out)["status"] == "running"


@pytest.mark.parametrize("late", LATE)
def test_an_export_given_two_signals_exits_with_its_cancel(tmp_path: Path, late: str) -> None:
    """Main: killed by the second (exit 130 or 143) after printing "Export cancelled"."""
    shelf = make_corpus(tmp_path)
    dest = tmp_path / "out"
    env = holding.stop_at("export.after_file", late)
    export = start_cli(shelf.data, "export", "--all", "-o", str(dest), env=env)
    try:
        holding.wait_stopped(export)  # one file copied
        holding.go_on(export, signal.SIGTERM)
        holding.wait_stopped(export)  # "Export cancelled after …" printed
        holding.go_on(export, signal.SIGINT)
    finally:
        out, err = holding.finish(export)
    assert export.returncode == Exit.CANCELLED, err
    assert out.startswith("Export cancelled after 1 file;"), out
    assert "Traceback" not in err
    assert "cancelled" in (dest / "EXPORT-INCOMPLETE.txt").read_text()


@pytest.mark.parametrize(
    ("sig", "rc", "status"),
    [(signal.SIGTERM, Exit.INTERRUPTED, "running"), (signal.SIGINT, Exit.CANCELLED, "cancelled")],
)
def test_a_signal_just_after_the_run_is_created_is_answered(
    tmp_path: Path, sig: signal.Signals, rc: int, status: str
) -> None:
    """Main: a SIGTERM just after "Import run … created." killed the commit (exit 143, no
    words): its handlers came only after the line and the speed's first count."""
    data = tmp_path / "data"
    plan = _plan(tmp_path, data)
    commit = start_cli(data, "commit", str(plan), env=holding.stop_at("commit.announced"))
    try:
        holding.wait_stopped(commit)  # "Import run … created." said, nothing imported yet
        holding.go_on(commit, sig)
    finally:
        out, err = holding.finish(commit)
    assert commit.returncode == rc, err
    assert (PAUSING if sig == signal.SIGTERM else CANCELLING) in err, err
    [run] = cli_json(data, "runs", "--json")["runs"]
    assert run["status"] == status, run
    assert "0 pages landed" in out, out
    if status == "running":
        assert cli_json(data, "resume", run["import_run_id"], "--json")["status"] == "complete"
    assert_doctor_clean(data)


def test_a_resume_given_sigterm_then_ctrl_c_stays_a_pause(tmp_path: Path) -> None:
    """As for commit: resume's handlers are the run's, so Ctrl-C after SIGTERM is no cancel."""
    data, commit = holding.held_commit(tmp_path, "commit.announced")
    try:
        holding.go_on(commit, signal.SIGTERM)  # paused before its first item
    finally:
        out, _ = holding.finish(commit)
    run_id = orjson.loads(out)["import_run_id"]
    env = {**holding.stop_at("run.after_item_outcome"), "PYTHONUNBUFFERED": "1"}
    resume = start_cli(data, "resume", run_id, "--workers", "1", "--json", env=env)
    try:
        holding.wait_stopped(resume)  # its first item committed
        holding.go_on(resume, signal.SIGTERM)
        assert resume.stderr is not None
        while PAUSING not in (line := resume.stderr.readline()):
            assert line, "the process ended without answering SIGTERM"
        resume.send_signal(signal.SIGINT)
    finally:
        out, err = holding.finish(resume)
    assert resume.returncode == Exit.INTERRUPTED, err
    assert CANCELLING not in err
    assert orjson.loads(out)["status"] == "running"
    assert cli_json(data, "resume", run_id, "--json")["status"] == "complete"
    assert_doctor_clean(data)


@pytest.mark.parametrize("second", [signal.SIGINT, signal.SIGTERM])
def test_a_revert_given_two_signals_at_once_stops_once(
    tmp_path: Path, second: signal.Signals
) -> None:
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(make_shelf(tmp_path / "shelf", notebooks=2)), "-o", str(plan)))
    run_id = str(cli_json(data, "commit", str(plan), "--json")["import_run_id"])
    revert = start_cli(data, "revert", run_id, env=holding.stop_at("revert.after_move"))
    try:
        holding.wait_stopped(revert)  # one notebook in the trash, the other not yet
        holding.go_on(revert, signal.SIGTERM, second)
    finally:
        out, err = holding.finish(revert)
    assert revert.returncode == Exit.INTERRUPTED, err
    assert out == "" and err.count("was stopped at a safe point, 1 of 2 notebooks done") == 1, err
    assert "Traceback" not in err
    ok(run_cli(data, "revert", run_id))
    assert cli_json(data, "show", run_id, "--json")["status"] == "reverted"
    assert_doctor_clean(data)


def test_an_export_given_two_signals_at_once_exits_with_its_cancel(tmp_path: Path) -> None:
    shelf = make_corpus(tmp_path)
    dest = tmp_path / "out"
    export = start_cli(
        shelf.data, "export", "--all", "-o", str(dest), env=holding.stop_at("export.after_file")
    )
    try:
        holding.wait_stopped(export)
        holding.go_on(export, signal.SIGTERM, signal.SIGINT)
    finally:
        out, err = holding.finish(export)
    assert export.returncode == Exit.CANCELLED, err
    assert out.startswith("Export cancelled after 1 file;") and "Traceback" not in err, out
    assert not (dest / "bagit.txt").exists()


def test_sigterm_and_ctrl_c_that_arrive_together_are_taken_in_number_order(
    tmp_path: Path,
) -> None:
    """Both pending before the process runs again (0 ms apart): Python answers pending
    signals in the order of their numbers, so Ctrl-C (2) is the first, SIGTERM (15) the
    second: a cancel, said in its words twice, never a pause as well (docs/cli.md)."""
    data, commit = holding.held_commit(tmp_path, "run.after_item_outcome")
    try:
        holding.go_on(commit, signal.SIGTERM, signal.SIGINT)
    finally:
        out, err = holding.finish(commit)
    assert commit.returncode == Exit.CANCELLED, err
    assert err.count(CANCELLING) == 2 and PAUSING not in err, err
    assert orjson.loads(out)["status"] == "cancelled_with_commits"
    assert_doctor_clean(data)
