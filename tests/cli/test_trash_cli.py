"""`trash` lists what reverts moved out, and names an entry whose journal cannot be read."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import orjson
import pytest

from transcribe_import.cli.main import main
from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.storage import fsio

from helpers import holding
from helpers.cli import Exit, cli_json, ok, run_cli, start_cli
from helpers.shelves import make_shelf


def _in_the_trash(tmp_path: Path, pages: int) -> tuple[Path, str]:
    """A corpus (its data dir) whose one import of a notebook of ``pages`` pages was undone:
    the data dir and the trash entry's id."""
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    shelf = make_shelf(tmp_path / "shelf", notebooks=1, pages=pages)
    ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
    run_id = cli_json(data, "commit", str(plan), "--json")["import_run_id"]
    return data, str(cli_json(data, "revert", run_id, "--json")["revert_id"])


def test_trash_json_names_an_entry_it_cannot_read_beside_the_ones_it_can(tmp_path: Path) -> None:
    data, revert_id = _in_the_trash(tmp_path, pages=2)
    damaged = data / "corpus" / "trash" / new_id()
    damaged.mkdir()
    (damaged / "revert.json").write_bytes(b"{ not json")

    listing = cli_json(data, "trash", "--json", rc=Exit.PROBLEMS)

    assert [e["revert_id"] for e in listing["entries"]] == [revert_id]
    [problem] = listing["problems"]
    assert problem["code"] == "corpus_invalid"
    assert problem["path"] == str(damaged / "revert.json")
    assert "cannot be read" in problem["message"]
    # The words name it too, and exit the same way.
    words = ok(run_cli(data, "trash"), Exit.PROBLEMS).stdout
    assert words.startswith(f"{revert_id[:8]}  ") and f"PROBLEM {damaged / 'revert.json'}" in words


@pytest.mark.parametrize(
    ("err", "code"),
    [(errno.EIO, "io_error"), (errno.ENOSPC, "disk_full"), (errno.EACCES, "permission_denied")],
)
def test_a_journal_the_disk_fails_to_read_is_a_disk_error_not_a_damaged_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], err: int, code: str
) -> None:
    """Main (#36): a journal the disk failed to read was filed `corpus_invalid` (as if it were
    damaged); and `trash --restore` failing to look at the trash folder at all left a raw
    OSError to the last resort. Both are the disk's, coded as every command codes it."""
    data, revert_id = _in_the_trash(tmp_path, pages=1)
    journal = data / "corpus" / "trash" / revert_id / "revert.json"
    trash_dir = data / "corpus" / "trash"
    real = fsio._tick
    for args, path, failing in (
        (["trash", "--json"], journal, "open_read"),
        (["trash", "--restore", revert_id], trash_dir, "stat"),
    ):

        def tick(op: str, where: object, path: Path = path, failing: str = failing) -> None:
            if op == failing and str(where) == str(path):
                raise OSError(err, os.strerror(err), str(where))
            real(op, where)

        with pytest.MonkeyPatch.context() as m:
            m.setattr(fsio, "_tick", tick)
            rc = main(["--data-dir", str(data), *args])
        out, said = capsys.readouterr()
        assert rc == Exit.PROBLEMS, (args, out, said)
        if args[-1] == "--json":
            [problem] = orjson.loads(out)["problems"]
            assert problem["code"] == code and problem["path"] == str(journal), problem
        else:
            [line] = said.splitlines()
            assert line.startswith("transcribe-import: ") and str(trash_dir) in line, line
            assert "reading the trash entry at" in line and "nothing was changed" in line, line
    # The disk sound again, the entry is whole and is put back.
    ok(run_cli(data, "trash", "--restore", revert_id))


def test_a_purge_asked_while_another_is_deleting_the_entry_says_so_and_changes_nothing(
    tmp_path: Path,
) -> None:
    """Main (#36): "Another process is deleting trash entry …" was said also when the one
    deleting it was the window's own check of the corpus. A purge held (SIGSTOP) while it
    deletes the entry: a second purge of it says who may be deleting it and exits 5, the
    first then finishes, and asked again it is done already."""
    data, revert_id = _in_the_trash(tmp_path, pages=1)
    first = start_cli(
        data, "trash", "--purge", revert_id, env=holding.stop_at("trash.before_delete")
    )
    try:
        holding.wait_stopped(first)  # the entry hidden, the purge lock held
        second = ok(run_cli(data, "trash", "--purge", revert_id), Exit.LOCKED)
        [line] = second.stderr.splitlines()
        assert line == (
            f"transcribe-import: Trash entry {revert_id[:8]} is being deleted right now (by "
            "another purge, or by doctor or the window's check of the corpus finishing one); "
            "wait for it: the entry is gone once that ends."
        ), line
        holding.go_on(first)
    finally:
        holding.finish(first)
    assert first.returncode == Exit.OK
    assert list((data / "corpus" / "trash").iterdir()) == []
    again = ok(run_cli(data, "trash", "--purge", revert_id))
    assert "already" in again.stdout, again.stdout
