"""Late pages and rescans through the command line, each step a real process.

`plan --mode into:ID --at N | --after PAGE`, `order --replace FILE PAGE | --no-replace |
--at-end`, `notebooks ID` (a notebook's pages), `show`, `validate` refusals (exit 3,
nothing changed), `doctor` after a replacement, and the replaced pages' round trip
through `export` and `plan --mode bag`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from helpers.cli import Exit, assert_doctor_clean, cli_json, notebook_files, ok, run_cli
from helpers.shelves import make_pages, make_shelf

# Each runs the real command line several times (seconds each): the whole run only.
pytestmark = pytest.mark.slow


def _project(data: Path, nbid: str) -> dict[str, Any]:
    doc: dict[str, Any] = orjson.loads(
        (data / "corpus" / "notebooks" / nbid / "project.json").read_bytes()
    )
    return doc


def _pages(data: Path, nbid: str) -> list[str]:
    return [p["id"] for p in _project(data, nbid)["pages"]]


@pytest.fixture
def diary(tmp_path: Path) -> tuple[Path, str, list[str]]:
    """A data directory holding one notebook of five pages (“Diary”): its id, its page ids."""
    data = tmp_path / "data"
    make_shelf(tmp_path / "shelf", notebooks=1, pages=5, folder="Diary", tag="D")
    ok(run_cli(data, "plan", str(tmp_path / "shelf"), "-o", str(tmp_path / "diary.json")))
    ok(run_cli(data, "commit", str(tmp_path / "diary.json")))
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    return data, nb["notebook_id"], _pages(data, nb["notebook_id"])


def _late(tmp_path: Path, *names: str) -> Path:
    folder = tmp_path / "late"
    for name in names:
        make_pages(folder, 1, name=name, tag=name)
    return folder


def _plan_into(data: Path, nbid: str, folder: Path, plan: Path, *args: str) -> Any:
    return run_cli(data, "plan", str(folder), "--mode", f"into:{nbid}", "-o", str(plan), *args)


def _plan_ids(plan: Path) -> dict[str, str]:
    """rel -> page id of the plan's one item."""
    [item] = orjson.loads(plan.read_bytes())["items"]
    return {s["provenance"]["rel"]: s["pages"][0]["page_id"] for s in item["sources"]}


def test_pages_at_a_position_and_after_a_named_page(tmp_path, diary) -> None:
    data, nbid, held = diary
    late = _late(tmp_path, "leaf {i}.jpg")
    plan = tmp_path / "at.json"
    out = ok(
        run_cli(data, "plan", str(late), "--mode", f"into:{nbid}", "--at", "1", "-o", str(plan))
    )
    assert "new pages at position 1, before page 1 (page 1.jpg)" in out.stdout
    assert orjson.loads(plan.read_bytes())["schema_version"] == 2
    ok(run_cli(data, "commit", str(plan)))
    [first] = _plan_ids(plan).values()
    assert _pages(data, nbid) == [first, *held]

    more = _late(tmp_path / "2", "after {i}.jpg")
    plan2 = tmp_path / "after.json"
    out = ok(
        run_cli(
            data,
            "plan",
            str(more),
            "--mode",
            f"into:{nbid}",
            "--after",
            "page 3.jpg",
            "-o",
            str(plan2),
        )
    )
    assert "new pages after page 4 (page 3.jpg)" in out.stdout
    ok(run_cli(data, "commit", str(plan2)))
    [second] = _plan_ids(plan2).values()
    assert _pages(data, nbid) == [first, *held[:3], second, *held[3:]]
    assert_doctor_clean(data)


