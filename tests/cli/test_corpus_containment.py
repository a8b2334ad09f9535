"""Containment: a corpus folder that is a symbolic link is refused by name and never written
through; a scan never plans the files of a corpus (issue #25)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from helpers.cli import Exit, cli_json, ok, run_cli
from helpers.shelves import make_shelf

# The reason a scan gives for a corpus it met (planning/scan.py).
OWN = "the app's own data, never imported"


def _committed(tmp_path: Path, *, pages: int = 2) -> tuple[Path, str]:
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", notebooks=1, pages=pages)
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
    run_id = cli_json(data, "commit", str(plan), "--json")["import_run_id"]
    return data, run_id


def _files_under(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


def _linked_away(data: Path, folder: str, outside: Path) -> Path:
    """``corpus/<folder>`` made a link to the empty folder ``outside``; the link."""
    outside.mkdir()
    link = data / "corpus" / folder
    if link.exists():
        link.rmdir()
    link.symlink_to(outside, target_is_directory=True)
    return link


def _doctor_names_the_link(data: Path, link: Path) -> None:
    report = cli_json(data, "doctor", "--json", rc=Exit.PROBLEMS)
    [finding] = [f for f in report["findings"] if f["code"] == "link_in_corpus"]
    assert finding["path"] == str(link) and finding["severity"] == "problem"
    words = ok(run_cli(data, "doctor"), Exit.PROBLEMS).stdout
    assert f"{link} is a symbolic link" in words


@pytest.mark.slow
def test_a_linked_trash_is_refused_by_revert_and_reported_by_doctor(tmp_path: Path) -> None:
    data, run_id = _committed(tmp_path)
    [notebook] = (data / "corpus" / "notebooks").iterdir()
    outside = tmp_path / "elsewhere"
    link = _linked_away(data, "trash", outside)

    proc = ok(run_cli(data, "revert", run_id), Exit.PROBLEMS)

    assert proc.stderr.startswith(f"transcribe-import: {link} is a symbolic link"), proc.stderr
    assert proc.stdout == ""
    assert _files_under(outside) == []  # nothing written through the link
    assert (notebook / "project.json").is_file()  # the run is not undone, nor half undone
    assert cli_json(data, "show", run_id, "--json")["status"] == "complete"
    _doctor_names_the_link(data, link)
    assert _files_under(outside) == []


@pytest.mark.slow
def test_a_linked_quarantine_is_never_written_by_doctor(tmp_path: Path) -> None:
    data, _run_id = _committed(tmp_path)
    index = data / "corpus" / "index.jsonl"
    index.write_bytes(index.read_bytes() + b"{ damaged\n")  # doctor would quarantine a copy
    outside = tmp_path / "elsewhere"
    link = _linked_away(data, "quarantine", outside)

    _doctor_names_the_link(data, link)

    assert _files_under(outside) == []
    assert index.read_bytes().endswith(b"{ damaged\n")  # nothing repaired through it


def test_revert_json_refusal_is_coded(tmp_path: Path) -> None:
    data, run_id = _committed(tmp_path)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (data / "corpus" / "trash").symlink_to(outside, target_is_directory=True)
    proc = ok(run_cli(data, "revert", run_id, "--json"), Exit.PROBLEMS)
    assert proc.stdout == ""
    assert "symbolic link" in proc.stderr and "doctor" in proc.stderr
    assert _files_under(outside) == []


@pytest.mark.slow
def test_a_linked_import_runs_folder_is_refused(tmp_path: Path) -> None:
    data, _run_id = _committed(tmp_path)
    shelf = make_shelf(tmp_path / "shelf2", notebooks=1, pages=1, tag="b")
    plan = tmp_path / "plan2.json"
    ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
    runs = data / "corpus" / "import-runs"
    moved = tmp_path / "runs-elsewhere"
    runs.rename(moved)
    runs.symlink_to(moved, target_is_directory=True)
    before = _files_under(moved)

    proc = ok(run_cli(data, "commit", str(plan)), Exit.PROBLEMS)

    assert f"{runs} is a symbolic link" in proc.stderr
    assert _files_under(moved) == before
    # The refusal says to run doctor: doctor opens the corpus and names the link.
    _doctor_names_the_link(data, runs)
    assert _files_under(moved) == before


def _planned_paths(plan: Path) -> list[Path]:
    doc = orjson.loads(plan.read_bytes())
    return [Path(s["provenance"]["path"]) for it in doc["items"] for s in it["sources"]]


def test_planning_the_folder_holding_the_data_folder_skips_the_corpus(tmp_path: Path) -> None:
    data, _run_id = _committed(tmp_path, pages=3)
    plan = tmp_path / "again.json"

    proc = ok(run_cli(None, "plan", str(tmp_path), "-o", str(plan)))

    corpus = data / "corpus"
    planned = _planned_paths(plan)
    assert planned and not any(corpus in p.parents for p in planned), planned
    rel = f"{tmp_path.name}/data/corpus"
    assert f"  {rel}: a Transcribe corpus; {OWN}" in proc.stdout.splitlines(), proc.stdout
    # Only the folder is named: nothing from inside it is listed file by file.
    assert f"{rel}/" not in proc.stdout


def test_planning_a_folder_inside_a_corpus_plans_nothing_from_it(tmp_path: Path) -> None:
    data, _run_id = _committed(tmp_path)
    inside = data / "corpus" / "notebooks"
    plan = tmp_path / "p.json"

    proc = run_cli(None, "plan", str(inside), "-o", str(plan))

    said = f"  notebooks: inside the Transcribe corpus {data / 'corpus'}; {OWN}"
    assert said in proc.stdout.splitlines(), (proc.stdout, proc.stderr)
    assert not plan.exists() or _planned_paths(plan) == []
