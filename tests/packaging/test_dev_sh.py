"""packaging/dev.sh on a machine where another package manager holds apt's lock for a while."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# The fake apt-get fails as a held lock makes it fail, until its counter runs out.
FAKE_APT_GET = """#!/bin/sh
echo "$*" >> "$FAKE_LOG"
n=$(cat "$FAKE_COUNT")
if [ "$n" -gt 0 ]; then
  echo $((n - 1)) > "$FAKE_COUNT"
  echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (apt-get)" >&2
  exit 100
fi
echo "E: $FAKE_OTHER_ERROR" >&2
[ -z "$FAKE_OTHER_ERROR" ]
"""


def _fake_bin(tmp_path: Path) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in {
        "apt-get": FAKE_APT_GET,
        "dpkg": "#!/bin/sh\nexit 1\n",  # every package missing
        "sudo": '#!/bin/sh\nexec "$@"\n',
    }.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    return bin_dir


def _dev_sh(
    tmp_path: Path, held: int, other_error: str = "", wait_s: int = 600
) -> subprocess.CompletedProcess[str]:
    (tmp_path / "count").write_text(f"{held}\n")
    env = {
        **os.environ,
        "PATH": f"{_fake_bin(tmp_path)}:{os.environ['PATH']}",
        "FAKE_LOG": str(tmp_path / "calls"),
        "FAKE_COUNT": str(tmp_path / "count"),
        "FAKE_OTHER_ERROR": other_error,
        "APT_LOCK_RETRY_S": "0",  # no wait between tries: the counter is the other manager
        "APT_LOCK_WAIT_S": str(wait_s),
        # setup_venv stops the script (exit 2) right after the system packages.
        "PYTHON": str(tmp_path / "no-python"),
    }
    return subprocess.run(
        ["bash", str(REPO / "packaging" / "dev.sh"), "test"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.slow
def test_a_held_apt_lock_is_waited_for(tmp_path: Path) -> None:
    done = _dev_sh(tmp_path, held=2)
    calls = (tmp_path / "calls").read_text().splitlines()
    # update tried three times (twice refused by the lock), then install once.
    assert [c.split()[-2:] for c in calls[:3]] == [["update", "-qq"]] * 3
    assert calls[3].split()[2] == "install" and "libegl1" in calls[3]
    assert all("DPkg::Lock::Timeout=600" in c for c in calls)
    assert "Waiting for another package manager to finish (apt-get update" in done.stderr
    assert "Python 3.11 or newer is needed" in done.stderr and done.returncode == 2


@pytest.mark.slow
def test_another_apt_error_fails_at_once_and_is_shown(tmp_path: Path) -> None:
    done = _dev_sh(tmp_path, held=0, other_error="The repository does not have a Release file")
    assert done.returncode == 1
    assert len((tmp_path / "calls").read_text().splitlines()) == 1
    assert "E: The repository does not have a Release file" in done.stderr
    assert "Waiting" not in done.stderr


@pytest.mark.slow
def test_a_lock_held_longer_than_the_wait_fails_naming_it(tmp_path: Path) -> None:
    done = _dev_sh(tmp_path, held=1000, wait_s=0)
    assert done.returncode == 1
    assert "Could not get lock /var/lib/apt/lists/lock" in done.stderr


# A Python whose pip says what an editable install's build says (setuptools' notes on
# stderr, even with -q), then succeeds, or fails with FAKE_PIP_ERROR.
FAKE_PYTHON = """#!/bin/sh
echo "$*" >> "$FAKE_LOG"
if [ "$1" = -c ]; then echo 3.11; exit 0; fi
echo "  BuildBackendWarning: Editable installation." >&2
if [ -n "$FAKE_PIP_ERROR" ]; then echo "ERROR: $FAKE_PIP_ERROR" >&2; exit 1; fi
"""


def _setup_venv(tmp_path: Path, pip_error: str = "") -> subprocess.CompletedProcess[str]:
    """dev.sh, copied into a project of its own whose .venv's Python is ``FAKE_PYTHON``,
    run with a command it does not know: it sets up, then says its usage (exit 2)."""
    project = tmp_path / "project"
    (project / "packaging").mkdir(parents=True)
    (project / "packaging" / "dev.sh").write_text((REPO / "packaging" / "dev.sh").read_text())
    (project / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    python = project / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)
    installed = tmp_path / "bin"
    installed.mkdir()
    (installed / "dpkg").write_text("#!/bin/sh\nexit 0\n")  # every package installed
    (installed / "dpkg").chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{installed}:{os.environ['PATH']}",
        "PYTHON": str(python),
        "FAKE_LOG": str(tmp_path / "calls"),
        "FAKE_PIP_ERROR": pip_error,
    }
    return subprocess.run(
        ["bash", str(project / "packaging" / "dev.sh"), "no-such-command"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_install_into_venv_says_what_it_does_and_keeps_pips_notes_to_itself(
    tmp_path: Path,
) -> None:
    """A newcomer's first `dev.sh app` printed setuptools' "BuildBackendWarning" box, which
    reads like a failure; now one line says what is being installed, and pip's words are
    shown only when it fails."""
    done = _setup_venv(tmp_path)
    calls = (tmp_path / "calls").read_text().splitlines()
    assert [c for c in calls if " pip " in f" {c} "] == [
        "-m pip -q install --upgrade pip",
        "-m pip -q install -e .[test]",
    ]
    assert done.stderr.splitlines() == [
        "Installing the app and its test tools into .venv/ (a few minutes the first time)",
        "usage: bash packaging/dev.sh app|test|fetch-real-files [ARGS...]",
    ]
    assert done.returncode == 2


def test_a_failed_install_into_venv_shows_what_pip_said(tmp_path: Path) -> None:
    done = _setup_venv(tmp_path, pip_error="No matching distribution found for pyside6")
    assert done.returncode == 1
    assert "ERROR: No matching distribution found for pyside6" in done.stderr
    assert "usage:" not in done.stderr
