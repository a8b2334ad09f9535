"""Benchmark: the work a pause and a SIGKILL lose in a 500-page notebook, and what it costs.

Pages: bench_ingest.py's A4 300-dpi JPEG scans (its inputs, made by it), repeated to a
500-page notebook (a source's cost does not depend on its bytes being new), landed as an
import run lands an item: ``ingest_checkpoints`` with the run's stop requests, a lane's
``Pace``, and each source's size. Two sizings, alternating in one run on one machine:

- ``seconds``: checkpoints of about ``CHECKPOINT_SECONDS`` of work (the tree's sizing), a
  pause letting a checkpoint nearly staged land;
- ``pages32``: the sizing before it, checkpoints of 32 pages, a pause rolling back the
  checkpoint in flight (the same code with the time, bytes and grace bounds lifted).

Measured for each: **pause**, three pauses asked at different points of a checkpoint (the
notebook resumed after each, as Resume does): the work lost (the staged time rolled back,
0 when the checkpoint landed) and how long the stop took; **SIGKILL**, a child process
importing the notebook killed four times, each at a random moment of a checkpoint (resumed
in a new process each time, its dead journal recovered first): the work lost, the time
since the checkpoint in flight began; **cost**, the ingest benchmark's workload
(bench_ingest.py: 100 scans in notebooks of 50 and a 25-page scanned PDF) in child
processes, median of ``--repeat``.
The machine's load (``uptime``) is recorded before and after: compare within one run.

    .venv/bin/python bench/bench_stops.py [--pages 500] [--repeat 3] [--no-record]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_ingest import WORK, make_inputs  # noqa: E402 - beside this script
from bench_results import replace_section  # noqa: E402 - beside this script

BENCH = Path(__file__).resolve().parent
SIZINGS = ("seconds", "pages32")
SCANS, PDF_PAGES = 100, 25  # bench_ingest.py's defaults, so its inputs are reused


def _sizing(name: str) -> None:
    """Set the checkpoint sizing of this process (``pages32``: as before time sizing)."""
    from transcribe_import.engine.ingest import checkpoints

    os.environ.pop(checkpoints.ENV_CHECKPOINT_SECONDS, None)
    if name == "pages32":
        os.environ[checkpoints.ENV_CHECKPOINT_SECONDS] = "1e9"  # no time or bytes bound
        checkpoints.PAUSE_GRACE_SECONDS = 0.0


def _request(files: list[Path], title: str) -> tuple[Any, Any]:
    """The import request of one notebook of ``files``, as a plan would make it."""
    from transcribe_import.engine.base.ids import new_id
    from transcribe_import.engine.ingest.transaction import (
        IngestRequest,
        NewNotebook,
        PageSpec,
        SourceSpec,
    )
    from transcribe_import.engine.media import decode as media
    from transcribe_import.engine.storage import fsio

    info = {}
    for p in set(files):
        probe = media.probe(p)
        sha, size = fsio.hash_file(p)
        info[p] = (probe, sha, size)
    specs = []
    for p in files:
        probe, sha, size = info[p]
        pages = tuple(PageSpec(new_id(), new_id(), k) for k in range(probe.page_count))
        specs.append(SourceSpec(new_id(), p, sha, probe.media_type, pages, size=size))
    return IngestRequest(new_id(), tuple(specs)), NewNotebook(title)


def _notebook(pages: int) -> list[Path]:
    jpgs, _pdf = make_inputs(SCANS, PDF_PAGES)
    return [jpgs[k % len(jpgs)] for k in range(pages)]


# -- pause -----------------------------------------------------------------------------------


def bench_pause(sizing: str, pages: int) -> dict[str, Any]:
    """Three pauses, each asked when the checkpoint in flight has staged a share of its pages
    (20 %, 50 %, 80 %) after a first checkpoint of the call landed, the notebook resumed
    after each (as Resume does, the lane's pace kept)."""
    from transcribe_import.engine.ingest.checkpoints import Pace, ingest_checkpoints
    from transcribe_import.engine.ingest.transaction import IngestCancelled
    from transcribe_import.engine.storage.corpus import Corpus

    _sizing(sizing)
    req, create = _request(_notebook(pages), "bench stops")
    shares = [0.2, 0.5, 0.8]
    pauses: list[dict[str, float]] = []
    checkpoint_s: list[float] = []
    checkpoint_pages: list[int] = []
    with tempfile.TemporaryDirectory(dir=WORK) as d:
        corpus = Corpus.open(Path(d))
        pace = Pace()  # a lane's: kept across the resumes, as the executor's lane keeps it
        t_start = time.perf_counter()
        while True:
            state: dict[str, Any] = {"flight": time.perf_counter(), "asked": None}
            share = shares[len(pauses)] if len(pauses) < len(shares) else None
            # Pause only after a first checkpoint of this call, so the sizing is the steady one.
            state["landed"] = 0

            def staged(n: int, state: dict[str, Any] = state, share: float | None = share) -> None:
                if share is None or state["asked"] is not None or not state["landed"]:
                    return
                size = state.get("size")
                if size and n >= max(1, round(share * size)):
                    state["asked"] = time.perf_counter()
                    state["staged_at_ask"] = n

            def landed(cp: Any, state: dict[str, Any] = state) -> None:
                now = time.perf_counter()
                if not cp.earlier:
                    checkpoint_s.append(now - state["flight"])
                    checkpoint_pages.append(cp.pages)
                    state["landed"] += 1
                    if state["asked"] is not None:
                        state["landed_after_ask"] = True
                state["flight"] = now
                # The next checkpoint's size, as the pace cuts it in whole rounds of the two
                # staging threads (for the share to pause at).
                size = pace.budget(32, 2)[0] if sizing == "seconds" else 32
                state["size"] = size - size % 2 if size > 2 else size

            try:
                ingest_checkpoints(
                    corpus,
                    req,
                    create=create,
                    workers=2,
                    should_pause=lambda state=state: state["asked"] is not None,
                    pace=pace,
                    on_staged=staged,
                    on_checkpoint=landed,
                )
                raise SystemExit("the notebook landed before the pauses: use more pages")
            except IngestCancelled:
                stopped = time.perf_counter()
                kept = state.get("landed_after_ask", False)
                pauses.append(
                    {
                        "share": share or 0.0,
                        "lost_s": 0.0 if kept else stopped - state["flight"],
                        "stop_latency_s": stopped - state["asked"],
                        "landed_first": kept,
                    }
                )
                if len(pauses) == len(shares):
                    break  # the rest of the notebook would measure nothing more
        total_s = time.perf_counter() - t_start
    return {
        "pauses": pauses,
        "checkpoint_median_s": statistics.median(checkpoint_s),
        "checkpoint_max_s": max(checkpoint_s),
        "checkpoint_median_pages": statistics.median(checkpoint_pages),
        "total_s": total_s,
    }


# -- SIGKILL ---------------------------------------------------------------------------------


def child_import(sizing: str, corpus_dir: str, request_file: str) -> None:
    """Import the notebook (resuming what landed), printing when each checkpoint lands."""
    import pickle

    from transcribe_import.engine.ingest.checkpoints import ingest_checkpoints
    from transcribe_import.engine.ingest.recovery import recover_journal
    from transcribe_import.engine.ingest.transaction import recover_creation
    from transcribe_import.engine.storage import fsio
    from transcribe_import.engine.storage.corpus import Corpus

    _sizing(sizing)
    req, create = pickle.loads(Path(request_file).read_bytes())
    corpus = Corpus.open(Path(corpus_dir))
    # What a resumed run does first (runs/service.recover_dead_journals).
    recover_creation(corpus, req.notebook_id, create)
    if fsio.exists(corpus.notebook_dir(req.notebook_id)):
        recover_journal(corpus, req.notebook_id)
    print(json.dumps({"started": time.time()}), flush=True)

    def landed(cp: Any) -> None:
        if not cp.earlier:
            print(json.dumps({"landed": time.time(), "pages": cp.pages}), flush=True)

    ingest_checkpoints(corpus, req, create=create, workers=2, on_checkpoint=landed)
    print(json.dumps({"done": time.time()}), flush=True)


def bench_kill(sizing: str, pages: int, kills: int, seed: int) -> dict[str, Any]:
    """``kills`` SIGKILLs of a child importing the notebook, each at a random moment of a
    checkpoint: after the child's first checkpoint landed, within 1.2 times its duration."""
    import pickle

    rnd = random.Random(seed)
    req = _request(_notebook(pages), "bench kill")
    lost: list[float] = []
    with tempfile.TemporaryDirectory(dir=WORK) as d:
        request_file = Path(d) / "request.pickle"
        request_file.write_bytes(pickle.dumps(req))
        corpus_dir = Path(d) / "corpus"
        for _ in range(kills):
            child = subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--kill-child",
                    sizing,
                    str(corpus_dir),
                    str(request_file),
                ],
                stdout=subprocess.PIPE,
            )
            assert child.stdout is not None
            start = json.loads(child.stdout.readline())["started"]
            first = json.loads(child.stdout.readline())
            if "done" in first:
                raise SystemExit("the notebook finished before the kill: use more pages")
            last = first["landed"]
            time.sleep(rnd.uniform(0.0, 1.2) * (last - start))  # a benchmark's own pacing
            child.send_signal(signal.SIGKILL)
            killed = time.time()
            child.wait()
            for line in child.stdout.read().decode().splitlines():
                doc = json.loads(line)
                if "done" in doc:
                    raise SystemExit("the notebook finished before the kill: use more pages")
                last = max(last, doc.get("landed", last))
            lost.append(killed - last)
    return {"lost_s": lost}


