"""Crash safety of import runs, proven with real `transcribe-import` processes.

Every case drives only the installed command line in subprocesses: it plans a small
generated tree, commits it, kills the commit (SIGKILL at a named point of the commit
path, or from outside at a random moment), resumes, and then checks the contract's
guarantees from the outside: the run ends `complete`, every planned page is in the
corpus exactly once under its preallocated ids and in plan order, every listed file
is present with its hash, no journal is left, and `doctor` finds nothing.

A case that kills at a named point asserts the process really died by SIGKILL, so a
renamed or unreachable point fails instead of passing vacuously.
"""

from __future__ import annotations

import hashlib
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import filelock
import orjson
import pytest

from helpers import holding
from helpers.cli import (
    TIMEOUT,
    Exit,
    assert_doctor_clean,
    cli_json,
    notebook_files,
    run_cli,
    start_cli,
)
from helpers.shelves import make_shelf
from media_factory import make_jpeg, make_pdf, make_png

pytestmark = pytest.mark.crash

TERMINAL = {"complete", "partial", "failed", "cancelled", "cancelled_with_commits"}


# -- driving the command line ----------------------------------------------------------------
# run_cli, start_cli and cli_json are the shared runners (tests/helpers/cli.py).


def the_run(data: Path) -> dict[str, Any]:
    """The one run of this corpus as `runs --json` lists it."""
    runs = cli_json(data, "runs", "--json")["runs"]
    assert len(runs) == 1, f"expected exactly one import run, found {len(runs)}"
    return runs[0]


def read_record(data: Path, run_id: str) -> dict[str, Any]:
    """The run record itself (what `show` prints), cheap enough to poll."""
    return orjson.loads((data / "corpus" / "import-runs" / f"{run_id}.json").read_bytes())


def wait_for(
    predicate: Callable[[], str | None], what: str, proc: subprocess.Popen[str], timeout: float = 60
) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        if proc.poll() is not None:
            raise AssertionError(f"the process ended ({proc.returncode}) before {what}")
        # Another process's files: no event reaches this one, so it looks again, to a deadline.
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def run_id_when_committing(data: Path, proc: subprocess.Popen[str], committed: int = 1) -> str:
    """Wait until the commit's run record shows ``committed`` items (``0``: merely running)."""
    runs_dir = data / "corpus" / "import-runs"

    def ready() -> str | None:
        for p in runs_dir.glob("*.json") if runs_dir.exists() else []:
            if p.name == "index.json" or p.name.endswith(".plan.json"):
                continue
            try:
                doc = orjson.loads(p.read_bytes())
            except (OSError, orjson.JSONDecodeError):
                continue
            done = sum(d["state"] == "committed" for d in doc["items"])
            log = p.with_name(f"{p.stem}.outcomes.jsonl")  # outcomes since the last compaction
            if log.exists():
                done += log.read_bytes().count(b'"state":"committed"')
            if doc["status"] == "running" and done >= committed:
                return str(doc["import_run_id"])
        return None

    return wait_for(ready, f"{committed} committed item(s)", proc)


# -- the tree and its plan -------------------------------------------------------------------


def _small_tree(root: Path) -> None:
    """Four notebooks, 13 pages; only "Field notes" is clean, the others need a decision."""
    for i in (1, 2, 3):  # clean numbering, no EXIF: valid as proposed
        make_jpeg(root / "box" / "Field notes" / f"page {i}.jpg", (90, 120), label=f"F{i}")
    for i in (1, 2, 4):  # page 3 missing: a validate error until accepted
        make_jpeg(root / "box" / "Letters" / f"p{i}.jpg", (90, 120), label=f"L{i}")
    make_png(root / "box" / "Sketches" / "scan 1.png", (100, 80), label="S1")
    for i in (2, 3, 10):  # 10 after 3 in natural order; a gap until accepted
        make_jpeg(root / "box" / "Sketches" / f"scan {i}.jpg", (90, 120), label=f"S{i}")
    # Capture times against the name order: conflicting cues until accepted.
    for i, stamp in ((1, "2021:05:01 10:00:03"), (2, "2021:05:01 10:00:01"), (3, None)):
        make_jpeg(
            root / "box" / "Diary" / f"d{i}.jpg", (90, 120), datetime_original=stamp, label=f"D{i}"
        )


def _big_tree(root: Path) -> None:
    """Enough work for a commit with --workers 1 to be caught in the middle: 8 x 4 pages."""
    make_shelf(root, 8, 4, folder="Notebook {n}", size=(600, 800))


def make_plan(tmp: Path, tree: Path) -> Path:
    """`plan`, then `validate`; each item with an ordering error is resolved by `order --accept`."""
    scratch = tmp / "planning-data"
    plan = tmp / "plan.json"
    proc = run_cli(scratch, "plan", str(tree), "-o", str(plan))
    assert proc.returncode == Exit.OK, proc.stderr
    report = orjson.loads(run_cli(scratch, "validate", str(plan), "--json").stdout)
    for item_id in dict.fromkeys(
        p["item_id"] for p in report["problems"] if p["severity"] == "error"
    ):
        proc = run_cli(scratch, "order", str(plan), item_id, "--accept")
        assert proc.returncode == Exit.OK, proc.stderr
    cli_json(scratch, "validate", str(plan), "--json", rc=Exit.OK)
    return plan


