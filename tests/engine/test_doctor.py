"""doctor (engine/doctor.py): the whole-corpus check that repairs what the contract allows
and reports, never deletes, what needs a person.

Index repair, registration reconciled both ways, and a doctor killed in the middle of
its own repair (a real process, SIGKILL) that a second run finishes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from transcribe_import.engine.base.findings import FindingCode
from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.doctor import doctor
from transcribe_import.engine.storage.corpus import Corpus

from helpers.cli import Exit, run_driver


def test_torn_index_line_is_reported_and_repaired_not_dropped(data_dir: Path) -> None:
    corpus = Corpus.open(data_dir)
    first, second = new_id(), new_id()
    corpus.create_notebook(first, "first")
    corpus.create_notebook(second, "second")
    # A crash mid-append: the last registration is cut short.
    data = corpus.index_path.read_bytes()
    corpus.index_path.write_bytes(data[: len(data) - 20])
    fresh = Corpus.open(data_dir)
    assert set(fresh.index_entries()) == {first}
    assert [d.reason for d in fresh.index_damage()] == ["torn last line (no newline)"]

    report = doctor(fresh)
    codes = [f.code for f in report.findings]
    assert FindingCode.INDEX_REPAIRED in codes
    assert FindingCode.REGISTRATION_COMPLETED in codes  # `second` re-registered from its manifest
    kept = [p for p in fresh.quarantine_dir.iterdir() if p.name.endswith("-index.jsonl")]
    assert len(kept) == 1 and kept[0].read_bytes() == data[: len(data) - 20]
    assert set(Corpus.open(data_dir).index_entries()) == {first, second}
    assert doctor(Corpus.open(data_dir)).clean


def test_registered_notebook_without_manifest_is_reported_not_deleted(data_dir: Path) -> None:
    corpus = Corpus.open(data_dir)
    nbid = new_id()
    nb_dir = corpus.create_notebook(nbid, "Lost")
    (nb_dir / "project.json").unlink()
    report = doctor(Corpus.open(data_dir))
    assert [f.code for f in report.findings] == [FindingCode.REGISTERED_WITHOUT_MANIFEST]
    assert not report.clean
    assert Corpus.open(data_dir).is_registered(nbid)
    assert nb_dir.is_dir()


def test_unregistered_manifest_is_registered_by_doctor(data_dir: Path) -> None:
    corpus = Corpus.open(data_dir)
    nbid = new_id()
    corpus.create_notebook(nbid, "Orphan")
    corpus.rewrite_index([])  # as if registration never committed
    report = doctor(Corpus.open(data_dir))
    # It holds no page (made bare, as earlier versions did): registered, and told as empty.
    assert [f.code for f in report.findings] == [
        FindingCode.REGISTRATION_COMPLETED,
        FindingCode.EMPTY_NOTEBOOK,
    ]
    # No remedy of the window's removes it: the finding carries the command a person types,
    # the one its message names (the window says where it is typed: gui/wording/corpus.py).
    empty = report.findings[1]
    assert not empty.remedies and not report.findings[0].command
    assert empty.command == f"transcribe-import doctor --remove-empty {nbid}"
    assert f"`{empty.command}`" in empty.message and "command" not in empty.to_json()
    assert Corpus.open(data_dir).is_registered(nbid)
    assert doctor(Corpus.open(data_dir)).clean


@pytest.mark.crash
def test_kill_while_repairing_a_torn_index(tmp_path: Path) -> None:
    data = tmp_path / "data"
    corpus = Corpus.open(data)
    ids = [new_id() for _ in range(3)]
    for nbid in ids:
        corpus.create_notebook(nbid, nbid[:6])
    raw = corpus.index_path.read_bytes()
    corpus.index_path.write_bytes(raw[:-30])  # the last registration torn
    assert run_driver(data, "recover", crash_at="doctor.index_copied") == Exit.KILLED
    assert run_driver(data, "recover") == 0
    corpus = Corpus.open(data)
    assert set(corpus.index_entries()) == set(ids)
    assert corpus.index_damage() == []
    assert doctor(corpus).clean
