"""Library warnings during decoding: caught per call, logged below WARNING, never printed.

Pillow and pypdfium2 report damage they work around as Python warnings ("Corrupt EXIF
data", "Invalid APNG ...", DecompressionBombWarning, pypdfium2's PdfiumWarning). Left to
Python they reach the terminal raw, with site-packages paths, and where warnings are errors
(``-W error``, the test suite) they abort a decode that would have worked. ``caught`` makes
both the same: while it is active, a warning raised from inside those libraries (in the
thread that entered it) is recorded instead, whatever the process's warning filters say.
The caller decides what a warning means (media turns the ones that refuse a file into coded
errors, and logs the rest at INFO with the file's name: the log file keeps them).

The warnings module is process-wide and not thread-safe, and decoding runs on several
threads at once, so the filter and the hook are installed once for all the threads that are
decoding (a count under a lock) and removed when the last one leaves. A warning from another
thread meanwhile goes to the hook that was there before, as it would have.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any, TextIO

log = logging.getLogger("transcribe_import.engine.media")

# The modules a caught warning may be raised from: the decoders, and this package (a
# library's warning with a stacklevel that points at its caller).
_MODULES = r"(PIL|pypdfium2|pypdf|transcribe_import\.engine\.media)(\.|$)"

_lock = threading.Lock()
_depth = 0
_filter: Any = None  # the entry caught() put in warnings.filters
_previous_show: Callable[..., None] | None = None
_local = threading.local()


def _show(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    sink: list[tuple[type[Warning], str]] | None = getattr(_local, "sink", None)
    if sink is not None:
        sink.append((category, str(message)))
    elif _previous_show is not None:
        _previous_show(message, category, filename, lineno, file, line)


@contextlib.contextmanager
def caught() -> Iterator[list[tuple[type[Warning], str]]]:
    """Record, as (category, message), the library warnings this thread raises meanwhile."""
    global _depth, _filter, _previous_show
    sink: list[tuple[type[Warning], str]] = []
    with _lock:
        if _depth == 0:
            warnings.filterwarnings("always", module=_MODULES)
            _filter = warnings.filters[0]
            _previous_show = warnings.showwarning
            warnings.showwarning = _show
        _depth += 1
    outer = getattr(_local, "sink", None)
    _local.sink = sink
    try:
        yield sink
    finally:
        _local.sink = outer
        with _lock:
            _depth -= 1
            if _depth == 0:
                _uninstall()


def _uninstall() -> None:
    global _filter, _previous_show
    with contextlib.suppress(ValueError):  # someone replaced the whole list meanwhile
        warnings.filters.remove(_filter)  # type: ignore[attr-defined]  # a list at run time
    warnings._filters_mutated()  # type: ignore[attr-defined]  # the module's own cache reset
    if warnings.showwarning is _show and _previous_show is not None:
        warnings.showwarning = _previous_show
    _filter, _previous_show = None, None


class _Demote(logging.Handler):
    """Pillow's and libvips' own log records ("More samples per pixel than can be decoded",
    "VIPS: iCCP: too short", at ERROR or WARNING), passed on to the media logger at INFO:
    library noise for the log file, not a problem (a page libvips fails on, Pillow renders)."""

    def emit(self, record: logging.LogRecord) -> None:
        if log.isEnabledFor(logging.INFO):
            log.info("%s: %s", record.name, record.getMessage())


def demote_library_logs() -> None:
    """Route Pillow's and pyvips' logging below WARNING (idempotent; media calls it on load)."""
    for name in ("PIL", "pyvips"):
        logger = logging.getLogger(name)
        if not any(isinstance(h, _Demote) for h in logger.handlers):
            logger.addHandler(_Demote())
        logger.propagate = False


def silence_libtiff() -> None:
    """Stop libtiff (the C library Pillow decodes TIFFs with) printing its errors on stderr.

    Pillow turns off libtiff's warnings but not its errors, which it reports to us as
    "decoder error" anyway. Found, on Linux, as the libtiff this process has loaded;
    elsewhere (or if it is not there) nothing changes.
    """
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            paths = {line.split()[-1] for line in maps if "libtiff" in line and "/" in line}
    except OSError:
        return
    import ctypes

    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
            lib.TIFFSetErrorHandler.restype = ctypes.c_void_p
            lib.TIFFSetErrorHandler.argtypes = [ctypes.c_void_p]
            lib.TIFFSetErrorHandler(None)
        except (OSError, AttributeError):
            continue


def log_caught(found: list[tuple[type[Warning], str]], dp: str) -> None:
    """Log what a decoder warned about a file, at INFO: for the log file, not the user."""
    for category, message in found:
        log.info("%s: %s: %s", dp, category.__name__, " ".join(message.split()))
