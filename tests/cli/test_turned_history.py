"""``notebooks NOTEBOOK`` says of a page a turn replaced that it was turned, how and by which
run, not that a page replaced it as a rescan would (#39)."""

from __future__ import annotations

from pathlib import Path

from helpers.cli import cli_json, ok, run_cli
from helpers.turns import cli_diary, notebook_doc


def test_the_history_says_a_page_was_turned_and_by_which_run(tmp_path: Path) -> None:
    data, nbid = cli_diary(tmp_path)
    ok(run_cli(data, "turn", "Diary", "2", "90"))
    first = cli_json(data, "runs", "--json")["runs"][0]["import_run_id"]
    ok(run_cli(data, "turn", "Diary", "2", "0"))
    second = cli_json(data, "runs", "--json")["runs"][0]["import_run_id"]
    doc = notebook_doc(data, nbid)
    [was, turned] = [e["page"]["id"] for e in doc["replaced_pages"]]
    now = doc["pages"][1]["id"]
    at = {e["page"]["id"]: e["replaced_at"] for e in doc["replaced_pages"]}

    listing = ok(run_cli(data, "notebooks", "Diary")).stdout.splitlines()

    replaced = [line.split() for line in listing if line.startswith("  replaced  ")]
    assert [words[1] for words in replaced] == [was, turned]
    assert listing[-2].endswith(
        f"by page {turned} on {at[was]}, turned 90° clockwise (run {first[:8]})"
    )
    assert listing[-1].endswith(
        f"by page {now} on {at[turned]}, no longer turned (run {second[:8]})"
    )
    pages = cli_json(data, "notebooks", "Diary", "--json")["pages"]
    assert [p["replaced_by_turn"] for p in pages] == [False] * len(doc["pages"]) + [True, True]
