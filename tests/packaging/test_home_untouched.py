"""The test suite leaves the user's home as it found it: a part of it run with an empty HOME."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# A part of the suite that does what wrote to the user's home before: the CLI run in-process
# (its log handler on the root logger), a task that fails with a traceback logged at ERROR
# (the GUI's), and the window started through the desktop's hooks.
REPRESENTATIVE = ("tests/cli/test_cli.py", "tests/gui/test_tasks.py", "tests/gui/test_desktop.py")


@pytest.mark.slow
def test_the_suite_leaves_an_empty_home_empty(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    # Only HOME says where the user's folders are: no XDG_* variable points elsewhere.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "TRANSCRIBE_DATA"))}
    env["HOME"] = str(home)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *REPRESENTATIVE],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert sorted(str(p.relative_to(home)) for p in home.rglob("*")) == []