@pytest.fixture(scope="module")
def small_plan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("small")
    _small_tree(tmp / "tree")
    plan = make_plan(tmp, tmp / "tree")
    items = orjson.loads(plan.read_bytes())["items"]
    assert len(items) == 4 and sum(len(pages_of(it)) for it in items) == 13
    # Only the clean folder was valid as proposed; the others needed `order --accept`.
    resolved = {it["title"]: it["ordering"]["resolved"] for it in items}
    assert resolved == {"Diary": True, "Field notes": False, "Letters": True, "Sketches": True}
    return plan


@pytest.fixture(scope="module")
def big_plan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("big")
    _big_tree(tmp / "tree")
    return make_plan(tmp, tmp / "tree")


# -- what the corpus must look like ----------------------------------------------------------


def imported(item: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in item["sources"] if not s["excluded"] and s["duplicate"] is None]


def pages_of(item: dict[str, Any]) -> list[tuple[str, str, str, int]]:
    """(page_id, render_id, source_id, page_index) in the planned notebook order."""
    return [
        (p["page_id"], p["render_id"], s["source_id"], p["page_index"])
        for s in imported(item)
        for p in s["pages"]
    ]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def notebook_whole(nb_dir: Path) -> dict[str, Any]:
    """project.json loads; every file it lists is there with its hash; nothing else is."""
    doc = orjson.loads((nb_dir / "project.json").read_bytes())
    listed = {"project.json", ".ingest.lock"}
    for s in doc["sources"]:
        assert _sha(nb_dir / s["path"]) == s["sha256"], f"{nb_dir.name}: {s['path']} damaged"
        listed.add(s["path"])
    for p in doc["pages"]:
        r = p["render"]
        assert _sha(nb_dir / r["path"]) == r["sha256"], f"{nb_dir.name}: {r['path']} damaged"
        listed.add(r["path"])
    present = {f.relative_to(nb_dir).as_posix() for f in nb_dir.rglob("*") if f.is_file()}
    assert not (nb_dir / ".ingest-journal.json").exists(), f"{nb_dir.name}: journal left behind"
    assert present <= listed, f"{nb_dir.name}: stray files {sorted(present - listed)}"
    return doc


def registered(data: Path) -> Counter[str]:
    index = data / "corpus" / "index.jsonl"
    lines = index.read_bytes().splitlines() if index.exists() else []
    return Counter(orjson.loads(line)["notebook_id"] for line in lines if line.strip())


def corpus_notebooks(data: Path) -> dict[str, dict[str, Any]]:
    """Every notebook folder of the corpus, checked whole; no hidden leftovers beside them."""
    nbs = data / "corpus" / "notebooks"
    names = sorted(p.name for p in nbs.iterdir()) if nbs.exists() else []
    assert not [n for n in names if n.startswith(".")], f"leftover folders {names}"
    return {n: notebook_whole(nbs / n) for n in names}


def assert_items_committed(data: Path, items: list[dict[str, Any]]) -> None:
    """Each item's notebook holds exactly its planned pages, ids and order, registered once."""
    notebooks = corpus_notebooks(data)
    index = registered(data)
    for item in items:
        nbid = item["notebook_id"]
        assert nbid in notebooks, f"notebook of {item['title']} missing"
        doc = notebooks[nbid]
        assert index[nbid] == 1, f"{item['title']} registered {index[nbid]} times"
        assert doc["title"] == item["title"]
        want_sources = {s["source_id"]: s["sha256"] for s in imported(item)}
        got_sources = {s["id"]: s["sha256"] for s in doc["sources"]}
        assert got_sources == want_sources, f"{item['title']}: sources differ from the plan"
        got_pages = [
            (p["id"], p["render_id"], p["source_id"], p["page_index"]) for p in doc["pages"]
        ]
        assert got_pages == pages_of(item), f"{item['title']}: pages differ from the plan"


def assert_run_landed_exactly(data: Path, plan: Path) -> dict[str, Any]:
    """Every planned page committed exactly once with its preallocated ids, in plan order."""
    plan_doc = orjson.loads(plan.read_bytes())
    notebooks = corpus_notebooks(data)
    assert set(notebooks) == {it["notebook_id"] for it in plan_doc["items"]}, "extra notebooks"
    assert_items_committed(data, plan_doc["items"])
    all_pages = Counter(p["id"] for doc in notebooks.values() for p in doc["pages"])
    planned = Counter(pg[0] for it in plan_doc["items"] for pg in pages_of(it))
    assert all_pages == planned, "a page is missing or doubled across the corpus"
    return plan_doc


