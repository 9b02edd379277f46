"""`:SurehandInstall` and lazy.nvim's `build = 'client-nvim/build.lua'` (issue 28).

The command makes a virtual environment under `stdpath('data')/surehand`
(`python -m venv`), pip-installs the server into it and checks that it
imports; the plugin then finds `venv/bin/surehand` by itself and starts it in
the project's buffers, with no `surehand` on PATH and no `cmd` or `python`
option.

What pip installs here is not this checkout: a real install needs its
dependencies from a package index, and these tests run offline. So pip
installs, with `--no-index --find-links <folder>`, a stand-in wheel named
`surehand` built by the test, whose `surehand` command hands over (exec) to
this checkout's server. Everything the plugin does is real: the venv, pip,
the check, the lookup of the server, its start and a first reviewed task.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.nvim.test_neovim import NVIM, make_project
from tests.nvim.test_plugin import messages, run_plugin, snap
from tests.nvim.test_plugin_health import PLUGIN, without_surehand_path
from tests.support.openai_server import ScriptedServer, Turn
from tests.support.scripted_task import FINISH, FIX, FIXED

pytestmark = [pytest.mark.slow, pytest.mark.skipif(NVIM is None, reason="no nvim binary")]

VERSION = "0.0.1"
HAND_OVER = """\
import os
import sys

REAL = {real!r}


def main():
    code = "import sys; from surehand.cli import main; sys.exit(main())"
    os.execv(REAL, [REAL, "-c", code, *sys.argv[1:]])
"""


def standin_wheel(folder: Path) -> Path:
    """A wheel of a stand-in `surehand` whose command runs this checkout's server."""
    folder.mkdir(parents=True, exist_ok=True)
    info = f"surehand-{VERSION}.dist-info"
    files = {
        "lsp_server/__init__.py": f'__version__ = "{VERSION}"\n',
        "surehand/__init__.py": "",
        "surehand/cli.py": HAND_OVER.format(real=sys.executable),
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: surehand\nVersion: {VERSION}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/entry_points.txt": "[console_scripts]\nsurehand = surehand.cli:main\n",
    }
    record = []
    for name, text in files.items():
        data = text.encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    wheel = folder / f"surehand-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as out:
        for name, text in files.items():
            out.writestr(name, text)
        out.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return wheel


def install_options(wheels: Path) -> dict[str, object]:
    return {
        "python": sys.executable,
        "source": "surehand",
        "pip_args": ["--no-index", "--find-links", str(wheels)],
    }


def test_install_then_the_server_is_found_and_a_first_task_is_reviewed(
    tmp_path: Path, openai_server: ScriptedServer
):
    root = make_project(tmp_path)
    wheels = tmp_path / "wheels"
    standin_wheel(wheels)
    openai_server.add(Turn(tool_calls=[FIX]), Turn(tool_calls=[FINISH]))

    seen = run_plugin(
        tmp_path,
        openai_server,
        root,
        [
            {"do": "sleep", "ms": 300},
            {"do": "snapshot", "name": "none"},
            {"do": "cmd", "cmd": "SurehandInstall"},
            {"do": "wait_notified", "contains": "surehand: installed"},
            {"do": "wait_attach"},
            {"do": "ask", "task": "fix add"},
            {"do": "wait_review"},
            {"do": "goto", "path": "calc.py", "line": 1},
            {"do": "keys", "keys": " sfa"},
            {"do": "wait_done"},
            {"do": "cmd", "cmd": "w"},
        ],
        cmd=None,
        no_attach=True,
        options={"install": install_options(wheels)},
        env={"PATH": without_surehand_path()},
    )

    said = messages(seen)
    venv = tmp_path / "xdg" / "data" / "nvim" / "surehand" / "venv"
    assert said[:6] == [
        "surehand: no server found (:SurehandInstall, :checkhealth surehand)",
        f"surehand: installing the server (1/3): python -m venv {venv}",
        "surehand: installing the server (2/3): pip install surehand",
        "surehand: installing the server (3/3): check",
        f"surehand: installed (surehand {VERSION}); the server starts in your project buffers",
        "surehand: working on it… (:SurehandCancel stops it)",
    ], said
    assert snap(seen, "none")["status"] == "surehand: stopped"
    assert (venv / "bin" / "surehand").exists()
    assert seen["done"][0]["outcome"] == "applied", seen["done"]
    assert (root / "calc.py").read_text(encoding="utf-8") == FIXED
    log = (tmp_path / "xdg" / "data" / "nvim" / "surehand" / "install.log").read_text()
    assert f"Successfully installed surehand-{VERSION}" in log


def run_build(tmp_path: Path, options: dict[str, object]) -> subprocess.CompletedProcess[str]:
    """lazy.nvim's way: the build file loaded and run, with no setup{} before it."""
    plugin = tmp_path / "plugin"  # a copy: the build writes the help tags into it
    if not plugin.exists():
        shutil.copytree(PLUGIN, plugin)
    script = tmp_path / "lazy_build.lua"
    script.write_text(
        f"vim.g.surehand_install = vim.json.decode({json.dumps(json.dumps(options))})\n"
        f"local chunk = assert(loadfile({json.dumps(str(plugin / 'build.lua'))}))\n"
        "chunk()\n",
        encoding="utf-8",
    )
    env = {
        **os.environ,
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "PATH": without_surehand_path(),
    }
    assert NVIM is not None
    return subprocess.run(
        [NVIM, "--headless", "--clean", "-l", str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )


def test_the_lazy_build_file_installs_and_waits_and_a_failure_is_its_error(tmp_path: Path):
    wheels = tmp_path / "wheels"
    standin_wheel(wheels)

    done = run_build(tmp_path, install_options(wheels))

    assert done.returncode == 0, done.stderr
    surehand = tmp_path / "data" / "nvim" / "surehand" / "venv" / "bin" / "surehand"
    assert surehand.exists(), "installed before the build returned"
    assert ":SurehandInstall\tsurehand.txt" in (tmp_path / "plugin" / "doc" / "tags").read_text()

    broken = install_options(tmp_path / "no-wheels-here")
    broken["source"] = "surehand==9.9.9"
    failed = run_build(tmp_path, broken)
    assert failed.returncode != 0
    assert "surehand: the install failed at pip install (exit 1): " in failed.stderr, failed.stderr
    assert "install.log" in failed.stderr
