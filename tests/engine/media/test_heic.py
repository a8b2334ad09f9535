"""HEIC photos (iPhones): sniffed by brand, decoded by pi-heif, upright, with their capture time."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.media import decode, kinds, render, sniff

import media_factory as mf


def test_a_heic_photo_is_probed_upright_with_its_capture_time(tmp_path: Path) -> None:
    path = mf.make_heic(
        tmp_path / "IMG_0001.HEIC",
        (64, 48),
        exif_orientation=6,
        datetime_original="2024:05:06 07:08:09",
    )
    assert sniff.sniff_media_type(path) == kinds.HEIC
    info = decode.probe(path, check_data=True)
    # Stored landscape with a quarter turn: a portrait page, turned once (not twice).
    assert (info.media_type, info.page_count, info.width, info.height) == (kinds.HEIC, 1, 48, 64)
    assert info.captured_at == "2024-05-06T07:08:09"


def test_a_heic_photo_renders_as_the_upright_page(tmp_path: Path) -> None:
    path = mf.make_heic(tmp_path / "p.heic", (64, 48), exif_orientation=6)
    (page,) = render.render_pages(path, kinds.HEIC, [0])
    img = Image.open(io.BytesIO(page.png))
    assert (page.width, page.height) == img.size == (48, 64)
    assert img.format == "PNG"


@pytest.mark.parametrize(
    "ftyp",
    [
        b"ftypheic\x00\x00\x00\x00mif1heic",  # an iPhone's
        b"ftypmif1\x00\x00\x00\x00mif1heic",  # other tools': HEVC as a compatible brand
        b"ftypheix\x00\x00\x00\x00mif1heix",  # 10-bit
    ],
)
def test_heic_is_recognised_by_its_brands(ftyp: bytes) -> None:
    head = (8 + len(ftyp)).to_bytes(4, "big") + ftyp + b"\x00" * 64
    assert sniff.media_type_of(head, "x.heic") == kinds.HEIC


def test_an_avif_is_not_taken_for_heic() -> None:
    head = b"\x00\x00\x00\x1cftypavif\x00\x00\x00\x00mif1miaf" + b"\x00" * 64
    with pytest.raises(TranscribeError) as info:
        sniff.media_type_of(head, "x.heic")
    assert info.value.code is ErrorCode.UNSUPPORTED_MEDIA
    assert "not a HEIC image" in str(info.value) and "AVIF" in str(info.value)


def test_a_heic_cut_short_is_a_corrupt_image_naming_it(tmp_path: Path) -> None:
    whole = mf.make_heic(tmp_path / "whole.heic").read_bytes()
    cut = tmp_path / "IMG_0002.heic"
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(TranscribeError) as info:
        decode.probe(cut, check_data=True)
    assert info.value.code is ErrorCode.CORRUPT_IMAGE
    assert "IMG_0002.heic: the HEIC image is damaged or incomplete" in str(info.value)


def test_the_heic_decoder_is_loaded_only_when_a_heic_is_met() -> None:
    # A fresh process: the app's start and a plan of scans do not pay for libheif.
    code = (
        "import sys\n"
        "import transcribe_import.engine.api, transcribe_import.engine.media.decode\n"
        "assert 'pi_heif' not in sys.modules, 'pi_heif imported at start'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