def assert_complete(data: Path, plan: Path, run_id: str) -> dict[str, Any]:
    show = cli_json(data, "show", run_id, "--json")
    assert show["status"] == "complete"
    assert {d["state"] for d in show["items"]} == {"committed"}
    plan_doc = orjson.loads(plan.read_bytes())
    by_item = {d["item_id"]: d for d in show["items"]}
    for item in plan_doc["items"]:
        outcome = by_item[item["item_id"]]
        assert outcome["notebook_id"] == item["notebook_id"]
        assert sorted(outcome["source_ids"]) == sorted(s["source_id"] for s in imported(item))
    terminal = [h for h in show["history"] if h["event"] in TERMINAL]
    assert [h["event"] for h in terminal] == ["complete"], "terminal status written twice"
    assert_run_landed_exactly(data, plan)
    assert not list((data / "corpus").rglob(".ingest-journal.json"))
    assert_doctor_clean(data)
    return show


# -- 1. SIGKILL at every named point a commit passes ------------------------------------------

COMMIT_POINTS = [
    # A notebook is created by its first checkpoint, in a hidden folder renamed into place.
    "create.first_checkpoint.after_claim",
    "create.first_checkpoint.before_rename",
    "create.before_register",
    "register.after_append",
    "ingest.after_claim",
    "ingest.stage.after_source:2",
    "ingest.after_stage",
    "ingest.promote.after_file:3",
    "ingest.after_promote",
    "ingest.after_manifest",
    "ingest.after_journal_removed",
    "run.before_item_outcome",  # the ingest committed, its outcome not yet recorded
    "run.after_item_outcome:2",  # boundary 6
    "run.after_terminal",  # boundary 7
]


@pytest.mark.parametrize("point", COMMIT_POINTS)
def test_kill_commit_at_named_point_then_resume(tmp_path: Path, small_plan: Path, point: str):
    data = tmp_path / "data"
    proc = run_cli(data, "commit", str(small_plan), crash_at=point)
    assert proc.returncode == Exit.KILLED, f"{point} was never reached: {proc.stderr}"
    run = the_run(data)
    run_id = run["import_run_id"]

    if point == "run.after_terminal":
        # The terminal status won: resume says so with its exit code (complete: 0), never
        # reopens it, and changes nothing.
        assert run["status"] == "complete"
        before = read_record(data, run_id)
        proc = run_cli(data, "resume", run_id)
        assert proc.returncode == Exit.OK, proc.stderr
        assert "had already ended: complete" in proc.stdout
        assert "never reopened" in proc.stdout
        assert read_record(data, run_id) == before
        show = assert_complete(data, small_plan, run_id)
        assert show["attempt"] == 1
        assert "resumed" not in [h["event"] for h in show["history"]]
        return

    assert run["status"] == "running" and run["interrupted"], run
    result = cli_json(data, "resume", run_id, "--json")
    assert result["status"] == "complete" and not result["already_done"]
    show = assert_complete(data, small_plan, run_id)
    assert show["attempt"] == 2
    events = [h["event"] for h in show["history"]]
    assert events[:3] == ["created", "started", "resumed"], events
    assert {h["attempt"] for h in show["history"] if h["event"] == "resumed"} == {2}


# -- 2. SIGKILL from outside at random moments ------------------------------------------------


@pytest.fixture(scope="module")
def commit_seconds(tmp_path_factory: pytest.TempPathFactory, small_plan: Path) -> float:
    """How long an uninterrupted commit of the small plan takes here, process start to exit."""
    data = tmp_path_factory.mktemp("timing") / "data"
    started = time.monotonic()
    assert cli_json(data, "commit", str(small_plan), "--json")["status"] == "complete"
    return time.monotonic() - started


MAX_KILLS = 4


def kill_until_done(data: Path, plan: Path, rng: random.Random, scale: float) -> int:
    """Commit, then resume, each killed at a random moment, until the run is done; kills made.

    A process that ends on its own between the moment drawn and the kill (on a loaded
    machine the kill can come late) was not killed: it is a commit that ran to its end,
    and is checked as one, by its exit status and its --json output.
    """
    kills = 0
    run_id: str | None = None
    for _ in range(MAX_KILLS + 1):
        if run_id is None:
            runs = cli_json(data, "runs", "--json")["runs"] if (data / "corpus").exists() else []
            assert len(runs) <= 1, "a retried commit of the same plan made a second run"
            run_id = runs[0]["import_run_id"] if runs else None
        if run_id is not None and read_record(data, run_id)["status"] in TERMINAL:
            break  # killed after its terminal status was written: nothing left to do
        # Before its run record exists the commit is simply made again: same plan, same ids.
        args = ("resume", run_id, "--json") if run_id else ("commit", str(plan), "--json")
        proc = start_cli(data, *args)
        last = kills == MAX_KILLS  # the last one runs to its end
        try:
            out, err = proc.communicate(timeout=TIMEOUT if last else rng.uniform(0.05, 1.5) * scale)
        except subprocess.TimeoutExpired:
            proc.kill()  # no signal is sent if the process has exited meanwhile
            out, err = proc.communicate()
            if last:
                raise AssertionError(f"{args[0]} did not end within {TIMEOUT} s: {err}") from None
            if proc.returncode == Exit.KILLED:
                kills += 1
                continue
        assert_ran_to_completion(proc.returncode, out, err, plan)
        break
    return kills


