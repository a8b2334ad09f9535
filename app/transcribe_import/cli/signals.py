"""The one way a command answers signals: handlers for a block, the earlier ones back after it.

Ctrl-C stops a scan; Ctrl-C cancels a run and SIGTERM or SIGHUP pause it; any of the three ends
an export cleanly or stops a revert at a safe point. Python lets only the main thread install a
handler, so a command run on another thread (a test driving ``main`` in-process) installs none
and keeps the defaults.

The first signal decides. Once a block has answered one, the command is on its way out with
the exit code that signal chose: every later one, whichever it is and however late (during the
block, or after it while the summary is printed), is answered by the first one's handler again,
in its words and with its (idempotent) request, so neither the state nor the exit code changes;
SIGTERM then Ctrl-C is a pause, never a cancel. ``command`` puts the earlier handlers back when
the command returns, except for the process's own command, which keeps them until it exits
(put back, a signal between the summary and the exit would kill it with another code); from
its teardown on it ignores them (``ignored_from_here``).

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


@contextlib.contextmanager
def command(*, to_the_end: bool = False) -> Iterator[None]:
    """The whole of one command: the handlers it found are back when it returns, unless
    ``to_the_end`` (the process's own command, which exits right after it)."""
    if not _on_main_thread():
        yield
        return
    saved = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        if not to_the_end:
            for sig, old in saved.items():
                signal.signal(sig, old)


@contextlib.contextmanager
def handling(handlers: Mapping[signal.Signals, Callable[[], object]]) -> Iterator[None]:
    """Call ``handlers[sig]()`` on the first of these signals while the block runs, and the
    same handler again on every later stop signal, during the block or after it."""
    if not _on_main_thread():
        yield
        return
    saved = {sig: signal.getsignal(sig) for sig in handlers}
    first: list[Callable[[], object]] = []

    def again(*_: object) -> None:
        first[0]()  # a later signal is answered as the first was: it changes nothing

    def answer(call: Callable[[], object]) -> None:
        if not first:
            first.append(call)
            for sig in STOP_SIGNALS:  # those this block does not answer included
                signal.signal(sig, again)
        first[0]()

    try:
        for sig, handler in handlers.items():
            signal.signal(sig, lambda *_, call=handler: answer(call))
        yield
    finally:
        if not first:
            for sig, old in saved.items():
                signal.signal(sig, old)


def ignored_from_here() -> None:
    """Ignore the stop signals from now until the process has exited: for its teardown.

    Why: once the interpreter's last Python code has run, it puts every handled signal back
    to its default action and then tears its modules down, which takes tenths of a second
    with numpy and libvips loaded. A signal then killed the process (exit 130 or 143) after
    its command had printed what it did and chosen its exit code. Ignored rather than
    answered: no Python code runs then to answer it, and the command's words are said.
    """
    if not _on_main_thread():
        return
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)


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
