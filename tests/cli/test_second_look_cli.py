"""Pages worth a second look on the command line (#39): validate tells a notebook's blank pages
once and a page too small to read as INFO lines, never errors; ``--no-hint`` leaves a kind
untold; ``order --leave-out-blank`` leaves every blank page out in one edit and says so."""

from __future__ import annotations

from pathlib import Path

import orjson
from PIL import Image

from helpers import pages as labelled
from helpers.cli import Exit, cli_json, ok, run_cli


def _shelf(tmp_path: Path) -> Path:
    nb = labelled.notebook(7, labelled.Paper.SQUARED, labelled.Light.SCANNER)
    book = tmp_path / "shelf" / "Diary"
    book.mkdir(parents=True)
    for n in range(1, 6):
        labelled.page(nb, n, labelled.Kind.HALF).save(book / f"p{n}.jpg", quality=90)
    for n in (6, 7):
        labelled.page(nb, n, labelled.Kind.BLANK).save(book / f"p{n}.jpg", quality=90)
    small = labelled.page(nb, 8, labelled.Kind.FULL).resize((300, 424), Image.Resampling.LANCZOS)
    small.save(book / "p8.jpg", quality=90)
    return book.parent


def _plan(data: Path, tmp_path: Path) -> tuple[Path, str]:
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(_shelf(tmp_path)), "-o", str(plan)))
    return plan, str(orjson.loads(plan.read_bytes())["items"][0]["item_id"])


def _log(tmp_path: Path) -> tuple[labelled.Notebook, Path]:
    """“Log”, a notebook of four full ruled pages under a lamp, p1–p4.jpg: its hand and its
    folder, for the test to add its page 5."""
    nb = labelled.notebook(9, labelled.Paper.RULED, labelled.Light.LAMP)
    book = tmp_path / "shelf" / "Log"
    book.mkdir(parents=True)
    for n in range(1, 5):
        labelled.page(nb, n, labelled.Kind.FULL).save(book / f"p{n}.jpg", quality=90)
    return nb, book


def _validated(data: Path, tmp_path: Path) -> tuple[Path, str, str]:
    """The shelf planned and validated: the plan, its item's short id, what validate said."""
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(tmp_path / "shelf"), "-o", str(plan)))
    item = str(orjson.loads(plan.read_bytes())["items"][0]["item_id"])[:8]
    return plan, item, ok(run_cli(data, "validate", str(plan))).stdout


def test_validate_tells_blank_and_small_pages_as_information(tmp_path: Path) -> None:
    data = tmp_path / "data"
    plan, item = _plan(data, tmp_path)
    out = ok(run_cli(data, "validate", str(plan))).stdout
    short = item[:8]
    assert (
        f"INFO [blank_pages] item {short} “Diary”: 2 blank pages, nothing written on them: "
        "shelf/Diary/p6.jpg, shelf/Diary/p7.jpg\n"
        f"    resolve with: transcribe-import order {plan} {short} --leave-out-blank\n"
    ) in out
    assert (
        f"INFO [too_small] item {short} “Diary”: shelf/Diary/p8.jpg: too small to read: "
        "300 × 424 pixels, under half the size of the notebook's other pages "
        "(1170 pixels long)\n"
    ) in out
    assert "The plan is valid: 1 notebook, 0 warnings, 2 notes on pages worth a second look." in out
    report = cli_json(data, "validate", str(plan), "--json")
    assert report["valid"] and report["problems"] == []
    assert [p["code"] for p in report["information"]] == ["blank_pages", "too_small"]
    quiet = ok(run_cli(data, "validate", str(plan), "--no-hint", "blank", "--no-hint", "too_small"))
    assert "INFO" not in quiet.stdout
    assert "The plan is valid: 1 notebook, 0 warnings." in quiet.stdout


def test_order_leaves_out_every_blank_page_in_one_edit(tmp_path: Path) -> None:
    data = tmp_path / "data"
    plan, item = _plan(data, tmp_path)
    out = ok(run_cli(data, "order", str(plan), item, "--leave-out-blank")).stdout
    assert "— 2 blank pages left out; resolved." in out
    (doc,) = orjson.loads(plan.read_bytes())["items"]
    excluded = [s["provenance"]["rel"] for s in doc["sources"] if s.get("excluded")]
    assert excluded == ["shelf/Diary/p6.jpg", "shelf/Diary/p7.jpg"]
    assert "blank_pages" not in ok(run_cli(data, "validate", str(plan))).stdout
    before = plan.read_bytes()
    refused = ok(run_cli(data, "order", str(plan), item, "--leave-out-blank"), Exit.USAGE)
    assert "“Diary” has no blank page to leave out" in refused.stderr
    assert plan.read_bytes() == before


def test_validate_says_turn_it_with_the_angle_for_a_page_whose_writing_runs_down(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    nb, book = _log(tmp_path)
    # Scanned a quarter anticlockwise: sideways by its shape and by its writing, which
    # says which way.
    labelled.page(nb, 5, labelled.Kind.FULL).rotate(90, expand=True).save(book / "p5.jpg")
    plan, item, out = _validated(data, tmp_path)
    assert (
        f"INFO [sideways] item {item} “Log”: shelf/Log/p5.jpg: its lines of writing run down "
        "the page. Turn it 90° clockwise?\n"
        f'    resolve with: transcribe-import order {plan} {item} --turn "shelf/Log/p5.jpg" 90\n'
    ) in out
    quiet = ok(run_cli(data, "validate", str(plan), "--no-hint", "sideways")).stdout
    assert "[sideways]" not in quiet
    # The command it gives, as it gives it, turns the page: it is asked about no more.
    ok(run_cli(data, "order", str(plan), item, "--turn", "shelf/Log/p5.jpg", "90"))
    assert "[sideways]" not in ok(run_cli(data, "validate", str(plan))).stdout


def test_validate_offers_both_turns_for_a_date_line_alone_running_down(tmp_path: Path) -> None:
    """A date line alone, turned a quarter clockwise (on a portrait sheet: sideways by its
    writing only), lies where it was written: it cannot say which way it reads, so the line
    says so and offers both turns (the share of ink at the top named the wrong one)."""
    data = tmp_path / "data"
    nb, book = _log(tmp_path)
    date = labelled.page(nb, 5, labelled.Kind.DATE)
    turned = date.rotate(-90, expand=True)
    turned = turned.resize((date.width, round(date.width * turned.height / turned.width)))
    sheet = Image.new("RGB", date.size, date.getpixel((5, 5)))
    sheet.paste(turned, (0, (date.height - turned.height) // 2))
    sheet.save(book / "p5.jpg", quality=90)
    plan, item, out = _validated(data, tmp_path)
    assert (
        f"INFO [sideways] item {item} “Log”: shelf/Log/p5.jpg: its writing runs down the page, "
        "too little of it to tell which way up: which way reads upright is yours to see. "
        "Turn it?\n"
        f"    resolve with: transcribe-import order {plan} {item} "
        '--turn "shelf/Log/p5.jpg" 90 | --turn "shelf/Log/p5.jpg" 270\n'
    ) in out
