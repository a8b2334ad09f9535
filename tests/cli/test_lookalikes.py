"""Rescans recognised by their look (#22): a page like one already imported, not its bytes, is
asked about in words, and each of the three answers does what it says."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from PIL import Image

from transcribe_import.engine.media import lookalike

from helpers.cli import assert_doctor_clean, cli_json, ok, run_cli
from helpers.lookalike_set import (
    Rescan,
    Ruling,
    alike_pages,
    notebook_page,
    notebook_scan,
    rescan_file,
    save_jpeg,
    scans,
)

PAGES = 4


def _imported(tmp_path: Path) -> tuple[Path, str]:
    """A corpus holding “Diary 1931”, its pages 01.jpg to 04.jpg; its notebook id."""
    data = tmp_path / "data"
    folder = tmp_path / "Diary 1931"
    scans(folder, range(1, PAGES + 1))
    plan = tmp_path / "first.json"
    ok(run_cli(data, "plan", str(folder), "-o", str(plan)))
    ok(run_cli(data, "commit", str(plan)))
    (nb,) = cli_json(data, "notebooks", "--json")["notebooks"]
    return data, str(nb["notebook_id"])


def _project(data: Path, nbid: str) -> dict[str, Any]:
    path = data / "corpus" / "notebooks" / nbid / "project.json"
    doc: dict[str, Any] = orjson.loads(path.read_bytes())
    return doc


def _looks_like(data: Path, plan: Path) -> list[dict[str, Any]]:
    report = cli_json(data, "validate", str(plan), "--json")
    return [p for p in report["problems"] if p["code"] == "looks_like"]


def _item(data: Path, plan: Path) -> str:
    doc = orjson.loads(plan.read_bytes())
    return str(doc["items"][0]["item_id"])


def test_each_page_lands_with_its_look(tmp_path: Path) -> None:
    data, nbid = _imported(tmp_path)
    pages = _project(data, nbid)["pages"]
    assert len(pages) == PAGES
    for page in pages:
        assert lookalike.look_from_hex(page["look"]) is not None


def test_a_rescan_into_the_notebook_is_asked_about_and_replace_replaces(tmp_path: Path) -> None:
    data, nbid = _imported(tmp_path)
    old = _project(data, nbid)["pages"][2]["id"]
    rescan_file(3, Rescan.TILT, tmp_path / "rescans" / "p3.jpg")
    plan = tmp_path / "into.json"
    out = ok(
        run_cli(data, "plan", str(tmp_path / "rescans"), "--mode", f"into:{nbid}", "-o", str(plan))
    )
    words = "rescans/p3.jpg looks like page 3 of “Diary 1931”: a rescan?"
    assert words in out.stdout
    assert "[a rescan?]" in out.stdout
    (problem,) = _looks_like(data, plan)
    assert problem["message"] == words
    assert problem["resolutions"] == ["rescan_replaces", "keep_both", "leave_out"]
    assert problem["files"] == ["rescans/p3.jpg"]
    out = ok(run_cli(data, "order", str(plan), _item(data, plan), "--rescan", "rescans/p3.jpg"))
    # Told where the rescan goes: the place of the page it replaces (no "new pages" to place).
    assert "rescans/p3.jpg replaces page 3 of “Diary 1931” (03.jpg)." in out.stdout
    assert "new pages" not in out.stdout
    assert _looks_like(data, plan) == []
    ok(run_cli(data, "commit", str(plan)))
    doc = _project(data, nbid)
    assert len(doc["pages"]) == PAGES
    assert doc["pages"][2]["id"] != old  # the rescan took page 3's place
    (history,) = doc["replaced_pages"]
    assert history["page"]["id"] == old  # the old page kept in history
    assert_doctor_clean(data)
    run_id = cli_json(data, "runs", "--json")["runs"][0]["import_run_id"]
    shown = ok(run_cli(data, "show", run_id)).stdout
    assert "rescans/p3.jpg replaces page 3 of “Diary 1931” (03.jpg), now replaced" in shown


def test_a_rescan_planned_as_a_new_notebook_is_imported_into_the_notebook_instead(
    tmp_path: Path,
) -> None:
    """A folder planned as a new notebook holds a rescan of page 2 of “Diary 1931” and a new
    page: `order --into` makes it an import into that notebook, where Replace is offered."""
    data, nbid = _imported(tmp_path)
    old = _project(data, nbid)["pages"][1]["id"]
    rescan_file(2, Rescan.LIGHT, tmp_path / "Loose" / "p1.jpg")
    save_jpeg(notebook_page(77, Ruling.PLAIN, 0.4), tmp_path / "Loose" / "p2.jpg")
    plan = tmp_path / "loose.json"
    out = ok(run_cli(data, "plan", str(tmp_path / "Loose"), "-o", str(plan)))
    assert "Loose/p1.jpg looks like page 2 of “Diary 1931”: a rescan?" in out.stdout
    assert f"order --into {nbid[:8]} | --keep-both" in out.stdout
    (problem,) = _looks_like(data, plan)
    assert problem["resolutions"] == ["import_into", "keep_both", "leave_out"]
    assert problem["notebook_id"] == nbid
    refused = run_cli(data, "order", str(plan), _item(data, plan), "--into", "Diary 1932")
    assert refused.returncode != 0 and "the corpus has no notebook 'Diary 1932'" in refused.stderr

    ok(run_cli(data, "order", str(plan), _item(data, plan), "--into", "Diary 1931"))
    [item] = orjson.loads(plan.read_bytes())["items"]
    assert (item["op"], item["notebook_id"]) == ("import_into_notebook", nbid)
    (problem,) = _looks_like(data, plan)
    assert problem["resolutions"] == ["rescan_replaces", "keep_both", "leave_out"]
    again = run_cli(data, "order", str(plan), _item(data, plan), "--into", nbid)
    assert again.returncode != 0 and "is imported into a notebook of the corpus" in again.stderr

    out = ok(run_cli(data, "order", str(plan), _item(data, plan), "--rescan", "Loose/p1.jpg"))
    assert "Loose/p1.jpg replaces page 2 of “Diary 1931” (02.jpg)." in out.stdout
    ok(run_cli(data, "commit", str(plan)))
    assert len(cli_json(data, "notebooks", "--json")["notebooks"]) == 1  # no second notebook
    doc = _project(data, nbid)
    files = [s["provenance"]["original_path"].rsplit("/", 1)[-1] for s in doc["sources"]]
    by_source = dict(zip([s["id"] for s in doc["sources"]], files, strict=True))
    assert [by_source[p["source_id"]] for p in doc["pages"]] == [
        "01.jpg",
        "p1.jpg",
        "03.jpg",
        "04.jpg",
        "p2.jpg",
    ]
    (history,) = doc["replaced_pages"]
    assert history["page"]["id"] == old
    assert_doctor_clean(data)


def test_a_quarter_turned_rescan_kept_both_is_not_asked_again(tmp_path: Path) -> None:
    data, nbid = _imported(tmp_path)
    rescan_file(2, Rescan.RIGHT, tmp_path / "Loose" / "turned.jpg")
    plan = tmp_path / "loose.json"
    out = ok(run_cli(data, "plan", str(tmp_path / "Loose"), "-o", str(plan)))
    assert "Loose/turned.jpg looks like page 2 of “Diary 1931”, turned" in out.stdout
    (problem,) = _looks_like(data, plan)
    # A new notebook: Replace is not offered, and the words say where it would be; importing
    # into that notebook instead is (--into, tested below).
    assert problem["resolutions"] == ["import_into", "keep_both", "leave_out"]
    assert "import it into that notebook instead" in problem["message"]
    refused = run_cli(data, "order", str(plan), _item(data, plan), "--rescan", "Loose/turned.jpg")
    assert refused.returncode != 0
    assert "cannot replace page 2 of “Diary 1931”" in refused.stderr
    ok(run_cli(data, "order", str(plan), _item(data, plan), "--keep-both", "Loose/turned.jpg"))
    assert _looks_like(data, plan) == []
    ok(run_cli(data, "commit", str(plan)))
    notebooks = cli_json(data, "notebooks", "--json")["notebooks"]
    assert sorted(nb["page_count"] for nb in notebooks) == [1, PAGES]  # both kept
    # Scanned again, with no corpus-wide duplicates so that the file is planned again: the
    # pair is remembered, and its own copy is the same bytes, no rescan.
    again = tmp_path / "again.json"
    out = ok(
        run_cli(data, "plan", str(tmp_path / "Loose"), "--dedupe", "notebook", "-o", str(again))
    )
    assert "a rescan?" not in out.stdout
    assert _looks_like(data, again) == []


def test_a_rescan_left_out_is_not_imported(tmp_path: Path) -> None:
    data, _nbid = _imported(tmp_path)
    rescan_file(4, Rescan.LIGHT, tmp_path / "More" / "again.jpg")
    save_jpeg(notebook_page(77, Ruling.PLAIN, 0.4), tmp_path / "More" / "new.jpg")
    plan = tmp_path / "more.json"
    out = ok(run_cli(data, "plan", str(tmp_path / "More"), "-o", str(plan)))
    assert "More/again.jpg looks like page 4 of “Diary 1931”: a rescan?" in out.stdout
    assert "new.jpg looks like" not in out.stdout
    ok(run_cli(data, "order", str(plan), _item(data, plan), "--exclude", "More/again.jpg"))
    assert _looks_like(data, plan) == []
    ok(run_cli(data, "commit", str(plan)))
    notebooks = cli_json(data, "notebooks", "--json")["notebooks"]
    assert sorted(nb["page_count"] for nb in notebooks) == [1, PAGES]


def test_a_rescan_beside_its_page_in_one_folder_replaces_it_in_the_plan(tmp_path: Path) -> None:
    data = tmp_path / "data"
    folder = tmp_path / "Box"
    save_jpeg(notebook_scan(1), folder / "p1.jpg")
    save_jpeg(notebook_scan(2), folder / "p2.jpg")
    rescan_file(2, Rescan.HALF, folder / "p3.jpg")
    plan = tmp_path / "box.json"
    out = ok(run_cli(data, "plan", str(folder), "-o", str(plan)))
    assert "Box/p3.jpg looks like Box/p2.jpg in this import, turned 180°: a rescan?" in out.stdout
    (problem,) = _looks_like(data, plan)
    # A page of the same folder: None Are Rescans is offered too (for pages alike throughout).
    assert problem["resolutions"] == [
        "rescan_replaces",
        "keep_both",
        "leave_out",
        "none_are_rescans",
    ]
    ok(run_cli(data, "order", str(plan), _item(data, plan), "--rescan", "Box/p3.jpg"))
    doc = orjson.loads(plan.read_bytes())
    excluded = [s["provenance"]["rel"] for s in doc["items"][0]["sources"] if s["excluded"]]
    assert excluded == ["Box/p2.jpg"]
    assert _looks_like(data, plan) == []


def _landed_files(data: Path, plan: Path) -> list[str]:
    """The landed notebook's pages, each as the file (and page of it) it came from."""
    doc = orjson.loads(plan.read_bytes())
    rel = {s["source_id"]: s["provenance"]["rel"] for s in doc["items"][0]["sources"]}
    project = _project(data, str(doc["items"][0]["notebook_id"]))
    return [f"{rel[p['source_id']]}#{p['page_index'] + 1}" for p in project["pages"]]


