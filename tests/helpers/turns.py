"""Marked pages for the tests of turns: where a red block lands says how a page was turned."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
from PIL import Image

from helpers.cli import cli_json, imported
from media_factory import _exif

# A portrait page, white, with a red block in its top-left corner: where the block lands
# says how the page was turned.
SIZE = (120, 200)


def marked_page(path: Path, orientation: int | None = None) -> Path:
    im = Image.new("RGB", SIZE, "white")
    im.paste((220, 0, 0), (0, 0, 40, 40))
    # A grey dot placed by the file's name, so that no two files are the same bytes.
    x = 50 + sum(path.name.encode()) % 20
    im.paste((128, 128, 128), (x, 90, x + 8, 98))
    path.parent.mkdir(parents=True, exist_ok=True)
    exif = _exif(orientation, None, None).tobytes() if orientation else b""
    im.save(path, "JPEG", quality=95, exif=exif)
    return path


def red_corner(png: bytes) -> tuple[tuple[int, int], str]:
    """The render's size and which corner holds the red block."""
    im = Image.open(io.BytesIO(png)).convert("RGB")
    w, h = im.size
    corners = {
        "top-left": (10, 10),
        "top-right": (w - 11, 10),
        "bottom-left": (10, h - 11),
        "bottom-right": (w - 11, h - 11),
    }
    red = [name for name, xy in corners.items() if _is_red(im.getpixel(xy))]
    assert len(red) == 1, red
    return (w, h), red[0]


def _is_red(px: object) -> bool:
    assert isinstance(px, tuple)
    r, g, b = px[:3]
    return bool(r > 180 and g < 80 and b < 80)


def notebook_doc(data: Path, nbid: str) -> dict[str, Any]:
    """The notebook's project.json, read as the disk has it."""
    doc: dict[str, Any] = orjson.loads(
        (data / "corpus" / "notebooks" / nbid / "project.json").read_bytes()
    )
    return doc


def cli_diary(tmp_path: Path) -> tuple[Path, str]:
    """“Diary”, three portrait pages 1.jpg to 3.jpg, imported through the CLI: (data, id)."""
    data = tmp_path / "data"
    for k in (1, 2, 3):
        marked_page(tmp_path / "Diary" / f"{k}.jpg")
    imported(data, tmp_path, tmp_path / "Diary")
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    return data, str(nb["notebook_id"])
