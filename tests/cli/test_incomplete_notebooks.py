"""A notebook holding part of its import is marked incomplete, on every surface, until finished.

Real processes: a `commit` SIGKILLed between two checkpoints of a 70-page notebook, or
cancelled there by Ctrl-C (SIGINT at that very point). `notebooks --json` then says
``"state": "incomplete"`` with the run, the pages expected and the pages on disk; `doctor`
lists it as a note with the command that finishes it (and that command does); an export marks
it in MANIFEST.json and its README. After a resume, a retry or an undo, the mark is gone.
"""

from __future__ import annotations

import re
import shlex
import signal
from pathlib import Path
from typing import Any

import orjson

from helpers import holding
from helpers.cli import Exit, cli_json, ok, run_cli, start_cli
from helpers.shelves import make_shelf

PAGES = 70
BETWEEN = "ingest.between_checkpoints"  # one checkpoint of the notebook landed, not the rest


def _planned(tmp_path: Path) -> tuple[Path, Path]:
    shelf = make_shelf(tmp_path / "shelf", 1, PAGES, folder="Register", size=(120, 160))
    data, plan = tmp_path / "data", tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
    return data, plan


def _killed(tmp_path: Path) -> tuple[Path, Path]:
    """A real `commit` SIGKILLed after the notebook's first checkpoint."""
    data, plan = _planned(tmp_path)
    killed = run_cli(data, "commit", str(plan), "--workers", "1", crash_at=BETWEEN)
    assert killed.returncode == Exit.KILLED, killed.stderr
    return data, plan


def _cancelled(tmp_path: Path) -> tuple[Path, Path]:
    """A real `commit` cancelled by Ctrl-C after the notebook's first checkpoint."""
    data, plan = _planned(tmp_path)
    commit = start_cli(data, "commit", str(plan), "--workers", "1", env=holding.stop_at(BETWEEN))
    try:
        holding.wait_stopped(commit)
        holding.go_on(commit, signal.SIGINT)
    finally:
        _out, err = holding.finish(commit)
    assert commit.returncode == Exit.CANCELLED, err
    return data, plan


def _listed(data: Path) -> dict[str, Any]:
    (notebook,) = cli_json(data, "notebooks", "--json")["notebooks"]
    return notebook


def _pages_on_disk(data: Path, notebook_id: str) -> int:
    doc = orjson.loads((data / "corpus" / "notebooks" / notebook_id / "project.json").read_bytes())
    return len(doc["pages"])


def _run_id(data: Path) -> str:
    return str(cli_json(data, "runs", "--json")["runs"][-1]["import_run_id"])  # the oldest


def _assert_incomplete(data: Path, *, ended: bool, running: bool = False) -> dict[str, Any]:
    notebook = _listed(data)
    landed = _pages_on_disk(data, notebook["notebook_id"])
    assert 0 < landed < PAGES, "the stop should come between two checkpoints"
    assert notebook["state"] == "incomplete"
    assert notebook["unfinished_import"] == {
        "run_id": _run_id(data),
        "item_id": notebook["unfinished_import"]["item_id"],
        "pages_expected": PAGES,
        "pages_landed": landed,
        "run_ended": ended,
        "running": running,
    }
    assert notebook["page_count"] == landed
    return notebook


def _assert_complete(data: Path) -> None:
    notebook = _listed(data)
    assert notebook["state"] == "complete" and notebook["unfinished_import"] is None
    assert notebook["page_count"] == _pages_on_disk(data, notebook["notebook_id"]) == PAGES
    report = cli_json(data, "doctor", "--json")
    assert report["clean"] and report["findings"] == [], report["findings"]


def _doctor_note(data: Path, *, interrupted: bool = False) -> dict[str, Any]:
    """Doctor's note of the incomplete notebook: information, not a problem (an interrupted
    run, which doctor reports as a problem of its own, is the only other finding)."""
    report = cli_json(data, "doctor", "--json", rc=Exit.PROBLEMS if interrupted else Exit.OK)
    notes = [f for f in report["findings"] if f["code"] == "notebook_incomplete"]
    others = [f["code"] for f in report["findings"] if f not in notes]
    assert len(notes) == 1 and notes[0]["severity"] == "info", report["findings"]
    assert others == (["interrupted_run"] if interrupted else []), others
    return notes[0]


def _finish_command(note: dict[str, Any]) -> list[str]:
    """The command doctor says finishes the import, as words for `run_cli`."""
    found = re.search(r"Finish it with `transcribe-import ([^`]+)`", note["message"])
    assert found, note["message"]
    return shlex.split(found.group(1))