def test_a_rescan_numbered_after_the_last_page_replaces_its_page_where_it_stood(
    tmp_path: Path,
) -> None:
    """A phone's numbering puts the rescan of page 2 after page 4: Replace lands it as page 2."""
    data = tmp_path / "data"
    folder = tmp_path / "Box"
    scans(folder, range(1, 5), "IMG_{k:04d}.jpg")
    rescan_file(2, Rescan.LIGHT, folder / "IMG_0005.jpg")
    plan = tmp_path / "box.json"
    out = ok(run_cli(data, "plan", str(folder), "-o", str(plan)))
    assert "Box/IMG_0005.jpg looks like Box/IMG_0002.jpg in this import" in out.stdout
    ok(run_cli(data, "order", str(plan), _item(data, plan), "--rescan", "Box/IMG_0005.jpg"))
    assert _looks_like(data, plan) == []
    ok(run_cli(data, "commit", str(plan)))
    assert _landed_files(data, plan) == [
        "Box/IMG_0001.jpg#1",
        "Box/IMG_0005.jpg#1",
        "Box/IMG_0003.jpg#1",
        "Box/IMG_0004.jpg#1",
    ]


def _pdf_holding_scan(pdf: Path, k: int, *, at: int, tmp_path: Path) -> None:
    """A 3-page scanner's PDF whose page ``at`` (from 0) is notebook scan ``k`` as a JPEG
    decodes it; the others are squared pages of another hand."""
    scan = tmp_path / f"scan{k}.jpg"
    save_jpeg(notebook_scan(k), scan)
    with Image.open(scan) as page:
        pages = [notebook_page(seed, Ruling.SQUARED, 0.6) for seed in (81, 82)]
        pages.insert(at, page.convert("RGB"))
        pages[0].save(pdf, "PDF", resolution=75, save_all=True, append_images=pages[1:])


