"""fsio.open_regular: what every read of a source, a plan or a bag goes through.

Regular files only, judged on the opened descriptor; never past the planned size (or the
cap of its kind); a stop request honoured while a long read runs.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from transcribe_import.engine.base.errors import ErrorCode
from transcribe_import.engine.storage import fsio

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")

Reader = Callable[[Path], object]


def _copy(path: Path) -> object:
    return fsio.copy_hashed(path, path.parent / "copy.bin")


def _stream(path: Path) -> object:
    with fsio.open_read(path) as f:
        return f.read(10)


READERS: list[Reader] = [fsio.read_bytes, fsio.hash_file, _copy, _stream]


@pytest.mark.parametrize("read", READERS)
def test_a_named_pipe_without_a_writer_is_refused_at_once(tmp_path: Path, read: Reader) -> None:
    fifo = tmp_path / "page.jpg"
    os.mkfifo(fifo)  # opened for reading the usual way, this waits for a writer for good
    with pytest.raises(fsio.NotRegularFile) as caught:
        read(fifo)
    assert caught.value.kind == "a named pipe" and caught.value.filename == str(fifo)
    assert not (tmp_path / "copy.bin").exists()  # refused before anything was written


@pytest.mark.parametrize("read", READERS)
def test_a_link_to_a_device_is_refused_and_nothing_is_read(tmp_path: Path, read: Reader) -> None:
    link = tmp_path / "page.jpg"
    link.symlink_to("/dev/zero")
    with pytest.raises(fsio.NotRegularFile) as caught:
        read(link)
    assert caught.value.kind == "a device"
    assert not (tmp_path / "copy.bin").exists()


def test_a_folder_is_not_a_file(tmp_path: Path) -> None:
    with pytest.raises(fsio.NotRegularFile) as caught:
        fsio.read_bytes(tmp_path)
    assert caught.value.kind == "a folder"


def test_links_are_followed_unless_asked_not_to(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_bytes(b"abc")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    assert fsio.read_bytes(link) == b"abc"  # a shelf's linked page file is still read
    with pytest.raises(fsio.NotRegularFile) as caught:
        fsio.read_bytes(link, follow_links=False)  # a bag's file must not be a link
    assert caught.value.kind == "a symbolic link"


def test_a_planned_size_is_checked_on_the_opened_file(tmp_path: Path) -> None:
    path = tmp_path / "page.jpg"
    path.write_bytes(b"x" * 100)
    assert fsio.hash_file(path, size=100) == (hashlib.sha256(b"x" * 100).hexdigest(), 100)
    for planned in (99, 101):
        with pytest.raises(fsio.FileChanged) as caught:
            fsio.copy_hashed(path, tmp_path / "copy.bin", size=planned)
        assert caught.value.planned == planned
        assert not (tmp_path / "copy.bin").exists()


def test_a_file_that_grows_while_read_is_never_read_past_its_planned_size(tmp_path: Path) -> None:
    path = tmp_path / "page.jpg"
    path.write_bytes(b"x" * 1000)
    got = bytearray()
    with fsio.open_read(path, size=1000) as f:
        with path.open("ab") as grow:
            grow.write(b"y" * 5000)  # after the open: a copy still being written into it
        with pytest.raises(fsio.FileChanged):
            while chunk := f.read(300):
                got += chunk
    assert len(got) <= 1000 and set(got) <= {ord("x")}  # not one byte of the growth


def test_a_file_that_shrinks_while_read_is_changed_not_short(tmp_path: Path) -> None:
    path = tmp_path / "page.jpg"
    path.write_bytes(b"x" * 1000)
    with fsio.open_read(path, size=1000) as f:
        os.truncate(path, 400)
        with pytest.raises(fsio.FileChanged):
            f.read()


def test_a_document_larger_than_its_cap_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_bytes(b"{}" + b" " * 48)
    with pytest.raises(fsio.FileTooLarge) as caught:
        fsio.read_bytes(path, max_bytes=49)
    assert caught.value.limit == 49
    assert fsio.read_bytes(path, max_bytes=50) == b"{}" + b" " * 48
    with fsio.open_read(path, max_bytes=60) as f, pytest.raises(fsio.FileTooLarge):
        with path.open("ab") as grow:
            grow.write(b" " * 100)  # grown past the cap after the open
        f.read()


def test_seeking_reads_what_is_there_within_the_bound(tmp_path: Path) -> None:
    path = tmp_path / "page.jpg"
    data = bytes(range(256)) * 20_000  # 5 MB: more than one buffer and one chunk
    path.write_bytes(data)
    with fsio.open_read(path, size=len(data)) as f:
        assert f.seek(0, os.SEEK_END) == len(data)
        f.seek(len(data) - 10)
        assert f.read() == data[-10:]
        assert f.read() == b""  # at the end: no error, the file ends where it was planned
        f.seek(1234)
        assert f.read(5) == data[1234:1239] and f.tell() == 1239


def test_a_stop_request_ends_a_long_read_between_chunks(tmp_path: Path) -> None:
    path = tmp_path / "big.pdf"
    path.write_bytes(b"\0" * (8 * fsio.CHUNK))
    asked: list[int] = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) >= 3

    with pytest.raises(fsio.ReadStopped):
        fsio.copy_hashed(path, tmp_path / "copy.bin", size=8 * fsio.CHUNK, should_stop=stop)
    assert len(asked) == 3  # asked about once a MiB, and the copy stopped when told
    assert (tmp_path / "copy.bin").stat().st_size <= 3 * fsio.CHUNK


def test_refused_reads_are_coded_errors_that_name_the_file() -> None:
    shown = "shelf/notebook 1/page 2.jpg"
    cases = [
        (fsio.NotRegularFile("/x", "a named pipe"), ErrorCode.SOURCE_UNREADABLE, "named pipe"),
        (
            fsio.FileChanged("/x", 10, "12 bytes now"),
            ErrorCode.SOURCE_CHANGED,
            "since it was planned",
        ),
        (fsio.FileTooLarge("/x", 1024**3), ErrorCode.SOURCE_UNREADABLE, "larger than 1024 MiB"),
    ]
    for exc, code, words in cases:
        err = fsio.problem_from_oserror(exc, shown, "copying")
        assert err.code is code and err.path == shown
        assert str(err).startswith(shown) and words in str(err)
        assert "check the disk" not in str(err).lower()


def test_an_error_reading_the_file_being_copied_is_the_files_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = tmp_path / "page.jpg"
    src.write_bytes(b"x" * 100)

    def failing(self: object, buffer: object) -> int:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(fsio._BoundedRaw, "readinto", failing)
    with pytest.raises(fsio.SourceUnreadable) as caught:
        fsio.copy_hashed(src, tmp_path / "copy.bin", size=100)
    err = fsio.problem_from_oserror(caught.value, "shelf/page.jpg", "copying")
    assert err.code is ErrorCode.SOURCE_UNREADABLE  # an item's failure, not the run's
    assert "shelf/page.jpg could not be read (Input/output error)" in str(err)
    monkeypatch.undo()

    def full(op: str, path: object) -> None:
        if op == "fsync":
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(fsio, "_tick", full)
    with pytest.raises(OSError) as caught_full:
        fsio.copy_hashed(src, tmp_path / "copy2.bin", size=100)
    assert not isinstance(caught_full.value, fsio.RefusedRead)  # the destination's problem
    assert fsio.problem_from_oserror(caught_full.value, src, "copying").code is ErrorCode.DISK_FULL


def _visit_pipe(fifo: Path, done: threading.Event) -> None:
    """After 30 s, and then twice a second, open the pipe for writing and close it at once."""
    wait = 30.0
    while not done.wait(wait):
        wait = 0.5
        with contextlib.suppress(OSError):  # ENXIO: nobody waits on it, as it should be
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def test_a_page_file_swapped_for_a_pipe_after_the_walk_is_reported_not_waited_for(
    tmp_path: Path,
) -> None:
    from transcribe_import.engine.planning.scan import ScanPhase, scan

    from helpers.shelves import make_pages

    pages = make_pages(tmp_path / "shelf" / "nb", 2)
    gen = scan([tmp_path / "shelf"], workers=1)
    for progress in gen:
        if progress.phase is ScanPhase.WALKING and progress.current == "":
            break  # the walk's last word: both files found and stat'ed, none read yet
    pages[1].unlink()
    os.mkfifo(pages[1])
    # Should a regression open the pipe and wait, a writer comes after a while and leaves at
    # once: the reader gets an end of file, and the test fails instead of hanging the suite.
    done_event = threading.Event()
    rescue = threading.Thread(target=_visit_pipe, args=(pages[1], done_event), daemon=True)
    rescue.start()
    try:
        while True:
            next(gen)
    except StopIteration as done:
        result = done.value
    finally:
        done_event.set()
    bad = {f.rel: f.problem for f in result.files if f.problem is not None}
    (problem,) = bad.values()
    assert problem.code is ErrorCode.SOURCE_UNREADABLE and "a named pipe" in problem.message
    assert problem.path is not None and problem.path.endswith("page 2.jpg")
