"""Counts read as English: "1 page", "2 pages", never "page(s)", in the engine and both faces."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import transcribe_import
from transcribe_import.engine.base.text import agreeing, counted

APP = Path(transcribe_import.__file__).parent
# "page(s)", "copy(ies)", "box(es)": a count that leaves its reader to choose the word.
HEDGED = re.compile(r"[a-z]\((s|es|ies)\)")
# A hedged word in quotes on its own is the rule named ('never "page(s)"'), not said.
NAMED = re.compile(r'"[a-z]+\((s|es|ies)\)"')


@pytest.mark.parametrize(
    ("n", "said"), [(0, "0 pages"), (1, "1 page"), (2, "2 pages"), (1000, "1000 pages")]
)
def test_a_count_takes_its_noun_singular_or_plural(n: int, said: str) -> None:
    assert counted(n, "page") == said


def test_an_irregular_plural_is_given() -> None:
    assert [counted(n, "copy", "copies") for n in (1, 3)] == ["1 copy", "3 copies"]
    assert [agreeing(n, "is", "are") for n in (0, 1, 2)] == ["are", "is", "are"]


def _sentences(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module, docstrings and comments left out (they are not said)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_no_sentence_of_the_app_hedges_a_plural() -> None:
    """The engine, the window and the command line: every string constant of the package."""
    hedged = [
        f"{path.relative_to(APP)}:{line}: {text!r}"
        for path in sorted(APP.rglob("*.py"))
        for line, text in _sentences(path)
        if HEDGED.search(text)
    ]
    assert hedged == []


def test_no_documented_output_hedges_a_plural() -> None:
    """The docs quote what the app says (docs/cli.md its examples): they say it the same way."""
    root = APP.parents[1]
    hedged = [
        f"{path.relative_to(root)}:{number}: {line.strip()}"
        for path in [root / "README.md", *sorted((root / "docs").glob("*.md"))]
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if HEDGED.search(NAMED.sub("", line))
    ]
    assert hedged == []