def test_a_rescan_of_a_pdfs_first_page_goes_before_the_pdf(tmp_path: Path) -> None:
    """A PDF's first page rescanned as a photo that sorts after the PDF: Replace lands the
    photo first, then the PDF's other pages (a plan keeps a file's pages together: for a page
    in the middle of a PDF, Replace is not offered, below)."""
    data = tmp_path / "data"
    folder = tmp_path / "Box"
    folder.mkdir()
    _pdf_holding_scan(folder / "a.pdf", 1, at=0, tmp_path=tmp_path)
    save_jpeg(notebook_scan(9), folder / "b.jpg")
    rescan_file(1, Rescan.CROP, folder / "c.jpg")
    plan = tmp_path / "box.json"
    out = ok(run_cli(data, "plan", str(folder), "-o", str(plan)))
    assert "Box/c.jpg looks like Box/a.pdf, page 1 in this import" in out.stdout
    ok(run_cli(data, "order", str(plan), _item(data, plan), "--rescan", "Box/c.jpg"))
    ok(run_cli(data, "commit", str(plan)))
    assert _landed_files(data, plan) == ["Box/c.jpg#1", "Box/a.pdf#2", "Box/a.pdf#3", "Box/b.jpg#1"]


def test_a_rescan_of_a_page_inside_a_pdf_is_not_offered_replace_and_says_the_way(
    tmp_path: Path,
) -> None:
    """The rescan of page 2 of a 3-page PDF cannot stand between its pages in one import:
    Replace is not offered (it would leave page 2 out and put the photo elsewhere); the
    words say how to replace it, and --rescan is refused with the same words."""
    data = tmp_path / "data"
    folder = tmp_path / "Box"
    folder.mkdir()
    _pdf_holding_scan(folder / "a.pdf", 2, at=1, tmp_path=tmp_path)
    rescan_file(2, Rescan.LIGHT, folder / "b.jpg")
    plan = tmp_path / "box.json"
    out = ok(run_cli(data, "plan", str(folder), "-o", str(plan)))
    way = (
        "It cannot take that page's place in this import, as a file's pages stay together: to "
        "replace the page, leave this one out, commit, then import it into the notebook"
    )
    assert f"Box/b.jpg looks like Box/a.pdf, page 2 in this import: a rescan? {way}" in out.stdout
    ok(run_cli(data, "order", str(plan), _item(data, plan), "--accept"))  # the PDF, then b.jpg
    (problem,) = _looks_like(data, plan)
    assert problem["resolutions"] == ["keep_both", "leave_out", "none_are_rescans"]
    refused = run_cli(data, "order", str(plan), _item(data, plan), "--rescan", "Box/b.jpg")
    assert refused.returncode == 2
    assert way in refused.stderr


