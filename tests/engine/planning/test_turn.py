"""A page turned in the plan: its fingerprint, project.json's ``turn``, an upright render of an
untouched source (the EXIF orientation applied first), doctor's render again, undo."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import orjson
import pytest
from PIL import Image

from transcribe_import.engine import api
from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.media.kinds import PDF, TIFF, Turn
from transcribe_import.engine.media.render import RenderEngine, render_pages
from transcribe_import.engine.media.render_vips import Thumbnails
from transcribe_import.engine.media.rerender import render_again
from transcribe_import.engine.planning import page_edits
from transcribe_import.engine.planning.plan import (
    ImportPlan,
    Op,
    PageRef,
    PlanDocumentError,
    PlanItem,
    load_plan,
)
from transcribe_import.engine.planning.plan_document import fingerprint_of
from transcribe_import.engine.runs.revert import plan_revert
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import assert_notebook_whole, jpeg_source
from helpers.lookalike_set import Rescan, labelled_set
from helpers.runs import commit_plan, plan_for
from helpers.turns import SIZE, marked_page, red_corner
from media_factory import _exif, make_multiframe_tiff, make_pdf


def refs(*names: str) -> list[PageRef]:
    """Files and pages as a person types them (``FILE``, ``FILE#N``)."""
    return [PageRef.parse(n) for n in names]


def _plan(corpus: Corpus, root: Path) -> ImportPlan:
    plan = plan_for(corpus, root)
    assert len(plan.items) == 1
    return plan


def test_turn_of_takes_only_quarter_turns() -> None:
    assert Turn.of(0) is Turn.NONE and Turn.of(270) is Turn.THREE_QUARTERS
    for bad in (45, 360, -90, True, 90.0, "90"):
        with pytest.raises(ValueError, match="0, 90, 180 or 270 degrees clockwise"):
            Turn.of(bad)
    assert Turn.QUARTER.then(Turn.THREE_QUARTERS) is Turn.NONE
    assert Turn.HALF.then(Turn.HALF).then(Turn.QUARTER) is Turn.QUARTER


def test_a_turn_changes_the_fingerprint_and_none_keeps_it(corpus: Corpus, tmp_path: Path) -> None:
    for k in (1, 2):
        marked_page(tmp_path / "nb" / f"{k}.jpg")
    plan = _plan(corpus, tmp_path / "nb")
    before = plan.fingerprint
    assert b'"turn"' not in plan.encode()  # a plan with no turn is written as before
    item = api.turn_pages(plan.items[0], refs("2.jpg"), 90)
    turned = plan.with_item(item)
    assert turned.fingerprint != before
    assert [p.turn for s in item.sources for p in s.pages] == [Turn.NONE, Turn.QUARTER]
    # Taken back with 0: the plan is the one it was, byte for byte.
    back = turned.with_item(api.turn_pages(item, refs("2.jpg"), 0))
    assert back.fingerprint == before and back.encode() == plan.encode()


def test_a_turn_is_saved_and_read_back_and_a_bad_one_refused(
    corpus: Corpus, tmp_path: Path
) -> None:
    marked_page(tmp_path / "nb" / "1.jpg")
    plan = _plan(corpus, tmp_path / "nb")
    plan = plan.with_item(api.turn_pages(plan.items[0], refs("1.jpg"), 180))
    path = tmp_path / "plan.json"
    path.write_bytes(plan.encode())
    again = load_plan(path)
    assert again.fingerprint == plan.fingerprint
    assert again.items[0].sources[0].pages[0].turn is Turn.HALF
    doc = plan.to_document()
    doc["items"][0]["sources"][0]["pages"][0]["turn"] = 45
    doc["plan_fingerprint"] = fingerprint_of(doc)  # refused for the turn, not as edited
    path.write_bytes(orjson.dumps(doc))
    with pytest.raises(PlanDocumentError, match="has a turn of 45: it must be 90, 180 or 270"):
        load_plan(path)


def test_turn_names_files_or_pages_of_a_file_of_several(corpus: Corpus, tmp_path: Path) -> None:
    make_multiframe_tiff(tmp_path / "nb" / "scan.tif", frames=3)
    make_pdf(tmp_path / "nb" / "book.pdf", pages=2)
    item = _plan(corpus, tmp_path / "nb").items[0]
    item = api.turn_pages(item, refs("scan.tif#2", "book.pdf"), 270)
    turns = {(s.name, p.page_index): p.turn for s in item.sources for p in s.pages}
    assert turns == {
        ("book.pdf", 0): Turn.THREE_QUARTERS,
        ("book.pdf", 1): Turn.THREE_QUARTERS,
        ("scan.tif", 0): Turn.NONE,
        ("scan.tif", 1): Turn.THREE_QUARTERS,
        ("scan.tif", 2): Turn.NONE,
    }
    with pytest.raises(ValueError, match="no source named 'nothing.jpg'"):
        api.turn_pages(item, refs("nothing.jpg"), 90)
    with pytest.raises(ValueError, match="has no page 7"):
        api.turn_pages(item, refs("scan.tif#7"), 90)
    # A page left out keeps its turn, and brings it back when it is taken back.
    item = page_edits.leave_out_pages(item, refs("scan.tif#2"))
    item = page_edits.take_back_pages(item, refs("scan.tif#2"))
    tif = next(s for s in item.sources if s.name == "scan.tif")
    assert tif.pages[1].turn is Turn.THREE_QUARTERS


def test_a_turned_page_lands_upright_with_its_source_byte_for_byte(
    corpus: Corpus, tmp_path: Path
) -> None:
    # 1.jpg as it is; 2.jpg turned a quarter; 3.jpg mirrored by its EXIF (orientation 2)
    # and turned a quarter: the mirror first, so the block ends bottom-right (turned first
    # then mirrored, it would be top-left).
    files = [
        marked_page(tmp_path / "nb" / "1.jpg"),
        marked_page(tmp_path / "nb" / "2.jpg"),
        marked_page(tmp_path / "nb" / "3.jpg", orientation=2),
    ]
    original = {f.name: f.read_bytes() for f in files}
    plan = _plan(corpus, tmp_path / "nb")
    plan = plan.with_item(api.turn_pages(plan.items[0], refs("2.jpg", "3.jpg"), 90))
    result = commit_plan(corpus, plan)
    assert result.status == "complete"
    nb_id = plan.items[0].notebook_id
    doc = assert_notebook_whole(corpus, nb_id)
    nb_dir = corpus.notebook_dir(nb_id)
    assert [p.get("turn") for p in doc["pages"]] == [None, 90, 90]
    renders = [(nb_dir / p["render"]["path"]).read_bytes() for p in doc["pages"]]
    assert [red_corner(png) for png in renders] == [
        ((120, 200), "top-left"),
        ((200, 120), "top-right"),
        ((200, 120), "bottom-right"),
    ]
    for f in files:  # the originals untouched, and the notebook's copies the same bytes
        assert f.read_bytes() == original[f.name]
    by_sha = {s["sha256"]: (nb_dir / s["path"]).read_bytes() for s in doc["sources"]}
    assert sorted(by_sha.values()) == sorted(original.values())
    # doctor makes a lost render again turned, with the bytes project.json records.
    page = doc["pages"][2]
    again = render_again(nb_dir, page, doc)
    assert again.png is not None
    assert hashlib.sha256(again.png).hexdigest() == page["render"]["sha256"]
    # The library reads the turn back, to show the page's file turned as its render is.
    assert [p.turn for p in api.read_notebook(corpus, nb_id).pages] == [0, 90, 90]
    # Undoing the run is not blocked by the turn it wrote itself.
    assert plan_revert(corpus, result.run_id).ok


@pytest.mark.parametrize("engine", list(RenderEngine))
def test_every_renderer_turns_after_the_exif_orientation(
    tmp_path: Path, engine: RenderEngine
) -> None:
    # Orientation 6: shown turned a quarter clockwise (block top-right, landscape); turned
    # a quarter more by the person: upside down from the file (block bottom-right, portrait).
    path = marked_page(tmp_path / "p.jpg", orientation=6)
    (plain,) = render_pages(path, "image/jpeg", [0], engine=engine)
    (turned,) = render_pages(path, "image/jpeg", [0], engine=engine, turns={0: Turn.QUARTER})
    assert red_corner(plain.png) == ((200, 120), "top-right")
    assert red_corner(turned.png) == ((120, 200), "bottom-right")


@pytest.mark.parametrize("engine", list(RenderEngine))
def test_pages_of_a_pdf_and_a_tiff_turn_one_by_one(tmp_path: Path, engine: RenderEngine) -> None:
    pdf = make_pdf(tmp_path / "b.pdf", pages=2)
    tif = make_multiframe_tiff(tmp_path / "s.tif", frames=2)
    for path, kind in ((pdf, PDF), (tif, TIFF)):
        plain = list(render_pages(path, kind, [0, 1], engine=engine))
        turned = list(render_pages(path, kind, [0, 1], engine=engine, turns={1: Turn.QUARTER}))
        assert turned[0].sha256 == plain[0].sha256
        assert (turned[1].width, turned[1].height) == (plain[1].height, plain[1].width)
        upright = Image.open(io.BytesIO(plain[1].png)).convert("RGB")
        expected = upright.transpose(Image.Transpose.ROTATE_270)
        got = Image.open(io.BytesIO(turned[1].png)).convert("RGB")
        # pdfium turns as it rasterises: its anti-aliasing may differ by a grey level or so.
        diff = [abs(a - b) for a, b in zip(got.tobytes(), expected.tobytes(), strict=True)]
        assert sum(diff) / len(diff) < 2.0, path


def test_project_turn_of_ignores_what_it_never_writes() -> None:
    assert project.turn_of({"turn": 90}) == 90
    assert [project.turn_of({"turn": v}) for v in (None, 45, True, "90", 360)] == [0] * 5
    assert project.turn_of({}) == 0


@pytest.mark.parametrize("engine", list(RenderEngine))
def test_a_turned_page_makes_no_thumbnail_of_its_file(tmp_path: Path, engine: RenderEngine) -> None:
    # Thumbnails are kept by the file's bytes and show the file as it is (the window turns
    # them): one made of a turned render would be turned twice, and in every later plan.
    tif = make_multiframe_tiff(tmp_path / "s.tif", frames=2)
    pdf = make_pdf(tmp_path / "b.pdf", pages=2)
    for path, kind in ((tif, TIFF), (pdf, PDF)):
        made: list[int] = []
        thumbnails = Thumbnails(lambda index, _side, _png, made=made: made.append(index), (96,))
        pages = render_pages(
            path, kind, [0, 1], engine=engine, thumbnails=thumbnails, turns={1: Turn.HALF}
        )
        assert len(list(pages)) == 2
        assert made == ([0] if engine is RenderEngine.LIBVIPS or kind == TIFF else []), path


def _sized_item(shapes: list[tuple[int, int]]) -> PlanItem:
    sources = tuple(
        jpeg_source(i, f"{i}.jpg", width=w, height=h) for i, (w, h) in enumerate(shapes)
    )
    return PlanItem(new_id(), Op.CREATE_NOTEBOOK, new_id(), "Diary", sources)


def _ids(item: PlanItem, *indices: int) -> frozenset[str]:
    return frozenset(item.sources[i].pages[0].page_id for i in indices)


def test_a_landscape_page_in_a_portrait_notebook_is_probably_sideways() -> None:
    portrait, landscape, square = (300, 400), (400, 300), (400, 380)
    item = _sized_item([portrait, portrait, landscape, portrait, portrait, square])
    assert api.sideways_pages(item) == _ids(item, 2)
    # Turned a quarter, it is portrait like the others: no hint. Turned upside down, still one.
    assert api.sideways_pages(api.turn_pages(item, refs("2.jpg"), 270)) == frozenset()
    assert api.sideways_pages(api.turn_pages(item, refs("2.jpg"), 180)) == _ids(item, 2)
    # A portrait page a person turned a quarter lands landscape: theirs, not asked about
    # (the quarter turns a "Turn it?" offers would leave it as it is: a newcomer met that).
    tall = _sized_item([portrait] * 6 + [landscape])
    for angle in (90, 270):
        assert api.sideways_pages(api.turn_pages(tall, refs("1.jpg"), angle)) == _ids(tall, 6)
    # The same the other way round: a portrait page among landscape ones.
    flipped = _sized_item([landscape, landscape, portrait, landscape])
    assert api.sideways_pages(flipped) == _ids(flipped, 2)
    # No hint where the shapes are mixed, where too few pages say what the notebook is, or
    # for a page left out.
    assert api.sideways_pages(_sized_item([portrait, landscape, portrait, landscape])) == set()
    assert api.sideways_pages(_sized_item([portrait, portrait, landscape])) == set()
    left_out = api.reorder(item, exclude=refs("2.jpg"))
    assert api.sideways_pages(left_out) == frozenset()


def test_ordinary_notebooks_get_no_sideways_hint(corpus: Corpus, tmp_path: Path) -> None:
    # Portrait pages, two of them phone photos held sideways: landscape files whose EXIF
    # orientation shows them portrait, so portrait pages.
    for k in range(1, 9):
        path = marked_page(tmp_path / "nb" / f"{k}.jpg")
        if k % 3 == 0:
            exif = _exif(6, None, None).tobytes()
            Image.open(path).transpose(Image.Transpose.ROTATE_90).save(path, "JPEG", exif=exif)
    (item,) = _plan(corpus, tmp_path / "nb").items
    sizes = {s.name: (s.provenance.width, s.provenance.height) for s in item.sources}
    assert sizes["3.jpg"] == sizes["1.jpg"] == SIZE
    assert api.sideways_pages(item) == frozenset()
    # The same without the EXIF orientation is what the hint is for: asked of both.
    for k in (3, 6):
        path = tmp_path / "nb" / f"{k}.jpg"
        Image.open(path).save(path, "JPEG")  # no EXIF: shown landscape
    (item,) = _plan(corpus, tmp_path / "nb").items
    assert {s.name for s in item.sources if s.pages[0].page_id in api.sideways_pages(item)} == {
        "3.jpg",
        "6.jpg",
    }


def test_the_labelled_set_sideways_pages_are_found_and_ordinary_ones_left_alone() -> None:
    # The rescans issue's realistic pages (three rulings, every fill), each rescanned every
    # way: turned a quarter either way is sideways; as it is, tilted, cropped, lighter or
    # darker, recompressed, or upside down is not (upside down keeps its shape: the hint,
    # which reads only the shape, cannot see it).
    labelled = labelled_set(pages_per_ruling=6)
    quarter = (Rescan.RIGHT, Rescan.LEFT)
    ordinary = [p.size for p in labelled.pages]
    ordinary += [im.size for _i, kind, im in labelled.rescans if kind not in quarter]
    sideways = [im.size for _i, kind, im in labelled.rescans if kind in quarter]
    notebook = _sized_item(ordinary)
    assert len(ordinary) == 108 and len(sideways) == 36
    assert api.sideways_pages(notebook) == frozenset()  # the issue allows 1 %: none
    for size in sideways:  # each slipped in among a notebook's ordinary pages
        item = _sized_item([*ordinary[:12], size])
        assert api.sideways_pages(item) == _ids(item, 12), size
