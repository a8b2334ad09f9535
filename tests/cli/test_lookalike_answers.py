"""Rescan questions answered in bulk on the command line (#33): ``--keep-both`` and
``--rescan`` take several files or ``--all``, ``--none-are-rescans`` answers pages like the
import's other notebooks' too, ``order`` counts what is still open, and ``validate`` names
each answer's options once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from helpers.cli import Exit, cli_json, ok, run_cli
from helpers.lookalike_set import Rescan, notebook_scan, rescan_file, save_jpeg, scans


def _box(tmp_path: Path) -> Path:
    """A shelf of two folders: “Diary” (pages 1 to 4, then rescans of pages 1, 2 and 3 as
    p5 to p7) and “Letters” (two pages of its own, then rescans of Diary's pages 4 and 2)."""
    diary = tmp_path / "shelf" / "Diary"
    scans(diary, range(1, 5), "p{k}.jpg")
    rescan_file(1, Rescan.LIGHT, diary / "p5.jpg")
    rescan_file(2, Rescan.JPEG, diary / "p6.jpg")
    rescan_file(3, Rescan.TILT, diary / "p7.jpg")
    letters = tmp_path / "shelf" / "Letters"
    scans(letters, (5, 6), "l{k}.jpg")
    rescan_file(4, Rescan.CROP, letters / "l7.jpg")
    rescan_file(2, Rescan.LIGHT, letters / "l8.jpg")
    return tmp_path / "shelf"


def _planned(tmp_path: Path) -> tuple[Path, Path]:
    data = tmp_path / "data"
    plan = tmp_path / "shelf.json"
    ok(run_cli(data, "plan", str(_box(tmp_path)), "-o", str(plan)))
    return data, plan


def _asked(data: Path, plan: Path, item: str) -> list[str]:
    """The files the item's rescan questions are about, in plan order."""
    report = cli_json(data, "validate", str(plan), "--json")
    ids = {it["title"]: it["item_id"] for it in orjson.loads(plan.read_bytes())["items"]}
    return [
        p["files"][0]
        for p in report["problems"]
        if p["code"] == "looks_like" and p["item_id"] == ids[item]
    ]


def _sources(plan: Path, item: str) -> list[dict[str, Any]]:
    items = orjson.loads(plan.read_bytes())["items"]
    sources: list[dict[str, Any]] = next(it for it in items if it["title"] == item)["sources"]
    return sources


def _excluded(plan: Path, item: str) -> list[str]:
    return [s["provenance"]["rel"] for s in _sources(plan, item) if s["excluded"]]


def test_keep_both_takes_several_files_and_order_counts_what_is_still_open(
    tmp_path: Path,
) -> None:
    data, plan = _planned(tmp_path)
    assert _asked(data, plan, "Diary") == [
        "shelf/Diary/p5.jpg",
        "shelf/Diary/p6.jpg",
        "shelf/Diary/p7.jpg",
    ]
    assert _asked(data, plan, "Letters") == ["shelf/Letters/l7.jpg", "shelf/Letters/l8.jpg"]
    # Two of Diary's three, one by its base name: the third is still open, and said so.
    out = ok(
        run_cli(data, "order", str(plan), "Diary", "--keep-both", "p5.jpg", "shelf/Diary/p6.jpg")
    )
    line, *listed = out.stdout.splitlines()
    assert line.endswith(
        "“Diary” — kept both: shelf/Diary/p5.jpg beside shelf/Diary/p1.jpg and "
        "shelf/Diary/p6.jpg beside shelf/Diary/p2.jpg; no error; 1 rescan question still "
        "open; in the plan's other notebooks: 2 rescan questions still open (validate lists "
        "them)."
    ), line
    assert "resolved" not in line
    assert listed == [
        "  WARNING [looks_like]: shelf/Diary/p7.jpg looks like shelf/Diary/p3.jpg in this "
        'import: a rescan? (order --rescan "shelf/Diary/p7.jpg" | --keep-both '
        '"shelf/Diary/p7.jpg" | --exclude "shelf/Diary/p7.jpg" | --none-are-rescans)'
    ]
    assert _asked(data, plan, "Diary") == ["shelf/Diary/p7.jpg"]
    assert _excluded(plan, "Diary") == []  # kept both: nothing left out

    # Naming a page that is asked nothing refuses the whole answer: nothing is written.
    before = plan.read_bytes()
    refused = run_cli(data, "order", str(plan), "Diary", "--keep-both", "p7.jpg", "p4.jpg")
    assert refused.returncode == Exit.USAGE
    assert "p4.jpg looks like no other page: there is no rescan question to answer" in (
        refused.stderr
    )
    assert plan.read_bytes() == before

    # l8.jpg is a rescan of page 2, as p6.jpg is: kept beside p2.jpg, it is asked about p6.jpg
    # next, and the line says so instead of "resolved".
    out = ok(run_cli(data, "order", str(plan), "Letters", "--keep-both", "--all"))
    assert (
        "“Letters” — kept both: shelf/Letters/l7.jpg beside shelf/Diary/p4.jpg and "
        "shelf/Letters/l8.jpg beside shelf/Diary/p2.jpg; no error; 1 rescan question still "
        "open; in the plan's other notebooks: 1 rescan question still open (validate lists "
        "them).\n  WARNING [looks_like]: shelf/Letters/l8.jpg looks like shelf/Diary/p6.jpg"
    ) in out.stdout
    out = ok(run_cli(data, "order", str(plan), "Letters", "--keep-both", "--all"))
    assert "“Letters” — kept both: shelf/Letters/l8.jpg beside shelf/Diary/p6.jpg; resolved;" in (
        out.stdout
    )
    ok(run_cli(data, "order", str(plan), "Diary", "--keep-both", "--all"))
    assert _asked(data, plan, "Diary") == _asked(data, plan, "Letters") == []
    ok(run_cli(data, "commit", str(plan)))
    notebooks = cli_json(data, "notebooks", "--json")["notebooks"]
    assert sorted(n["page_count"] for n in notebooks) == [4, 7]  # every page kept
    # Remembered in the corpus: the six pairs are not asked about again.
    memory = orjson.loads((data / "corpus" / "lookalikes.json").read_bytes())
    assert len(memory["not_rescans"]) == 6


def test_rescan_all_replaces_every_page_it_can_and_leaves_the_rest_open(tmp_path: Path) -> None:
    """Diary's three rescans replace their pages at once (each earlier page left out, the
    rescan in its place); Letters' rescans are of another notebook's pages, which cannot be
    replaced in this import, so --rescan --all is refused there in words."""
    data, plan = _planned(tmp_path)
    out = ok(run_cli(data, "order", str(plan), "Diary", "--rescan", "--all"))
    assert (
        "“Diary” — shelf/Diary/p5.jpg replaces shelf/Diary/p1.jpg (left out), "
        "shelf/Diary/p6.jpg replaces shelf/Diary/p2.jpg (left out) and shelf/Diary/p7.jpg "
        "replaces shelf/Diary/p3.jpg (left out); resolved;"
    ) in out.stdout
    assert _excluded(plan, "Diary") == [
        "shelf/Diary/p1.jpg",
        "shelf/Diary/p2.jpg",
        "shelf/Diary/p3.jpg",
    ]
    order = [s["provenance"]["rel"] for s in _sources(plan, "Diary") if not s["excluded"]]
    assert order == [
        "shelf/Diary/p5.jpg",
        "shelf/Diary/p6.jpg",
        "shelf/Diary/p7.jpg",
        "shelf/Diary/p4.jpg",
    ]
    refused = run_cli(data, "order", str(plan), "Letters", "--rescan", "--all")
    assert refused.returncode == Exit.USAGE
    assert "no page of “Letters” can replace the page it looks like in this import" in (
        refused.stderr
    )
    assert len(_asked(data, plan, "Letters")) == 2


def test_rescan_takes_several_files(tmp_path: Path) -> None:
    data, plan = _planned(tmp_path)
    out = ok(run_cli(data, "order", str(plan), "Diary", "--rescan", "p5.jpg", "p7.jpg"))
    assert "no error; 1 rescan question still open" in out.stdout
    assert _excluded(plan, "Diary") == ["shelf/Diary/p1.jpg", "shelf/Diary/p3.jpg"]
    assert _asked(data, plan, "Diary") == ["shelf/Diary/p6.jpg"]


def test_none_are_rescans_answers_pages_like_another_notebooks_of_the_import(
    tmp_path: Path,
) -> None:
    """Letters' questions are all about Diary's pages: None Are Rescans was refused (its
    pages looked like no other of its own); now it answers them, and is offered on them."""
    data, plan = _planned(tmp_path)
    report = cli_json(data, "validate", str(plan), "--json")
    letters = [p for p in report["problems"] if p["files"][0].startswith("shelf/Letters/")]
    assert [p["resolutions"] for p in letters] == [
        ["keep_both", "leave_out", "none_are_rescans"]
    ] * 2
    out = ok(run_cli(data, "order", str(plan), "Letters", "--none-are-rescans"))
    assert "“Letters” — resolved; in the plan's other notebooks: 3 rescan questions" in out.stdout
    assert _asked(data, plan, "Letters") == []
    assert len(_asked(data, plan, "Diary")) == 3  # Diary's own questions are its own
    again = run_cli(data, "order", str(plan), "Letters", "--none-are-rescans")
    assert again.returncode == Exit.USAGE
    assert "no page of “Letters” looks like another page of this import" in again.stderr


def test_all_goes_with_an_answer_and_not_with_files(tmp_path: Path) -> None:
    data, plan = _planned(tmp_path)
    before = plan.read_bytes()
    cases = {
        ("--accept", "--all"): "--all goes with --rescan or --keep-both",
        ("--keep-both",): "--keep-both needs the files it answers",
        ("--rescan", "p5.jpg", "--all"): "--rescan takes the files it answers, or --all",
    }
    for args, words in cases.items():
        refused = run_cli(data, "order", str(plan), "Diary", *args)
        assert refused.returncode == Exit.USAGE, args
        assert words in refused.stderr, (args, refused.stderr)
    assert plan.read_bytes() == before


def test_validate_names_each_answer_once(tmp_path: Path) -> None:
    """A newcomer's first shelf printed each rescan question's options twice: in brackets
    after the question, then on its "resolve with" line. Now once, with the files named,
    and once per notebook how to answer all its questions at once."""
    data, plan = _planned(tmp_path)
    shown = ok(run_cli(data, "validate", str(plan))).stdout
    lines = shown.splitlines()
    questions = [n for n, line in enumerate(lines) if line.startswith("WARNING [looks_like]")]
    assert len(questions) == 5
    for n in questions:
        assert "--keep-both" not in lines[n] and "(order" not in lines[n], lines[n]
        name = lines[n].split(": ", 1)[1].split(" looks like ")[0]
        assert lines[n + 1].startswith(f"    resolve with: transcribe-import order {plan} ")
        assert lines[n + 1].count("--keep-both") == 1
        assert f'--keep-both "{name}"' in lines[n + 1]
    assert shown.count("--keep-both") == 5 + 2  # each question's, and each notebook's "all"
    item = {it["title"]: it["item_id"][:8] for it in orjson.loads(plan.read_bytes())["items"]}
    assert (
        f"    or answer all 3 at once: transcribe-import order {plan} {item['Diary']} "
        "--keep-both --all | --rescan --all | --none-are-rescans"
    ) in lines
    assert (
        f"    or answer both at once: transcribe-import order {plan} {item['Letters']} "
        "--keep-both --all | --none-are-rescans"
    ) in lines
    # The JSON keeps the hint (the options with the files), for a script.
    report = cli_json(data, "validate", str(plan), "--json")
    assert report["problems"][0]["hint"].startswith('order --rescan "shelf/Diary/p5.jpg" | ')


def test_order_lists_the_first_open_questions_and_counts_the_rest(tmp_path: Path) -> None:
    """Seven rescans in one folder: `plan` offers the answer for all of them; one answered,
    `order` lists five of the six left and says validate lists the last."""
    folder = tmp_path / "Box"
    for k in range(1, 8):
        save_jpeg(notebook_scan(k), folder / f"p{k:02d}.jpg")
        rescan_file(k, Rescan.LIGHT, folder / f"p{k + 7:02d}.jpg")
    data = tmp_path / "data"
    plan = tmp_path / "box.json"
    planned = ok(run_cli(data, "plan", str(folder), "-o", str(plan))).stdout
    assert (
        "    Or answer all 7 at once (order --keep-both --all | --rescan --all | "
        "--none-are-rescans)."
    ) in planned.splitlines()
    out = ok(run_cli(data, "order", str(plan), "Box", "--keep-both", "p08.jpg")).stdout
    line, *listed = out.splitlines()
    assert line.endswith("no error; 6 rescan questions still open."), line
    assert [w.split(": ")[1].split(" looks like")[0] for w in listed[:5]] == [
        f"Box/p{k:02d}.jpg" for k in range(9, 14)
    ]
    assert listed[5:] == [f"  … and 1 more (validate {plan} lists every one)"]
