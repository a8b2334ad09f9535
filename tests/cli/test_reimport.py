"""Importing a shelf again (#22): duplicates across the corpus by default, decided one commit
after the other, so that no timing makes a page land twice."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import orjson
import pytest

from helpers import holding
from helpers.cli import Exit, assert_doctor_clean, cli_json, ok, run_cli, start_cli
from helpers.shelves import make_shelf

WAITING = (
    "transcribe-import: waiting for another import into this corpus to finish: duplicates "
    "across the corpus are decided one import at a time (Ctrl-C cancels this one)."
)


def _plan(data: Path, out: Path, root: Path, *options: str) -> Path:
    ok(run_cli(data, "plan", str(root), "-o", str(out), *options))
    return out


@pytest.mark.crash
def test_two_concurrent_commits_of_one_folder_land_each_page_once(tmp_path: Path) -> None:
    """Main: both exited 0 and every page was in the corpus twice."""
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", notebooks=2, pages=4, size=(1600, 2200))
    first = _plan(data, tmp_path / "a.json", shelf)
    second = _plan(data, tmp_path / "b.json", shelf)
    # A stops after staging its first page: it is mid-commit, its decision taken.
    a = start_cli(
        data, "commit", str(first), "--json", env=holding.stop_at("ingest.stage.after_source")
    )
    b = None
    try:
        holding.wait_stopped(a)
        b = start_cli(
            data, "commit", str(second), "--json", env=holding.stop_at("run.waiting_for_corpus")
        )
        holding.wait_stopped(b)  # B is committing too, and found A deciding: the commits overlap
        holding.go_on(b)
        holding.go_on(a)
        _a_out, a_err = holding.finish(a)
        b_out, b_err = holding.finish(b)
    finally:
        for proc in (a, b):
            if proc is not None and proc.returncode is None:
                proc.kill()
                proc.wait()
    assert a.returncode == Exit.OK, a_err
    assert b.returncode == Exit.OK, b_err
    assert WAITING in b_err
    assert '"all_duplicates"' in b_out
    notebooks = cli_json(data, "notebooks", "--json")["notebooks"]
    assert sorted(nb["page_count"] for nb in notebooks) == [4, 4]
    assert_doctor_clean(data)


def test_a_plan_looks_across_the_corpus_by_default_and_notebook_opts_out(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", notebooks=1, pages=3)
    ok(run_cli(data, "commit", str(_plan(data, tmp_path / "a.json", shelf))))
    again = _plan(data, tmp_path / "b.json", shelf)
    assert cli_json(data, "commit", str(again), "--json")["counts"]["skipped"] == 1
    apart = _plan(data, tmp_path / "c.json", shelf, "--dedupe", "notebook")
    ok(run_cli(data, "commit", str(apart)))
    notebooks = cli_json(data, "notebooks", "--json")["notebooks"]
    assert sorted(nb["page_count"] for nb in notebooks) == [3, 3]


def _project(data: Path, notebook_id: str) -> dict[str, Any]:
    path = data / "corpus" / "notebooks" / notebook_id / "project.json"
    doc: dict[str, Any] = orjson.loads(path.read_bytes())
    return doc


def test_a_shelf_scanned_again_imports_nothing_and_says_it_is_imported(tmp_path: Path) -> None:
    """Main: every notebook Ready with its full page count, and a title warning only."""
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", notebooks=2, pages=3)
    ok(run_cli(data, "commit", str(_plan(data, tmp_path / "a.json", shelf))))
    before = cli_json(data, "notebooks", "--json")["notebooks"]
    again = tmp_path / "b.json"
    planned = ok(run_cli(data, "plan", str(shelf), "-o", str(again)))
    assert planned.stdout.count("[already imported]") == 2, planned.stdout
    assert "[ready]" not in planned.stdout
    report = cli_json(data, "validate", str(again), "--json")
    day = f"{date.today().day} {date.today():%B}"
    assert [p["code"] for p in report["problems"]] == ["already_imported"] * 2
    assert {p["message"] for p in report["problems"]} == {
        f"Already imported: all 3 pages are in “notebook {n}” (imported {day})." for n in (1, 2)
    }
    committed = cli_json(data, "commit", str(again), "--json")
    assert committed["counts"]["skipped"] == 2 and committed["counts"]["committed"] == 0
    assert cli_json(data, "notebooks", "--json")["notebooks"] == before


def test_a_half_imported_notebook_is_completed_in_place_keeping_its_page_ids(
    tmp_path: Path,
) -> None:
    """Main planned a second “notebook 1” holding only the missing pages; then it proposed
    ``order --complete``; now planning completes the notebook by default (#34)."""
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", notebooks=1, pages=6)
    folder = shelf / "notebook 1"
    late = tmp_path / "late"
    late.mkdir()
    for i in (3, 4):  # not there at the first import: the disk was gone half way
        (folder / f"page {i}.jpg").rename(late / f"page {i}.jpg")
    first_plan = _plan(data, tmp_path / "a.json", shelf)
    [gap] = cli_json(data, "validate", str(first_plan), "--json", rc=3)["problems"]
    ok(run_cli(data, "order", str(first_plan), gap["item_id"][:8], "--accept"))
    ok(run_cli(data, "commit", str(first_plan)))
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    first = _project(data, nb["notebook_id"])
    for p in late.iterdir():
        p.rename(folder / p.name)
    again = tmp_path / "b.json"
    planned = ok(run_cli(data, "plan", str(shelf), "-o", str(again)))
    assert "[partly imported]" not in planned.stdout, planned.stdout
    shown = ok(run_cli(data, "validate", str(again)), 0).stdout
    assert "Completes “notebook 1” with the 2 new pages" in shown
    assert "4 files of this folder are in it already" in shown
    assert "resolve with: transcribe-import order" in shown and "--new-notebook" in shown
    [item] = cli_json(data, "validate", str(again), "--json")["problems"]
    # --complete, given as before, changes nothing: the plan completes it already.
    said = ok(run_cli(data, "order", str(again), item["item_id"][:8], "--complete")).stdout
    assert "Completes “notebook 1”" in said, said
    committed = cli_json(data, "commit", str(again), "--json")
    assert committed["counts"]["committed"] == 1
    [after] = cli_json(data, "notebooks", "--json")["notebooks"]
    assert after["notebook_id"] == nb["notebook_id"] and after["page_count"] == 6
    doc = _project(data, nb["notebook_id"])
    names = {s["id"]: s["provenance"]["original_path"].rsplit("/", 1)[-1] for s in doc["sources"]}
    assert [names[p["source_id"]] for p in doc["pages"]] == [f"page {i}.jpg" for i in range(1, 7)]
    kept = {p["id"]: p for p in first["pages"]}
    assert [p for p in doc["pages"] if p["id"] in kept] == list(kept.values())
    assert_doctor_clean(data)


def test_page_3_of_a_pdf_left_out_imports_the_others_in_the_order_chosen(tmp_path: Path) -> None:
    """Main: leaving out page 3 excluded all 20 pages, and the notebook stayed Ready."""
    from media_factory import make_pdf

    data = tmp_path / "data"
    make_pdf(tmp_path / "shelf" / "Parish Register" / "scan.pdf", 5)
    plan = _plan(data, tmp_path / "a.json", tmp_path / "shelf")
    [item] = orjson.loads(plan.read_bytes())["items"]
    key = item["item_id"][:8]
    left = ok(run_cli(data, "order", str(plan), key, "--exclude", "scan.pdf#3")).stdout
    assert "resolved" in left
    order = ["scan.pdf#2", "scan.pdf#1", "scan.pdf#4", "scan.pdf#5"]
    ok(run_cli(data, "order", str(plan), key, "--sequence", *order))
    [source] = orjson.loads(plan.read_bytes())["items"][0]["sources"]
    assert source["page_index"] == [1, 0, 3, 4] and not source["excluded"]
    assert [p["page_index"] for p in source["left_out_pages"]] == [2]
    committed = cli_json(data, "commit", str(plan), "--json")
    assert committed["counts"]["committed"] == 1
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    assert nb["page_count"] == 4
    doc = _project(data, nb["notebook_id"])
    assert [p["page_index"] for p in doc["pages"]] == [1, 0, 3, 4]
    assert doc["sources"][0]["page_count"] == 5
    assert_doctor_clean(data)


def test_a_pdf_with_every_page_left_out_is_never_ready(tmp_path: Path) -> None:
    from media_factory import make_pdf

    data = tmp_path / "data"
    make_pdf(tmp_path / "shelf" / "Parish Register" / "scan.pdf", 2)
    plan = _plan(data, tmp_path / "a.json", tmp_path / "shelf")
    [item] = orjson.loads(plan.read_bytes())["items"]
    key = item["item_id"][:8]
    ok(run_cli(data, "order", str(plan), key, "--exclude", "scan.pdf#1", "scan.pdf#2"))
    [source] = orjson.loads(plan.read_bytes())["items"][0]["sources"]
    assert source["excluded"] and source["page_index"] == [0, 1]
    shown = ok(run_cli(data, "validate", str(plan))).stdout
    assert "Every file is excluded; nothing will be imported." in shown
    back = ok(run_cli(data, "order", str(plan), key, "--include", "scan.pdf")).stdout
    assert "resolved" in back


@pytest.mark.crash
def test_a_file_gone_mid_run_is_advised_retry_and_a_new_scan_completes_the_notebook(
    tmp_path: Path,
) -> None:
    """Main said "reconnect the disk or scan again", and scanning again planned a second
    “notebook 1” of only the missing pages; the new scan completes it by default (#34)."""
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", notebooks=1, pages=36)
    plan = _plan(data, tmp_path / "a.json", shelf)
    gone = shelf / "notebook 1" / "page 34.jpg"
    run = start_cli(
        data, "commit", str(plan), "--json", env=holding.stop_at("ingest.stage.after_source")
    )
    try:
        holding.wait_stopped(run)  # its first checkpoint (32 pages) is being staged
        gone.rename(tmp_path / "page 34.jpg")
        holding.go_on(run)
    finally:
        out, err = holding.finish(run)
    assert run.returncode == Exit.PROBLEMS, err
    [outcome] = orjson.loads(out)["items"]
    message = outcome["failure"]["message"]
    assert "has disappeared since it was scanned: reconnect the disk and retry the import" in (
        message
    )
    assert "scan it again: the pages already imported are recognised, and the rest are " in (
        message
    )
    assert "second" not in message
    (tmp_path / "page 34.jpg").rename(gone)  # the disk is back
    again = tmp_path / "b.json"
    planned = ok(run_cli(data, "plan", str(shelf), "-o", str(again))).stdout
    assert "Completes it with the 4 new pages" in planned, planned
    ok(run_cli(data, "commit", str(again)))
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    assert nb["page_count"] == 36
    assert_doctor_clean(data)


def test_a_notebook_marked_incomplete_is_finished_by_completing_it(tmp_path: Path) -> None:
    """A `commit` SIGKILLed between two checkpoints leaves “Register” incomplete (32 of its 70
    pages); scanning its folder again completes “Register” by default (#34), which lands the
    rest in it, every earlier page as it was, and the mark goes."""
    from helpers.cli import Exit

    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", 1, 70, folder="Register", size=(120, 160))
    first = _plan(data, tmp_path / "a.json", shelf)
    killed = run_cli(
        data, "commit", str(first), "--workers", "1", crash_at="ingest.between_checkpoints"
    )
    assert killed.returncode == Exit.KILLED, killed.stderr
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    assert nb["state"] == "incomplete"
    landed = nb["unfinished_import"]["pages_landed"]
    assert 0 < landed < 70
    before = _project(data, nb["notebook_id"])

    again = _plan(data, tmp_path / "b.json", shelf)
    [problem] = cli_json(data, "validate", str(again), "--json")["problems"]
    assert problem["code"] == "completes"
    assert problem["message"] == (
        f"“Register” is incomplete: its import stopped after {landed} of its 70 pages. "
        f"Completes it with the {70 - landed} new pages, where their names put them among "
        f"its pages: {landed} files of this folder are in it already. A second notebook of "
        "them is made only if you choose it."
    )
    committed = cli_json(data, "commit", str(again), "--json")
    assert committed["counts"]["committed"] == 1

    [after] = cli_json(data, "notebooks", "--json")["notebooks"]
    assert after["notebook_id"] == nb["notebook_id"] and after["page_count"] == 70
    assert after["state"] == "complete" and after["unfinished_import"] is None
    doc = _project(data, nb["notebook_id"])
    kept = {p["id"]: p for p in before["pages"]}
    assert [p for p in doc["pages"] if p["id"] in kept] == list(kept.values())
    names = {s["id"]: s["provenance"]["rel"].rsplit("/", 1)[-1] for s in doc["sources"]}
    assert [names[p["source_id"]] for p in doc["pages"]] == sorted(
        names.values(), key=lambda n: int(n.split()[-1].split(".")[0])
    )
    # The killed run is still a run to close: doctor says so (and only that); its resume
    # lands nothing more, and the corpus is whole.
    report = cli_json(data, "doctor", "--json", rc=Exit.PROBLEMS)
    assert [f["code"] for f in report["findings"]] == ["interrupted_run"]
    ok(run_cli(data, "resume", _other_run(data, exclude=committed["import_run_id"])))
    assert _project(data, nb["notebook_id"])["pages"] == doc["pages"]
    assert_doctor_clean(data)


def _other_run(data: Path, *, exclude: str) -> str:
    """The id of the run other than ``exclude``."""
    runs = cli_json(data, "runs", "--json")["runs"]
    [other] = [r["import_run_id"] for r in runs if r["import_run_id"] != exclude]
    return str(other)
