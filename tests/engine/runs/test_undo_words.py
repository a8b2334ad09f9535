"""What a revert that fails or is refused says it left, checked against the disk.

"Nothing was changed" only when nothing was: a revert that rolled back an earlier undo
left half done says so before its refusal; a revert cut short by a disk error (every
file-system call failed in turn) says whether it changed nothing, recorded the undo
without moving anything (the next doctor finishes it: the run is undone then), stopped
half way, or undid the run, and each of those is what the disk and the next doctor show.
"""

from __future__ import annotations

import errno
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from transcribe_import.cli.main import main
from transcribe_import.engine import api
from transcribe_import.engine.base.errors import ErrorCode, TranscribeError
from transcribe_import.engine.base.ids import ShortIds
from transcribe_import.engine.doctor import doctor
from transcribe_import.engine.runs.model import RunStatus
from transcribe_import.engine.runs.revert import plan_revert
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.runs.undo import RevertBlocked
from transcribe_import.engine.runs.undo_findings import HalfDone
from transcribe_import.engine.storage import fsio, trash
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import snapshot
from helpers.cli import Exit
from helpers.runs import commit_plan, plan_for
from helpers.shelves import make_shelf


def _committed(corpus: Corpus, tmp_path: Path) -> tuple[list[str], str]:
    plan = plan_for(corpus, make_shelf(tmp_path / "shelf", notebooks=2, pages=2))
    result = commit_plan(corpus, plan)
    assert result.status is RunStatus.COMPLETE
    return [it.notebook_id for it in plan.items], result.run_id


def _rename(corpus: Corpus, notebook_id: str) -> None:
    path = corpus.notebook_dir(notebook_id) / "project.json"
    doc: dict[str, Any] = orjson.loads(path.read_bytes())
    doc["title"] = "Renamed by a person"
    path.write_bytes(orjson.dumps(doc))


@pytest.mark.parametrize("face", ["engine", "cli"])
def test_a_revert_that_rolls_back_a_half_done_one_says_so(
    corpus: Corpus, data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], face: str
):
    """An undo stopped after its first notebook; the second renamed since: the next revert
    puts the first back and is refused, and says both instead of "nothing was changed"."""
    notebooks, run_id = _committed(corpus, tmp_path)
    asked = iter([False, False, True])  # before it begins, before each notebook
    with pytest.raises(TranscribeError) as stopped:
        api.revert(corpus, run_id, lambda: next(asked))
    assert stopped.value.code is ErrorCode.REVERT_STOPPED
    moved = [n for n in notebooks if not corpus.notebook_dir(n).exists()]
    assert len(moved) == 1
    [kept] = [n for n in notebooks if n not in moved]
    _rename(corpus, kept)

    if face == "cli":
        assert main(["--data-dir", str(data_dir), "revert", run_id]) == Exit.PROBLEMS
        said = capsys.readouterr().out
        assert said.startswith(f"Run {run_id[:8]} cannot be undone. Before that, the undo of run ")
    else:
        with pytest.raises(RevertBlocked) as refused:
            api.revert(corpus, run_id)
        said = str(refused.value)
        assert refused.value.earlier is not None
        assert said.startswith(f"Run {run_id[:8]} cannot be undone: ")
        assert f"Before that, the undo of run {run_id[:8]} was interrupted" in said
    assert "nothing was changed" not in said
    assert "it was undone, the run is as it was" in said
    # What it says it did: the notebook it had moved is back, the run is as it was.
    assert corpus.notebook_dir(moved[0]).exists() and corpus.is_registered(moved[0])
    record = RunStore(corpus).load(run_id)
    assert record.status is RunStatus.COMPLETE and record.doc["revert"]["state"] != "requested"

    # Refused again with nothing left half done: now nothing is changed, and it says so.
    before = snapshot(corpus.root / "notebooks")
    with pytest.raises(RevertBlocked) as again:
        api.revert(corpus, run_id)
    assert "nothing was changed" in str(again.value) and again.value.earlier is None
    assert snapshot(corpus.root / "notebooks") == before


def _state(corpus: Corpus, run_id: str) -> tuple[RunStatus, str | None, bool]:
    """The run's status, its pending undo (None: none) and whether that wrote its journal."""
    record = RunStore(corpus).load(run_id)
    revert = record.doc.get("revert") or {}
    pending = revert.get("revert_id") if revert.get("state") == "requested" else None
    journal = pending is not None and (trash.entry_dir(corpus, pending) / "revert.json").exists()
    return record.status, pending, journal


