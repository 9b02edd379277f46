"""Capture the Neovim review screen for docs/editors/neovim.md: a real TUI in tmux.

    .venv/bin/python -m tests.nvim.capture_review client-nvim/doc/review-screen

Starts the scripted model server, a temporary project, and `nvim` (120x40)
in a detached tmux session with the plugin from the repository; asks
surehand for a multi-file change, waits for the review, and writes the pane
as text (``.txt``) and with its colours (``.ansi``, `tmux capture-pane -e`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.lsp.editor import settings_for
from tests.nvim.test_plugin import PLUGIN, SUB
from tests.support.openai_server import ScriptedServer, Turn
from tests.support.scripted_task import CALC, CREATE, FINISH, FIX, MOVE

SESSION = "surehand-capture"


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


def main(out: Path) -> int:
    nvim = shutil.which("nvim", path=str(Path(sys.executable).parent)) or "nvim"
    with tempfile.TemporaryDirectory(prefix="surehand-capture-") as tmp, ScriptedServer() as model:
        root = Path(tmp) / "project"
        root.mkdir()
        (root / "pyproject.toml").write_text('[project]\nname = "calc"\n', encoding="utf-8")
        (root / "calc.py").write_text(CALC, encoding="utf-8")
        (root / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
        model.add(Turn(tool_calls=[FIX, SUB, CREATE, MOVE]), Turn(tool_calls=[FINISH]))
        settings = settings_for(model.base_url, model.model, Path(tmp) / "traces")
        init = Path(tmp) / "init.lua"
        init.write_text(
            f"vim.opt.runtimepath:prepend({str(PLUGIN)!r})\n"
            "vim.g.mapleader = ' '\n"
            "vim.o.laststatus = 2\n"
            "vim.o.number = true\n"
            "vim.o.statusline = '%f %m%=%{v:lua.require(\"surehand\").status()}  '\n"
            "require('surehand').setup({\n"
            f"  cmd = {{ {sys.executable!r}, '-m', 'lsp_server' }},\n"
            f"  settings = vim.json.decode({json.dumps(json.dumps(settings))}),\n"
            "})\n",
            encoding="utf-8",
        )
        env = f"XDG_STATE_HOME={tmp}/state XDG_DATA_HOME={tmp}/data XDG_CONFIG_HOME={tmp}/config"
        command = f"cd {root} && env {env} {nvim} --clean -u {init} calc.py"
        subprocess.run(["tmux", "kill-session", "-t", SESSION], capture_output=True, check=False)
        tmux("new-session", "-d", "-s", SESSION, "-x", "120", "-y", "40", command)
        try:
            time.sleep(3)  # the server starts and attaches
            tmux("send-keys", "-t", SESSION, ":Surehand tidy up calc.py", "Enter")
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                if "review" in tmux("capture-pane", "-p", "-t", SESSION):
                    break
                time.sleep(0.3)
            time.sleep(1.5)
            tmux("send-keys", "-t", SESSION, "2G", "")
            time.sleep(0.5)
            tmux("send-keys", "-t", SESSION, ":echo ''", "Enter")
            time.sleep(0.5)
            out.with_suffix(".txt").write_text(
                tmux("capture-pane", "-p", "-t", SESSION), encoding="utf-8"
            )
            out.with_suffix(".ansi").write_text(
                tmux("capture-pane", "-p", "-e", "-t", SESSION), encoding="utf-8"
            )
        finally:
            subprocess.run(
                ["tmux", "kill-session", "-t", SESSION], capture_output=True, check=False
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "review-screen")))
