"""`transcribe-import watch` as real processes: slow writers, kills, two watchers, two stations.

The writers are driven a file at a time and the watcher runs one pass (`--once`) between two
steps, so "nothing is planned until the drop is whole" is checked at every step, with no
sleep: `--settle 0` means unchanged from one pass to the next.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest

from helpers.cli import TIMEOUT, Exit, assert_doctor_clean, cli_json, ok, run_cli, start_cli
from helpers.shelves import make_pages, make_shelf


def once(data: Path, share: Path, *extra: str, crash_at: str | None = None) -> Any:
    """One pass of the watcher, as a process: its result (a killed one's too)."""
    return run_cli(data, "watch", str(share), "--once", "--settle", "0", *extra, crash_at=crash_at)


def once_json(data: Path, share: Path) -> dict[str, Any]:
    return cli_json(data, "watch", str(share), "--once", "--settle", "0", "--json")


def notebooks(data: Path) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = cli_json(data, "notebooks", "--json")["notebooks"]
    return listed


def runs(data: Path) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = cli_json(data, "runs", "--json")["runs"]
    return listed


def page_ids(data: Path) -> dict[str, list[str]]:
    """Each notebook's page ids, in order, read from its project.json."""
    root = data / "corpus" / "notebooks"
    out = {}
    for project in sorted(root.glob("*/project.json")):
        doc = orjson.loads(project.read_bytes())
        out[doc["id"]] = [p["id"] for p in doc["pages"]]
    return out


def export(station: Path, out: Path) -> subprocess.Popen[str]:
    return start_cli(station, "export", "--all", "-o", str(out))


def station(tmp: Path, name: str, notebooks: int = 2, pages: int = 3) -> Path:
    """A scanning station's corpus holding ``notebooks`` notebooks of ``pages`` pages each."""
    data = tmp / name
    shelf = make_shelf(tmp / f"{name}-shelf", notebooks, pages, tag=f"{name}-")
    plan = tmp / f"{name}-plan.json"
    ok(run_cli(data, "plan", *(str(p) for p in sorted(shelf.iterdir())), "-o", str(plan)))
    ok(run_cli(data, "commit", str(plan)))
    return data


def copy_slowly(steps: list[tuple[Path, Path]], data: Path, share: Path, drop: str) -> None:
    """Copy each file in two halves, a watcher's pass after each half: ``drop`` is never
    planned while it is written (the last file's second half is left to the caller)."""
    for n, (source, target) in enumerate(steps):
        target.parent.mkdir(parents=True, exist_ok=True)
        whole = source.read_bytes()
        target.write_bytes(whole[: len(whole) // 2])  # a file half copied
        out = ok(once(data, share)).stdout
        assert f"{drop} in {share}: whole" not in out, (target, out)
        target.write_bytes(whole)
        if n < len(steps) - 1:
            out = ok(once(data, share)).stdout
            assert f"{drop} in {share}: whole" not in out, (target, out)
    assert runs(data) == []


@pytest.mark.slow
def test_a_slow_writer_s_folder_and_bag_are_planned_only_once_whole(tmp_path: Path) -> None:
    data, share = tmp_path / "archive", tmp_path / "share"
    share.mkdir()
    pages = make_pages(tmp_path / "scans" / "Box 1", 3)
    copy_slowly([(p, share / "Box 1" / p.name) for p in pages], data, share, "Box 1")
    # Whole now, but a folder is taken only once a pass has seen it unchanged.
    assert "Box 1 in " + str(share) + ": still changing; waiting" in ok(once(data, share)).stdout
    assert runs(data) == []
    out = ok(once(data, share)).stdout
    assert f"Box 1 in {share}: imported as run" in out
    assert f"moved to {share / '.imported' / 'Box 1'}" in out

    bag_source = tmp_path / "bag"
    made = station(tmp_path, "station", notebooks=1, pages=2)
    ok(run_cli(made, "export", "--all", "-o", str(bag_source)))
    before = runs(data)
    files = sorted(p for p in bag_source.rglob("*") if p.is_file())
    steps = [(p, share / "bag" / p.relative_to(bag_source)) for p in files]
    for n, (source, target) in enumerate(steps):
        target.parent.mkdir(parents=True, exist_ok=True)
        whole = source.read_bytes()
        target.write_bytes(whole[: len(whole) // 2])
        out = ok(once(data, share)).stdout
        assert f"bag in {share}: whole" not in out, (target, out)
        target.write_bytes(whole)
        out = ok(once(data, share)).stdout
        if n < len(steps) - 1:
            assert f"bag in {share}: whole" not in out, (target, out)
            assert runs(data) == before
    # The bag's last file: every file is there with the size bag-info.txt says, taken at once.
    assert f"bag in {share}: imported as run" in out
    assert f"moved to {share / '.imported' / 'bag'}" in out
    archive_ids = page_ids(data)
    for nbid, ids in page_ids(tmp_path / "station").items():
        assert archive_ids[nbid] == ids  # the bag's notebooks keep their ids, pages too
    assert len(archive_ids) == 2
    assert sorted(p.name for p in share.iterdir()) == [".imported", ".transcribe-watch"]
    assert_doctor_clean(data)


# Every point a watcher can be killed at while it takes a drop: its own, and its run's.
KILL_POINTS = [
    "watch.claimed",
    "watch.plan_kept",
    "watch.committing",
    "run.after_item_outcome",
    "run.after_terminal",
    "watch.run_ended",
    "watch.imported",
    "watch.moved",
    # the same points while it takes the second drop, the first one done
    "watch.committing:2",
    "run.after_terminal:2",
    "watch.moved:2",
]


@pytest.fixture(scope="module")
def station_bag(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list[str]]]:
    """A bag a station exported (made once for the module): its path and its page ids."""
    tmp = tmp_path_factory.mktemp("station")
    made = station(tmp, "station", notebooks=1, pages=2)
    ok(run_cli(made, "export", "--all", "-o", str(tmp / "bag")))
    return tmp / "bag", page_ids(made)


@pytest.mark.crash
@pytest.mark.slow
@pytest.mark.parametrize("point", KILL_POINTS)
def test_a_watcher_killed_anywhere_imports_each_drop_once_when_started_again(
    tmp_path: Path, point: str, station_bag: tuple[Path, dict[str, list[str]]]
) -> None:
    data, share = tmp_path / "archive", tmp_path / "share"
    make_shelf(share, 1, 3)
    (share / "notebook 1" / ".done").write_bytes(b"")
    bag, bag_ids = station_bag
    shutil.copytree(bag, share / "bag")
    killed = once(data, share, crash_at=point)
    assert killed.returncode == Exit.KILLED, (killed.stdout, killed.stderr)
    ok(once(data, share))
    ok(once(data, share))  # a second pass finds nothing left to do
    listed = notebooks(data)
    assert sorted(n["title"] for n in listed) == ["notebook 1", "notebook 1"]  # a shelf each
    assert sorted(n["page_count"] for n in listed) == [2, 3]
    held = page_ids(data)
    for nbid, ids in bag_ids.items():
        assert held[nbid] == ids  # the bag's notebook with its ids, each page once
    assert all(r["status"] == "complete" for r in runs(data))
    assert sorted(p.name for p in (share / ".imported").iterdir()) == ["bag", "notebook 1"]
    assert sorted(p.name for p in share.iterdir()) == [".imported", ".transcribe-watch"]
    log = cli_json(data, "watch", "--log", "--json")["records"]
    latest = {r["name"]: r for r in log}
    assert {r["state"] for r in latest.values()} == {"imported"}
    assert sum(r["state"] == "imported" for r in log) == 2  # each drop imported once
    assert_doctor_clean(data)


@pytest.mark.slow
@pytest.mark.parametrize("corpora", ["two corpora", "one corpus"])
@pytest.mark.parametrize("leave", [False, True])
def test_two_watchers_racing_on_one_share_take_each_drop_once(
    tmp_path: Path, corpora: str, leave: bool
) -> None:
    """Two archive machines on one share by mistake (two corpora), or a watcher started
    twice (one corpus): each drop is imported once between them."""
    share = tmp_path / "share"
    make_shelf(share, 4, 2)
    for folder in share.iterdir():
        (folder / ".done").write_bytes(b"")
    first = tmp_path / "first"
    second = tmp_path / "second" if corpora == "two corpora" else first
    argv = ("watch", str(share), "--once", "--settle", "0", *(["--leave-imported"] * leave))
    racing = [start_cli(first, *argv), start_cli(second, *argv)]
    for proc in racing:
        out, err = proc.communicate(timeout=TIMEOUT)
        assert proc.returncode in (Exit.OK, Exit.PROBLEMS), err  # 1: a drop busy this pass
    for data in {first, second}:
        ok(run_cli(data, *argv))
        ok(run_cli(data, *argv))  # nothing left to do
    took_first = [n["title"] for n in notebooks(first)]
    took_second = [n["title"] for n in notebooks(second)] if second != first else []
    assert sorted(took_first + took_second) == [f"notebook {n}" for n in range(1, 5)]
    runs_made = runs(first) + (runs(second) if second != first else [])
    assert len(runs_made) == 4 and all(r["status"] == "complete" for r in runs_made)
    kept = share / ".imported" if not leave else share
    assert sorted(p.name for p in kept.iterdir() if not p.name.startswith(".")) == [
        f"notebook {n}" for n in range(1, 5)
    ]


@pytest.mark.slow
def test_a_refused_drop_and_one_that_needs_a_decision(tmp_path: Path) -> None:
    data, share = tmp_path / "archive", tmp_path / "share"
    (share / "Notes").mkdir(parents=True)
    (share / "Notes" / "notes.txt").write_text("box 3\n")
    make_pages(share / "Box 2", 2, name="{i}.jpg")
    make_pages(share / "Box 2", 1, name="0{i}.jpg", tag="again-")  # 1.jpg and 01.jpg
    first = once_json(data, share)
    assert [(r["name"], r["state"]) for r in first["records"]] == [
        ("Box 2", "found"),
        ("Notes", "found"),
    ]
    out = ok(once(data, share)).stdout
    assert f"Notes in {share}: refused: " in out
    assert f"moved to {share / '.refused' / 'Notes'} with a README" in out
    assert f"Box 2 in {share}: needs a decision: " in out
    readme = (share / ".refused" / "Notes.README.txt").read_text()
    assert "(nothing_to_import)" in readme and "holds no page file" in readme
    queue = cli_json(data, "watch", "--queue", "--json")["queue"]
    assert [q["name"] for q in queue] == ["Box 2"]
    draft = Path(queue[0]["draft"])
    assert draft.is_file()
    said = ok(run_cli(data, "watch", "--queue")).stdout
    assert f"Box 2 in {share}" in said and str(draft) in said
    # A person settles it from the CLI: the draft is a plan file.
    item = orjson.loads(draft.read_bytes())["items"][0]["item_id"]
    ok(run_cli(data, "order", str(draft), item, "--by", "name"))
    ok(run_cli(data, "commit", str(draft)))
    out = ok(once(data, share)).stdout
    assert f"Box 2 in {share}: imported as run" in out
    assert ok(run_cli(data, "watch", "--queue")).stdout == "No drop waits for a decision.\n"
    log = ok(run_cli(data, "watch", "--log")).stdout.splitlines()
    assert [line[21:] for line in log][-1].startswith(f"Box 2 in {share}: imported as run")


def test_a_folder_that_cannot_be_read_is_said_and_the_pass_exits_1(tmp_path: Path) -> None:
    proc = ok(once(tmp_path / "archive", tmp_path / "gone"), Exit.PROBLEMS)
    assert f"{tmp_path / 'gone'} cannot be read (No such file or directory)" in proc.stderr


def test_options_that_do_not_go_together_are_usage_errors(tmp_path: Path) -> None:
    data = tmp_path / "archive"
    for argv, words in [
        (("watch",), "name the folders to watch"),
        (("watch", "--queue", "--log"), "give --queue or --log, not both"),
        (("watch", str(tmp_path), "--json"), "--json goes with --once"),
        (("watch", str(tmp_path), "--interval", "0"), "--interval more than 0"),
    ]:
        proc = ok(run_cli(data, *argv), 2)
        assert words in proc.stderr


@pytest.mark.slow
def test_watch_runs_until_sigterm_and_stops_cleanly(tmp_path: Path) -> None:
    data, share = tmp_path / "archive", tmp_path / "share"
    make_shelf(share, 1, 2)
    (share / "notebook 1" / ".done").write_bytes(b"")
    proc = start_cli(data, "watch", str(share), "--interval", "0.05", "--settle", "0")
    assert proc.stdout is not None
    lines = []
    while not any("imported as run" in line for line in lines):
        line = proc.stdout.readline()
        assert line, proc.communicate(timeout=TIMEOUT)
        lines.append(line)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == Exit.OK, err
    assert err.startswith(f"Watching {share} every 0.05 s (settle time 0 s); Ctrl-C stops.\n")
    assert err.endswith(
        "Stopped watching; a drop being imported is taken up where it was by the next watch.\n"
    )
    assert [n["title"] for n in notebooks(data)] == ["notebook 1"]


@pytest.mark.slow
def test_two_stations_export_into_one_share_and_the_archive_takes_every_page_once(
    tmp_path: Path,
) -> None:
    stations = [station(tmp_path, "north"), station(tmp_path, "south")]
    share, archive = tmp_path / "share", tmp_path / "archive"
    share.mkdir()
    watcher = start_cli(archive, "watch", str(share), "--interval", "0.05", "--settle", "0")
    exports = [export(s, share / f"{s.name}-bag") for s in stations]
    for proc in exports:
        out, err = proc.communicate(timeout=TIMEOUT)
        assert proc.returncode == Exit.OK, err
    assert watcher.stdout is not None
    imported: list[str] = []
    while len(imported) < 2:
        line = watcher.stdout.readline()
        assert line, watcher.communicate(timeout=TIMEOUT)
        assert "refused" not in line, line
        if "imported as run" in line:
            imported.append(line)
    watcher.send_signal(signal.SIGTERM)
    _, err = watcher.communicate(timeout=TIMEOUT)
    assert watcher.returncode == Exit.OK, err
    expected: dict[str, list[str]] = {}
    for s in stations:
        expected.update(page_ids(s))
    assert page_ids(archive) == expected  # every page once, with its ids
    assert len(expected) == 4 and all(len(ids) == 3 for ids in expected.values())
    assert sorted(p.name for p in (share / ".imported").iterdir()) == ["north-bag", "south-bag"]
    assert_doctor_clean(archive)
    shutil.rmtree(share / ".imported")  # nothing left in the share but the watch's own
    assert sorted(p.name for p in share.iterdir()) == [".transcribe-watch"]


@pytest.mark.slow
def test_notify_tells_the_desktop_of_a_drop_that_waits(tmp_path: Path) -> None:
    import os

    data, share = tmp_path / "archive", tmp_path / "share"
    make_pages(share / "Box 3", 2, name="{i}.jpg")
    make_pages(share / "Box 3", 1, name="0{i}.jpg", tag="again-")
    (share / "Box 3" / ".done").write_bytes(b"")
    bin_dir, told = tmp_path / "bin", tmp_path / "told.txt"
    bin_dir.mkdir()
    fake = bin_dir / "notify-send"  # the desktop's own command, as a recorder
    fake.write_text(f'#!/bin/sh\nfor a in "$@"; do echo "$a" >> "{told}"; done\n')
    fake.chmod(0o755)
    path = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    argv = ("watch", str(share), "--once", "--settle", "0", "--notify")
    ok(run_cli(data, *argv, env=path))
    queued = cli_json(data, "watch", "--queue", "--json")["queue"]
    assert told.read_text().splitlines() == [
        "--app-name=Transcribe Import",
        "A dropped folder needs a decision",
        f"Box 3 in {share}: {queued[0]['message']} (transcribe-import watch --queue)",
    ]
    # Without the command, it says so once and watches all the same.
    proc = ok(run_cli(data, *argv, env={"PATH": str(tmp_path / "empty")}))
    assert "--notify: this system has no notify-send" in proc.stderr
