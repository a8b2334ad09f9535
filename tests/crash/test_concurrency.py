"""Two real processes at once: different notebooks both succeed; one notebook, one at a time."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson

from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import assert_notebook_whole, page_ids, page_image, request_for, request_to_json

DRIVER = Path(__file__).with_name("driver.py")


def _start(data: Path, req_path: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, str(DRIVER), str(data), "ingest", str(req_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _requests(tmp_path: Path, nbids: list[str], per: int = 6) -> list[tuple[Path, list[str]]]:
    out = []
    for k, nbid in enumerate(nbids):
        files = [page_image(tmp_path / f"s{k}" / f"{i}.jpg", f"{k}-{i}") for i in range(per)]
        req = request_for(nbid, files)
        path = tmp_path / f"req{k}.json"
        path.write_bytes(request_to_json(req))
        out.append((path, page_ids(req)))
    return out


def test_two_processes_into_different_notebooks(tmp_path: Path) -> None:
    data = tmp_path / "data"
    corpus = Corpus.open(data)
    nbids = [new_id(), new_id()]
    for nbid in nbids:
        corpus.create_notebook(nbid, nbid[:8])
    reqs = _requests(tmp_path, nbids)
    procs = [_start(data, path) for path, _ in reqs]
    for p in procs:
        _out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    for nbid, (_, ids) in zip(nbids, reqs, strict=True):
        doc = assert_notebook_whole(Corpus.open(data), nbid)
        assert [p["id"] for p in doc["pages"]] == ids


def test_two_processes_into_one_notebook_serialise(tmp_path: Path) -> None:
    data = tmp_path / "data"
    corpus = Corpus.open(data)
    nbid = new_id()
    corpus.create_notebook(nbid, "shared")
    reqs = _requests(tmp_path, [nbid, nbid])
    procs = [_start(data, path) for path, _ in reqs]
    for p in procs:
        _out, err = p.communicate(timeout=120)
        # The second waits for the ingest lock (10 s) and then goes through.
        assert p.returncode == 0, err.decode()
    doc = assert_notebook_whole(Corpus.open(data), nbid)
    listed = [p["id"] for p in doc["pages"]]
    (_, a), (_, b) = reqs
    # Each transaction landed whole and contiguous, never interleaved with the other.
    assert listed in (a + b, b + a)


def _cli(data: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "transcribe_import", "--data-dir", str(data), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_two_runs_commit_into_one_corpus_at_once(tmp_path: Path) -> None:
    """Two processes, two plans, one corpus: both runs complete, in parallel across notebooks."""
    data = tmp_path / "data"
    plans = []
    for k in range(2):
        for n in range(3):
            for p in range(1, 4):
                page_image(tmp_path / f"shelf{k}" / f"nb {k}-{n}" / f"page {p}.jpg", f"{k}{n}{p}")
        plan = tmp_path / f"plan{k}.json"
        proc = _cli(data, "plan", str(tmp_path / f"shelf{k}"), "-o", str(plan))
        assert proc.wait(timeout=120) == 0, proc.communicate()[1].decode()
        proc.communicate()
        plans.append(plan)
    procs = [_cli(data, "commit", str(plan), "--json") for plan in plans]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err.decode()
        results.append(orjson.loads(out))
    assert [r["status"] for r in results] == ["complete", "complete"]
    assert results[0]["import_run_id"] != results[1]["import_run_id"]
    corpus = Corpus.open(data)
    notebooks = corpus.list_notebooks()
    assert len(notebooks) == 6 and all(n.page_count == 3 for n in notebooks)
    for n in notebooks:
        assert_notebook_whole(corpus, n.notebook_id)
