"""engine.api: the use cases both faces call, and the import diet of the light commands."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from transcribe_import.engine import api
from transcribe_import.engine.api import ExitCode
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.planning import ordering
from transcribe_import.engine.runs.executor import RunControl
from transcribe_import.engine.runs.model import RunStatus
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import page_image

DECODERS = ("PIL", "pypdf", "pypdfium2")


def _shelf(root: Path, notebooks: int = 2, pages: int = 3) -> Path:
    for n in range(notebooks):
        for p in range(1, pages + 1):
            page_image(root / f"notebook {n}" / f"page {p}.jpg", f"{n}/{p}")
    return root


@pytest.fixture
def corpus(data_dir: Path) -> Corpus:
    return Corpus.open(data_dir)


def test_exit_codes_follow_the_run_status() -> None:
    assert api.exit_code_for_status(RunStatus.COMPLETE) is ExitCode.OK
    assert api.exit_code_for_status(RunStatus.PARTIAL) is ExitCode.PROBLEMS
    assert api.exit_code_for_status(RunStatus.FAILED) is ExitCode.PROBLEMS
    assert api.exit_code_for_status(RunStatus.CANCELLED) is ExitCode.CANCELLED
    assert api.exit_code_for_status(RunStatus.CANCELLED_WITH_COMMITS) is ExitCode.CANCELLED
    assert api.exit_code_for_status(RunStatus.RUNNING) is ExitCode.INTERRUPTED
    busy = TranscribeError(ErrorCode.RUN_BUSY, "busy")
    assert api.exit_code_for_error(busy) is ExitCode.LOCKED
    frozen = TranscribeError(ErrorCode.PLAN_FROZEN, "frozen")
    assert api.exit_code_for_error(frozen) is ExitCode.INVALID_PLAN


def test_plan_commit_list_show_through_the_api(corpus: Corpus, tmp_path: Path) -> None:
    shelf = _shelf(tmp_path / "shelf")
    events = []
    planned = api.plan_paths(corpus, api.PlanRequest((shelf,)), on_progress=events.append)
    assert planned.files == 6 and len(planned.plan.items) == 2 and events
    prepared = api.prepare_commit(corpus, planned.plan, plan_file=tmp_path / "plan.json")
    assert not prepared.continued
    assert prepared.record.doc["discovery"]["plan_file"] == str(tmp_path / "plan.json")
    assert prepared.record.doc["discovery"]["roots"] == [str(shelf)]
    result = api.execute(corpus, prepared.run_id)
    assert result.status is RunStatus.COMPLETE
    assert api.exit_code_for_result(result) is ExitCode.OK
    # The same plan again continues the complete run: the commit is a no-op.
    again = api.prepare_commit(corpus, planned.plan)
    assert again.continued and again.run_id == prepared.run_id
    (listing,) = api.list_runs(corpus)
    assert listing.summary.run_id == prepared.run_id and not listing.summary.interrupted
    assert listing.summary.committed == 2 and listing.summary.pages_committed == 6
    detail = api.show_run(corpus, prepared.run_id)
    assert [r.pages_planned for r in detail.rows] == [3, 3]
    assert len(api.list_notebooks(corpus)) == 2
    assert api.check_corpus(corpus).clean
    with pytest.raises(TranscribeError) as frozen:
        api.check_plan_editable(corpus, planned.plan, "plan.json")
    assert frozen.value.code is ErrorCode.PLAN_FROZEN


def test_not_imported_names_each_file_left_out_beside_the_notebook_it_was_found_with(
    corpus: Corpus, tmp_path: Path
) -> None:
    shelf = _shelf(tmp_path / "shelf")
    assert api.not_imported(api.plan_paths(corpus, api.PlanRequest((shelf,))).plan) == []
    (shelf / "notebook 1" / "notes.txt").write_text("who wrote these?")
    (shelf / "box" / "empty").mkdir(parents=True)
    (shelf / "box" / "list.csv").write_text("a,b\n")
    plan = api.plan_paths(corpus, api.PlanRequest((shelf,))).plan
    by_label = {it.item_id: it.label for it in plan.items}
    found = {n.rel: (by_label.get(n.item_id or ""), n.reason) for n in api.not_imported(plan)}
    assert set(found) == {"shelf/notebook 1/notes.txt", "shelf/box/list.csv"}
    assert found["shelf/notebook 1/notes.txt"][0] == "notebook 1"
    assert found["shelf/box/list.csv"][0] is None  # beside no notebook's pages
    assert all(reason for _, reason in found.values())


def test_an_invalid_plan_is_refused_before_any_run(corpus: Corpus, tmp_path: Path) -> None:
    shelf = tmp_path / "shelf"
    for name in ("page1.jpg", "page01.jpg", "page2.jpg"):  # page 1 twice: ambiguous
        page_image(shelf / "nb" / name, name)
    plan = api.plan_paths(corpus, api.PlanRequest((shelf,))).plan
    with pytest.raises(api.PlanInvalid) as invalid:
        api.prepare_commit(corpus, plan)
    assert not invalid.value.report.ok
    assert api.list_runs(corpus) == []
    resolved = plan.with_item(ordering.accept(plan.items[0]))
    assert api.prepare_commit(corpus, resolved).record.status is RunStatus.PENDING


def test_a_paused_run_is_interrupted_until_resumed(corpus: Corpus, tmp_path: Path) -> None:
    plan = api.plan_paths(corpus, api.PlanRequest((_shelf(tmp_path / "shelf", notebooks=3),))).plan
    prepared = api.prepare_commit(corpus, plan)
    control = RunControl()
    control.pause()
    paused = api.execute(corpus, prepared.run_id, control=control)
    assert paused.paused and api.exit_code_for_result(paused) is ExitCode.INTERRUPTED
    assert [r.run_id for r in api.interrupted_runs(corpus)] == [prepared.run_id]
    assert api.list_runs(corpus)[0].summary.interrupted
    resumed = api.prepare_resume(corpus, prepared.run_id)
    assert resumed.continued and resumed.plan.fingerprint == plan.fingerprint
    assert api.execute(corpus, prepared.run_id).status is RunStatus.COMPLETE
    assert api.interrupted_runs(corpus) == []


@pytest.mark.parametrize(
    "module",
    [
        "transcribe_import.engine.api",
        "transcribe_import.engine.runs.store",
        "transcribe_import.engine.runs.model",
        "transcribe_import.cli",
    ],
)
def test_light_modules_do_not_load_the_media_decoders(module: str) -> None:
    """Listing runs or notebooks must not pay for Pillow, pypdf and pypdfium2 (~0.35 s)."""
    code = (
        f"import sys, {module}\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({DECODERS!r})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "[]"


def test_runs_json_does_not_load_the_media_decoders(data_dir: Path) -> None:
    code = (
        "import sys\nfrom transcribe_import.cli import main\n"
        f"rc = main(['--data-dir', {str(data_dir)!r}, 'runs', '--json'])\n"
        f"print(rc, sorted({{m.split('.')[0] for m in sys.modules}} & set({DECODERS!r})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip().splitlines()[-1] == "0 []"


def test_planning_images_does_not_load_the_pdf_libraries(tmp_path: Path) -> None:
    """pypdf and pdfium (~95 ms of a start) are loaded when a PDF is met, not before."""
    shelf = _shelf(tmp_path / "shelf", notebooks=1, pages=2)
    code = (
        "import sys\nfrom pathlib import Path\nfrom transcribe_import.engine import api\n"
        f"planned = api.plan_paths(None, api.PlanRequest((Path({str(shelf)!r}),)))\n"
        "print(planned.files, sorted({m.split('.')[0] for m in sys.modules}"
        " & {'pypdf', 'pypdfium2'}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "2 []"


def test_the_windows_loading_of_the_renderer_loads_the_looks_arithmetic_too() -> None:
    """Loaded as the window is made: the first notebook's hints, on the window's thread,
    would import numpy there otherwise (a 0.5 s stall at a fresh window's Open Plan…)."""
    code = (
        "import sys\nfrom transcribe_import.engine import api\n"
        "before = 'numpy' in sys.modules\napi.load_renderer()\n"
        "print(before, 'numpy' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "False True"


def test_every_name_the_api_exports_is_there() -> None:
    from transcribe_import.engine import api

    assert [n for n in api.__all__ if not hasattr(api, n)] == []


def test_item_state_is_one_badge_for_both_faces(corpus: Corpus, tmp_path: Path) -> None:
    shelf = tmp_path / "shelf"
    for name in ("page1.jpg", "page01.jpg", "page2.jpg"):  # page 1 twice: ambiguous
        page_image(shelf / "ambiguous" / name, name)
    for name in ("1.jpg", "2.jpg", "3.jpg"):  # 3 is a copy of 2
        page_image(shelf / "with a copy" / name, "same" if name != "1.jpg" else name)
    page_image(shelf / "plain" / "1.jpg", "plain")
    plan = api.plan_paths(corpus, api.PlanRequest((shelf,))).plan
    by_title = {it.label.rsplit("/", 1)[-1]: it for it in plan.items}
    ambiguous, copied, plain = by_title["ambiguous"], by_title["with a copy"], by_title["plain"]
    # Not validated yet: the order is checked here, and no error is known.
    assert api.item_state(ambiguous, None) is api.PlanItemState.NEEDS_ORDER_DECISION
    assert api.item_state(copied, None) is api.PlanItemState.DUPLICATE_SKIPS
    assert api.item_state(plain, None) is api.PlanItemState.READY
    # Validated: the ambiguous order is one of the report's errors, the others are as they were.
    report = api.validate_plan(corpus, plan)
    states = {name: api.item_state(it, report) for name, it in by_title.items()}
    assert states == {
        "ambiguous": api.PlanItemState.ERROR,
        "with a copy": api.PlanItemState.DUPLICATE_SKIPS,
        "plain": api.PlanItemState.READY,
    }
    # A caller that has checked the order already (the window) says so, and is believed.
    assert api.item_state(plain, None, order_ambiguous=True) is (
        api.PlanItemState.NEEDS_ORDER_DECISION
    )
    assert api.item_state(ambiguous, None, order_ambiguous=False) is api.PlanItemState.READY
