"""base/progress: drive, the one loop that runs long work to its end, and Events."""

from __future__ import annotations

from collections.abc import Generator

import pytest

from transcribe_import.engine.base.progress import Events, drive


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


def test_events_pass_some_events_on_and_keep_the_result() -> None:
    def evens(work: Generator[int, None, str]) -> Generator[int, None, str]:
        events = Events(work)
        for event in events:
            if event % 2 == 0:
                yield event
        return events.result

    seen: list[int] = []
    assert drive(evens(_work(5)), seen.append) == "made 5"
    assert seen == [0, 2, 4]


def test_events_has_no_result_before_the_work_has_ended() -> None:
    events = Events(_work(1))
    with pytest.raises(AttributeError):
        _ = events.result
    assert list(events) == [0] and events.result == "made 1"
