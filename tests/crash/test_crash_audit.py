"""SIGKILL a real `transcribe-import audit`: no record it appended is lost, the next run goes on
where it stopped, and no file is checked twice in one round."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from helpers.cli import Exit, ok, run_cli
from helpers.export import make_corpus

pytestmark = [pytest.mark.crash, pytest.mark.slow]

FILES = 24  # make_corpus(pages=(6, 6)): 12 sources, 12 renders


def _lines(data: Path) -> list[bytes]:
    path = data / "corpus" / "fixity" / "events.jsonl"
    return path.read_bytes().splitlines(keepends=True) if path.exists() else []


def _checks(lines: list[bytes]) -> Counter[tuple[str, str, int]]:
    events = [json.loads(line) for line in lines]
    events = [e for e in events if e["event_type"] == "fixity_check"]
    assert all(e["outcome"] == "pass" for e in events)
    return Counter((e["notebook_id"], e["path"], e["round"]) for e in events)


@pytest.mark.parametrize(
    ("earlier_runs", "point"),
    [
        (0, "audit.after_check:5"),  # before anything was appended
        (2, "audit.after_check:5"),  # two runs recorded a file each; the third is killed
        (2, "audit.after_check:1"),  # killed on its first check
    ],
)
def test_a_killed_audit_loses_no_record_and_checks_no_file_twice(tmp_path, earlier_runs, point):
    shelf = make_corpus(tmp_path, pages=(6, 6))
    for _ in range(earlier_runs):
        ok(run_cli(shelf.data, "audit", "--budget", "1B"))
    recorded = _lines(shelf.data)
    assert len(recorded) == earlier_runs

    proc = run_cli(shelf.data, "audit", crash_at=point)

    assert proc.returncode == Exit.KILLED, proc.stderr
    assert _lines(shelf.data) == recorded  # the killed run's unappended checks only are lost
    ok(run_cli(shelf.data, "audit"), Exit.OK)
    after = _lines(shelf.data)
    assert after[: len(recorded)] == recorded  # nothing before the kill lost or rewritten
    checks = _checks(after)
    assert len(checks) == FILES and set(checks.values()) == {1}  # each once, in round 1
    assert {r for _nb, _path, r in checks} == {1}


def test_a_kill_just_after_the_last_append_keeps_every_record(tmp_path: Path):
    shelf = make_corpus(tmp_path, pages=(6, 6))

    proc = run_cli(shelf.data, "audit", crash_at="audit.after_append:1")

    assert proc.returncode == Exit.KILLED
    recorded = _lines(shelf.data)
    assert len(recorded) == FILES + 1 and set(_checks(recorded).values()) == {1}
    assert b'"event_type":"round_complete"' in recorded[-1]
    # Round 1 is complete: the next run starts round 2 and checks every file once more.
    ok(run_cli(shelf.data, "audit"), Exit.OK)
    after = _lines(shelf.data)
    assert after[: FILES + 1] == recorded
    checks = _checks(after)
    assert sorted(checks.values()) == [1] * (2 * FILES)
    assert Counter(r for _nb, _path, r in checks) == {1: FILES, 2: FILES}


def test_a_repair_killed_before_its_replace_leaves_the_file_as_it_was_and_is_done_again(
    tmp_path: Path,
):
    shelf = make_corpus(tmp_path, pages=(2,))
    bag = tmp_path / "bag"
    ok(run_cli(shelf.data, "export", "--all", "-o", str(bag)))
    first = sorted((shelf.data / "corpus" / "notebooks").glob("*/sources/*"))[0]
    good = first.read_bytes()
    first.write_bytes(b"x" + good[1:])
    ok(run_cli(shelf.data, "audit"), 1)

    proc = run_cli(
        shelf.data, "audit", "--repair-from", str(bag), crash_at="audit.repair_before_replace"
    )

    assert proc.returncode == Exit.KILLED
    assert first.read_bytes() == b"x" + good[1:]  # untouched: the copy was never renamed in
    assert [p.name for p in first.parent.iterdir() if ".tmp-" in p.name]  # its dead copy
    assert not [line for line in _lines(shelf.data) if b'"repair"' in line]
    ok(run_cli(shelf.data, "audit", "--repair-from", str(bag)))
    assert first.read_bytes() == good
    assert not [p for p in first.parent.iterdir() if ".tmp-" in p.name]
    assert len([line for line in _lines(shelf.data) if b'"event_type":"repair"' in line]) == 1