# -- cost ------------------------------------------------------------------------------------


def child_cost(sizing: str) -> None:
    """bench_ingest.py's ingest side, with each source's size as a plan records it."""
    from transcribe_import.engine.ingest.checkpoints import Pace, ingest_checkpoints
    from transcribe_import.engine.storage.corpus import Corpus

    _sizing(sizing)
    jpgs, pdf = make_inputs(SCANS, PDF_PAGES)
    groups = [jpgs[k : k + 50] for k in range(0, len(jpgs), 50)] + [[pdf]]
    requests = [_request(g, f"bench {k}") for k, g in enumerate(groups)]
    with tempfile.TemporaryDirectory(dir=WORK) as d:
        corpus = Corpus.open(Path(d))
        pace = Pace()  # one lane, as a run with one notebook at a time
        t0 = time.perf_counter()
        for req, create in requests:
            ingest_checkpoints(corpus, req, create=create, workers=2, pace=pace)
        print(json.dumps({"seconds": time.perf_counter() - t0}))


def run_cost(sizing: str) -> float:
    proc = subprocess.run(
        [sys.executable, __file__, "--cost-child", sizing],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(json.loads(proc.stdout.strip().splitlines()[-1])["seconds"])


# -- the run ---------------------------------------------------------------------------------


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def _pause_child(sizing: str, pages: int) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, __file__, "--pause-child", sizing, "--pages", str(pages)],
        capture_output=True,
        text=True,
        check=True,
    )
    doc: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return doc


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--kills", type=int, default=4)
    ap.add_argument("--no-record", action="store_true")
    ap.add_argument("--reuse", help="a JSON file of measures taken before in this session")
    ap.add_argument("--pause-child", choices=SIZINGS)
    ap.add_argument("--cost-child", choices=SIZINGS)
    ap.add_argument("--kill-child", nargs=3, metavar=("SIZING", "CORPUS", "REQUEST"))
    args = ap.parse_args()
    WORK.mkdir(exist_ok=True)
    if args.pause_child:
        print(json.dumps(bench_pause(args.pause_child, args.pages)))
        return
    if args.cost_child:
        child_cost(args.cost_child)
        return
    if args.kill_child:
        child_import(*args.kill_child)
        return
    make_inputs(SCANS, PDF_PAGES)
    out: dict[str, Any] = {"load_before": _uptime(), "pages": args.pages}
    reused = json.loads(Path(args.reuse).read_text()) if args.reuse else {}
    for sizing in SIZINGS:
        for what, measure in (
            ("pause", lambda s=sizing: _pause_child(s, args.pages)),
            ("kill", lambda s=sizing: bench_kill(s, args.pages, args.kills, seed=21)),
        ):
            key = f"{what}_{sizing}"
            out[key] = reused[key] if key in reused else measure()
            print(sizing, what, out[key], file=sys.stderr)
    cost: dict[str, list[float]] = {s: [] for s in SIZINGS}
    for _ in range(args.repeat):
        for sizing in SIZINGS:
            cost[sizing].append(run_cost(sizing))
            print(sizing, "cost", cost[sizing][-1], file=sys.stderr)
    out["cost_s"] = {s: statistics.median(v) for s, v in cost.items()}
    out["cost_runs_s"] = cost
    out["load_after"] = _uptime()
    print(json.dumps(out, indent=2))
    if not args.no_record:
        record(out, args)


