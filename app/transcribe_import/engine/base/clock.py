"""Timestamps as the on-disk formats write them: UTC, ISO 8601, with a Z."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def stamp_for_filename() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
