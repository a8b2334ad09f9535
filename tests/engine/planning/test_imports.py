"""What importing a module loads: plans and journals without decoders, planning without runs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

DECODERS = ("PIL", "pypdf", "pypdfium2")


def loaded_by(module: str) -> list[str]:
    """The modules a fresh interpreter has loaded after importing ``module``."""
    code = f"import json, sys, {module}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return json.loads(out.stdout)


@pytest.mark.parametrize(
    "module",
    [
        "transcribe_import.engine.planning.plan",
        "transcribe_import.engine.ingest.journal",
        "transcribe_import.engine.media.kinds",
        "transcribe_import.engine.media.sniff",
        "transcribe_import.engine.base.text",
    ],
)
def test_reading_plans_and_media_types_loads_no_decoder(module: str) -> None:
    # A plan is read (CLI, window, recovery) far more often than a page is decoded, and
    # Pillow with pypdf and pypdfium2 costs a noticeable part of start-up.
    decoders = [m for m in loaded_by(module) if m.split(".")[0] in DECODERS]
    assert decoders == []


@pytest.mark.parametrize(
    "module",
    [
        "transcribe_import.engine.planning.validate",
        "transcribe_import.engine.planning.planner",
        "transcribe_import.engine.planning.ordering",
        "transcribe_import.engine.planning.edits",
    ],
)
def test_planning_does_not_import_the_layers_above_it(module: str) -> None:
    above = ("transcribe_import.engine.runs", "transcribe_import.engine.api")
    assert [m for m in loaded_by(module) if m.startswith(above)] == []
