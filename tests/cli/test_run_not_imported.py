"""What a run did not import, told after it (`show`, `show --json`): every file its scan found
that its plan left out, each with why, so a finished import still accounts for every file."""

from __future__ import annotations

from pathlib import Path

import orjson

from helpers.cli import cli_json, ok, run_cli
from media_factory import make_image, make_pdf


def _box(root: Path) -> Path:
    """A folder of three photos, a 3-page PDF, a photo cut short and a note."""
    folder = root / "Box"
    for k in (1, 2, 3):
        make_image(folder / f"p{k}.jpg", f"page {k}")
    make_pdf(folder / "scan.pdf", pages=3)
    (folder / "p4.jpg").write_bytes((folder / "p1.jpg").read_bytes()[:600])
    (folder / "notes.txt").write_text("the box's notes\n", encoding="utf-8")
    return folder


def test_show_lists_every_file_the_plan_left_out_with_why(tmp_path: Path) -> None:
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(_box(tmp_path)), "-o", str(plan)))
    item = str(orjson.loads(plan.read_bytes())["items"][0]["item_id"])
    # The broken photo acknowledged, a photo and a page of the PDF left out by a person.
    ok(run_cli(data, "order", str(plan), item, "--exclude", "Box/p4.jpg", "Box/p3.jpg"))
    ok(run_cli(data, "order", str(plan), item, "--exclude", "Box/scan.pdf#2"))
    ok(run_cli(data, "order", str(plan), item, "--accept"))  # the PDF where its name puts it
    ok(run_cli(data, "commit", str(plan)))
    [run] = cli_json(data, "runs", "--json")["runs"]
    run_id = str(run["import_run_id"])

    out = ok(run_cli(data, "show", run_id)).stdout
    assert "  not imported: 4 files its scan found\n" in out
    lines = [line.strip() for line in out.splitlines()]
    assert "Box/p3.jpg: left out in the review" in lines
    assert "Box/scan.pdf#2: page 2 of the file, left out in the review" in lines
    assert any(line.startswith("Box/p4.jpg is cut short") for line in lines)
    assert any(line.startswith("Box/notes.txt: ") for line in lines)

    shown = cli_json(data, "show", run_id, "--json")
    files = {n["file"]: n["reason"] for n in shown["not_imported"]}
    assert set(files) == {"Box/p3.jpg", "Box/scan.pdf#2", "Box/p4.jpg", "Box/notes.txt"}
    # With the pages it landed, every file found is accounted for: 2 photos and 2 PDF pages.
    assert run["run_counts"]["pages_landed"] == 4
