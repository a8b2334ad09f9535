"""`transcribe-import audit`: budgets, the report and its JSON, repair, exit codes, a SIGTERM."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import orjson
import pytest

from helpers import holding
from helpers.cli import Exit, cli_env, cli_json, ok, read_only_argv, run_cli, start_cli
from helpers.export import make_corpus


def _damage_first_source(data: Path) -> Path:
    """Flip a bit of notebook 1's page 1 source, the first file an audit checks."""
    first = cli_json(data, "audit", "--report", "--json")["files"][0]
    assert first["kind"] == "source" and first["pages"] == [1]
    source = data / "corpus" / "notebooks" / first["notebook_id"] / first["path"]
    raw = bytearray(source.read_bytes())
    raw[10] ^= 0x80
    source.write_bytes(bytes(raw))
    return source


def test_audit_checks_reports_and_names_a_failure_by_title_and_page(tmp_path: Path):
    shelf = make_corpus(tmp_path, pages=(2,))
    never = cli_json(shelf.data, "audit", "--report", "--json")
    assert never["files_total"] == 4 and len(never["never_checked"]) == 4
    assert never["last_full_audit"] is None and never["oldest_check"] is None
    text = ok(run_cli(shelf.data, "audit", "--report")).stdout
    assert "4 files recorded" in text and "No full audit yet" in text

    first = ok(run_cli(shelf.data, "audit", "--budget", "1B"))
    assert "Checked 1 file " in first.stdout and "3 files of round 1 left" in first.stdout

    source = _damage_first_source(shelf.data)
    second = ok(run_cli(shelf.data, "audit", "--all"), Exit.OK)
    # The first source was checked (and passed) in this round already: it waits for round 2.
    assert "Checked 3 files" in second.stdout and "Round 1 is complete" in second.stdout
    third = ok(run_cli(shelf.data, "audit", "--all"), Exit.PROBLEMS)
    assert "Checked 4 files" in third.stdout and "of round 2" in third.stdout
    assert f"FAILED “Notebook 1”, page 1 (source sources/{source.name}): its bytes changed" in (
        third.stdout
    )
    assert "--repair-from FOLDER" in third.stdout

    report = cli_json(shelf.data, "audit", "--report", "--json", rc=Exit.PROBLEMS)
    [failure] = report["failures"]
    assert failure["file"]["title"] == "Notebook 1" and failure["file"]["pages"] == [1]
    assert failure["event"]["detail"] == "changed" and failure["event"]["round"] == 2
    assert report["last_full_audit"]["round"] == 2
    assert report["last_full_audit"]["failures"] == 1
    assert report["never_checked"] == [] and report["oldest_check"] is not None
    doctor = cli_json(shelf.data, "doctor", "--json", rc=Exit.PROBLEMS)
    assert [f["code"] for f in doctor["findings"]] == ["fixity_failed"]


def test_repair_from_a_bag_on_the_command_line(tmp_path: Path):
    shelf = make_corpus(tmp_path, pages=(2,))
    bag = tmp_path / "bag"
    ok(run_cli(shelf.data, "export", "--all", "-o", str(bag)))
    nothing = ok(run_cli(shelf.data, "audit", "--repair-from", str(bag)))
    assert "nothing to repair" in nothing.stdout
    source = _damage_first_source(shelf.data)
    ok(run_cli(shelf.data, "audit"), Exit.PROBLEMS)

    fixed = ok(run_cli(shelf.data, "audit", "--repair-from", str(bag)))

    copy = bag / "data" / "notebooks" / shelf.notebooks[0] / "sources" / source.name
    assert source.read_bytes() == copy.read_bytes()
    assert f"REPAIRED “Notebook 1”, page 1 (source sources/{source.name}) from {copy}" in (
        fixed.stdout
    )
    assert cli_json(shelf.data, "audit", "--report", "--json")["failures"] == []


def test_repair_says_what_it_could_not_repair(tmp_path: Path):
    shelf = make_corpus(tmp_path, pages=(1,))
    source = _damage_first_source(shelf.data)
    ok(run_cli(shelf.data, "audit"), Exit.PROBLEMS)
    empty = tmp_path / "empty"
    empty.mkdir()

    refused = ok(run_cli(shelf.data, "audit", "--repair-from", str(empty), "--json"), Exit.PROBLEMS)

    doc = orjson.loads(refused.stdout)
    assert doc["repaired"] == [] and doc["not_repaired"][0]["reason"] == "no_copy"
    text = ok(run_cli(shelf.data, "audit", "--repair-from", str(empty)), Exit.PROBLEMS).stdout
    assert f"NOT REPAIRED “Notebook 1”, page 1 (source sources/{source.name})" in text
    assert "no file in the folder has its recorded sha256" in text


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--budget", "lots"], "is not an amount of data"),
        (["--all", "--minutes", "5"], "--all checks the whole round"),
        (["--report", "--budget", "1GB"], "--report and --repair-from go alone"),
        (["--minutes", "0"], "--minutes takes a number of minutes above 0"),
    ],
)
def test_usage_errors(tmp_path: Path, args: list[str], words: str):
    proc = ok(run_cli(tmp_path / "data", "audit", *args), Exit.USAGE)
    assert words in proc.stderr


