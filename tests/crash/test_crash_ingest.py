"""SIGKILL a real process at every named point of creation and ingest, then recover and check.

Each case asserts the process really died at the point (exit by SIGKILL), so a
renamed or unreachable crash point fails the test instead of passing vacuously.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.doctor import doctor
from transcribe_import.engine.ingest.transaction import ingest
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import (
    assert_notebook_whole,
    page_ids,
    page_image,
    request_for,
    request_to_json,
    snapshot,
)

pytestmark = pytest.mark.crash

DRIVER = Path(__file__).with_name("driver.py")


def run_driver(data_dir: Path, *args: str, crash_at: str | None = None) -> int:
    env = dict(os.environ)
    env.pop("TRANSCRIBE_CRASH_AT", None)
    if crash_at:
        env["TRANSCRIBE_CRASH_AT"] = crash_at
    proc = subprocess.run(
        [sys.executable, str(DRIVER), str(data_dir), *args],
        env=env,
        capture_output=True,
        timeout=120,
    )
    if proc.returncode not in (0, -signal.SIGKILL):
        raise AssertionError(proc.stderr.decode())
    return proc.returncode


@pytest.fixture
def notebook_with_history(tmp_path: Path) -> tuple[Path, str, list[str], Path]:
    """A corpus with one notebook that already holds two pages the user imported earlier."""
    data = tmp_path / "data"
    corpus = Corpus.open(data)
    nbid = new_id()
    corpus.create_notebook(nbid, "Field notes 1987")
    earlier = [page_image(tmp_path / "earlier" / f"p{i}.jpg", f"earlier {i}") for i in (1, 2)]
    req = request_for(nbid, earlier)
    ingest(corpus, req)
    new = [page_image(tmp_path / "new" / f"page {i}.jpg", f"new {i}") for i in (1, 2, 3)]
    new.append(page_image(tmp_path / "new" / "page 4.png", "new 4"))
    req_path = tmp_path / "request.json"
    req_path.write_bytes(request_to_json(request_for(nbid, new)))
    return data, nbid, page_ids(req), req_path


INGEST_POINTS = [
    "ingest.after_claim",
    "ingest.stage.after_source:1",
    "ingest.stage.after_source:3",
    "atomic_write.before_replace:2",  # the journal's move to `promoting`
    "ingest.after_stage",
    "ingest.promote.after_file:1",
    "ingest.promote.after_file:5",  # all sources moved, some renders not
    "ingest.promote.after_file:8",  # every file moved, journal still `promoting`
    "atomic_write.before_replace:3",  # the journal's move to `manifest_pending`
    "ingest.after_promote",
    "atomic_write.before_replace:4",  # project.json itself
    "ingest.after_manifest",
    "ingest.after_staging_removed",
    "ingest.after_journal_removed",
]


@pytest.mark.parametrize("point", INGEST_POINTS)
def test_kill_during_ingest_then_recover(notebook_with_history, point: str) -> None:
    data, nbid, earlier_pages, req_path = notebook_with_history
    before = snapshot(Corpus.open(data).notebook_dir(nbid))

    assert run_driver(data, "ingest", str(req_path), crash_at=point) == -signal.SIGKILL

    assert run_driver(data, "recover") == 0  # recovery in a fresh process
    corpus = Corpus.open(data)
    doc = assert_notebook_whole(corpus, nbid)
    listed = [p["id"] for p in doc["pages"]]
    assert listed[:2] == earlier_pages, "a page imported earlier was lost or moved"
    new_pages = page_ids(_load(req_path))
    assert listed[2:] in ([], new_pages), "the transaction landed partly"
    if not listed[2:]:
        assert snapshot(corpus.notebook_dir(nbid)) == before, "rollback left files behind"
    assert doctor(corpus).clean, "a second recovery still found something"

    # The retry with the same ids completes the import exactly once.
    assert run_driver(data, "ingest", str(req_path)) == 0
    doc = assert_notebook_whole(Corpus.open(data), nbid)
    assert [p["id"] for p in doc["pages"]] == earlier_pages + new_pages


def _load(req_path: Path):
    from engine_helpers import request_from_json

    return request_from_json(req_path.read_bytes())


CREATE_POINTS = [
    "atomic_write.before_replace:1",  # project.json inside the hidden creation folder
    "create.before_rename",
    "create.before_register",
    "register.after_append",
    "create.after_register",
]


@pytest.mark.parametrize("point", CREATE_POINTS)
def test_kill_during_create_then_recover(tmp_path: Path, point: str) -> None:
    data = tmp_path / "data"
    Corpus.open(data)
    nbid = new_id()
    assert run_driver(data, "create", nbid, "Box 3 / Diary", crash_at=point) == -signal.SIGKILL

    assert run_driver(data, "recover") == 0
    corpus = Corpus.open(data)
    nb_dir = corpus.notebook_dir(nbid)
    leftovers = [p.name for p in corpus.notebooks_dir.iterdir() if p.name != nbid]
    assert leftovers == [], "an interrupted creation left a folder behind"
    if nb_dir.exists():
        # The manifest won: it is registered exactly once (boundary 1).
        assert project.read(nb_dir, nbid)["title"] == "Box 3 / Diary"
        assert corpus.is_registered(nbid)
        lines = corpus.index_path.read_bytes().count(f'"notebook_id":"{nbid}"'.encode())
        assert lines == 1
    else:
        assert not corpus.is_registered(nbid)
    assert doctor(corpus).clean

    assert run_driver(data, "create", nbid, "Box 3 / Diary") == 0
    corpus = Corpus.open(data)
    assert corpus.is_registered(nbid)
    assert [n.notebook_id for n in corpus.list_notebooks()] == [nbid]


# Crashes inside recovery itself: the first recovery dies, the second must still finish.
RECOVERY_CASES = [
    ("ingest.promote.after_file:3", "ingest.promote.after_file:1"),
    ("ingest.promote.after_file:3", "atomic_write.before_replace:1"),
    ("ingest.promote.after_file:3", "ingest.after_manifest"),
    ("ingest.after_promote", "ingest.after_staging_removed"),
    ("ingest.stage.after_source:2", "recover.after_rollback_files"),
    ("ingest.promote.after_file:8", "atomic_write.before_replace:1"),
    ("ingest.after_manifest", "ingest.after_journal_removed"),
]


@pytest.mark.parametrize(("first", "during_recovery"), RECOVERY_CASES)
def test_kill_inside_recovery(notebook_with_history, first: str, during_recovery: str) -> None:
    data, nbid, earlier_pages, req_path = notebook_with_history
    assert run_driver(data, "ingest", str(req_path), crash_at=first) == -signal.SIGKILL
    assert run_driver(data, "recover", crash_at=during_recovery) == -signal.SIGKILL
    assert run_driver(data, "recover") == 0
    corpus = Corpus.open(data)
    doc = assert_notebook_whole(corpus, nbid)
    listed = [p["id"] for p in doc["pages"]]
    assert listed[:2] == earlier_pages
    assert listed[2:] in ([], page_ids(_load(req_path)))
    assert doctor(corpus).clean


def test_kill_while_quarantining_a_corrupt_journal(notebook_with_history) -> None:
    data, nbid, earlier_pages, _ = notebook_with_history
    corpus = Corpus.open(data)
    journal = corpus.notebook_dir(nbid) / ".ingest-journal.json"
    journal.write_bytes(b'{"format": "transcribe.ingest-journal", "state": "promo')
    assert run_driver(data, "recover", crash_at="quarantine.after_move") == -signal.SIGKILL
    assert run_driver(data, "recover") == 0
    corpus = Corpus.open(data)
    assert [p["id"] for p in assert_notebook_whole(corpus, nbid)["pages"]] == earlier_pages
    kept = sorted(p.name for p in corpus.quarantine_dir.iterdir())
    assert len(kept) == 2, kept  # the journal, and its report written on the second run
    assert (corpus.quarantine_dir / kept[0]).read_bytes().endswith(b'"state": "promo')
    assert kept[1] == kept[0].removesuffix(".json") + ".report.json"


def test_kill_while_repairing_a_torn_index(tmp_path: Path) -> None:
    data = tmp_path / "data"
    corpus = Corpus.open(data)
    ids = [new_id() for _ in range(3)]
    for nbid in ids:
        corpus.create_notebook(nbid, nbid[:6])
    raw = corpus.index_path.read_bytes()
    corpus.index_path.write_bytes(raw[:-30])  # the last registration torn
    assert run_driver(data, "recover", crash_at="doctor.index_copied") == -signal.SIGKILL
    assert run_driver(data, "recover") == 0
    corpus = Corpus.open(data)
    assert set(corpus.index_entries()) == set(ids)
    assert corpus.index_damage() == []
    assert doctor(corpus).clean
