"""A register imported with gaps in its files, and the folder scanned again whole (#22)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from helpers.cli import cli_json, ok, run_cli
from helpers.shelves import make_shelf

MISSING = ("012.jpg", "038.jpg")  # the files the first import did not have


def project_of(data: Path, nbid: str) -> dict[str, Any]:
    path = data / "corpus" / "notebooks" / nbid / "project.json"
    doc: dict[str, Any] = orjson.loads(path.read_bytes())
    return doc


def file_order(data: Path, nbid: str) -> list[str]:
    """The notebook's pages by the names of the files they were imported from."""
    doc = project_of(data, nbid)
    names = {s["id"]: s["provenance"]["rel"].rsplit("/", 1)[-1] for s in doc["sources"]}
    return [names[p["source_id"]] for p in doc["pages"]]


def imported_with_gaps(tmp_path: Path) -> tuple[Path, Path, str, list[dict[str, Any]]]:
    """“Parish Register” imported without 012 and 038, then the folder whole again, planned:
    (data, the new plan, the notebook's id, its pages as they were)."""
    data = tmp_path / "data"
    shelf = make_shelf(
        tmp_path / "shelf", 1, 40, folder="Parish Register", name="{i:03}.jpg", size=(60, 80)
    )
    folder = shelf / "Parish Register"
    away = tmp_path / "away"
    away.mkdir()
    for name in MISSING:
        (folder / name).rename(away / name)
    first = tmp_path / "first.json"
    ok(run_cli(data, "plan", str(shelf), "-o", str(first)))
    for problem in cli_json(data, "validate", str(first), "--json", rc=3)["problems"]:
        ok(run_cli(data, "order", str(first), problem["item_id"][:8], "--accept"))
    ok(run_cli(data, "commit", str(first)))
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    for name in MISSING:
        (away / name).rename(folder / name)
    again = tmp_path / "again.json"
    ok(run_cli(data, "plan", str(shelf), "-o", str(again)))
    return data, again, nb["notebook_id"], project_of(data, nb["notebook_id"])["pages"]
