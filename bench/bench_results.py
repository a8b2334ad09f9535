"""bench/RESULTS.md: each benchmark replaces its own section and leaves the others as they are."""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def replace_section(path: Path, heading: str, section: str) -> None:
    """Replace the section under ``heading`` (up to the next "## "), or append it."""
    text = path.read_text() if path.exists() else "# Benchmark results\n\n"
    if heading in text:
        start = text.index(heading)
        nxt = text.find("\n## ", start + 1)
        text = text[:start] + section.rstrip("\n") + "\n" + (text[nxt:] if nxt >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text)
