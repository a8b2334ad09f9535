"""The app's log file, which never writes to the terminal: a record it cannot write is dropped.

Python's own ``FileHandler`` prints ``--- Logging error ---`` and a traceback on stderr when a
record cannot be written (a full disk, a log file turned into a folder, a log on ``/dev/full``):
a command that did its work then looks as if it failed. Here such a record is dropped without a
word, and the next record the log can take is preceded by one line saying how many were lost.
"""

from __future__ import annotations

import contextlib
import logging


class QuietFileHandler(logging.FileHandler):
    """A ``FileHandler`` (opened at its first record) that drops what it cannot write."""

    def __init__(self, filename: str, encoding: str = "utf-8") -> None:
        super().__init__(filename, encoding=encoding, delay=True)
        self.dropped = 0

    def emit(self, record: logging.LogRecord) -> None:
        if self.dropped:
            lost = self.dropped
            note = logging.makeLogRecord(
                {
                    "name": __name__,
                    "levelno": logging.WARNING,
                    "levelname": "WARNING",
                    "msg": f"{lost} log record{'s' if lost != 1 else ''} before this one could "
                    "not be written (the log file could not be written) and were dropped",
                }
            )
            if not self._write(note):
                self.dropped += 1
                return
            self.dropped = 0
        if not self._write(record):
            self.dropped += 1

    def _write(self, record: logging.LogRecord) -> bool:
        try:
            if self.stream is None:
                self.stream = self._open()
            self.stream.write(self.format(record) + self.terminator)
            self.stream.flush()
        except Exception:  # noqa: BLE001 - the log's own failure: dropped, never raised nor shown
            self._forget_stream()
            return False
        return True

    def _forget_stream(self) -> None:
        """Close a stream a write failed on (what it buffered is lost); the next record opens
        the file again, so a log that works again is written again."""
        stream, self.stream = self.stream, None
        if stream is not None:
            with contextlib.suppress(Exception):
                stream.close()

    def flush(self) -> None:
        with contextlib.suppress(Exception):
            super().flush()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            super().close()

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's name
        """Never a traceback on the terminal: the record is counted as dropped."""
        del record
        self.dropped += 1
