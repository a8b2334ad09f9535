"""`--help` and docs/cli.md name the same commands, the same `--json` commands and every JSON
field the commands print (issue #25: the docs had drifted from the commands)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import pytest

from transcribe_import.cli.main import build_parser

from helpers.cli import Exit, cli_json, ok, run_cli
from helpers.shelves import make_shelf

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def _sections() -> dict[str, str]:
    """docs/cli.md's `### command` sections under `## Commands`, by command name."""
    text = DOCS.read_text(encoding="utf-8")
    commands = text.split("\n## Commands\n", 1)[1].split("\n## ", 1)[0]
    parts = re.split(r"^### ", commands, flags=re.MULTILINE)[1:]
    return {part.split("\n", 1)[0].strip(): part for part in parts}


def _help_commands() -> list[str]:
    """The commands `transcribe-import --help` lists, in its order."""
    out = ok(run_cli(None, "--help")).stdout
    block = out.split("COMMAND\n", 1)[1].split("\n\n", 1)[0]
    return [m.group(1) for m in re.finditer(r"^    (\S+)\s", block, flags=re.MULTILINE)]


def _json_list() -> set[str]:
    """The commands the Output section says accept `--json`."""
    text = DOCS.read_text(encoding="utf-8")
    line = re.search(r"\*\*`--json`\.\*\*(.*?)accept", text, flags=re.DOTALL)
    assert line is not None, "docs/cli.md's Output section lists the --json commands"
    return set(re.findall(r"`([a-z]+)`", line.group(1)))


def test_help_and_docs_list_the_same_commands() -> None:
    listed = _help_commands()
    assert listed and len(listed) == len(set(listed))
    assert set(_sections()) == set(listed)
    usage = DOCS.read_text(encoding="utf-8").split("```text", 1)[1].split("```", 1)[0]
    for command in listed:
        assert re.search(rf"^  (\(none\) \| )?{command}\b", usage, flags=re.MULTILINE), command


def test_every_json_command_is_in_the_docs_json_list_and_no_other() -> None:
    # Each command's own --help, built in this process: fourteen more processes would make
    # this a slow test for no more truth (the top-level list is the real --help's).
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    with_json = {c for c in _help_commands() if "--json" in sub.choices[c].format_help()}
    assert _json_list() == with_json


def test_help_says_where_data_dir_goes() -> None:
    out = ok(run_cli(None, "--help")).stdout
    assert "--data-dir goes before the command" in out


def _keys(doc: Any, depth: int = 2) -> set[str]:
    """The keys of a JSON document, and of the objects in its lists, ``depth`` levels deep."""
    keys: set[str] = set()
    values = doc.values() if isinstance(doc, dict) else doc if isinstance(doc, list) else []
    if isinstance(doc, dict):
        keys |= set(doc)
    if depth:
        for value in values:
            keys |= _keys(value, depth - 1) if isinstance(value, dict | list) else set()
    return keys


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """One `--json` document of each command whose fields docs/cli.md lists itself."""
    tmp = tmp_path_factory.mktemp("json")
    data = tmp / "data"
    plan = tmp / "plan.json"
    ok(run_cli(data, "plan", str(make_shelf(tmp / "shelf", 2, 2)), "-o", str(plan)))
    docs = {"validate": cli_json(data, "validate", str(plan), "--json")}
    docs["commit"] = cli_json(data, "commit", str(plan), "--json")
    run_id = docs["commit"]["import_run_id"]
    docs["runs"] = cli_json(data, "runs", "--json")
    docs["notebooks"] = cli_json(data, "notebooks", "--json")
    docs["export"] = cli_json(data, "export", "--all", "-o", str(tmp / "bag"), "--json")
    docs["revert"] = cli_json(data, "revert", run_id, "--json")
    docs["trash"] = cli_json(data, "trash", "--json")
    (data / "corpus" / "index.jsonl").write_bytes(b"{ damaged\n")
    docs["doctor"] = cli_json(data, "doctor", "--json", rc=Exit.PROBLEMS)
    return docs


@pytest.mark.parametrize(
    "command", ["validate", "commit", "runs", "notebooks", "export", "revert", "trash", "doctor"]
)
@pytest.mark.slow
def test_every_json_field_a_command_prints_is_in_its_docs(
    documents: dict[str, dict[str, Any]], command: str
) -> None:
    section = _sections()[command]
    named = set(re.findall(r'[`"]([a-z_]+)[`"]', section))
    if command == "commit":  # its document's fields, shared with resume, are listed there
        named |= set(re.findall(r'[`"]([a-z_]+)[`"]', _sections()["resume"]))
    missing = sorted(_keys(documents[command]) - named)
    assert missing == [], f"docs/cli.md's {command} section does not name {missing}"
