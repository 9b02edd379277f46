"""Ordinary projects' tests pass in the sandbox: a Python project with its own .venv, a
Node project with node_modules, and git showing the staged change."""

import ast
import asyncio
import json
import shutil
import socket
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from agent.config.settings import Settings
from agent.execution.command_result import CommandResult
from agent.execution.runner import ShadowRunner
from agent.staging.workspace import Overlay
from tests.agent.overlay_support import git
from tests.agent.sandboxes import bubblewrap
from tests.agent.test_sandbox_attacks import RUNNER_PACKAGES, make_venv_with_pytest

pytestmark = pytest.mark.slow


def run(runner: ShadowRunner, command: list[str], settings: Settings) -> CommandResult:
    return asyncio.run(runner.run(command, 60, settings))


def test_a_python_project_with_its_own_virtualenv(tmp_path: Path):
    root = tmp_path / "shop"
    (root / "shop").mkdir(parents=True)
    (root / "shop/__init__.py").write_text("")
    (root / "shop/prices.py").write_text(
        "from money import cents\n\n\ndef total(items):\n    return cents(sum(items))\n"
    )
    (root / "tests").mkdir()
    (root / "tests/test_prices.py").write_text(
        "from shop.prices import total\n\n\ndef test_total():\n    assert total([1.5, 2]) == 351\n"
    )
    (root / ".gitignore").write_text(".venv/\n")
    make_venv_with_pytest(root / ".venv")
    packages = Path(sysconfig.get_paths(vars={"base": str(root / ".venv")})["purelib"])
    (packages / "money.py").write_text("def cents(amount):\n    return round(amount * 100)\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "start")
    overlay = Overlay(root)
    runner = ShadowRunner(overlay, sandbox=bubblewrap())
    settings = Settings(sandbox_read_only_paths=(RUNNER_PACKAGES,))
    try:
        failing = run(runner, ["pytest", "-q"], settings)
        assert failing.exit_code == 1 and "1 failed" in failing.output, failing.output
        overlay.stage(
            "shop/prices.py",
            "from money import cents\n\n\ndef total(items):\n    return cents(sum(items)) + 1\n",
            "round up",
        )
        passing = run(runner, ["pytest", "-q"], settings)
        assert passing.exit_code == 0 and "1 passed" in passing.output, passing.output
        unittest = run(runner, ["python", "-c", "import money, sys; print(sys.prefix)"], settings)
        assert runner.shadow is not None
        assert unittest.output == f"{runner.shadow.root}/.venv\n"
        status = run(runner, ["git", "status", "--short"], settings)
        assert status.output == " M shop/prices.py\n"
    finally:
        runner.close()
    assert "+ 1" not in (root / "shop/prices.py").read_text()


@pytest.mark.skipif(not shutil.which("npm"), reason="npm is not installed")
def test_a_node_project_with_node_modules(tmp_path: Path):
    root = tmp_path / "web"
    (root / "node_modules/left-pad").mkdir(parents=True)
    (root / "node_modules/left-pad/index.js").write_text(
        "module.exports = (s, n) => ' '.repeat(Math.max(0, n - s.length)) + s;\n"
    )
    (root / "node_modules/left-pad/package.json").write_text(
        '{"name": "left-pad", "main": "index.js"}'
    )
    (root / "package.json").write_text(
        json.dumps({"name": "web", "scripts": {"test": "node test.js"}})
    )
    (root / "pad.js").write_text(
        "const pad = require('left-pad');\nmodule.exports = (s) => pad(s, 4);\n"
    )
    (root / "test.js").write_text(
        "const assert = require('assert');\nassert.strictEqual(require('./pad')('7'), '  07');\n"
        "console.log('ok');\n"
    )
    overlay = Overlay(root)
    runner = ShadowRunner(overlay, sandbox=bubblewrap())
    try:
        assert run(runner, ["npm", "test"], Settings()).exit_code == 1
        overlay.stage(
            "pad.js",
            "const pad = require('left-pad');\nmodule.exports = (s) => pad('0' + s, 4);\n",
            "zero",
        )
        result = run(runner, ["npm", "test"], Settings())
        assert result.exit_code == 0 and "ok" in result.output, result.output
    finally:
        runner.close()


def test_the_network_is_off_unless_a_setting_allows_it(tmp_path: Path):
    (tmp_path / "ws").mkdir()
    code = "import socket; print([i for i in socket.if_nameindex()])"
    runner = ShadowRunner(Overlay(tmp_path / "ws"), sandbox=bubblewrap())
    try:
        closed = run(runner, ["python3", "-c", code], Settings())
        opened = run(runner, ["python3", "-c", code], Settings(sandbox_network=True))
    finally:
        runner.close()
    assert closed.output.strip() == "[(1, 'lo')]", closed.output
    host = sorted(name for _, name in socket.if_nameindex())
    shown = sorted(name for _, name in ast.literal_eval(opened.output))
    assert shown == host


def test_sys_executable_is_not_a_way_out(tmp_path: Path):
    """The server's own interpreter (its venv) is not visible to commands."""
    (tmp_path / "ws").mkdir()
    runner = ShadowRunner(Overlay(tmp_path / "ws"), sandbox=bubblewrap())
    try:
        result = run(runner, [sys.executable, "-c", "print(1)"], Settings())
    finally:
        runner.close()
    assert result.exit_code == 127
    assert (
        subprocess.run([sys.executable, "-c", "print(1)"], capture_output=True, check=True).stdout
        == b"1\n"
    )
