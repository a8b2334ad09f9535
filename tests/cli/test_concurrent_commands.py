"""Two commands at once, in real processes: each answers as docs/cli.md says (#25).

One process is held at a named point (``TRANSCRIBE_STOP_AT``: it stops itself there, so
what the other does happens, for certain, while it stands there); the other runs to its
end, and its exit code and words are pinned. Then the held one goes on and finishes.
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import orjson
import pytest

from helpers import holding
from helpers.cli import (
    TIMEOUT,
    Exit,
    assert_doctor_clean,
    cli_env,
    cli_json,
    imported,
    ok,
    plan_cli,
    read_only_argv,
    run_cli,
    start_cli,
)
from helpers.shelves import make_pages, make_shelf

pytestmark = pytest.mark.crash

# The commit must not wait the default 10 s for the notebook the revert holds.
SHORT_WAIT = {"TRANSCRIBE_LOCK_TIMEOUT": "0.2"}


@pytest.fixture
def added_to(tmp_path: Path) -> tuple[Path, str, str, Path]:
    """Run A created notebook “notebook 1”; run B added 2 pages to it; a third plan adds 2
    more. The data folder, the notebook, run B and the third plan."""
    data = tmp_path / "data"
    imported(data, tmp_path, make_shelf(tmp_path / "shelf", notebooks=1))
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    nbid = str(nb["notebook_id"])
    late = make_pages(tmp_path / "late", 2, name="late {i}.png", tag="late")[0].parent
    run_b = imported(data, tmp_path, late, mode=f"into:{nbid}")
    later = make_pages(tmp_path / "later", 2, name="later {i}.png", tag="later")[0].parent
    return data, nbid, run_b, plan_cli(data, tmp_path, later, mode=f"into:{nbid}")


def test_a_commit_blocked_by_a_revert_is_interrupted_and_resumable(
    added_to: tuple[Path, str, str, Path],
) -> None:
    """Main failed the run for good (exit 1, `failed`) once the notebook lock timed out."""
    data, nbid, run_b, plan = added_to
    revert = start_cli(data, "revert", run_b, env=holding.stop_at("revert.after_journal"))
    try:
        holding.wait_stopped(revert)  # it holds the notebook's ingest lock
        commit = run_cli(data, "commit", str(plan), "--json", env=SHORT_WAIT)
        holding.go_on(revert)
    finally:
        _out, err = holding.finish(revert)
    assert revert.returncode == Exit.OK, err
    assert commit.returncode == Exit.INTERRUPTED, commit.stderr
    result = orjson.loads(commit.stdout)
    assert result["status"] == "running" and result["counts"]["failed"] == 0
    assert f"Notebook {nbid[:8]} is being changed by another process" in result["stopped_by"]
    run_c = str(result["import_run_id"])
    [listed] = [r for r in cli_json(data, "runs", "--json")["runs"] if r["import_run_id"] == run_c]
    assert listed["interrupted"]
    resumed = cli_json(data, "resume", run_c, "--json")
    assert resumed["status"] == "complete"
    assert cli_json(data, "notebooks", "--json")["notebooks"][0]["page_count"] == 3 + 2
    assert_doctor_clean(data)


def test_the_loser_of_two_reverts_of_one_run_says_the_other_one_is_undoing_it(
    tmp_path: Path,
) -> None:
    """Main's loser waited for a notebook and blamed an import (or, later, said the run
    "added nothing", or a disk error when it read a journal mid-move)."""
    data = tmp_path / "data"
    run_id = imported(data, tmp_path, make_shelf(tmp_path / "shelf", notebooks=2))
    first = start_cli(data, "revert", run_id, env=holding.stop_at("revert.after_move"))
    try:
        holding.wait_stopped(first)  # one notebook moved into the trash, one still to go
        second = run_cli(data, "revert", run_id, env=SHORT_WAIT)
        holding.go_on(first)
    finally:
        out, err = holding.finish(first)
    assert first.returncode == Exit.OK, err
    assert f"Run {run_id[:8]} was undone (6 pages, 12 files)" in out
    assert second.returncode == Exit.LOCKED, second.stderr
    assert second.stdout == ""
    assert second.stderr == (
        f"transcribe-import: Run {run_id[:8]} is being undone by another process right now "
        "(another `revert`, or `doctor` finishing one); that one does the undo, so nothing "
        f"was done here. `transcribe-import show {run_id[:8]}` says `reverted` once it is done.\n"
    )
    again = ok(run_cli(data, "revert", run_id))
    assert f"Run {run_id[:8]} was undone already" in again.stdout
    assert cli_json(data, "notebooks", "--json")["notebooks"] == []
    assert_doctor_clean(data)


@pytest.mark.parametrize("lock_file", [True, False])
def test_runs_lists_an_interrupted_run_on_a_read_only_corpus(tmp_path: Path, lock_file: bool):
    """Main exited 1: it asked the run's lock by opening its file for writing."""
    data = tmp_path / "data"
    plan = plan_cli(data, tmp_path, make_shelf(tmp_path / "shelf", notebooks=2))
    killed = run_cli(data, "commit", str(plan), crash_at="run.after_item_outcome")
    assert killed.returncode == Exit.KILLED, killed.stderr
    for lock in (data / "corpus" / "import-runs").glob("*.lock"):
        if not lock_file:
            lock.unlink()  # as on a copy of the corpus: no lock file beside the record
    try:
        proc = subprocess.run(
            read_only_argv(data, "runs", "--json"),
            env=cli_env(data),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    finally:
        for p in [data, *data.rglob("*")]:
            p.chmod(p.stat().st_mode | 0o200)
    assert proc.returncode == Exit.OK, proc.stderr
    doc = orjson.loads(proc.stdout)
    [run] = doc["runs"]
    assert run["interrupted"] and run["status"] == "running" and doc["problems"] == []


def test_notebooks_and_runs_say_an_undo_is_half_done(tmp_path: Path) -> None:
    """Main listed a half-moved notebook with a PROBLEM line yet exited 0, and `runs` and
    `resume` did not mention the undo at all, live or stopped."""
    data = tmp_path / "data"
    run_id = imported(data, tmp_path, make_shelf(tmp_path / "shelf", notebooks=2))
    revert = start_cli(data, "revert", run_id, env=holding.stop_at("revert.after_move"))
    try:
        holding.wait_stopped(revert)  # live: one notebook moved, one to go
        live = [run_cli(data, *args) for args in (["notebooks"], ["runs"])]
        holding.go_on(revert, signal.SIGTERM)  # stopped: the undo stays half done
    finally:
        _out, err = holding.finish(revert)
    assert revert.returncode == Exit.INTERRUPTED, err
    stopped = [run_cli(data, *args) for args in (["notebooks"], ["runs", "--json"])]
    resume = run_cli(data, "resume", run_id)
    assert resume.returncode == Exit.OK, resume.stderr  # it ended complete: its status's code
    assert f"  NOTE: the undo of run {run_id[:8]} stopped half way" in resume.stdout
    for proc in live:
        assert proc.returncode == Exit.PROBLEMS, proc.stdout
        said_live = f"PROBLEM: run {run_id[:8]} is being undone right now by another process"
        assert said_live in proc.stdout
    notebooks, runs = stopped
    said = f"the undo of run {run_id[:8]} stopped half way"
    assert notebooks.returncode == Exit.PROBLEMS and f"PROBLEM: {said}" in notebooks.stdout
    assert "doctor`, which repairs the index" not in notebooks.stdout  # not the index's fault
    assert runs.returncode == Exit.PROBLEMS
    [problem] = orjson.loads(runs.stdout)["problems"]
    assert problem.startswith(said) and f"`transcribe-import revert {run_id[:8]}`" in problem
    ok(run_cli(data, "revert", run_id))
    ok(run_cli(data, "notebooks"))
    ok(run_cli(data, "runs"))


def test_doctor_during_a_live_purge_says_a_purge_is_running(tmp_path: Path) -> None:
    """Main's doctor said the purge "was interrupted" and deleted its folder under it."""
    data = tmp_path / "data"
    run_id = imported(data, tmp_path, make_shelf(tmp_path / "shelf", notebooks=1))
    revert_id = cli_json(data, "revert", run_id, "--json")["revert_id"]
    purge = start_cli(
        data, "trash", "--purge", revert_id, env=holding.stop_at("trash.before_delete")
    )
    try:
        holding.wait_stopped(purge)  # hidden as .purging-<id>, not yet deleted
        doctor = cli_json(data, "doctor", "--json")
        holding.go_on(purge)
    finally:
        _out, err = holding.finish(purge)
    assert purge.returncode == Exit.OK, err
    [finding] = doctor["findings"]
    assert finding["code"] == "purge_live" and finding["severity"] == "info"
    assert finding["message"] == (
        f"Trash entry {revert_id[:8]} is being purged right now by another process; left alone."
    )
    assert doctor["clean"]
    assert cli_json(data, "trash", "--json")["entries"] == []
    assert_doctor_clean(data)


def test_export_during_a_revert_says_the_undo_is_in_the_way(tmp_path: Path) -> None:
    """Main exported a `partial` bag and advised a restore from a backup."""
    data = tmp_path / "data"
    run_id = imported(data, tmp_path, make_shelf(tmp_path / "shelf", notebooks=2))
    revert = start_cli(data, "revert", run_id, env=holding.stop_at("revert.after_move"))
    try:
        holding.wait_stopped(revert)  # one notebook moved, one to go
        export = run_cli(data, "export", "--all", "-o", str(tmp_path / "bag"))
        holding.go_on(revert, signal.SIGTERM)  # stopped half way: still in the way
    finally:
        holding.finish(revert)
    stopped = run_cli(data, "export", "--all", "-o", str(tmp_path / "bag"))
    assert export.returncode == Exit.LOCKED, export.stderr
    assert (
        export.stderr
        == (
            f"transcribe-import: Cannot export these notebooks now: run {run_id[:8]} is being "
            "undone right now by another process (trash entry "
        )
        + export.stderr.split("(trash entry ", 1)[1]
    )
    assert "export these notebooks again after it." in export.stderr
    assert stopped.returncode == Exit.PROBLEMS, stopped.stderr
    assert f"the undo of run {run_id[:8]} stopped half way" in stopped.stderr
    assert "backup" not in export.stderr + stopped.stderr
    assert not (tmp_path / "bag").exists()  # nothing was written
    ok(run_cli(data, "revert", run_id))


@pytest.mark.parametrize("undo", ["finished", "live"])
def test_an_undo_that_begins_during_an_export_stops_it_with_the_truth(
    tmp_path: Path, undo: str
) -> None:
    """Main sealed a `partial` bag, as if the corpus were damaged, when an undo started after
    the export's first check: the export now stops, says why, and leaves its folder marked."""
    data = tmp_path / "data"
    run_id = imported(data, tmp_path, make_shelf(tmp_path / "shelf", notebooks=2))
    bag = tmp_path / "bag"
    export = start_cli(
        data, "export", "--all", "-o", str(bag), env=holding.stop_at("export.after_file")
    )
    revert = None
    try:
        holding.wait_stopped(
            export
        )  # the first notebook's project.json is in the bag; nothing else
        if undo == "finished":
            ok(run_cli(data, "revert", run_id))
        else:
            revert = start_cli(data, "revert", run_id, env=holding.stop_at("revert.after_move"))
            holding.wait_stopped(revert)  # one notebook moved into the trash, one to go
        holding.go_on(export)
        _out, err = holding.finish(export)
    finally:
        holding.finish(export)
        if revert is not None:
            holding.go_on(revert)
            holding.finish(revert)
    assert export.returncode == Exit.LOCKED, err
    assert err.startswith("transcribe-import: Notebook "), err
    assert "changed while it was being exported" in err
    assert "an undo of its import ran at the same time" in err
    assert f"The export into {bag} stopped and the corpus is unchanged" in err
    assert "EXPORT-INCOMPLETE.txt in that folder says the export is incomplete" in err
    assert "backup" not in err and "partial" not in err
    assert (bag / "EXPORT-INCOMPLETE.txt").is_file()
    assert not (bag / "bagit.txt").exists()  # never sealed: no validator takes it for a bag
    assert "changed while it was being exported" in (bag / "EXPORT-INCOMPLETE.txt").read_text()
    if revert is not None:
        assert revert.returncode == Exit.OK
    assert cli_json(data, "notebooks", "--json")["notebooks"] == []
    assert_doctor_clean(data)


def test_doctor_during_a_live_revert_says_an_undo_is_running(tmp_path: Path) -> None:
    """Main's doctor said nothing of the undo running beside it."""
    data = tmp_path / "data"
    run_id = imported(data, tmp_path, make_shelf(tmp_path / "shelf", notebooks=2))
    revert = start_cli(data, "revert", run_id, env=holding.stop_at("revert.after_move"))
    try:
        holding.wait_stopped(revert)  # one notebook moved into the trash, one to go
        doctor = run_cli(data, "doctor", "--json")
        holding.go_on(revert)
    finally:
        _out, err = holding.finish(revert)
    assert revert.returncode == Exit.OK, err
    report = orjson.loads(ok(doctor).stdout)
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("revert_live", "info")]
    [finding] = report["findings"]
    assert finding["message"].startswith(
        f"Run {run_id[:8]} is being undone right now by another process (trash entry "
    )
    assert finding["message"].endswith("left alone: it finishes by itself.")
    assert report["clean"]
    assert cli_json(data, "notebooks", "--json")["notebooks"] == []
    assert_doctor_clean(data)