def test_a_sigkill_leaves_the_notebook_marked_and_its_resume_clears_it(tmp_path: Path) -> None:
    data, _plan = _killed(tmp_path)
    notebook = _assert_incomplete(data, ended=False)
    run_id = notebook["unfinished_import"]["run_id"]

    words = ok(run_cli(data, "notebooks")).stdout
    landed = notebook["page_count"]
    assert (
        f"INCOMPLETE: {landed} of {PAGES} pages of import run {run_id[:8]} landed; finish it "
        f"with `transcribe-import resume {run_id[:8]}`." in words
    )
    note = _doctor_note(data, interrupted=True)
    assert note["notebook_id"] == notebook["notebook_id"]
    assert f"is incomplete: {landed} of {PAGES} pages" in note["message"]
    assert _finish_command(note) == ["resume", run_id[:8]]  # as `runs` lists it
    # An undo needs an ended run: doctor says to cancel this one first.
    undo = f"`transcribe-import cancel {run_id[:8]}`, then `transcribe-import revert {run_id[:8]}`"
    assert undo in note["message"]

    ok(run_cli(data, *_finish_command(note)))
    _assert_complete(data)


def test_a_cancel_leaves_the_notebook_marked_and_the_retry_doctor_names_clears_it(
    tmp_path: Path,
) -> None:
    data, plan = _cancelled(tmp_path)
    _assert_incomplete(data, ended=True)
    doctor_words = ok(run_cli(data, "doctor")).stdout
    assert "the corpus is whole" not in doctor_words
    assert "Nothing is damaged, but 1 notebook holds only part of its import" in doctor_words

    plan.unlink()  # the retry doctor names needs no plan file: the run's frozen plan is kept
    command = _finish_command(_doctor_note(data))
    assert command[0] == "commit"
    ok(run_cli(data, *command))
    _assert_complete(data)
    assert len(cli_json(data, "runs", "--json")["runs"]) == 2  # the retry is a run of its own


def test_an_undo_of_the_cancelled_run_takes_the_mark_with_the_notebook(tmp_path: Path) -> None:
    data, _plan = _cancelled(tmp_path)
    run_id = _assert_incomplete(data, ended=True)["unfinished_import"]["run_id"]
    ok(run_cli(data, "revert", run_id))
    assert cli_json(data, "notebooks", "--json")["notebooks"] == []
    report = cli_json(data, "doctor", "--json")
    assert not [f for f in report["findings"] if f["code"] == "notebook_incomplete"]


def test_an_export_marks_the_incomplete_notebook_in_its_manifest_and_readme(
    tmp_path: Path,
) -> None:
    data, _plan = _killed(tmp_path)
    notebook = _assert_incomplete(data, ended=False)
    bag = tmp_path / "bag"
    result = cli_json(data, "export", "--all", "-o", str(bag), "--json")
    assert result["status"] == "complete"  # every file it lists was carried

    manifest = orjson.loads((bag / "MANIFEST.json").read_bytes())
    (entry,) = manifest["notebooks"]
    assert entry["state"] == "incomplete"
    assert entry["unfinished_import"] == notebook["unfinished_import"]
    assert result["notebooks"] == manifest["notebooks"]

    readme = (bag / "README.md").read_text(encoding="utf-8")
    u = notebook["unfinished_import"]
    assert "**1 notebook is incomplete.**" in readme
    assert (
        f"the notebook is **incomplete**: its import (run {u['run_id']}) had landed "
        f"{u['pages_landed']} of its {PAGES} planned pages" in readme
    )


def test_a_complete_import_is_marked_complete_everywhere(tmp_path: Path) -> None:
    data, plan = _planned(tmp_path)
    ok(run_cli(data, "commit", str(plan)))
    _assert_complete(data)
    bag = tmp_path / "bag"
    ok(run_cli(data, "export", "--all", "-o", str(bag)))
    (entry,) = orjson.loads((bag / "MANIFEST.json").read_bytes())["notebooks"]
    assert entry["state"] == "complete" and entry["unfinished_import"] is None
    assert "incomplete" not in (bag / "README.md").read_text(encoding="utf-8").split("## ")[0]


def test_a_notebook_being_imported_is_marked_and_an_export_meanwhile_says_so(
    tmp_path: Path,
) -> None:
    """The issue's export of a notebook 4 of 40 pages in said `complete`: no more."""
    data, plan = _planned(tmp_path)
    commit = start_cli(data, "commit", str(plan), "--workers", "1", env=holding.stop_at(BETWEEN))
    try:
        holding.wait_stopped(commit)  # its first checkpoint landed; it holds the run's lock
        notebook = _assert_incomplete(data, ended=False, running=True)
        words = ok(run_cli(data, "notebooks")).stdout
        assert "landed; a process is importing it now." in words and "finish it" not in words
        note = _doctor_note(data)
        assert note["message"].endswith("landed. Another process is importing it now.")
        bag = tmp_path / "bag"
        ok(run_cli(data, "export", "--all", "-o", str(bag)))
        (entry,) = orjson.loads((bag / "MANIFEST.json").read_bytes())["notebooks"]
        assert entry["state"] == "incomplete"
        assert entry["unfinished_import"] == notebook["unfinished_import"]
        holding.go_on(commit)
    finally:
        _out, err = holding.finish(commit)
    assert commit.returncode == Exit.OK, err
    _assert_complete(data)
