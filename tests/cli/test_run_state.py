"""One state and one set of counts for a run, the same on every surface, after every stop.

Each scenario stops a run a different way (it ends complete, a real process is SIGKILLed
half way through a notebook, that run is then cancelled, an item fails, a run is paused
while its lock is still held, a cancelled run is retried, a retry is refused). For each,
`runs --json`, `show --json`, the words of `runs` and `show`, and the window's Runs model
and History all say the same state and the same numbers, and the pages landed equal the
pages in the notebooks' project.json whose sources carry the run's id, counted here
straight from disk (helpers/run_surfaces.py). The window's own stops (Close → Cancel,
Close → Pause, a SIGKILL of the app) are the same table in tests/gui/test_stop_surfaces.py.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import filelock
import orjson
import pytest
from pytestqt.qtbot import QtBot

from transcribe_import.engine.base.text import counted
from transcribe_import.engine.runs.executor import EventKind, RunControl
from transcribe_import.engine.runs.model import HistoryEvent
from transcribe_import.engine.storage.corpus import Corpus

from helpers.cli import Exit, cli_json, ok, run_cli
from helpers.run_surfaces import assert_surfaces_agree, counts, pages_on_disk, replaced_on_disk
from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_pages, make_shelf
from media_factory import make_pdf


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
    assert killed.returncode == Exit.KILLED, killed.stderr
    return data, the_run_id(data)


def cancelled_mid_notebook(tmp_path: Path, corpus: Corpus) -> tuple[Path, str]:
    data, run_id = killed_mid_notebook(tmp_path, corpus)
    ok(run_cli(data, "cancel", run_id), Exit.CANCELLED)
    return data, run_id


def retried(tmp_path: Path, corpus: Corpus) -> tuple[Path, str]:
    """The cancelled run's plan committed again: the new run lands only the rest."""
    data, first = cancelled_mid_notebook(tmp_path, corpus)
    ok(run_cli(data, "commit", str(tmp_path / "plan.json")))
    [retry] = [r for r in cli_json(data, "runs", "--json")["runs"] if r["import_run_id"] != first]
    assert retry["status"] == "complete"
    retry_id = str(retry["import_run_id"])
    assert pages_on_disk(data, first) + pages_on_disk(data, retry_id) == 70
    # Its item counts only the pages it landed; those of the cancelled run it found in.
    shown = cli_json(data, "show", retry_id, "--json")
    [item] = shown["items"]
    assert item["page_count"] == item["pages_landed"] == pages_on_disk(data, retry_id)
    assert item["pages_already_in"] == pages_on_disk(data, first)
    assert retry["pages_committed"] == retry["pages_landed"] == pages_on_disk(data, retry_id)
    assert (
        f": {counted(item['page_count'], 'page')} into "
        in ok(run_cli(data, "show", retry_id)).stdout
    )
    # The cancelled run no longer counts the notebook incomplete: the retry finished it.
    assert cli_json(data, "show", first, "--json")["run_counts"]["notebooks_incomplete"] == 0
    assert "0 incomplete" in ok(run_cli(data, "show", first)).stdout
    # The retried run's History names the run that retried it, in both faces' words.
    said = ok(run_cli(data, "show", first)).stdout
    assert "retried by a new run (attempt 1, by transcribe-import" in said
    assert f"; retried as run {retry_id[:8]}" in said
    return data, retry_id


def refused_retry(tmp_path: Path, corpus: Corpus) -> tuple[Path, str]:
    """A page not landed yet changes; committing the plan again is refused: no new run."""
    data, first = cancelled_mid_notebook(tmp_path, corpus)
    page = tmp_path / "shelf" / "Register" / "page 70.jpg"
    with page.open("ab") as f:
        f.write(b"\0" * 64)
    refused = ok(run_cli(data, "commit", str(tmp_path / "plan.json")), Exit.INVALID)
    assert "page 70.jpg" in refused.stdout + refused.stderr
    assert [r["import_run_id"] for r in cli_json(data, "runs", "--json")["runs"]] == [first]
    return data, first