def test_repair_from_a_folder_that_is_not_there_names_it(tmp_path: Path):
    proc = ok(run_cli(tmp_path / "data", "audit", "--repair-from", str(tmp_path / "no")), 1)
    assert f"{tmp_path / 'no'} is not a folder" in proc.stderr


@pytest.mark.slow
def test_sigterm_stops_the_audit_and_the_next_run_goes_on(tmp_path: Path):
    shelf = make_corpus(tmp_path, pages=(3, 3))
    proc = start_cli(shelf.data, "audit", env=holding.stop_at("audit.after_check:3"))
    holding.wait_stopped(proc)
    holding.go_on(proc, signal.SIGTERM)
    out, err = holding.finish(proc)

    assert proc.returncode == Exit.INTERRUPTED, err
    assert "Checked 3 files" in out and "Stopped; 9 files of round 1 left" in out
    rest = ok(run_cli(shelf.data, "audit", "--json"), Exit.OK)
    doc = orjson.loads(rest.stdout)
    assert doc["files_checked"] == 9 and doc["end"] == "round_complete" and doc["round"] == 1


def test_an_empty_corpus_has_nothing_to_check(tmp_path: Path):
    proc = ok(run_cli(tmp_path / "data", "audit"))
    assert proc.stdout == (
        f"No notebook of {tmp_path / 'data' / 'corpus'} records a file yet: nothing to check.\n"
    )
    report = cli_json(tmp_path / "data", "audit", "--report", "--json")
    assert report["files_total"] == 0 and report["last_full_audit"] is None


def test_a_read_only_corpus_is_refused_in_one_line_and_its_report_still_read(tmp_path: Path):
    shelf = make_corpus(tmp_path, pages=(1,))
    data = shelf.data
    try:
        proc = subprocess.run(
            read_only_argv(data, "audit"),
            env=cli_env(data),
            capture_output=True,
            text=True,
            timeout=120,
        )
        report = subprocess.run(
            read_only_argv(data, "audit", "--report", "--json"),
            env=cli_env(data),
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        for p in [data, *data.rglob("*")]:
            p.chmod(p.stat().st_mode | 0o200)
    assert proc.returncode == Exit.PROBLEMS and "Traceback" not in proc.stderr, proc.stderr
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith("transcribe-import: ") and str(data / "corpus" / "fixity") in line
    assert report.returncode == Exit.OK, report.stderr
    assert orjson.loads(report.stdout)["files_total"] == 2


def test_the_report_in_words(tmp_path: Path):
    shelf = make_corpus(tmp_path, pages=(1,))
    ok(run_cli(shelf.data, "audit", "--budget", "1B"))
    first = cli_json(shelf.data, "audit", "--report", "--json")
    checked = first["oldest_check"]
    never = first["never_checked"][0]
    # A kill cut the log's next write short: half a line.
    log_file = shelf.data / "corpus" / "fixity" / "events.jsonl"
    with log_file.open("ab") as f:
        f.write(b'{"schema": 1, "event_id": "torn')

    text = ok(run_cli(shelf.data, "audit", "--report")).stdout

    when = checked["last_checked"][:19].replace("T", " ")
    assert text == (
        f"2 files recorded in {shelf.data / 'corpus'}: 1 checked at least once, 1 never.\n"
        f"Oldest check: {when} UTC (“Notebook 1”, page 1 ({checked['kind']} "
        f"{checked['path']})).\n"
        f"  NEVER CHECKED “Notebook 1”, page 1 ({never['kind']} {never['path']})\n"
        "No full audit yet: run `transcribe-import audit --all`.\n"
        "Round 1 goes on: 1 file left.\n"
        "No file failed its last check.\n"
        "The fixity log has 1 unreadable line (a kill cut a write short, or damage); it is "
        "skipped and kept.\n"
    )
    done = ok(run_cli(shelf.data, "audit"))
    assert "Checked 1 file " in done.stdout and "Round 1 is complete" in done.stdout
    full = ok(run_cli(shelf.data, "audit", "--report")).stdout
    assert "Last full audit: round 1, finished " in full and " UTC, 0 failures.\n" in full
