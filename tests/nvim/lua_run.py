"""Helpers the Neovim plugin's tests share: a Lua script run headless, and a
file touched once the scripted model is asked."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from tests.nvim.test_neovim import NVIM
from tests.support.openai_server import ScriptedServer

HERE = Path(__file__).parent
PLUGIN = HERE.parent.parent / "client-nvim"


def run_lua(script: str, *arguments: Path, result: Path) -> Any:
    """Run ``tests/nvim/<script>`` with ``nvim --headless --clean -l`` (the plugin's
    folder, then ``arguments``, then ``result``); what it wrote to ``result``.

    A stale ``result`` is removed first (hypothesis reuses ``tmp_path``)."""
    assert NVIM is not None
    result.unlink(missing_ok=True)
    argv = [NVIM, "--headless", "--clean", "-l", str(HERE / script), str(PLUGIN)]
    done = subprocess.run(
        [*argv, *map(str, arguments), str(result)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.exists(), done.stderr
    return json.loads(result.read_text(encoding="utf-8"))


def touch_when_asked(server: ScriptedServer, path: Path, timeout: float = 30.0) -> None:
    """Touch ``path`` (in a thread) once ``server`` has a completion request, for a
    Neovim step that waits for the file."""

    def watch() -> None:
        deadline = time.monotonic() + timeout
        while not server.completions and time.monotonic() < deadline:
            time.sleep(0.05)
        path.touch()

    threading.Thread(target=watch, daemon=True).start()
