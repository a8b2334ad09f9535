"""Every write, rename and removal under ``corpus/`` is refused through a symbolic link: the
caches, and revert and trash --restore through a linked ``corpus/notebooks`` (issue #36)."""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

from transcribe_import.cli.main import _checked_words
from transcribe_import.engine import api
from transcribe_import.engine.base.findings import DoctorStop
from transcribe_import.engine.storage import fsio
from transcribe_import.engine.storage.corpus import Corpus

from helpers.cli import Exit, cli_json, ok, run_cli
from helpers.shelves import make_shelf


def _files_under(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def _plan(data: Path, tmp: Path, *, tag: str = "") -> Path:
    shelf = make_shelf(tmp / f"shelf{tag}", notebooks=1, pages=3, tag=tag)
    plan = tmp / f"plan{tag}.json"
    ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
    return plan


def _doctor_names(data: Path, link: Path) -> None:
    report = cli_json(data, "doctor", "--json", rc=Exit.PROBLEMS)
    assert [f["path"] for f in report["findings"] if f["code"] == "link_in_corpus"] == [str(link)]


def test_a_linked_thumbnail_cache_is_never_written_through(tmp_path: Path) -> None:
    data = tmp_path / "data"
    ok(run_cli(data, "notebooks"))  # the corpus made, its cache folder not yet
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    link = data / "corpus" / "cache" / "thumbnails-v1"
    link.parent.mkdir(exist_ok=True)
    link.symlink_to(outside, target_is_directory=True)

    cli_json(data, "commit", str(_plan(data, tmp_path)), "--json")

    assert _files_under(outside) == {}  # the thumbnails a commit keeps: not through the link
    assert len(cli_json(data, "notebooks", "--json")["notebooks"]) == 1  # the import landed
    _doctor_names(data, link)


def test_a_linked_look_cache_file_is_never_appended_to(tmp_path: Path) -> None:
    data = tmp_path / "data"
    ok(run_cli(data, "notebooks"))
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_bytes(b"mine\n")
    link = data / "corpus" / "cache" / "looks-v1.jsonl"
    link.parent.mkdir(exist_ok=True)
    link.symlink_to(outside)

    _plan(data, tmp_path)

    assert outside.read_bytes() == b"mine\n"
    _doctor_names(data, link)


def test_a_linked_scan_cache_is_never_appended_to(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _plan(data, tmp_path)
    kept = data / "corpus" / "cache" / "scans-v1.jsonl"
    outside = tmp_path / "elsewhere-scans.jsonl"
    outside.write_bytes(kept.read_bytes())
    kept.unlink()
    kept.symlink_to(outside)
    lines = outside.read_bytes()

    _plan(data, tmp_path)  # its files written again: new lines, none through the link

    assert outside.read_bytes() == lines
    _doctor_names(data, kept)


def _committed_then_notebooks_linked(tmp_path: Path) -> tuple[Path, str, Path]:
    """A run committed, then ``corpus/notebooks`` moved out and replaced by a link to it."""
    data = tmp_path / "data"
    run_id = str(cli_json(data, "commit", str(_plan(data, tmp_path)), "--json")["import_run_id"])
    return data, run_id, _notebooks_linked(data, tmp_path)


def _notebooks_linked(data: Path, tmp_path: Path) -> Path:
    notebooks = data / "corpus" / "notebooks"
    outside = tmp_path / "notebooks-elsewhere"
    shutil.move(notebooks, outside)
    notebooks.symlink_to(outside, target_is_directory=True)
    return outside


def test_revert_through_a_linked_notebooks_folder_is_refused_by_name(tmp_path: Path) -> None:
    data, run_id, outside = _committed_then_notebooks_linked(tmp_path)
    before = _files_under(outside)

    proc = run_cli(data, "revert", run_id)

    assert proc.returncode == Exit.PROBLEMS, proc.stderr
    link = data / "corpus" / "notebooks"
    assert proc.stderr.startswith(f"transcribe-import: {link} is a symbolic link"), proc.stderr
    assert proc.stderr.count("\n") == 1
    assert _files_under(outside) == before  # nothing moved out of the folder it points to
    assert cli_json(data, "trash", "--json")["entries"] == []
    assert cli_json(data, "show", run_id, "--json")["status"] == "complete"


def test_restore_through_a_linked_notebooks_folder_is_refused_by_name(tmp_path: Path) -> None:
    data = tmp_path / "data"
    run_id = str(cli_json(data, "commit", str(_plan(data, tmp_path)), "--json")["import_run_id"])
    revert_id = cli_json(data, "revert", run_id, "--json")["revert_id"]
    outside = _notebooks_linked(data, tmp_path)
    trash = data / "corpus" / "trash" / revert_id
    held = _files_under(trash)

    proc = run_cli(data, "trash", "--restore", revert_id)

    assert proc.returncode == Exit.PROBLEMS, proc.stderr
    link = data / "corpus" / "notebooks"
    assert proc.stderr.startswith(f"transcribe-import: {link} is a symbolic link"), proc.stderr
    assert proc.stderr.count("\n") == 1
    assert _files_under(outside) == {}  # nothing moved out through the link
    assert _files_under(trash) == held  # the entry whole, still in the trash
    [entry] = cli_json(data, "trash", "--json")["entries"]
    assert entry["revert_id"] == revert_id
    assert cli_json(data, "show", run_id, "--json")["status"] == "reverted"


def test_doctor_at_a_link_says_it_stopped_before_the_notebooks(tmp_path: Path) -> None:
    """A link stops doctor before its notebooks: its first line says so, why and what to
    do, not "Checked 0 notebooks" (true, but it reads as a corpus with none)."""
    data = tmp_path / "data"
    cli_json(data, "commit", str(_plan(data, tmp_path)), "--json")
    corpus = data / "corpus"
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    link = corpus / "quarantine"
    if link.exists():
        shutil.rmtree(link)
    link.symlink_to(outside, target_is_directory=True)

    said = ok(run_cli(data, "doctor"), Exit.PROBLEMS).stdout.splitlines()
    assert said[0] == (
        f"Stopped before checking the notebooks in {corpus}: a link in the corpus (below) "
        "stops every repair. Put the real folder back as said, then run doctor again to "
        "check them."
    )
    assert said[1].startswith(f"[problem] {link} is a symbolic link")
    report = cli_json(data, "doctor", "--json", rc=Exit.PROBLEMS)
    assert report["stopped"] == "link" and report["notebooks_checked"] == 0

    link.unlink()  # the folder back: doctor goes through, and says how many it checked
    again = ok(run_cli(data, "doctor")).stdout.splitlines()
    assert again[0] == f"Checked 1 notebook in {corpus}."
    assert cli_json(data, "doctor", "--json")["stopped"] is None


def test_doctor_stopped_by_the_disk_says_how_far_it_got(tmp_path: Path) -> None:
    """A disk that fails from doctor's first call on: its first line says it stopped there,
    and what lets it go on; --json says `disk`."""
    data = tmp_path / "data"
    cli_json(data, "commit", str(_plan(data, tmp_path)), "--json")
    corpus = Corpus.open(data)
    fsio.install_faults(fsio.FaultPlan(fail_at=1, errno=errno.EIO, persistent=True))
    try:
        report = api.check_corpus(corpus)
    finally:
        fsio.install_faults(None)
    assert report.stopped is DoctorStop.DISK and report.to_json()["stopped"] == "disk"
    assert [f.code.value for f in report.findings] == ["io_error"]
    assert _checked_words(report, corpus) == (
        f"Checked 0 notebooks in {corpus.root}, then stopped at a disk error (below). Run "
        "doctor again once the disk is sound to check them all."
    )
    again = ok(run_cli(data, "doctor")).stdout.splitlines()
    assert again[0] == f"Checked 1 notebook in {corpus.root}."
