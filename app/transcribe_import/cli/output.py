"""What the command line writes for a person: one JSON document, or lines made safe to show.

Every line of words goes through ``say``, which shows control and bidirectional
characters visibly (``engine.base.text.for_terminal``): names and titles come from
other people's disks and plans, and must not be able to drive the terminal.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

import orjson

from transcribe_import.engine.base.text import for_terminal


def say(line: str = "", *, file: TextIO | None = None) -> None:
    """Print one line of words, with every control character shown, not obeyed."""
    print(for_terminal(line), file=file or sys.stdout)


def json_out(doc: Any) -> None:
    """The command's one JSON document on stdout (JSON escapes controls itself)."""
    sys.stdout.buffer.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    sys.stdout.flush()
