"""Phone photos in HEIC: planned, committed and kept as they are, through the command line."""

from __future__ import annotations

from pathlib import Path

import orjson

from helpers.cli import assert_doctor_clean, cli_json, ok, run_cli
from media_factory import make_heic


def test_a_folder_of_iphone_photos_lands_upright(tmp_path: Path) -> None:
    photos = tmp_path / "Grandma's diary"
    for n in (1, 2, 3):
        make_heic(
            photos / f"IMG_000{n}.HEIC",
            (64, 48),
            exif_orientation=6,
            datetime_original=f"2024:05:06 07:08:0{n}",
            label=str(n),
        )
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(photos), "-o", str(plan)))
    assert cli_json(data, "validate", str(plan), "--json")["problems"] == []
    cli_json(data, "commit", str(plan), "--json")
    (notebook,) = cli_json(data, "notebooks", "--json")["notebooks"]
    assert notebook["title"] == "Grandma's diary" and notebook["page_count"] == 3
    folder = data / "corpus" / "notebooks" / notebook["notebook_id"]
    kept = sorted(p.suffix for p in (folder / "sources").iterdir())
    assert kept == [".heic"] * 3  # the photos themselves, byte for byte as the scan hashed them
    doc = orjson.loads((folder / "project.json").read_bytes())
    # Turned upright once: the phone's quarter turn makes each 64x48 photo a portrait page.
    assert [(p["render"]["width"], p["render"]["height"]) for p in doc["pages"]] == [(48, 64)] * 3
    assert_doctor_clean(data)
