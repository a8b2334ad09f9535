"""Profile one CLI command in this process (cProfile), for the plan's own Python a page.

    python bench/profile_cli.py OUT.prof -- --data-dir DATA plan SHELF -o PLAN
    python bench/profile_cli.py OUT.prof -- --data-dir DATA validate PLAN
    python bench/profile_cli.py --parts OUT.prof [OUT2.prof ...]

The first form runs the command through the CLI's entry point under cProfile (timed by the
main thread's CPU time, so other threads' work, the scan's reads, is not in it) and prints its
wall and CPU time; ``-`` for OUT runs it without the profiler. With ``TRANSCRIBE_BENCH_SAME=1``
every new id comes from seeded random bytes and the plan's ``created_at`` is fixed, so a plan
made twice is the same file byte for byte (``cmp``): how a cut is shown to change no output.
``--parts`` prints the cumulative seconds of the plan's parts (bench/RESULTS.md).
"""

from __future__ import annotations

import cProfile
import os
import pstats
import random
import resource
import sys
import time

# (what, the file it is in, the function): the parts of a plan made again and of validate.
PARTS = [
    ("the command", "cli/main.py", "_main"),
    ("scan (i38s)", "planning/scan.py", "run_scan"),
    ("build_plan", "planning/planner.py", "build_plan"),
    ("  adapter's group", "adapters/folders.py", "group"),
    ("  _source_for", "planning/planner.py", "_source_for"),
    ("  propose_order", "ordering/names.py", "propose_order"),
    ("cli _with_looks", "cli/runs.py", "_with_looks"),
    ("  api.look_pass", "api/looks.py", "look_pass"),
    ("  with_looks", "planning/look_pass.py", "with_looks"),
    ("save_plan", "planning/plan.py", "save_plan"),
    ("load_plan", "planning/plan.py", "load_plan"),
    ("  plan_from_document", "planning/plan.py", "plan_from_document"),
    ("  nested_deeper_than", "planning/plan.py", "nested_deeper_than"),
    ("fingerprint_of", "planning/plan_document.py", "fingerprint_of"),
    ("  strip_provenance", "planning/plan_document.py", "strip_provenance"),
    ("validate", "planning/validate.py", "validate"),
    ("  lookalikes.find (i38i)", "planning/lookalikes.py", "find"),
    ("  find_ambiguities", "ordering/checks.py", "find_ambiguities"),
    ("  source checks (i38s)", "planning/validate.py", "<genexpr>"),
    ("name_of", "ordering/names.py", "name_of"),
    ("scheme_of", "ordering/names.py", "scheme_of"),
    ("duplex._two_counters", "ordering/duplex.py", "_two_counters"),
    ("new_id", "base/ids.py", "new_id"),
    ("natural_key", "base/text.py", "natural_key"),
]


def parts(paths: list[str]) -> None:
    stats = [pstats.Stats(p).stats for p in paths]  # type: ignore[attr-defined]

    def cumulative(st: dict, where: str, name: str) -> float:
        return max(
            (v[3] for k, v in st.items() if k[0].endswith(where) and k[2] == name), default=0.0
        )

    print("| part | " + " | ".join(os.path.basename(p) for p in paths) + " |")
    print("| --- |" + " --- |" * len(paths))
    for what, where, name in PARTS:
        print(
            f"| {what} | " + " | ".join(f"{cumulative(st, where, name):.3f}" for st in stats) + " |"
        )


def run(out: str, args: list[str]) -> int:
    if os.environ.get("TRANSCRIBE_BENCH_SAME"):
        # Every id is made of os.urandom's 16 bytes (ids.new_id, and uuid.uuid4 before it).
        seeded = random.Random(0)
        os.urandom = seeded.randbytes
        from transcribe_import.engine.base import clock

        clock.utc_now = lambda: "2026-12-06T00:00:00.000000Z"
    from transcribe_import.cli import main

    sys.argv = ["transcribe-import", *args]
    start, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
    # The main thread's own CPU time, not the wall clock: on a shared machine the wall
    # clock counts every wait for a core against whatever function was running.
    profile = cProfile.Profile(time.thread_time) if out != "-" else None
    if profile is not None:
        profile.enable()
    try:
        code = main()
    finally:
        if profile is not None:
            profile.disable()
            profile.dump_stats(out)
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    print(
        f"exit {code}, wall {time.perf_counter() - start:.2f} s, CPU {cpu:.2f} s", file=sys.stderr
    )
    return code


if __name__ == "__main__":
    if sys.argv[1] == "--parts":
        parts(sys.argv[2:])
    else:
        sys.exit(run(sys.argv[1], sys.argv[3:]))
