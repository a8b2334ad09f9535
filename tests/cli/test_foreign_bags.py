"""Bags other tools made, through the command line: `plan BAG` in any mode checks the bag
against its own manifests, plans its folders, commits; a damaged bag is refused naming the
file and its code, and nothing is written."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from helpers.bags import DAMAGE, FOREIGN_KINDS, damage, foreign_bag
from helpers.cli import Exit, assert_doctor_clean, cli_json, ok, run_cli

# Real processes, a few seconds each: the whole run only.
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("kind", FOREIGN_KINDS)
@pytest.mark.parametrize("mode", [(), ("--mode", "bag")])
def test_a_bag_another_tool_made_plans_and_commits(
    tmp_path: Path, kind: str, mode: tuple[str, ...]
) -> None:
    bag, notebooks = foreign_bag(tmp_path / "Accession 12", kind)
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(bag), *mode, "-o", str(plan)))
    assert cli_json(data, "validate", str(plan), "--json")["problems"] == []
    cli_json(data, "commit", str(plan), "--json")
    listed = cli_json(data, "notebooks", "--json")["notebooks"]
    assert {n["title"]: n["page_count"] for n in listed} == notebooks
    for n in listed:
        doc = orjson.loads(
            (data / "corpus" / "notebooks" / n["notebook_id"] / "project.json").read_bytes()
        )
        assert doc["provenance"]["bag"] == "Accession 12"
    assert_doctor_clean(data)


@pytest.mark.parametrize("how", DAMAGE)
def test_a_damaged_bag_is_refused_naming_the_file_and_code(tmp_path: Path, how: str) -> None:
    bag, _ = foreign_bag(tmp_path / "bag", "standard")
    named, code = damage(bag, how)
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"
    proc = ok(run_cli(data, "plan", str(bag), "-o", str(plan)), Exit.PROBLEMS)
    assert f"{bag}/{named}" in proc.stderr and f"(code {code})" in proc.stderr
    assert not plan.exists()
    assert not (data / "corpus" / "notebooks").exists() or not any(
        (data / "corpus" / "notebooks").iterdir()
    )