@pytest.mark.slow
@pytest.mark.parametrize(
    ("err", "persistent"),
    [(errno.ENOSPC, False), (errno.EIO, True)],
    ids=["ENOSPC-once", "EIO-persistent"],
)
def test_a_revert_cut_short_by_the_disk_says_what_it_left(
    tmp_path: Path, err: int, persistent: bool
) -> None:
    template = tmp_path / "template"
    notebooks, run_id = _committed(Corpus.open(template), tmp_path)
    trees = snapshot(template / "corpus" / "notebooks")
    said: set[str] = set()
    n = 0
    while True:
        n += 1
        assert n < 1000, "the walk never got past the faults"
        work = tmp_path / f"case{n}"
        shutil.copytree(template, work)
        corpus = Corpus.open(work)
        fault = fsio.FaultPlan(fail_at=n, errno=err, persistent=persistent)
        fsio.install_faults(fault)
        try:
            api.revert(corpus, run_id)
            message = None
        except TranscribeError as exc:
            message = str(exc)
        finally:
            fsio.install_faults(None)
        status, pending, journal = _state(corpus, run_id)
        before = set(said)  # this case's words are what is added to it
        where = f"fault {n} ({fault.ops[-1] if fault.ops else '-'}): {message}"
        if message is None:
            assert status is RunStatus.REVERTED, where
        elif "nothing was changed" in message or "this undo changed nothing" in message:
            said.add("nothing")
            assert status is RunStatus.COMPLETE and pending is None, where
            assert snapshot(work / "corpus" / "notebooks") == trees, where
        elif "recorded but nothing was moved yet" in message:
            said.add("recorded")
            assert pending is not None and not journal, where
            assert snapshot(work / "corpus" / "notebooks") == trees, where
        elif "stopped half way" in message:
            said.add("half")
            assert pending is not None and journal, where
        elif "the run was undone" in message:
            said.add("undone")
            assert status is RunStatus.REVERTED, where
        elif "either finishes it or puts back" in message:
            said.add("unknown")  # the disk failed reading back what was left, too
        else:
            # Refused before it began (a read of the run or its plan failed, and says so):
            # the words claim no change, and none was made.
            said.add("refused")
            assert status is RunStatus.COMPLETE and pending is None, where
            assert snapshot(work / "corpus" / "notebooks") == trees, where
        if (said - before) & {"recorded", "half", "undone"}:
            # What the words promise: the next doctor finishes the undo.
            report = doctor(Corpus.open(work))
            assert _state(Corpus.open(work), run_id)[0] is RunStatus.REVERTED, (where, report)
            assert all(not Path(work / "corpus" / "notebooks" / nb).exists() for nb in notebooks)
        elif "unknown" in said - before:
            # Either way, as the words say: undone by doctor, or as it was.
            doctor(Corpus.open(work))
            after = _state(Corpus.open(work), run_id)
            undone = after[0] is RunStatus.REVERTED
            assert undone or after == (RunStatus.COMPLETE, None, False), where
            if not undone:
                assert snapshot(work / "corpus" / "notebooks") == trees, where
        shutil.rmtree(work)
        if fault.fired == 0:
            break
    assert {"nothing", "recorded", "half"} <= said or persistent, said
    if not persistent:
        assert "undone" in said, said


def test_an_undo_half_done_names_twin_runs_apart() -> None:
    """Its words name each id as the lists do: a run sharing 9 characters with another is
    shown by as many more as tell them apart, which every command takes back."""
    run, twin = "6e5b520f-1de3-44ba-aa95-bd71a942c392", "6e5b520f-1de0-4000-8000-000000000000"
    revert = "40f960c2-0000-4000-8000-000000000000"
    runs, reverts = ShortIds.of([run, twin]), ShortIds.of([revert])
    live = HalfDone(run, revert, live=True, notebook_ids=None).words(runs, reverts)
    assert live == (
        "run 6e5b520f-1de3 is being undone right now by another process (trash entry "
        "40f960c2); its notebooks are half moved until it ends"
    )
    stopped = HalfDone(twin, revert, live=False, notebook_ids=None).words(runs, reverts)
    assert stopped == (
        "the undo of run 6e5b520f-1de0 stopped half way (trash entry 40f960c2); "
        "`transcribe-import revert 6e5b520f-1de0` or `transcribe-import doctor` finishes it"
    )


def test_refusals_of_an_ended_run_name_it_as_the_lists_do(corpus: Corpus, tmp_path: Path):
    """A retry of a complete run, and an undo of a run that added nothing, are refused in
    words that name the run by the id `runs` lists (its 8 characters), not its whole id."""
    _notebooks, run_id = _committed(corpus, tmp_path)
    short = ShortIds.listed(lambda: RunStore(corpus).run_ids())(run_id)
    assert len(short) < len(run_id)
    with pytest.raises(TranscribeError) as refused:
        api.prepare_retry(corpus, run_id)
    said = str(refused.value)
    assert f"Run {short} is complete: only a partial, failed or cancelled run is retried" in said
    assert run_id not in said
    # The same shelf again: every page is already in the corpus, the run adds nothing.
    again = commit_plan(
        corpus, plan_for(corpus, make_shelf(tmp_path / "shelf", notebooks=2, pages=2))
    )
    [blocker] = plan_revert(corpus, again.run_id).blockers
    assert blocker.message == (
        f"Run {RunStore(corpus).short(again.run_id)} added nothing to the corpus, so there is "
        "nothing to undo."
    )
    assert again.run_id not in blocker.message
