"""One state and one set of counts for a run, the same on every surface, after every stop.

Each scenario stops a run a different way (it ends complete, a real process is SIGKILLed
half way through a notebook, that run is then cancelled, an item fails, a run is paused
while its lock is still held). For each, `runs --json`, `show --json`, the words of `runs`
and `show`, and the window's Runs model all say the same state and the same numbers, and
the pages landed equal the pages in the notebooks' project.json whose sources carry the
run's id, counted here straight from disk.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import filelock
import orjson
import pytest
from pytestqt.qtbot import QtBot

from transcribe_import.engine import api
from transcribe_import.engine.runs.executor import EventKind, RunControl
from transcribe_import.engine.storage.corpus import Corpus
from transcribe_import.gui.models.runs import RunColumn, RunTableModel
from transcribe_import.gui.wording import history_words

from helpers.cli import EXIT_CANCELLED, EXIT_PROBLEMS, SIGKILLED, cli_json, ok, run_cli
from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_shelf

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


def pages_on_disk(data: Path, run_id: str) -> int:
    """Pages in the corpus's project.json files whose source carries ``run_id``."""
    total = 0
    for manifest in (data / "corpus" / "notebooks").glob("*/project.json"):
        doc = orjson.loads(manifest.read_bytes())
        ours = {s["id"] for s in doc["sources"] if s.get("import_run_id") == run_id}
        total += sum(p["source_id"] in ours for p in doc["pages"])
    return total


def the_run_id(data: Path) -> str:
    (run,) = cli_json(data, "runs", "--json")["runs"]
    return str(run["import_run_id"])


def planned(tmp_path: Path, shelf: Path) -> tuple[Path, Path]:
    data, plan = tmp_path / "data", tmp_path / "plan.json"
    ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
    return data, plan


def completed(tmp_path: Path, _corpus: Corpus) -> tuple[Path, str]:
    data, plan = planned(tmp_path, make_shelf(tmp_path / "shelf", notebooks=2))
    ok(run_cli(data, "commit", str(plan)))
    return data, the_run_id(data)


def killed_mid_notebook(tmp_path: Path, _corpus: Corpus) -> tuple[Path, str]:
    """A real `commit` SIGKILLed between two checkpoints of a 70-page notebook."""
    shelf = make_shelf(tmp_path / "shelf", 1, 70, folder="Register", size=(120, 160))
    data, plan = planned(tmp_path, shelf)
    killed = run_cli(
        data, "commit", str(plan), "--workers", "1", crash_at="ingest.between_checkpoints"
    )
    assert killed.returncode == SIGKILLED, killed.stderr
    return data, the_run_id(data)


def cancelled_mid_notebook(tmp_path: Path, corpus: Corpus) -> tuple[Path, str]:
    data, run_id = killed_mid_notebook(tmp_path, corpus)
    ok(run_cli(data, "cancel", run_id), EXIT_CANCELLED)
    return data, run_id


def failed_item(tmp_path: Path, _corpus: Corpus) -> tuple[Path, str]:
    """Killed after its first item; a source of the second grows; the resume fails that item."""
    data, plan = planned(tmp_path, make_shelf(tmp_path / "shelf", notebooks=2))
    killed = run_cli(data, "commit", str(plan), "--workers", "1", crash_at="run.after_item_outcome")
    assert killed.returncode == SIGKILLED, killed.stderr
    run_id = the_run_id(data)
    shown = cli_json(data, "show", run_id, "--json")
    pending = {i["item_id"] for i in shown["items"] if i["state"] == "pending"}
    (item,) = [it for it in orjson.loads(plan.read_bytes())["items"] if it["item_id"] in pending]
    with Path(item["sources"][-1]["provenance"]["path"]).open("ab") as f:
        f.write(b"\0" * 4096)
    ok(run_cli(data, "resume", run_id), EXIT_PROBLEMS)
    return data, run_id


def paused(tmp_path: Path, corpus: Corpus) -> tuple[Path, str]:
    """Paused after its first notebook (in this process: the pause is a RunControl's)."""
    plan = plan_for(corpus, make_shelf(tmp_path / "shelf", notebooks=3))
    control = RunControl()
    result = commit_plan(
        corpus,
        plan,
        control=control,
        workers=1,
        on_event=lambda ev: ev.kind is EventKind.ITEM_FINISHED and control.pause(),
    )
    assert result.paused
    return corpus.data_dir, result.run_id