def test_a_rescan_inside_a_pdf_is_named_by_its_page_and_left_out_alone(tmp_path: Path) -> None:
    data, _nbid = _imported(tmp_path)
    rescan = tmp_path / "r.jpg"
    rescan_file(3, Rescan.CROP, rescan)
    pdf = tmp_path / "Scans" / "scan.pdf"
    pdf.parent.mkdir()
    with Image.open(rescan) as again:
        notebook_page(78, Ruling.SQUARED, 0.6).save(
            pdf, "PDF", resolution=75, save_all=True, append_images=[again.convert("RGB")]
        )
    plan = tmp_path / "scans.json"
    out = ok(run_cli(data, "plan", str(pdf.parent), "-o", str(plan)))
    assert "Scans/scan.pdf, page 2 looks like page 3 of “Diary 1931”: a rescan?" in out.stdout
    ok(run_cli(data, "order", str(plan), _item(data, plan), "--exclude", "Scans/scan.pdf#2"))
    assert _looks_like(data, plan) == []
    [source] = orjson.loads(plan.read_bytes())["items"][0]["sources"]
    assert [p["page_index"] for p in source["pages"]] == [0]
    assert [p["page_index"] for p in source["left_out_pages"]] == [1]


def test_rescans_saved_as_png_tiff_and_webp_are_asked_about_too(tmp_path: Path) -> None:
    """A PNG, a two-page TIFF and a WebP page get their looks from the scan's own whole decode
    of them (no second decode), upright as their EXIF says, so a rescan kept in any of these
    formats is asked about as a JPEG one is; the TIFF's other page, a new one, is not."""
    import random

    from helpers.lookalike_set import rescanned

    data, nbid = _imported(tmp_path)
    folder = tmp_path / "rescans"
    folder.mkdir()
    page1 = rescanned(notebook_scan(1), Rescan.LIGHT, random.Random(1))
    page1.save(folder / "p1.png")
    page2 = rescanned(notebook_scan(2), Rescan.TILT, random.Random(2))
    other = notebook_page(77, Ruling.PLAIN, 0.4)
    page2.save(folder / "p2.tif", save_all=True, append_images=[other], compression="tiff_lzw")
    page3 = rescanned(notebook_scan(3), Rescan.JPEG, random.Random(3))
    exif = Image.Exif()
    exif[0x0112] = 6  # stored turned: its EXIF says to turn it a quarter to be upright
    page3.transpose(Image.Transpose.ROTATE_90).save(folder / "p3.webp", exif=exif, lossless=True)
    plan = tmp_path / "formats.json"
    ok(run_cli(data, "plan", str(folder), "--mode", f"into:{nbid}", "-o", str(plan)))
    [item] = orjson.loads(plan.read_bytes())["items"]
    looks = {
        (s["provenance"]["rel"], p["page_index"]): p.get("look")
        for s in item["sources"]
        for p in s["pages"]
    }
    assert all(lookalike.look_from_hex(look or "") for look in looks.values()), looks
    asked = sorted(p["message"] for p in _looks_like(data, plan))
    assert asked == [
        "rescans/p1.png looks like page 1 of “Diary 1931”: a rescan?",
        "rescans/p2.tif, page 1 looks like page 2 of “Diary 1931”: a rescan?",
        "rescans/p3.webp looks like page 3 of “Diary 1931”: a rescan?",
    ], asked


