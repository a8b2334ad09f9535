"""Names from other people's disks never drive the terminal: every command shows controls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.cli import Exit, cli_json, run_cli
from helpers.shelves import make_pages

# A clear-screen, a terminal-title change (OSC ... BEL), a forged second line, a bell, a
# C1 control and a right-to-left override: each would act on a terminal if printed raw.
HOSTILE = "box\x1b[2J\x1b]0;pwned\x07\nFORGED LINE\u202egpj.exe\x9b"
RAW = ("\x1b", "\x07", "\u202e", "\x9b")


def _assert_safe(text: str) -> None:
    for ch in RAW:
        assert ch not in text, (ch, text)
    assert "\nFORGED LINE" not in text


@pytest.mark.slow
def test_every_command_that_prints_a_name_shows_its_controls(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shelf = tmp_path / "shelf"
    make_pages(shelf / HOSTILE, 2)
    make_pages(shelf / "plain", 1, name="page {i}.jpg")
    (shelf / HOSTILE / "notes\x1b[31m.txt").write_text("not a page")
    plan = tmp_path / "plan.json"
    outputs = [run_cli(data, "plan", str(shelf), "-o", str(plan))]
    outputs.append(run_cli(data, "validate", str(plan)))
    outputs.append(run_cli(data, "commit", str(plan)))
    (run,) = cli_json(data, "runs", "--json")["runs"]
    outputs.append(run_cli(data, "runs"))
    outputs.append(run_cli(data, "show", run["import_run_id"]))
    outputs.append(run_cli(data, "notebooks"))
    outputs.append(run_cli(data, "validate", str(tmp_path / f"missing{HOSTILE}.json")))
    for proc in outputs:
        _assert_safe(proc.stdout)
        _assert_safe(proc.stderr)
    words = "".join(p.stdout for p in outputs)
    assert "box␛[2J␛]0;pwned␇␤FORGED LINE⟨U+202E⟩gpj.exe⟨U+009B⟩" in words
    assert "notes␛[31m.txt" in words  # the not-planned list
    assert outputs[2].returncode == Exit.OK
    # JSON keeps the title's characters (the title folds the newline to a space), escaped
    # the JSON way.
    titles = {n["title"] for n in cli_json(data, "notebooks", "--json")["notebooks"]}
    assert HOSTILE.replace("\n", " ") in titles
    assert "\\u001b" in json.dumps(sorted(titles))
