"""``order PLAN ITEM --turn FILE... ANGLE`` (#39): pages turned in the plan and said so, a turn
taken back with 0, a wrong angle refused in words with the plan untouched, and the turn landed
on the page in project.json with an upright render."""

from __future__ import annotations

import io
from pathlib import Path

import orjson
from PIL import Image

from helpers.cli import Exit, cli_json, ok, run_cli
from helpers.shelves import make_shelf
from media_factory import make_jpeg


def _plan(data: Path, tmp_path: Path) -> tuple[Path, str]:
    shelf = make_shelf(tmp_path / "shelf", notebooks=1, pages=3)
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
    return plan, str(orjson.loads(plan.read_bytes())["items"][0]["item_id"])


def _turns(plan: Path) -> dict[str, int | None]:
    (item,) = orjson.loads(plan.read_bytes())["items"]
    return {
        s["provenance"]["rel"].rsplit("/", 1)[-1]: s["pages"][0].get("turn")
        for s in item["sources"]
    }


def test_order_turns_several_files_and_zero_takes_the_turn_back(tmp_path: Path) -> None:
    data = tmp_path / "data"
    plan, item = _plan(data, tmp_path)
    before = plan.read_bytes()
    out = ok(run_cli(data, "order", str(plan), item, "--turn", "page 1.jpg", "page 3.jpg", "90"))
    assert "page 1.jpg and page 3.jpg turned 90° clockwise; resolved." in out.stdout
    assert _turns(plan) == {"page 1.jpg": 90, "page 2.jpg": None, "page 3.jpg": 90}
    ok(run_cli(data, "validate", str(plan)))  # the rewritten fingerprint holds
    out = ok(run_cli(data, "order", str(plan), item, "--turn", "page 3.jpg", "0"))
    assert "page 3.jpg no longer turned; resolved." in out.stdout
    out = ok(run_cli(data, "order", str(plan), item, "--turn", "page 1.jpg", "0"))
    after = orjson.loads(plan.read_bytes())
    assert after["plan_fingerprint"] == orjson.loads(before)["plan_fingerprint"]


def test_a_wrong_angle_or_name_is_refused_in_words_and_the_plan_kept(tmp_path: Path) -> None:
    data = tmp_path / "data"
    plan, item = _plan(data, tmp_path)
    before = plan.read_bytes()
    refused = {
        ("page 1.jpg", "45"): "a page turns by 0, 90, 180 or 270 degrees clockwise, not 45",
        ("page 1.jpg", "left"): "--turn ends with the angle (90, 180 or 270 degrees clockwise, "
        "0 to take a turn back), not 'left': --turn FILE... 90",
        ("90",): "--turn takes the files, then the angle: --turn FILE... 90",
        ("nothing.jpg", "90"): "no source named 'nothing.jpg'",
    }
    for words, said in refused.items():
        proc = ok(run_cli(data, "order", str(plan), item, "--turn", *words), Exit.USAGE)
        assert said in proc.stderr, proc.stderr
        assert plan.read_bytes() == before


def test_a_turned_page_lands_turned_and_upright(tmp_path: Path) -> None:
    data = tmp_path / "data"
    plan, item = _plan(data, tmp_path)
    ok(run_cli(data, "order", str(plan), item, "--turn", "page 2.jpg", "270"))
    ok(run_cli(data, "commit", str(plan)))
    (nb,) = cli_json(data, "notebooks", "--json")["notebooks"]
    nb_dir = data / "corpus" / "notebooks" / nb["notebook_id"]
    doc = orjson.loads((nb_dir / "project.json").read_bytes())
    assert [p.get("turn") for p in doc["pages"]] == [None, 270, None]
    sizes = [
        Image.open(io.BytesIO((nb_dir / p["render"]["path"]).read_bytes())).size
        for p in doc["pages"]
    ]
    assert sizes[1] == sizes[0][::-1] and sizes[0][0] < sizes[0][1]  # portrait pages; 2 landscape


def test_validate_says_which_page_is_probably_sideways_and_how_to_turn_it(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    shelf = make_shelf(tmp_path / "shelf", notebooks=1, pages=4)
    folder = shelf / "notebook 1"
    with Image.open(folder / "page 1.jpg") as first:
        width, height = first.size
    make_jpeg(folder / "page 5.jpg", size=(height, width), label="5")  # scanned sideways
    plan = tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
    item = str(orjson.loads(plan.read_bytes())["items"][0]["item_id"])
    out = ok(run_cli(data, "validate", str(plan))).stdout
    # By its shape alone, which way reads upright is the person's to see: both turns.
    assert (
        f"INFO [sideways] item {item[:8]} “notebook 1”: shelf/notebook 1/page 5.jpg: its long "
        "side runs across the notebook's other pages. Turn it?\n"
        f"    resolve with: transcribe-import order {plan} {item[:8]} --turn "
        '"shelf/notebook 1/page 5.jpg" 90 | --turn "shelf/notebook 1/page 5.jpg" 270\n'
    ) in out
    # A hint, not a warning.
    assert "The plan is valid: 1 notebook, 0 warnings, 1 note on pages worth a second look." in out
    ok(run_cli(data, "order", str(plan), item, "--turn", "page 5.jpg", "270"))
    assert "[sideways]" not in ok(run_cli(data, "validate", str(plan))).stdout