@dataclass(frozen=True)
class Scenario:
    name: str
    stop: Callable[[Path, Corpus], tuple[Path, str]]
    state: str
    status: str
    counts: dict[str, int]  # every count but pages_landed, which is counted on disk
    hold_lock: bool = False  # a process still holds the run's lock (it is finishing its stop)


def _counts(complete: int, incomplete: int, failed: int, not_started: int) -> dict[str, int]:
    return {
        "notebooks_complete": complete,
        "notebooks_incomplete": incomplete,
        "items_failed": failed,
        "items_not_started": not_started,
    }


SCENARIOS = [
    Scenario("completed", completed, "ended", "complete", _counts(2, 0, 0, 0)),
    Scenario("sigkill", killed_mid_notebook, "interrupted", "running", _counts(0, 1, 0, 0)),
    Scenario("cancelled", cancelled_mid_notebook, "ended", "cancelled", _counts(0, 1, 0, 0)),
    Scenario("failed_item", failed_item, "ended", "partial", _counts(1, 0, 1, 0)),
    Scenario("paused", paused, "paused", "running", _counts(1, 0, 0, 2)),
    Scenario("paused_locked", paused, "paused", "running", _counts(1, 0, 0, 2), hold_lock=True),
]


@contextlib.contextmanager
def _held(data: Path, run_id: str, hold: bool) -> Iterator[None]:
    """The run's lock held by this test, as a process finishing its stop holds it."""
    if not hold:
        yield
        return
    with filelock.FileLock(data / "corpus" / "import-runs" / f"{run_id}.lock").acquire(timeout=5):
        yield


@pytest.mark.slow
@pytest.mark.parametrize("case", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_every_surface_tells_one_state_and_the_pages_on_disk(
    tmp_path: Path, corpus: Corpus, qtbot: QtBot, case: Scenario
) -> None:
    data, run_id = case.stop(tmp_path, corpus)
    pages = pages_on_disk(data, run_id)
    if case.name in ("sigkill", "cancelled"):
        assert 0 < pages < 70, "the kill should land between two checkpoints"
    want = {**case.counts, "pages_landed": pages}
    with _held(data, run_id, case.hold_lock):
        # The CLI's JSON: the list and the one run.
        (listed,) = cli_json(data, "runs", "--json")["runs"]
        shown = cli_json(data, "show", run_id, "--json")
        for doc in (listed, shown):
            assert doc["state"] == case.state and doc["status"] == case.status, doc["state"]
            assert doc["run_counts"] == want
        assert listed["pages_landed"] == pages
        assert listed["interrupted"] is (case.state != "ended" and not case.hold_lock)

        # The CLI's words: `runs` and `show` say the same state and the same counts.
        runs_out = ok(run_cli(data, "runs")).stdout
        show_out = ok(run_cli(data, "show", run_id)).stdout
        ended = case.state == "ended"
        label = case.status if ended else RUNS_LABEL[case.state]
        assert f"  {label} " in runs_out
        counted = (
            f"{want['notebooks_complete']} complete, {want['notebooks_incomplete']} incomplete"
        )
        assert counted in runs_out and f"{pages} page(s) landed" in runs_out
        assert f"{want['notebooks_complete']} notebook(s) complete, " in show_out
        assert (
            f"{want['items_failed']} failed, {want['items_not_started']} not started; " in show_out
        )
        assert f"{pages} page(s) landed." in show_out
        first = show_out.splitlines()[0]
        assert first.startswith(
            f"Run {run_id} — {case.status if ended else SHOW_WORDS[case.state]}"
        )

        # The window's Runs model, over the same engine values.
        summaries = [listing.summary for listing in api.list_runs(Corpus.open(data))]
        model = RunTableModel()
        model.set_runs(summaries)
        assert model.rowCount() == 1

        def cell(column: RunColumn) -> Any:
            return model.index(0, column).data()

        assert cell(RunColumn.STATUS) == WINDOW_WORDS[case.status if ended else case.state]
        assert cell(RunColumn.COMMITTED) == str(want["notebooks_complete"])
        assert cell(RunColumn.FAILED) == str(want["items_failed"])
        assert cell(RunColumn.PAGES) == str(pages)
        (summary,) = summaries
        assert summary.counts.to_json() == want and str(summary.state) == case.state
        if ended:  # the Runs details' History ends in the words of the row
            listing = api.list_runs(Corpus.open(data))[0]
            entries = api.run_history(listing.record)
            ends = [history_words(h, summary) for h in entries if h.status is not None]
            assert ends[-1].split("  ", 1)[1].startswith(f"Ended: {WINDOW_WORDS[case.status]}")
