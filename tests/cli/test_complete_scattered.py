"""Completing a notebook whose new pages fill several gaps (#22): each where its name puts it.

“Parish Register” was imported from a folder of 40 scans missing 012 and 038; the folder,
scanned again whole, completes it (by default, #34): 012 lands between 011 and 013, 038
between 037 and 039 (main put 038 between 012 and 013), and every page imported before
keeps its id.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from helpers.cli import assert_doctor_clean, cli_json, ok, run_cli
from helpers.completing import file_order, imported_with_gaps, project_of


def test_new_pages_that_fill_two_gaps_each_land_in_their_own(tmp_path: Path) -> None:
    data, plan, nbid, before = imported_with_gaps(tmp_path)
    [problem] = cli_json(data, "validate", str(plan), "--json")["problems"]
    assert problem["message"] == (
        "Completes “Parish Register” with the 2 new pages, each where its name puts it among "
        "its pages (they fill several gaps): 38 files of this folder are in it already. A "
        "second notebook of them is made only if you choose it."
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
    assert [p for p in project_of(data, nbid)["pages"] if p["id"] in kept] == before
    assert_doctor_clean(data)


def test_placing_them_by_hand_puts_them_together(tmp_path: Path) -> None:
    """An explicit --after gives up the places by name: both go after the page named."""
    data, plan, nbid, before = imported_with_gaps(tmp_path)
    [item] = orjson.loads(plan.read_bytes())["items"]
    key = item["item_id"][:8]
    ok(run_cli(data, "order", str(plan), key, "--after", "040.jpg"))
    [item] = orjson.loads(plan.read_bytes())["items"]
    assert "places" not in item
    ok(run_cli(data, "commit", str(plan)))
    assert file_order(data, nbid)[-3:] == ["040.jpg", "012.jpg", "038.jpg"]
