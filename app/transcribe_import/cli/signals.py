"""The one way a command answers signals: handlers for a block, the earlier ones back after it.

Ctrl-C stops a scan; Ctrl-C cancels a run and SIGTERM or SIGHUP pause it; any of the three ends
an export cleanly or stops a revert at a safe point. Python lets only the main thread install a
handler, so a command run on another thread (a test driving ``main`` in-process) installs none
and keeps the defaults.

Once a block has answered a signal, the command is on its way out with the exit code that
signal chose: a second one, during the block or after it (while the summary is printed), is
answered like the first and never kills the process with another code. ``command`` puts the
earlier handlers back when the command returns.

Python runs a handler only on the main thread, while the kernel hands a process's signal to
any of its threads that does not block it. A command whose work runs on threads of its own
(a commit's lanes) runs it through ``answered_at_once``, so that the main thread is the one
that takes the signal and answers it at once.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import TypeVar

T = TypeVar("T")

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


def answered_at_once(work: Callable[[], T]) -> T:
    """``work()``, run on a thread of its own while the main thread waits for it and
    answers the stop signals the moment they come.

    Why: a handler set by ``handling`` runs when the main thread next runs Python code. A
    commit's main thread waits for its lanes, and a signal the kernel gave to another
    thread (libvips keeps idle workers; after the process was stopped, whichever thread
    goes on first takes a signal sent meanwhile) was answered only once the lane ended: a
    Ctrl-C between two checkpoints let the rest of the notebook land. ``work``'s thread,
    and every thread it starts (they inherit its mask), block the stop signals, so the
    kernel gives each to the main thread, whose wait it interrupts: its handler runs there
    and then. Where signals cannot be blocked per thread (Windows) or off the main thread,
    ``work`` runs on this thread.
    """
    if not _on_main_thread() or not hasattr(signal, "pthread_sigmask"):
        return work()
    done: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(work())
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread, raised there
            failed.append(exc)

    worker = threading.Thread(target=run, name="transcribe-import-command")
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        worker.start()  # it inherits the mask that blocks them
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    worker.join()  # a signal interrupts this wait; its handler runs, the wait goes on
    if failed:
        raise failed[0]
    return done[0]
