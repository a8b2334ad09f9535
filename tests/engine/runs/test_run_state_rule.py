"""The one rule for a run's state: how live, paused, interrupted and ended are told apart."""

from __future__ import annotations

import pytest

from transcribe_import.engine.api import RunState
from transcribe_import.engine.api.run_state import run_state
from transcribe_import.engine.runs.model import RunStatus


@pytest.mark.parametrize(
    ("status", "locked", "paused", "state"),
    [
        (RunStatus.RUNNING, True, False, RunState.LIVE),  # a process executes it
        (RunStatus.PENDING, True, False, RunState.LIVE),  # claimed, not started yet
        (RunStatus.RUNNING, False, False, RunState.INTERRUPTED),  # a crash: no process
        (RunStatus.RUNNING, False, True, RunState.PAUSED),
        # Paused, its process still letting go of the lock: paused, as `runs` and `show` say.
        (RunStatus.RUNNING, True, True, RunState.PAUSED),
        (RunStatus.COMPLETE, False, False, RunState.ENDED),
        (RunStatus.CANCELLED, True, False, RunState.ENDED),  # ended before the lock went
    ],
)
def test_the_state_of_a_run(status: RunStatus, locked: bool, paused: bool, state: RunState) -> None:
    assert run_state(status, locked=locked, paused=paused) is state


def test_a_paused_or_interrupted_run_is_resumable_and_no_other() -> None:
    assert [s for s in RunState if s.resumable] == [RunState.PAUSED, RunState.INTERRUPTED]
