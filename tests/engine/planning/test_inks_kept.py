"""The inks a plan's verifications compare are kept by their bytes, compressed, so that a
shelf's candidate pages are each made from their file once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from transcribe_import.engine.media import ink, lookalike
from transcribe_import.engine.planning import inks

from helpers.lookalike_set import notebook_scan, save_jpeg


@pytest.fixture(autouse=True)
def _nothing_kept() -> Iterator[None]:
    inks.forget()
    yield
    inks.forget()


def _seen(path: Path) -> ink.Ink:
    data = path.read_bytes()
    [seen] = lookalike.page_seen(path, "image/jpeg", 1, size=len(data), data=data)
    assert seen is not None
    return seen.ink


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> ink.Ink:
    """A page full of writing, as the look pass makes its ink."""
    return _seen(save_jpeg(notebook_scan(1), tmp_path_factory.mktemp("inks") / "01.jpg"))


def _sparse(tmp_path: Path) -> ink.Ink:
    """A page with a date line alone: its ink has its written part at ``DETAIL_SIDE``."""
    from PIL import Image, ImageDraw

    page = Image.new("RGB", (1240, 1754), (244, 238, 222))
    ImageDraw.Draw(page).text((160, 200), "Tuesday 4 March 1931", fill=(30, 30, 60))
    found = _seen(save_jpeg(page, tmp_path / "date.jpg"))
    assert found.detail is not None
    return found


def test_a_kept_ink_comes_back_as_it_was_to_a_255th(written: ink.Ink, tmp_path: Path) -> None:
    sparse = _sparse(tmp_path)
    inks.keep("full#0", written)
    inks.keep("date#0", sparse)
    inks.keep("blank#0", None)
    for key, made in (("full#0", written), ("date#0", sparse)):
        back = inks.ink_of(key, None)
        assert back is not None
        assert back.pixels.shape == made.pixels.shape
        assert np.abs(back.pixels - made.pixels).max() <= 0.5 / 255 + 1e-6
        if made.detail is None:
            assert back.detail is None
        else:
            assert back.detail is not None
            assert np.abs(back.detail - made.detail).max() <= 0.5 / 255 + 1e-6
    assert inks.ink_of("blank#0", None) is None  # kept as having none: not made again


def test_a_shelfs_candidate_pages_are_all_kept_where_a_count_of_256_let_most_go(
    written: ink.Ink,
) -> None:
    """2,000 pages of full writing (a 20,000-page shelf's candidates are some thousands)
    fit in the bytes kept; the ink of the first is still there when the last is kept."""
    for k in range(2_000):
        inks.keep(f"page{k}#0", written)
    assert inks.ink_of("page0#0", None) is not None
    assert inks._kept_bytes <= inks.LIMIT_BYTES


def test_the_inks_kept_stay_within_their_bytes_the_oldest_let_go_first(
    written: ink.Ink, monkeypatch: pytest.MonkeyPatch
) -> None:
    inks.keep("probe#0", written)
    one = inks._kept_bytes
    inks.forget()
    monkeypatch.setattr(inks, "LIMIT_BYTES", 10 * one)
    for k in range(25):
        inks.keep(f"page{k}#0", written)
        assert inks._kept_bytes <= 10 * one
    kept = [k for k in range(25) if inks.ink_of(f"page{k}#0", None) is not None]
    assert kept == list(range(15, 25))
    inks.keep("page15#0", written)  # kept again: counted once, not twice
    assert inks._kept_bytes == 10 * one


def _page_file(path: Path) -> inks.PageFile:
    import hashlib

    data = path.read_bytes()
    return inks.PageFile(path, hashlib.sha256(data).hexdigest(), len(data), "image/jpeg", 0, 1)


def _counted_makes(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    made: list[Path] = []
    real = inks._made

    def counted(w: inks.PageFile) -> ink.Ink | None:
        made.append(w.path)
        return real(w)

    monkeypatch.setattr(inks, "_made", counted)
    return made


def test_a_page_asked_for_again_is_made_from_its_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = save_jpeg(notebook_scan(2), tmp_path / "02.jpg")
    where = _page_file(path)
    made = _counted_makes(monkeypatch)
    first = inks.ink_of("02#0", where)
    for k in range(300):  # more pages kept since than the 256 inks kept before
        inks.keep(f"other{k}#0", first)
    assert inks.ink_of("02#0", where) is not None
    assert made == [path]


# -- the spill: inks let go from memory, read back instead of made again -------------------


def _small_memory(monkeypatch: pytest.MonkeyPatch, found: ink.Ink, pages: int) -> None:
    """Memory for ``pages`` pages like ``found`` alone."""
    inks.keep("probe#0", found)
    one = inks._kept_bytes
    inks.forget()
    monkeypatch.setattr(inks, "LIMIT_BYTES", pages * one)


def _made_then_ten_kept(
    n: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, inks.PageFile, list[Path], ink.Ink]:
    """Page ``n``'s file, where it is, the inks made from files from here on (its own
    first), and its ink, with memory for ten pages like it from here on."""
    path = save_jpeg(notebook_scan(n), tmp_path / "src" / f"{n:02}.jpg")
    where = _page_file(path)
    made = _counted_makes(monkeypatch)
    first = inks.ink_of(f"{n:02}#0", where)
    assert first is not None
    _small_memory(monkeypatch, first, 10)
    return path, where, made, first


def test_an_ink_let_go_from_memory_is_read_back_from_the_spill_not_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, where, made, first = _made_then_ten_kept(2, tmp_path, monkeypatch)
    inks.spill_into(tmp_path / "corpus")
    assert inks.ink_of("02#0", where) is not None
    inks.keep("blank#0", None)
    for k in range(30):  # three times what memory holds: 02 and blank let go
        inks.keep(f"other{k}#0", first)
    assert "02#0" not in inks._inks and "blank#0" not in inks._inks
    back = inks.ink_of("02#0", where)
    assert back is not None
    assert np.array_equal(back.pixels, first.pixels)  # as kept, to a 255th: the same
    assert inks.ink_of("blank#0", None) is None  # spilled as having none
    assert made == [path, path]  # once before ``forget``, once after: never from the spill
    assert inks._kept_bytes <= inks.LIMIT_BYTES
    # The spill has no name: nothing is left in the corpus's cache folder to tidy up.
    assert list((tmp_path / "corpus" / "cache").iterdir()) == []


def test_without_room_for_the_spill_an_ink_let_go_is_made_again_from_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A disk with less than ``SPILL_FREE_FLOOR`` free is left to the import: nothing is
    spilled, and a verification makes the ink again, as with no spill at all."""
    path, where, made, first = _made_then_ten_kept(3, tmp_path, monkeypatch)
    monkeypatch.setattr(inks, "SPILL_FREE_FLOOR", 2**62)
    inks.spill_into(tmp_path / "corpus")
    inks.ink_of("03#0", where)
    for k in range(30):
        inks.keep(f"other{k}#0", first)
    assert inks.ink_of("03#0", where) is not None
    assert made == [path, path, path]


