"""The window's counts and times: plural phrases, local dates, durations."""

from __future__ import annotations

from datetime import UTC, datetime

from PySide6.QtCore import QCoreApplication, QDate, QDateTime, QLocale, QTime

_t = QCoreApplication.translate


def plural(n: int, one: str, many: str) -> str:
    """``one`` when n is 1, else ``many``: right in English with no translation loaded.

    Both texts come from tr() at the call site (so lupdate finds them); ``many`` is given
    n, so a translation's own plural forms still apply to it.
    """
    return one if n == 1 else many


# Whole phrases per count, not "error(s)": they translate, and read, as phrases.
def errors_words(n: int) -> str:
    return _t("Severity", "1 error") if n == 1 else _t("Severity", "{n} errors").format(n=n)


def warnings_words(n: int) -> str:
    return _t("Severity", "1 warning") if n == 1 else _t("Severity", "{n} warnings").format(n=n)


def notes_words(n: int) -> str:
    """The pages worth a second look listed under the problems: told apart from them, since
    they never stand in the way of a commit (the CLI's totals line says the same)."""
    if n == 1:
        return _t("Severity", "1 note on a page worth a second look, which Commit leaves to you.")
    return _t(
        "Severity", "{n} notes on pages worth a second look, which Commit leaves to you."
    ).format(n=n)


def looking_words(done: int, total: int, left: float | None = None) -> str:
    """The look pass under way, and what waits for it (the review's summary); ``left``: the
    seconds it has left at its pace so far (None: not known yet)."""
    if total <= 0:
        return _t("Looking", "Looking at the pages for rescans; commit waits for it.")
    if left is not None:
        return _t(
            "Looking",
            "Looking at the pages for rescans: {done} of {total} pages, {left}; commit waits "
            "for it.",
        ).format(done=f"{done:,}", total=f"{total:,}", left=time_left_words(left))
    return _t(
        "Looking",
        "Looking at the pages for rescans: {done} of {total} pages; commit waits for it.",
    ).format(done=f"{done:,}", total=f"{total:,}")


def time_left_words(seconds: float) -> str:
    """A long step's time left at its pace so far: "about 3 min left"."""
    return _t("Duration", "about {duration} left").format(duration=format_duration(seconds))


def parse_timestamp(iso: str) -> datetime | None:
    """An on-disk timestamp (UTC, ISO 8601 with Z) as an aware datetime, or None if unreadable."""
    try:
        value = datetime.fromisoformat(iso)
    except ValueError:
        return None
    # The formats always write UTC; a value without an offset is read as UTC, not local time.
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def format_local_epoch(seconds: float) -> str:
    """A moment given in seconds since the epoch (a file's mtime), as ``format_local`` says it."""
    local = QDateTime.fromMSecsSinceEpoch(int(seconds * 1000))
    if QLocale().language() == QLocale.Language.C:
        return local.toString("yyyy-MM-dd HH:mm")
    return QLocale().toString(local, QLocale.FormatType.ShortFormat)


def format_local(iso: str, fmt: QLocale.FormatType = QLocale.FormatType.ShortFormat) -> str:
    """``iso`` in the user's time zone and locale; the raw text when it cannot be read."""
    value = parse_timestamp(iso)
    if value is None:
        return iso
    local = QDateTime.fromMSecsSinceEpoch(int(value.timestamp() * 1000))
    locale = QLocale()
    if locale.language() == QLocale.Language.C:
        # The C locale's short format is "2 12 2026 08:00", which reads as nothing; ISO is clear.
        return local.toString(
            "yyyy-MM-dd HH:mm" if fmt == QLocale.FormatType.ShortFormat else "yyyy-MM-dd HH:mm:ss t"
        )
    return locale.toString(local, fmt)


def format_wall_time(iso: str) -> str:
    """A capture time as the camera's clock showed it (EXIF has no zone: never converted)."""
    try:
        value = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    if value.tzinfo is not None:
        return format_local(iso)
    wall = QDateTime(
        QDate(value.year, value.month, value.day), QTime(value.hour, value.minute, value.second)
    )
    locale = QLocale()
    if locale.language() == QLocale.Language.C:
        return wall.toString("yyyy-MM-dd HH:mm:ss")
    # Photos of one notebook are often seconds apart: the seconds tell their order.
    time_format = locale.timeFormat(QLocale.FormatType.ShortFormat)
    if "s" not in time_format:
        time_format = time_format.replace("mm", "mm:ss", 1)
    return locale.toString(
        wall, f"{locale.dateFormat(QLocale.FormatType.ShortFormat)} {time_format}"
    )


def format_duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds < 60:
        return _t("Duration", "%n s", "", seconds)
    minutes = round(seconds / 60)
    if minutes < 60:
        return _t("Duration", "%n min", "", minutes)
    return _t("Duration", "{h} h {m} min").format(h=minutes // 60, m=minutes % 60)
