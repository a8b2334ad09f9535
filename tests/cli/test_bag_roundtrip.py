"""Export a corpus as a bag and import it into another, only through the command line.

`export` in one data directory, `plan --mode bag` / `validate` / `order` / `commit` /
`resume` in another, each a real process. What is checked is what a person would look
at: exit codes, `--json` documents, and the notebooks' project.json and files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from helpers.bags import edit_project
from helpers.cli import Exit, assert_doctor_clean, cli_json, notebook_files, ok, run_cli
from helpers.shelves import make_shelf
from media_factory import make_pdf

# Each exports and imports through the real command line (seconds each): the whole run only.
pytestmark = pytest.mark.slow

EXTRA = {"transcriptions": {"note": "keyed by page id below"}, "x_other_tool": {"v": 3}}


def _project(data: Path, nbid: str) -> dict[str, Any]:
    doc: dict[str, Any] = orjson.loads(
        (data / "corpus" / "notebooks" / nbid / "project.json").read_bytes()
    )
    return doc


def _rewrite(data: Path, nbid: str, doc: dict[str, Any]) -> None:
    # What another tool of the family does to a manifest: unknown keys, its own page order.
    path = data / "corpus" / "notebooks" / nbid / "project.json"
    path.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")


def _notebook_ids(data: Path) -> list[str]:
    return sorted(n["notebook_id"] for n in cli_json(data, "notebooks", "--json")["notebooks"])


@pytest.fixture
def exported(tmp_path: Path) -> tuple[Path, Path]:
    """A data directory with two notebooks other tools have touched, and its export."""
    data = tmp_path / "a"
    shelf = make_shelf(tmp_path / "shelf", notebooks=2, pages=2, tag="cli/")
    make_pdf(shelf / "notebook 1" / "page 3.pdf", pages=2)
    ok(run_cli(data, "plan", str(shelf), "-o", str(tmp_path / "a.json")))
    for item in cli_json(data, "validate", str(tmp_path / "a.json"), "--json", rc=Exit.INVALID)[
        "problems"
    ]:
        ok(run_cli(data, "order", str(tmp_path / "a.json"), item["item_id"], "--accept"))
    ok(run_cli(data, "commit", str(tmp_path / "a.json")))
    for nbid in _notebook_ids(data):
        doc = _project(data, nbid)
        doc.update(EXTRA)
        doc["transcriptions"] = {p["id"]: f"text {n}" for n, p in enumerate(doc["pages"])}
        doc["pages"] = doc["pages"][::-1]
        doc["cover_page_id"] = doc["pages"][0]["id"]
        _rewrite(data, nbid, doc)
    ok(run_cli(data, "export", "--all", "-o", str(tmp_path / "bag")))
    return data, tmp_path / "bag"


def _import(data: Path, bag: Path, plan: Path) -> None:
    ok(run_cli(data, "plan", "--mode", "bag", str(bag), "-o", str(plan)))


def test_export_then_import_keeps_every_notebook(exported, tmp_path: Path) -> None:
    source, bag = exported
    data = tmp_path / "b"
    _import(data, bag, tmp_path / "b.json")
    assert cli_json(data, "validate", str(tmp_path / "b.json"), "--json")["valid"]
    run = cli_json(data, "commit", str(tmp_path / "b.json"), "--json")
    assert run["status"] == "complete"

    assert _notebook_ids(data) == _notebook_ids(source)
    for nbid in _notebook_ids(source):
        want, got = _project(source, nbid), _project(data, nbid)
        assert got["pages"] == want["pages"]  # ids, order, render hashes and sizes
        assert {s["id"]: s["sha256"] for s in got["sources"]} == {
            s["id"]: s["sha256"] for s in want["sources"]
        }
        for key in ("title", "created_at", "cover_page_id", *EXTRA):
            assert got[key] == want[key], key
    # Every source and render landed with the bytes of the corpus it came from.
    assert {k: v for k, v in notebook_files(data).items() if "/" in k and "json" not in k} == {
        k: v for k, v in notebook_files(source).items() if "/" in k and "json" not in k
    }
    assert_doctor_clean(data)


def test_importing_the_bag_twice_changes_nothing(exported, tmp_path: Path) -> None:
    _, bag = exported
    data = tmp_path / "b"
    _import(data, bag, tmp_path / "1.json")
    ok(run_cli(data, "commit", str(tmp_path / "1.json")))
    before = notebook_files(data)

    second = ok(run_cli(data, "plan", "--mode", "bag", str(bag), "-o", str(tmp_path / "2.json")))
    lines = [line for line in second.stdout.splitlines() if line.startswith("  [")]
    assert len(lines) == 2 and all(
        line.startswith("  [unchanged]") and "already in the corpus, nothing to import" in line
        for line in lines
    ), second.stdout
    assert "duplicate" not in second.stdout
    report = cli_json(data, "validate", str(tmp_path / "2.json"), "--json")
    assert report["valid"] and {p["code"] for p in report["problems"]} == {"unchanged"}
    run = cli_json(data, "commit", str(tmp_path / "2.json"), "--json")
    assert run["status"] == "complete" and run["counts"]["skipped"] == 2
    assert notebook_files(data) == before


def test_the_same_id_with_other_content_offers_skip_and_copy(exported, tmp_path: Path) -> None:
    source, bag = exported
    data = tmp_path / "b"
    _import(data, bag, tmp_path / "1.json")
    ok(run_cli(data, "commit", str(tmp_path / "1.json")))
    before = notebook_files(data)

    nbid = _notebook_ids(source)[0]
    doc = _project(source, nbid)
    doc["x_other_tool"] = {"v": 4}
    _rewrite(source, nbid, doc)
    ok(run_cli(source, "export", nbid, "-o", str(tmp_path / "bag2")))
    plan = tmp_path / "2.json"
    _import(data, tmp_path / "bag2", plan)

    proc = ok(run_cli(data, "validate", str(plan)), Exit.INVALID)
    assert "[notebook_conflict]" in proc.stdout and nbid in proc.stdout
    assert "--skip | --as-copy" in proc.stdout
    [problem] = cli_json(data, "validate", str(plan), "--json", rc=Exit.INVALID)["problems"]

    ok(run_cli(data, "order", str(plan), problem["item_id"], "--skip"))
    ok(run_cli(data, "commit", str(plan)))
    assert notebook_files(data) == before

    # The other choice, on a new plan of the same bag (a committed plan is frozen).
    plan = tmp_path / "3.json"
    _import(data, tmp_path / "bag2", plan)
    [problem] = cli_json(data, "validate", str(plan), "--json", rc=Exit.INVALID)["problems"]
    ok(run_cli(data, "order", str(plan), problem["item_id"], "--as-copy"))
    assert cli_json(data, "validate", str(plan), "--json")["valid"]
    ok(run_cli(data, "commit", str(plan)))
    ids = _notebook_ids(data)
    assert len(ids) == 3 and nbid in ids
    [copy_id] = set(ids) - set(_notebook_ids(source))
    copy = _project(data, copy_id)
    assert copy["x_other_tool"] == {"v": 4} and copy["title"].endswith("(copy)")
    assert list(copy["transcriptions"]) == [p["id"] for p in copy["pages"]][::-1]
    assert {k: v for k, v in notebook_files(data).items() if k.startswith(nbid)} == {
        k: v for k, v in before.items() if k.startswith(nbid)
    }
    assert_doctor_clean(data)


def test_a_tampered_bag_is_refused_naming_the_file(exported, tmp_path: Path) -> None:
    _, bag = exported
    render = sorted((bag / "data" / "notebooks").glob("*/renders/*.png"))[0]
    data = bytearray(render.read_bytes())
    data[40] ^= 0xFF
    render.write_bytes(bytes(data))
    proc = ok(
        run_cli(tmp_path / "b", "plan", "--mode", "bag", str(bag), "-o", str(tmp_path / "p.json")),
        Exit.PROBLEMS,
    )
    assert render.name in proc.stderr and "manifest-sha256.txt" in proc.stderr
    assert not (tmp_path / "p.json").exists()


@pytest.mark.parametrize("point", ["ingest.after_stage", "ingest.promote.after_file:2"])
def test_a_killed_bag_import_resumes_like_any_run(exported, tmp_path: Path, point: str) -> None:
    source, bag = exported
    data = tmp_path / "b"
    _import(data, bag, tmp_path / "b.json")
    killed = run_cli(data, "commit", str(tmp_path / "b.json"), "--workers", "1", crash_at=point)
    assert killed.returncode == Exit.KILLED, killed.stderr
    [run] = cli_json(data, "runs", "--json")["runs"]
    assert run["interrupted"]
    done = cli_json(data, "resume", run["import_run_id"], "--json")
    assert done["status"] == "complete"
    for nbid in _notebook_ids(source):
        assert _project(data, nbid)["pages"] == _project(source, nbid)["pages"]
    assert_doctor_clean(data)
    # And the same plan again is a no-op.
    assert cli_json(data, "commit", str(tmp_path / "b.json"), "--json")["already_done"]


def test_a_bag_whose_project_json_names_a_path_outside_it_is_refused(
    exported, tmp_path: Path
) -> None:
    _, bag = exported
    nbid = sorted(p.name for p in (bag / "data" / "notebooks").iterdir())[0]
    edit_project(bag, nbid, lambda d: d["sources"][0].update(path="../../etc/passwd"))
    data = tmp_path / "c"
    proc = run_cli(data, "plan", "--mode", "bag", str(bag), "-o", str(tmp_path / "c.json"))
    assert proc.returncode == Exit.PROBLEMS, proc.stderr
    assert "'../../etc/passwd'" in proc.stderr and "bag_invalid" in proc.stderr
    assert not (tmp_path / "c.json").exists()
