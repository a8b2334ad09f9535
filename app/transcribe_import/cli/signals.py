"""The one way a command answers signals: handlers for a block, the earlier ones back after it.

Ctrl-C stops a scan; Ctrl-C cancels a run and SIGTERM or SIGHUP pause it; any of the three ends
an export cleanly or stops a revert at a safe point. Python lets only the main thread install a
handler, so a command run on another thread (a test driving ``main`` in-process) installs none
and keeps the defaults.

Once a block has answered a signal, the command is on its way out with the exit code that
signal chose: a second one, during the block or after it (while the summary is printed), is
answered like the first and never kills the process with another code. ``command`` puts the
earlier handlers back when the command returns.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator, Mapping

# The signals a long command turns into a stop: Ctrl-C, a kill, a closed terminal.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _on_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _already_stopping(*_: object) -> None:
    """A stop signal after the command's block answered one: the command is ending as asked."""


@contextlib.contextmanager
def command() -> Iterator[None]:
    """The whole of one command: the handlers it found are back when it returns."""
    if not _on_main_thread():
        yield
        return
    saved = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, old in saved.items():
            signal.signal(sig, old)


@contextlib.contextmanager
def handling(handlers: Mapping[signal.Signals, Callable[[], object]]) -> Iterator[None]:
    """Call ``handlers[sig]()`` on each of these signals while the block runs."""
    if not _on_main_thread():
        yield
        return
    saved = {sig: signal.getsignal(sig) for sig in handlers}
    answered = threading.Event()

    def answer(call: Callable[[], object]) -> None:
        answered.set()
        call()

    try:
        for sig, handler in handlers.items():
            signal.signal(sig, lambda *_, call=handler: answer(call))
        yield
    finally:
        for sig, old in saved.items():
            signal.signal(sig, old)
        if answered.is_set():  # a later signal must not undo that answer (``command``)
            for sig in STOP_SIGNALS:
                signal.signal(sig, _already_stopping)
