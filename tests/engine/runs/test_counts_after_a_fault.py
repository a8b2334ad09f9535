"""Words after a fault (issue #36, finding 7): a notebook the disk fails to read is not counted
as holding none of a run's pages; the run's own record says how many landed."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from transcribe_import.engine.api.run_state import run_counts
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage import fsio
from transcribe_import.engine.storage.corpus import Corpus

from helpers.cli import cli_json, ok, run_cli
from helpers.shelves import make_shelf


@pytest.mark.parametrize("err", [errno.EIO, errno.EPERM, errno.ENOSPC])
def test_pages_landed_are_not_zero_when_the_disk_fails_to_read_a_notebook(
    tmp_path: Path, err: int
) -> None:
    """Main: "complete … 0 pages landed" though every page had landed."""
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(make_shelf(tmp_path / "shelf", notebooks=2)), "-o", str(plan)))
    run_id = cli_json(data, "commit", str(plan), "--json")["import_run_id"]
    corpus = Corpus.open(data)
    record = RunStore(corpus).load(run_id)
    assert run_counts(corpus, record).pages_landed == 6

    fsio.install_faults(fsio.FaultPlan(fail_at=1, errno=err, persistent=True))
    try:
        counted = run_counts(corpus, record)
    finally:
        fsio.install_faults(None)

    assert counted.pages_landed == 6 and counted.notebooks_complete == 2
