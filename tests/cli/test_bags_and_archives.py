"""A folder of bags, archives among the files, and a plan with nothing to import, through the
command line (#35): each bag named with the code, an archive said to be one with what to do,
and nothing to import said so, with no run made."""

from __future__ import annotations

import shutil
import tarfile
from pathlib import Path

import orjson
import pytest

from helpers.bags import foreign_bag
from helpers.cli import Exit, cli_json, ok, run_cli

# Real processes, a few seconds each: the whole run only.
pytestmark = pytest.mark.slow


def test_a_folder_of_several_bags_names_each_bag_and_the_code(tmp_path: Path) -> None:
    box = tmp_path / "box"
    for name in ("Accession 12", "Accession 13", "Accession 14"):
        foreign_bag(box / name, "standard")
    data, plan = tmp_path / "data", tmp_path / "plan.json"
    proc = ok(run_cli(data, "plan", str(box), "-o", str(plan)), Exit.PROBLEMS)
    assert proc.stderr.strip() == (
        f"transcribe-import: {box / 'Accession 12'}: is a BagIt bag inside {box}, and so are "
        f"{box / 'Accession 13'} and {box / 'Accession 14'}; plan the bags on their own so "
        "their manifests are checked (plan BAG BAG…, or drop the bags on the window without "
        "the folder). Nothing was planned (code bag_invalid)."
    )
    assert not plan.exists()
    # As it says: the bags on their own are planned, each checked.
    bags = [str(box / name) for name in ("Accession 12", "Accession 13", "Accession 14")]
    ok(run_cli(data, "plan", *bags, "-o", str(plan)))
    roots = orjson.loads(plan.read_bytes())["provenance"]["roots"]
    assert roots == bags and cli_json(data, "validate", str(plan), "--json")["valid"]


def test_an_archive_is_said_to_be_one_and_nothing_to_import_makes_no_run(
    tmp_path: Path,
) -> None:
    bag, _ = foreign_bag(tmp_path / "made" / "Accession 12", "standard")
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    shutil.make_archive(str(shelf / "Accession 12"), "zip", bag.parent, bag.name)
    with tarfile.open(shelf / "Accession 12.tar.gz", "w:gz") as tar:
        tar.add(bag, arcname=bag.name)
    (shelf / "notes.txt").write_text("a note\n", encoding="utf-8")
    data, plan = tmp_path / "data", tmp_path / "plan.json"
    proc = ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
    said = "an archive ({}), not a page file: unpack it, then plan the folder it holds"
    assert proc.stdout.splitlines() == [
        f"Wrote {plan}: 0 notebooks, 0 pages to import.",
        "Not planned: 3 files (see provenance in the plan for each reason).",
        f"  shelf/Accession 12.tar.gz: {said.format('.tar.gz')}",
        f"  shelf/Accession 12.zip: {said.format('.zip')}",
        "  shelf/notes.txt: not a page file (.txt)",
        "Nothing to import: none of the 3 files found is a page file this app can import (the "
        "plan lists each with its reason). Add folders of page images or PDFs.",
    ]
    nothing = (
        "Nothing to import: none of the 3 files found is a page file this app can import (the "
        "plan lists each with its reason). Add folders of page images or PDFs. No run was "
        "created and no notebook changed."
    )
    proc = ok(run_cli(data, "commit", str(plan)), Exit.OK)
    assert proc.stdout.strip() == nothing and proc.stderr == ""
    doc = cli_json(data, "commit", str(plan), "--json")
    assert doc["nothing_to_import"] is True and doc["message"] == nothing
    assert cli_json(data, "runs", "--json")["runs"] == []
    assert not (data / "corpus" / "import-runs").exists() or not any(
        (data / "corpus" / "import-runs").glob("*.json")
    )
