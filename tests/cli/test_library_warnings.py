"""No raw library warning reaches the terminal: files that make Pillow warn, through the CLI.

Each command runs as a real process (tests/helpers/cli.py), with Python's default warning
filters, as a user's terminal would have them.
"""

from __future__ import annotations

import io
import re
import struct
from pathlib import Path

import orjson
import pytest
from PIL import Image

import media_factory as mf
from helpers.cli import Exit, cli_env, run_cli

# Plans, validates, orders and commits through the real command line: seconds.
pytestmark = pytest.mark.slow

# What a raw warning or traceback looks like on stderr.
RAW = re.compile(r"site-packages|Warning:|warnings\.warn|Traceback|\.py:\d+|Decod")


def _shelf(root: Path) -> Path:
    nb = root / "shelf" / "nb"
    mf.make_jpeg_with_corrupt_exif(nb / "p1.jpg")  # Pillow: "Tag data larger than file"
    src = mf.make_png(root / "src.png", size=(64, 48)).read_bytes()
    chunks = mf._png_chunks(src)
    actl = (b"acTL", struct.pack(">II", 0, 0))  # Pillow: "Invalid APNG, will use default PNG"
    (nb / "p2.png").write_bytes(mf._png_bytes([chunks[0], actl, *chunks[1:]]))
    mf.make_bomb_png(nb / "p3.png", 9_500, 9_500)  # Pillow: DecompressionBombWarning
    buf = io.BytesIO()
    Image.new("RGB", (64, 64)).save(buf, "TIFF", compression="tiff_adobe_deflate")
    tif = bytearray(buf.getvalue())
    tif[8:46] = b"\x55" * 38  # the strip: libtiff prints "ZIPDecode: Decoding error ..."
    (nb / "p4.tif").write_bytes(bytes(tif))
    return root / "shelf"


def _clean(proc, *, rc: int) -> str:
    assert proc.returncode == rc, proc.stderr
    assert not RAW.search(proc.stderr), proc.stderr
    return proc.stderr


def test_plan_validate_order_commit_print_no_library_warning(tmp_path: Path) -> None:
    data, plan = tmp_path / "data", tmp_path / "plan.json"
    shelf = _shelf(tmp_path)
    _clean(run_cli(data, "plan", str(shelf), "-o", str(plan)), rc=Exit.OK)
    doc = orjson.loads(plan.read_bytes())
    (item,) = doc["items"]
    bomb, tif = item["provenance"]["unusable"]
    assert (bomb["rel"], bomb["code"]) == ("shelf/nb/p3.png", "decompression_bomb")
    assert (tif["rel"], tif["code"]) == ("shelf/nb/p4.tif", "corrupt_image")
    _clean(run_cli(data, "validate", str(plan)), rc=Exit.INVALID)
    _clean(
        run_cli(data, "order", str(plan), item["item_id"], "--exclude", bomb["rel"], tif["rel"]),
        rc=0,
    )
    _clean(run_cli(data, "order", str(plan), item["item_id"], "--accept"), rc=Exit.OK)
    _clean(run_cli(data, "validate", str(plan)), rc=Exit.OK)
    _clean(run_cli(data, "commit", str(plan)), rc=Exit.OK)
    # The warnings went to the log file, each naming its file.
    log_dir = Path(cli_env(data)["XDG_STATE_HOME"]) / "Transcribe" / "log"
    log = (log_dir / "transcribe-import.log").read_text(encoding="utf-8")
    assert re.search(r"INFO transcribe_import\.engine\.media: .*p1\.jpg: UserWarning", log)
    assert re.search(r"p2\.png: UserWarning: Invalid APNG", log)
    assert re.search(r"p3\.png: DecompressionBombWarning", log)
