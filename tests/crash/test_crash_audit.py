"""SIGKILL a real `transcribe-import audit`: no record it appended is lost, the next run goes on
where it stopped, and no file is checked twice in one round."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from helpers.cli import EXIT_OK, SIGKILLED, ok, run_cli
from helpers.export import make_corpus

pytestmark = [pytest.mark.crash, pytest.mark.slow]


def _lines(data: Path) -> list[bytes]:
    path = data / "corpus" / "fixity" / "events.jsonl"
    return path.read_bytes().splitlines(keepends=True) if path.exists() else []


@pytest.mark.parametrize(
    ("point", "recorded"),
    [
        ("audit.after_check:20", 16),  # mid-batch: the first batch of 16 is on disk
        ("audit.after_append:1", 16),  # just after the first batch's fsync
        ("audit.after_check:3", 0),  # before any append
    ],
)
def test_a_killed_audit_loses_no_record_and_checks_no_file_twice(tmp_path, point, recorded):
    shelf = make_corpus(tmp_path, pages=(6, 6))  # 24 files

    proc = run_cli(shelf.data, "audit", crash_at=point)

    assert proc.returncode == SIGKILLED, proc.stderr
    before = _lines(shelf.data)
    assert len(before) == recorded
    ok(run_cli(shelf.data, "audit"), EXIT_OK)
    after = _lines(shelf.data)
    assert after[: len(before)] == before  # nothing before the kill was lost or rewritten
    events = [json.loads(line) for line in after]
    assert all(e["round"] == 1 and e["outcome"] == "pass" for e in events)
    counts = Counter((e["notebook_id"], e["path"]) for e in events)
    assert len(counts) == 24 and set(counts.values()) == {1}
