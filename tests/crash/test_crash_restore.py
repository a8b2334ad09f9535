"""Crash safety of Trash › Restore: SIGKILL at every named point of a restore, then recover.

Run A created two notebooks and run B added two pages to the first; B is undone (its pages
go to the trash) and A is undone (its notebooks go whole). Each case kills
`transcribe-import trash --restore` at one named point (asserting it really died by
SIGKILL) and lets `doctor` or a second restore take it up. Afterwards the corpus is exactly
as it was before the undo, byte for byte; the run has its own status again, its History
says it was put back once, the trash no longer lists the entry, and `doctor` is clean.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.cli import Exit, assert_doctor_clean, cli_json, imported, notebook_files, ok, run_cli
from helpers.shelves import make_pages, make_shelf

pytestmark = pytest.mark.crash

POINTS = [
    "restore.after_request",
    "restore.after_journal",
    "restore.after_move",
    "restore.after_move:2",
    "restore.after_index",
    "restore.after_journal_restored",
    "restore.after_record",
    "trash.after_hide",
]


def _listing(data: Path) -> list[tuple[str, str, int]]:
    return [
        (n["notebook_id"], n["title"], n["page_count"])
        for n in cli_json(data, "notebooks", "--json")["notebooks"]
    ]


@pytest.mark.parametrize("which", ["whole", "added"])
@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize("recover", ["doctor", "restore"])
def test_a_restore_killed_anywhere_ends_with_the_run_back(
    tmp_path: Path, which: str, point: str, recover: str
) -> None:
    data = tmp_path / "data"
    run_a = imported(data, tmp_path, make_shelf(tmp_path / "shelf", notebooks=2))
    [first, _second] = [n[0] for n in _listing(data)]
    late = make_pages(tmp_path / "late", 2, name="late {i}.png", tag="late")[0].parent
    run_b = imported(data, tmp_path, late, mode=f"into:{first}")
    run_id = run_a if which == "whole" else run_b
    files, listing = notebook_files(data), _listing(data)
    revert_id = cli_json(data, "revert", run_b, "--json")["revert_id"]
    if which == "whole":  # B's pages stay in the trash; A's notebooks go whole
        files, listing = notebook_files(data), _listing(data)
        revert_id = cli_json(data, "revert", run_a, "--json")["revert_id"]

    killed = run_cli(data, "trash", "--restore", revert_id, crash_at=point)
    if point == "restore.after_move:2" and which == "added":
        assert killed.returncode == 0, killed.stderr  # one notebook: no second move
    else:
        assert killed.returncode == Exit.KILLED, (killed.returncode, killed.stderr)
        if recover == "doctor":
            report = cli_json(data, "doctor", "--json", rc=Exit.PROBLEMS)  # it repaired
            codes = [f["code"] for f in report["findings"]]
            assert set(codes) <= {"restore_finished", "revert_finished"}, report["findings"]
        elif point == "trash.after_hide":
            # The run was back and its entry half purged: put back already, said so (exit 0,
            # as revert; #36), the half-deleted entry listed, and doctor removes it.
            again = ok(run_cli(data, "trash", "--restore", revert_id))
            assert again.stdout.startswith(
                f"Trash entry {revert_id[:8]} has left the trash already"
            )
            entries = cli_json(data, "trash", "--json")["entries"]
            assert [e["state"] for e in entries if e["revert_id"] == revert_id] == ["purging"]
            report = cli_json(data, "doctor", "--json", rc=Exit.PROBLEMS)
            assert [f["message"] for f in report["findings"]] == [
                f"The purge of trash entry {revert_id[:8]} was interrupted; it was finished."
            ]
        else:
            ok(run_cli(data, "trash", "--restore", revert_id))

    assert notebook_files(data) == files
    assert _listing(data) == listing
    shown = cli_json(data, "show", run_id, "--json")
    assert shown["status"] == "complete"
    events = [h["event"] for h in shown["history"]]
    assert events[-2:] == ["restore_requested", "restored"]
    listed = [e["revert_id"] for e in cli_json(data, "trash", "--json")["entries"]]
    assert revert_id not in listed
    assert_doctor_clean(data)
