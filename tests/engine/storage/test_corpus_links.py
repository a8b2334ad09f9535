"""The one guard of the corpus's folders: a link anywhere on the way is refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.storage import fsio
from transcribe_import.engine.storage.corpus import Corpus


def test_a_real_folder_or_one_not_made_yet_passes(tmp_path: Path) -> None:
    corpus = Corpus.open(tmp_path / "data")
    assert fsio.corpus_folder(corpus.root, corpus.runs_dir / "plans") == corpus.runs_dir / "plans"
    assert fsio.first_link(corpus.root, corpus.root / "trash" / "x" / "y") is None


def test_a_link_on_the_way_is_named_in_a_coded_refusal(tmp_path: Path) -> None:
    corpus = Corpus.open(tmp_path / "data")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (corpus.root / "trash").symlink_to(elsewhere, target_is_directory=True)

    with pytest.raises(TranscribeError) as caught:
        fsio.corpus_folder(corpus.root, corpus.root / "trash" / "entry" / "notebooks")

    assert caught.value.code is ErrorCode.CORPUS_LINK
    assert caught.value.path == str(corpus.root / "trash")
    assert str(elsewhere) in str(caught.value) and "doctor" in str(caught.value)


def test_the_data_folder_itself_may_be_reached_through_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real"
    Corpus.open(real)
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    corpus = Corpus.open(tmp_path / "link")
    assert fsio.first_link(corpus.root, corpus.notebooks_dir) is None


def test_a_linked_notebooks_folder_puts_every_notebook_outside(tmp_path: Path) -> None:
    corpus = Corpus.open(tmp_path / "data")
    nbid = "0b6f1c7e-8a0e-4b8e-9a53-2f9c0b1d2e3f"
    corpus.create_notebook(nbid, "one")
    moved = tmp_path / "notebooks-elsewhere"
    corpus.notebooks_dir.rename(moved)
    corpus.notebooks_dir.symlink_to(moved, target_is_directory=True)

    problem = corpus.outside_problem(nbid)

    assert problem is not None and problem.startswith(f"{corpus.notebooks_dir} is a symbolic link")
    with pytest.raises(TranscribeError) as caught:
        corpus.create_notebook("1b6f1c7e-8a0e-4b8e-9a53-2f9c0b1d2e3f", "two")
    assert caught.value.code is ErrorCode.CORPUS_LINK
    assert sorted(p.name for p in moved.iterdir()) == [nbid]


def test_links_under_lists_every_link_and_follows_none(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "a" / "b").mkdir(parents=True)
    target = tmp_path / "t"
    (target / "deep").mkdir(parents=True)
    (root / "a" / "to-dir").symlink_to(target, target_is_directory=True)
    (root / "a" / "b" / "to-file").symlink_to(tmp_path / "missing")
    assert fsio.links_under(root) == [root / "a" / "b" / "to-file", root / "a" / "to-dir"]
