"""Signals, as docs/cli.md promises them, in a real process held at named points.

Each process stops itself at a named point (``TRANSCRIBE_STOP_AT``); the test sends the
signal while it is stopped, so the signal is answered exactly there when it goes on. A
second signal, during the command or after its summary was printed, is answered like the
first: the exit code and the state are the ones the first promised (#25).
"""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path

import orjson
import pytest

from transcribe_import.cli import signals

from helpers import holding
from helpers.cli import Exit, assert_doctor_clean, cli_json, ok, run_cli, start_cli
from helpers.shelves import make_shelf

pytestmark = pytest.mark.crash


def _plan(tmp: Path, data: Path) -> Path:
    plan = tmp / "plan.json"
    ok(run_cli(data, "plan", str(make_shelf(tmp / "shelf", notebooks=3)), "-o", str(plan)))
    return plan


@pytest.mark.parametrize(
    ("first", "second", "rc", "status"),
    [
        (signal.SIGTERM, signal.SIGTERM, Exit.INTERRUPTED, "running"),
        (signal.SIGINT, signal.SIGINT, Exit.CANCELLED, "cancelled_with_commits"),
        (signal.SIGINT, signal.SIGTERM, Exit.CANCELLED, "cancelled_with_commits"),
    ],
)
def test_a_second_signal_after_the_summary_keeps_the_first_ones_exit(
    tmp_path: Path, first: signal.Signals, second: signal.Signals, rc: int, status: str
) -> None:
    """Main killed the process with 143 (or exited 6 for a cancelled run) on the second."""
    data = tmp_path / "data"
    plan = _plan(tmp_path, data)
    env = holding.stop_at("run.after_item_outcome", "cli.after_command")
    commit = start_cli(data, "commit", str(plan), "--workers", "1", "--json", env=env)
    try:
        holding.wait_stopped(commit)  # the first item committed
        holding.go_on(commit, first)
        holding.wait_stopped(commit)  # its summary printed, its exit code chosen
        holding.go_on(commit, second)
    finally:
        out, err = holding.finish(commit)
    assert commit.returncode == rc, err
    result = orjson.loads(out)
    assert result["status"] == status
    counts = result["counts"]
    # The first signal is answered at the next item boundary the executor reaches after the
    # handler ran: one or both of the later items never started, and every item is counted.
    not_started = counts["pending"] + counts["cancelled_pending"]
    assert 1 <= not_started <= 2 and counts["committed"] + not_started == 3, counts
    if status == "running":  # the promised state: interrupted and resumable
        [run] = cli_json(data, "runs", "--json")["runs"]
        assert run["interrupted"]
        assert cli_json(data, "resume", result["import_run_id"], "--json")["status"] == "complete"
    assert_doctor_clean(data)


def test_two_signals_at_once_are_one_pause(tmp_path: Path) -> None:
    data, commit = holding.held_commit(tmp_path, "run.after_item_outcome")
    try:
        holding.go_on(commit, signal.SIGTERM, signal.SIGHUP)
    finally:
        out, err = holding.finish(commit)
    assert commit.returncode == Exit.INTERRUPTED, err
    assert orjson.loads(out)["paused"] is True


