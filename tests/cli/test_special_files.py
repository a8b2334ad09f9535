"""Named pipes, devices and swapped paths where a plan or a source should be (issue 14, 1-2).

Each case once hung the command for good (a FIFO opened for reading waits for a writer;
Ctrl-C, SIGTERM and `cancel` were acknowledged and ignored), read /dev/zero until memory ran
out, or copied it until the corpus's disk was full. Every process here runs under a timeout
and, where main would fill memory or a disk, under a resource limit, so a regression fails
the test instead of hanging the suite or filling the machine.
"""

from __future__ import annotations

import os
import resource
import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest

from helpers.cli import Exit, cli_argv, cli_env, cli_json, notebook_files, ok, run_cli
from helpers.shelves import make_shelf

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")

# Well under helpers.cli.TIMEOUT: every command here does a few milliseconds of work.
QUICK = 60.0
# What a CLI process may map (bounded memory: main read /dev/zero until it ran out) and
# write into one file (main copied /dev/zero until the disk was full).
MEMORY_LIMIT = 2 * 1024**3
FILE_LIMIT = 64 * 1024**2


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))


def _run(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI under QUICK and the limits above; a hang is a TimeoutExpired (the test fails)."""
    return subprocess.run(
        cli_argv(data, *args),
        env=cli_env(data),
        capture_output=True,
        text=True,
        timeout=QUICK,
        preexec_fn=_limited,
    )


def _coded(proc: subprocess.CompletedProcess[str], rc: int) -> subprocess.CompletedProcess[str]:
    ok(proc, rc)
    assert "unexpected error" not in proc.stderr, proc.stderr
    return proc


def _interrupted_after_one_item(tmp_path: Path) -> tuple[Path, Path, str, dict[str, Any]]:
    """A two-notebook commit killed after its first item: (data, plan, run id, the item
    still pending, from the plan document)."""
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(make_shelf(tmp_path / "shelf", notebooks=2)), "-o", str(plan)))
    killed = run_cli(data, "commit", str(plan), "--workers", "1", crash_at="run.after_item_outcome")
    assert killed.returncode < 0, killed.stderr
    (run,) = cli_json(data, "runs", "--json")["runs"]
    shown = cli_json(data, "show", run["import_run_id"], "--json")
    pending = {i["item_id"] for i in shown["items"] if i["state"] == "pending"}
    items = orjson.loads(plan.read_bytes())["items"]
    (item,) = [it for it in items if it["item_id"] in pending]
    return data, plan, run["import_run_id"], item


def _page_files(data: Path) -> dict[str, str]:
    """Every file of the corpus's notebooks but their manifests and lock files: the sources,
    renders, staged files and journals an ingest writes."""
    return {
        rel: sha
        for rel, sha in notebook_files(data).items()
        if rel.rsplit("/", 1)[-1] not in ("project.json", ".ingest.lock")
    }


def _failed_item(data: Path, run_id: str, item_id: str) -> dict[str, Any]:
    shown = cli_json(data, "show", run_id, "--json")
    (item,) = [i for i in shown["items"] if i["item_id"] == item_id]
    assert item["state"] == "failed", item
    failure: dict[str, Any] = item["failure"]
    return failure


@pytest.mark.parametrize("command", ["validate", "commit"])
def test_a_named_pipe_or_a_device_given_as_the_plan_is_refused_at_once(
    tmp_path: Path, command: str
) -> None:
    data = tmp_path / "data"
    fifo = tmp_path / "plan.json"
    os.mkfifo(fifo)  # no writer will ever come: opening it to read used to wait for good
    proc = _coded(_run(data, command, str(fifo)), Exit.USAGE)
    assert f"{fifo}: cannot be read (a named pipe, not a regular file)" in proc.stderr
    # /dev/zero never ends: it was read until memory ran out (here: MEMORY_LIMIT).
    proc = _coded(_run(data, command, "/dev/zero"), Exit.USAGE)
    assert "/dev/zero: cannot be read (a device, not a regular file)" in proc.stderr


def test_a_plan_larger_than_any_plan_is_refused_before_it_is_read(tmp_path: Path) -> None:
    data = tmp_path / "data"
    huge = tmp_path / "huge.json"
    with huge.open("wb") as f:
        f.truncate(300 * 1024**2)  # sparse: costs no disk, and more than MAX_DOCUMENT_BYTES
    proc = _coded(_run(data, "validate", str(huge)), Exit.USAGE)
    assert f"{huge}: cannot be read (larger than 256 MiB" in proc.stderr


@pytest.mark.slow
def test_a_source_swapped_for_a_named_pipe_after_planning_fails_its_item_without_a_hang(
    tmp_path: Path,
) -> None:
    data, _plan, run_id, item = _interrupted_after_one_item(tmp_path)
    source = Path(item["sources"][-1]["provenance"]["path"])
    source.unlink()
    os.mkfifo(source)
    proc = _coded(_run(data, "resume", run_id), Exit.PROBLEMS)
    assert f"{source} is a named pipe, not a regular file, so it was not read" in proc.stdout
    failure = _failed_item(data, run_id, item["item_id"])
    assert failure["code"] == "source_unreadable"
    assert str(source) in failure["message"] and "Put the real file back" in failure["message"]
    # The pending item was rolled back whole: its notebook holds no page, nothing is staged.
    assert not [p for p in _page_files(data) if p.startswith(item["notebook_id"] + "/")]
    _coded(_run(data, "doctor"), 0)


@pytest.mark.slow
def test_a_source_swapped_for_a_link_to_dev_zero_is_refused_and_never_copied(
    tmp_path: Path,
) -> None:
    data, _plan, run_id, item = _interrupted_after_one_item(tmp_path)
    source = Path(item["sources"][-1]["provenance"]["path"])
    source.unlink()
    source.symlink_to("/dev/zero")
    before = _page_files(data)
    # Main copied it until the disk was full (here: SIGXFSZ at FILE_LIMIT) and blamed the disk.
    proc = _coded(_run(data, "resume", run_id), Exit.PROBLEMS)
    assert "check the disk" not in proc.stdout + proc.stderr
    failure = _failed_item(data, run_id, item["item_id"])
    assert failure["code"] == "source_unreadable"
    assert f"{source} is a device, not a regular file" in failure["message"]
    assert _page_files(data) == before
    # A second resume reads nothing again: the run has ended, and says so.
    again = _coded(_run(data, "resume", run_id), Exit.PROBLEMS)
    assert "already ended" in again.stdout and _page_files(data) == before


@pytest.mark.slow
def test_a_source_whose_size_changed_after_validate_fails_as_changed_since_planned(
    tmp_path: Path,
) -> None:
    data, _plan, run_id, item = _interrupted_after_one_item(tmp_path)
    source = Path(item["sources"][-1]["provenance"]["path"])
    with source.open("ab") as f:
        f.write(b"\0" * 4096)  # grown: a copy still being written, or another file
    _coded(_run(data, "resume", run_id), Exit.PROBLEMS)
    failure = _failed_item(data, run_id, item["item_id"])
    assert failure["code"] == "source_changed"
    assert f"{source} changed since it was planned" in failure["message"]


@pytest.mark.parametrize("command", ["validate", "commit"])
def test_a_plan_whose_provenance_path_points_at_a_named_pipe_does_not_hang(
    tmp_path: Path, command: str
) -> None:
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(make_shelf(tmp_path / "shelf", notebooks=1)), "-o", str(plan)))
    fifo = tmp_path / "elsewhere.jpg"
    os.mkfifo(fifo)
    st = fifo.stat()
    doc = orjson.loads(plan.read_bytes())
    # Provenance is not fingerprinted, so a crafted plan can point anywhere and match the
    # pipe's size and time: validate's stat agrees, and the probe opened it and waited.
    doc["items"][0]["sources"][0]["provenance"].update(
        path=str(fifo), size=st.st_size, mtime_ns=st.st_mtime_ns
    )
    plan.write_bytes(orjson.dumps(doc))
    proc = _coded(_run(data, command, str(plan)), Exit.INVALID)
    assert "[source_unreadable]" in proc.stdout
    assert f"{fifo} is a named pipe, not a regular file" in proc.stdout
    assert not (data / "corpus" / "notebooks").exists() or not _page_files(data)
