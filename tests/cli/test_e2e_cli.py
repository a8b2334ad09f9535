"""An end-to-end import of a generated messy shelf, driven only through the command line.

plan → validate (3: decisions needed) → order (each resolution docs/cli.md offers) →
validate (0) → commit (0) → commit again (0, a no-op), then the same folder again
into an existing notebook under both duplicate policies. Every step is a real
`transcribe-import` process; the checks read what a person would look at: `--json`
documents, exit codes, and each notebook's project.json and renders.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

import orjson
import pytest
from PIL import Image

from helpers.cli import Exit, assert_doctor_clean, cli_json, notebook_files, ok, run_cli
from media_factory import (
    MARKER_RGB,
    make_jpeg,
    make_multiframe_tiff,
    make_pdf,
    make_text_file,
    make_truncated_jpeg,
)

TAGEBUCH = "Tagebuch Mädchen"  # NFC: what a person reads; the folder is written NFD
SMALL = (60, 80)


def make_messy_shelf(root: Path) -> dict[str, Path]:
    """Boxes of notebooks as they come off a real shelf, with everything that goes wrong."""
    nb1 = root / "box A" / "notebook 1"
    make_jpeg(nb1 / "cover.jpg", SMALL, label="cover")
    for i in range(1, 11):  # natural order: page 2 before page 10
        rotated = i in (2, 5)  # phone photos stored landscape, EXIF says turn 90° clockwise
        size = (SMALL[1], SMALL[0]) if rotated else SMALL
        make_jpeg(nb1 / f"page {i}.jpg", size, 6 if rotated else None, label=f"p{i}")
    (nb1 / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1" + b"\x00" * 64)
    (nb1 / "Thumbs.db").write_bytes(b"\xd0\xcf\x11\xe0" + b"\x00" * 64)
    make_jpeg(nb1 / "._page 1.jpg", (8, 8))  # AppleDouble junk that even looks like a JPEG
    make_text_file(nb1 / "notes.txt")

    nb2 = root / "box A" / "notebook 2"
    # A camera counter that rolled over; the capture times tell the true order.
    for k, n in enumerate(("9998", "9999", "0001", "0002")):
        make_jpeg(nb2 / f"IMG_{n}.JPG", SMALL, datetime_original=f"2023:05:01 10:00:0{k}")

    diary = root / "box B" / "diary"
    make_jpeg(diary / "page 1.jpg", SMALL, label="d1")
    make_pdf(diary / "pages 2-3.pdf", [SMALL, SMALL])
    make_jpeg(diary / "page 4.jpg", SMALL, label="d4")
    make_multiframe_tiff(diary / "pages 5-7.tif", [SMALL, SMALL, SMALL])
    make_truncated_jpeg(diary / "page 8.jpg", (300, 400))  # an interrupted copy

    tagebuch = root / "box B" / unicodedata.normalize("NFD", TAGEBUCH)
    for i in (1, 2):
        make_jpeg(tagebuch / f"página {i}.jpg", SMALL, label=f"t{i}")
    return {"notebook 1": nb1, "notebook 2": nb2, "diary": diary, TAGEBUCH: tagebuch}


def items_by_title(plan: Path) -> dict[str, dict[str, Any]]:
    return {it["title"]: it for it in orjson.loads(plan.read_bytes())["items"]}


def read_notebook(data: Path, nbid: str) -> dict[str, Any]:
    return orjson.loads((data / "corpus" / "notebooks" / nbid / "project.json").read_bytes())


def page_names(doc: dict[str, Any]) -> list[tuple[str, int]]:
    """The notebook order as (source file name, page within it)."""
    names = {s["id"]: Path(s["provenance"]["original_path"]).name for s in doc["sources"]}
    return [
        (unicodedata.normalize("NFC", names[p["source_id"]]), p["page_index"]) for p in doc["pages"]
    ]


def titles_and_pages(data: Path) -> dict[str, int]:
    listed = cli_json(data, "notebooks", "--json")["notebooks"]
    assert all(n["problem"] is None for n in listed)
    return {n["title"]: n["page_count"] for n in listed}


@pytest.mark.slow
def test_messy_shelf_end_to_end(tmp_path: Path) -> None:
    shelf = tmp_path / "shelf"
    folders = make_messy_shelf(shelf)
    data = tmp_path / "data"
    plan = tmp_path / "plan.json"

    # -- plan: one notebook per folder that holds pages --------------------------------------
    ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
    items = items_by_title(plan)
    assert set(items) == {"notebook 1", "notebook 2", "diary", TAGEBUCH}
    plan_doc = orjson.loads(plan.read_bytes())
    ignored = {Path(i["rel"]).name: i for i in plan_doc["provenance"]["ignored"]}
    for junk in (".DS_Store", "Thumbs.db", "._page 1.jpg"):
        assert ignored[junk]["junk"], junk
    assert not ignored["notes.txt"]["junk"]  # not a page file, said so, not hidden

    # -- validate: every decision a person must make, at once --------------------------------
    ok(run_cli(data, "validate", str(plan)), Exit.INVALID)  # the plain-text report, as typed
    report = cli_json(data, "validate", str(plan), "--json", rc=Exit.INVALID)
    errors: dict[str, set[str]] = {}
    for p in report["problems"]:
        if p["severity"] == "error":
            title = next(t for t, it in items.items() if it["item_id"] == p["item_id"])
            errors.setdefault(title, set()).add(p["code"])
            if p["code"] == "conflicting_cues":
                assert "rolled over" in p["message"], p["message"]
            if p["code"] == "source_unreadable":
                assert "page 8.jpg" in p["message"] + str(p["path"]), p
    assert errors["notebook 2"] == {"conflicting_cues"}
    assert {"mixed_media", "source_unreadable"} <= errors["diary"]
    assert "notebook 1" not in errors and TAGEBUCH not in errors
    # Commit is refused while errors stand, and writes nothing.
    ok(run_cli(data, "commit", str(plan), "--json"), Exit.INVALID)
    assert cli_json(data, "runs", "--json")["runs"] == []

    # -- order: resolve each ------------------------------------------------------------------
    ok(run_cli(data, "order", str(plan), items["notebook 2"]["item_id"], "--by", "capture-time"))
    diary_id = items["diary"]["item_id"]
    ok(run_cli(data, "order", str(plan), diary_id, "--exclude", "page 8.jpg"))
    sequence = ["page 1.jpg", "pages 2-3.pdf", "page 4.jpg", "pages 5-7.tif"]
    ok(run_cli(data, "order", str(plan), diary_id, "--sequence", *sequence))
    report = cli_json(data, "validate", str(plan), "--json")
    assert report["valid"] and report["errors"] == 0, report["problems"]
    after = items_by_title(plan)
    assert {t: it["item_id"] for t, it in after.items()} == {
        t: it["item_id"] for t, it in items.items()
    }, "resolving the order changed an item id"

    # -- commit, then commit again (a no-op) ---------------------------------------------------
    result = cli_json(data, "commit", str(plan), "--json")
    assert result["status"] == "complete"
    assert {d["state"] for d in result["items"]} == {"committed"}
    before = notebook_files(data)
    again = cli_json(data, "commit", str(plan), "--json")
    assert again["already_done"] and again["import_run_id"] == result["import_run_id"]
    assert notebook_files(data) == before, "a recommit changed the corpus"
    assert len(cli_json(data, "runs", "--json")["runs"]) == 1

    assert titles_and_pages(data) == {"notebook 1": 11, "notebook 2": 4, "diary": 7, TAGEBUCH: 2}
    docs = {t: read_notebook(data, it["notebook_id"]) for t, it in after.items()}

    nb1 = docs["notebook 1"]
    assert page_names(nb1) == [("cover.jpg", 0)] + [(f"page {i}.jpg", 0) for i in range(1, 11)]
    assert nb1["cover_page_id"] == nb1["pages"][0]["id"]  # the cover heuristic
    for doc in (docs["notebook 2"], docs["diary"], docs[TAGEBUCH]):
        assert doc["cover_page_id"] is None
    assert [n for n, _ in page_names(docs["notebook 2"])] == [
        "IMG_9998.JPG",
        "IMG_9999.JPG",
        "IMG_0001.JPG",
        "IMG_0002.JPG",
    ]
    assert page_names(docs["diary"]) == [
        ("page 1.jpg", 0),
        ("pages 2-3.pdf", 0),
        ("pages 2-3.pdf", 1),
        ("page 4.jpg", 0),
        ("pages 5-7.tif", 0),
        ("pages 5-7.tif", 1),
        ("pages 5-7.tif", 2),
    ]
    assert page_names(docs[TAGEBUCH]) == [("página 1.jpg", 0), ("página 2.jpg", 0)]

    # Renders are oriented as a person reads the page: EXIF orientation 6 turns the stored
    # landscape pixels upright, and the stored top-left marker ends at the top right.
    nb1_dir = data / "corpus" / "notebooks" / after["notebook 1"]["notebook_id"]
    for (name, _), page in zip(page_names(nb1), nb1["pages"], strict=True):
        render = page["render"]
        assert (render["width"], render["height"]) == SMALL, name
        with Image.open(nb1_dir / render["path"]) as img:
            assert img.size == SMALL
            rgb = img.convert("RGB")
            corner = (SMALL[0] - 2, 1) if name in ("page 2.jpg", "page 5.jpg") else (1, 1)
            assert _near(rgb.getpixel(corner), MARKER_RGB), f"{name} is not upright"

    # Nothing unusable, no junk, no notes imported.
    assert "page 8.jpg" not in {n for n, _ in page_names(docs["diary"])}
    imported = {n for doc in docs.values() for n, _ in page_names(doc)}
    assert not imported & {"notes.txt", ".DS_Store", "Thumbs.db", "._page 1.jpg"}
    assert sum(len(doc["sources"]) for doc in docs.values()) == 11 + 4 + 4 + 2
    assert_doctor_clean(data)

    # -- the same folder again, into notebook 1: skip_existing skips every source -------------
    nb1_id = after["notebook 1"]["notebook_id"]
    into = tmp_path / "into.json"
    ok(
        run_cli(
            data, "plan", str(folders["notebook 1"]), "-o", str(into), "--mode", f"into:{nb1_id}"
        )
    )
    [item] = orjson.loads(into.read_bytes())["items"]
    assert item["op"] == "import_into_notebook" and item["notebook_id"] == nb1_id
    assert len(item["sources"]) == 11
    assert {s["duplicate"] for s in item["sources"]} == {"duplicate_in_notebook"}
    report = cli_json(data, "validate", str(into), "--json")
    assert report["valid"] and report["warnings"] >= 1
    assert {(p["severity"], p["code"]) for p in report["problems"]} == {
        ("warning", "nothing_to_import")
    }
    result = cli_json(data, "commit", str(into), "--json")
    assert result["status"] == "complete"
    [outcome] = result["items"]
    assert outcome["state"] == "skipped" and outcome["page_count"] == 0
    assert {s["classification"] for s in outcome["skipped_sources"]} == {"duplicate_in_notebook"}
    assert titles_and_pages(data)["notebook 1"] == 11
    assert read_notebook(data, nb1_id) == nb1, "a skipped import changed the notebook"

    # -- and with create_duplicate, the pages are added again ---------------------------------
    dup = tmp_path / "dup.json"
    ok(
        run_cli(
            data,
            "plan",
            str(folders["notebook 1"]),
            "-o",
            str(dup),
            "--mode",
            f"into:{nb1_id}",
            "--policy",
            "create_duplicate",
        )
    )
    [item] = orjson.loads(dup.read_bytes())["items"]
    assert {s["duplicate"] for s in item["sources"]} == {None}
    result = cli_json(data, "commit", str(dup), "--json")
    assert result["status"] == "complete" and result["pages_committed"] == 11
    doc = read_notebook(data, nb1_id)
    assert page_names(doc) == page_names(nb1) * 2
    assert doc["pages"][:11] == nb1["pages"], "the pages already there were changed"
    assert doc["cover_page_id"] == nb1["cover_page_id"], "an existing cover was overwritten"
    assert len({p["id"] for p in doc["pages"]}) == 22
    assert titles_and_pages(data) == {"notebook 1": 22, "notebook 2": 4, "diary": 7, TAGEBUCH: 2}
    assert_doctor_clean(data)


def _near(rgb: tuple[int, ...], want: tuple[int, int, int], tol: int = 40) -> bool:
    return all(abs(a - b) <= tol for a, b in zip(rgb, want, strict=False))
