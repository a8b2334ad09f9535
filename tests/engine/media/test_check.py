"""The scan's cheap data checks (media/check.py): one read per file, and a JPEG's marker walk
refusing exactly what Pillow's decode refuses."""

from __future__ import annotations

import io
import random
import warnings
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.media import check, decode
from transcribe_import.engine.planning.scan import run_scan
from transcribe_import.engine.storage import fsio

import media_factory as mf


def _decodes(path: Path) -> bool:
    """The oracle: does Pillow decode the whole image, as a commit's render would?"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with Image.open(path) as im:
                im.load()
        except Exception:  # noqa: BLE001 - any failure means "does not decode"
            return False
    return True


def _checked(path: Path) -> bool:
    try:
        decode.probe(path, check_data=True)
    except TranscribeError as exc:
        assert exc.code is ErrorCode.CORRUPT_IMAGE
        assert path.name in str(exc)
        return False
    return True


def _jpeg(progressive: bool) -> bytes:
    # Noise, so the entropy-coded data is long and every kind of damage lands inside it.
    im = Image.effect_noise((240, 320), 60).convert("RGB")
    buf = io.BytesIO()
    im.save(buf, "JPEG", quality=90, progressive=progressive, comment=b"scan \xff\xd9 notes")
    return buf.getvalue()


def test_a_jpeg_cut_inside_its_scan_is_refused_though_an_end_marker_lies_in_its_tail(
    tmp_path: Path,
) -> None:
    data = _jpeg(progressive=False)
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(data[: len(data) * 2 // 3])  # the comment's \xff\xd9 is still there
    assert decode.probe(cut).page_count == 1  # the tail check alone is fooled
    assert not _decodes(cut)
    with pytest.raises(TranscribeError, match="cut.jpg is cut short") as caught:
        decode.probe(cut, check_data=True)
    assert caught.value.code is ErrorCode.CORRUPT_IMAGE
    whole = tmp_path / "whole.jpg"
    whole.write_bytes(data)
    assert _checked(whole) and _decodes(whole)


@pytest.mark.parametrize("progressive", [False, True], ids=["baseline", "progressive"])
def test_damaged_jpegs_are_refused_exactly_when_pillow_cannot_decode_them(
    tmp_path: Path, progressive: bool
) -> None:
    data = _jpeg(progressive)
    rnd = random.Random(26)
    path = tmp_path / "damaged.jpg"
    verdicts = set()
    for _ in range(60):
        damaged = bytearray(data)
        at = rnd.randrange(700, len(data) - 2)
        if rnd.random() < 0.3:
            damaged = damaged[:at]  # cut short
        else:
            n = rnd.choice([1, 4, 50, 500])
            damaged[at : at + n] = bytes(rnd.randrange(256) for _ in range(n))
        path.write_bytes(bytes(damaged))
        decodes = _decodes(path)
        assert _checked(path) == decodes, f"damage at byte {at}"
        verdicts.add(decodes)
    assert verdicts == {True, False}  # both kinds of damage were met


def test_read_once_hashes_and_keeps_small_files_and_only_hashes_big_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = mf.make_jpeg(tmp_path / "p.jpg")
    size = path.stat().st_size
    read = check.read_once(path, size=size)
    assert read.data == path.read_bytes()
    assert read.sha256 == fsio.hash_file(path)[0]
    monkeypatch.setattr(check, "WHOLE_READ_MAX", size - 1)
    assert check.read_once(path, size=size) == check.FileRead(read.sha256, None)
    with pytest.raises(fsio.FileChanged):
        check.read_once(path, size=size + 1)


def test_the_scan_opens_each_page_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shelf = tmp_path / "shelf"
    pages = [
        mf.make_jpeg(shelf / "nb" / "p1.jpg"),
        mf.make_png(shelf / "nb" / "p2.png"),
        mf.make_pdf(shelf / "nb" / "p3.pdf", 2),
    ]
    opened: list[Path] = []
    open_regular = fsio.open_regular

    def counted(path: Path, **kw: Any) -> Any:
        opened.append(Path(path))
        return open_regular(path, **kw)

    monkeypatch.setattr(fsio, "open_regular", counted)
    result = run_scan([shelf], workers=1)
    assert [f.problem for f in result.files] == [None, None, None]
    assert sorted(p for p in opened if p.suffix != ".json") == pages
