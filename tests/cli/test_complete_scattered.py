"""Completing a notebook whose new pages fill several gaps (#22): each where its name puts it.

“Parish Register” was imported from a folder of 40 scans missing 012 and 038; the folder,
scanned again whole, completes it: 012 lands between 011 and 013, 038 between 037 and 039
(main put 038 between 012 and 013), and every page imported before keeps its id.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import orjson

from helpers.cli import assert_doctor_clean, cli_json, ok, run_cli
from helpers.shelves import make_shelf

MISSING = ("012.jpg", "038.jpg")


def _project(data: Path, nbid: str) -> dict[str, Any]:
    path = data / "corpus" / "notebooks" / nbid / "project.json"
    doc: dict[str, Any] = orjson.loads(path.read_bytes())
    return doc


def file_order(data: Path, nbid: str) -> list[str]:
    """The notebook's pages by the names of the files they were imported from."""
    doc = _project(data, nbid)
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
    return data, again, nb["notebook_id"], _project(data, nb["notebook_id"])["pages"]


def test_new_pages_that_fill_two_gaps_each_land_in_their_own(tmp_path: Path) -> None:
    data, plan, nbid, before = imported_with_gaps(tmp_path)
    [problem] = cli_json(data, "validate", str(plan), "--json")["problems"]
    day = f"{date.today().day} {date.today():%B}"
    assert problem["message"] == (
        f"38 pages are already in “Parish Register” (imported {day}): complete “Parish "
        "Register” with the 2 new pages, each where its name puts it among its pages (they "
        "fill several gaps), rather than making a second notebook of them."
    )
    said = ok(run_cli(data, "order", str(plan), problem["item_id"][:8], "--complete")).stdout
    assert (
        "; shelf/Parish Register/012.jpg after page 11 (011.jpg); shelf/Parish "
        "Register/038.jpg after page 36 (037.jpg)."
    ) in said, said
    [item] = orjson.loads(plan.read_bytes())["items"]
    assert item["placement"] == {"after_page": before[10]["id"]}  # 011
    [(source, place)] = item["places"].items()
    assert place == {"after_page": before[35]["id"]}  # 037, the 36th page held
    assert [s["provenance"]["rel"] for s in item["sources"] if s["source_id"] == source] == [
        "shelf/Parish Register/038.jpg"
    ]
    assert cli_json(data, "commit", str(plan), "--json")["counts"]["committed"] == 1
    assert file_order(data, nbid) == [f"{i:03}.jpg" for i in range(1, 41)]
    kept = {p["id"]: p for p in before}
    assert [p for p in _project(data, nbid)["pages"] if p["id"] in kept] == before
    assert_doctor_clean(data)


def test_placing_them_by_hand_puts_them_together(tmp_path: Path) -> None:
    """An explicit --after gives up the places by name: both go after the page named."""
    data, plan, nbid, before = imported_with_gaps(tmp_path)
    [item] = orjson.loads(plan.read_bytes())["items"]
    key = item["item_id"][:8]
    ok(run_cli(data, "order", str(plan), key, "--complete"))
    ok(run_cli(data, "order", str(plan), key, "--after", "040.jpg"))
    [item] = orjson.loads(plan.read_bytes())["items"]
    assert "places" not in item
    ok(run_cli(data, "commit", str(plan)))
    assert file_order(data, nbid)[-3:] == ["040.jpg", "012.jpg", "038.jpg"]