def _pause_row(name: str, p: dict[str, Any]) -> str:
    lost = [x["lost_s"] for x in p["pauses"]]
    latency = [x["stop_latency_s"] for x in p["pauses"]]
    kept = sum(1 for x in p["pauses"] if x["landed_first"])
    return (
        f"| {name} | {p['checkpoint_median_pages']:.0f} | {p['checkpoint_median_s']:.2f} s "
        f"(max {p['checkpoint_max_s']:.2f}) | {', '.join(f'{x:.2f}' for x in lost)} "
        f"(max **{max(lost):.2f}**) | {kept} of {len(lost)} | {max(latency):.2f} s |"
    )


def _kill_row(name: str, k: dict[str, Any]) -> str:
    lost = k["lost_s"]
    return (
        f"| {name} | {', '.join(f'{x:.2f}' for x in lost)} | {statistics.median(lost):.2f} s | "
        f"**{max(lost):.2f} s** |"
    )


def record(s: dict[str, Any], args: argparse.Namespace) -> None:
    import platform

    new, old = s["cost_s"]["seconds"], s["cost_s"]["pages32"]
    section = f"""## Stops (bench/bench_stops.py)

Run {time.strftime("%Y-%m-%d")} on {os.cpu_count()} cores, Python {platform.python_version()}.
The machine is shared and was busy: load `{s["load_before"]}` before,
`{s["load_after"]}` after; compare the rows of this run with each other, not with other
sections. A {s["pages"]}-page notebook of A4 300-dpi JPEG scans (bench_ingest.py's, repeated),
landed as an import run lands it (two staging threads). `seconds`: checkpoints of about
4 s of work, the tree's sizing; `pages32`: checkpoints of 32 pages, the sizing before.

**Pause**, asked when the checkpoint in flight had staged 20, 50 and 80 % of its
pages (the notebook resumed after each): the work lost (staged time rolled back; 0 when
the checkpoint landed before the pause), and the longest stop.

| sizing | pages | a checkpoint took | work lost by each pause (s) | landed first | longest stop |
| --- | --- | --- | --- | --- | --- |
{_pause_row("seconds", s["pause_seconds"])}
{_pause_row("pages32", s["pause_pages32"])}

**SIGKILL** of a process importing the notebook, {args.kills} times, each at a random moment
of a checkpoint (after the process's first checkpoint landed, within 1.2 times the time it
took; resumed in a new process each time): the work lost, the time since the checkpoint in
flight began (its staged pages are rolled back by recovery).

| sizing | work lost by each kill (s) | median | most |
| --- | --- | --- | --- |
{_kill_row("seconds", s["kill_seconds"])}
{_kill_row("pages32", s["kill_pages32"])}

**Cost** on the ingest benchmark's workload ({SCANS} scans in notebooks of 50 and a
{PDF_PAGES}-page scanned PDF, one lane, sizes known as a plan records them), median of
{args.repeat} alternating runs: `seconds` {new:.2f} s, `pages32` {old:.2f} s
(**{new / old - 1:+.1%}**; the target: within 5 %).
"""
    replace_section(BENCH / "RESULTS.md", "## Stops (bench/bench_stops.py)", section)


if __name__ == "__main__":
    main()
