"""What `watch` says of each drop record: every state in its words (cli/watch.record_line)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from transcribe_import.cli.watch import record_line
from transcribe_import.engine import api

BASE = api.DropRecord(
    "/mnt/share", "Box 1", api.DropKind.FOLDER, api.DropState.FOUND, "0" * 64, 0.0, "2026-01-02"
)


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({}, "Box 1 in /mnt/share: found (folder); taken once it is whole"),
        ({"state": api.DropState.WAITING}, "Box 1 in /mnt/share: still changing; waiting"),
        (
            {
                "state": api.DropState.WAITING,
                "code": "bag_hash_mismatch",
                "message": "x.png differs from its manifest (code bag_hash_mismatch).",
            },
            "Box 1 in /mnt/share: its check refused it (x.png differs from its manifest (code "
            "bag_hash_mismatch).); refused if it stays so",
        ),
        (
            {"state": api.DropState.COMMITTING, "plan_id": "p1"},
            "Box 1 in /mnt/share: whole and clear; importing it (plan p1)",
        ),
        (
            {"state": api.DropState.IMPORTED, "run_id": "r1", "moved_to": "/mnt/share/.imported/B"},
            "Box 1 in /mnt/share: imported as run r1; moved to /mnt/share/.imported/B",
        ),
        (
            {"state": api.DropState.IMPORTED, "run_id": "r1"},
            "Box 1 in /mnt/share: imported as run r1; left where it is",
        ),
        (
            {"state": api.DropState.NEEDS_REVIEW, "message": "“Box 1”: a rescan?"},
            "Box 1 in /mnt/share: needs a decision: “Box 1”: a rescan?",
        ),
        (
            {
                "state": api.DropState.REFUSED,
                "message": "no page file",
                "moved_to": "/mnt/share/.refused/Box 1",
            },
            "Box 1 in /mnt/share: refused: no page file; moved to /mnt/share/.refused/Box 1 with "
            "a README",
        ),
        (
            {"state": api.DropState.TAKEN_ELSEWHERE, "message": "another corpus's watcher took it"},
            "Box 1 in /mnt/share: another corpus's watcher took it; left alone",
        ),
    ],
)
def test_each_state_is_said_in_words(changes: dict[str, object], said: str) -> None:
    assert record_line(replace(BASE, **changes), api.short_id) == said  # type: ignore[arg-type]


def test_every_state_has_its_words() -> None:
    words = {record_line(replace(BASE, state=s, message="m"), api.short_id) for s in api.DropState}
    assert len(words) == len(api.DropState)
