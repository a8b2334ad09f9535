"""`transcribe-import export` as a user runs it: words, the --json document, the exit codes."""

from __future__ import annotations

import fcntl
import json
import os
import signal
from pathlib import Path

import bagit
import orjson
import pytest

from transcribe_import.cli.main import main
from transcribe_import.engine import api

from helpers.cli import Exit, cli_json, ok, run_cli
from helpers.export import ShelfCorpus, make_corpus, tree


@pytest.fixture
def shelf(tmp_path: Path) -> ShelfCorpus:
    return make_corpus(tmp_path)


def test_export_json_document(shelf: ShelfCorpus, tmp_path: Path):
    dest = tmp_path / "out"
    doc = cli_json(shelf.data, "export", *shelf.notebooks, "-o", str(dest), "--json")
    assert set(doc) == {
        "destination",
        "export_id",
        "corpus_id",
        "status",
        "notebooks",
        "files",
        "payload_bytes",
        "missing",
        "chain_hash",
    }
    assert doc["destination"] == str(dest)
    assert doc["status"] == "complete" and doc["missing"] == []
    assert doc["corpus_id"] == shelf.corpus.corpus_id
    assert [n["notebook_id"] for n in doc["notebooks"]] == list(shelf.notebooks)
    assert set(doc["notebooks"][0]) == {
        "notebook_id",
        "title",
        "status",
        "source_count",
        "page_count",
        "state",  # complete, or incomplete with the unfinished import (as `notebooks`)
        "unfinished_import",
    }
    manifest = json.loads((dest / "MANIFEST.json").read_bytes())
    assert doc["chain_hash"] == manifest["chain_hash"]
    assert doc["files"] == len(manifest["files"])
    assert doc["export_id"] == manifest["export_id"]
    bagit.Bag(str(dest)).validate()


def test_export_words_and_the_default_folder(shelf: ShelfCorpus):
    proc = ok(run_cli(shelf.data, "export", "--all"))
    assert "Exported 2 notebooks" in proc.stdout and ": complete." in proc.stdout
    [folder] = (shelf.data / "exports").iterdir()
    assert str(folder) in proc.stdout
    day = (folder / "bag-info.txt").read_text().split("Bagging-Date: ")[1][:10]
    assert folder.name == f"Notebook 1 and Notebook 2 – {day}"
    bagit.Bag(str(folder)).validate()


def test_a_partial_export_exits_1_and_names_the_file(shelf: ShelfCorpus, tmp_path: Path):
    nb = shelf.notebooks[1]
    doc = json.loads((shelf.corpus.notebook_dir(nb) / "project.json").read_bytes())
    (shelf.corpus.notebook_dir(nb) / doc["sources"][0]["path"]).write_bytes(b"not the scan")
    dest = tmp_path / "out"

    proc = ok(run_cli(shelf.data, "export", "--all", "-o", str(dest), "--json"), Exit.PROBLEMS)

    out = orjson.loads(proc.stdout)
    assert out["status"] == "partial"
    assert out["missing"][0]["reason"] == "hash_mismatch"
    assert out["missing"][0]["path"].endswith(doc["sources"][0]["path"])
    words = ok(run_cli(shelf.data, "export", "--all", "-o", str(tmp_path / "o2")), Exit.PROBLEMS)
    assert "partial" in words.stdout and "MISSING [hash_mismatch]" in words.stdout
    assert doc["sources"][0]["path"] in words.stdout


@pytest.mark.parametrize(
    "args, words",
    [
        ((), "NOTEBOOK_ID"),
        (("--all", "4e3f0d8e-2b0c-4b9a-8f57-3d1f3a0b7c11"), "not both"),
        (("4e3f0d8e-2b0c-4b9a-8f57-3d1f3a0b7c11",), "No notebook"),
        (("nope",), "No notebook 'nope'"),
    ],
)
def test_usage_errors_exit_2(shelf: ShelfCorpus, tmp_path: Path, args, words):
    proc = ok(run_cli(shelf.data, "export", *args, "-o", str(tmp_path / "out")), Exit.USAGE)
    assert words in proc.stderr and proc.stdout == ""
    assert not (tmp_path / "out").exists()


def test_a_non_empty_destination_exits_2(shelf: ShelfCorpus, tmp_path: Path):
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / "keep.txt").write_text("keep")
    proc = ok(run_cli(shelf.data, "export", "--all", "-o", str(dest), "--json"), Exit.USAGE)
    assert "not empty" in proc.stderr and proc.stdout == ""
    assert tree(dest) == {"keep.txt": b"keep"}


def test_a_destination_held_by_another_export_exits_5_having_written_nothing(shelf, tmp_path):
    dest = tmp_path / "out"
    dest.mkdir()
    with open(dest / ".export.lock", "w") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        proc = ok(run_cli(shelf.data, "export", "--all", "-o", str(dest)), Exit.LOCKED)
        assert tree(dest) == {".export.lock": b""}
    assert "Another export is writing into" in proc.stderr


def test_ctrl_c_cancels_exits_4_and_the_folder_says_so(shelf, tmp_path, monkeypatch, capsys):
    """A real SIGINT to this process while the CLI's export runs (in-process, main thread)."""
    real = api.export_notebooks

    def interrupted(*args, **kw):  # type: ignore[no-untyped-def]
        gen = real(*args, **kw)
        yield next(gen)
        os.kill(os.getpid(), signal.SIGINT)  # the CLI's handler asks the export to stop
        return (yield from gen)

    monkeypatch.setattr(api, "export_notebooks", interrupted)
    dest = tmp_path / "out"
    before = signal.getsignal(signal.SIGINT)  # SIG_IGN when the tests run in the background
    code = main(["--data-dir", str(shelf.data), "export", "--all", "-o", str(dest)])
    assert code == Exit.CANCELLED
    assert "Export cancelled" in capsys.readouterr().out
    assert "cancelled" in (dest / "EXPORT-INCOMPLETE.txt").read_text()
    assert not (dest / "bagit.txt").exists() and not (dest / ".export.lock").exists()
    assert signal.getsignal(signal.SIGINT) is before  # put back as it was


def test_export_is_listed_in_help():
    proc = ok(run_cli(None, "export", "--help"), Exit.OK)
    assert "--all" in proc.stdout and "--output" in proc.stdout and "--json" in proc.stdout


def test_export_all_of_an_empty_corpus_is_refused_and_writes_nothing(tmp_path: Path):
    data = tmp_path / "data"
    ok(run_cli(data, "doctor"))  # creates the empty corpus
    proc = ok(run_cli(data, "export", "--all", "-o", str(tmp_path / "out")), Exit.PROBLEMS)
    assert "holds no notebook yet" in proc.stderr and "Nothing was written" in proc.stderr
    assert "export_nothing" in proc.stderr or "nothing to export" in proc.stderr
    assert not (tmp_path / "out").exists()
    assert not (data / "exports").exists()
