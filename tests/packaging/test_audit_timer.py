"""packaging/linux/install-audit-timer.sh: the systemd user units it writes, and their removal."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "packaging" / "linux" / "install-audit-timer.sh"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=60)


@pytest.mark.slow  # systemd-analyze verify takes seconds
def test_the_units_run_a_bounded_audit_every_night_and_go_away(tmp_path: Path):
    units = tmp_path / "units"
    data = tmp_path / "data"
    data.mkdir()
    exe = shutil.which("true") or "/bin/true"

    done = _run(
        "--unit-dir",
        str(units),
        "--no-enable",
        "--exec",
        exe,
        "--minutes",
        "45",
        "--data-dir",
        str(data),
    )

    assert done.returncode == 0, done.stderr
    service = (units / "transcribe-import-audit.service").read_text()
    timer = (units / "transcribe-import-audit.timer").read_text()
    assert f"ExecStart={exe} --data-dir {data} audit --minutes 45\n" in service
    assert "Type=oneshot" in service and "SuccessExitStatus=6\n" in service
    assert "OnCalendar=*-*-* 03:00:00" in timer and "Persistent=true" in timer
    assert "WantedBy=timers.target" in timer
    if shutil.which("systemd-analyze"):  # systemd's own check of both units, offline
        verify = subprocess.run(
            ["systemd-analyze", "verify", *(str(p) for p in sorted(units.iterdir()))],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert verify.returncode == 0, verify.stderr

    gone = _run("--unit-dir", str(units), "--no-enable", "--uninstall")
    assert gone.returncode == 0 and not list(units.iterdir())


@pytest.mark.parametrize(
    ("args", "words"), [(["--minutes", "half"], "whole number"), (["--bogus"], "unknown argument")]
)
def test_bad_arguments_are_refused(tmp_path: Path, args: list[str], words: str):
    proc = _run("--unit-dir", str(tmp_path), "--no-enable", "--exec", "/bin/true", *args)
    assert proc.returncode == 2 and words in proc.stderr
    assert not list(tmp_path.iterdir())
