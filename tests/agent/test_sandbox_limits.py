"""A staged test exhausting the machine ends with a clear result, the machine unharmed.

A fork bomb, a memory balloon, a ``/tmp`` filler and a ``HOME`` filler,
each staged as a test file and run with ``pytest`` the way a model would,
in the sandbox with low limits (so that this machine stays responsive
whatever happens: the fork bomb only ever runs with a process limit in
place). Each ends well before its timeout, says which limit it met, and
leaves this process and the machine as they were. Without a sandbox, the
command is put to the user first (and declined here).

The default limits let ordinary suites run: ``test_sandbox_projects``
runs projects' tests under them, and the README gives the figures of a
real suite.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import pytest

from agent.config.settings import Settings
from agent.execution import command_layout
from agent.execution.runner import ShadowRunner
from agent.execution.sandbox import Layout, Sandbox
from agent.execution.sandbox.limits import GIB, MIB, ResourceLimits
from agent.staging.workspace import Overlay, ToolError
from agent.tools import run_command
from agent.tools.context import Approval, ToolContext
from tests.agent.overlay_support import git
from tests.agent.sandboxes import NONE, bubblewrap
from tests.agent.test_sandbox_attacks import (
    RUNNER_PACKAGES,
    Approver,
    asked_of,
    make_venv_with_pytest,
    runner_of,
)

pytestmark = pytest.mark.slow

LOW = ResourceLimits(
    processes=64, memory=512 * MIB, file_size=256 * MIB, tmp_size=64 * MIB, home_size=32 * MIB
)
TIMEOUT = 60

ATTACKS = {
    "fork bomb": (
        "import os\n\n\ndef test_bomb():\n"
        "    while True:\n"
        "        try:\n"
        "            os.fork()\n"
        "        except OSError:\n"
        "            pass\n",
        ["[sandbox: stopped: the command reached the limit of 64 processes"],
    ),
    "memory balloon": (
        "def test_balloon():\n"
        "    kept = []\n"
        "    while True:\n"
        "        kept.append(bytearray(32 * 1024 * 1024))\n",
        ["MemoryError"],
    ),
    "/tmp filler": (
        "def test_fill():\n"
        "    with open('/tmp/fill', 'wb') as out:\n"
        "        while True:\n"
        "            out.write(bytes(1024 * 1024))\n"
        "            out.flush()\n",
        ["/tmp is full: it holds at most 64 MiB"],
    ),
    "HOME filler": (
        "import os\n\n\ndef test_fill():\n"
        "    with open(os.path.expanduser('~/fill'), 'wb') as out:\n"
        "        while True:\n"
        "            out.write(bytes(1024 * 1024))\n"
        "            out.flush()\n",
        ["HOME is full: it holds at most 32 MiB"],
    ),
    "file size": (
        "def test_big():\n"
        "    with open('big.bin', 'wb') as out:\n"
        "        while True:\n"
        "            out.write(bytes(1024 * 1024))\n",
        ["File too large"],
    ),
}


def project(root: Path, attack: str) -> Path:
    root.mkdir()
    (root / ".gitignore").write_text(".venv/\n")
    (root / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    make_venv_with_pytest(root / ".venv")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "start")
    return root


LOW_SETTINGS: dict[str, Any] = {
    "sandbox_processes": 64,
    "sandbox_memory_mb": 512,
    "sandbox_file_mb": 256,
    "sandbox_tmp_mb": 64,
    "sandbox_home_mb": 32,
}


def context(root: Path, sandbox: Sandbox, answer: Approval, *, low: bool = True) -> ToolContext:
    """A tool context whose settings give the ``LOW`` limits (else the defaults)."""
    overlay = Overlay(root)
    settings = Settings(
        command_timeout=TIMEOUT,
        sandbox_read_only_paths=(RUNNER_PACKAGES,),
        **(LOW_SETTINGS if low else {}),
    )
    if low:
        assert command_layout.resource_limits(settings) == LOW
    runner = ShadowRunner(overlay, sandbox=sandbox)
    return ToolContext(overlay, settings, runner=runner, approve=Approver(answer))


def run(ctx: ToolContext, command: str) -> str:
    try:
        return asyncio.run(run_command.TOOL.run({"command": command, "timeout": None}, ctx)).text
    except ToolError as error:
        return f"refused: {error.message}"


@pytest.mark.parametrize("attack", ATTACKS)
def test_a_staged_test_exhausting_a_resource_ends_saying_which_limit(tmp_path: Path, attack: str):
    code, said = ATTACKS[attack]
    ctx = context(project(tmp_path / "ws", attack), bubblewrap(), Approval.ONCE)
    ctx.overlay.stage("test_attack.py", code, "model-written")
    began = time.monotonic()
    try:
        output = run(ctx, "pytest -q -x -p no:cacheprovider test_attack.py")
    finally:
        runner_of(ctx).close()
    took = time.monotonic() - began
    assert took < TIMEOUT / 2, f"{attack} ran {took:.0f} s: {output[-2000:]}"
    assert "timed out" not in output
    for words in said:
        assert words in output, output[-3000:]
    assert asked_of(ctx) == []  # pytest is allowlisted in the sandbox
    # the machine is as it was: this process can still start processes and allocate
    assert os.system("true") == 0
    assert len(bytearray(64 * MIB)) == 64 * MIB


@pytest.mark.parametrize("attack", ["fork bomb", "memory balloon"])
def test_without_a_sandbox_it_is_asked_first_and_declined(tmp_path: Path, attack: str):
    code, _ = ATTACKS[attack]
    ctx = context(project(tmp_path / "ws", attack), NONE, Approval.DENY)
    ctx.overlay.stage("test_attack.py", code, "model-written")
    try:
        output = run(ctx, "pytest -q test_attack.py")
    finally:
        runner_of(ctx).close()
    assert output.startswith("refused: The user declined to run"), output
    (request,) = asked_of(ctx)
    assert "unsandboxed" in request.question()


def test_the_default_limits_let_a_suite_run(tmp_path: Path):
    """Many processes, a few hundred MB in a process and in /tmp: all within the defaults."""
    ctx = context(project(tmp_path / "ws", ""), bubblewrap(), Approval.ONCE, low=False)
    ctx.overlay.stage(
        "test_heavy.py",
        "import subprocess, tempfile\n\n\n"
        "def test_processes():\n"
        "    children = [subprocess.Popen(['sleep', '2']) for _ in range(200)]\n"
        "    assert all(child.wait() == 0 for child in children)\n\n\n"
        "def test_memory():\n"
        "    assert len(bytearray(600 * 1024 * 1024)) == 600 * 1024 * 1024\n\n\n"
        "def test_tmp():\n"
        "    with tempfile.TemporaryFile() as out:\n"
        "        for _ in range(300):\n"
        "            out.write(bytes(1024 * 1024))\n",
        "model-written",
    )
    try:
        output = run(ctx, "pytest -q -p no:cacheprovider")
    finally:
        runner_of(ctx).close()
    assert "4 passed" in output, output
    assert "[sandbox:" not in output


def test_the_limits_are_in_the_command_line_and_the_description(tmp_path: Path):
    sandbox = bubblewrap()
    (tmp_path / "home").mkdir()
    argv = sandbox.wrap(["true"], Layout(root=tmp_path, home=tmp_path / "home", limits=LOW))
    joined = " ".join(argv)
    assert f"--size {64 * MIB} --tmpfs /tmp" in joined
    assert f"--size {32 * MIB} --tmpfs {tmp_path / 'home'}" in joined
    assert f"--data={512 * MIB}" in joined and f"--fsize={256 * MIB}" in joined
    if os.geteuid() != 0:
        assert "--nproc=64" in joined
    defaults = ResourceLimits()
    assert defaults == command_layout.resource_limits(Settings())  # the settings' defaults
    assert defaults.memory == 8 * GIB
    assert "4096 processes" in sandbox.describe(False)
