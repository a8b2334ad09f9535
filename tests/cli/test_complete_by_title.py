"""A folder titled as a notebook of the corpus whose pages continue its page numbers
completes it by default (#34).

“Diary 1931” was imported with pages 001–005 from one folder; pages 006–008 were scanned
into another folder of the same name. None of their files is in the corpus, so only the
title and the names say they belong together. Main planned them as a second “Diary 1931”
with a warning that showed the notebook's id; the plan now completes the notebook, after
its last page, every earlier page keeping its id. A folder of that title starting again at
001 is a notebook of its own, and the warning says why. ``order --new-notebook`` makes a
second notebook of continuing pages, and ``order --complete`` takes that choice back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from helpers.cli import assert_doctor_clean, cli_json, ok, run_cli
from helpers.completing import file_order, project_of
from helpers.lookalike_set import Rescan, rescan_file, scans
from helpers.shelves import make_pages, make_shelf

# What plan and validate say of the continuing folder (the warning `completes`).
COMPLETES = (
    "Completes “Diary 1931” with the 3 new pages, after its last page: this folder has its "
    "title, and the names of its pages continue its page numbers. A second notebook of them "
    "is made only if you choose it."
)


def _diary(tmp_path: Path) -> tuple[Path, str, list[dict[str, Any]]]:
    """“Diary 1931” imported with pages 001–005: (data, its id, its pages)."""
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "first", 1, 5, folder="Diary 1931", name="{i:03}.jpg")
    plan = tmp_path / "first.json"
    ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
    ok(run_cli(data, "commit", str(plan)))
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    return data, nb["notebook_id"], project_of(data, nb["notebook_id"])["pages"]


def _planned(tmp_path: Path, data: Path, start: int) -> tuple[Path, str, dict[str, Any]]:
    """A second folder “Diary 1931” of 3 pages numbered from ``start``, planned: (the plan,
    what plan said, the plan's one item)."""
    shelf = tmp_path / "later"
    make_pages(shelf / "Diary 1931", 3, name="{i:03}.jpg", start=start, tag="later/")
    plan = tmp_path / "later.json"
    said = ok(run_cli(data, "plan", str(shelf), "-o", str(plan))).stdout
    [item] = orjson.loads(plan.read_bytes())["items"]
    return plan, said, item


def _a_second_diary_lands(data: Path, plan: Path, nbid: str, before: list[dict[str, Any]]) -> None:
    """``plan`` committed: a second “Diary 1931” of 3 pages beside the first, whose pages are
    ``before`` still, and doctor finds the corpus clean."""
    ok(run_cli(data, "commit", str(plan)))
    notebooks = cli_json(data, "notebooks", "--json")["notebooks"]
    assert sorted((nb["title"], nb["page_count"]) for nb in notebooks) == [
        ("Diary 1931", 3),
        ("Diary 1931", 5),
    ]
    assert project_of(data, nbid)["pages"] == before
    assert_doctor_clean(data)


def test_pages_continuing_its_numbers_complete_the_notebook_of_that_title(
    tmp_path: Path,
) -> None:
    data, nbid, before = _diary(tmp_path)
    plan, said, item = _planned(tmp_path, data, 6)
    [told] = [line for line in said.splitlines() if line.startswith("    ")]
    assert told == "    " + COMPLETES.removesuffix(".") + " (order --new-notebook).", said
    assert nbid[:8] not in told  # the notebook by its title, not its id
    assert item["op"] == "import_into_notebook" and item["notebook_id"] == nbid
    assert item.get("placement") is None and not item.get("places")  # after its last page
    assert item["provenance"]["completes_by_default"]["by"] == "title"
    [problem] = cli_json(data, "validate", str(plan), "--json")["problems"]
    assert (problem["code"], problem["severity"]) == ("completes", "warning")
    assert problem["message"] == COMPLETES
    assert problem["hint"] == "order --new-notebook"
    assert problem["resolutions"] == ["new_notebook"]
    assert problem["notebook_id"] == nbid
    assert cli_json(data, "commit", str(plan), "--json")["counts"]["committed"] == 1
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    assert (nb["notebook_id"], nb["title"], nb["page_count"]) == (nbid, "Diary 1931", 8)
    assert file_order(data, nbid) == [f"{i:03}.jpg" for i in range(1, 9)]
    assert project_of(data, nbid)["pages"][:5] == before  # every earlier page id kept
    assert_doctor_clean(data)


def test_pages_starting_again_at_1_make_a_second_notebook_and_say_why(tmp_path: Path) -> None:
    data, nbid, before = _diary(tmp_path)
    plan, said, item = _planned(tmp_path, data, 1)
    assert item["op"] == "create_notebook" and item["notebook_id"] != nbid
    day = project_of(data, nbid)["created_at"]
    [problem] = cli_json(data, "validate", str(plan), "--json")["problems"]
    assert (problem["code"], problem["severity"]) == ("title_exists", "warning")
    assert problem["message"].startswith("A notebook titled “Diary 1931” already exists (imported ")
    assert problem["message"].endswith(
        ", and the names of these pages do not continue its page numbers (its last page is "
        "005.jpg; this folder's first is 001.jpg), so this makes a second notebook. Rename it "
        "in the plan if that is not what you want."
    )
    assert problem["hint"] is None and problem["resolutions"] == []
    assert f"    {problem['message']}" in said.splitlines(), said
    assert nbid[:8] not in problem["message"] and day  # the day, not the id
    _a_second_diary_lands(data, plan, nbid, before)


def test_new_notebook_makes_a_second_diary_of_continuing_pages(tmp_path: Path) -> None:
    data, nbid, before = _diary(tmp_path)
    plan, _said, item = _planned(tmp_path, data, 6)
    said = ok(run_cli(data, "order", str(plan), item["item_id"][:8], "--new-notebook")).stdout
    told = (
        "A notebook titled “Diary 1931” already exists (imported {day}), and the names of "
        "these pages continue its page numbers; this makes a second notebook of them, as you "
        "chose (order --complete)."
    )
    [problem] = cli_json(data, "validate", str(plan), "--json")["problems"]
    assert problem["code"] == "title_exists" and problem["resolutions"] == ["complete"]
    day = problem["message"].split("(imported ", 1)[1].split(")", 1)[0]
    assert f"  WARNING [title_exists]: {told.format(day=day)}" in said, said
    [second] = orjson.loads(plan.read_bytes())["items"]
    assert second["op"] == "create_notebook" and second["notebook_id"] != nbid
    assert second["provenance"]["second_notebook"] == "title"
    _a_second_diary_lands(data, plan, nbid, before)


def test_complete_takes_the_second_notebook_back(tmp_path: Path) -> None:
    data, nbid, before = _diary(tmp_path)
    plan, _said, item = _planned(tmp_path, data, 6)
    ok(run_cli(data, "order", str(plan), item["item_id"][:8], "--new-notebook"))
    said = ok(run_cli(data, "order", str(plan), item["item_id"][:8], "--complete")).stdout
    assert "“Diary 1931” — resolved" in said, said
    [again] = orjson.loads(plan.read_bytes())["items"]
    assert again["op"] == "import_into_notebook" and again["notebook_id"] == nbid
    ok(run_cli(data, "commit", str(plan)))
    assert file_order(data, nbid) == [f"{i:03}.jpg" for i in range(1, 9)]
    assert project_of(data, nbid)["pages"][:5] == before


def test_a_rescan_among_continuing_pages_is_asked_about_as_usual(tmp_path: Path) -> None:
    """“Diary 1931” of 01–04.jpg; a folder of that title holding a rescan of page 3 (03.jpg,
    tilted) and pages 05–06: it completes the notebook, the rescan is asked about with
    Replace among the answers, and Replace puts it in page 3's place."""
    data = tmp_path / "data"
    first = tmp_path / "first" / "Diary 1931"
    scans(first, range(1, 5))
    ok(run_cli(data, "plan", str(first.parent), "-o", str(tmp_path / "first.json")))
    ok(run_cli(data, "commit", str(tmp_path / "first.json")))
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    nbid, before = nb["notebook_id"], project_of(data, nb["notebook_id"])["pages"]
    later = tmp_path / "later" / "Diary 1931"
    rescan_file(3, Rescan.TILT, later / "03.jpg")
    scans(later, (5, 6))
    plan = tmp_path / "later.json"
    said = ok(run_cli(data, "plan", str(later.parent), "-o", str(plan))).stdout
    assert "Diary 1931/03.jpg looks like page 3 of “Diary 1931”: a rescan?" in said, said
    [item] = orjson.loads(plan.read_bytes())["items"]
    assert (item["op"], item["notebook_id"]) == ("import_into_notebook", nbid)
    problems = cli_json(data, "validate", str(plan), "--json")["problems"]
    [completes] = [p for p in problems if p["code"] == "completes"]
    assert completes["message"] == (
        "Completes “Diary 1931” with the 3 new pages, each where its name puts it among its "
        "pages (a page numbered as one of its own goes beside it): this folder has its title, "
        "and the names of its pages continue its page numbers. A second notebook of them is "
        "made only if you choose it."
    )
    assert not [p for p in problems if p["severity"] == "error"]  # page 4 is in the notebook
    # A second notebook of them lacks page 4: asked again; Complete takes it back.
    key = item["item_id"][:8]
    said = ok(run_cli(data, "order", str(plan), key, "--new-notebook")).stdout
    assert "ERROR [missing_index]: Page 4 is missing between" in said, said
    said = ok(run_cli(data, "order", str(plan), key, "--complete")).stdout
    assert (
        "“Diary 1931” — no error; 1 rescan question still open; later/Diary 1931/03.jpg after "
        "page 2 (02.jpg); later/Diary 1931/05.jpg to later/Diary 1931/06.jpg after page 4 "
        "(04.jpg)."
    ) in said, said
    [asked] = [p for p in problems if p["code"] == "looks_like"]
    assert asked["resolutions"] == ["rescan_replaces", "keep_both", "leave_out"]
    ok(run_cli(data, "order", str(plan), item["item_id"][:8], "--rescan", asked["files"][0]))
    ok(run_cli(data, "commit", str(plan)))
    doc = project_of(data, nbid)
    assert file_order(data, nbid) == ["01.jpg", "02.jpg", "03.jpg", "04.jpg", "05.jpg", "06.jpg"]
    kept = [before[k]["id"] for k in (0, 1, 3)]
    assert [doc["pages"][k]["id"] for k in (0, 1, 3)] == kept  # every other page id kept
    [history] = doc["replaced_pages"]
    assert history["page"]["id"] == before[2]["id"]  # page 3 kept in the notebook's history
    assert len(cli_json(data, "notebooks", "--json")["notebooks"]) == 1
    assert_doctor_clean(data)
