"""engine.api drafts: a draft's counts come from its file, read once for each version of it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from transcribe_import.engine import api
from transcribe_import.engine.planning import plan as plan_module
from transcribe_import.engine.planning.plan import save_plan
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import page_image


@pytest.fixture
def corpus(data_dir: Path) -> Corpus:
    return Corpus.open(data_dir)


def _plan(corpus: Corpus, root: Path, notebooks: int, pages: int) -> api.ImportPlan:
    for n in range(notebooks):
        for p in range(1, pages + 1):
            page_image(root / f"notebook {n}" / f"page {p}.jpg", f"{root.name} {n}/{p}")
    planned = api.plan_paths(corpus, api.PlanRequest((root,)))
    assert planned is not None
    return planned.plan


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every plan document read from here on, by path."""
    done: list[Path] = []
    load = plan_module.load_plan

    def counted(path: Path) -> api.ImportPlan:
        done.append(path)
        return load(path)

    monkeypatch.setattr(plan_module, "load_plan", counted)
    return done


def test_a_draft_this_process_wrote_is_listed_without_reading_it_again(
    corpus: Corpus, tmp_path: Path, reads: list[Path]
) -> None:
    plan = _plan(corpus, tmp_path / "shelf", notebooks=2, pages=3)
    path = api.save_draft(corpus, plan)

    drafts = api.list_drafts(corpus)
    assert [(d.plan_id, d.path, d.notebooks, d.pages) for d in drafts] == [
        (plan.plan_id, path, 2, 6)
    ]
    assert drafts[0].problem is None
    assert reads == []  # counted when it was written
    assert api.list_drafts(corpus) == drafts
    assert reads == []


def test_a_draft_written_by_another_process_is_read_once_for_each_version(
    corpus: Corpus, tmp_path: Path, reads: list[Path]
) -> None:
    first = _plan(corpus, tmp_path / "one", notebooks=1, pages=2)
    path = api.save_draft(corpus, first)
    # Another writer replaces the file under the same name, as a second window would.
    other = _plan(corpus, tmp_path / "two", notebooks=3, pages=1)
    save_plan(other, path)

    [draft] = api.list_drafts(corpus)
    assert (draft.plan_id, draft.notebooks, draft.pages) == (other.plan_id, 3, 3)
    assert reads == [path]
    api.list_drafts(corpus)
    assert reads == [path]  # that version is counted now

    # Damaged in place, size and mtime changed: read again, and listed with its problem.
    path.write_bytes(b"{ not json")
    os.utime(path, ns=(1, 1))
    [damaged] = api.list_drafts(corpus)
    assert (damaged.notebooks, damaged.pages) == (0, 0)
    assert damaged.problem is not None and str(path) in damaged.problem
    assert reads == [path, path]


def test_a_window_started_later_lists_a_kept_draft_from_its_counts_without_reading_it(
    corpus: Corpus, tmp_path: Path, reads: list[Path]
) -> None:
    from transcribe_import.engine.api import drafts

    plan = _plan(corpus, tmp_path / "shelf", notebooks=2, pages=3)
    path = api.save_draft(corpus, plan)
    counts = path.with_name(path.name + ".counts")
    assert counts.is_file()
    drafts._counted.clear()  # what a new process starts from

    [draft] = api.list_drafts(corpus)
    assert (draft.plan_id, draft.path, draft.notebooks, draft.pages) == (plan.plan_id, path, 2, 6)
    assert reads == []

    # The counts of another version of the file are not taken: the draft is read.
    other = _plan(corpus, tmp_path / "two", notebooks=3, pages=1)
    save_plan(other, path)
    drafts._counted.clear()
    [draft] = api.list_drafts(corpus)
    assert (draft.plan_id, draft.notebooks, draft.pages) == (other.plan_id, 3, 3)
    assert reads == [path]

    # Read, its counts are kept for the next window.
    drafts._counted.clear()
    api.list_drafts(corpus)
    assert reads == [path]

    # Counts that are damaged, or say what no draft can, are not taken either.
    api.save_draft(corpus, plan)
    for damaged in (b"{ not json", b'{"file": [1, 2, 3], "plan_id": 7}'):
        counts.write_bytes(damaged)
        drafts._counted.clear()
        [draft] = api.list_drafts(corpus)
        assert (draft.plan_id, draft.notebooks, draft.pages) == (plan.plan_id, 2, 6)
    assert reads == [path, path, path]

    # A draft discarded takes its counts with it.
    api.discard_draft(corpus, plan.plan_id)
    assert not path.exists() and not counts.exists()
    assert api.list_drafts(corpus) == []
