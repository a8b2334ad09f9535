"""Importing a bag: verified whole before planning, ids kept, renders copied, nothing merged."""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest

from transcribe_import.engine import api
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.export.bag import export_bag
from transcribe_import.engine.export.model import ExportStatus
from transcribe_import.engine.ingest import staging, transaction
from transcribe_import.engine.planning import bag as bag_mod
from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.plan import (
    AdapterMode,
    ImportPlan,
    Restore,
    fingerprint_of,
    load_plan,
    save_plan,
)
from transcribe_import.engine.planning.scan import ScanCancelled, ScanPhase, ScanProgress
from transcribe_import.engine.runs.model import ItemState, RunStatus
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import assert_notebook_whole, snapshot
from helpers.bags import (
    bag_from_corpus,
    edit_project,
    foreign_bag,
    notebook_dir,
    payload,
    project_of,
    seal,
    seal_tags,
    sha256,
)
from helpers.export import drain
from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_shelf
from media_factory import make_pdf

# Keys other tools of the Transcribe family write: the import must carry them as they are.
UNKNOWN = {
    "transcriptions": {},  # filled per page id below
    "labels": ["field notes", "1923"],
    # A carried key named "provenance" must still be fingerprinted: it lands.
    "x_tool": {"provenance": {"scanner": "A3"}, "version": 7},
}


def _enrich(doc: dict[str, Any]) -> None:
    """What another tool may have made of a notebook: unknown keys, page labels, a cover,
    and a page order that interleaves sources (the last page first)."""
    pages = doc["pages"]
    doc.update(orjson.loads(orjson.dumps(UNKNOWN)))
    doc["transcriptions"] = {p["id"]: f"text of {p['id'][:8]}" for p in pages}
    for n, p in enumerate(pages):
        p["label"] = f"p. {n + 1}"
    doc["sources"][0]["note"] = "first source"
    doc["pages"] = [pages[-1], *pages[:-1]]
    doc["cover_page_id"] = pages[1]["id"]


@pytest.fixture
def shelf_corpus(tmp_path: Path) -> Corpus:
    """A corpus holding two notebooks, one of them with a two-page PDF among its images."""
    shelf = make_shelf(tmp_path / "shelf", notebooks=2, pages=2, tag="bag/")
    make_pdf(shelf / "notebook 2" / "page 3.pdf", pages=2)
    source = Corpus.open(tmp_path / "from")
    result = commit_plan(source, plan_for(source, shelf))
    assert result.status is RunStatus.COMPLETE
    return source


def _dirs(corpus: Corpus) -> list[Path]:
    return [corpus.notebook_dir(n) for n in sorted(corpus.index_entries())]


@pytest.fixture
def bag(tmp_path: Path, shelf_corpus: Corpus) -> Path:
    return bag_from_corpus(_dirs(shelf_corpus), tmp_path / "bag", edit=_enrich)


def plan_bag(corpus: Corpus | None, *bags: Path) -> ImportPlan:
    planned = api.plan_paths(corpus, api.PlanRequest(tuple(bags), mode=AdapterMode.parse("bag")))
    assert planned is not None
    return planned.plan


def _refusal(bag: Path) -> TranscribeError:
    with pytest.raises(TranscribeError) as info:
        plan_bag(None, bag)
    return info.value


def _ids(bag: Path) -> list[str]:
    return sorted(p.name for p in (bag / "data" / "notebooks").iterdir())


# -- the round trip --------------------------------------------------------------------------


