"""Page order the way archives number pages, through the command line.

Foliated folders (a missing verso, a first page that is a verso, blank versos not
scanned), a camera counter with deleted frames, names with no number, day-first dates
beside page numbers, phone photos named by UUID with their capture times, a copy of a
page, and duplex passes interleaved both ways: plan → validate → order → commit, each a
real process, checked in what the user sees (validate's words, the resolve-with hint)
and in project.json (the page order and each page's ``label``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from helpers.cli import Exit, cli_json, ok, run_cli
from helpers.shelves import DAY_FIRST, PAGE_SIZE, assert_distinct
from media_factory import make_image

# Each runs the real command line several times (seconds each): the whole run only.
pytestmark = pytest.mark.slow


def folder(root: Path, *names: str) -> Path:
    assert_distinct([make_image(root / name, f"{root.name}/{name}", PAGE_SIZE) for name in names])
    return root


def plan_of(data: Path, tmp: Path, shelf: Path) -> tuple[Path, str]:
    plan = tmp / f"{shelf.name}.plan.json"
    ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
    [item] = orjson.loads(plan.read_bytes())["items"]
    return plan, item["item_id"]


def errors(data: Path, plan: Path, rc: int = Exit.INVALID) -> list[dict[str, Any]]:
    report = cli_json(data, "validate", str(plan), "--json", rc=rc)
    return [p for p in report["problems"] if p["severity"] == "error"]


def committed_pages(data: Path) -> list[tuple[str, str | None]]:
    """(source file name, label) of every page of the one notebook, in notebook order."""
    [nb] = list((data / "corpus" / "notebooks").iterdir())
    doc = orjson.loads((nb / "project.json").read_bytes())
    names = {s["id"]: Path(s["provenance"]["original_path"]).name for s in doc["sources"]}
    return [(names[p["source_id"]], p.get("label")) for p in doc["pages"]]


def test_a_foliated_notebook_with_a_missing_verso(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shelf = folder(
        tmp_path / "shelf" / "Register", "1r.jpg", "1v.jpg", "2r.jpg", "3r.jpg", "3v.jpg"
    )
    plan, item_id = plan_of(data, tmp_path, shelf.parent)
    [e] = errors(data, plan)
    assert e["code"] == "missing_leaf"
    assert e["message"].startswith(
        "The verso of leaf 2 (2v) is missing between shelf/Register/2r.jpg and "
        "shelf/Register/3r.jpg."
    )
    assert e["hint"] == "--versos-blank, --sequence"
    assert e["files"] == ["shelf/Register/2r.jpg", "shelf/Register/3r.jpg"]
    text = ok(run_cli(data, "validate", str(plan)), Exit.INVALID).stdout
    # The item named once, by the line, then the engine's words as they are.
    line = next(ln for ln in text.splitlines() if ln.startswith("ERROR [missing_leaf]"))
    assert line.startswith(f"ERROR [missing_leaf] item {item_id[:8]} “Register”: The verso of")
    assert line.count("Register") == 1 + line.count("shelf/Register/")
    # The engine's words end with their advice; the options are named once, on the line after
    # (a rescan question printed its options twice when both carried them).
    assert "or accept the order as it is.\n    resolve with: transcribe-import order " in text
    assert text.count("--versos-blank") == 1 and "--accept" in text
    ok(run_cli(data, "order", str(plan), item_id[:8], "--accept"))
    assert errors(data, plan, Exit.OK) == []
    ok(run_cli(data, "commit", str(plan)))
    assert committed_pages(data) == [
        ("1r.jpg", "1r"),
        ("1v.jpg", "1v"),
        ("2r.jpg", "2r"),
        ("3r.jpg", "3r"),
        ("3v.jpg", "3v"),
    ]


def test_first_page_a_verso_and_versos_blank(tmp_path: Path) -> None:
    data = tmp_path / "data"
    verso = folder(tmp_path / "a" / "Letters", "f. 1v.jpg", "f. 2r.jpg", "f. 2v.jpg")
    plan, item_id = plan_of(data, tmp_path, verso.parent)
    [e] = errors(data, plan)
    assert e["code"] == "missing_leaf" and "verso_first" in e["resolutions"]
    ok(run_cli(data, "order", str(plan), item_id, "--verso-first"))
    assert errors(data, plan, Exit.OK) == []
    doc = orjson.loads(plan.read_bytes())
    assert doc["items"][0]["ordering"]["verso_first"] is True
    assert [p["label"] for s in doc["items"][0]["sources"] for p in s["pages"]] == [
        "1v",
        "2r",
        "2v",
    ]

    blank = folder(tmp_path / "b" / "Album", *(f"fol{n}r.jpg" for n in range(1, 5)))
    plan, item_id = plan_of(data, tmp_path, blank.parent)
    [e] = errors(data, plan)
    assert "versos_blank" in e["resolutions"]
    ok(run_cli(data, "order", str(plan), item_id, "--versos-blank"))
    assert errors(data, plan, Exit.OK) == []


def test_a_camera_counter_with_deleted_frames_is_clear(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shelf = folder(tmp_path / "shelf" / "Trip", "IMG_1001.JPG", "IMG_1002.JPG", "IMG_1004.JPG")
    plan, _ = plan_of(data, tmp_path, shelf.parent)
    assert errors(data, plan, Exit.OK) == []  # frame 1003 was deleted, no page is missing


def test_names_without_numbers_ask_for_an_order(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shelf = folder(tmp_path / "shelf" / "Scraps", "first.jpg", "second.jpg", "last.jpg")
    plan, item_id = plan_of(data, tmp_path, shelf.parent)
    [e] = errors(data, plan)
    assert e["code"] == "no_order_cue" and "would be a guess" in e["message"]
    ok(run_cli(data, "order", str(plan), item_id, "--by", "mtime"))
    assert errors(data, plan, Exit.OK) == []


def test_day_first_dates_beside_page_numbers_commit_in_page_order(tmp_path: Path) -> None:
    # Committed as p5, p1, p2, p3, p6, p4 once, with validate clean (issue #24).
    data = tmp_path / "data"
    shelf = folder(tmp_path / "shelf" / "Diary 1931", *DAY_FIRST)
    plan, _ = plan_of(data, tmp_path, shelf.parent)
    assert errors(data, plan, Exit.OK) == []
    ok(run_cli(data, "commit", str(plan)))
    assert [n for n, _ in committed_pages(data)] == DAY_FIRST


def test_phone_photos_named_by_uuid_commit_in_capture_order(tmp_path: Path) -> None:
    # Read as page numbers, their UUIDs' digits made "Pages … are missing" (issue #24).
    taken = {
        "3F2504E0-4F89-11D3-9A0C-0305E82C3301.jpg": "2024:05:01 10:03:00",
        "0E984725-C51C-4BF4-9960-E1C80E27ABA0.jpg": "2024:05:01 10:01:00",
        "7C9E6679-7425-40DE-944B-E07FC1F90AE7.jpg": "2024:05:01 10:02:00",
    }
    shelf = tmp_path / "shelf" / "Recipes"
    assert_distinct(
        make_image(shelf / name, name, PAGE_SIZE, datetime_original=when)
        for name, when in taken.items()
    )
    data = tmp_path / "data"
    plan, _ = plan_of(data, tmp_path, shelf.parent)
    assert errors(data, plan, Exit.OK) == []
    assert orjson.loads(plan.read_bytes())["items"][0]["ordering"]["rule"] == "capture_time"
    ok(run_cli(data, "commit", str(plan)))
    assert [n for n, _ in committed_pages(data)] == sorted(taken, key=taken.__getitem__)


def test_a_copy_of_a_page_is_named_as_a_copy(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shelf = folder(
        tmp_path / "shelf" / "Letters", "page 1.jpg", "page 2.jpg", "page 2 (1).jpg", "page 3.jpg"
    )
    plan, item_id = plan_of(data, tmp_path, shelf.parent)
    [e] = errors(data, plan)
    assert e["code"] == "duplicate_number"
    assert e["message"].startswith(
        "shelf/Letters/page 2 (1).jpg looks like a copy of shelf/Letters/page 2.jpg: "
        "both claim page 2."
    )
    ok(run_cli(data, "order", str(plan), item_id, "--exclude", "page 2 (1).jpg"))
    assert errors(data, plan, Exit.OK) == []
    ok(run_cli(data, "commit", str(plan)))
    assert [n for n, _ in committed_pages(data)] == ["page 1.jpg", "page 2.jpg", "page 3.jpg"]


def duplex(root: Path, n: int) -> Path:
    return folder(
        root,
        *(f"front_{i:02d}.jpg" for i in range(1, n + 1)),
        *(f"back_{i:02d}.jpg" for i in range(1, n + 1)),
    )


def test_duplex_passes_interleaved(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shelf = duplex(tmp_path / "shelf" / "Ledger", 3)
    plan, item_id = plan_of(data, tmp_path, shelf.parent)
    [e] = errors(data, plan)
    assert e["code"] == "duplex_passes"
    assert e["resolutions"][:2] == ["interleave", "interleave_reversed"]
    text = ok(run_cli(data, "validate", str(plan)), Exit.INVALID).stdout
    assert "--by interleave | --by interleave-reversed" in text
    ok(run_cli(data, "order", str(plan), item_id, "--by", "interleave"))
    ok(run_cli(data, "commit", str(plan)))
    assert [n for n, _ in committed_pages(data)] == [
        "front_01.jpg",
        "back_01.jpg",
        "front_02.jpg",
        "back_02.jpg",
        "front_03.jpg",
        "back_03.jpg",
    ]


def test_duplex_backs_reversed_and_counts_that_disagree(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shelf = duplex(tmp_path / "shelf" / "Ledger", 3)
    plan, item_id = plan_of(data, tmp_path, shelf.parent)
    ok(run_cli(data, "order", str(plan), item_id, "--by", "interleave-reversed"))
    ok(run_cli(data, "commit", str(plan)))
    assert [n for n, _ in committed_pages(data)] == [
        "front_01.jpg",
        "back_03.jpg",
        "front_02.jpg",
        "back_02.jpg",
        "front_03.jpg",
        "back_01.jpg",
    ]

    short = duplex(tmp_path / "other" / "Short", 3)
    (short / "back_02.jpg").unlink()
    plan, item_id = plan_of(data, tmp_path, short.parent)
    [e] = errors(data, plan)
    assert "3 fronts" in e["message"] and "2 backs" in e["message"]
    refused = ok(run_cli(data, "order", str(plan), item_id, "--by", "interleave"), Exit.USAGE)
    assert "3 fronts but 2 backs" in refused.stderr


def test_month_names_and_twelve_hour_clocks_commit_in_order(tmp_path: Path) -> None:
    # Ordered by the day's number and by the hour as written, with validate clean (#35).
    diary = [
        "2 May 1931 p1.jpg",
        "3 May 1931 p2.jpg",
        "May 7, 1931 - page 3.jpg",
        "1 July 1931 p4.jpg",
    ]
    chat = [
        "WhatsApp Image 2023-05-06 at 9.58.02 AM.jpeg",
        "WhatsApp Image 2023-05-06 at 1.02.03 PM.jpeg",
        "WhatsApp Image 2023-05-07 at 8.00.00 AM.jpeg",
    ]
    for names in (diary, chat):
        data = tmp_path / f"data {len(names)}"
        shelf = folder(tmp_path / f"shelf {len(names)}" / "Letters", *reversed(names))
        plan, _ = plan_of(data, tmp_path, shelf.parent)
        assert errors(data, plan, Exit.OK) == []
        ok(run_cli(data, "commit", str(plan)))
        assert [n for n, _ in committed_pages(data)] == names


def test_a_date_that_reads_two_ways_asks_and_accept_takes_it_day_first(tmp_path: Path) -> None:
    names = ["03.04.1931.jpg", "05.04.1931.jpg", "04.05.1931.jpg"]  # day first
    data = tmp_path / "data"
    shelf = folder(tmp_path / "shelf" / "Diary", *names)
    plan, item_id = plan_of(data, tmp_path, shelf.parent)
    [e] = errors(data, plan)
    assert e["code"] == "ambiguous_date"
    assert "could be 3 April 1931 (day first) or 4 March 1931 (month first)" in e["message"]
    ok(run_cli(data, "order", str(plan), item_id, "--accept"))
    assert errors(data, plan, Exit.OK) == []
    ok(run_cli(data, "commit", str(plan)))
    assert [n for n, _ in committed_pages(data)] == names


def test_capture_time_order_of_pages_without_one_names_the_options_that_can(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    shelf = folder(tmp_path / "shelf" / "Undated", "a.jpg", "b.jpg", "c.jpg")
    plan, item_id = plan_of(data, tmp_path, shelf.parent)
    before = plan.read_bytes()
    refused = ok(run_cli(data, "order", str(plan), item_id, "--by", "capture-time"), Exit.USAGE)
    assert refused.stderr == (
        "transcribe-import: none of these pages has a capture time (no EXIF date), so they "
        "cannot be put in the order they were taken; order them with `--by name` or "
        "`--by mtime` instead\n"
    )
    assert plan.read_bytes() == before  # refused: the plan as it was
