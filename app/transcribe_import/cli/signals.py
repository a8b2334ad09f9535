"""The one way a command answers signals: handlers for a block, the earlier ones back after it.

Ctrl-C stops a scan; Ctrl-C cancels a run and SIGTERM or SIGHUP pause it; any of the three ends
an export cleanly. Python lets only the main thread install a handler, so a command run on
another thread (a test driving ``main`` in-process) installs none and keeps the defaults.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator, Mapping

# The signals a long command turns into a stop: Ctrl-C, a kill, a closed terminal.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def handling(handlers: Mapping[signal.Signals, Callable[[], object]]) -> Iterator[None]:
    """Call ``handlers[sig]()`` on each of these signals while the block runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {sig: signal.getsignal(sig) for sig in handlers}
    try:
        for sig, handler in handlers.items():
            signal.signal(sig, lambda *_, call=handler: call())
        yield
    finally:
        for sig, old in saved.items():
            signal.signal(sig, old)