def test_none_are_rescans_answers_a_notebook_of_pages_alike_at_once(tmp_path: Path) -> None:
    """A ledger whose ruled pages all look alike: each page is asked about, with
    `--none-are-rescans` offered; said once, its pages are compared with each other no more,
    while a rescan of a page of the corpus among them is still asked about."""
    data, _nbid = _imported(tmp_path)
    folder = alike_pages(tmp_path / "Ledger", 12)
    rescan_file(2, Rescan.LIGHT, folder / "page 13.jpg")  # page 2 of “Diary 1931” again
    plan = tmp_path / "ledger.json"
    ok(run_cli(data, "plan", str(folder), "-o", str(plan)))
    alike = _looks_like(data, plan)
    within = [p for p in alike if "none_are_rescans" in p["resolutions"]]
    assert len(within) >= 3, [p["message"] for p in alike]
    assert all("--none-are-rescans" in p["hint"] for p in within)
    (diary,) = [p for p in alike if "“Diary 1931”" in p["message"]]
    assert "none_are_rescans" not in diary["resolutions"]
    assert diary["message"].startswith("Ledger/page 13.jpg looks like page 2 of “Diary 1931”")

    out = ok(run_cli(data, "order", str(plan), _item(data, plan), "--none-are-rescans"))
    assert "Updated" in out.stdout
    (left,) = _looks_like(data, plan)
    assert left["message"] == diary["message"]
    again = run_cli(data, "order", str(plan), _item(data, plan), "--none-are-rescans")
    assert again.returncode == 2
    assert "no page of “Ledger” looks like another page of this import" in again.stderr
    ok(run_cli(data, "order", str(plan), _item(data, plan), "--keep-both", "page 13.jpg"))
    ok(run_cli(data, "commit", str(plan)))
    ledger = [
        n for n in cli_json(data, "notebooks", "--json")["notebooks"] if n["title"] == "Ledger"
    ]
    assert [n["page_count"] for n in ledger] == [13]
