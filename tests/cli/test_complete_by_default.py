"""Pages added to a folder imported before complete its notebook by default (#34).

“Register” was imported with 5 pages; 3 more were scanned into its folder. Main planned the
folder as a second “Register” of the 3 new pages unless ``order --complete`` was given: the
plan now completes the notebook, every earlier page keeping its id, and a second notebook is
made only by ``order --new-notebook``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from helpers.cli import assert_doctor_clean, cli_json, ok, run_cli
from helpers.completing import file_order, project_of
from helpers.shelves import make_pages, make_shelf


def _register_grown(tmp_path: Path) -> tuple[Path, Path, str, list[dict[str, Any]]]:
    """“Register” imported with 5 pages, then 3 more in its folder, the folder planned
    again: (data, the new plan, the notebook's id, its pages as they were)."""
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", 1, 5, folder="Register", name="{i:03}.jpg")
    first = tmp_path / "first.json"
    ok(run_cli(data, "plan", str(shelf), "-o", str(first)))
    ok(run_cli(data, "commit", str(first)))
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    before = project_of(data, nb["notebook_id"])["pages"]
    make_pages(shelf / "Register", 3, name="{i:03}.jpg", start=6, tag="1/")
    again = tmp_path / "again.json"
    said = ok(run_cli(data, "plan", str(shelf), "-o", str(again))).stdout
    assert (
        "Completes “Register” with the 3 new pages, where their names put them among its "
        "pages: 5 files of this folder are in it already. A second notebook of them is made "
        "only if you choose it (order --new-notebook)."
    ) in said, said
    return data, again, nb["notebook_id"], before


def test_a_folder_grown_by_3_pages_completes_its_notebook_by_default(tmp_path: Path) -> None:
    data, plan, nbid, before = _register_grown(tmp_path)
    [problem] = cli_json(data, "validate", str(plan), "--json")["problems"]
    assert problem["code"] == "completes" and problem["severity"] == "warning"
    assert problem["hint"] == "order --new-notebook"
    # --complete, as scripts gave it before, changes nothing and says what is still told.
    said = ok(run_cli(data, "order", str(plan), problem["item_id"][:8], "--complete")).stdout
    told = problem["message"].removesuffix(".") + " (order --new-notebook)."
    assert f"“shelf/Register” — no error; 1 warning.\n  WARNING [completes]: {told}" in said
    assert cli_json(data, "commit", str(plan), "--json")["counts"]["committed"] == 1
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    assert (nb["notebook_id"], nb["title"], nb["page_count"]) == (nbid, "Register", 8)
    assert file_order(data, nbid) == [f"{i:03}.jpg" for i in range(1, 9)]
    assert project_of(data, nbid)["pages"][:5] == before  # every earlier page id kept
    assert_doctor_clean(data)


def test_new_notebook_makes_a_second_register_of_the_new_pages(tmp_path: Path) -> None:
    data, plan, nbid, before = _register_grown(tmp_path)
    [item] = orjson.loads(plan.read_bytes())["items"]
    said = ok(run_cli(data, "order", str(plan), item["item_id"][:8], "--new-notebook")).stdout
    assert "Updated" in said and "Completes" not in said, said
    [item] = orjson.loads(plan.read_bytes())["items"]
    assert item["op"] == "create_notebook" and item["notebook_id"] != nbid
    ok(run_cli(data, "commit", str(plan)))
    notebooks = cli_json(data, "notebooks", "--json")["notebooks"]
    assert sorted((nb["title"], nb["page_count"]) for nb in notebooks) == [
        ("Register", 3),
        ("Register", 5),
    ]
    assert project_of(data, nbid)["pages"] == before
    assert_doctor_clean(data)


def test_new_notebook_refuses_an_item_that_completes_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", 1, 2, folder="Diary")
    plan = tmp_path / "p.json"
    ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
    [item] = orjson.loads(plan.read_bytes())["items"]
    done = run_cli(data, "order", str(plan), item["item_id"][:8], "--new-notebook")
    assert done.returncode == 2, done
    assert (
        "“Diary” does not complete a notebook by default, so there is no new notebook to "
        "make of it instead; it is imported as planned"
    ) in done.stderr
