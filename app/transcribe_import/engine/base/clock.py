"""Timestamps as the on-disk formats write them: UTC, ISO 8601, with a Z."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> str:
    return utc_stamp(datetime.now(UTC))


def utc_stamp(moment: datetime) -> str:
    """A UTC ``datetime`` as the formats write it: ``2026-12-06T01:25:47.967930Z``."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def utc_from_ns(ns: int) -> str:
    """A file's mtime (nanoseconds since the epoch) as the plan writes it, to the microsecond."""
    seconds, rest = divmod(ns, 1_000_000_000)
    stamp = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{stamp}.{rest // 1000:06d}Z"


def stamp_for_filename() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
