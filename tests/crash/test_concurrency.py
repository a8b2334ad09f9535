"""Two real processes at once: different notebooks both succeed; one notebook, one at a time."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import (
    assert_notebook_whole,
    new_notebook,
    page_ids,
    request_for,
    request_to_json,
)
from helpers.cli import TIMEOUT, Exit, ok, run_cli, start_cli, start_driver
from helpers.shelves import make_pages, make_shelf


def _requests(tmp_path: Path, nbids: list[str], per: int = 6) -> list[tuple[Path, list[str]]]:
    """One saved ingest request per notebook, ``per`` distinct pages each; with its page ids."""
    out = []
    for k, nbid in enumerate(nbids):
        files = make_pages(tmp_path / f"s{k}", per, name="{i}.jpg", start=0, tag=f"{k}-")
        req = request_for(nbid, files)
        path = tmp_path / f"req{k}.json"
        path.write_bytes(request_to_json(req))
        out.append((path, page_ids(req)))
    return out


def test_two_processes_into_different_notebooks(tmp_path: Path) -> None:
    data = tmp_path / "data"
    corpus = Corpus.open(data)
    nbids = [new_notebook(corpus, "first"), new_notebook(corpus, "second")]
    reqs = _requests(tmp_path, nbids)
    procs = [start_driver(data, "ingest", str(path)) for path, _ in reqs]
    for p in procs:
        _out, err = p.communicate(timeout=TIMEOUT)
        assert p.returncode == Exit.OK, err
    for nbid, (_, ids) in zip(nbids, reqs, strict=True):
        doc = assert_notebook_whole(Corpus.open(data), nbid)
        assert [p["id"] for p in doc["pages"]] == ids


def test_two_processes_into_one_notebook_serialise(tmp_path: Path) -> None:
    data = tmp_path / "data"
    nbid = new_notebook(Corpus.open(data), "shared")
    reqs = _requests(tmp_path, [nbid, nbid])
    procs = [start_driver(data, "ingest", str(path)) for path, _ in reqs]
    for p in procs:
        _out, err = p.communicate(timeout=TIMEOUT)
        # The second waits for the ingest lock (10 s) and then goes through.
        assert p.returncode == Exit.OK, err
    doc = assert_notebook_whole(Corpus.open(data), nbid)
    listed = [p["id"] for p in doc["pages"]]
    (_, a), (_, b) = reqs
    # Each transaction landed whole and contiguous, never interleaved with the other.
    assert listed in (a + b, b + a)


@pytest.mark.slow
def test_two_runs_commit_into_one_corpus_at_once(tmp_path: Path) -> None:
    """Two processes, two plans, one corpus: both runs complete, in parallel across notebooks."""
    data = tmp_path / "data"
    plans = []
    for k in range(2):
        shelf = make_shelf(tmp_path / f"shelf{k}", 3, 3, folder=f"nb {k}-{{n}}", tag=f"{k}:")
        plan = tmp_path / f"plan{k}.json"
        ok(run_cli(data, "plan", str(shelf), "-o", str(plan)))
        plans.append(plan)
    procs = [start_cli(data, "commit", str(plan), "--json") for plan in plans]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == Exit.OK, err
        results.append(orjson.loads(out))
    assert [r["status"] for r in results] == ["complete", "complete"]
    assert results[0]["import_run_id"] != results[1]["import_run_id"]
    corpus = Corpus.open(data)
    notebooks = corpus.list_notebooks()
    assert len(notebooks) == 6 and all(n.page_count == 3 for n in notebooks)
    for n in notebooks:
        assert_notebook_whole(corpus, n.notebook_id)