def failed_item(tmp_path: Path, _corpus: Corpus) -> tuple[Path, str]:
    """Killed after its first item; a source of the second grows; the resume fails that item."""
    data, plan = planned(tmp_path, make_shelf(tmp_path / "shelf", notebooks=2))
    killed = run_cli(data, "commit", str(plan), "--workers", "1", crash_at="run.after_item_outcome")
    assert killed.returncode == Exit.KILLED, killed.stderr
    run_id = the_run_id(data)
    shown = cli_json(data, "show", run_id, "--json")
    pending = {i["item_id"] for i in shown["items"] if i["state"] == "pending"}
    (item,) = [it for it in orjson.loads(plan.read_bytes())["items"] if it["item_id"] in pending]
    with Path(item["sources"][-1]["provenance"]["path"]).open("ab") as f:
        f.write(b"\0" * 4096)
    ok(run_cli(data, "resume", run_id), Exit.PROBLEMS)
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


def replaced_since(tmp_path: Path, _corpus: Corpus) -> tuple[Path, str]:
    """A notebook of 4 images, a byte duplicate of one and a 2-page PDF (6 pages land); a
    later import into it replaces its page 2 by a rescan and adds a page."""
    shelf = make_shelf(tmp_path / "shelf", 1, 4, folder="Diary", tag="D")
    (shelf / "Diary" / "page 1 copy.jpg").write_bytes((shelf / "Diary" / "page 1.jpg").read_bytes())
    make_pdf(shelf / "Diary" / "page 5.pdf", 2)
    data, plan = planned(tmp_path, shelf)
    [item] = orjson.loads(plan.read_bytes())["items"]
    ok(run_cli(data, "order", str(plan), item["item_id"], "--accept"))
    ok(run_cli(data, "commit", str(plan)))
    first = the_run_id(data)
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    late = tmp_path / "late"
    make_pages(late, 1, name="rescan {i}.jpg", tag="R")
    make_pages(late, 1, name="page 9.jpg", tag="N")
    into = tmp_path / "late.json"
    ok(run_cli(data, "plan", str(late), "--mode", f"into:{nb['notebook_id']}", "-o", str(into)))
    ok(run_cli(data, "order", str(into), "late", "--replace", "rescan 1.jpg", "2"))
    ok(run_cli(data, "order", str(into), "late", "--accept"))
    ok(run_cli(data, "commit", str(into)))
    assert cli_json(data, "notebooks", "--json")["notebooks"][0]["page_count"] == 7
    assert pages_on_disk(data, first) == 6 and replaced_on_disk(data, first) == 1
    return data, first


@dataclass(frozen=True)
class Scenario:
    name: str
    stop: Callable[[Path, Corpus], tuple[Path, str]]
    state: str
    status: str
    counts: dict[str, int]  # every count but pages_landed, which is counted on disk
    hold_lock: bool = False  # a process still holds the run's lock (it is finishing its stop)
    history: tuple[HistoryEvent, ...] = ()  # events its History must hold, on both faces


SCENARIOS = [
    Scenario("completed", completed, "ended", "complete", counts(2, 0, 0, 0)),
    Scenario("sigkill", killed_mid_notebook, "interrupted", "running", counts(0, 1, 0, 0)),
    Scenario(
        "cancelled",
        cancelled_mid_notebook,
        "ended",
        "cancelled",
        counts(0, 1, 0, 0),
        history=(HistoryEvent.CANCEL_REQUESTED,),
    ),
    Scenario("retry", retried, "ended", "complete", counts(1, 0, 0, 0)),
    Scenario(
        "refused_retry",
        refused_retry,
        "ended",
        "cancelled",
        counts(0, 1, 0, 0),
        history=(HistoryEvent.RETRY_REFUSED,),
    ),
    Scenario("failed_item", failed_item, "ended", "partial", counts(1, 0, 1, 0)),
    Scenario(
        "paused", paused, "paused", "running", counts(1, 0, 0, 2), history=(HistoryEvent.PAUSED,)
    ),
    Scenario("paused_locked", paused, "paused", "running", counts(1, 0, 0, 2), hold_lock=True),
    Scenario("replaced_since", replaced_since, "ended", "complete", counts(1, 0, 0, 0)),
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
    if case.name in ("sigkill", "cancelled", "refused_retry"):
        assert 0 < pages < 70, "the kill should land between two checkpoints"
    with _held(data, run_id, case.hold_lock):
        assert_surfaces_agree(
            data,
            run_id,
            state=case.state,
            status=case.status,
            want_counts=case.counts,
            locked=case.hold_lock,
            history=case.history,
        )
