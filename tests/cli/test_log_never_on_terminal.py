"""The log file never writes to the terminal: a record it cannot write is dropped quietly, and
the next one it can write says how many were lost (issue #36)."""

from __future__ import annotations

import importlib
import logging
from pathlib import Path

import pytest

from transcribe_import.cli.logfile import QuietFileHandler

from helpers.cli import cli_json, ok, run_cli
from helpers.shelves import make_shelf


def _log_file(data: Path) -> Path:
    """Where a CLI process of ``helpers.cli`` logs (``XDG_STATE_HOME`` beside the data)."""
    return data.parent / "state" / "Transcribe" / "log" / "transcribe-import.log"


@pytest.mark.parametrize("where", ["full-disk", "a-folder", "working"])
def test_a_commit_whose_log_cannot_be_written_says_nothing_of_it(
    tmp_path: Path, where: str
) -> None:
    """Main: exit 0 with "--- Logging error ---" and a traceback on stderr."""
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(make_shelf(tmp_path / "shelf", notebooks=1)), "-o", str(plan)))
    # A file where the thumbnail folder goes: each thumbnail not kept is a record to log.
    (data / "corpus" / "cache").mkdir(parents=True, exist_ok=True)
    (data / "corpus" / "cache" / "thumbnails-v1").write_bytes(b"")
    log = _log_file(data)
    log.parent.mkdir(parents=True, exist_ok=True)
    if where == "full-disk":
        log.symlink_to("/dev/full")
    elif where == "a-folder":
        log.mkdir()  # the file cannot even be opened

    proc = ok(run_cli(data, "commit", str(plan), "--json"))

    assert proc.stderr == ""
    assert cli_json(data, "notebooks", "--json")["notebooks"][0]["page_count"] == 3
    if where == "working":  # the records the others could not write
        assert "thumbnail cache entry" in log.read_text()


def test_records_lost_are_told_once_the_log_works_again(tmp_path: Path) -> None:
    folder = tmp_path / "log"  # not made yet: the file cannot be opened
    handler = QuietFileHandler(str(folder / "app.log"))
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    logger = logging.getLogger("test.quiet-log")
    logger.propagate = False
    logger.addHandler(handler)
    try:
        logger.warning("first")
        logger.warning("second")
        assert handler.dropped == 2
        folder.mkdir()
        logger.warning("third")
        logger.warning("fourth")
    finally:
        logger.removeHandler(handler)
        handler.close()
    assert (folder / "app.log").read_text().splitlines() == [
        "WARNING 2 log records before this one could not be written (the log file could not "
        "be written) and were dropped",
        "WARNING third",
        "WARNING fourth",
    ]


def test_an_unexpected_error_whose_log_cannot_be_written_is_still_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The last resort's own log on a full disk: its write failed inside the handler, and a
    traceback reached the terminal."""
    # The module, not the function transcribe_import.cli exports under the same name.
    cli_main = importlib.import_module("transcribe_import.cli.main")

    def broken(corpus: object, args: object) -> int:
        raise RuntimeError("a bug")

    monkeypatch.setitem(cli_main.COMMANDS, "notebooks", broken)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    error_log = tmp_path / "state" / "Transcribe" / "log" / "transcribe-import-error.log"
    error_log.parent.mkdir(parents=True)
    error_log.symlink_to("/dev/full")

    rc = cli_main.main(["--data-dir", str(tmp_path / "data"), "notebooks"])

    said = capsys.readouterr().err
    assert rc == 1
    assert said == (
        f"transcribe-import: unexpected error: a bug. Its details could not be written to "
        f"{error_log} (No space left on device); please include this line when you report "
        "this.\n"
    )
