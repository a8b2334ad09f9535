"""Plans and import runs in-process, for engine tests of planning, validate and runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from transcribe_import.engine import api
from transcribe_import.engine.planning import ordering
from transcribe_import.engine.planning.plan import AdapterMode, ImportPlan, PlanItem, save_plan
from transcribe_import.engine.planning.planner import build_plan
from transcribe_import.engine.planning.scan import run_scan
from transcribe_import.engine.runs.executor import (
    EventKind,
    RunControl,
    RunEvent,
    RunResult,
    execute_run,
)
from transcribe_import.engine.runs.model import RunStatus
from transcribe_import.engine.runs.revert import RevertBlock
from transcribe_import.engine.runs.service import prepare_run
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import assert_notebook_whole
from helpers.cli import Exit, ok, run_cli
from helpers.lookalike_set import scans


def plan_for(corpus: Corpus, *roots: Path, mode: str = "folders", **kw: Any) -> ImportPlan:
    """Scan ``roots`` and plan them with ``mode`` as typed (an id for ``into:``), ``kw`` to
    ``build_plan``; every ordering question is answered by accepting the proposed order, so
    the plan is ready to commit."""
    plan = build_plan(corpus, run_scan(list(roots)), mode=AdapterMode.parse(mode), **kw)
    for it in plan.items:
        if ordering.find_ambiguities(it):
            plan = plan.with_item(ordering.accept(it))
    return plan


def looked_at(plan: ImportPlan) -> ImportPlan:
    """``plan`` with its JPEG and PDF pages' looks, as the CLI's plan and the window give it
    to a commit (the look pass after the scan; api.plan_paths leaves them out)."""
    looks: dict[str, str | None] = {}
    for made in api.look_pass(plan, workers=1):
        looks.update(made.looks)
    return api.with_looks(plan, looks)


def commit_plan(corpus: Corpus, plan: ImportPlan, **kw: Any) -> RunResult:
    """Prepare the plan's run (a new one, or the one it continues) and execute it."""
    record, _ = prepare_run(corpus, plan)
    return execute_run(corpus, record.run_id, **kw)


def cancelled_part_way(corpus: Corpus, shelf: Path) -> tuple[RunResult, ImportPlan]:
    """``shelf``'s notebook imported until its first checkpoint landed, then cancelled: the
    run's result (CANCELLED, some pages in) and its plan."""
    plan = plan_for(corpus, shelf)
    control = RunControl()

    def stop(event: RunEvent) -> None:
        if event.kind is EventKind.PAGES_LANDED:
            control.cancel()

    result = commit_plan(corpus, plan, control=control, workers=1, on_event=stop)
    assert result.status is RunStatus.CANCELLED
    return result, plan


def killed_commit(corpus: Corpus, shelf: Path, crash_at: str) -> ImportPlan:
    """A real `commit` of ``shelf``'s plan (saved beside it as plan.json), one notebook at a
    time, killed (SIGKILL) at ``crash_at``: the plan."""
    plan = build_plan(corpus, run_scan([shelf]))
    plan_path = shelf.parent / "plan.json"
    save_plan(plan, plan_path)
    argv = ("commit", str(plan_path), "--workers", "1")
    ok(run_cli(corpus.data_dir, *argv, crash_at=crash_at), Exit.KILLED)
    return plan


def imported_diary(corpus: Corpus, root: Path) -> str:
    """“Diary 1931”, pages 01.jpg to 04.jpg, imported: its notebook id."""
    scans(root / "Diary", range(1, 5))
    plan = looked_at(api.plan_paths(corpus, api.PlanRequest((root / "Diary",))).plan)
    plan = replace(plan, items=(replace(plan.items[0], title="Diary 1931"),))
    assert commit_plan(corpus, plan).status == "complete"
    return plan.items[0].notebook_id


def planned_page_ids(item: PlanItem) -> list[str]:
    """The page ids the item will commit, in plan order."""
    return [p.page_id for s in item.imported_sources() for p in s.pages]


def committed_page_ids(corpus: Corpus, plan: ImportPlan) -> dict[str, list[str]]:
    """item id -> page ids of its notebook (checked whole), for each item whose notebook
    is registered."""
    out = {}
    for it in plan.items:
        if corpus.is_registered(it.notebook_id):
            doc = assert_notebook_whole(corpus, it.notebook_id)
            out[it.item_id] = [p["id"] for p in doc["pages"]]
    return out


def later_work() -> list[tuple[Callable[[dict[str, Any]], object], RevertBlock]]:
    """Changes made to a run's notebook after the import (as another tool or a person would
    make them in its project.json), each with the cause that blocks undoing the run."""
    return [
        (lambda d: d.update(title="Renamed"), RevertBlock.RENAMED),
        (lambda d: d.update(x_transcriptions={"v": 1}), RevertBlock.NOTEBOOK_CHANGED),
        (lambda d: d["pages"][1].update(transcription="Dear diary"), RevertBlock.PAGE_CHANGED),
        (lambda d: d["pages"][0].update(label="12v"), RevertBlock.PAGE_CHANGED),
        (lambda d: d["pages"].reverse(), RevertBlock.REORDERED),
        (lambda d: d.update(cover_page_id=d["pages"][2]["id"]), RevertBlock.COVER_SET),
    ]


def twin_run(corpus: Corpus, run_id: str) -> str:
    """A second run record whose id shares its first 9 characters with ``run_id``, written by
    hand (ids are random), for the words that must name the two apart."""
    twin = run_id[:9] + "0000-4000-8000-000000000000"
    runs_dir = corpus.root / "import-runs"
    record = (runs_dir / f"{run_id}.json").read_text(encoding="utf-8")
    (runs_dir / f"{twin}.json").write_text(record.replace(run_id, twin), encoding="utf-8")
    return twin
