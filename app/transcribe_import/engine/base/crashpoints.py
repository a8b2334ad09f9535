"""Named crash points: where the crash tests SIGKILL a real process to prove recovery.

A point is inert unless the environment variable TRANSCRIBE_CRASH_AT names it
(``name`` or ``name:N`` for its N-th hit, counting from 1). The check is a dict
lookup, so leaving the calls in production code costs nothing measurable.

TRANSCRIBE_STOP_AT names points (``a,b:N``) where the process stops itself with SIGSTOP
instead, once each: a test then knows for certain where the process stands while it
sends signals or runs another command, and lets it go on with SIGCONT.
"""

from __future__ import annotations

import os
import signal
import threading

ENV = "TRANSCRIBE_CRASH_AT"
STOP_ENV = "TRANSCRIBE_STOP_AT"

_lock = threading.Lock()
_hits: dict[str, int] = {}


def _parse(spec: str | None) -> tuple[str, int] | None:
    if not spec:
        return None
    name, _, nth = spec.partition(":")
    return name, int(nth) if nth else 1


_target = _parse(os.environ.get(ENV))
_stops = dict(
    stop for spec in os.environ.get(STOP_ENV, "").split(",") if (stop := _parse(spec.strip()))
)


def crashpoint(name: str) -> None:
    """Kill this process with SIGKILL if the crash test asked for this point (and this hit);
    stop it with SIGSTOP if a test asked to hold it there."""
    if name in _stops:
        with _lock:
            _hits[name] = _hits.get(name, 0) + 1
            stop = _hits[name] == _stops[name]
        if stop:
            # Sent to this thread, so that it stops before it runs one more line: sent to
            # the process, another thread may take it, and this one runs on for a moment
            # (into the next checkpoint's journal) before the whole process is stopped.
            signal.pthread_kill(threading.get_ident(), signal.SIGSTOP)
        return
    if _target is None or _target[0] != name:
        return
    with _lock:
        _hits[name] = _hits.get(name, 0) + 1
        if _hits[name] == _target[1]:
            os.kill(os.getpid(), signal.SIGKILL)
