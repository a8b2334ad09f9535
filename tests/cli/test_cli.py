"""The command line as a user runs it: --json documents, exit codes, one-line errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from transcribe_import import __version__
from transcribe_import.cli import main
from transcribe_import.engine.base.ids import new_id
from transcribe_import.engine.storage.corpus import Corpus

from engine_helpers import ingest_pages, new_notebook
from helpers.cli import Exit, run_cli
from media_factory import make_image, make_pdf

# run_cli(data, *args) is the shared runner (helpers.cli); data=None passes no --data-dir.


def test_version_and_help() -> None:
    assert run_cli(None, "--version").stdout.strip() == f"transcribe-import {__version__}"
    out = run_cli(None, "--help").stdout
    for command in ("notebooks", "doctor", "gui"):
        assert command in out


def test_notebooks_json_lists_titles_and_pages(corpus: Corpus, tmp_path: Path, capsys) -> None:
    nbid = new_notebook(corpus, "Tagebuch 1916 – Ärmelkanal")
    ingest_pages(corpus, nbid, [make_image(tmp_path / "a.jpg", "a")])
    assert main(["notebooks", "--json"]) == 0
    doc = orjson.loads(capsys.readouterr().out)
    [nb] = doc["notebooks"]
    assert (nb["notebook_id"], nb["title"], nb["page_count"]) == (
        nbid,
        "Tagebuch 1916 – Ärmelkanal",
        1,
    )


def test_notebooks_text_on_empty_corpus(data_dir: Path, capsys) -> None:
    assert main(["--data-dir", str(data_dir), "notebooks"]) == 0
    assert "No notebooks yet" in capsys.readouterr().out


def test_doctor_exit_codes_and_json_only_on_stdout(data_dir: Path) -> None:
    proc = run_cli(data_dir, "doctor", "--json")
    assert proc.returncode == Exit.OK, proc.stderr
    assert orjson.loads(proc.stdout)["clean"] is True

    corpus = Corpus.open(data_dir)
    nb_dir = corpus.create_notebook(new_id(), "broken")
    (nb_dir / "project.json").unlink()
    proc = run_cli(data_dir, "doctor", "--json")
    assert proc.returncode == Exit.PROBLEMS
    report = orjson.loads(proc.stdout)
    assert [f["code"] for f in report["findings"]] == ["registered_without_manifest"]
    assert report["findings"][0]["severity"] == "problem"

    text = run_cli(data_dir, "doctor")
    assert text.returncode == Exit.PROBLEMS and "[problem]" in text.stdout


def test_doctor_repairs_then_reports_clean(data_dir: Path) -> None:
    corpus = Corpus.open(data_dir)
    nb_dir = corpus.create_notebook(new_id(), "with a dead journal")
    (nb_dir / ".ingest-journal.json").write_bytes(b"\x00\x01 not json")
    first = run_cli(data_dir, "doctor", "--json")
    assert first.returncode == Exit.PROBLEMS
    assert orjson.loads(first.stdout)["findings"][0]["code"] == "journal_quarantined"
    second = run_cli(data_dir, "doctor", "--json")
    assert second.returncode == Exit.OK, second.stdout
    codes = [f["code"] for f in orjson.loads(second.stdout)["findings"]]
    # The notebook made bare (as earlier versions did) holds no page: told, not an error.
    assert codes == ["empty_notebook", "quarantine_present"]


def test_locked_corpus_exits_5_with_one_line(data_dir: Path) -> None:
    corpus = Corpus.open(data_dir)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; "
            "from transcribe_import.engine.storage.corpus import Corpus; "
            "c = Corpus.open(Path(sys.argv[1])); l = c.locked(); l.__enter__(); "
            "print('held', flush=True); time.sleep(60)",
            str(data_dir),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        env = {"TRANSCRIBE_DATA_DIR": str(data_dir), "TRANSCRIBE_LOCK_TIMEOUT": "0.3"}
        proc = run_cli(None, "doctor", env=env)
    finally:
        holder.kill()
        holder.communicate()
    assert proc.returncode == Exit.LOCKED
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "busy" in lines[0] and str(corpus.root) in lines[0]
    assert "Traceback" not in proc.stderr


def test_unusable_data_dir_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    proc = run_cli(blocker, "notebooks")
    assert proc.returncode == Exit.PROBLEMS
    assert "Traceback" not in proc.stderr
    assert str(blocker) in proc.stderr


@pytest.mark.parametrize("argv", [["notebooks", "--bogus"], ["no-such-command"]])
def test_usage_errors_exit_2(argv: list[str]) -> None:
    assert run_cli(None, *argv).returncode == Exit.USAGE


def test_a_plan_file_error_gives_the_engines_words_then_the_command(tmp_path: Path) -> None:
    # The engine's words name no command (the window shows them too); the CLI adds its own.
    missing = tmp_path / "nowhere.json"
    proc = run_cli(tmp_path / "data", "validate", str(missing))
    assert proc.returncode == Exit.USAGE
    assert f"{missing}: no such plan file; make a plan first (transcribe-import plan)." in (
        proc.stderr
    )


def test_files_a_mode_leaves_out_are_told_with_the_option_that_plans_them(
    tmp_path: Path,
) -> None:
    # The adapter's words say "plan images by folder"; the option is the CLI's own line.
    make_pdf(tmp_path / "tree" / "scan.pdf", 2)
    make_image(tmp_path / "tree" / "photo.jpg")
    plan = tmp_path / "plan.json"
    proc = run_cli(
        tmp_path / "data", "plan", str(tmp_path / "tree"), "--mode", "pdfs", "-o", str(plan)
    )
    assert proc.returncode in (Exit.OK, Exit.PROBLEMS), proc.stderr
    assert (
        "tree/photo.jpg: an image in a PDF tree: pdfs mode imports only PDFs; plan images "
        "by folder\n" in proc.stdout
    )
    assert "  To plan those by folder: --mode folders.\n" in proc.stdout