def test_a_rescan_replaces_a_page_and_the_history_stays(tmp_path, diary) -> None:
    data, nbid, held = diary
    before = notebook_files(data)
    late = _late(tmp_path, "rescan {i}.jpg")
    plan = tmp_path / "rescan.json"
    ok(run_cli(data, "plan", str(late), "--mode", f"into:{nbid}", "-o", str(plan)))
    out = ok(run_cli(data, "order", str(plan), "late", "--replace", "rescan 1.jpg", "2"))
    assert "late/rescan 1.jpg replaces page 2 of “Diary” (page 2.jpg)" in out.stdout
    ok(run_cli(data, "commit", str(plan)))
    [rescan] = _plan_ids(plan).values()
    assert _pages(data, nbid) == [held[0], rescan, *held[2:]]
    doc = _project(data, nbid)
    [entry] = doc["replaced_pages"]
    assert entry["page"]["id"] == held[1] and entry["replaced_by"] == rescan
    # Every file of the old page stays (the history is never deleted), and doctor agrees.
    now = notebook_files(data)
    assert all(now[rel] == sha for rel, sha in before.items() if not rel.endswith("project.json"))
    assert_doctor_clean(data)

    listed = cli_json(data, "notebooks", nbid, "--json")["pages"]
    assert [p["page_id"] for p in listed if p["position"]] == _pages(data, nbid)
    [old] = [p for p in listed if p["position"] is None]
    assert (old["page_id"], old["replaced_by"], old["file"]) == (held[1], rescan, "page 2.jpg")
    assert old["replaced_by_turn"] is False  # a rescan: other bytes, not a turn of the page
    text = ok(run_cli(data, "notebooks", nbid)).stdout
    assert f"replaced  {held[1]}" in text and f"by page {rescan}" in text
    assert "turned" not in text

    run_id = cli_json(data, "runs", "--json")["runs"][0]["import_run_id"]
    shown = ok(run_cli(data, "show", run_id)).stdout
    # The rescan is page 2 now, where the page it replaced was.
    assert "late/rescan 1.jpg replaces page 2 of “Diary” (page 2.jpg), now replaced" in shown


def test_refusals_name_the_notebook_and_change_nothing(tmp_path, diary) -> None:
    data, nbid, held = diary
    before = notebook_files(data)
    late = _late(tmp_path, "late {i}.jpg")
    plan = tmp_path / "late.json"
    out = ok(
        run_cli(data, "plan", str(late), "--mode", f"into:{nbid}", "--at", "9", "-o", str(plan))
    )
    assert "1 problem to resolve before commit" in out.stdout
    report = cli_json(data, "validate", str(plan), "--json", rc=Exit.INVALID)
    [problem] = report["problems"]
    assert problem["code"] == "placement_out_of_range"
    assert "Notebook “Diary” has 5 pages, so new pages can go at position 1" in problem["message"]
    text = run_cli(data, "validate", str(plan)).stdout
    assert "resolve with: transcribe-import order" in text and "--at N | --at-end" in text
    assert run_cli(data, "commit", str(plan)).returncode == Exit.INVALID
    assert notebook_files(data) == before

    # Each refusal of a wrong option is one line, exit 2, nothing written.
    other = tmp_path / "other.json"
    bad = run_cli(
        data, "plan", str(late), "--mode", f"into:{nbid}", "--after", "nope", "-o", str(other)
    )
    assert bad.returncode == Exit.USAGE and "has no page 'nope'" in bad.stderr
    assert not other.exists()
    bad = run_cli(data, "plan", str(late), "--at", "2", "-o", str(other))
    assert bad.returncode == Exit.USAGE and "--at and --after go with --mode into" in bad.stderr
    rid = _plan_ids(plan)["late/late 1.jpg"]
    bad = run_cli(data, "order", str(plan), "late", "--replace", "nope.jpg", "2")
    assert bad.returncode == Exit.USAGE and "no source named 'nope.jpg'" in bad.stderr

    # --at-end settles it; --replace of the same page twice is refused by its rule.
    ok(run_cli(data, "order", str(plan), "late", "--at-end"))
    assert cli_json(data, "validate", str(plan), "--json")["valid"]
    ok(run_cli(data, "order", str(plan), "late", "--replace", "late 1.jpg", held[0][:8]))
    assert orjson.loads(plan.read_bytes())["items"][0]["replacements"] == {rid: held[0]}
    ok(run_cli(data, "order", str(plan), "late", "--no-replace", "late 1.jpg"))
    assert "replacements" not in orjson.loads(plan.read_bytes())["items"][0]


def test_a_new_notebook_takes_no_placement(tmp_path) -> None:
    data = tmp_path / "data"
    make_shelf(tmp_path / "shelf", notebooks=1, pages=2, folder="New", tag="N")
    plan = tmp_path / "new.json"
    ok(run_cli(data, "plan", str(tmp_path / "shelf"), "-o", str(plan)))
    bad = run_cli(data, "order", str(plan), "New", "--at", "1")
    assert bad.returncode == Exit.USAGE and "New is a new notebook" in bad.stderr


