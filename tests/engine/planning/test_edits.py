"""Plan edits besides order: title, cover, leaving out unusable files, drafts."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.planning import edits
from transcribe_import.engine.planning.plan import (
    ImportPlan,
    Op,
    PlanItem,
    load_plan,
)
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import jpeg_source


def _item(op: Op = Op.CREATE_NOTEBOOK) -> PlanItem:
    sources = tuple(jpeg_source(i, f"p{i}.jpg") for i in range(3))
    unusable = [
        {"path": "/m/bad.jpg", "rel": "nb/bad.jpg", "code": "corrupt_image", "message": "cut short"}
    ]
    return PlanItem(
        new_id(),
        op,
        new_id(),
        "Diary" if op is Op.CREATE_NOTEBOOK else None,
        sources,
        provenance={"unusable": unusable},
    )


def test_rename_only_new_notebooks_and_never_blank() -> None:
    assert edits.rename(_item(), "  Field notes  ").title == "Field notes"
    with pytest.raises(ValueError, match="needs a title"):
        edits.rename(_item(), "   ")
    with pytest.raises(ValueError, match="only a new notebook"):
        edits.rename(_item(Op.IMPORT_INTO_NOTEBOOK), "x")


def test_cover_must_be_an_imported_page() -> None:
    item = _item()
    page = item.sources[1].pages[0].page_id
    assert edits.set_cover(item, page).cover_page_id == page
    assert edits.set_cover(item, None).cover_page_id is None
    excluded = replace(
        item, sources=(item.sources[0], replace(item.sources[1], excluded=True), item.sources[2])
    )
    with pytest.raises(ValueError, match="cover"):
        edits.set_cover(excluded, page)


def test_acknowledging_an_unusable_file_and_undoing_it() -> None:
    item = _item()
    acked = edits.acknowledge_unusable(item, ["nb/bad.jpg"])
    assert acked.acknowledged == ("nb/bad.jpg",)
    assert edits.unacknowledge_unusable(acked, ["nb/bad.jpg"]).acknowledged == ()
    with pytest.raises(ValueError, match="not an unusable file"):
        edits.acknowledge_unusable(item, ["nb/p1.jpg"])


def test_edits_change_the_fingerprint_and_drafts_round_trip(tmp_path: Path) -> None:
    item = _item()
    plan = ImportPlan(new_id(), "transcribe.v1.skip_existing", (item,))
    renamed = plan.with_item(edits.rename(item, "Other"))
    assert renamed.fingerprint != plan.fingerprint and renamed.plan_id == plan.plan_id
    corpus = Corpus.open(tmp_path / "data")
    path = edits.save_draft(corpus, renamed)
    assert path.parent == corpus.runs_dir / "drafts"
    assert load_plan(path) == renamed
