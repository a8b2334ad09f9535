"""Named crash points: where the crash tests SIGKILL a real process to prove recovery.

A point is inert unless the environment variable TRANSCRIBE_CRASH_AT names it
(``name`` or ``name:N`` for its N-th hit, counting from 1). The check is a dict
lookup, so leaving the calls in production code costs nothing measurable.
"""

from __future__ import annotations

import os
import signal
import threading

ENV = "TRANSCRIBE_CRASH_AT"

_lock = threading.Lock()
_hits: dict[str, int] = {}


def _parse(spec: str | None) -> tuple[str, int] | None:
    if not spec:
        return None
    name, _, nth = spec.partition(":")
    return name, int(nth) if nth else 1


_target = _parse(os.environ.get(ENV))


def crashpoint(name: str) -> None:
    """Kill this process with SIGKILL if the crash test asked for this point (and this hit)."""
    if _target is None or _target[0] != name:
        return
    with _lock:
        _hits[name] = _hits.get(name, 0) + 1
        if _hits[name] == _target[1]:
            os.kill(os.getpid(), signal.SIGKILL)
