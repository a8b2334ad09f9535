"""Doctor's remedy for a checkpoint it undid follows its run: Resume while the run can be
resumed, committing its frozen plan again (Finish Import) once the run has ended."""

from __future__ import annotations

from pathlib import Path

import orjson

from transcribe_import.engine.base.ids import new_id

from helpers.cli import cli_json, run_cli
from helpers.shelves import make_shelf


def _staging_journal(nb_dir: Path, notebook_id: str, run_id: str) -> None:
    """What a process killed while staging leaves: a journal of one source, never promoted."""
    source = new_id()
    doc = {
        "format": "transcribe.ingest-journal",
        "schema_version": 1,
        "txn_id": new_id(),
        "notebook_id": notebook_id,
        "import_run_id": run_id,
        "item_id": None,
        "state": "staging",
        "cover_page_id": None,
        "created_at": "x",
        "updated_at": "x",
        "sources": [
            {
                "id": source,
                "sha256": "0" * 64,
                "media_type": "image/jpeg",
                "size": None,
                "path": f"sources/{source}.jpg",
                "page_count": 1,
            }
        ],
        "pages": [],
    }
    (nb_dir / ".ingest-journal.json").write_bytes(orjson.dumps(doc))


def test_a_checkpoint_undone_in_an_ended_run_says_finish_import(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", notebooks=1, pages=2)
    plan = tmp_path / "plan.json"
    assert run_cli(data, "plan", str(shelf), "-o", str(plan)).returncode == 0
    run_id = cli_json(data, "commit", str(plan), "--json")["import_run_id"]
    [notebook_id] = [it["notebook_id"] for it in orjson.loads(plan.read_bytes())["items"]]
    _staging_journal(data / "corpus" / "notebooks" / notebook_id, notebook_id, run_id)

    said = run_cli(data, "doctor").stdout
    assert "“notebook 1”" in said and "was undone because it had not finished staging" in said
    assert "Finishing its import imports them again: `transcribe-import commit " in said
    assert "transcribe-import resume" not in said
