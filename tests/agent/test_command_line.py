"""The installed ``surehand`` command: its version, and a demo that leaves nothing behind."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

SUREHAND = [sys.executable, "-m", "surehand"]


def test_the_version_is_the_packages():
    version = metadata.version("surehand")  # as installed from pyproject.toml
    done = subprocess.run(
        [*SUREHAND, "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stdout) == (0, f"surehand {version}\n"), done.stderr


@pytest.mark.slow
def test_the_demo_runs_and_leaves_nothing_in_the_temporary_directory(tmp_path: Path):
    temp = tmp_path / "tmp"
    temp.mkdir()
    done = subprocess.run(
        [*SUREHAND, "demo"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "TMPDIR": str(temp), "NO_COLOR": "1"},
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Task: fix the failing date test." in done.stdout
    assert "The project was not changed" in done.stdout
    assert list(temp.iterdir()) == [], "the demo's copy, trace and shadow are gone"
