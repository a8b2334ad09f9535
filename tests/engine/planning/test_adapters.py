"""Import adapters: each turns a small scanned tree into the groups a person would expect."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from transcribe_import.engine.base.errors import ErrorCode
from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.planning.adapters import ADAPTERS, AdapterResult, adapter_for
from transcribe_import.engine.planning.adapters.prefix import split_prefix
from transcribe_import.engine.planning.plan import (
    DEFAULT_MODE,
    MODES,
    AdapterMode,
    ModeName,
    Op,
    PageRef,
)
from transcribe_import.engine.planning.scan import ScanResult, run_scan

from media_factory import make_corrupt_pdf, make_jpeg, make_pdf, make_png, make_text_file

# The trees hold a damaged PDF, and scanning it makes pypdf log this.
pytestmark = pytest.mark.allow_logged_warnings(r"EOF marker not found")


def summary(result: AdapterResult) -> list[tuple[str, str | None, list[str]]]:
    return [(g.label, g.title, [f.rel for f in g.files]) for g in result.groups]


def group_with(mode: str, scan: ScanResult, **kw: str) -> AdapterResult:
    adapter, notebook_id = adapter_for(AdapterMode.parse(mode))
    result = adapter.group(scan, notebook_id=notebook_id, **kw)
    for g in result.groups:
        json.dumps(g.provenance)  # plan documents are JSON
        assert g.provenance["adapter"] == adapter.name
    return result


@pytest.fixture
def boxes(tmp_path: Path) -> ScanResult:
    """A box holding its own cover, notebooks nb2 and nb10, and a box of boxes."""
    box = tmp_path / "box"
    make_jpeg(box / "cover.jpg")
    make_jpeg(box / "nb10" / "p 10.jpg")
    make_jpeg(box / "nb10" / "p 2.jpg")
    make_corrupt_pdf(box / "nb10" / "broken.pdf")
    make_png(box / "nb2" / "a.png")
    make_jpeg(box / "shelf" / unicodedata.normalize("NFD", "Übung") / "1.jpg")
    make_text_file(box / "shelf" / "notes.txt")
    return run_scan([box])


def test_registry_and_modes() -> None:
    assert set(ADAPTERS) == {"folders", "pdfs", "prefix", "single", "into"}
    assert all(ADAPTERS[name].name == name for name in ADAPTERS)
    assert AdapterMode(ModeName.FOLDERS) == DEFAULT_MODE and str(DEFAULT_MODE) == "folders"
    for mode in ("folders", "pdfs", "prefix", "single"):
        assert adapter_for(AdapterMode.parse(mode)) == (ADAPTERS[mode], None)
    nbid = new_id()
    assert adapter_for(AdapterMode.parse(f"into:{nbid}")) == (ADAPTERS["into"], nbid)
    assert "into:NOTEBOOK" in MODES


@pytest.mark.parametrize(
    "text", ["folders", "pdfs", "prefix", "single", "bag", "into:Field notes 1987", "into:bb56"]
)
def test_a_mode_reads_back_as_it_was_typed(text: str) -> None:
    mode = AdapterMode.parse(text)
    assert str(mode) == text and AdapterMode.parse(str(mode)) == mode


def test_into_keeps_the_notebook_as_it_was_named_until_the_corpus_resolves_it() -> None:
    assert AdapterMode.parse("into: Field notes ") == AdapterMode(ModeName.INTO, "Field notes")
    with pytest.raises(ValueError, match="plans bags, not scanned files"):
        adapter_for(AdapterMode(ModeName.BAG))


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("bogus", "use one of folders, pdfs, prefix, single, into:NOTEBOOK, bag"),
        ("folders:x", "unknown mode 'folders:x': folders takes nothing after a colon"),
        ("into", "into:NOTEBOOK, its id, the start of its id or its title"),
        ("into:", "into:NOTEBOOK, its id, the start of its id or its title"),
        ("into:../../etc", "is not a notebook id"),
        ("into:" + new_id().upper(), "lower-case UUID"),
    ],
)
def test_bad_modes_are_value_errors_that_say_what_to_do(mode: str, says: str) -> None:
    with pytest.raises(ValueError, match=None) as info:
        adapter_for(AdapterMode.parse(mode))
    assert says in str(info.value)


def test_folders_one_notebook_per_folder_with_pages(boxes: ScanResult) -> None:
    result = group_with("folders", boxes)

    assert summary(result) == [
        ("box", "box", ["box/cover.jpg"]),
        ("box/nb2", "nb2", ["box/nb2/a.png"]),
        ("box/nb10", "nb10", ["box/nb10/broken.pdf", "box/nb10/p 2.jpg", "box/nb10/p 10.jpg"]),
        ("box/shelf/Übung", "Übung", ["box/shelf/Übung/1.jpg"]),
    ]
    assert all(g.op is Op.CREATE_NOTEBOOK and g.notebook_id is None for g in result.groups)
    nb10 = result.groups[2]
    # Problem files stay in their group: the planner decides about them.
    assert nb10.files[0].problem is not None
    assert nb10.files[0].problem.code is ErrorCode.CORRUPT_PDF
    assert nb10.provenance == {"adapter": "folders", "folder": str(nb10.files[1].path.parent)}
    assert unicodedata.is_normalized("NFC", result.groups[3].title or "")
    assert result.not_planned == ()


def test_folders_files_given_directly_group_by_their_folder(tmp_path: Path) -> None:
    a = make_jpeg(tmp_path / "loose" / "a.jpg")
    b = make_jpeg(tmp_path / "loose" / "b.jpg")
    c = make_jpeg(tmp_path / "other" / "c.jpg")

    result = group_with("folders", run_scan([b, c, a]))

    assert summary(result) == [
        ("loose", "loose", ["a.jpg", "b.jpg"]),
        ("other", "other", ["c.jpg"]),
    ]


def test_pdfs_one_notebook_per_pdf_and_images_not_planned(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    make_pdf(tree / "Field notes 2.pdf", 2)
    make_pdf(tree / "sub" / "Field notes 10.pdf", 1)
    make_corrupt_pdf(tree / "sub" / "damaged.PDF")
    make_jpeg(tree / "sub" / "photo.jpg")

    result = group_with("pdfs", run_scan([tree]))

    assert summary(result) == [
        ("tree/Field notes 2.pdf", "Field notes 2", ["tree/Field notes 2.pdf"]),
        ("tree/sub/damaged.PDF", "damaged", ["tree/sub/damaged.PDF"]),
        ("tree/sub/Field notes 10.pdf", "Field notes 10", ["tree/sub/Field notes 10.pdf"]),
    ]
    (skipped,) = result.not_planned
    assert skipped.rel == "tree/sub/photo.jpg"
    assert skipped.path == str(tree / "sub" / "photo.jpg")
    assert "pdfs mode imports only PDFs" in skipped.reason
    # Words for any face: the CLI says its option itself (cli/runs.cmd_plan).
    assert "plan images by folder" in skipped.reason and "--" not in skipped.reason


@pytest.mark.parametrize(
    ("name", "prefix"),
    [
        ("NB12_p001.jpg", "NB12"),
        ("NB13-001.jpg", "NB13"),
        ("NB-12_p001.jpg", "NB-12"),
        ("NB12__p001.jpg", "NB12"),
        ("NB12_p001_back.jpg", "NB12"),
        ("field notes_7.png", "field notes"),
        ("cover.jpg", None),
        ("NB12_cover.jpg", None),
        ("_001.jpg", None),
        ("001.jpg", None),
    ],
)
def test_split_prefix(name: str, prefix: str | None) -> None:
    assert split_prefix(name) == prefix


def test_prefix_one_notebook_per_folder_and_prefix(tmp_path: Path) -> None:
    scans = tmp_path / "scans"
    for name in ("NB12_p010.jpg", "NB12_p002.jpg", "NB12_p001.jpg", "NB13-001.jpg", "cover.jpg"):
        make_jpeg(scans / name)
    make_jpeg(scans / "later" / "NB12_p001.jpg")

    result = group_with("prefix", run_scan([scans]))

    assert summary(result) == [
        ("scans/later/NB12", "NB12", ["scans/later/NB12_p001.jpg"]),
        (
            "scans/NB12",
            "NB12",
            ["scans/NB12_p001.jpg", "scans/NB12_p002.jpg", "scans/NB12_p010.jpg"],
        ),
        ("scans/NB13", "NB13", ["scans/NB13-001.jpg"]),
    ]
    (skipped,) = result.not_planned
    assert skipped.rel == "scans/cover.jpg"
    assert "<notebook>_<page>" in skipped.reason


def test_single_everything_in_one_notebook(boxes: ScanResult, tmp_path: Path) -> None:
    result = group_with("single", boxes)
    (group,) = result.groups
    assert group.op is Op.CREATE_NOTEBOOK
    assert group.title == "box"
    assert len(group.files) == len(boxes.files) == 6
    assert [f.rel for f in group.files][:2] == ["box/cover.jpg", "box/nb2/a.png"]

    titled = group_with("single", boxes, title="Spring field notes")
    assert titled.groups[0].title == "Spring field notes"
    with pytest.raises(ValueError, match="title is empty"):
        ADAPTERS["single"].group(boxes, title="  ")

    pdf = make_pdf(tmp_path / "Diary 1931.pdf", 1)
    assert group_with("single", run_scan([pdf])).groups[0].title == "Diary 1931"


def test_single_and_into_make_nothing_of_an_empty_scan(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    empty = run_scan([tmp_path / "empty"])
    assert group_with("single", empty).groups == ()
    assert group_with(f"into:{new_id()}", empty).groups == ()


def test_into_everything_into_the_given_notebook(boxes: ScanResult) -> None:
    nbid = new_id()
    (group,) = group_with(f"into:{nbid}", boxes).groups
    assert group.op is Op.IMPORT_INTO_NOTEBOOK
    assert (group.notebook_id, group.title) == (nbid, None)
    assert len(group.files) == 6
    with pytest.raises(ValueError, match="not a notebook id"):
        ADAPTERS["into"].group(boxes, notebook_id="NB12")


@pytest.mark.parametrize(
    ("text", "ref"),
    [
        ("scan 1.jpg", PageRef("scan 1.jpg")),
        ("book.pdf#3", PageRef("book.pdf", 3)),
        ("box/book.pdf#12", PageRef("box/book.pdf", 12)),
        ("notes#draft.jpg", PageRef("notes#draft.jpg")),  # no number after the last #
        ("#3", PageRef("#3")),  # no file before it
    ],
)
def test_a_page_is_read_once_from_what_was_typed(text: str, ref: PageRef) -> None:
    assert PageRef.parse(text) == ref and str(ref) == text