def assert_ran_to_completion(returncode: int | None, out: str, err: str, plan: Path) -> None:
    """A commit or resume that ended on its own: exit 0, and its --json output tells the
    run complete with every planned item committed, each with all its pages, once."""
    assert returncode == Exit.OK, (returncode, err)
    result = orjson.loads(out)
    assert result["status"] == "complete", result
    items = orjson.loads(plan.read_bytes())["items"]
    outcomes = {d["item_id"]: d for d in result["items"]}
    assert len(outcomes) == len(result["items"]), "an item reported twice"
    assert set(outcomes) == {it["item_id"] for it in items}, "items differ from the plan"
    for item in items:
        outcome = outcomes[item["item_id"]]
        assert outcome["state"] == "committed", outcome
        assert outcome["notebook_id"] == item["notebook_id"]
        assert sorted(outcome["source_ids"]) == sorted(s["source_id"] for s in imported(item))
        assert outcome["page_count"] == len(pages_of(item)), outcome
    assert result["pages_committed"] == sum(len(pages_of(it)) for it in items)


@pytest.mark.parametrize("seed", range(6))
def test_kill_at_random_moments_until_done(
    tmp_path: Path, small_plan: Path, commit_seconds: float, seed: int
) -> None:
    rng = random.Random(seed)
    # Moments drawn from 0.05-1.5 s, squeezed into the span of a whole commit on this
    # machine so that kills land from process start to the last write.
    scale = min(1.0, 0.8 * commit_seconds / 1.5)
    for trial in range(5):
        data = tmp_path / f"data{trial}"
        started = time.monotonic()
        if kill_until_done(data, small_plan, rng, scale):
            break
        # The commit outran the first kill: that corpus proved nothing. The machine is
        # faster now than when commit_seconds was taken (a load that came and went), so
        # draw again within the span of the commit just seen.
        scale = min(scale, 0.8 * (time.monotonic() - started) / 1.5)
    else:
        pytest.fail("no kill ever landed before the commit finished")
    run_id = the_run(data)["import_run_id"]
    assert_complete(data, small_plan, run_id)

    # Committing the same plan again is a no-op: no new run, not a byte changed.
    before = notebook_files(data)
    again = cli_json(data, "commit", str(small_plan), "--json")
    assert again["already_done"] and again["status"] == "complete"
    assert the_run(data)["import_run_id"] == run_id
    assert notebook_files(data) == before


