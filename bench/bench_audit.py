"""Benchmark: the fixity audit against a plain sha256 walk of the same files, and its lock holds.

A synthetic corpus (made through the engine's own notebook creation, then files of random
bytes recorded in each project.json as an import records them: the audit never decodes a
page, so rendering real pages would only slow the set-up):
--notebooks notebooks of --files-per-notebook sources of --size-kib KiB each (4 MiB, a
scanned page's JPEG), plus as many renders (half the size).

Measured, after one untimed warm-up of each side (the files in the page cache for both):

  walk    a plain loop: for each file, open, read 1 MiB at a time into hashlib.sha256
  audit   api.run_audit(corpus, AuditBudget()) to the end of a round (every file once), its
          events appended to the log as in production

--rounds times each on the clean corpus, interleaved (walk, audit, walk, audit ...); the
medians and their ratio (goal: audit <= 1.1x the walk). Then --damaged files get a flipped bit
and one more audit confirms each failure under the corpus lock: the longest hold is the audit's
own measure (``AuditResult.longest_lock_ms``, goal <= 100 ms); beside it, a thread takes the
corpus lock every 20 ms through a second handle, as an import would, and its longest wait is
reported.

    PYTHONPATH=app .venv/bin/python bench/bench_audit.py [--notebooks 4]
        [--files-per-notebook 100] [--size-kib 4096] [--damaged 8] [--rounds 5]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

from transcribe_import.engine import api
from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.storage import project
from transcribe_import.engine.storage.corpus import Corpus

CHUNK = 1024 * 1024


def make_corpus(data: Path, notebooks: int, per: int, size: int) -> list[Path]:
    corpus = Corpus.open(data)
    files: list[Path] = []
    for n in range(notebooks):
        nbid = new_id()
        nb_dir = corpus.create_notebook(nbid, f"Bench notebook {n + 1}")
        (nb_dir / "sources").mkdir()
        (nb_dir / "renders").mkdir()
        doc = project.read(nb_dir, nbid)
        for _ in range(per):
            sid, pid, rid = new_id(), new_id(), new_id()
            src = os.urandom(size)
            png = os.urandom(size // 2)
            (nb_dir / f"sources/{sid}.jpg").write_bytes(src)
            (nb_dir / f"renders/{rid}.png").write_bytes(png)
            files += [nb_dir / f"sources/{sid}.jpg", nb_dir / f"renders/{rid}.png"]
            doc["sources"].append(
                {
                    "id": sid,
                    "sha256": hashlib.sha256(src).hexdigest(),
                    "media_type": "image/jpeg",
                    "size": size,
                    "path": f"sources/{sid}.jpg",
                    "page_count": 1,
                }
            )
            render = project.render_record(
                f"renders/{rid}.png", hashlib.sha256(png).hexdigest(), 100, 100, None
            )
            doc["pages"].append(
                {"id": pid, "source_id": sid, "page_index": 0, "render_id": rid, "render": render}
            )
        project.write(nb_dir, doc)
    return files


def damage(files: list[Path], count: int) -> None:
    """Flip a bit in ``count`` files spread over the corpus."""
    step = max(1, len(files) // max(1, count))
    for f in files[::step][:count]:
        raw = bytearray(f.read_bytes())
        raw[len(raw) // 3] ^= 0x04
        f.write_bytes(bytes(raw))


def walk(files: list[Path]) -> float:
    started = time.perf_counter()
    for f in files:
        h = hashlib.sha256()
        with open(f, "rb") as fh:
            while chunk := fh.read(CHUNK):
                h.update(chunk)
        h.hexdigest()
    return time.perf_counter() - started


def audit(corpus: Corpus) -> tuple[float, api.AuditResult]:
    started = time.perf_counter()
    result = api.drive(api.run_audit(corpus, api.AuditBudget()))
    return time.perf_counter() - started, result


class LockProbe:
    """Takes the corpus lock every 20 ms, as an import's short sections would; longest wait."""

    def __init__(self, data: Path) -> None:
        self.corpus = Corpus.open(data)
        self.longest_wait_ms = 0.0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.wait(0.02):
            t0 = time.perf_counter()
            with self.corpus.locked():
                waited = (time.perf_counter() - t0) * 1000
            self.longest_wait_ms = max(self.longest_wait_ms, waited)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--notebooks", type=int, default=4)
    p.add_argument("--files-per-notebook", type=int, default=100)
    p.add_argument("--size-kib", type=int, default=4096)
    p.add_argument("--damaged", type=int, default=8)
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-audit-") as tmp:
        data = Path(tmp) / "data"
        files = make_corpus(data, args.notebooks, args.files_per_notebook, args.size_kib * 1024)
        total = sum(f.stat().st_size for f in files)
        corpus = Corpus.open(data)
        walk(files)
        audit(corpus)  # warm-up: both sides read from the page cache
        walks, audits = [], []
        for _ in range(args.rounds):
            walks.append(walk(files))
            seconds, result = audit(corpus)
            audits.append(seconds)
            assert result.files_checked == len(files) and not result.failures, result
        w, a = statistics.median(walks), statistics.median(audits)
        print(f"files: {len(files)} ({total / 1e6:.0f} MB), clean")
        print(f"walk:  median {w:.3f} s ({total / 1e6 / w:.0f} MB/s)  runs {_runs(walks)}")
        print(f"audit: median {a:.3f} s ({total / 1e6 / a:.0f} MB/s)  runs {_runs(audits)}")
        print(f"ratio audit/walk: {a / w:.3f} (goal <= 1.1)")
        # The fastest run of each is the one the shared machine disturbed least.
        print(f"ratio of the fastest runs: {min(audits) / min(walks):.3f}")
        # Then with damaged files: each failure is confirmed under the corpus lock, while a
        # thread takes the lock every 20 ms as an import would.
        damage(files, args.damaged)
        probe = LockProbe(data)
        probe.thread.start()
        seconds, result = audit(corpus)
        probe.stop.set()
        probe.thread.join()
        print(
            f"with {len(result.failures)} damaged files: audit {seconds:.3f} s; longest "
            f"corpus-lock hold {result.longest_lock_ms:.1f} ms (goal <= 100); longest wait "
            f"for the lock beside it {probe.longest_wait_ms:.1f} ms"
        )
    return 0


def _runs(values: list[float]) -> str:
    return ", ".join(f"{v:.2f}" for v in values)


if __name__ == "__main__":
    raise SystemExit(main())
