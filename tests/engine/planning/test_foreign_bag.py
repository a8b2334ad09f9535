"""Bags other tools made (bagit-python, by hand for 0.97): checked against their own
manifests before planning, planned as folder mode plans data/, refused whole when damaged."""

from __future__ import annotations

import hashlib
import unicodedata
from pathlib import Path

import orjson
import pytest

from transcribe_import.engine import api
from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.planning.plan import DEFAULT_MODE, AdapterMode, ImportPlan
from transcribe_import.engine.runs.model import RunStatus
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import page_image
from helpers.bags import DAMAGE, FOREIGN_KINDS, damage, foreign_bag
from helpers.runs import commit_plan


def _plan(corpus: Corpus | None, bag: Path, mode: str = "bag") -> ImportPlan:
    planned = api.plan_paths(corpus, api.PlanRequest((bag,), mode=AdapterMode.parse(mode)))
    assert planned is not None
    return planned.plan


@pytest.mark.parametrize("kind", FOREIGN_KINDS)
def test_a_bag_another_tool_made_lands_as_its_folders(
    corpus: Corpus, tmp_path: Path, kind: str
) -> None:
    bag, notebooks = foreign_bag(tmp_path / "Accession 12", kind)
    plan = _plan(corpus, bag)
    assert {it.title: len(it.sources) for it in plan.items} == notebooks
    # The hash each source is committed against is the one the bag vouched for.
    for item in plan.items:
        for s in item.sources:
            assert s.sha256 == hashlib.sha256(Path(s.provenance.fs_path).read_bytes()).hexdigest()
    assert commit_plan(corpus, plan).status is RunStatus.COMPLETE
    landed = {n.title: n.page_count for n in corpus.list_notebooks()}
    assert landed == notebooks and "data" not in landed
    for nbid in corpus.index_entries():
        doc = orjson.loads((corpus.notebook_dir(nbid) / "project.json").read_bytes())
        assert doc["provenance"]["bag"] == "Accession 12"
        if kind != "0.97-md5":  # made by hand, without a bag-info.txt
            assert doc["provenance"]["bag-info.txt"]["Bag-Software-Agent"].startswith("bagit.py")


@pytest.mark.parametrize("mode", ["folders", "pdfs", "single"])
def test_a_bag_is_planned_as_a_bag_in_every_mode(tmp_path: Path, mode: str) -> None:
    bag, notebooks = foreign_bag(tmp_path / "bag", "standard")
    assert [it.title for it in _plan(None, bag, mode).items] == list(notebooks)
    damage(bag, "altered")
    with pytest.raises(TranscribeError):
        _plan(None, bag, mode)


def test_a_bag_inside_a_folder_planned_as_pages_is_refused_naming_it(tmp_path: Path) -> None:
    foreign_bag(tmp_path / "box" / "bag", "standard")
    with pytest.raises(TranscribeError) as info:
        _plan(None, tmp_path / "box", "folders")
    assert info.value.code == "bag_invalid"
    assert f"{tmp_path / 'box' / 'bag'}: is a BagIt bag inside" in str(info.value)


def test_a_bag_deep_among_notebooks_is_found_and_a_shelf_without_one_plans(
    tmp_path: Path,
) -> None:
    box = tmp_path / "box"
    for n in range(3):
        page_image(box / f"notebook {n}" / "page 1.jpg", f"{n}")
    planned = api.plan_paths(None, api.PlanRequest((box,), mode=DEFAULT_MODE))
    assert planned is not None and len(planned.plan.items) == 3

    foreign_bag(box / "shelf" / "older" / "bag", "standard")
    with pytest.raises(TranscribeError) as info:
        api.plan_paths(None, api.PlanRequest((box,), mode=DEFAULT_MODE))
    assert info.value.code == "bag_invalid"
    bag = box / "shelf" / "older" / "bag"
    assert str(info.value).startswith(f"{bag}: is a BagIt bag inside {box};")
    assert info.value.path == str(bag)


def test_nfc_and_nfd_names_both_plan(tmp_path: Path) -> None:
    bag, _ = foreign_bag(tmp_path / "bag", "nfd")
    (item,) = _plan(None, bag).items
    assert item.title == unicodedata.normalize("NFC", "Tagebuch Müller")


@pytest.mark.parametrize("how", DAMAGE)
def test_a_damaged_bag_is_refused_naming_the_file_and_nothing_is_written(
    corpus: Corpus, tmp_path: Path, how: str
) -> None:
    bag, _ = foreign_bag(tmp_path / "bag", "standard")
    named, code = damage(bag, how)
    with pytest.raises(TranscribeError) as info:
        _plan(corpus, bag)
    assert info.value.code == code
    assert f"{bag}/{named}" in str(info.value)
    assert f"Nothing was planned from this bag (code {code})." in str(info.value)
    assert list(corpus.index_entries()) == []


def test_a_page_changed_between_plan_and_commit_is_not_committed(
    corpus: Corpus, tmp_path: Path
) -> None:
    bag, _ = foreign_bag(tmp_path / "bag", "standard")
    plan = _plan(corpus, bag)
    page = bag / "data" / "page 2.jpg"
    data = bytearray(page.read_bytes())
    data[200] ^= 0xFF
    page.write_bytes(bytes(data))
    result = commit_plan(corpus, plan)
    assert result.status is not RunStatus.COMPLETE
    assert all(n.page_count == 0 for n in corpus.list_notebooks())


def test_a_manifest_json_nothing_vouches_for_is_refused(tmp_path: Path) -> None:
    """A MANIFEST.json makes a bag an export, checked as one: unlisted, it is not trusted."""
    bag, _ = foreign_bag(tmp_path / "bag", "standard")
    (bag / "MANIFEST.json").write_text('{"format": "transcribe.export"}')
    with pytest.raises(TranscribeError) as info:
        _plan(None, bag)
    assert info.value.code == "bag_invalid"
    assert f"{bag}/MANIFEST.json: is not listed in tagmanifest-sha256.txt" in str(info.value)


def test_two_bags_other_tools_made_plan_together(tmp_path: Path) -> None:
    one, _ = foreign_bag(tmp_path / "one", "standard")
    two, _ = foreign_bag(tmp_path / "two", "sha512")
    planned = api.plan_paths(None, api.PlanRequest((one, two), mode=DEFAULT_MODE))
    assert planned is not None
    assert sorted(it.title for it in planned.plan.items) == ["Letters home", "MS 1931/4"]
