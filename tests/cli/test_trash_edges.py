"""The trash's edges (issue #36): restore and purge asked again once done say so (exit 0) as
revert does; a purge or restore killed half way is listed by `trash` without doctor; sizes
are what the entry holds on disk; titles are shown within a bound."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from transcribe_import.engine.base.text import shown_within
from transcribe_import.engine.planning.plan import fingerprint_of

from helpers.cli import Exit, assert_doctor_clean, cli_json, ok, run_cli
from helpers.shelves import make_shelf


def _reverted(tmp_path: Path, notebooks: int = 2) -> tuple[Path, str, str]:
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    shelf = make_shelf(tmp_path / "shelf", notebooks=notebooks)
    ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
    run_id = str(cli_json(data, "commit", str(plan), "--json")["import_run_id"])
    revert_id = str(cli_json(data, "revert", run_id, "--json")["revert_id"])
    return data, run_id, revert_id


def test_restore_asked_again_after_a_kill_past_its_end_says_done_already(tmp_path: Path) -> None:
    """Main: "No trash entry ID" and exit 1, where revert says "undone already" (exit 0)."""
    data, run_id, revert_id = _reverted(tmp_path)
    killed = run_cli(data, "trash", "--restore", revert_id, crash_at="cli.after_command")
    assert killed.returncode == Exit.KILLED

    again = ok(run_cli(data, "trash", "--restore", revert_id), Exit.OK)

    assert again.stdout == (
        f"Trash entry {revert_id[:8]} has left the trash already: run {run_id[:8]} was put back "
        "from it. Nothing to do.\n"
    )
    doc = cli_json(data, "trash", "--restore", revert_id, "--json")
    assert doc == {
        "already_done": {"revert_id": revert_id, "import_run_id": run_id, "put_back": True}
    }
    assert cli_json(data, "show", run_id, "--json")["status"] == "complete"
    # Purging it now: gone already, said so.
    purge = ok(run_cli(data, "trash", "--purge", revert_id), Exit.OK)
    assert "has left the trash already" in purge.stdout
    assert_doctor_clean(data)


def test_purge_asked_again_after_a_kill_past_its_end_says_done_already(tmp_path: Path) -> None:
    data, run_id, revert_id = _reverted(tmp_path)
    killed = run_cli(data, "trash", "--purge", revert_id, crash_at="cli.after_command")
    assert killed.returncode == Exit.KILLED

    again = ok(run_cli(data, "trash", "--purge", revert_id), Exit.OK)

    assert again.stdout == (
        f"Trash entry {revert_id[:8]} (the undo of run {run_id[:8]}) was deleted for good already. "
        "Nothing to do.\n"
    )
    refused = run_cli(data, "trash", "--restore", revert_id)
    assert refused.returncode == 1 and refused.stderr == (
        f"transcribe-import: Trash entry {revert_id[:8]} was deleted for good, so run {run_id[:8]} "
        "cannot be put back from it; nothing was changed.\n"
    )
    assert_doctor_clean(data)


def test_a_purge_killed_half_way_is_listed_and_purge_again_finishes_it(tmp_path: Path) -> None:
    """Main: the hidden folder was left out of `trash` until the next doctor."""
    data, run_id, revert_id = _reverted(tmp_path)
    killed = run_cli(data, "trash", "--purge", revert_id, crash_at="trash.before_delete")
    assert killed.returncode == Exit.KILLED

    [entry] = cli_json(data, "trash", "--json")["entries"]
    assert entry["revert_id"] == revert_id and entry["state"] == "purging"
    listed = ok(run_cli(data, "trash")).stdout
    assert listed.rstrip("\n").endswith(
        f" — being deleted, stopped half way: `transcribe-import trash --purge {revert_id[:8]}` "
        "or doctor finishes it"
    )
    done = ok(run_cli(data, "trash", "--purge", revert_id[:8]))  # as the line says it
    assert done.stdout.startswith(
        f"Deleted trash entry {revert_id[:8]} (the undo of run {run_id[:8]})"
    )
    assert cli_json(data, "trash", "--json")["entries"] == []
    assert_doctor_clean(data)


def test_a_restore_killed_half_way_is_listed_and_restore_again_finishes_it(
    tmp_path: Path,
) -> None:
    data, run_id, revert_id = _reverted(tmp_path)
    killed = run_cli(data, "trash", "--restore", revert_id, crash_at="restore.after_move")
    assert killed.returncode == Exit.KILLED

    [entry] = cli_json(data, "trash", "--json")["entries"]
    assert entry["state"] == "restoring"
    assert "being put back, stopped half way" in ok(run_cli(data, "trash")).stdout
    ok(run_cli(data, "trash", "--restore", revert_id))
    assert cli_json(data, "show", run_id, "--json")["status"] == "complete"
    assert cli_json(data, "trash", "--json")["entries"] == []
    assert_doctor_clean(data)


def test_a_trash_entry_s_size_is_what_it_holds_on_disk(tmp_path: Path) -> None:
    """Main: the sources' sizes only (18 MB listed for 61 MB on disk)."""
    data, _run_id, revert_id = _reverted(tmp_path, notebooks=1)
    folder = data / "corpus" / "trash" / revert_id
    on_disk = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    renders = sum(p.stat().st_size for p in folder.rglob("renders/*") if p.is_file())
    assert renders > 0
    [entry] = cli_json(data, "trash", "--json")["entries"]
    assert entry["bytes"] == on_disk


