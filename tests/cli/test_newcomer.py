"""A newcomer's path: ids shortened and named back alike, --data-dir anywhere, no display told in
words (issues #25, #37)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.cli import Exit, cli_json, ok, run_cli
from helpers.shelves import make_shelf


def _runs(tmp_path: Path, n: int) -> tuple[Path, list[str]]:
    data = tmp_path / "data"
    ids = []
    for k in range(n):
        plan = tmp_path / f"plan{k}.json"
        shelf = make_shelf(tmp_path / f"shelf{k}", 1, 1, tag=f"s{k}")
        ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
        ids.append(cli_json(data, "commit", str(plan), "--json")["import_run_id"])
    return data, ids


@pytest.mark.slow
def test_a_run_id_may_be_given_by_a_unique_prefix_to_every_command(tmp_path: Path) -> None:
    data, [run_id] = _runs(tmp_path, 1)
    short = run_id[:8]

    assert cli_json(data, "show", short, "--json")["import_run_id"] == run_id
    resumed = ok(run_cli(data, "resume", short)).stdout
    assert resumed.startswith(f"Run {short} had already ended") and run_id not in resumed
    preview = cli_json(data, "revert", short.upper(), "--dry-run", "--json")
    assert preview["import_run_id"] == run_id
    assert cli_json(data, "revert", short, "--json")["import_run_id"] == run_id
    cancel = ok(run_cli(data, "cancel", short), Exit.PROBLEMS)
    said = cancel.stdout + cancel.stderr
    assert f"Run {short} already ended (reverted); there is nothing to cancel." in said
    assert run_id not in said


def test_show_names_each_notebook_by_the_8_characters_notebooks_shows(tmp_path: Path) -> None:
    data, [run_id] = _runs(tmp_path, 1)
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    listed = ok(run_cli(data, "notebooks")).stdout
    assert listed.startswith(f"{nb['notebook_id'][:8]}  ")

    shown = ok(run_cli(data, "show", run_id[:8])).stdout
    assert f": 1 page into {nb['notebook_id'][:8]}\n" in shown
    assert nb["notebook_id"] not in shown  # the same 8 characters, not the whole id


@pytest.mark.slow
def test_a_prefix_naming_no_run_or_several_is_refused_in_words(tmp_path: Path) -> None:
    data, ids = _runs(tmp_path, 2)

    unknown = ok(run_cli(data, "show", "ffffffff"), Exit.PROBLEMS).stderr
    assert "No import run 'ffffffff'" in unknown and "`transcribe-import runs`" in unknown
    assert "lower-case UUID" not in unknown
    too_short = ok(run_cli(data, "show", ids[0][:3]), Exit.PROBLEMS).stderr
    assert "4 characters or more" in too_short

    # Two runs sharing a prefix: written so by hand, as ids are random.
    runs_dir = data / "corpus" / "import-runs"
    twin = ids[0][:9] + "0000-4000-8000-000000000000"  # a valid id: the record is read
    assert len(twin) == 36
    record = (runs_dir / f"{ids[1]}.json").read_text(encoding="utf-8")
    (runs_dir / f"{twin}.json").write_text(record.replace(ids[1], twin), encoding="utf-8")
    both = ok(run_cli(data, "show", ids[0][:8]), Exit.PROBLEMS).stderr
    assert f"'{ids[0][:8]}' begins 2 import runs" in both
    assert ids[0] in both and twin in both and "give more of the run id" in both

    # Every line tells the two apart, each by a prefix that names it back alone.
    apart = len(os.path.commonprefix([ids[0], twin])) + 1
    listed = [line.split()[0] for line in ok(run_cli(data, "runs")).stdout.splitlines()]
    assert sorted(listed) == sorted([ids[0][:apart], twin[:apart], ids[1][:8]])
    shown = ok(run_cli(data, "show", ids[0][:apart])).stdout
    assert shown.startswith(f"Run {ids[0][:apart]} — complete")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the rule is Linux's")
def test_the_window_without_a_display_says_so_and_exits_2(tmp_path: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}
        and not k.startswith("TRANSCRIBE_")
    }
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    proc = subprocess.run(
        [sys.executable, "-m", "transcribe_import", "--data-dir", str(tmp_path / "data")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == Exit.USAGE, (proc.returncode, proc.stderr)
    assert proc.stderr.startswith("transcribe-import: there is no display to open the window")
    assert "`transcribe-import --help`" in proc.stderr
    assert "xcb" not in proc.stderr and proc.stdout == ""
    assert not (tmp_path / "data").exists()  # nothing was opened or made


@pytest.mark.slow
def test_the_lists_show_8_characters_and_every_command_takes_them_back(tmp_path: Path) -> None:
    data, [run_id] = _runs(tmp_path, 1)
    [notebook] = cli_json(data, "notebooks", "--json")["notebooks"]
    nbid, title = notebook["notebook_id"], notebook["title"]

    [line] = ok(run_cli(data, "runs")).stdout.splitlines()
    assert line.startswith(f"{run_id[:8]}  ") and run_id not in line
    [listed] = ok(run_cli(data, "notebooks")).stdout.splitlines()
    assert listed.startswith(f"{nbid[:8]}  {title}") and nbid not in listed
    # What the lists (and the window's notebooks) show names the notebook back, as its title does.
    for key in (nbid[:8], title, nbid):
        shown = cli_json(data, "notebooks", key, "--json")
        assert shown["notebook_id"] == nbid and len(shown["pages"]) == 1
    pages = ok(run_cli(data, "notebooks", nbid[:8])).stdout
    assert pages.startswith(f"Notebook {nbid[:8]}: 1 page.") and nbid not in pages
    unknown = run_cli(data, "notebooks", "Letters")
    assert unknown.returncode == Exit.USAGE
    assert "the corpus has no notebook 'Letters': name it by its id, the start of its id" in (
        unknown.stderr
    )


@pytest.mark.slow
def test_data_dir_is_taken_after_the_command_too(tmp_path: Path) -> None:
    data, [run_id] = _runs(tmp_path, 1)
    after = run_cli(None, "runs", "--json", "--data-dir", str(data))
    assert after.returncode == 0, after.stderr
    assert [r["import_run_id"] for r in json.loads(after.stdout)["runs"]] == [run_id]
    # Given in both places, the one after the command wins.
    empty = tmp_path / "empty"
    both = run_cli(None, "--data-dir", str(empty), "runs", "--data-dir", str(data))
    assert both.returncode == 0 and both.stdout.startswith(run_id[:8]), both.stderr
    assert not empty.exists()
