"""The counted I/O-fault loop: fail the N-th file-system call, N = 1, 2, …, once and for good.

Whatever call fails, the ingest either raises a coded error or completes; after
recovery (faults off) the notebook holds all or none of the new pages, every
listed file matches its hash, and the pages imported earlier are untouched.
"""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

import pytest

from transcribe_import.engine.base.errors import TranscribeError
from transcribe_import.engine.doctor import doctor
from transcribe_import.engine.ingest.transaction import ingest
from transcribe_import.engine.storage import fsio
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import (
    assert_notebook_whole,
    ingest_pages,
    new_notebook,
    page_ids,
    request_for,
)
from helpers.shelves import make_pages
from media_factory import make_image

# Every file-system call of an ingest failed in turn: seconds per case, the whole run only.
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("persistent", [False, True], ids=["once", "persistent"])
@pytest.mark.parametrize("err", [errno.ENOSPC, errno.EIO], ids=["ENOSPC", "EIO"])
def test_fail_every_filesystem_call_in_turn(tmp_path: Path, err: int, persistent: bool) -> None:
    template = tmp_path / "template"
    corpus = Corpus.open(template)
    nbid = new_notebook(corpus, "Ledger")
    earlier = ingest_pages(corpus, nbid, [make_image(tmp_path / "e.jpg", "earlier")])
    files = make_pages(tmp_path, 2, name="n{i}.jpg", start=0)
    files.append(make_image(tmp_path / "n2.png", "new png"))
    req = request_for(nbid, files)

    n, outcomes = 0, set()
    while True:
        n += 1
        assert n < 500, "the loop never got past the faults"
        work = tmp_path / f"run{n}"
        shutil.copytree(template, work)
        plan = fsio.FaultPlan(fail_at=n, errno=err, persistent=persistent)
        fsio.install_faults(plan)
        try:
            ingest(Corpus.open(work), req, workers=1)
            failed = False
        except TranscribeError as exc:
            failed = True
            assert exc.path or exc.problem.item, f"fault {n} ({plan.ops[-1]}): error names nothing"
        finally:
            fsio.install_faults(None)

        doctor(Corpus.open(work))  # recovery, faults off
        doc = assert_notebook_whole(Corpus.open(work), nbid)
        listed = [p["id"] for p in doc["pages"]]
        assert listed[:1] == page_ids(earlier), f"fault {n}: an earlier page was lost"
        assert listed[1:] in ([], page_ids(req)), f"fault {n}: the ingest landed partly"
        outcomes.add("landed" if listed[1:] else "rolled back")
        if failed:
            ingest(Corpus.open(work), req, workers=1)  # the retry completes
            doc = assert_notebook_whole(Corpus.open(work), nbid)
            assert [p["id"] for p in doc["pages"]] == page_ids(earlier) + page_ids(req)
        shutil.rmtree(work)
        if plan.fired == 0:
            break  # the ingest made fewer than n calls: every call has been failed once
    assert n > 30, "suspiciously few file-system calls went through fsio"
    assert "rolled back" in outcomes
