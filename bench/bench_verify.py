"""Benchmark: a rescan's verification (``ink.score``) over recorded pairs, timed and checked.

Issue #38: the verification was 70 % of ``plan``'s CPU on the 500-page shelf. This bench
records every pair of inks a run verifies, with its score, then times ``ink.score`` over
the same pairs in one process and checks every score equal to the recorded one, to the last
bit (float ==): a faster verification must give the same verdicts.

Two steps, the recording made once (under bench/_work/verify/, git-ignored):

  record   every pair ``plan`` verifies on bench_shelf.py's 500-page shelf (the CLI's
           ``plan`` run in this process, its verifications one after another here), and
           every pair tests/engine/planning/test_rescans_proof.py verifies (its labelled
           sets, seeds 11 and 2027, and its numbered notebooks), each ink kept whole
           (float32) with the score it got;
  time     each recording's pairs scored again, in a child process per app/ folder (this
           tree's, and ``--before``'s when given, one after the other in the same run):
           CPU a pair (sparse pairs, both inks with a written part at DETAIL_SIDE, apart
           from the others), and how many scores differ from the recorded ones.

    PYTHONPATH=app .venv/bin/python bench/bench_verify.py record
    PYTHONPATH=app .venv/bin/python bench/bench_verify.py time [--before /tmp/base/app]

The recording pytest run uses this file as a pytest plugin (``-p bench_verify``): with
``BENCH_VERIFY_RECORD`` set, it records every ``ink.score`` made.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
WORK = BENCH / "_work"
OUT = WORK / "verify"
APP = ROOT / "app"

# A recorded ink: its pixels' shape and bytes (float32, compressed), its detail's likewise.
Stored = tuple[tuple[int, int], bytes, tuple[int, int] | None, bytes | None]


class Recorder:
    """Every ``ink.score`` made while it is installed: the inks (each once, by content) and
    the pairs with their scores."""

    def __init__(self) -> None:
        self.inks: dict[str, Stored] = {}
        self.pairs: list[tuple[str, str, float]] = []

    def install(self) -> None:
        from transcribe_import.engine.media import ink

        real = ink.score

        def recorded(a: ink.Ink, b: ink.Ink) -> float:
            value = real(a, b)
            self.pairs.append((self._kept(a), self._kept(b), value))
            return value

        ink.score = recorded  # type: ignore[assignment]

    def _kept(self, found: Any) -> str:
        import numpy as np

        pixels = np.ascontiguousarray(found.pixels, dtype=np.float32)
        detail = None if found.detail is None else np.ascontiguousarray(found.detail, np.float32)
        h = hashlib.sha256(pixels.tobytes())
        h.update(repr(pixels.shape).encode())
        if detail is not None:
            h.update(detail.tobytes())
            h.update(repr(detail.shape).encode())
        key = h.hexdigest()
        if key not in self.inks:
            self.inks[key] = (
                (pixels.shape[0], pixels.shape[1]),
                zlib.compress(pixels.tobytes(), 1),
                None if detail is None else (detail.shape[0], detail.shape[1]),
                None if detail is None else zlib.compress(detail.tobytes(), 1),
            )
        return key

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with tmp.open("wb") as f:
            pickle.dump({"inks": self.inks, "pairs": self.pairs}, f, protocol=5)
        tmp.replace(path)


# The pytest plugin: installed by ``-p bench_verify`` with BENCH_VERIFY_RECORD naming the
# file the recording goes to.
_plugin_recorder: Recorder | None = None


def pytest_configure(config: Any) -> None:
    global _plugin_recorder
    if os.environ.get("BENCH_VERIFY_RECORD"):
        _plugin_recorder = Recorder()
        _plugin_recorder.install()


def pytest_unconfigure(config: Any) -> None:
    if _plugin_recorder is not None:
        _plugin_recorder.save(Path(os.environ["BENCH_VERIFY_RECORD"]))


def record_shelf(pages: int, out: Path) -> None:
    """Every pair ``plan`` verifies on the shelf of ``pages`` pages, verified here."""
    from bench_shelf import make_shelf
    from transcribe_import.cli import main as plan_cli
    from transcribe_import.engine.planning import inks

    root = make_shelf(pages)
    recorder = Recorder()
    recorder.install()
    # The worker processes would score out of reach: every pair is scored here instead, the
    # same value (tests/engine/planning/test_verify_spread.py).
    inks.score_many = lambda pairs, workers=2: None  # type: ignore[assignment]
    with tempfile.TemporaryDirectory() as tmp:
        code = plan_cli(
            ["--data-dir", str(Path(tmp) / "data"), "plan", str(root), "-o", f"{tmp}/plan.json"]
        )
    if code not in (0, 1):
        raise SystemExit(f"plan exited {code}")
    recorder.save(out)
    print(f"{out}: {len(recorder.pairs)} pairs, {len(recorder.inks)} inks")


def record_labelled(out: Path) -> None:
    """Every pair test_rescans_proof.py verifies (its own process, this file its plugin)."""
    env = {
        **os.environ,
        "BENCH_VERIFY_RECORD": str(out),
        "PYTHONPATH": os.pathsep.join([str(APP), str(BENCH), str(ROOT / "tests")]),
    }
    argv = [
        sys.executable,
        "-m",
        "pytest",
        "tests/engine/planning/test_rescans_proof.py",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "bench_verify",
        "-o",
        "faulthandler_timeout=0",
    ]
    subprocess.run(argv, cwd=ROOT, env=env, check=False)
    with out.open("rb") as f:
        got = pickle.load(f)
    print(f"{out}: {len(got['pairs'])} pairs, {len(got['inks'])} inks")


def _ink(stored: Stored) -> Any:
    import numpy as np

    from transcribe_import.engine.media import ink

    shape, pixels, detail_shape, detail = stored
    p = np.frombuffer(zlib.decompress(pixels), dtype=np.float32).reshape(shape).copy()
    d = (
        None
        if detail is None or detail_shape is None
        else np.frombuffer(zlib.decompress(detail), dtype=np.float32).reshape(detail_shape).copy()
    )
    return ink.Ink(p, d)


def time_recording(path: Path) -> dict[str, Any]:
    """Each recorded pair scored again here: CPU a pair, sparse and not apart, and the
    scores that differ from the recorded ones (the largest difference, the verdicts across
    ``SAME_PAGE`` that change)."""
    from transcribe_import.engine.media import ink

    with path.open("rb") as f:
        got = pickle.load(f)
    inks = {k: _ink(v) for k, v in got["inks"].items()}
    cpu: dict[bool, list[float]] = {True: [], False: []}
    differ, flips, largest = 0, 0, 0.0
    t0 = time.process_time()
    for ka, kb, want in got["pairs"]:
        a, b = inks[ka], inks[kb]
        start = time.process_time()
        value = ink.score(a, b)
        cpu[a.detail is not None and b.detail is not None].append(time.process_time() - start)
        if value != want:
            differ += 1
            largest = max(largest, abs(value - want))
            flips += (value >= ink.SAME_PAGE) != (want >= ink.SAME_PAGE)
    total = time.process_time() - t0

    def ms(values: list[float]) -> dict[str, float]:
        if not values:
            return {"pairs": 0, "mean_ms": 0.0, "median_ms": 0.0}
        return {
            "pairs": len(values),
            "mean_ms": 1000 * statistics.fmean(values),
            "median_ms": 1000 * statistics.median(values),
        }

    return {
        "recording": path.name,
        "pairs": len(got["pairs"]),
        "cpu_s": total,
        "sparse": ms(cpu[True]),
        "not_sparse": ms(cpu[False]),
        "differ": differ,
        "flips": flips,
        "largest_difference": largest,
    }


def _timed_in(app: Path, recordings: list[Path]) -> list[dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(app), str(BENCH)])}
    argv = [sys.executable, __file__, "child", *map(str, recordings)]
    done = subprocess.run(argv, env=env, check=True, capture_output=True, text=True)
    out: list[dict[str, Any]] = json.loads(done.stdout)
    return out


def table(sides: dict[str, list[dict[str, Any]]]) -> str:
    rows = [
        "| tree | recording | pairs | CPU | sparse pairs: mean (median) | others: mean (median) "
        "| scores not equal | verdicts changed |",
        "| --- | --- | ---: | ---: | --- | --- | ---: | ---: |",
    ]
    for name, results in sides.items():
        for r in results:
            s, n = r["sparse"], r["not_sparse"]
            rows.append(
                f"| {name} | {r['recording']} | {r['pairs']:,} | {r['cpu_s']:.1f} s "
                f"| {s['pairs']:,}: {s['mean_ms']:.1f} ms ({s['median_ms']:.1f}) "
                f"| {n['pairs']:,}: {n['mean_ms']:.1f} ms ({n['median_ms']:.1f}) "
                f"| {r['differ']} (largest {r['largest_difference']:.3g}) | {r['flips']} |"
            )
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="step", required=True)
    rec = sub.add_parser("record", help="record the pairs (once)")
    rec.add_argument("--pages", type=int, default=500)
    rec.add_argument("--only", choices=["shelf", "labelled"])
    tim = sub.add_parser("time", help="time and check the recorded pairs")
    tim.add_argument("--before", type=Path, help="another tree's app/ folder, timed first")
    tim.add_argument("--repeat", type=int, default=1)
    child = sub.add_parser("child")
    child.add_argument("recordings", type=Path, nargs="+")
    args = ap.parse_args()
    if args.step == "child":
        print(json.dumps([time_recording(p) for p in args.recordings]))
        return
    if args.step == "record":
        if args.only in (None, "shelf"):
            record_shelf(args.pages, OUT / f"shelf-{args.pages}.pkl")
        if args.only in (None, "labelled"):
            record_labelled(OUT / "labelled.pkl")
        return
    recordings = sorted(OUT.glob("*.pkl"))
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load {os.getloadavg()}")
    sides: dict[str, list[dict[str, Any]]] = {}
    for k in range(args.repeat):
        if args.before is not None:
            sides[f"before #{k + 1}"] = _timed_in(args.before, recordings)
        sides[f"this tree #{k + 1}"] = _timed_in(APP, recordings)
    print(table(sides))
    changed = [r for results in sides.values() for r in results if r["differ"]]
    if changed:
        raise SystemExit(f"{len(changed)} recordings scored otherwise than recorded")


if __name__ == "__main__":
    main()
