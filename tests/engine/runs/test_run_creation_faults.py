"""A commit whose run creation hits a disk error says what it left, and leaves no frozen plan.

Every file-system call of the creation (the frozen plan, the run record, the runs' index)
is failed in turn, once and for good: the error either says nothing was changed, and then
no frozen plan and no run are there; or says the run was created, and then committing the
plan again goes on with that run, or says where the plan may be left (the disk failed its
removal too). Then `doctor` tells no untracked run unless the error said it would.
"""

from __future__ import annotations

import errno
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.base.findings import FindingCode
from transcribe_import.engine.doctor import doctor
from transcribe_import.engine.planning.plan import ImportPlan
from transcribe_import.engine.runs.service import prepare_run
from transcribe_import.engine.runs.store import RunStore
from transcribe_import.engine.storage import fsio
from transcribe_import.engine.storage.corpus import Corpus

from helpers.runs import plan_for
from helpers.shelves import make_shelf


@pytest.fixture
def faulty_create(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[fsio.FaultPlan]]:
    """Faults armed only inside ``RunStore.create`` (the plan appended here is used)."""
    plans: list[fsio.FaultPlan] = []
    real = RunStore.create

    def create(self: RunStore, *a, **kw):  # type: ignore[no-untyped-def]
        fsio.install_faults(plans[-1])
        try:
            return real(self, *a, **kw)
        finally:
            fsio.install_faults(None)

    monkeypatch.setattr(RunStore, "create", create)
    yield plans
    fsio.install_faults(None)


@pytest.mark.parametrize("persistent", [False, True], ids=["once", "persistent"])
@pytest.mark.parametrize("err", [errno.ENOSPC, errno.EIO], ids=["ENOSPC", "EIO"])
def test_a_run_creation_cut_short_says_what_it_left(
    tmp_path: Path, faulty_create: list[fsio.FaultPlan], err: int, persistent: bool
) -> None:
    template = tmp_path / "template"
    shelf = make_shelf(tmp_path / "shelf", notebooks=1, pages=2)
    plan: ImportPlan = plan_for(Corpus.open(template), shelf)
    said: set[str] = set()
    n = 0
    while True:
        n += 1
        assert n < 100, "the walk never got past the faults"
        work = tmp_path / f"case{n}"
        shutil.copytree(template, work)
        corpus = Corpus.open(work)
        fault = fsio.FaultPlan(fail_at=n, errno=err, persistent=persistent)
        faulty_create.append(fault)
        try:
            prepare_run(corpus, plan)
            message = None
        except TranscribeError as exc:
            message = str(exc)
        store = RunStore(corpus)
        runs = store.list_runs()
        plans = sorted(p.name for p in store.plans_dir.glob("*.json"))
        if message is None:
            assert len(runs) == 1 and plans == [f"{runs[0].run_id}.json"]
        elif "nothing was changed" in message:
            said.add("nothing")
            assert runs == [] and plans == [], f"fault {n} ({fault.ops[-1]}): {message}"
        elif "was created" in message:
            said.add("created")
            [run] = runs
            assert plans == [f"{run.run_id}.json"] and run.run_id in message
            faulty_create.append(fsio.FaultPlan(fail_at=10**9))  # no fault from here
            assert prepare_run(corpus, plan) == (store.load(run.run_id), True)
        elif "may have been created" in message:
            said.add("unknown")  # the disk failed the look at the record too
            assert len(runs) <= 1 and len(plans) <= 1, message
        else:
            said.add("left")
            assert "may be left at" in message and "doctor" in message, message
            assert runs == [] and len(plans) <= 1
        report = doctor(Corpus.open(work))
        untracked = [f for f in report.findings if f.code is FindingCode.RUN_UNTRACKED]
        if not (message and "may be left at" in message and plans):
            assert untracked == [], f"fault {n} ({fault.ops[-1]}): {message}"
        shutil.rmtree(work)
        if fault.fired == 0:
            break
    assert "nothing" in said
    assert "created" in said or persistent  # a persistent fault fails the look at it too
    if persistent:
        assert {"left", "unknown"} & said  # the removal of the plan, or the look, failed too
