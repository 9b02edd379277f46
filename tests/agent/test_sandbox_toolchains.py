"""A repository cannot mount a folder of the user's into the sandbox by naming it.

A virtualenv's ``pyvenv.cfg`` names the interpreter it was made from, and a
repository can commit one naming any folder (``home = ~/work/other-project``).
The sandbox shows only the prefix of a real Python installation named by a
file the repository does not track: a staged program reading the other
project's ``.env`` finds nothing, with the overlay and with the copy.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import uuid
from pathlib import Path

import pytest

from agent.config.settings import Settings
from agent.execution.runner import ShadowRunner
from agent.execution.sandbox import Sandbox
from agent.execution.sandbox.bubblewrap import Bubblewrap
from agent.execution.sandbox.toolchains import python_prefix, toolchains, venv_interpreter
from agent.staging.workspace import Overlay
from tests.agent.overlay_support import git
from tests.agent.sandboxes import bubblewrap

SECRET = f"DECOY-{uuid.uuid4().hex}"
SYSTEM_PYTHON = Path("/usr/bin/python3")
READER = """\
print("READER-RAN")
try:
    print(open({path!r}).read())
except OSError as error:
    print("could not read", error)
"""


def shadows() -> list[str]:
    return ["overlay", "copy"]


def sandbox_for(shadow: str) -> Sandbox:
    found = bubblewrap()
    assert isinstance(found, Bubblewrap)
    if shadow == "copy":
        return found.with_overlay(None, "the copy was asked for")
    if found.overlay is None:
        pytest.skip(f"no overlay here: {found.shadow}")
    return found


def fake_installation(prefix: Path, version: str = "3.12") -> Path:
    """A Python installation's shape: ``bin/python3`` and ``lib/pythonX.Y/os.py``."""
    (prefix / "bin").mkdir(parents=True)
    program = prefix / "bin/python3"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    (prefix / f"lib/python{version}").mkdir(parents=True)
    (prefix / f"lib/python{version}/os.py").write_text("")
    return prefix / "bin"


def project(tmp_path: Path, home_line: str, *, tracked: bool) -> tuple[Path, Path]:
    """A cloned repository whose ``.venv/pyvenv.cfg`` says ``home_line``; the user's home."""
    home = tmp_path / "home"
    decoy = home / "work/other-project"
    decoy.mkdir(parents=True)
    (decoy / ".env").write_text(f"DATABASE_URL=postgres://app:{SECRET}@db/app\n")
    ws = home / "work/cloned"
    (ws / ".venv/bin").mkdir(parents=True)
    (ws / ".venv/pyvenv.cfg").write_text(home_line.format(decoy=decoy) + "\n")
    (ws / ".gitignore").write_text(".venv/\n")
    (ws / "Makefile").write_text(f"test:\n\t{SYSTEM_PYTHON} read.py\n")
    git(ws, "init", "-q")
    git(ws, "add", ".gitignore", "Makefile")
    if tracked:
        git(ws, "add", "-f", ".venv/pyvenv.cfg")
    git(ws, "commit", "-q", "-m", "start")
    return ws, home


PLANTED = {
    "tracked, naming a plain folder": ("home = {decoy}", True),
    "untracked, naming a plain folder": ("home = {decoy}", False),
    "tracked, naming its bin": ("home = {decoy}/bin", True),
}


@pytest.mark.slow
@pytest.mark.skipif(not SYSTEM_PYTHON.exists() or not shutil.which("make"), reason="no make")
@pytest.mark.parametrize("shadow", shadows())
@pytest.mark.parametrize("planted", PLANTED)
def test_a_planted_pyvenv_cfg_mounts_no_folder_of_the_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shadow: str, planted: str
):
    home_line, tracked = PLANTED[planted]
    ws, home = project(tmp_path, home_line, tracked=tracked)
    decoy = home / "work/other-project"
    if planted.endswith("its bin"):  # an interpreter's shape, inside the decoy project
        fake_installation(decoy)
    monkeypatch.setenv("HOME", str(home))
    overlay = Overlay(ws)
    overlay.stage("read.py", READER.format(path=str(decoy / ".env")), "model-written")
    runner = ShadowRunner(overlay, sandbox=sandbox_for(shadow))
    try:
        result = asyncio.run(runner.run(["make", "test"], 60, Settings()))
    finally:
        runner.close()
    assert "READER-RAN" in result.output, result.output
    assert SECRET not in result.output
    assert "could not read" in result.output


def test_only_a_real_installation_outside_the_workspace_is_believed(tmp_path: Path):
    home, ws = tmp_path / "home", tmp_path / "home/work/cloned"
    (ws / ".venv").mkdir(parents=True)
    real = fake_installation(home / ".pyenv/versions/3.12.1")
    plain = home / "work/other-project"
    plain.mkdir(parents=True)
    in_workspace = fake_installation(ws / "toolchain")
    linked = home / "work/other-venv/bin"  # a venv: its python links to the real one
    linked.mkdir(parents=True)
    (linked / "python3").symlink_to(real / "python3")

    def named(folder: Path | str) -> Path | None:
        (ws / ".venv/pyvenv.cfg").write_text(f"home = {folder}\nversion = 3.12.1\n")
        return venv_interpreter(ws / ".venv", home=home, workspace=ws)

    prefix = home / ".pyenv/versions/3.12.1"
    assert named(real) == prefix
    assert named(linked) == prefix  # the installation, not the other venv
    assert named(plain) is None
    assert named(home) is None
    assert named(in_workspace) is None
    assert named("relative/bin") is None
    assert named(tmp_path / "missing") is None
    assert python_prefix(Path(sys.base_prefix) / "bin") == Path(sys.base_prefix).resolve()
    chains = toolchains([], [prefix], home=home, workspace=ws)
    assert chains == [prefix]  # only the prefix: not ~/.pyenv, not the home
    assert toolchains([], [home, tmp_path], home=home, workspace=ws) == []


def test_a_tracked_pyvenv_cfg_is_not_believed(tmp_path: Path):
    home = tmp_path / "home"
    real = fake_installation(home / ".pyenv/versions/3.12.1")
    ws = tmp_path / "ws"
    (ws / ".venv").mkdir(parents=True)
    (ws / ".venv/pyvenv.cfg").write_text(f"home = {real}\n")
    git(ws, "init", "-q")
    assert venv_interpreter(ws / ".venv", home=home, workspace=ws) == real.parent
    git(ws, "add", "-f", ".venv/pyvenv.cfg")
    assert venv_interpreter(ws / ".venv", home=home, workspace=ws) is None