def test_a_spill_whose_disk_fills_stops_spilling_and_loses_no_ink(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, written: ink.Ink
) -> None:
    """The disk fills part way (ENOSPC on a write): the inks spilled until then come back,
    the rest are let go (made again from their files when asked for), and nothing fails."""
    import errno
    import io

    class FillsUp(io.BytesIO):
        def write(self, data: bytes) -> int:  # type: ignore[override]
            if self.tell() + len(data) > 3 * len(data):
                raise OSError(errno.ENOSPC, "No space left on device")
            return super().write(data)

    from transcribe_import.engine.storage import fsio

    monkeypatch.setattr(fsio, "scratch_file", lambda directory: FillsUp())
    _small_memory(monkeypatch, written, 2)
    inks.spill_into(tmp_path / "corpus")
    for k in range(10):
        inks.keep(f"page{k}#0", written)
    back = [k for k in range(10) if inks.ink_of(f"page{k}#0", None) is not None]
    # Pages 0-2 spilled, 3-7 let go once the disk was full (and 8-9 too, as the reads back
    # of 0-2 put them in memory again).
    assert back[:3] == [0, 1, 2]
    assert 3 not in back and 7 not in back


def test_a_cache_folder_that_is_a_link_is_not_spilled_into(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, written: ink.Ink
) -> None:
    """Nothing is written through a link inside a corpus (fsio's guard): a cache folder that
    is one is left alone, and the inks let go are simply let go."""
    from transcribe_import.engine.storage.corpus import Corpus

    corpus = Corpus.open(tmp_path / "data")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cache = corpus.root / "cache"
    if cache.exists():
        cache.rmdir()
    cache.symlink_to(elsewhere, target_is_directory=True)
    _small_memory(monkeypatch, written, 2)
    inks.spill_into(corpus.root)
    for k in range(6):
        inks.keep(f"page{k}#0", written)
    assert inks._spill is False
    assert inks.ink_of("page0#0", None) is None  # let go, not spilled
    assert list(elsewhere.iterdir()) == []
