"""The move of frozen plans out of the runs' folder, killed at each of its steps.

A corpus written before the move keeps each frozen plan beside its run record as
``import-runs/<run_id>.plan.json``; opening it moves them to ``import-runs/plans/``.
A real ``transcribe-import`` process is killed (SIGKILL) at each named point of that
move; every state it leaves must still read every run and its plan, and the next open
must finish the move, after which an interrupted run resumes to the end.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from helpers.cli import Exit, assert_doctor_clean, cli_json, run_cli
from helpers.legacy import to_legacy_plan_layout
from helpers.shelves import make_shelf

pytestmark = pytest.mark.crash


@pytest.fixture(scope="module")
def legacy_corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """An old-layout corpus with a complete run and a pending one (data, complete, pending)."""
    from transcribe_import.engine import api
    from transcribe_import.engine.planning.plan import load_plan

    root = tmp_path_factory.mktemp("legacy")
    data = root / "data"
    for name in ("a", "b"):
        shelf = make_shelf(root / name, notebooks=2, tag=name)
        run_cli(data, "plan", str(shelf), "-o", str(root / f"{name}.json"))
    done = cli_json(data, "commit", str(root / "a.json"), "--json")["import_run_id"]
    corpus = api.open_corpus(data)
    pending = api.prepare_commit(corpus, load_plan(root / "b.json")).run_id  # never executed
    assert sorted(to_legacy_plan_layout(data)) == sorted([done, pending])
    return data, done, pending


def _copy(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst, symlinks=True)
    return dst


@pytest.mark.parametrize(
    "point",
    [
        "runs.migrate.record_updated:1",  # the first record names plans/, its plan not moved
        "runs.migrate.plan_moved:1",  # the first plan moved, the second not touched
        "runs.migrate.record_updated:2",  # one moved, the second's record names plans/ only
        "runs.migrate.plan_moved:2",  # both moved, the process dies before it returns
    ],
)
def test_a_migration_killed_anywhere_is_finished_by_the_next_open(
    point: str, legacy_corpus: tuple[Path, str, str], tmp_path: Path
) -> None:
    source, done, pending = legacy_corpus
    data = _copy(source, tmp_path / "data")
    runs_dir = data / "corpus" / "import-runs"
    fingerprints = {
        rid: orjson.loads((runs_dir / f"{rid}.plan.json").read_bytes())["plan_fingerprint"]
        for rid in (done, pending)
    }

    killed = run_cli(data, "runs", "--json", crash_at=point)
    assert killed.returncode == Exit.KILLED, (point, killed.returncode, killed.stderr)
    # Each snapshot is whole in exactly one of its two places.
    for rid in (done, pending):
        places = (runs_dir / f"{rid}.plan.json", runs_dir / "plans" / f"{rid}.json")
        (there,) = [p for p in places if p.exists()]
        assert orjson.loads(there.read_bytes())["plan_fingerprint"] == fingerprints[rid]

    # The next open (any command) finishes the move; runs and plans read as before.
    shown = cli_json(data, "show", done, "--json")
    assert shown["plan"]["plan_fingerprint"] == fingerprints[done]
    assert not list(runs_dir.glob("*.plan.json"))
    for rid in (done, pending):
        record = orjson.loads((runs_dir / f"{rid}.json").read_bytes())
        assert record["plan_snapshot"] == f"plans/{rid}.json"
        assert (runs_dir / "plans" / f"{rid}.json").is_file()
    listed = {r["import_run_id"]: r for r in cli_json(data, "runs", "--json")["runs"]}
    assert set(listed) == {done, pending} and listed[pending]["interrupted"]

    resumed = cli_json(data, "resume", pending, "--json")
    assert resumed["status"] == "complete" and resumed["counts"]["committed"] == 2
    assert_doctor_clean(data)
