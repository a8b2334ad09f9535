"""Fail a test that logs an unexpected WARNING (or worse) through Python logging.

A warning nobody looks at is a bug report nobody reads: in a test it is either expected
(then the test says so) or a fault. Opt out with

- ``@pytest.mark.allow_logged_warnings`` (any), or ``(r"regex", ...)`` for the messages
  that match one of the patterns (``re.search`` on the formatted message);
- the ``logged_warnings`` fixture: the test gets the records and checks them itself.

The records are checked right after the test's call phase (a failure of the test itself),
and again after teardown for what the fixtures' teardown logged. Logger levels are put
back after each test: code run in-process (``cli.main`` quietens pypdf, say) must not
hide from later tests what they would log.
"""

from __future__ import annotations

import logging
import re

import pytest

MARKER = "allow_logged_warnings"


class WarningCollector(logging.Handler):
    """A root-logger handler that keeps every record of level WARNING or higher."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []
        self._checked = 0
        self._levels: dict[str, int] = {}

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def install(self) -> None:
        self._levels = _logger_levels()
        logging.getLogger().addHandler(self)

    def remove(self) -> None:
        logging.getLogger().removeHandler(self)
        for name, level in _logger_levels().items():
            if self._levels.get(name, logging.NOTSET) != level:
                logging.getLogger(name or None).setLevel(self._levels.get(name, logging.NOTSET))

    def unchecked(self, node: pytest.Item) -> list[logging.LogRecord]:
        """The records since the last call that neither a marker nor the fixture allows."""
        new, self._checked = self.records[self._checked :], len(self.records)
        if "logged_warnings" in getattr(node, "fixturenames", ()):
            return []
        marker = node.get_closest_marker(MARKER)
        if marker is None:
            return new
        if not marker.args:
            return []
        patterns = [re.compile(p) for p in marker.args]
        return [r for r in new if not any(p.search(r.getMessage()) for p in patterns)]


def _logger_levels() -> dict[str, int]:
    """Every logger's own level; the root logger under ""."""
    loggers = logging.Logger.manager.loggerDict.items()
    levels = {name: lg.level for name, lg in loggers if isinstance(lg, logging.Logger)}
    levels[""] = logging.getLogger().level
    return levels


def describe(records: list[logging.LogRecord]) -> str:
    lines = [
        f"{len(records)} unexpected log record(s) of level WARNING or higher "
        f"(expected ones: @pytest.mark.{MARKER}(r'pattern') or the logged_warnings fixture):"
    ]
    for r in records:
        lines.append(f"  {r.levelname} {r.name} ({r.pathname}:{r.lineno}): {r.getMessage()}")
        if r.exc_info and r.exc_info[1] is not None:
            lines.append(f"    {type(r.exc_info[1]).__name__}: {r.exc_info[1]}")
    return "\n".join(lines)


COLLECTOR = pytest.StashKey[WarningCollector]()
