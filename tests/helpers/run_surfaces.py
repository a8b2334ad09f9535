"""One run told alike on every surface: the CLI's JSON, the CLI's words, the window's models.

The check the stop-scenario tables share (tests/cli/test_run_state.py, the CLI's stops, and
tests/gui/test_stop_surfaces.py, the window's): `runs --json`, `show --json`, the words of
`runs` and `show`, the window's Runs model and History all say the same state and the same
numbers, and the pages landed equal the pages in the notebooks' project.json whose sources
carry the run's id, counted here straight from disk.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from transcribe_import.engine import api
from transcribe_import.engine.base.text import counted
from transcribe_import.engine.runs.model import HistoryEvent
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.models.runs import RunColumn, RunTableModel
from transcribe_import.gui.wording import counts_sentence, history_event_words, history_words

from helpers.cli import cli_json, ok, run_cli

# What `runs` lists and how `show` and the window say each state of a run that has not ended.
RUNS_LABEL = {
    "live": "running",
    "paused": "paused (resumable)",
    "interrupted": "interrupted (resumable)",
}
SHOW_WORDS = {
    "live": "running — a process is executing it now",
    "paused": "paused — resumable",
    "interrupted": "interrupted — resumable",
}
WINDOW_WORDS = {
    "live": "Running now",
    "paused": "Paused, resumable",
    "interrupted": "Interrupted, resumable",
    "complete": "Complete",
    "partial": "Partly imported",
    "cancelled": "Cancelled, some pages kept",  # none committed, some pages landed
}
# How `show` says a History entry the tables look for.
SHOW_HISTORY = {
    HistoryEvent.RETRIED: "retried by a new run",
    HistoryEvent.RETRY_REFUSED: "retry refused, no new run began",
    HistoryEvent.PAUSED: "paused",
    HistoryEvent.CANCEL_REQUESTED: "cancel requested",
}


def pages_on_disk(data: Path, run_id: str) -> int:
    """Pages in the corpus's project.json files whose source carries ``run_id``: pages of
    their notebooks now, and those a later rescan replaced since (the notebook's history)."""
    return sum(_on_disk(data, run_id))


def replaced_on_disk(data: Path, run_id: str) -> int:
    """Of ``pages_on_disk``, those in the notebooks' history (``replaced_pages``)."""
    return _on_disk(data, run_id)[1]


def _on_disk(data: Path, run_id: str) -> tuple[int, int]:
    pages = replaced = 0
    for manifest in (data / "corpus" / "notebooks").glob("*/project.json"):
        doc = orjson.loads(manifest.read_bytes())
        ours = {s["id"] for s in doc["sources"] if s.get("import_run_id") == run_id}
        pages += sum(p["source_id"] in ours for p in doc["pages"])
        history = [e["page"] for e in doc.get("replaced_pages") or ()]
        replaced += sum(p["source_id"] in ours for p in history)
    return pages, replaced


def counts(complete: int, incomplete: int, failed: int, not_started: int) -> dict[str, int]:
    """Every count of ``run_counts`` but pages_landed, which is counted on disk."""
    return {
        "notebooks_complete": complete,
        "notebooks_incomplete": incomplete,
        "items_failed": failed,
        "items_not_started": not_started,
    }


def assert_surfaces_agree(
    data: Path,
    run_id: str,
    *,
    state: str,
    status: str,
    want_counts: dict[str, int],
    locked: bool = False,
    history: tuple[HistoryEvent, ...] = (),
) -> int:
    """Every surface tells ``run_id`` as ``state``/``status`` with ``want_counts`` and the
    pages on disk; ``history``: events its History must hold, on both faces. Returns the
    pages."""
    pages, replaced = pages_on_disk(data, run_id), replaced_on_disk(data, run_id)
    want = {**want_counts, "pages_landed": pages, "pages_replaced": replaced}
    ended = state == "ended"
    since = f" ({replaced} of them replaced since by rescans or turns, kept in the history)"
    landed_words = f"{counted(pages, 'page')} landed" + (since if replaced else "")

    # The CLI's JSON: the list and the one run.
    runs = cli_json(data, "runs", "--json")["runs"]
    [listed] = [r for r in runs if r["import_run_id"] == run_id]
    shown = cli_json(data, "show", run_id, "--json")
    for doc in (listed, shown):
        assert doc["state"] == state and doc["status"] == status, (doc["state"], doc["status"])
        assert doc["run_counts"] == want
    assert listed["pages_landed"] == pages
    # Its rows add up to it, whatever replaced some of its pages since.
    assert sum(item["pages_landed"] for item in shown["items"]) == pages
    assert listed["interrupted"] is (not ended and not locked and state != "live")

    # The CLI's words: `runs` and `show` say the same state and the same counts.
    [runs_line] = [
        line
        for line in ok(run_cli(data, "runs")).stdout.splitlines()
        if line.startswith(run_id[:8])
    ]
    show_out = ok(run_cli(data, "show", run_id)).stdout
    label = status if ended else RUNS_LABEL[state]
    assert f"  {label} " in runs_line
    numbers = f"{want['notebooks_complete']} complete, {want['notebooks_incomplete']} incomplete"
    assert numbers in runs_line and runs_line.endswith(landed_words)
    assert f"{counted(want['notebooks_complete'], 'notebook')} complete, " in show_out
    assert f"{want['items_failed']} failed, {want['items_not_started']} not started; " in show_out
    assert f"; {landed_words}." in show_out
    rows = re.findall(r"^  \w+ +[0-9a-f]{8} “.*”: (\d+) pages? into ", show_out, re.M)
    assert sum(int(n) for n in rows) == pages, show_out
    first = show_out.splitlines()[0]
    assert first.startswith(f"Run {run_id[:8]} — {status if ended else SHOW_WORDS[state]}")
    for event in history:
        assert f"  {SHOW_HISTORY[event]} (attempt " in show_out, event

    # The window's Runs model and History, over the same engine values.
    listings = api.list_runs(Corpus.open(data))
    model = RunTableModel()
    model.set_runs([listing.summary for listing in listings])
    [row] = [i for i, listing in enumerate(listings) if listing.summary.run_id == run_id]
    [listing] = [listing for listing in listings if listing.summary.run_id == run_id]

    def cell(column: RunColumn) -> Any:
        return model.index(row, column).data()

    assert cell(RunColumn.STATUS) == WINDOW_WORDS[status if ended else state]
    assert cell(RunColumn.COMMITTED) == str(want["notebooks_complete"])
    assert cell(RunColumn.FAILED) == str(want["items_failed"])
    assert cell(RunColumn.PAGES) == str(pages)
    summary = listing.summary
    assert summary.counts.to_json() == want and str(summary.state) == state
    assert counts_sentence(summary).endswith(f"; {landed_words}.")
    entries = api.run_history(listing.record)
    said = [history_words(h, summary) for h in entries]
    if ended:  # the Runs details' History ends its run in the words of the row
        ends = [s for h, s in zip(entries, said, strict=True) if h.status is not None]
        assert ends[-1].split("  ", 1)[1].startswith(f"Ended: {WINDOW_WORDS[status]}")
    for event in history:
        words = history_event_words(event)
        assert any(words in s for s in said), (event, said)
    return pages