def test_a_very_long_title_is_shown_within_a_bound(tmp_path: Path) -> None:
    """Main: a title of a million characters padded every row of `notebooks` to its width."""
    data = tmp_path / "data"
    shelf = tmp_path / "shelf"
    make_shelf(shelf, notebooks=3, pages=1)
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
    long_title = "A" * 500_000 + "middle" + "Z" * 500_000
    doc = orjson.loads(plan.read_bytes())
    doc["items"][0]["title"] = long_title
    plan.write_bytes(orjson.dumps({**doc, "plan_fingerprint": fingerprint_of(doc)}))
    cli_json(data, "commit", str(plan), "--json")

    out = ok(run_cli(data, "notebooks")).stdout

    assert len(out) < 1000, len(out)
    assert shown_within(long_title) in out
    titles = [n["title"] for n in cli_json(data, "notebooks", "--json")["notebooks"]]
    assert long_title in titles  # whole where a program reads it
    # Every other line that names it: the plan's item lines, `show` and `revert` printed the
    # whole million characters.
    [run] = cli_json(data, "runs", "--json")["runs"]
    run_id = run["import_run_id"]
    # The engine's sentences too: planning the shelf again names the notebook its pages are
    # in already (planning/reimport.py), through base/text.quoted_title.
    again = ok(run_cli(data, "plan", str(shelf), "-o", str(tmp_path / "again.json"), "--verbose"))
    assert f"“{shown_within(long_title)}”" in again.stdout + again.stderr
    assert len(again.stdout) + len(again.stderr) < 3000, len(again.stdout)
    for args in (["validate", str(plan), "--verbose"], ["show", run_id], ["revert", run_id]):
        said = ok(run_cli(data, *args))
        assert len(said.stdout) + len(said.stderr) < 3000, (args, len(said.stdout))
        assert "A" * 100 not in said.stdout, args
    assert f"“{shown_within(long_title)}”" in said.stdout  # revert's, the last


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("short", "short"),
        ("a" * 60, "a" * 60),
        ("abcdefghij" * 7, "abcdefghij" * 3 + "…" + "bcdefghij" + "abcdefghij" * 2),
    ],
)
def test_shown_within_keeps_both_ends(text: str, shown: str) -> None:
    assert shown_within(text) == shown and len(shown_within(text)) <= 60


def test_trash_shows_ids_as_runs_does_and_takes_them_back(tmp_path: Path) -> None:
    """A newcomer's path: `trash` listed whole revert and run ids, and `trash --purge
    8033a669` (the 8 characters `runs` shows of a run) said "'8033a669' is not a revert id".
    Now the list shows 8 characters of each id, and --purge and --restore take a unique
    prefix as every RUN_ID does."""
    data, run_id, revert_id = _reverted(tmp_path)
    [line] = ok(run_cli(data, "trash")).stdout.splitlines()
    assert line.startswith(f"{revert_id[:8]}  20") and revert_id not in line
    assert f"  undo of run {run_id[:8]} by " in line and run_id not in line
    refused = run_cli(data, "trash", "--purge", "0000")
    assert refused.returncode == 1 and refused.stderr == (
        "transcribe-import: No trash entry '0000': a revert id, or its first 4 characters or "
        "more, is needed; `transcribe-import trash` lists them.\n"
    )
    back = ok(run_cli(data, "trash", "--restore", revert_id[:8])).stdout
    assert back.startswith(f"Put run {run_id[:8]} back from trash entry {revert_id[:8]}: ")
    assert cli_json(data, "show", run_id[:8], "--json")["status"] == "complete"
    assert_doctor_clean(data)
