"""Recovery of dead ingest journals (engine/ingest/recovery.py): roll back or forward, and
quarantine a journal that cannot be read, never delete it.

In-process cases first; then real processes killed (SIGKILL) inside recovery itself, where
a second recovery must still finish the job. Each killed case asserts the process really
died at its point, so a renamed or unreachable crash point fails instead of passing.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from transcribe_import.engine.base.findings import FindingCode
from transcribe_import.engine.doctor import doctor
from transcribe_import.engine.ingest import journal
from transcribe_import.engine.ingest.recovery import recover_journal
from transcribe_import.engine.ingest.transaction import ingest
from transcribe_import.engine.storage import locks
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import assert_notebook_whole, page_ids, request_for, request_from_json
from helpers.cli import Exit, run_driver
from helpers.journals import staging_journal
from helpers.shelves import make_pages

# The corpus, notebook and notebook_with_history fixtures are the shared ones (conftest.py).


def pages(tmp_path: Path, n: int) -> list[Path]:
    return make_pages(tmp_path / "src", n, start=0)


# -- in-process: a journal left behind is dealt with before the next ingest ------------------


def test_journal_left_by_dead_process_is_recovered_before_new_ingest(
    corpus, notebook, tmp_path
) -> None:
    nb_dir = corpus.notebook_dir(notebook)
    staging_journal(nb_dir, notebook)
    ingest(corpus, request_for(notebook, pages(tmp_path, 1)))
    assert len(assert_notebook_whole(corpus, notebook)["pages"]) == 1


def test_corrupt_journal_is_quarantined_never_deleted(corpus, notebook, tmp_path) -> None:
    nb_dir = corpus.notebook_dir(notebook)
    (nb_dir / ".ingest-journal.json").write_bytes(b'{"format": "transcribe.ingest-jou')
    ingest(corpus, request_for(notebook, pages(tmp_path, 1)))
    kept = sorted(p.name for p in corpus.quarantine_dir.iterdir())
    assert len(kept) == 2 and kept[1].endswith(".report.json")
    assert (corpus.quarantine_dir / kept[0]).read_bytes() == b'{"format": "transcribe.ingest-jou'
    report = orjson.loads((corpus.quarantine_dir / kept[1]).read_bytes())
    assert report["notebook_id"] == notebook and "JSON" in report["reason"]


def test_a_journal_another_process_holds_is_left_alone_and_the_notebook_named(
    corpus, notebook
) -> None:
    """A journal whose notebook lock another process holds is a live import: left alone, and
    the notebook named as a person knows it (“title” and short id), not by its whole id."""
    nb_dir = corpus.notebook_dir(notebook)
    staging_journal(nb_dir, notebook)
    before = (nb_dir / journal.JOURNAL_FILE).read_bytes()
    other = locks.make_lock(nb_dir / journal.LOCK_FILE)  # flock: another holder, as a process
    with other:
        [finding] = recover_journal(corpus, notebook)
    assert finding.code is FindingCode.JOURNAL_LIVE
    assert finding.message == (
        f"“Field notes” ({notebook[:8]}) has an import in progress in another process; left alone."
    )
    assert (nb_dir / journal.JOURNAL_FILE).read_bytes() == before


# -- a real process killed inside recovery ---------------------------------------------------


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


@pytest.mark.crash
@pytest.mark.parametrize(("first", "during_recovery"), RECOVERY_CASES)
def test_kill_inside_recovery(notebook_with_history, first: str, during_recovery: str) -> None:
    data, nbid, earlier_pages, req_path = notebook_with_history
    assert run_driver(data, "ingest", str(req_path), crash_at=first) == Exit.KILLED
    assert run_driver(data, "recover", crash_at=during_recovery) == Exit.KILLED
    assert run_driver(data, "recover") == 0
    corpus = Corpus.open(data)
    doc = assert_notebook_whole(corpus, nbid)
    listed = [p["id"] for p in doc["pages"]]
    assert listed[:2] == earlier_pages
    assert listed[2:] in ([], page_ids(request_from_json(req_path.read_bytes())))
    assert doctor(corpus).clean


@pytest.mark.crash
def test_kill_while_quarantining_a_corrupt_journal(notebook_with_history) -> None:
    data, nbid, earlier_pages, _ = notebook_with_history
    corpus = Corpus.open(data)
    journal = corpus.notebook_dir(nbid) / ".ingest-journal.json"
    journal.write_bytes(b'{"format": "transcribe.ingest-journal", "state": "promo')
    assert run_driver(data, "recover", crash_at="quarantine.after_move") == Exit.KILLED
    assert run_driver(data, "recover") == 0
    corpus = Corpus.open(data)
    assert [p["id"] for p in assert_notebook_whole(corpus, nbid)["pages"]] == earlier_pages
    kept = sorted(p.name for p in corpus.quarantine_dir.iterdir())
    assert len(kept) == 2, kept  # the journal, and its report written on the second run
    assert (corpus.quarantine_dir / kept[0]).read_bytes().endswith(b'"state": "promo')
    assert kept[1] == kept[0].removesuffix(".json") + ".report.json"