def _two_notebook_run(tmp: Path, data: Path) -> str:
    plan = tmp / "plan.json"
    ok(run_cli(data, "plan", str(make_shelf(tmp / "shelf", notebooks=2)), "-o", str(plan)))
    return str(cli_json(data, "commit", str(plan), "--json")["import_run_id"])


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_stops_a_revert_between_two_moves_and_revert_finishes_it(
    tmp_path: Path, sig: signal.Signals
) -> None:
    """Main died at once on SIGTERM (143), half done, with no word on what to do."""
    data = tmp_path / "data"
    run_id = _two_notebook_run(tmp_path, data)
    env = holding.stop_at("revert.after_move", "cli.after_command")
    revert = start_cli(data, "revert", run_id, env=env)
    try:
        holding.wait_stopped(revert)  # the first notebook is in the trash, the second not yet
        holding.go_on(revert, sig)
        holding.wait_stopped(revert)  # its one line printed
        holding.go_on(revert, signal.SIGTERM)  # a second signal changes nothing
    finally:
        out, err = holding.finish(revert)
    assert revert.returncode == Exit.INTERRUPTED, err
    assert "Traceback" not in err and out == ""
    assert (
        f"transcribe-import: The undo of run {run_id[:8]} was stopped at a safe point, 1 of 2 "
        f"notebooks done; `transcribe-import revert {run_id[:8]}` finishes it"
    ) in err
    # Half done, as said: one notebook's folder is in the trash, the other still in place.
    assert len(list((data / "corpus" / "notebooks").iterdir())) == 1
    proc = ok(run_cli(data, "revert", run_id))
    assert f"Run {run_id[:8]} was undone" in proc.stdout
    assert cli_json(data, "notebooks", "--json")["notebooks"] == []
    assert cli_json(data, "show", run_id, "--json")["status"] == "reverted"
    assert_doctor_clean(data)


def test_ctrl_c_says_what_a_cancel_keeps_and_it_is_so(tmp_path: Path) -> None:
    """Ctrl-C between two checkpoints of a 70-page notebook: the line on stderr says every
    page already in stays and that committing the plan again imports the rest; both hold."""
    data, plan = tmp_path / "data", tmp_path / "plan.json"
    shelf = make_shelf(tmp_path / "shelf", 1, 70, folder="Register", size=(120, 160))
    ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
    env = holding.stop_at("ingest.between_checkpoints")
    commit = start_cli(data, "commit", str(plan), "--workers", "1", env=env)
    try:
        holding.wait_stopped(commit)  # the notebook's first checkpoint landed
        holding.go_on(commit, signal.SIGINT)
    finally:
        _out, err = holding.finish(commit)
    assert commit.returncode == Exit.CANCELLED, err
    assert (
        "cancelling at the next safe point — every page already in the corpus stays; commit "
        "the plan again to import the rest." in err
    )
    [run] = cli_json(data, "runs", "--json")["runs"]
    assert run["status"] == "cancelled" and 0 < run["pages_landed"] < 70
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    assert nb["page_count"] == run["pages_landed"]  # "every page already in … stays"
    shown = cli_json(data, "show", run["import_run_id"], "--json")
    assert "cancel_requested" in [h["event"] for h in shown["history"]]

    ok(run_cli(data, "commit", str(plan)))  # "commit the plan again to import the rest"
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    assert nb["page_count"] == 70


def _blocked_here() -> set[signal.Signals]:
    return set(signal.pthread_sigmask(signal.SIG_BLOCK, []))


@pytest.mark.skipif(sys.platform == "win32", reason="signals are not blocked per thread there")
def test_the_work_and_every_thread_it_starts_leave_the_stop_signals_to_the_main_thread() -> None:
    """The cause of the Ctrl-C that let a whole notebook land (the real-process tests above
    and in test_incomplete_notebooks): Python runs a handler only on the main thread, and a
    signal the kernel gave to another thread (libvips keeps idle workers) waited until the
    main thread next ran Python, when the commit's lane ended. Only the main thread may
    take one now, which interrupts its wait for the work."""

    def work() -> tuple[set[signal.Signals], set[signal.Signals]]:
        seen: list[set[signal.Signals]] = []
        lane = threading.Thread(target=lambda: seen.append(_blocked_here()))
        lane.start()
        lane.join()
        return _blocked_here(), seen[0]

    stops = set(signals.STOP_SIGNALS)
    in_work, in_its_thread = signals.answered_at_once(work)
    assert stops <= in_work and stops <= in_its_thread
    assert not stops & _blocked_here()


def test_the_work_s_error_is_raised_on_the_main_thread() -> None:
    def work() -> None:
        raise ValueError("from the work")

    with pytest.raises(ValueError, match="from the work"):
        signals.answered_at_once(work)
