"""Failures a person can cause end in one coded line and the documented exit code."""

from __future__ import annotations

import subprocess
from pathlib import Path

from helpers.cli import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    cli_argv,
    cli_env,
    cli_json,
    run_cli,
)
from helpers.shelves import make_shelf


def _no_traceback(proc: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stderr and "unexpected error" not in proc.stderr, proc.stderr


def test_a_lock_timeout_that_is_not_a_number_is_a_usage_error(tmp_path: Path) -> None:
    proc = run_cli(tmp_path / "data", "notebooks", env={"TRANSCRIBE_LOCK_TIMEOUT": "abc"})
    _no_traceback(proc)
    assert proc.returncode == EXIT_USAGE
    assert "TRANSCRIBE_LOCK_TIMEOUT='abc' is not a number of seconds" in proc.stderr


def test_resume_of_a_finished_run_reports_its_status_and_exit_code(tmp_path: Path) -> None:
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    run_cli(data, "plan", str(make_shelf(tmp_path / "shelf", notebooks=1)), "-o", str(plan))
    cli_json(data, "commit", str(plan), "--json")
    (run,) = cli_json(data, "runs", "--json")["runs"]
    proc = run_cli(data, "resume", run["import_run_id"])
    _no_traceback(proc)
    assert proc.returncode == EXIT_OK
    assert "had already ended: complete" in proc.stdout
    again = cli_json(data, "resume", run["import_run_id"], "--json")
    assert again["status"] == "complete" and again["already_done"]


def test_a_reader_that_closes_the_pipe_gets_no_traceback(tmp_path: Path) -> None:
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    run_cli(data, "plan", str(make_shelf(tmp_path / "shelf", notebooks=1)), "-o", str(plan))
    cli_json(data, "commit", str(plan), "--json")
    (run,) = cli_json(data, "runs", "--json")["runs"]
    writer = subprocess.Popen(
        cli_argv(data, "show", run["import_run_id"], "--json"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=cli_env(data),
        text=True,
    )
    assert writer.stdout is not None and writer.stderr is not None
    writer.stdout.close()  # like `| head -0`: the reader is gone before anything is written
    stderr = writer.stderr.read()
    writer.stderr.close()
    assert writer.wait(timeout=60) == EXIT_PROBLEMS
    assert "Traceback" not in stderr and "unexpected error" not in stderr, stderr
    assert "the output was cut short" in stderr


def test_notebooks_tells_a_damaged_or_missing_index(tmp_path: Path) -> None:
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    run_cli(data, "plan", str(make_shelf(tmp_path / "shelf", notebooks=2)), "-o", str(plan))
    cli_json(data, "commit", str(plan), "--json")
    index = data / "corpus" / "index.jsonl"
    lines = index.read_bytes().splitlines(keepends=True)
    index.write_bytes(lines[0] + b"{not json\n")  # the second notebook's line is garbage
    proc = run_cli(data, "notebooks")
    _no_traceback(proc)
    assert proc.returncode == EXIT_PROBLEMS
    assert "line 2 of" in proc.stdout and "cannot be read" in proc.stdout
    assert "1 notebook folder(s)" in proc.stdout and "transcribe-import doctor" in proc.stdout
    doc = cli_json(data, "notebooks", "--json", rc=EXIT_PROBLEMS)
    assert len(doc["notebooks"]) == 1 and len(doc["problems"]) == 2
    index.unlink()  # no index at all: never "No notebooks yet"
    proc = run_cli(data, "notebooks")
    assert proc.returncode == EXIT_PROBLEMS and "No notebooks yet" not in proc.stdout
    assert "2 notebook folder(s)" in proc.stdout
    ok_after = run_cli(data, "doctor")
    _no_traceback(ok_after)
    assert len(cli_json(data, "notebooks", "--json")["notebooks"]) == 2


def test_a_notebook_folder_linked_outside_the_corpus_is_refused_and_reported(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    run_cli(data, "plan", str(make_shelf(tmp_path / "shelf", notebooks=1)), "-o", str(plan))
    cli_json(data, "commit", str(plan), "--json")
    (nb,) = cli_json(data, "notebooks", "--json")["notebooks"]
    nb_dir = data / "corpus" / "notebooks" / nb["notebook_id"]
    elsewhere = tmp_path / "elsewhere"
    nb_dir.rename(elsewhere)
    nb_dir.symlink_to(elsewhere, target_is_directory=True)
    before = sorted(p.relative_to(elsewhere).as_posix() for p in elsewhere.rglob("*"))
    report = cli_json(data, "doctor", "--json", rc=EXIT_PROBLEMS)
    assert [f["code"] for f in report["findings"]] == ["outside_corpus"]
    late = make_shelf(tmp_path / "late", notebooks=1, tag="late")
    into = tmp_path / "into.json"
    proc = run_cli(
        data,
        "plan",
        str(late / "notebook 1"),
        "--mode",
        f"into:{nb['notebook_id']}",
        "-o",
        str(into),
    )
    _no_traceback(proc)
    result = cli_json(data, "commit", str(into), "--json", rc=EXIT_PROBLEMS)
    (item,) = result["items"]
    assert item["state"] == "failed" and "symbolic link" in item["failure"]["message"]
    after = sorted(p.relative_to(elsewhere).as_posix() for p in elsewhere.rglob("*"))
    assert after == before  # nothing was written through the link


def test_a_full_disk_during_a_commit_leaves_the_run_resumable_with_exit_6(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    import errno
    import json as _json

    from transcribe_import.cli import main
    from transcribe_import.engine.ingest import checkpoints
    from transcribe_import.engine.storage import fsio

    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    run_cli(data, "plan", str(make_shelf(tmp_path / "shelf", notebooks=3)), "-o", str(plan))
    real = checkpoints.ingest
    calls = []

    def full_on_second(corpus, req, *args, **kw):
        calls.append(req.notebook_id)
        if len(calls) == 2:
            raise fsio.problem_from_oserror(
                OSError(errno.ENOSPC, "No space left on device"), tmp_path / "x", "writing"
            )
        return real(corpus, req, *args, **kw)

    monkeypatch.setattr(checkpoints, "ingest", full_on_second)
    code = main(["--data-dir", str(data), "commit", str(plan), "--workers", "1", "--json"])
    out = _json.loads(capsys.readouterr().out)
    assert code == 6
    assert out["status"] == "running" and "disk is full" in out["stopped_by"]
    assert out["counts"]["committed"] == 1 and out["counts"]["failed"] == 0
    monkeypatch.setattr(checkpoints, "ingest", real)
    resumed = cli_json(data, "resume", out["import_run_id"], "--json")
    assert resumed["status"] == "complete" and resumed["counts"]["committed"] == 3
