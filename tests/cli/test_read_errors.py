"""An I/O error reading one source fails that item alone; a full disk still stops the run.

The source's card or disk failing is that file's problem: its item fails, naming the file
and the error, and the other notebooks land. A full corpus disk is everyone's problem:
the run stops, resumable, with exit 6 (docs/cli.md). The faults are injected in the
commit's own copy of the one source (the command runs in-process for that), so validate,
which reads the same file first, sees it whole.
"""

from __future__ import annotations

import errno
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from transcribe_import.cli import main
from transcribe_import.engine.storage import fsio

from helpers.cli import cli_json, ok, run_cli
from helpers.shelves import make_shelf


def _planned(tmp_path: Path) -> tuple[Path, Path, dict[str, Any]]:
    """(data, plan, the plan's second item) for a shelf of three notebooks."""
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(make_shelf(tmp_path / "shelf", notebooks=3)), "-o", str(plan)))
    return data, plan, orjson.loads(plan.read_bytes())["items"][1]


def _fault_in_copy_of(
    monkeypatch: pytest.MonkeyPatch, target: Path, fault: Callable[[pytest.MonkeyPatch], None]
) -> None:
    """Apply ``fault`` while, and only while, the commit copies ``target`` into staging.

    An item's sources are staged on two threads even with ``--workers 1``, so the fault's
    ``fsio._tick`` is only the faulty one on the thread copying ``target``: another page,
    copied beside it at the same moment, copies whole.
    """
    real = fsio.copy_hashed
    real_tick = fsio._tick
    copier: set[int] = set()

    def copy(src: Path, dst: Path, **kw: Any) -> tuple[str, int]:
        if Path(src) != target:
            return real(src, dst, **kw)
        with monkeypatch.context() as m:
            fault(m)
            faulty = fsio._tick

            def tick(op: str, path: Any) -> None:
                (faulty if threading.get_ident() in copier else real_tick)(op, path)

            m.setattr(fsio, "_tick", tick)
            copier.add(threading.get_ident())
            try:
                return real(src, dst, **kw)
            finally:
                copier.discard(threading.get_ident())

    monkeypatch.setattr(fsio, "copy_hashed", copy)


def _commit(data: Path, plan: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, Any]:
    code = main(["--data-dir", str(data), "commit", str(plan), "--workers", "1", "--json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_an_io_error_reading_one_source_fails_only_its_item(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data, plan, item = _planned(tmp_path)
    target = Path(item["sources"][1]["provenance"]["path"])

    real_tick = fsio._tick

    def failing_card(m: pytest.MonkeyPatch) -> None:
        def tick(op: str, path: Any) -> None:
            if op == "open_read" and Path(path) == target:
                raise OSError(errno.EIO, "Input/output error", str(path))
            real_tick(op, path)

        m.setattr(fsio, "_tick", tick)

    _fault_in_copy_of(monkeypatch, target, failing_card)
    code, out = _commit(data, plan, capsys)
    assert code == 1 and out["status"] == "partial" and out["stopped_by"] is None
    assert out["counts"]["committed"] == 2 and out["counts"]["failed"] == 1
    (failed,) = [i for i in out["items"] if i["state"] == "failed"]
    assert failed["item_id"] == item["item_id"]
    assert failed["failure"]["code"] == "source_unreadable"
    message = failed["failure"]["message"]
    assert str(target) in message and "Input/output error" in message
    assert "check the disk" not in message.lower()
    # The item left nothing behind, and committing the plan again retries just it.
    monkeypatch.undo()
    again = cli_json(data, "commit", str(plan), "--json")
    assert again["status"] == "complete" and again["counts"]["failed"] == 0
    notebooks = cli_json(data, "notebooks", "--json")["notebooks"]
    assert sorted(n["page_count"] for n in notebooks) == [3, 3, 3]  # none lost, none doubled


def test_a_full_disk_while_copying_a_source_still_stops_the_run_with_exit_6(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data, plan, item = _planned(tmp_path)
    target = Path(item["sources"][1]["provenance"]["path"])
    real_tick = fsio._tick

    def full_disk(m: pytest.MonkeyPatch) -> None:
        def tick(op: str, path: Any) -> None:
            if op == "fsync":  # the staged copy's: the corpus's disk is full
                raise OSError(errno.ENOSPC, "No space left on device", str(path))
            real_tick(op, path)

        m.setattr(fsio, "_tick", tick)

    _fault_in_copy_of(monkeypatch, target, full_disk)
    code, out = _commit(data, plan, capsys)
    assert code == 6 and out["status"] == "running" and "disk is full" in out["stopped_by"]
    assert out["counts"]["failed"] == 0
    monkeypatch.undo()
    resumed = cli_json(data, "resume", out["import_run_id"], "--json")
    assert resumed["status"] == "complete" and resumed["counts"]["committed"] == 3


@pytest.mark.parametrize(
    ("op", "err", "words"),
    [
        ("fsync", errno.ENOSPC, "The disk is full while copying "),
        ("write", errno.EACCES, "Could not finish copying "),
    ],
    ids=["ENOSPC", "EACCES"],
)
def test_a_corpus_side_copy_error_names_the_corpus_file_and_never_blames_the_source(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    op: str,
    err: int,
    words: str,
) -> None:
    """Main (#36): a full corpus disk was said as "while copying <the source>", and a folder of
    the corpus the app may not write into failed the item as "<the source> cannot be read
    (permission denied)". Both are the corpus's: the run stops (exit 6, resumable), and the
    line names the source being copied and the corpus file it was copied into."""
    data, plan, item = _planned(tmp_path)
    target = Path(item["sources"][1]["provenance"]["path"])
    real_tick = fsio._tick

    def corpus_side(m: pytest.MonkeyPatch) -> None:
        def tick(kind: str, path: Any) -> None:
            if kind == op:  # the staged copy's, in the corpus
                raise OSError(err, os.strerror(err), str(path))
            real_tick(kind, path)

        m.setattr(fsio, "_tick", tick)

    _fault_in_copy_of(monkeypatch, target, corpus_side)
    code, out = _commit(data, plan, capsys)
    assert code == 6 and out["status"] == "running" and out["counts"]["failed"] == 0
    said = out["stopped_by"]
    assert said.startswith(f"{words}{target} into {data / 'corpus' / 'notebooks'}"), said
    assert "cannot be read" not in said
    monkeypatch.undo()
    resumed = cli_json(data, "resume", out["import_run_id"], "--json")
    assert resumed["status"] == "complete" and resumed["counts"]["committed"] == 3
