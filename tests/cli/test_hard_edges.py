"""Failures a person can cause end in one coded line and the documented exit code."""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from transcribe_import.engine.ingest.checkpoints import CHECKPOINT_PAGES

from helpers.cli import (
    Exit,
    assert_doctor_clean,
    cli_argv,
    cli_env,
    cli_json,
    notebook_files,
    read_only_argv,
    run_cli,
)
from helpers.shelves import make_shelf

# Each runs the real command line several times (seconds each): the whole run only.
pytestmark = pytest.mark.slow


def _no_traceback(proc: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stderr and "unexpected error" not in proc.stderr, proc.stderr


def test_a_lock_timeout_that_is_not_a_number_is_a_usage_error(tmp_path: Path) -> None:
    proc = run_cli(tmp_path / "data", "notebooks", env={"TRANSCRIBE_LOCK_TIMEOUT": "abc"})
    _no_traceback(proc)
    assert proc.returncode == Exit.USAGE
    assert "TRANSCRIBE_LOCK_TIMEOUT='abc' is not a number of seconds" in proc.stderr


def test_resume_of_a_finished_run_reports_its_status_and_exit_code(tmp_path: Path) -> None:
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    run_cli(data, "plan", str(make_shelf(tmp_path / "shelf", notebooks=1)), "-o", str(plan))
    cli_json(data, "commit", str(plan), "--json")
    (run,) = cli_json(data, "runs", "--json")["runs"]
    proc = run_cli(data, "resume", run["import_run_id"])
    _no_traceback(proc)
    assert proc.returncode == Exit.OK
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
    assert writer.wait(timeout=60) == Exit.PROBLEMS
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
    assert proc.returncode == Exit.PROBLEMS
    assert "line 2 of" in proc.stdout and "cannot be read" in proc.stdout
    assert "1 notebook folder in " in proc.stdout and "transcribe-import doctor" in proc.stdout
    doc = cli_json(data, "notebooks", "--json", rc=Exit.PROBLEMS)
    assert len(doc["notebooks"]) == 1 and len(doc["problems"]) == 2
    index.unlink()  # no index at all: never "No notebooks yet"
    proc = run_cli(data, "notebooks")
    assert proc.returncode == Exit.PROBLEMS and "No notebooks yet" not in proc.stdout
    assert "2 notebook folders in " in proc.stdout
    ok_after = run_cli(data, "doctor")
    _no_traceback(ok_after)
    assert len(cli_json(data, "notebooks", "--json")["notebooks"]) == 2


def test_runs_tells_a_damaged_run_record_instead_of_no_runs(tmp_path: Path) -> None:
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    run_cli(data, "plan", str(make_shelf(tmp_path / "shelf", notebooks=1)), "-o", str(plan))
    run_id = cli_json(data, "commit", str(plan), "--json")["import_run_id"]
    record = data / "corpus" / "import-runs" / f"{run_id}.json"
    record.write_bytes(b"{ damaged")
    proc = run_cli(data, "runs")
    _no_traceback(proc)
    assert proc.returncode == Exit.PROBLEMS and "No import runs yet" not in proc.stdout
    assert str(record) in proc.stdout and "transcribe-import doctor" in proc.stdout
    doc = cli_json(data, "runs", "--json", rc=Exit.PROBLEMS)
    assert doc["runs"] == [] and len(doc["problems"]) == 1 and str(record) in doc["problems"][0]
    _no_traceback(run_cli(data, "doctor"))  # sets it aside (quarantine) and tells it
    assert cli_json(data, "runs", "--json")["problems"] == []


def _held(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder``: a file's bytes, None for a folder."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() if p.is_file() else None
        for p in folder.rglob("*")
    }


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
    before = _held(elsewhere)
    report = cli_json(data, "doctor", "--json", rc=Exit.PROBLEMS)
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
    result = cli_json(data, "commit", str(into), "--json", rc=Exit.PROBLEMS)
    (item,) = result["items"]
    assert item["state"] == "failed" and "symbolic link" in item["failure"]["message"]
    # Nor by any other command (#36): what doctor's finding says, and only that. It said "never
    # reads" too, but notebooks, audit and export read a linked folder's files.
    [finding] = report["findings"]
    assert "Nothing is written, moved or removed through it" in finding["message"], finding
    [first] = [r for r in cli_json(data, "runs", "--json")["runs"] if r["status"] == "complete"]
    for args in (
        ["revert", first["import_run_id"]],
        ["turn", nb["notebook_id"], "1", "90"],
        ["audit"],
        ["export", "--all", "-o", str(tmp_path / "exported")],
        ["doctor"],
    ):
        _no_traceback(run_cli(data, *args))
    assert _held(elsewhere) == before  # nothing was written through the link


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


# -- the bad-input table: each a coded one-line refusal with the contract's exit code --------


def _one_coded_line(proc: subprocess.CompletedProcess[str], rc: int, *words: str) -> None:
    """Exit ``rc``, no traceback, and stderr is one ``transcribe-import:`` line with ``words``."""
    _no_traceback(proc)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == rc, (proc.returncode, proc.stderr, proc.stdout)
    assert len(lines) == 1 and lines[0].startswith("transcribe-import: "), proc.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])