def test_a_bag_lands_with_its_ids_order_hashes_and_unknown_keys(corpus: Corpus, bag: Path) -> None:
    plan = plan_bag(corpus, bag)
    assert api.validate_plan(corpus, plan).ok
    assert commit_plan(corpus, plan).status is RunStatus.COMPLETE

    assert sorted(corpus.index_entries()) == _ids(bag)
    for nbid in _ids(bag):
        want = project_of(bag, nbid)
        got = assert_notebook_whole(corpus, nbid)
        assert [p["id"] for p in got["pages"]] == [p["id"] for p in want["pages"]]
        for field in ("title", "created_at", "cover_page_id", *UNKNOWN):
            assert got[field] == want[field], field
        assert [
            {k: p[k] for k in ("source_id", "page_index", "render_id", "render", "label")}
            for p in got["pages"]
        ] == [
            {k: p[k] for k in ("source_id", "page_index", "render_id", "render", "label")}
            for p in want["pages"]
        ]
        assert {s["id"]: (s["sha256"], s["media_type"], s.get("note")) for s in got["sources"]} == {
            s["id"]: (s["sha256"], s["media_type"], s.get("note")) for s in want["sources"]
        }
        # The renders are the bag's bytes, not a new rendering.
        for p in got["pages"]:
            assert sha256(corpus.notebook_dir(nbid) / p["render"]["path"]) == sha256(
                notebook_dir(bag, nbid) / p["render"]["path"]
            )
    assert api.check_corpus(corpus).clean


