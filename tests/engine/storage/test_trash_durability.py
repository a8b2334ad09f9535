"""A revert makes each folder it creates in the trash durable before anything depends on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from transcribe_import.engine import api
from transcribe_import.engine.runs.model import RunStatus
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage import fsio
from transcribe_import.engine.storage.corpus import Corpus

from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_pages, make_shelf

WRITES = {"write", "replace", "append"}  # fsio's operations that put a name in a folder


def _calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Path]]:
    """Every file-system call fsio makes from now on, as (operation, path)."""
    calls: list[tuple[str, Path]] = []
    monkeypatch.setattr(fsio, "_tick", lambda op, path: calls.append((op, Path(path))))
    return calls


@pytest.mark.parametrize("whole", [True, False], ids=["created", "added-to"])
def test_each_trash_folder_is_fsynced_before_what_depends_on_it(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, whole: bool
) -> None:
    first = commit_plan(corpus, plan_for(corpus, make_shelf(tmp_path / "shelf", 1, 2)))
    run = first
    if not whole:
        target = next(iter(corpus.index_entries()))
        make_pages(tmp_path / "late", 2, name="late {i}.png")
        run = commit_plan(corpus, plan_for(corpus, tmp_path / "late", mode=f"into:{target}"))
    assert run.status is RunStatus.COMPLETE
    calls = _calls(monkeypatch)

    result = api.revert(corpus, run.run_id)

    made = [path for op, path in calls if op == "mkdir"]
    assert result.trash_dir in made
    record = RunStore(corpus).record_path(run.run_id)
    record_written = max(k for k, (op, path) in enumerate(calls) if path == record)
    for folder in {p for p in made if p.is_relative_to(result.trash_dir.parent)}:
        created = calls.index(("mkdir", folder))
        synced = calls.index(("fsync_dir", folder.parent), created)
        # Before anything is written or renamed into it, and before the record says reverted.
        into = [k for k, (op, p) in enumerate(calls) if op in WRITES and folder in p.parents]
        assert synced < min(into, default=record_written), folder
        assert synced < record_written