def test_replaced_pages_travel_through_export_and_a_bag(tmp_path, diary) -> None:
    data, nbid, held = diary
    late = _late(tmp_path, "rescan {i}.jpg")
    plan = tmp_path / "rescan.json"
    ok(run_cli(data, "plan", str(late), "--mode", f"into:{nbid}", "-o", str(plan)))
    ok(run_cli(data, "order", str(plan), "late", "--replace", "rescan 1.jpg", "page 5.jpg"))
    ok(run_cli(data, "commit", str(plan)))
    original = _project(data, nbid)
    ok(run_cli(data, "export", "--all", "-o", str(tmp_path / "bag")))
    history = original["replaced_pages"][0]["page"]
    assert (tmp_path / "bag" / "data" / "notebooks" / nbid / history["render"]["path"]).is_file()

    other = tmp_path / "other"
    bag_plan = tmp_path / "bag.json"
    ok(run_cli(other, "plan", "--mode", "bag", str(tmp_path / "bag"), "-o", str(bag_plan)))
    assert cli_json(other, "validate", str(bag_plan), "--json")["valid"]
    assert not orjson.loads(bag_plan.read_bytes())["provenance"]["not_planned"]
    ok(run_cli(other, "commit", str(bag_plan)))
    copy = _project(other, nbid)
    assert copy["replaced_pages"] == original["replaced_pages"]
    assert [p["id"] for p in copy["pages"]] == [p["id"] for p in original["pages"]]
    # Sources land in the order the pages first use them (formats.md), the history's last.
    assert sorted(s["id"] for s in copy["sources"]) == sorted(s["id"] for s in original["sources"])
    files = {rel.split("/", 1)[1]: sha for rel, sha in notebook_files(other).items()}
    assert files[history["render"]["path"]] == history["render"]["sha256"]
    assert_doctor_clean(other)
    # The same bag again: the corpus holds that notebook unchanged, history and all.
    again = tmp_path / "again.json"
    ok(run_cli(other, "plan", "--mode", "bag", str(tmp_path / "bag"), "-o", str(again)))
    codes = [p["code"] for p in cli_json(other, "validate", str(again), "--json")["problems"]]
    assert codes == ["unchanged"]


def test_a_bag_notebook_with_history_imported_as_a_copy(tmp_path, diary) -> None:
    """The copy's history points at the copy's own pages (every id new)."""
    data, nbid, held = diary
    late = _late(tmp_path, "rescan {i}.jpg")
    plan = tmp_path / "rescan.json"
    ok(_plan_into(data, nbid, late, plan))
    ok(run_cli(data, "order", str(plan), "late", "--replace", "rescan 1.jpg", "1"))
    ok(run_cli(data, "commit", str(plan)))
    ok(run_cli(data, "export", nbid, "-o", str(tmp_path / "bag")))
    doc = _project(data, nbid)
    doc["title"] = "Diary, retitled"  # now the bag's notebook differs from the corpus's
    (data / "corpus" / "notebooks" / nbid / "project.json").write_bytes(orjson.dumps(doc))
    bag_plan = tmp_path / "bag.json"
    ok(run_cli(data, "plan", "--mode", "bag", str(tmp_path / "bag"), "-o", str(bag_plan)))
    [problem] = cli_json(data, "validate", str(bag_plan), "--json", rc=Exit.INVALID)["problems"]
    assert problem["code"] == "notebook_conflict"
    ok(run_cli(data, "order", str(bag_plan), problem["item_id"], "--as-copy"))
    ok(run_cli(data, "commit", str(bag_plan)))
    [copy_id] = [
        n["notebook_id"]
        for n in cli_json(data, "notebooks", "--json")["notebooks"]
        if n["notebook_id"] != nbid
    ]
    copy = _project(data, copy_id)
    [entry] = copy["replaced_pages"]
    assert entry["page"]["id"] not in held and entry["replaced_by"] == copy["pages"][0]["id"]
    assert_doctor_clean(data)


def test_into_names_the_notebook_as_order_into_does(tmp_path, diary) -> None:
    """`--mode into:` takes the notebook's id, the start of its id or its title (issue #37)."""
    data, nbid, held = diary
    late = _late(tmp_path, "leaf {i}.jpg")
    for k, name in enumerate((nbid[:8], "Diary")):
        plan = tmp_path / f"into-{k}.json"
        ok(run_cli(data, "plan", str(late), "--mode", f"into:{name}", "-o", str(plan)))
        [item] = orjson.loads(plan.read_bytes())["items"]
        assert (item["op"], item["notebook_id"]) == ("import_into_notebook", nbid)
    nowhere = run_cli(data, "plan", str(late), "--mode", "into:Letters", "-o", str(tmp_path / "x"))
    assert nowhere.returncode == Exit.USAGE
    assert "mode into:Letters: the corpus has no notebook 'Letters'" in nowhere.stderr
    assert not (tmp_path / "x").exists()
    empty = run_cli(data, "plan", str(late), "--mode", "into:", "-o", str(tmp_path / "x"))
    assert empty.returncode == Exit.USAGE and "its id, the start of its id or its title" in (
        empty.stderr
    )