def test_renders_are_copied_never_rendered(
    corpus: Corpus, bag: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan = plan_bag(corpus, bag)

    def no_rendering(*args: object, **kw: object) -> object:
        raise AssertionError("a bag's page was rendered instead of copied")

    monkeypatch.setattr(staging.rendering, "render_pages", no_rendering)
    assert commit_plan(corpus, plan).status is RunStatus.COMPLETE


def test_the_plan_keeps_what_lands_in_its_fingerprint(corpus: Corpus, bag: Path, tmp_path) -> None:
    plan = plan_bag(corpus, bag)
    path = tmp_path / "plan.json"
    save_plan(plan, path)
    again = load_plan(path)
    assert again.fingerprint == plan.fingerprint
    assert again.items == plan.items

    item = plan.items[0]
    assert item.restore is not None
    changed = dict(item.restore.manifest)
    changed["x_tool"] = {"provenance": {"scanner": "B4"}, "version": 7}
    edited = plan.with_item(replace(item, restore=Restore(changed, item.restore.page_order)))
    assert edited.fingerprint != plan.fingerprint
    # Paths are provenance: a bag moved elsewhere plans to the same body.
    moved_doc = plan.to_document()
    moved_doc["items"][0]["sources"][0]["provenance"]["path"] = "/elsewhere/x.jpg"
    moved_doc["items"][0]["sources"][0]["pages"][0]["render"]["provenance"]["path"] = "/x.png"
    assert fingerprint_of(moved_doc) == plan.fingerprint


def test_a_real_export_round_trips(tmp_path: Path, shelf_corpus: Corpus, corpus: Corpus) -> None:
    _, result = drain(
        export_bag(shelf_corpus, sorted(shelf_corpus.index_entries()), tmp_path / "out")
    )
    assert result.status is ExportStatus.COMPLETE
    plan = plan_bag(corpus, tmp_path / "out")
    assert api.validate_plan(corpus, plan).ok
    assert commit_plan(corpus, plan).status is RunStatus.COMPLETE
    for nbid in shelf_corpus.index_entries():
        want = project.read(shelf_corpus.notebook_dir(nbid), nbid)
        got = assert_notebook_whole(corpus, nbid)
        assert got["pages"] == want["pages"]
        assert [(s["id"], s["sha256"]) for s in got["sources"]] == [
            (s["id"], s["sha256"]) for s in want["sources"]
        ]
        assert got["created_at"] == want["created_at"]


# -- refusals, each naming the file ----------------------------------------------------------


def _first_source(bag: Path) -> Path:
    nbid = _ids(bag)[0]
    doc = project_of(bag, nbid)
    return notebook_dir(bag, nbid) / doc["sources"][0]["path"]


def _manifest(bag: Path) -> Path:
    return bag / "manifest-sha256.txt"


def test_a_tampered_payload_file_is_refused(bag: Path) -> None:
    src = _first_source(bag)
    data = bytearray(src.read_bytes())
    data[-3] ^= 0xFF
    src.write_bytes(bytes(data))
    err = _refusal(bag)
    assert err.code is ErrorCode.BAG_HASH_MISMATCH
    assert src.relative_to(bag).as_posix() in str(err) and "manifest-sha256.txt" in str(err)


def test_a_symlink_out_of_the_bag_is_refused(bag: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.jpg"
    src = _first_source(bag)
    shutil.copyfile(src, outside)
    src.unlink()
    src.symlink_to(outside)
    err = _refusal(bag)
    assert err.code is ErrorCode.BAG_UNSAFE_PATH
    assert src.name in str(err) and "symbolic link" in str(err)


def test_a_symlinked_folder_is_refused(bag: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (bag / "data" / "more").symlink_to(tmp_path / "elsewhere")
    err = _refusal(bag)
    assert err.code is ErrorCode.BAG_UNSAFE_PATH and "data/more" in str(err)


def test_an_extra_unlisted_file_is_refused(bag: Path) -> None:
    extra = notebook_dir(bag, _ids(bag)[0]) / "sources" / "extra.jpg"
    shutil.copyfile(_first_source(bag), extra)
    err = _refusal(bag)
    assert err.code is ErrorCode.BAG_UNLISTED_FILE
    assert "sources/extra.jpg" in str(err) and "manifest-sha256.txt" in str(err)


@pytest.mark.parametrize(
    "path",
    [
        "data/../../etc/passwd",
        "data/notebooks/../../../x.jpg",
        "/etc/passwd",
        "data/./x.jpg",
        "data//x.jpg",
        "data\\..\\x.jpg",
        "C:/x.jpg",
    ],
)
def test_a_path_leaving_the_bag_in_a_manifest_is_refused(bag: Path, path: str) -> None:
    with _manifest(bag).open("a") as f:
        f.write(f"{'0' * 64}  {path}\n")
    seal_tags(bag)  # the manifest looks authentic: only its content is wrong
    err = _refusal(bag)
    assert err.code is ErrorCode.BAG_UNSAFE_PATH
    assert "manifest-sha256.txt line" in str(err)


def test_a_truncated_manifest_is_refused(bag: Path) -> None:
    data = _manifest(bag).read_bytes()
    _manifest(bag).write_bytes(data[: len(data) - 40])  # cut inside the last line's path
    err = _refusal(bag)
    assert "manifest-sha256.txt" in str(err)
    assert err.code is ErrorCode.BAG_HASH_MISMATCH  # the tag manifest sees the cut first

    seal_tags(bag)  # even if the tag manifest were made to agree, MANIFEST.json does not
    err = _refusal(bag)
    assert err.code is ErrorCode.BAG_INVALID and "manifest-sha256.txt" in str(err)


def test_a_manifest_cut_inside_a_hash_is_refused_as_cut_short(bag: Path) -> None:
    lines = _manifest(bag).read_bytes().splitlines(keepends=True)
    _manifest(bag).write_bytes(b"".join(lines[:-1]) + lines[-1][:20])
    seal_tags(bag)
    err = _refusal(bag)
    assert err.code is ErrorCode.BAG_INVALID
    assert "manifest-sha256.txt line" in str(err) and "cut short" in str(err)


def test_a_device_or_pipe_is_refused(bag: Path) -> None:
    os.mkfifo(bag / "data" / "pipe")
    err = _refusal(bag)
    assert err.code is ErrorCode.BAG_UNSAFE_PATH and "data/pipe" in str(err)


def test_names_equal_in_nfc_are_refused(bag: Path) -> None:
    (bag / "data" / "caf\u00e9.txt").write_text("a")
    (bag / "data" / "cafe\u0301.txt").write_text("b")
    err = _refusal(bag)
    assert err.code is ErrorCode.BAG_UNSAFE_PATH and "NFC" in str(err)


def test_names_are_compared_in_nfc(bag: Path) -> None:
    # A file written in NFD and listed in NFC is the same file.
    nfd = bag / "data" / "cafe\u0301.txt"
    nfd.write_text("notes")
    manifest = {k: v for k, v in payload(bag).items()}
    manifest.pop("data/cafe\u0301.txt")
    manifest["data/caf\u00e9.txt"] = sha256(nfd)
    seal(bag, manifest=manifest)
    plan = plan_bag(None, bag)
    assert any(n["rel"].endswith("caf\u00e9.txt") for n in plan.provenance["not_planned"])


def test_a_listed_file_missing_from_the_bag_is_refused(bag: Path) -> None:
    src = _first_source(bag)
    src.unlink()
    err = _refusal(bag)
    assert err.code is ErrorCode.BAG_MISSING_FILE
    assert src.relative_to(bag).as_posix() in str(err) or "bag-info.txt" in str(err)


def test_a_partial_export_is_refused(bag: Path) -> None:
    doc = orjson.loads((bag / "MANIFEST.json").read_bytes())
    doc["status"] = "partial"
    doc["missing"] = [{"path": "data/notebooks/x/sources/y.jpg", "message": "was unreadable"}]
    (bag / "MANIFEST.json").write_bytes(orjson.dumps(doc))
    seal_tags(bag)
    err = _refusal(bag)
    assert err.code is ErrorCode.BAG_MISSING_FILE and "sources/y.jpg" in str(err)


def test_a_folder_that_is_not_a_bag_is_refused(tmp_path: Path) -> None:
    (tmp_path / "nb").mkdir()
    err = _refusal(tmp_path / "nb")
    assert err.code is ErrorCode.BAG_INVALID and "bagit.txt" in str(err)


def test_a_project_json_that_disagrees_with_the_payload_is_refused(bag: Path) -> None:
    nbid = _ids(bag)[0]
    edit_project(bag, nbid, lambda d: d["sources"][0].update(sha256="0" * 64))
    err = _refusal(bag)
    assert err.code is ErrorCode.BAG_HASH_MISMATCH and "project.json" in str(err)


def test_the_free_lock_file_an_export_killed_at_its_very_end_leaves_is_accepted(
    bag: Path,
) -> None:
    (bag / ".export.lock").write_text("")
    assert len(plan_bag(None, bag).items) == 2


def test_a_bag_beside_its_exports_incomplete_note_is_refused_by_the_notes_name(
    bag: Path,
) -> None:
    """Main (#36): an export that failed after writing bagit.txt was accepted. Its note says
    the export did not end saying it finished: the bag is refused, whatever else it holds."""
    (bag / "EXPORT-INCOMPLETE.txt").write_text("stale")
    err = _refusal(bag)
    assert err.code is ErrorCode.BAG_INVALID
    assert err.path == str(bag / "EXPORT-INCOMPLETE.txt")
    assert "is here beside bagit.txt" in str(err) and "Export the notebooks again" in str(err)


# -- twice, and the same id with different content -------------------------------------------


def test_importing_the_same_bag_twice_changes_nothing(corpus: Corpus, bag: Path) -> None:
    assert commit_plan(corpus, plan_bag(corpus, bag)).status is RunStatus.COMPLETE
    before = {n: snapshot(corpus.notebook_dir(n)) for n in corpus.index_entries()}

    again = plan_bag(corpus, bag)
    report = api.validate_plan(corpus, again)
    assert report.ok
    assert [p.code for p in report.warnings] == ["unchanged", "unchanged"]
    result = commit_plan(corpus, again)
    assert result.status is RunStatus.COMPLETE
    assert {o.state for o in result.record.outcomes().values()} == {ItemState.SKIPPED}
    assert {n: snapshot(corpus.notebook_dir(n)) for n in corpus.index_entries()} == before


def _conflicting(corpus: Corpus, bag: Path, tmp_path: Path) -> tuple[ImportPlan, str]:
    """The bag committed, then a second bag with the same notebook changed."""
    assert commit_plan(corpus, plan_bag(corpus, bag)).status is RunStatus.COMPLETE
    other = tmp_path / "bag2"
    shutil.copytree(bag, other)
    nbid = _ids(bag)[0]
    edit_project(other, nbid, lambda d: d.update(labels=["relabelled"]))
    plan = plan_bag(corpus, other)
    return plan, nbid


def test_the_same_id_with_other_content_is_an_error_offering_two_choices(
    corpus: Corpus, bag: Path, tmp_path: Path
) -> None:
    plan, nbid = _conflicting(corpus, bag, tmp_path)
    report = api.validate_plan(corpus, plan)
    [error] = report.errors
    assert error.code == "notebook_conflict" and nbid in error.message
    assert error.resolutions == ("skip", "as_copy")
    assert [p.code for p in report.warnings] == ["unchanged"]  # the other notebook


def test_skipping_the_conflict_changes_nothing(corpus: Corpus, bag: Path, tmp_path: Path) -> None:
    plan, nbid = _conflicting(corpus, bag, tmp_path)
    before = snapshot(corpus.notebook_dir(nbid))
    item = next(it for it in plan.items if it.notebook_id == nbid)
    plan = plan.with_item(api.reorder(item, skip=True))
    assert api.validate_plan(corpus, plan).ok
    assert commit_plan(corpus, plan).status is RunStatus.COMPLETE
    assert snapshot(corpus.notebook_dir(nbid)) == before
    assert len(corpus.index_entries()) == 2


def test_importing_the_conflict_as_a_copy_makes_a_new_notebook(
    corpus: Corpus, bag: Path, tmp_path: Path
) -> None:
    plan, nbid = _conflicting(corpus, bag, tmp_path)
    before = snapshot(corpus.notebook_dir(nbid))
    item = next(it for it in plan.items if it.notebook_id == nbid)
    copy = api.reorder(item, as_copy=True)
    plan = plan.with_item(copy)
    assert api.validate_plan(corpus, plan).ok
    assert commit_plan(corpus, plan).status is RunStatus.COMPLETE

    assert snapshot(corpus.notebook_dir(nbid)) == before  # the original is untouched
    got = assert_notebook_whole(corpus, copy.notebook_id)
    want = project_of(tmp_path / "bag2", nbid)
    assert got["title"] == f"{want['title']} (copy)"
    assert got["labels"] == ["relabelled"]
    old_ids = {p["id"] for p in want["pages"]} | {s["id"] for s in want["sources"]}
    assert not old_ids & ({p["id"] for p in got["pages"]} | {s["id"] for s in got["sources"]})
    # Carried keys naming pages now name the copy's pages, in the same order.
    pairs = zip(want["pages"], got["pages"], strict=True)
    assert {new["id"]: want["transcriptions"][old["id"]] for old, new in pairs} == got[
        "transcriptions"
    ]
    assert [p["label"] for p in got["pages"]] == [p["label"] for p in want["pages"]]
    # sources[] land in the order the pages first use them (the page order is `pages`).
    assert sorted(s["sha256"] for s in got["sources"]) == sorted(
        s["sha256"] for s in want["sources"]
    )
    assert (
        got["cover_page_id"]
        == got["pages"][[p["id"] for p in want["pages"]].index(want["cover_page_id"])]["id"]
    )


def test_a_bag_notebook_is_never_merged_into_other_pages(corpus: Corpus, bag: Path) -> None:
    """Another import took the id between validate and commit: the transaction refuses."""
    plan = plan_bag(corpus, bag)
    item = plan.items[0]
    corpus.create_notebook(item.notebook_id, "someone else's")
    from engine_helpers import ingest_pages, page_image

    ingest_pages(corpus, item.notebook_id, [page_image(Path(corpus.root.parent) / "x.jpg")])
    report = api.validate_plan(corpus, plan)
    assert [p.code for p in report.errors] == ["notebook_conflict"]
    req = transaction.IngestRequest(
        item.notebook_id,
        (
            transaction.SourceSpec(
                new_id(),
                item.sources[0].provenance.fs_path,
                item.sources[0].sha256,
                item.sources[0].media_type,
                (transaction.PageSpec(new_id(), new_id(), 0),),
            ),
        ),
        page_order=(),
    )
    with pytest.raises(TranscribeError) as info:
        transaction.ingest(corpus, req)
    assert info.value.code is ErrorCode.ID_CONFLICT and "never merged" in str(info.value)


# -- in the plan -----------------------------------------------------------------------------


def test_a_reordered_bag_notebook_is_a_validate_error(corpus: Corpus, bag: Path) -> None:
    plan = plan_bag(corpus, bag)
    item = next(it for it in plan.items if len(it.sources) > 1)
    plan = plan.with_item(ordering.move(item, [len(item.sources) - 1], 0))
    assert plan.item(item.item_id).sources != item.sources
    assert [p.code for p in api.validate_plan(corpus, plan).errors] == ["bag_order_changed"]


def test_a_render_missing_from_the_bag_is_rendered_again(corpus: Corpus, bag: Path) -> None:
    nbid = _ids(bag)[0]
    page = project_of(bag, nbid)["pages"][0]
    (notebook_dir(bag, nbid) / page["render"]["path"]).unlink()
    seal(bag)
    plan = plan_bag(corpus, bag)
    report = api.validate_plan(corpus, plan)
    assert report.ok and "rendered_again" in [p.code for p in report.warnings]
    assert commit_plan(corpus, plan).status is RunStatus.COMPLETE
    got = assert_notebook_whole(corpus, nbid)
    assert page["id"] in [p["id"] for p in got["pages"]]


def test_a_render_changed_after_planning_fails_its_item(corpus: Corpus, bag: Path) -> None:
    plan = plan_bag(corpus, bag)
    render = plan.items[0].sources[0].pages[0].render
    assert render is not None
    path = render.fs_path
    st = path.stat()
    data = bytearray(path.read_bytes())
    data[-20] ^= 0xFF  # same size, same mtime: only the hash can tell
    path.write_bytes(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert api.validate_plan(corpus, plan).ok
    result = commit_plan(corpus, plan)
    outcome = result.record.outcomes()[plan.items[0].item_id]
    assert outcome.state is ItemState.FAILED and outcome.failure_code == "source_changed"
    assert (
        not corpus.is_registered(plan.items[0].notebook_id)
        or not project.read(corpus.notebook_dir(plan.items[0].notebook_id))["pages"]
    )


def test_two_bags_holding_one_notebook_are_refused(bag: Path, tmp_path: Path) -> None:
    shutil.copytree(bag, tmp_path / "twin")
    with pytest.raises(TranscribeError) as info:
        plan_bag(None, bag, tmp_path / "twin")
    assert info.value.code is ErrorCode.BAG_INVALID and "twin" in str(info.value)


def test_same_notebook_compares_what_lands(corpus: Corpus, bag: Path) -> None:
    plan = plan_bag(corpus, bag)
    commit_plan(corpus, plan)
    for item in plan.items:
        doc = project.read(corpus.notebook_dir(item.notebook_id))
        assert bag_mod.same_notebook(doc, item)
        doc["labels"] = ["other"]
        assert not bag_mod.same_notebook(doc, item)


def test_the_check_reports_as_a_scan_and_stops_when_asked(bag: Path) -> None:
    events: list[ScanProgress] = []
    [verified] = bag_mod.run_verify([bag], on_progress=events.append)
    assert events[0] == ScanProgress(ScanPhase.WALKING, 0, 0, bag.name)
    assert {e.phase for e in events[1:]} == {ScanPhase.INSPECTING}
    assert events[-1].inspected == events[-1].found == len(verified.payload) > 0
    with pytest.raises(ScanCancelled):
        bag_mod.run_verify([bag], should_stop=lambda: True)


def test_hashes_in_messages_are_the_bags(bag: Path) -> None:
    # The verified hashes are the manifest's: a sanity check of the helper and the reader.
    listed = dict(line.split("  ", 1)[::-1] for line in _manifest(bag).read_text().splitlines())
    assert listed == {k: hashlib.sha256((bag / k).read_bytes()).hexdigest() for k in listed}


def test_an_export_and_another_tools_bag_are_planned_one_at_a_time(
    bag: Path, tmp_path: Path
) -> None:
    other, _ = foreign_bag(tmp_path / "other", "standard")
    with pytest.raises(ValueError, match="was exported by this app and other was not"):
        plan_bag(None, bag, other)


@pytest.mark.parametrize("path", ["../../etc/passwd", "/etc/passwd", "sources/other.jpg"])
def test_a_project_json_naming_a_path_outside_its_notebook_is_refused(bag: Path, path: str) -> None:
    nbid = _ids(bag)[0]
    edit_project(bag, nbid, lambda d: d["sources"][0].update(path=path))
    err = _refusal(bag)
    assert err.code is ErrorCode.BAG_INVALID
    assert "project.json" in str(err) and repr(path) in str(err)


def test_a_render_path_outside_its_notebook_is_refused(bag: Path) -> None:
    nbid = _ids(bag)[0]
    edit_project(bag, nbid, lambda d: d["pages"][0]["render"].update(path="../../x.png"))
    err = _refusal(bag)
    assert err.code is ErrorCode.BAG_INVALID and "'../../x.png'" in str(err)
