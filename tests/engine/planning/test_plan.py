"""The plan document: its fingerprint as the contract defines it, strict loading of plans."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from transcribe_import.engine.base import short_calls
from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.planning import plan_values
from transcribe_import.engine.planning.plan import (
    Duplicate,
    ImportPlan,
    Op,
    PlanDocumentError,
    PlanItem,
    PlanPage,
    PlanSource,
    SourceProvenance,
    canonical_body,
    fingerprint_of,
    load_plan,
    plan_from_document,
    save_plan,
    strip_provenance,
)

uuids = st.uuids(version=4).map(str)
shas = st.binary(min_size=32, max_size=32).map(lambda b: b.hex())
texts = st.text(min_size=1, max_size=20)
titles = texts.filter(lambda t: t.strip())  # the loader refuses a blank title
names = texts.filter(lambda t: "\0" not in t)  # no file name holds a NUL: the loader refuses one


@st.composite
def sources(draw: Any) -> PlanSource:
    n = draw(st.integers(1, 3))
    media = "application/pdf" if n > 1 else draw(st.sampled_from(["image/jpeg", "image/png"]))
    return PlanSource(
        source_id=draw(uuids),
        sha256=draw(shas),
        media_type=media,
        pages=tuple(PlanPage(draw(uuids), draw(uuids), i) for i in range(n)),
        provenance=SourceProvenance(
            path="/media/" + draw(names),
            rel=draw(texts),
            size=draw(st.integers(0, 10**9)),
            mtime="2026-01-01T00:00:00Z",
            mtime_ns=draw(st.integers(0, 2**62)),
        ),
    )


@st.composite
def plans(draw: Any) -> ImportPlan:
    items = []
    for _ in range(draw(st.integers(1, 3))):
        srcs = draw(st.lists(sources(), min_size=1, max_size=4))
        items.append(
            PlanItem(
                item_id=draw(uuids),
                op=Op.CREATE_NOTEBOOK,
                notebook_id=draw(uuids),
                title=draw(titles),
                sources=tuple(srcs),
                provenance={"folder": draw(texts), "label": draw(texts)},
            )
        )
    policy = draw(
        st.sampled_from(["transcribe.v1.skip_existing", "transcribe.v1.create_duplicate"])
    )
    return ImportPlan(draw(uuids), policy, tuple(items), {"roots": [draw(texts)]})


def _reprovenance(plan: ImportPlan, salt: str) -> ImportPlan:
    """The same plan with every provenance (paths, sizes, mtimes, labels) changed."""
    items = []
    for it in plan.items:
        srcs = tuple(
            replace(
                s,
                provenance=SourceProvenance(
                    path=f"/elsewhere/{salt}/{k}",
                    rel=f"{salt}{k}",
                    size=k,
                    mtime=salt,
                    mtime_ns=k,
                    captured_at=salt,
                ),
            )
            for k, s in enumerate(it.sources)
        )
        items.append(replace(it, sources=srcs, provenance={"folder": salt}))
    return replace(plan, items=tuple(items), provenance={"roots": [salt], "app_version": salt})


@settings(max_examples=60, deadline=None)
@given(plans(), texts)
def test_fingerprint_ignores_provenance(plan: ImportPlan, salt: str) -> None:
    assert _reprovenance(plan, salt).fingerprint == plan.fingerprint


@settings(max_examples=60, deadline=None)
@given(plans())
def test_fingerprint_ignores_key_order_and_matches_stdlib_recomputation(plan: ImportPlan) -> None:
    doc = plan.to_document()
    # Anyone can recompute it without the app: stdlib json, keys sorted, compact, UTF-8.
    body = {
        "schema_version": doc["import_manifest"]["schema_version"],
        "plan_id": doc["plan_id"],
        "import_policy_id": doc["import_policy_id"],
        "items": _strip(doc["items"]),
    }
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert hashlib.sha256(text.encode()).hexdigest() == doc["plan_fingerprint"]
    shuffled = json.loads(json.dumps(_reverse_keys(doc)))
    assert plan_from_document(shuffled, "shuffled").fingerprint == plan.fingerprint


def _strip(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _strip(x) for k, x in v.items() if k != "provenance"}
    if isinstance(v, list):
        return [_strip(x) for x in v]
    return v


def _reverse_keys(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _reverse_keys(v[k]) for k in reversed(list(v))}
    if isinstance(v, list):
        return [_reverse_keys(x) for x in v]
    return v


@settings(max_examples=60, deadline=None)
@given(plans(), st.data())
def test_fingerprint_changes_with_what_the_commit_does(plan: ImportPlan, data: Any) -> None:
    it = plan.items[0]
    variants = [
        replace(
            plan,
            import_policy_id="transcribe.v1.create_duplicate"
            if plan.import_policy_id.endswith("skip_existing")
            else "transcribe.v1.skip_existing",
        ),
        plan.with_item(replace(it, notebook_id=new_id())),
        plan.with_item(replace(it, title=(it.title or "") + "x")),
        plan.with_item(
            replace(
                it,
                sources=(
                    replace(
                        it.sources[0],
                        sha256="f" * 64 if it.sources[0].sha256 != "f" * 64 else "e" * 64,
                    ),
                )
                + it.sources[1:],
            )
        ),
        plan.with_item(
            replace(it, sources=(replace(it.sources[0], source_id=new_id()),) + it.sources[1:])
        ),
        plan.with_item(
            replace(it, sources=(replace(it.sources[0], excluded=True),) + it.sources[1:])
        ),
    ]
    if len(it.sources) > 1:
        variants.append(plan.with_item(replace(it, sources=it.sources[::-1])))
    fps = [v.fingerprint for v in variants]
    assert plan.fingerprint not in fps


def test_canonical_body_is_exactly_the_four_fields() -> None:
    doc = _sample_plan().to_document()
    body = orjson.loads(canonical_body(doc))
    assert set(body) == {"schema_version", "plan_id", "import_policy_id", "items"}
    assert "provenance" not in json.dumps(body)
    assert canonical_body(doc) == orjson.dumps(body, option=orjson.OPT_SORT_KEYS)


def test_canonical_body_is_the_bytes_one_dump_of_the_body_makes() -> None:
    """Encoded an item at a time (the GIL is not held for the whole plan), byte for byte."""
    doc = _sample_plan().to_document()
    titled = {**doc, "items": [{**it, "title": "Tagebuch “Ä”, 1931"} for it in doc["items"]]}
    for case in (doc, titled, {**doc, "items": []}, {**doc, "items": doc["items"] * 3}):
        body = {
            "schema_version": case["import_manifest"]["schema_version"],
            "plan_id": case["plan_id"],
            "import_policy_id": case["import_policy_id"],
            "items": strip_provenance(case["items"]),
        }
        assert canonical_body(case) == orjson.dumps(body, option=orjson.OPT_SORT_KEYS)


def _sample_plan() -> ImportPlan:
    src = PlanSource(
        new_id(),
        "a" * 64,
        "image/jpeg",
        (PlanPage(new_id(), new_id(), 0),),
        SourceProvenance("/m/p 1.jpg", "nb/p 1.jpg", 10, "t", 1),
    )
    item = PlanItem(new_id(), Op.CREATE_NOTEBOOK, new_id(), "Notebook", (src,))
    return ImportPlan(new_id(), "transcribe.v1.skip_existing", (item,), {"roots": ["/m"]})


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    plan = _sample_plan()
    save_plan(plan, tmp_path / "plan.json")
    loaded = load_plan(tmp_path / "plan.json")
    assert loaded == plan
    assert loaded.fingerprint == plan.fingerprint


def test_a_plans_document_is_freed_in_short_calls_once_written_or_hashed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Freed in one cascade, the document of 100,000 sources held the GIL 0.28 s at the end
    # of the window's Save Plan As… (bench/bench_gui_shelf.py); each validation of a new
    # plan hashes one too.
    plan = _sample_plan()
    freed: list[list[str]] = []
    real = plan_values.free_in_slices

    def counted(values: list[Any]) -> None:
        freed.append(sorted(values[0]))  # the keys of the document taken apart
        real(values)
        assert values == []

    monkeypatch.setattr(plan_values, "free_in_slices", counted)
    written = plan.encode()
    # One document, hashed for the fingerprint and then written: made once, freed once.
    assert len(freed) == 1 and "plan_fingerprint" in freed[0] and "items" in freed[0]
    assert written == orjson.dumps(plan.to_document(), option=orjson.OPT_INDENT_2) + b"\n"
    assert plan.fingerprint == fingerprint_of(plan.to_document(with_fingerprint=False))
    assert len(freed) == 1  # the fingerprint is kept: hashed once a plan
    # A new plan validated before it is written is hashed from a document of its own.
    fresh = _sample_plan()
    assert fresh.fingerprint == fingerprint_of(fresh.to_document(with_fingerprint=False))
    assert len(freed) == 2 and "plan_fingerprint" not in freed[1] and "items" in freed[1]


def test_a_big_plan_is_read_in_short_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # One notebook of many pages, as mode single makes: parsed a source at a time, never
    # the document (nor the item) in one call that would hold the GIL from a window.
    sample = _sample_plan()
    item = sample.items[0]
    template = item.sources[0]
    sources = tuple(
        replace(
            template,
            source_id=new_id(),
            pages=(PlanPage(new_id(), new_id(), 0),),
            provenance=replace(template.provenance, rel=f"nb/p {n}.jpg"),
        )
        for n in range(300)
    )
    plan = replace(sample, items=(replace(item, sources=sources),))
    save_plan(plan, tmp_path / "plan.json")
    assert (tmp_path / "plan.json").stat().st_size > 100 * 2048
    loads = orjson.loads
    sizes: list[int] = []

    def counted(text: bytes | bytearray) -> Any:
        sizes.append(len(text))
        return loads(text)

    monkeypatch.setattr(short_calls, "JSON_SLICE", 2048)
    monkeypatch.setattr(orjson, "loads", counted)
    loaded = load_plan(tmp_path / "plan.json")
    monkeypatch.undo()

    assert loaded == plan
    assert loaded.fingerprint == plan.fingerprint
    assert len(sizes) > 300 and max(sizes) <= 2048 + 2


def _tampered(mutate: Any) -> dict[str, Any]:
    doc = _sample_plan().to_document()
    mutate(doc)
    doc["plan_fingerprint"] = fingerprint_of(doc)  # a crafted plan with a valid fingerprint
    return doc


@pytest.mark.parametrize(
    ("mutate", "words"),
    [
        (lambda d: d["items"][0].update(notebook_id="../../x"), "not a lower-case UUID"),
        (lambda d: d["items"][0].update(item_id=d["plan_id"]), "appears twice"),
        (lambda d: d["items"][0].update(op="import"), "neither create_notebook"),
        (lambda d: d["items"][0]["sources"][0].update(media_type="text/plain"), "media_type"),
        (lambda d: d["items"][0]["sources"][0].update(page_index=[1]), "page_index"),
        (
            lambda d: d["items"][0]["sources"][0]["pages"][0].update(page_id="A" * 36),
            "not a lower-case UUID",
        ),
        (lambda d: d.update(import_policy_id="transcribe.v1.replace_source"), "import_policy_id"),
        (lambda d: d["items"][0].update(cover_page_id=new_id()), "cover_page_id"),
    ],
)
def test_crafted_plans_are_refused(mutate: Any, words: str) -> None:
    with pytest.raises(PlanDocumentError) as info:
        plan_from_document(_tampered(mutate), "crafted.json")
    assert words in str(info.value)
    assert "crafted.json" in str(info.value)


def test_hand_edit_without_the_app_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    save_plan(_sample_plan(), path)
    doc = orjson.loads(path.read_bytes())
    doc["items"][0]["title"] = "Edited by hand"
    path.write_bytes(orjson.dumps(doc))
    with pytest.raises(PlanDocumentError) as info:
        load_plan(path)
    assert "plan_fingerprint does not match" in str(info.value)


def test_provenance_edit_is_not_a_tamper(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    save_plan(_sample_plan(), path)
    doc = orjson.loads(path.read_bytes())
    doc["items"][0]["sources"][0]["provenance"]["path"] = "/moved/disk/p 1.jpg"
    path.write_bytes(orjson.dumps(doc))
    assert load_plan(path).items[0].sources[0].provenance.path == "/moved/disk/p 1.jpg"


@pytest.mark.parametrize("content", [b"", b"{", b"[]", b'{"format": "transcribe.import-plan"}'])
def test_unreadable_documents_are_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "plan.json"
    path.write_bytes(content)
    with pytest.raises(PlanDocumentError) as info:
        load_plan(path)
    assert str(path) in str(info.value)


def test_planned_skip_is_a_marked_duplicate_not_excluded() -> None:
    base = _sample_plan().items[0].sources[0]
    cases = {
        (None, False): (False, True),
        (None, True): (False, False),
        (Duplicate.IN_NOTEBOOK, False): (True, False),
        (Duplicate.IN_PLAN, True): (False, False),  # excluded wins: not reported as skipped
    }
    for (dup, excluded), (skip, imported) in cases.items():
        s = replace(base, duplicate=dup, excluded=excluded)
        assert (s.planned_skip, s.imported) == (skip, imported)
    item = replace(
        _sample_plan().items[0],
        sources=(
            replace(base, source_id=new_id(), duplicate=Duplicate.IN_CORPUS),
            replace(base, source_id=new_id(), duplicate=Duplicate.IN_CORPUS, excluded=True),
            replace(base, source_id=new_id()),
        ),
    )
    assert item.planned_skips() == [item.sources[0]]
    assert item.imported_sources() == [item.sources[2]]


def test_imported_page_count_counts_only_the_pages_that_land() -> None:
    base = _sample_plan().items[0]
    [one] = base.sources
    pdf = replace(
        one,
        source_id=new_id(),
        media_type="application/pdf",
        pages=tuple(PlanPage(new_id(), new_id(), i) for i in range(3)),
    )
    item = replace(
        base,
        sources=(
            pdf,  # 3 pages land
            replace(one, source_id=new_id(), duplicate=Duplicate.IN_NOTEBOOK),  # skipped
            replace(pdf, source_id=new_id(), excluded=True),  # left out
            replace(one, source_id=new_id()),  # 1 page lands
        ),
    )
    assert item.imported_page_count() == 4
    plan = replace(_sample_plan(), items=(item, replace(base, item_id=new_id())))
    assert plan.imported_page_count() == 4 + 1


def test_an_item_says_whether_it_has_a_duplicate_and_an_item_made_from_it_looks_again() -> None:
    base = _sample_plan().items[0]
    [one] = base.sources
    assert not base.has_duplicates()
    skipping = replace(base, sources=(one, replace(one, duplicate=Duplicate.IN_CORPUS)))
    assert skipping.has_duplicates() and skipping.has_duplicates()  # found once, kept
    assert not replace(skipping, sources=(one,)).has_duplicates()  # a new item, found anew


@pytest.mark.parametrize("raw", [b"/m/nb/p 1.jpg", b"/m/nb/caf\xe9.jpg"])
def test_a_source_made_from_a_scan_opens_the_scans_own_path(raw: bytes) -> None:
    """``fs_path`` of a source made from a scanned file is that file's Path itself (no Path
    made again from text), equal to the one its fields give, a name not UTF-8 included; the
    source equals one read back from its fields."""
    path = Path(os.fsdecode(raw))
    made = SourceProvenance.for_path(path, rel="nb/p.jpg", size=1, mtime="t", mtime_ns=1)
    assert made.fs_path is path
    read = SourceProvenance(
        made.path, "nb/p.jpg", 1, "t", 1, path_b64=made.path_b64
    )  # as plan_from_document makes it
    assert read == made
    assert read.fs_path == path and read.fs_path is not path
    assert replace(made, rel="nb/q.jpg").fs_path == path
