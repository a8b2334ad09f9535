"""`plan`'s item line names the notebook it imports into by its title, not its id (#34)."""

from __future__ import annotations

from pathlib import Path

import orjson

from helpers.cli import cli_json, ok, run_cli
from helpers.shelves import make_pages, make_shelf


def test_an_import_into_a_notebook_names_it_by_its_title(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", 1, 2, folder="Diary 1931", tag="d")
    ok(run_cli(data, "plan", str(shelf), "-o", str(tmp_path / "first.json")))
    ok(run_cli(data, "commit", str(tmp_path / "first.json")))
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    make_pages(tmp_path / "later", 2, tag="later/")

    planned = ok(
        run_cli(
            data,
            "plan",
            str(tmp_path / "later"),
            "--mode",
            f"into:{nb['notebook_id'][:8]}",
            "-o",
            str(tmp_path / "into.json"),
        )
    ).stdout
    [item] = orjson.loads((tmp_path / "into.json").read_bytes())["items"]

    line = f"  [ready] {item['item_id'][:8]} “later” into “Diary 1931”: 2 pages\n"
    assert line in planned, planned
    assert nb["notebook_id"][:8] not in planned


def test_a_folder_completing_its_own_notebook_is_named_once(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", 1, 2, folder="Register", tag="r")
    ok(run_cli(data, "plan", str(shelf), "-o", str(tmp_path / "first.json")))
    ok(run_cli(data, "commit", str(tmp_path / "first.json")))
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    make_pages(shelf / "Register", 1, name="page 3.jpg", tag="r1/new")

    planned = ok(run_cli(data, "plan", str(shelf), "-o", str(tmp_path / "again.json"))).stdout

    assert "] " in planned and " into “Register”: 1 page" in planned, planned
    assert "“Register” into" not in planned
    assert nb["notebook_id"][:8] not in planned