def _refingerprinted(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with a fingerprint that matches its body: crafted, not merely edited."""
    from transcribe_import.engine.planning.plan import fingerprint_of

    return {**doc, "plan_fingerprint": fingerprint_of(doc)}


DEEP = "[" * 1000 + "]" * 1000  # a value nested 1,000 lists deep (orjson reads up to 1,024)

# name -> (how to change the good plan, words the one line must hold). A change returns
# the document; "<DEEP>" in it is replaced by DEEP in the text written.
_Change = Callable[[dict[str, Any]], dict[str, Any]]


def _at(path: str, value: Any) -> _Change:
    def change(doc: dict[str, Any]) -> dict[str, Any]:
        doc = copy.deepcopy(doc)
        *parents, last = path.split(".")
        target: Any = doc
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        target[last] = value
        return _refingerprinted(doc)

    return change


BAD_PLANS: dict[str, tuple[_Change, tuple[str, ...]]] = {
    "nested 1,000 deep in provenance": (
        _at("provenance.roots", "<DEEP>"),
        ("more than 64 levels deep",),
    ),
    "nested 1,000 deep in a source's provenance": (
        _at("items.0.sources.0.provenance.width", "<DEEP>"),
        ("more than 64 levels deep",),
    ),
    "nested 1,000 deep in a fingerprinted field": (
        lambda doc: {**copy.deepcopy(doc), "items": "<DEEP>"},
        ("more than 64 levels deep",),
    ),
    "size is text": (
        _at("items.0.sources.0.provenance.size", "big"),
        ("provenance: size is 'big', not a whole number",),
    ),
    "source provenance is text": (
        _at("items.0.sources.0.provenance", "x"),
        ("provenance is not an object",),
    ),
    "ordering is text": (_at("items.0.ordering", "by hand"), ("ordering is not an object",)),
    "sources is an object": (_at("items.0.sources", {"a": 1}), ("sources is dict, not a list",)),
    "excluded is text": (
        _at("items.0.sources.0.excluded", "no"),
        ("excluded is 'no', not true or false",),
    ),
    "page_index is true": (
        _at("items.0.sources.0.pages.0.page_index", True),
        ("page_index is True, not a whole number",),
    ),
    "unusable is text": (
        _at("items.0.provenance.unusable", "abc"),
        ("unusable is 'abc', not a list",),
    ),
    "roots are numbers": (_at("provenance.roots", [1, 2]), ("roots is list, not a list of texts",)),
    "policy is a list": (
        lambda doc: {**doc, "import_policy_id": ["x"]},
        ("unknown import_policy_id",),
    ),
    "path_b64 is not base64": (
        _at("items.0.sources.0.provenance.path_b64", "!!!not base64"),
        ("path_b64 is not valid base64",),
    ),
    "path_b64 padding is wrong": (
        _at("items.0.sources.0.provenance.path_b64", "abc"),
        ("path_b64 is not valid base64",),
    ),
    "path_b64 holds a NUL": (
        _at("items.0.sources.0.provenance.path_b64", "L3RtcAAvYQ=="),
        ("path_b64 is not a file path",),
    ),
}


@pytest.fixture(scope="module")
def good_plan(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A data folder and a valid plan document of one two-page notebook."""
    root = tmp_path_factory.mktemp("good")
    plan = root / "plan.json"
    data = root / "data"
    run_cli(data, "plan", str(make_shelf(root / "shelf", notebooks=1, pages=2)), "-o", str(plan))
    return data, orjson.loads(plan.read_bytes())


@pytest.mark.parametrize("case", list(BAD_PLANS))
def test_a_crafted_plan_is_refused_in_one_coded_line_by_every_command(
    case: str, good_plan: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    data, good = good_plan
    change, words = BAD_PLANS[case]
    text = json.dumps(change(good)).replace('"<DEEP>"', DEEP)
    plan = tmp_path / "crafted.json"
    plan.write_text(text)
    item = good["items"][0]["item_id"][:8]
    for args in (
        ["validate", str(plan)],
        ["commit", str(plan)],
        ["order", str(plan), item, "--accept"],
    ):
        _one_coded_line(run_cli(data, *args), Exit.USAGE, str(plan), *words)
    assert cli_json(data, "runs", "--json")["runs"] == []  # nothing was committed
    assert plan.read_text() == text  # nor the plan rewritten


def test_a_read_only_corpus_is_told_by_doctor_and_commit(tmp_path: Path) -> None:
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    run_cli(data, "plan", str(make_shelf(tmp_path / "shelf", notebooks=1)), "-o", str(plan))
    before = notebook_files(data)
    try:
        for args in (["doctor"], ["doctor", "--json"], ["commit", str(plan)]):
            proc = subprocess.run(
                read_only_argv(data, *args),
                env=cli_env(data),
                capture_output=True,
                text=True,
                timeout=120,
            )
            _one_coded_line(proc, Exit.PROBLEMS, "read-only", str(data / "corpus" / ".lock"))
    finally:
        for p in [data, *data.rglob("*")]:
            p.chmod(p.stat().st_mode | 0o200)
    assert notebook_files(data) == before
    assert cli_json(data, "runs", "--json")["runs"] == []


def test_no_room_for_a_runs_lock_file_leaves_it_resumable_with_exit_6(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import errno

    from transcribe_import.cli import main

    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    run_cli(data, "plan", str(make_shelf(tmp_path / "shelf", notebooks=2)), "-o", str(plan))
    runs_dir = str(data / "corpus" / "import-runs")
    real_open = os.open

    def no_room_for_run_locks(path: Any, flags: int, *args: Any, **kw: Any) -> int:
        # The smallest fake of a full disk: creating a run's lock file fails as ENOSPC would.
        name = os.fsdecode(path)
        if name.startswith(runs_dir) and name.endswith(".lock") and flags & os.O_CREAT:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), name)
        return real_open(path, flags, *args, **kw)

    monkeypatch.setattr(os, "open", no_room_for_run_locks)
    code = main(["--data-dir", str(data), "commit", str(plan), "--workers", "1"])
    out, err = capsys.readouterr()
    assert code == Exit.INTERRUPTED, (out, err)
    assert "Traceback" not in err and "unexpected error" not in err
    (run,) = cli_json(data, "runs", "--json")["runs"]
    run_id = run["import_run_id"]
    assert run["status"] == "pending" and run["interrupted"]
    assert f"Run {run_id[:8]} stopped: The disk is full while creating the lock file" in err
    assert f"transcribe-import resume {run_id[:8]}`" in out
    monkeypatch.setattr(os, "open", real_open)
    resumed = cli_json(data, "resume", run_id, "--json")
    assert resumed["status"] == "complete" and resumed["counts"]["committed"] == 2


# -- a damaged frozen plan, a quarantined run record, a quarantined journal -----------------


def _interrupted_after_one_item(tmp_path: Path, **kill: str) -> tuple[Path, Path, str]:
    """Three notebooks committed one at a time, killed after the first outcome (or ``kill``)."""
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    run_cli(data, "plan", str(make_shelf(tmp_path / "shelf", notebooks=3)), "-o", str(plan))
    point = kill.get("at", "run.after_item_outcome:1")
    proc = run_cli(data, "commit", str(plan), "--workers", "1", crash_at=point)
    assert proc.returncode == Exit.KILLED, proc.stderr
    (run,) = cli_json(data, "runs", "--json")["runs"]
    assert run["interrupted"]
    return data, plan, run["import_run_id"]


def _pages_once(data: Path, notebooks: int, pages: int) -> None:
    listed = cli_json(data, "notebooks", "--json")["notebooks"]
    assert sorted(n["page_count"] for n in listed) == [pages] * notebooks, listed


def test_a_run_whose_frozen_plan_is_damaged_can_be_ended_and_its_plan_recommitted(
    tmp_path: Path,
) -> None:
    data, plan, run_id = _interrupted_after_one_item(tmp_path)
    snapshot = data / "corpus" / "import-runs" / "plans" / f"{run_id}.json"
    snapshot.write_bytes(b'{"format": "transcribe.import-plan", "cut sho')

    resume = run_cli(data, "resume", run_id)
    _one_coded_line(resume, Exit.PROBLEMS, str(snapshot), "damaged", f"cancel {run_id}")
    report = cli_json(data, "doctor", "--json", rc=Exit.PROBLEMS)
    (finding,) = [f for f in report["findings"] if f["code"] == "interrupted_run"]
    assert f"`transcribe-import cancel {run_id[:8]}`" in finding["message"]
    assert "resume it" not in finding["message"]  # the advice is a command that works

    cancel = run_cli(data, "cancel", run_id)
    _no_traceback(cancel)
    assert cancel.returncode == Exit.CANCELLED, cancel.stderr
    assert "cancelled with commits" in cancel.stdout and "without its frozen plan" in cancel.stdout
    (run,) = cli_json(data, "runs", "--json")["runs"]
    assert run["status"] == "cancelled_with_commits"
    assert run["counts"]["committed"] == 1 and run["counts"]["cancelled_pending"] == 2
    assert run["pages_committed"] == 3  # the landed notebook is counted, never hidden
    show = run_cli(data, "show", run_id)  # ended now: no advice to cancel it again
    _one_coded_line(show, Exit.PROBLEMS, "damaged", "The run ended (cancelled_with_commits)")
    assert "cancel" not in show.stderr.split("damaged", 1)[1].replace("cancelled", "")

    again = cli_json(data, "commit", str(plan), "--json")
    assert again["status"] == "complete"
    _pages_once(data, notebooks=3, pages=3)


def test_a_quarantined_run_record_is_told_with_a_command_that_brings_the_rest_in(
    tmp_path: Path,
) -> None:
    data, _plan, run_id = _interrupted_after_one_item(tmp_path)
    (data / "corpus" / "import-runs" / f"{run_id}.json").write_bytes(b"{ not a record")

    report = cli_json(data, "doctor", "--json", rc=Exit.PROBLEMS)
    codes = [f["code"] for f in report["findings"]]
    assert "run_quarantined" in codes and "run_untracked" in codes, codes
    (untracked,) = [f for f in report["findings"] if f["code"] == "run_untracked"]
    advised = re.search(r"`transcribe-import (commit [^`]+)`", untracked["message"])
    assert advised is not None, untracked["message"]

    done = cli_json(data, *shlex.split(advised.group(1)), "--json")  # the advice, as given
    assert done["status"] == "complete"
    assert done["counts"]["committed"] == 3, done  # the landed one is the plan's own
    _pages_once(data, notebooks=3, pages=3)
    after = cli_json(data, "doctor", "--json")
    assert [f["code"] for f in after["findings"]] == ["quarantine_present"]


def test_resume_says_when_it_quarantines_a_damaged_journal(tmp_path: Path) -> None:
    # Killed in the second checkpoint of a notebook that its first one registered: the
    # journal is in a notebook of the corpus (a new notebook's first checkpoint, in its
    # hidden creation folder, would be dropped whole instead).
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    shelf = make_shelf(tmp_path / "shelf", notebooks=1, pages=CHECKPOINT_PAGES + 2)
    run_cli(data, "plan", str(shelf), "-o", str(plan))
    killed = run_cli(data, "commit", str(plan), crash_at="ingest.after_stage:2")
    assert killed.returncode == Exit.KILLED, killed.stderr
    (run,) = cli_json(data, "runs", "--json")["runs"]
    run_id = run["import_run_id"]
    (journal,) = (data / "corpus" / "notebooks").glob("[!.]*/.ingest-journal.json")
    journal.write_bytes(b"{ damaged")

    proc = run_cli(data, "resume", run_id)
    _no_traceback(proc)
    assert proc.returncode == Exit.OK, proc.stderr
    # The notebook named as a person knows it (its title and short id), not its whole id.
    assert f"“notebook 1” ({journal.parent.name[:8]}): its ingest journal could not be read" in (
        proc.stdout
    )
    assert journal.parent.name not in proc.stdout.split("moved")[0]
    assert "moved to" in proc.stdout and "quarantine" in proc.stdout
    doc = cli_json(data, "show", run_id, "--json")
    assert doc["status"] == "complete"


def _run_advice(message: str) -> subprocess.CompletedProcess[str]:
    """Run the command a finding advises, exactly as given (it names its own --data-dir)."""
    advised = re.search(r"`(transcribe-import [^`]+)`", message)
    assert advised is not None, message
    argv = shlex.split(advised.group(1))
    return run_cli(None, *argv[1:])


def test_a_source_deleted_from_a_notebook_is_restored_by_the_command_doctor_advises(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    run_cli(
        data, "plan", str(make_shelf(tmp_path / "shelf", notebooks=1, pages=2)), "-o", str(plan)
    )
    cli_json(data, "commit", str(plan), "--json")
    before = notebook_files(data)
    (nb_dir,) = (data / "corpus" / "notebooks").glob("[!.]*")
    doc = json.loads((nb_dir / "project.json").read_bytes())
    first, second = doc["pages"]
    # A source and its page's render, and another page's render alone.
    source = nb_dir / next(s["path"] for s in doc["sources"] if s["id"] == first["source_id"])
    its_render = nb_dir / first["render"]["path"]
    lone_render = nb_dir / second["render"]["path"]
    for f in (source, its_render, lone_render):
        f.unlink()

    report = cli_json(data, "doctor", "--json", rc=Exit.PROBLEMS)
    by_code: dict[str, set[str]] = {}
    for f in report["findings"]:
        by_code.setdefault(f["code"], set()).add(Path(f["path"]).name)
    # The render whose source is there is rendered again at once, with the same bytes.
    assert by_code["file_restored"] == {lone_render.name} and lone_render.is_file()
    assert by_code["file_missing"] == {source.name, its_render.name}
    missing = {Path(f["path"]).name: f for f in report["findings"] if f["code"] == "file_missing"}
    for f in missing.values():
        assert "import that page again" not in f["message"]  # a duplicate skip: cannot work
    assert "restore the source first" in missing[its_render.name]["message"]

    # The source's advice names the file it was imported from: run it as it is. It brings
    # the source back, and then its page's render is rendered again from it.
    proc = _run_advice(missing[source.name]["message"])
    _no_traceback(proc)
    assert proc.returncode == Exit.PROBLEMS  # it repaired something
    assert "was restored from" in proc.stdout and "rendered again" in proc.stdout
    assert notebook_files(data) == before  # the same bytes, nothing else changed
    assert_doctor_clean(data)
