"""SIGKILL a real process at every named point of creation and ingest, then recover and check.

Each case asserts the process really died at the point (exit by SIGKILL), so a
renamed or unreachable crash point fails the test instead of passing vacuously.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.doctor import doctor
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import assert_notebook_whole, page_ids, request_from_json, snapshot
from helpers.cli import Exit, run_driver

pytestmark = pytest.mark.crash

# The notebook_with_history fixture is the shared one (tests/conftest.py). Crashes inside
# recovery itself are in tests/engine/ingest/test_recovery.py; inside doctor's index repair,
# in tests/engine/test_doctor.py.


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

    assert run_driver(data, "ingest", str(req_path), crash_at=point) == Exit.KILLED

    assert run_driver(data, "recover") == 0  # recovery in a fresh process
    corpus = Corpus.open(data)
    doc = assert_notebook_whole(corpus, nbid)
    listed = [p["id"] for p in doc["pages"]]
    assert listed[:2] == earlier_pages, "a page imported earlier was lost or moved"
    new_pages = page_ids(request_from_json(req_path.read_bytes()))
    assert listed[2:] in ([], new_pages), "the transaction landed partly"
    if not listed[2:]:
        assert snapshot(corpus.notebook_dir(nbid)) == before, "rollback left files behind"
    assert doctor(corpus).clean, "a second recovery still found something"

    # The retry with the same ids completes the import exactly once.
    assert run_driver(data, "ingest", str(req_path)) == 0
    doc = assert_notebook_whole(Corpus.open(data), nbid)
    assert [p["id"] for p in doc["pages"]] == earlier_pages + new_pages


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
    assert run_driver(data, "create", nbid, "Box 3 / Diary", crash_at=point) == Exit.KILLED

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
