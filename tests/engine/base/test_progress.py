"""base/progress.drive: the one loop that runs long work to its end."""

from __future__ import annotations

from collections.abc import Generator

import pytest

from transcribe_import.engine.base.progress import drive


def _work(n: int) -> Generator[int, None, str]:
    yield from range(n)
    return f"made {n}"


def test_every_event_is_handed_on_in_order_and_the_result_returned() -> None:
    seen: list[int] = []
    assert drive(_work(3), seen.append) == "made 3"
    assert seen == [0, 1, 2]


def test_without_a_listener_the_work_still_runs_to_its_end() -> None:
    assert drive(_work(2)) == "made 2"


def test_an_error_of_the_work_reaches_the_caller_after_the_events_before_it() -> None:
    def failing() -> Generator[str, None, None]:
        yield "first"
        raise ValueError("the disk went away")

    seen: list[str] = []
    with pytest.raises(ValueError, match="the disk went away"):
        drive(failing(), seen.append)
    assert seen == ["first"]
