"""`plan` and `validate` on a shelf: the first few lines of each state and problem, a count of
the rest, every line with --verbose, and the --json document the same either way."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from transcribe_import.cli import main, runs

from helpers.lookalike_set import Rescan, notebook_scan, rescan_file, save_jpeg
from media_factory import make_image

NOTEBOOKS = 40


@pytest.fixture
def shelf(tmp_path: Path, data_dir: Path) -> Path:
    """40 notebooks whose page 2 is missing: each one a `missing_index` error."""
    root = tmp_path / "shelf"
    for n in range(NOTEBOOKS):
        for page in (1, 3):
            make_image(root / f"nb{n:02}" / f"{page}.png", f"{n}-{page}", size=(40, 56))
    return root


def _lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().out.splitlines()


def test_plan_and_validate_print_five_of_each_and_count_the_rest(
    shelf: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = tmp_path / "shelf.json"
    assert main(["plan", str(shelf), "-o", str(plan)]) == 0
    out = _lines(capsys)
    assert out[0] == f"Wrote {plan}: 40 notebooks, 80 pages to import."
    items = [line for line in out if line.startswith("  [needs a decision] ")]
    assert len(items) == runs.SHOWN_PER_KIND == 5
    assert "  … and 35 more [needs a decision] (40 in all; --verbose lists them all)" in out
    assert out[-1].startswith("40 problems to resolve before commit")

    assert main(["plan", str(shelf), "-o", str(plan), "--verbose"]) == 0
    out = _lines(capsys)
    assert len([line for line in out if line.startswith("  [needs a decision] ")]) == 40
    assert not any("more [" in line for line in out)

    assert main(["validate", str(plan)]) == 3
    out = _lines(capsys)
    errors = [line for line in out if line.startswith("ERROR [missing_index] ")]
    assert len(errors) == 5
    # Each problem shown keeps its "resolve with" line under it.
    for error in errors:
        assert out[out.index(error) + 1].startswith("    resolve with: transcribe-import order ")
    assert out[-2:] == [
        f"… and 35 more [missing_index] (40 in all; transcribe-import validate {plan} --verbose "
        "lists them all)",
        "40 errors, 0 warnings: commit is refused until the errors are resolved.",
    ]

    assert main(["validate", str(plan), "--verbose"]) == 3
    out = _lines(capsys)
    assert len([line for line in out if line.startswith("ERROR [missing_index] ")]) == 40
    assert len([line for line in out if line.startswith("    resolve with: ")]) == 40
    assert not any("more [" in line for line in out)

    assert main(["validate", str(plan), "--json"]) == 3
    summary_json = capsys.readouterr().out
    assert main(["validate", str(plan), "--json", "--verbose"]) == 3
    assert capsys.readouterr().out == summary_json
    assert len(orjson.loads(summary_json)["problems"]) == 40


def test_commit_refusing_a_shelf_points_at_validate_verbose(
    shelf: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = tmp_path / "shelf.json"
    assert main(["plan", str(shelf), "-o", str(plan)]) == 0
    capsys.readouterr()
    assert main(["commit", str(plan)]) == 3
    out = _lines(capsys)
    assert len([line for line in out if line.startswith("ERROR [missing_index] ")]) == 5
    assert f"transcribe-import validate {plan} --verbose lists them all)" in out[-2]


def test_each_kind_is_counted_in_the_order_it_first_comes() -> None:
    kinds = ["a", "b", "a", "a", "b", "c", "a"]
    shown, cut = runs.first_of_each(kinds, 2)
    assert shown == [True, True, True, False, True, True, False]
    assert list(cut.items()) == [("a", (2, 4))]
    assert runs.first_of_each(kinds, None) == ([True] * 7, {})


def test_the_answer_at_once_follows_the_last_question_printed(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    diary = tmp_path / "shelf" / "Diary"
    for k in range(1, 8):
        save_jpeg(notebook_scan(k), diary / f"p{k:02}.jpg")
        rescan_file(k, Rescan.LIGHT, diary / f"p{k + 7:02}.jpg")
    plan = tmp_path / "diary.json"
    assert main(["plan", str(diary.parent), "-o", str(plan)]) == 0
    capsys.readouterr()
    assert main(["validate", str(plan)]) == 0
    out = _lines(capsys)
    questions = [i for i, line in enumerate(out) if line.startswith("WARNING [looks_like] ")]
    assert len(questions) == 5
    # The fifth question's "resolve with", then the line that answers all 7 (not 5) at once.
    assert out[questions[-1] + 2].startswith("    or answer all 7 at once: ")
    assert out[-2].startswith("… and 2 more [looks_like] (7 in all; ")
    assert out[-1] == "The plan is valid: 1 notebook, 7 warnings."


def test_verbose_lists_every_file_not_planned(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    box = tmp_path / "box"
    make_image(box / "p1.png", "1", size=(40, 56))
    for n in range(12):
        (box / f"old{n:02}.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    plan = tmp_path / "box.json"
    assert main(["plan", str(box), "-o", str(plan)]) == 0
    out = _lines(capsys)
    assert "Not planned: 12 files (see provenance in the plan for each reason)." in out
    assert len([line for line in out if ".zip: an archive" in line]) == 10
    assert main(["plan", str(box), "-o", str(plan), "--verbose"]) == 0
    out = _lines(capsys)
    assert len([line for line in out if ".zip: an archive" in line]) == 12
