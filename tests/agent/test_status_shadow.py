"""``surehand status`` says which shadow commands get here, and what a copy holds."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from agent.execution.sandbox import choose
from tests.agent.overlay_support import git, write_files


def status(workspace: Path, *flags: str) -> str:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "surehand",
            "status",
            "--workspace",
            str(workspace),
            *flags,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def workspace(root: Path) -> Path:
    files = {"app.py": "x = 1\n" * 100, "pkg/util.py": "y = 2\n", ".gitignore": "node_modules/\n"}
    write_files(root, {**files, "node_modules/dep/index.js": "module.exports = 1;\n"})
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "x")
    return root


def test_without_a_sandbox_a_copy_is_named_with_its_size(tmp_path: Path) -> None:
    out = status(workspace(tmp_path / "ws"), "--sandbox", "off")
    assert "shadow: a copy of the workspace (there is no sandbox: turned off" in out
    # app.py 600 bytes, util.py 6, .gitignore 14; node_modules and .git linked
    assert "3 files, 620 bytes, 2 folders linked: copied at the first command" in out


def test_the_machine_s_own_shadow_is_named(tmp_path: Path) -> None:
    out = status(workspace(tmp_path / "ws"))
    sandbox = choose("auto")
    if sandbox.contained and sandbox.overlay is not None:
        assert "shadow: an overlay of the workspace (nothing is copied" in out
    else:
        assert "shadow: a copy of the workspace (" in out and "3 files" in out
