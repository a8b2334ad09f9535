"""fsio's guard: every write, rename and removal below a corpus is refused through a
symbolic link, by name, before the disk is touched (issue #36)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.media import thumbs
from transcribe_import.engine.planning import look_cache
from transcribe_import.engine.planning.look_cache import LookCache
from transcribe_import.engine.storage import fsio, locks
from transcribe_import.engine.storage.corpus import Corpus


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


@pytest.fixture
def linked(corpus: Corpus, tmp_path: Path) -> tuple[Path, Path]:
    """``corpus/cache/away`` a link to ``outside``, which holds ``kept/a.bin``: (link, outside)."""
    outside = tmp_path / "outside"
    (outside / "kept").mkdir(parents=True)
    (outside / "kept" / "a.bin").write_bytes(b"theirs")
    (corpus.root / "cache").mkdir(exist_ok=True)
    link = corpus.root / "cache" / "away"
    link.symlink_to(outside, target_is_directory=True)
    return link, outside


def _calls(link: Path, tmp_path: Path) -> dict[str, Callable[[], object]]:
    mine = tmp_path / "mine.bin"
    return {
        "make_dirs": lambda: fsio.make_dirs(link / "new"),
        "make_dirs_durable": lambda: fsio.make_dirs_durable(link / "new" / "deeper"),
        "write_new": lambda: fsio.write_new(link / "n.bin", b"x"),
        "atomic_write": lambda: fsio.atomic_write(link / "kept" / "a.bin", b"x"),
        "append_durable": lambda: fsio.append_durable(link / "kept" / "a.bin", b"x"),
        "truncate": lambda: fsio.truncate(link / "kept" / "a.bin", 0),
        "copy_hashed": lambda: fsio.copy_hashed(mine, link / "c.bin"),
        "replace_out": lambda: fsio.replace(link / "kept" / "a.bin", tmp_path / "taken"),
        "replace_in": lambda: fsio.replace(mine, link / "kept" / "a.bin"),
        "remove": lambda: fsio.remove(link / "kept" / "a.bin"),
        "remove_dir": lambda: fsio.remove_dir(link / "kept"),
        "remove_tree": lambda: fsio.remove_tree(link / "kept"),
        "write_disposable": lambda: fsio.write_disposable(link / "kept" / "a.bin", b"x"),
        "append_disposable": lambda: fsio.append_disposable(link / "kept" / "a.bin", b"x"),
    }


@pytest.mark.parametrize("call", sorted(_calls(Path("x"), Path("y"))))
def test_every_writing_call_is_refused_through_a_link(
    linked: tuple[Path, Path], tmp_path: Path, call: str
) -> None:
    link, outside = linked
    (tmp_path / "mine.bin").write_bytes(b"mine")
    before = _snapshot(outside)

    with pytest.raises(fsio.LinkInCorpus) as refused:
        _calls(link, tmp_path)[call]()

    assert refused.value.link == link
    assert _snapshot(outside) == before and sorted(outside.iterdir()) == [outside / "kept"]
    coded = fsio.problem_from_oserror(refused.value, link / "kept", "writing")
    assert coded.code is ErrorCode.CORPUS_LINK
    assert str(coded).startswith(f"{link} is a symbolic link (to {outside})")


def test_a_file_of_the_corpus_that_is_a_link_is_refused_too(corpus: Corpus, tmp_path: Path) -> None:
    outside = tmp_path / "theirs.txt"
    outside.write_bytes(b"theirs")
    link = corpus.root / "index-copy.jsonl"
    link.symlink_to(outside)
    with pytest.raises(fsio.LinkInCorpus):
        fsio.append_durable(link, b"x")
    assert outside.read_bytes() == b"theirs"


def test_paths_outside_every_corpus_are_not_judged(corpus: Corpus, tmp_path: Path) -> None:
    away = tmp_path / "away"
    (tmp_path / "real").mkdir()
    away.symlink_to(tmp_path / "real", target_is_directory=True)
    fsio.write_new(away / "f.bin", b"x")  # an export's destination may be reached by a link
    assert (tmp_path / "real" / "f.bin").read_bytes() == b"x"


def test_prune_removes_nothing_through_a_linked_cache_folder(
    corpus: Corpus, tmp_path: Path
) -> None:
    cache = thumbs.cache_dir(corpus.root)
    cache.mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "ab-0-160.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"x" * 100)
    (cache / "ab").symlink_to(outside, target_is_directory=True)

    thumbs.prune(cache, limit=0)

    assert [p.name for p in outside.iterdir()] == ["ab-0-160.png"]


def test_a_thumbnail_is_not_kept_through_a_linked_cache(corpus: Corpus, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    cache = thumbs.cache_dir(corpus.root)
    cache.parent.mkdir(parents=True)
    cache.symlink_to(outside, target_is_directory=True)

    thumbs.keeper(cache, "ab" * 32)(0, 160, b"\x89PNG\r\n\x1a\npng")

    assert list(outside.iterdir()) == []


def test_looks_are_not_kept_through_a_linked_cache_file(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "theirs.jsonl"
    outside.write_bytes(b"mine\n")
    looks = LookCache(corpus.root)
    looks.path.parent.mkdir(parents=True)
    looks.path.symlink_to(outside)

    looks.add({"ab#0": None})  # appended
    monkeypatch.setattr(look_cache, "LIMIT_BYTES", 1)  # and written again whole, at once
    look_cache._trim(looks.path, "looks")

    assert outside.read_bytes() == b"mine\n"


def test_a_lock_file_is_not_made_through_a_link(linked: tuple[Path, Path]) -> None:
    """filelock makes a lock file with its own open(), past fsio: the locks ask the guard."""
    link, outside = linked
    before = _snapshot(outside)
    lock = locks.make_lock(link / "kept" / ".ingest.lock")

    for take in (
        lambda: locks.acquire(lock, 0.0, ErrorCode.NOTEBOOK_BUSY, "busy"),
        lambda: locks.try_acquire(lock),
        lambda: locks.held_elsewhere(lock),
    ):
        with pytest.raises(TranscribeError) as refused:
            take()
        assert refused.value.code is ErrorCode.CORPUS_LINK
        assert str(refused.value).startswith(f"{link} is a symbolic link (to {outside})")
    assert _snapshot(outside) == before and sorted((outside / "kept").iterdir()) == [
        outside / "kept" / "a.bin"
    ]