def test_a_commit_that_ends_before_its_kill_is_checked_not_failed(
    tmp_path: Path, small_plan: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race of a loaded machine, made certain: the moment drawn for the kill passes,
    but the commit ends before the kill reaches it. That commit is not a kill: it is done,
    and its output and the corpus must show the run complete."""

    real_start = start_cli

    def start_and_finish_first(data: Path, *args: str) -> subprocess.Popen[str]:
        proc = real_start(data, *args)
        communicate, wait = proc.communicate, proc.wait
        ended: list[tuple[str, str]] = []
        ending = []  # set while the real communicate runs (it calls wait itself)

        def drawn(timeout: float | None) -> bool:  # a moment drawn for a kill
            return not ending and timeout is not None and timeout < TIMEOUT

        def end_then_time_out(timeout: float) -> None:
            if not ended:
                ending.append(True)
                ended.append(communicate(timeout=TIMEOUT))  # the process ends first...
                ending.clear()
            raise subprocess.TimeoutExpired(proc.args, timeout)  # ...then time is up

        def late_communicate(
            input: str | None = None, timeout: float | None = None
        ) -> tuple[str, str]:
            if drawn(timeout):
                end_then_time_out(timeout)
            return ended[0] if ended else communicate(input, timeout)

        def late_wait(timeout: float | None = None) -> int:
            if drawn(timeout):
                end_then_time_out(timeout)
            return wait(timeout)

        proc.communicate, proc.wait = late_communicate, late_wait
        return proc

    monkeypatch.setattr(sys.modules[__name__], "start_cli", start_and_finish_first)
    data = tmp_path / "data"
    assert kill_until_done(data, small_plan, random.Random(0), scale=1.0) == 0
    assert_complete(data, small_plan, the_run(data)["import_run_id"])


def test_resume_while_the_run_is_held_exits_5(tmp_path: Path, small_plan: Path) -> None:
    data = tmp_path / "data"
    proc = run_cli(data, "commit", str(small_plan), crash_at="ingest.after_claim")
    assert proc.returncode == Exit.KILLED
    run_id = the_run(data)["import_run_id"]
    before = read_record(data, run_id)
    journals = sorted((data / "corpus").rglob(".ingest-journal.json"))
    assert journals, "the crash should have left a journal for the resume to recover"

    # Another process executing the run holds its run lock.
    lock = filelock.FileLock(data / "corpus" / "import-runs" / f"{run_id}.lock")
    with lock.acquire(timeout=5):
        proc = run_cli(data, "resume", run_id)
        assert proc.returncode == Exit.LOCKED, proc.stderr
        # The run named as every list names it (its short id), with the command that stops it.
        assert f"Run {run_id[:8]} is being executed by another process" in proc.stderr
        assert f"transcribe-import cancel {run_id[:8]}" in proc.stderr
        proc = run_cli(data, "commit", str(small_plan))  # the same plan continues the same run
        assert proc.returncode == Exit.LOCKED, proc.stderr
        # Standing down touched nothing: not the record, not the dead journal.
        assert read_record(data, run_id) == before
        assert sorted((data / "corpus").rglob(".ingest-journal.json")) == journals

    cli_json(data, "resume", run_id, "--json")
    assert_complete(data, small_plan, run_id)


# -- 3. cancellation from another process -----------------------------------------------------


def split_by_state(
    plan_doc: dict[str, Any], show: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    states = {d["item_id"]: d["state"] for d in show["items"]}
    assert set(states.values()) == {"committed", "cancelled_pending"}, states
    done = [it for it in plan_doc["items"] if states[it["item_id"]] == "committed"]
    rest = [it for it in plan_doc["items"] if states[it["item_id"]] == "cancelled_pending"]
    assert done and rest, "the cancel should land in the middle of the run"
    return done, rest


def assert_cancelled_items_left_no_pages(data: Path, rest: list[dict[str, Any]]) -> None:
    """Nothing a cancelled item planned is in the corpus; at most the notebook the item in
    progress had created is left, empty (test_..._leaves_no_notebook pins that gap)."""
    notebooks = corpus_notebooks(data)
    left = [it for it in rest if it["notebook_id"] in notebooks]
    assert len(left) <= 1, "notebooks exist for items that never started"
    for it in left:
        doc = notebooks[it["notebook_id"]]
        assert doc["sources"] == [] and doc["pages"] == [], f"{it['title']}: cancelled, has pages"
    planned = {pg[0] for it in rest for pg in pages_of(it)}
    held = {p["id"] for doc in notebooks.values() for p in doc["pages"]}
    assert not planned & held, "a page of a cancelled item is in the corpus"


def test_cancel_from_another_process_keeps_committed_notebooks(
    tmp_path: Path, big_plan: Path
) -> None:
    data = tmp_path / "data"
    # Held where it stops itself, just after its first item's outcome is written and the
    # corpus lock let go: what the test does next happens, for certain, in the middle of the
    # run, and `cancel` finds the corpus lock free. (A SIGSTOP sent from here could land a
    # moment after the process took the lock again: CI saw `cancel` refused for that.)
    env = holding.stop_at("run.after_item_outcome")
    commit = start_cli(data, "commit", str(big_plan), "--workers", "1", "--json", env=env)
    try:
        holding.wait_stopped(commit)
        run_id = run_id_when_committing(data, commit, committed=1)
        shown = cli_json(data, "show", run_id, "--json")
        assert sum(d["state"] == "committed" for d in shown["items"]) >= 1
        assert shown["status"] == "running"
        # While it executes, nobody else may: a parallel resume or commit is refused with 5.
        proc = run_cli(data, "resume", run_id)
        assert proc.returncode == Exit.LOCKED, proc.stderr
        proc = run_cli(data, "commit", str(big_plan))
        assert proc.returncode == Exit.LOCKED, proc.stderr
        proc = run_cli(data, "cancel", run_id)
        assert proc.returncode == Exit.OK, proc.stderr
        assert "Cancel requested" in proc.stdout
        assert "every page already in the corpus stays" in proc.stdout
        holding.go_on(commit)
        out, err = commit.communicate(timeout=60)
    finally:
        if commit.poll() is None:
            commit.send_signal(signal.SIGCONT)
            commit.kill()
            commit.communicate()
    assert commit.returncode == Exit.CANCELLED, err
    assert orjson.loads(out)["status"] == "cancelled_with_commits"

    show = cli_json(data, "show", run_id, "--json")
    assert show["status"] == "cancelled_with_commits"
    assert "cancel_requested" in [h["event"] for h in show["history"]]
    plan_doc = orjson.loads(big_plan.read_bytes())
    done, rest = split_by_state(plan_doc, show)
    # Committed notebooks stay whole: a cancel never rolls back.
    assert_items_committed(data, done)
    assert_cancelled_items_left_no_pages(data, rest)
    assert_doctor_clean(data)
    # Never reopened: resume says how it ended, with that status's exit code.
    assert run_cli(data, "resume", run_id).returncode == Exit.CANCELLED


# Where the first item stood when its commit died, and whether its pages landed there.
CANCEL_AFTER_CRASH = [
    # Every item of the small plan creates its notebook: its first (only) checkpoint runs in
    # a hidden creation folder, so a kill before that folder is renamed in loses the
    # checkpoint in flight (never shown), and one after it counts as landed.
    ("ingest.after_claim", False),  # journal `staging` in the creation folder
    ("ingest.after_stage", False),  # journal `promoting`, but in the creation folder
    ("create.first_checkpoint.before_rename", False),  # whole, but never shown
    ("create.before_register", True),  # boundary 1: renamed in, registered by the cancel
    ("run.before_item_outcome", True),  # boundary 6's window: landed, outcome not written
]


@pytest.mark.parametrize(("point", "landed"), CANCEL_AFTER_CRASH)
def test_cancel_an_interrupted_run(tmp_path: Path, small_plan: Path, point: str, landed: bool):
    """Nobody executes the run: cancel ends it there and then, with the honest status."""
    data = tmp_path / "data"
    proc = run_cli(data, "commit", str(small_plan), "--workers", "1", crash_at=point)
    assert proc.returncode == Exit.KILLED, f"{point} was never reached: {proc.stderr}"
    run_id = the_run(data)["import_run_id"]

    proc = run_cli(data, "cancel", run_id)
    assert proc.returncode == Exit.CANCELLED, proc.stderr
    show = cli_json(data, "show", run_id, "--json")
    plan_doc = orjson.loads(small_plan.read_bytes())
    first, *rest = plan_doc["items"]
    states = {d["item_id"]: d["state"] for d in show["items"]}
    assert [states[it["item_id"]] for it in rest] == ["cancelled_pending"] * len(rest)
    if landed:
        # Pages in the corpus are a commit, whether or not its outcome was written.
        assert show["status"] == "cancelled_with_commits"
        assert states[first["item_id"]] == "committed"
        assert_items_committed(data, [first])
    else:
        # Not cancelled_with_commits: nothing had landed, and nothing of it is left.
        assert show["status"] == "cancelled"
        assert states[first["item_id"]] == "cancelled_pending"
        for doc in corpus_notebooks(data).values():
            assert doc["sources"] == [] and doc["pages"] == [], "a cancelled item left pages"
    planned = {it["notebook_id"] for it in rest}
    assert not planned & set(corpus_notebooks(data)), "an item never started has a notebook"
    assert not list((data / "corpus").rglob(".ingest-journal.json")), "a dead journal was left"
    assert_doctor_clean(data)
    # A terminal run is never reopened: resume says how it ended, with its exit code.
    assert run_cli(data, "resume", run_id).returncode == Exit.CANCELLED


def test_cancel_before_anything_committed_is_cancelled_and_adds_no_page(
    tmp_path: Path, small_plan: Path
) -> None:
    """No notebook before its first pages: a run killed in its first item's first checkpoint
    and then cancelled leaves no notebook at all, and says no page was added."""
    data = tmp_path / "data"
    proc = run_cli(data, "commit", str(small_plan), "--workers", "1", crash_at="ingest.after_claim")
    assert proc.returncode == Exit.KILLED
    run_id = the_run(data)["import_run_id"]
    cancel = run_cli(data, "cancel", run_id)
    assert cancel.returncode == Exit.CANCELLED
    assert "no page was added" in cancel.stdout
    show = cli_json(data, "show", run_id, "--json")
    assert show["status"] == "cancelled"
    assert [d["pages_landed"] for d in show["items"]] == [0] * len(show["items"])
    assert cli_json(data, "notebooks", "--json")["notebooks"] == []
    assert registered(data) == Counter() and corpus_notebooks(data) == {}
    assert_doctor_clean(data)


def test_kill_in_the_claims_journal_write_leaves_nothing_behind(
    tmp_path: Path, small_plan: Path
) -> None:
    """Killed while the first journal is being written: no journal exists to recover from."""
    data = tmp_path / "data"
    # The 8th atomic write of a fresh commit with one worker: corpus.json, plan snapshot,
    # run record and index, the attempt's record and index, project.json, then the claim.
    point = "atomic_write.before_replace:8"
    proc = run_cli(data, "commit", str(small_plan), "--workers", "1", crash_at=point)
    assert proc.returncode == Exit.KILLED
    [nb_dir] = (data / "corpus" / "notebooks").iterdir()
    temps = [p.name for p in nb_dir.iterdir() if p.name.startswith("..ingest-journal.json.tmp")]
    assert temps and not (nb_dir / ".ingest-journal.json").exists(), "not the claim's write"
    run_id = the_run(data)["import_run_id"]
    cli_json(data, "resume", run_id, "--json")
    assert_complete(data, small_plan, run_id)  # no stray temp, no orphan staging folder


# -- 4. Ctrl-C and SIGTERM --------------------------------------------------------------------


def test_ctrl_c_cancels_the_run(tmp_path: Path, big_plan: Path) -> None:
    data = tmp_path / "data"
    commit = start_cli(data, "commit", str(big_plan), "--workers", "1", "--json")
    try:
        run_id = run_id_when_committing(data, commit, committed=1)
        commit.send_signal(signal.SIGINT)
        out, err = commit.communicate(timeout=60)
    finally:
        if commit.poll() is None:
            commit.kill()
            commit.communicate()
    assert commit.returncode == Exit.CANCELLED, err
    show = cli_json(data, "show", run_id, "--json")
    assert show["status"] == "cancelled_with_commits"
    assert orjson.loads(out)["status"] == show["status"]
    plan_doc = orjson.loads(big_plan.read_bytes())
    done, rest = split_by_state(plan_doc, show)
    assert_items_committed(data, done)
    assert_cancelled_items_left_no_pages(data, rest)
    assert_doctor_clean(data)


def test_sigterm_interrupts_and_resume_finishes(tmp_path: Path, big_plan: Path) -> None:
    data = tmp_path / "data"
    commit = start_cli(data, "commit", str(big_plan), "--workers", "1", "--json")
    try:
        run_id = run_id_when_committing(data, commit, committed=1)
        commit.send_signal(signal.SIGTERM)
        out, err = commit.communicate(timeout=60)
    finally:
        if commit.poll() is None:
            commit.kill()
            commit.communicate()
    assert commit.returncode == Exit.INTERRUPTED, err
    assert orjson.loads(out)["paused"] is True
    run = the_run(data)
    assert run["status"] == "running" and run["interrupted"], run
    assert run["counts"]["pending"] > 0, "SIGTERM should stop the run before its end"
    assert not list((data / "corpus").rglob(".ingest-journal.json"))

    result = cli_json(data, "resume", run_id, "--json")
    assert result["status"] == "complete"
    show = assert_complete(data, big_plan, run_id)
    events = [h["event"] for h in show["history"]]
    assert events == ["created", "started", "paused", "resumed", "complete"], events


# -- 5. checkpoints: a big notebook lands a few dozen pages at a time ------------------------

CHECKPOINT = 32  # engine/ingest/checkpoints.py CHECKPOINT_PAGES


@pytest.fixture(scope="module")
def register_plan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 3-page notebook, then a 70-page one: three checkpoints of 32, 32 and 6 pages."""
    tmp = tmp_path_factory.mktemp("register")
    make_shelf(tmp / "tree", 1, 3, folder="A letters", size=(120, 160), tag="L")
    make_shelf(tmp / "tree", 1, 70, folder="B register", size=(120, 160), tag="R")
    plan = make_plan(tmp, tmp / "tree")
    items = orjson.loads(plan.read_bytes())["items"]
    assert [len(pages_of(it)) for it in items] == [3, 70]
    return plan


def _renders_now(data: Path) -> dict[str, tuple[int, int]]:
    """Every render file in a notebook folder now: (inode, mtime_ns), to see none is redone.

    A hidden creation folder's are not the corpus's: its checkpoint in flight is redone."""
    out = {}
    for p in (data / "corpus" / "notebooks").glob("*/renders/*.png"):
        if p.parent.parent.name.startswith("."):
            continue
        st = p.stat()
        out[p.relative_to(data).as_posix()] = (st.st_ino, st.st_mtime_ns)
    return out


def _assert_no_empty_notebook(data: Path) -> None:
    """No notebook the corpus shows holds no page, and none is registered twice."""
    notebooks = cli_json(data, "notebooks", "--json")["notebooks"]
    assert all(nb["page_count"] for nb in notebooks), f"an empty notebook: {notebooks}"
    assert all(n == 1 for n in registered(data).values()), "a notebook registered twice"


CHECKPOINT_POINTS = [
    ("ingest.between_checkpoints", 3 + CHECKPOINT),  # after the register's first checkpoint
    ("ingest.between_checkpoints:2", 3 + 2 * CHECKPOINT),
    ("create.first_checkpoint.after_claim", 0),  # first checkpoint of the first new notebook
    ("create.first_checkpoint.before_rename:2", 3),  # the register's, whole but never shown
    ("create.before_register:2", 3 + CHECKPOINT),  # registration: renamed in, not registered
    ("register.after_append:2", 3 + CHECKPOINT),  # registration appended, not acknowledged
    ("ingest.stage.after_source:50", 3 + CHECKPOINT),  # staging the second checkpoint
    ("ingest.after_stage:3", 3 + CHECKPOINT),  # second checkpoint `promoting`: rolled forward
]


@pytest.mark.parametrize(("point", "landed"), CHECKPOINT_POINTS)
def test_kill_at_a_checkpoint_point_then_resume(
    tmp_path: Path, register_plan: Path, point: str, landed: int
) -> None:
    """SIGKILL at each checkpoint point: what landed stays, resume redoes none of it, and
    the end has every page exactly once, no empty notebook and no notebook twice."""
    data = tmp_path / "data"
    proc = run_cli(data, "commit", str(register_plan), "--workers", "1", crash_at=point)
    assert proc.returncode == Exit.KILLED, f"{point} was never reached: {proc.stderr}"
    run_id = the_run(data)["import_run_id"]
    kept = _renders_now(data)
    # The registration points die with the folder renamed in: resume completes that
    # registration (boundary 1). Everywhere else what the corpus shows is what landed.
    if not point.startswith(("create.before_register", "register.after_append")):
        _assert_no_empty_notebook(data)
        shown = cli_json(data, "notebooks", "--json")["notebooks"]
        assert sum(nb["page_count"] for nb in shown) == landed
    assert len(kept) >= landed - (CHECKPOINT if "after_stage" in point else 0)

    result = cli_json(data, "resume", run_id, "--json")
    assert result["status"] == "complete", result
    assert_complete(data, register_plan, run_id)
    _assert_no_empty_notebook(data)
    now = _renders_now(data)
    assert {k: now[k] for k in kept} == kept, "a render that had landed was made again"


@pytest.fixture(scope="module")
def register_only_plan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("register-only")
    make_shelf(tmp / "tree", 1, 70, folder="Register", size=(120, 160), tag="R")
    return make_plan(tmp, tmp / "tree")


def test_cancel_an_interrupted_run_with_pages_landed_says_so(
    tmp_path: Path, register_only_plan: Path
) -> None:
    """Killed between checkpoints, then cancelled: `cancelled` by the contract's table (no
    item committed), but the words never say nothing was added, and the pages stay."""
    data = tmp_path / "data"
    point = "ingest.between_checkpoints"
    proc = run_cli(data, "commit", str(register_only_plan), "--workers", "1", crash_at=point)
    assert proc.returncode == Exit.KILLED
    run_id = the_run(data)["import_run_id"]
    cancel = run_cli(data, "cancel", run_id)
    assert cancel.returncode == Exit.CANCELLED
    assert "no page was added" not in cancel.stdout
    assert f"{CHECKPOINT} pages of the items in progress landed and stay" in cancel.stdout
    show = cli_json(data, "show", run_id, "--json")
    [register] = orjson.loads(register_only_plan.read_bytes())["items"]
    [outcome] = show["items"]
    assert show["status"] == "cancelled"
    assert outcome["state"] == "cancelled_pending" and outcome["pages_landed"] == CHECKPOINT
    assert len(outcome["source_ids"]) == CHECKPOINT
    doc = corpus_notebooks(data)[register["notebook_id"]]
    assert [p["id"] for p in doc["pages"]] == [pg[0] for pg in pages_of(register)][:CHECKPOINT]
    # Not damaged, but not whole: doctor's one note is the notebook it left incomplete.
    report = cli_json(data, "doctor", "--json")
    assert report["clean"] and [f["code"] for f in report["findings"]] == ["notebook_incomplete"]

    # Committing the plan again is a new run that finishes it, redoing none of those pages.
    kept = _renders_now(data)
    again = cli_json(data, "commit", str(register_only_plan), "--json")
    assert again["status"] == "complete" and again["import_run_id"] != run_id
    assert_run_landed_exactly(data, register_only_plan)
    now = _renders_now(data)
    assert {k: now[k] for k in kept} == kept and len(now) == 70


@pytest.fixture(scope="module")
def pdf_plan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One 70-page PDF: one source, landed in parts of 32, 32 and 6 pages."""
    tmp = tmp_path_factory.mktemp("pdf")
    make_pdf(tmp / "tree" / "Register" / "register.pdf", [(60, 80)] * 70)
    return make_plan(tmp, tmp / "tree")


@pytest.mark.parametrize(
    ("point", "landed"),
    [
        ("ingest.between_checkpoints", CHECKPOINT),
        ("ingest.stage.after_source:2", CHECKPOINT),  # the second part staged, not promoted
        ("ingest.after_stage:2", CHECKPOINT),  # the second part `promoting`: rolled forward
        ("ingest.after_promote:3", 2 * CHECKPOINT),  # the last part `manifest_pending`
    ],
)
def test_kill_inside_a_long_pdf_then_resume(
    tmp_path: Path, pdf_plan: Path, point: str, landed: int
) -> None:
    data = tmp_path / "data"
    proc = run_cli(data, "commit", str(pdf_plan), "--workers", "1", crash_at=point)
    assert proc.returncode == Exit.KILLED, f"{point} was never reached: {proc.stderr}"
    run_id = the_run(data)["import_run_id"]
    [nb] = cli_json(data, "notebooks", "--json")["notebooks"]
    assert nb["page_count"] == landed and nb["source_count"] == 1
    kept = _renders_now(data)
    source = next(Path(nb["directory"], "sources").iterdir()).stat()

    assert cli_json(data, "resume", run_id, "--json")["status"] == "complete"
    assert_complete(data, pdf_plan, run_id)
    now = _renders_now(data)
    assert {k: now[k] for k in kept} == kept and len(now) == 70
    again = next(Path(nb["directory"], "sources").iterdir()).stat()
    assert (again.st_ino, again.st_mtime_ns) == (source.st_ino, source.st_mtime_ns)
