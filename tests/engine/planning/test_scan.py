"""Scan: what is found, what is ignored and why, problems per file, progress and cancel."""

from __future__ import annotations

import errno
import hashlib
import inspect
import io
import json
import os
import random
import sys
import threading
import time
import unicodedata
from pathlib import Path

import pytest
from PIL import Image

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.text import natural_key
from transcribe_import.engine.planning import scan as scan_module
from transcribe_import.engine.planning.scan import (
    FoundFile,
    ScanCancelled,
    ScannedFile,
    ScanPhase,
    ScanProgress,
    ScanResult,
    run_scan,
    scan,
    walk,
)
from transcribe_import.engine.storage import fsio

from helpers.export import drain
from media_factory import (
    make_bomb_png,
    make_corrupt_pdf,
    make_empty_file,
    make_encrypted_pdf,
    make_jpeg,
    make_multiframe_tiff,
    make_pdf,
    make_png,
    make_text_file,
    make_truncated_jpeg,
)


def _tiny_jpeg_bytes() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 190, 170)).save(buf, "JPEG")
    return buf.getvalue()


TINY_JPEG = _tiny_jpeg_bytes()


def tiny_jpegs(folder: Path, count: int, start: int = 0) -> list[Path]:
    """Valid 8x8 JPEGs with distinct bytes (a counter after the end marker), made fast."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(start, start + count):
        p = folder / f"p{i}.jpg"
        p.write_bytes(TINY_JPEG + str(i).encode())
        paths.append(p)
    return paths


def by_rel(result: ScanResult) -> dict[str, ScannedFile]:
    return {f.rel: f for f in result.files}


def ignored_reasons(result: ScanResult) -> dict[str, tuple[str, bool]]:
    return {i.rel: (i.reason, i.junk) for i in result.ignored}


# -- what is found ---------------------------------------------------------------------------


def test_scan_finds_page_files_with_their_facts(tmp_path: Path) -> None:
    box = tmp_path / "box"
    make_jpeg(box / "nb1" / "p 1.jpg", (300, 200), datetime_original="2021:03:04 05:06:07")
    make_jpeg(box / "nb1" / "p 10.jpg")
    make_png(box / "nb1" / "P 2.PNG")
    make_pdf(box / "nb2" / "doc.pdf", 3)
    make_multiframe_tiff(box / "nb2" / "multi.tiff", 4)

    result = run_scan([box])

    assert result.roots == (box,)
    assert [f.rel for f in result.files] == [
        "box/nb1/p 1.jpg",
        "box/nb1/P 2.PNG",
        "box/nb1/p 10.jpg",
        "box/nb2/doc.pdf",
        "box/nb2/multi.tiff",
    ]
    files = by_rel(result)
    first = files["box/nb1/p 1.jpg"]
    assert first.path == box / "nb1" / "p 1.jpg"
    assert first.root == box
    assert first.name == "p 1.jpg"
    assert first.media_type == "image/jpeg"
    assert (first.width, first.height, first.page_count) == (300, 200, 1)
    assert first.captured_at == "2021-03-04T05:06:07"
    assert first.sha256 == hashlib.sha256(first.path.read_bytes()).hexdigest()
    st = first.path.stat()
    assert (first.size, first.mtime_ns) == (st.st_size, st.st_mtime_ns)
    assert first.mtime.endswith("Z") and first.mtime.startswith(time.strftime("%Y", time.gmtime()))
    assert first.problem is None
    assert files["box/nb1/P 2.PNG"].media_type == "image/png"
    assert files["box/nb2/doc.pdf"].page_count == 3
    assert files["box/nb2/doc.pdf"].media_type == "application/pdf"
    assert files["box/nb2/multi.tiff"].page_count == 4
    assert result.ignored == ()


def test_root_files_and_several_roots_keep_root_order(tmp_path: Path) -> None:
    make_jpeg(tmp_path / "b" / "x 1.jpg")
    single = make_pdf(tmp_path / "loose" / "Notebook 7.pdf", 1)
    text = make_text_file(tmp_path / "loose" / "notes.txt")

    result = run_scan([tmp_path / "b", single, text])

    assert [f.rel for f in result.files] == ["b/x 1.jpg", "Notebook 7.pdf"]
    assert result.files[1].root == single
    assert ignored_reasons(result) == {"notes.txt": ("not a page file (.txt)", False)}


def test_a_root_given_twice_or_inside_another_is_scanned_once(tmp_path: Path) -> None:
    page = make_jpeg(tmp_path / "box" / "nb" / "a.jpg")

    result = run_scan([tmp_path / "box", tmp_path / "box" / "nb", page])

    assert [f.rel for f in result.files] == ["box/nb/a.jpg"]
    reasons = ignored_reasons(result)
    assert reasons["nb"] == ("folder already scanned (box/nb)", False)
    assert reasons["a.jpg"] == ("file already scanned", False)


def test_missing_root_is_a_coded_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "gone"
    with pytest.raises(TranscribeError) as info:
        run_scan([missing])
    assert info.value.code is ErrorCode.SOURCE_MISSING
    assert info.value.path == str(missing)
    assert "no such file or folder" in str(info.value)
    assert str(missing) in str(info.value)


def test_natural_key_is_path_aware_and_ignores_case() -> None:
    rels = ["a/p10.jpg", "a b/x.jpg", "a/P1.png", "a/p2.jpg", "a.jpg", "a/b/c.jpg"]
    assert sorted(rels, key=natural_key) == [
        "a.jpg",
        "a/b/c.jpg",
        "a/P1.png",
        "a/p2.jpg",
        "a/p10.jpg",
        "a b/x.jpg",
    ]


def _found(rng: random.Random, trees: int) -> list[tuple[int, FoundFile]]:
    """Files of a few roots under folders and names natural order finds hard: numbers with
    and without zeros, cases, NFC and NFD, names that start others, a second dot, an
    undecodable byte; some files sharing a rel (one name in NFC, one in NFD)."""
    words = ["page", "Page", "p", "f.", "IMG_", "b 1", "b", "b10", "b2", "é", "e\u0301", "x.y"]
    words += ["1", "01", "001", "cover", "z", "a\udce9"]
    exts = [".jpg", ".JPG", ".tif", "", ".jpeg", ".12", ".a.b"]

    def part() -> str:
        number = str(rng.randint(0, 120)) if rng.random() < 0.8 else ""
        return rng.choice(words) + rng.choice(["", " ", "-"]) + number + rng.choice(["", "r"])

    folders = ["/".join(part() for _ in range(rng.randint(0, 3))) for _ in range(trees)]
    found = []
    for _ in range(rng.randint(1, 200)):
        name = part() + rng.choice(exts)
        rel = "/".join(p for p in ("shelf", rng.choice(folders), name) if p)
        shown = unicodedata.normalize("NFC", rel)
        found.append((rng.randint(0, 2), FoundFile(f"/x/{rel}", Path("/x"), shown, 1, 1)))
    return found


@pytest.mark.parametrize("seed", range(40))
def test_files_are_sorted_by_their_natural_keys(seed: int) -> None:
    """The ranked byte keys sort the files exactly as their natural keys do."""
    found = _found(random.Random(seed), trees=6)
    by_keys = sorted(found, key=lambda it: (it[0], natural_key(it[1].rel), it[1].fspath))
    assert scan_module._sorted_files(found) == tuple(f for _, f in by_keys)


def test_each_folder_and_name_is_read_once_for_the_sort(monkeypatch: pytest.MonkeyPatch) -> None:
    """A natsort key is made for each distinct folder and name, not for each file: 40
    notebooks of the same 50 page names are 40 folders and 50 names read."""
    calls = {"folder": 0, "name": 0}
    folder_parts, name_parts = scan_module.folder_parts, scan_module.name_parts

    def folder(text: str) -> object:
        calls["folder"] += 1
        return folder_parts(text)

    def name(text: str) -> object:
        calls["name"] += 1
        return name_parts(text)

    monkeypatch.setattr(scan_module, "folder_parts", folder)
    monkeypatch.setattr(scan_module, "name_parts", name)
    found = [
        (0, FoundFile(f"/x/nb {n}/p {p}.jpg", Path("/x"), f"x/nb {n}/p {p}.jpg", 1, 1))
        for p in range(50, 0, -1)
        for n in range(40)
    ]
    ordered = scan_module._sorted_files(found)
    assert [f.rel for f in ordered[:3]] == ["x/nb 0/p 1.jpg", "x/nb 0/p 2.jpg", "x/nb 0/p 3.jpg"]
    assert calls == {"folder": 40, "name": 50}


# -- what is ignored -------------------------------------------------------------------------


def test_junk_is_ignored_and_flagged(tmp_path: Path) -> None:
    box = tmp_path / "box"
    make_jpeg(box / "page.jpg")
    for name in (".DS_Store", "THUMBS.DB", "desktop.ini", "._page.jpg", ".secret.jpg"):
        (box / name).write_bytes(b"junk")
    make_jpeg(box / ".git" / "inside.jpg")
    make_jpeg(box / "__MACOSX" / "page.jpg")

    result = run_scan([box])

    assert [f.rel for f in result.files] == ["box/page.jpg"]
    assert ignored_reasons(result) == {
        "box/.DS_Store": ("system file", True),
        "box/THUMBS.DB": ("system file", True),
        "box/desktop.ini": ("system file", True),
        "box/._page.jpg": ("system file", True),
        "box/.secret.jpg": ("hidden file", True),
        "box/.git": ("hidden folder", True),
        "box/__MACOSX": ("system folder", True),
    }


def test_non_page_files_are_ignored_with_a_reason(tmp_path: Path) -> None:
    box = tmp_path / "box"
    make_jpeg(box / "page.jpg")
    make_text_file(box / "notes.TXT")
    make_text_file(box / "README")
    (box / "scan.gif").write_bytes(b"GIF89a")

    reasons = ignored_reasons(run_scan([box]))

    assert reasons == {
        "box/notes.TXT": ("not a page file (.txt)", False),
        "box/README": ("not a page file (no extension)", False),
        "box/scan.gif": ("not a page file (.gif)", False),
    }


def test_symbolic_link_loops_end_and_are_reported(tmp_path: Path) -> None:
    box = tmp_path / "box"
    make_jpeg(box / "nb" / "a.jpg")
    os.symlink("..", box / "nb" / "up")  # back to box: a loop
    os.symlink(box / "nb", box / "again")  # the same folder a second time: no loop
    os.symlink("self", box / "self")  # a link to itself
    os.symlink("nowhere", box / "broken.jpg")

    result = run_scan([box])

    assert [f.rel for f in result.files] == ["box/nb/a.jpg"]
    reasons = ignored_reasons(result)
    assert reasons["box/nb/up"] == ("symbolic link loop", False)
    assert reasons["box/self"] == ("symbolic link loop", False)
    assert reasons["box/broken.jpg"] == ("broken symbolic link", False)
    # Real folders are walked before links are followed, so nb keeps its own name.
    assert reasons["box/again"] == ("folder already scanned (box/nb)", False)


def test_links_to_folders_and_files_are_followed(tmp_path: Path) -> None:
    make_jpeg(tmp_path / "elsewhere" / "nb" / "a.jpg")
    make_jpeg(tmp_path / "elsewhere" / "b.jpg")
    box = tmp_path / "box"
    box.mkdir()
    os.symlink(tmp_path / "elsewhere" / "nb", box / "linked")
    os.symlink(tmp_path / "elsewhere" / "b.jpg", box / "b.jpg")

    result = run_scan([box])

    assert [f.rel for f in result.files] == ["box/b.jpg", "box/linked/a.jpg"]
    assert result.files[1].path == box / "linked" / "a.jpg"


def test_named_pipe_with_a_page_name_is_not_opened(tmp_path: Path) -> None:
    box = tmp_path / "box"
    box.mkdir()
    os.mkfifo(box / "pipe.jpg")
    result = run_scan([box])
    assert result.files == ()
    assert ignored_reasons(result) == {"box/pipe.jpg": ("not a regular file", False)}


def test_unreadable_folder_is_reported_and_the_scan_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    box = tmp_path / "box"
    make_jpeg(box / "ok" / "a.jpg")
    make_jpeg(box / "locked" / "b.jpg")
    real_scandir = os.scandir

    def scandir(path: str) -> object:
        if Path(path).name == "locked":
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    result = run_scan([box])

    assert [f.rel for f in result.files] == ["box/ok/a.jpg"]
    assert ignored_reasons(result) == {
        "box/locked": ("folder cannot be read: permission denied", False)
    }


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads folders whatever their mode")
def test_unreadable_folder_for_real(tmp_path: Path) -> None:
    box = tmp_path / "box"
    make_jpeg(box / "ok" / "a.jpg")
    make_jpeg(box / "locked" / "b.jpg")
    (box / "locked").chmod(0)
    try:
        result = run_scan([box])
    finally:
        (box / "locked").chmod(0o755)
    assert [f.rel for f in result.files] == ["box/ok/a.jpg"]
    assert ignored_reasons(result)["box/locked"][0] == "folder cannot be read: permission denied"


def test_deep_trees_need_no_recursion(tmp_path: Path) -> None:
    # A recursive walk would need a frame per level; the limit is lowered below the depth
    # rather than the tree made deeper than 1,000 (pytest's own cleanup of tmp_path is
    # recursive and would fail on such a tree).
    depth = 300
    path = tmp_path / "deep"
    for _ in range(depth):
        path = path / "d"
        path.mkdir(parents=True)
    (path / "a.jpg").write_bytes(TINY_JPEG)
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + depth // 2)
    try:
        _, walked = drain(walk([tmp_path / "deep"]))
    finally:
        sys.setrecursionlimit(old_limit)
    assert [f.rel for f in walked.files] == ["deep/" + "d/" * depth + "a.jpg"]


# -- names -----------------------------------------------------------------------------------


def test_names_differing_only_in_normalisation_both_appear(tmp_path: Path) -> None:
    box = tmp_path / "box"
    nfc = unicodedata.normalize("NFC", "café.jpg")
    nfd = unicodedata.normalize("NFD", "café.jpg")
    (box / "Übung").mkdir(parents=True)
    folder_nfd = box / unicodedata.normalize("NFD", "Übung")
    folder_nfd.mkdir(exist_ok=True)
    (box / nfc).write_bytes(TINY_JPEG + b"1")
    (box / nfd).write_bytes(TINY_JPEG + b"2")
    (folder_nfd / "a.jpg").write_bytes(TINY_JPEG)
    if len(os.listdir(box)) != 4:
        pytest.skip("this file system normalises names")

    result = run_scan([box])

    rels = [f.rel for f in result.files]
    assert rels.count("box/café.jpg") == 2
    assert all(unicodedata.is_normalized("NFC", r) for r in rels)
    assert "box/Übung/a.jpg" in rels
    # path stays as the file system spelled it, so reading works.
    assert {f.path.name for f in result.files} >= {nfc, nfd}
    assert len({f.sha256 for f in result.files if f.name == "café.jpg"}) == 2
    nfd_file = next(f for f in result.files if f.path.name == nfd)
    assert nfd_file.path.read_bytes() == TINY_JPEG + b"2"


def test_undecodable_name_keeps_its_path_and_gets_a_readable_rel(tmp_path: Path) -> None:
    box = tmp_path / "box"
    box.mkdir()
    raw = os.fsencode(box) + b"/caf\xe9.jpg"
    with open(raw, "wb") as f:
        f.write(TINY_JPEG)
    result = run_scan([box])
    (found,) = result.files
    assert found.rel == "box/caf\ufffd.jpg"
    assert os.fsencode(found.path) == raw
    assert found.problem is None and found.sha256 is not None
    json.dumps(found.rel).encode("utf-8")


# -- problems --------------------------------------------------------------------------------


# pypdf logs this when it reads the damaged PDF.
@pytest.mark.allow_logged_warnings(r"EOF marker not found")
@pytest.mark.parametrize(
    ("name", "make", "code"),
    [
        ("corrupt.pdf", make_corrupt_pdf, ErrorCode.CORRUPT_PDF),
        ("locked.pdf", make_encrypted_pdf, ErrorCode.ENCRYPTED_PDF),
        ("letter.jpg", make_text_file, ErrorCode.UNSUPPORTED_MEDIA),
        ("empty.png", make_empty_file, ErrorCode.EMPTY_FILE),
        ("bomb.png", make_bomb_png, ErrorCode.DECOMPRESSION_BOMB),
        ("headless.jpg", lambda p: make_truncated_jpeg(p, keep=0.02), ErrorCode.CORRUPT_IMAGE),
    ],
)
def test_unusable_page_files_carry_a_problem_naming_them(
    tmp_path: Path, name: str, make: object, code: ErrorCode
) -> None:
    path = make(tmp_path / "box" / name)  # type: ignore[operator]

    (found,) = run_scan([tmp_path / "box"]).files

    assert found.problem is not None
    assert found.problem.code is code
    assert found.problem.path == str(path)
    # Named as a plan's problems name files (from the scanned folder), never by its path.
    assert f"box/{name}" in found.problem.message and str(path) not in found.problem.message
    assert (found.media_type, found.page_count) == (None, 0)
    # The bytes could be read, so they still have an identity.
    assert found.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_truncated_image_is_found_at_scan_without_decoding(tmp_path: Path) -> None:
    # Headers intact, end missing (an interrupted copy): the tail check finds it cheaply.
    make_truncated_jpeg(tmp_path / "box" / "half.jpg", keep=0.5)
    (found,) = run_scan([tmp_path / "box"]).files
    assert found.problem is not None and found.problem.code == ErrorCode.CORRUPT_IMAGE
    assert "half.jpg" in found.problem.message


@pytest.mark.parametrize(
    ("err", "code"),
    [(errno.EACCES, ErrorCode.SOURCE_UNREADABLE), (errno.EIO, ErrorCode.IO_ERROR)],
)
def test_unreadable_file_is_a_problem_without_a_hash(
    tmp_path: Path, err: int, code: ErrorCode
) -> None:
    page = make_jpeg(tmp_path / "box" / "a.jpg")
    fsio.install_faults(fsio.FaultPlan(fail_at=1, errno=err, persistent=True))
    try:
        (found,) = run_scan([tmp_path / "box"]).files
    finally:
        fsio.install_faults(None)
    assert found.problem is not None and found.problem.code is code
    assert found.problem.path == str(page)
    assert found.sha256 is None


def test_file_that_vanished_after_the_walk_is_source_missing(tmp_path: Path) -> None:
    box = tmp_path / "box"
    gone = make_jpeg(box / "gone.jpg")
    make_jpeg(box / "kept.jpg")
    gen = scan([box])
    result = None
    while True:
        try:
            progress = next(gen)
        except StopIteration as stop:
            result = stop.value
            break
        if progress.phase is ScanPhase.WALKING and progress.current == "":
            gone.unlink()  # the walk is over; inspecting has not started
    files = by_rel(result)
    problem = files["box/gone.jpg"].problem
    assert problem is not None and problem.code is ErrorCode.SOURCE_MISSING
    assert problem.path == str(gone)
    assert files["box/gone.jpg"].sha256 is None
    assert files["box/kept.jpg"].problem is None


# -- progress and cancel ---------------------------------------------------------------------


def test_progress_is_streamed_for_both_phases(tmp_path: Path) -> None:
    box = tmp_path / "box"
    for k in range(12):
        tiny_jpegs(box / f"nb{k}", 100, start=100 * k)
    events: list[ScanProgress] = []

    result = run_scan([box], on_progress=events.append, workers=2)

    assert len(result.files) == 1200
    walking = [e for e in events if e.phase is ScanPhase.WALKING]
    inspecting = [e for e in events if e.phase is ScanPhase.INSPECTING]
    assert walking and walking[-1].found == 1200
    # Throttled, but at least every 500 files, plus the end of the phase.
    assert 3 <= len(inspecting) <= 1200 // 64 + 2
    assert [e.inspected for e in inspecting] == sorted(e.inspected for e in inspecting)
    assert inspecting[-1] == ScanProgress(ScanPhase.INSPECTING, 1200, 1200, "")
    assert any(e.current.startswith("box/nb") for e in inspecting)
    assert events.index(walking[-1]) < events.index(inspecting[0])
    assert len({f.sha256 for f in result.files}) == 1200


def _scan_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("scan")]


def test_cancel_while_inspecting_stops_soon(tmp_path: Path) -> None:
    box = tmp_path / "box"
    for k in range(20):
        tiny_jpegs(box / f"nb{k}", 200, start=200 * k)
    stop = threading.Event()
    seen: list[ScanProgress] = []

    def on_progress(p: ScanProgress) -> None:
        seen.append(p)
        if p.phase is ScanPhase.INSPECTING:
            stop.set()

    t0 = time.monotonic()
    with pytest.raises(ScanCancelled):
        run_scan([box], on_progress=on_progress, should_stop=stop.is_set)
    assert time.monotonic() - t0 < 5
    inspecting = [p for p in seen if p.phase is ScanPhase.INSPECTING]
    assert len(inspecting) == 1 and inspecting[0].inspected < 4000
    assert _scan_threads() == []  # no read of the user's files outlives the scan


def test_cancel_while_walking_is_checked_per_folder(tmp_path: Path) -> None:
    box = tmp_path / "box"
    for k in range(30):
        (box / f"nb{k}").mkdir(parents=True)
    calls = 0

    def should_stop() -> bool:
        nonlocal calls
        calls += 1
        return calls > 5

    with pytest.raises(ScanCancelled):
        run_scan([box], should_stop=should_stop)
    assert calls == 6


def test_abandoned_scan_shuts_its_workers_down(tmp_path: Path) -> None:
    tiny_jpegs(tmp_path / "box", 600)
    gen = scan([tmp_path / "box"])
    for progress in gen:
        if progress.phase is ScanPhase.INSPECTING:
            break
    gen.close()
    assert _scan_threads() == []


def test_walk_alone_reads_no_file(tmp_path: Path) -> None:
    box = tmp_path / "box"
    tiny_jpegs(box / "nb", 3)
    make_text_file(box / "nb" / "notes.txt")
    fsio.install_faults(fsio.FaultPlan(fail_at=1, errno=errno.EIO, persistent=True))
    try:
        _, walked = drain(walk([box]))
    finally:
        fsio.install_faults(None)
    assert [f.rel for f in walked.files] == ["box/nb/p0.jpg", "box/nb/p1.jpg", "box/nb/p2.jpg"]
    assert walked.files[0].size == len(TINY_JPEG) + 1
    assert [i.rel for i in walked.ignored] == ["box/nb/notes.txt"]
