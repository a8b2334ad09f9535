"""A checkpoint a kill left after its pages were in (#34): `show`'s item rows say the pages the
notebook holds, as the run's counts do, not the record's count from before the kill."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from helpers.cli import Exit, cli_json, ok, run_cli
from helpers.shelves import make_pages


@pytest.mark.crash
def test_show_rows_add_up_to_the_counts_after_a_kill_past_a_checkpoint(tmp_path: Path) -> None:
    data = tmp_path / "data"
    make_pages(tmp_path / "shelf" / "Ledger", 70, size=(120, 160))
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(tmp_path / "shelf"), "-o", str(plan)))
    killed = run_cli(
        data, "commit", str(plan), "--workers", "1", crash_at="ingest.after_manifest:2"
    )
    assert killed.returncode == Exit.KILLED, killed.stderr
    [notebook] = (data / "corpus" / "notebooks").iterdir()
    on_disk = len(orjson.loads((notebook / "project.json").read_bytes())["pages"])
    assert on_disk == 64  # two checkpoints of 32 are in

    [run] = cli_json(data, "runs", "--json")["runs"]
    shown = cli_json(data, "show", run["import_run_id"], "--json")
    rows = sum(item["pages_landed"] for item in shown["items"])
    assert shown["run_counts"]["pages_landed"] == on_disk
    assert rows == on_disk  # the rows say what the counts say, and the disk holds
